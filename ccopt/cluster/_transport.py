"""The exact size assignment: n objects to k clusters of given sizes at least total cost.

A transportation problem (costs n x k, every object once, cluster ``g`` exactly
``capacities[g]`` objects), solved in O(n k) memory from dual prices, one per cluster:
every object always sits in its cheapest cluster after prices. A few sweeps of price
raises bring the sizes near the targets, then successive shortest paths over the k clusters
move the remaining objects one at a time. The labelling is integral by construction, and
the prices certify its optimality (``_check_exact``). It replaced a ``linear_sum_assignment``
over n x n cluster slots (51.5 s and 1.16 GB at n = 8,000).
"""

from __future__ import annotations

import math

import numpy as np

from ccopt._warnings import warn_user
from ccopt.exceptions import CcoptWarning

__all__ = ["EXACT_WORK_ARRAYS", "AssignmentStopped", "assign_exact_sizes"]

# At most this many sweeps of the dual ascent that prices the clusters before the
# shortest-path phase. It stops earlier once a sweep (O(n k)) puts fewer than n / (8 k)
# objects in place, about what the shortest paths (O(k^2) and up each) do in that time.
_PRICE_SWEEPS = 50
# Below this many objects to move, the shortest paths alone cost less than one sweep (O(n k)).
_SWEEP_FROM = 32
# Shortest-path steps between two looks at the stop callback.
_STOP_EVERY = 64
# A cluster's move candidates are sorted again once more objects than this, and than
# sqrt(4 m k) for m members, have joined it since the last sort: every look at a pair scans
# the objects joined since, and a sort costs O(m k log m), so that balances the two.
_RESORT_FROM = 64
# Arrays of shape (n, k) one exact assignment holds besides the costs, rounded up (the
# sorted move candidates' keys and objects, cost - prices; tracemalloc peaks of 2.5 to 3.1
# at n = 8,000-50,000, k = 10-30): announced once per fit.
EXACT_WORK_ARRAYS = 4


class AssignmentStopped(Exception):
    """The exact size assignment was stopped by its ``stop`` callback (the time limit)."""


def _two_smallest(values: np.ndarray) -> tuple:
    """Smallest and second-smallest entry of every row, with their columns."""
    rows = np.arange(values.shape[0])
    first = values.argmin(axis=1)
    low = values[rows, first]
    masked = values.copy()
    masked[rows, first] = np.inf
    second = masked.argmin(axis=1)
    return low, first, masked[rows, second], second


def _cheapest(cost: np.ndarray, prices: np.ndarray, capacities: np.ndarray) -> tuple:
    """Each object's cheapest cluster at ``prices``, and how many objects are over capacity."""
    labels = np.argmin(cost - prices, axis=1)
    counts = np.bincount(labels, minlength=capacities.size)
    return labels, int(np.maximum(counts - capacities, 0).sum())


def _raise_prices(cost: np.ndarray, capacities: np.ndarray, prices: np.ndarray, left: int,
                  stop) -> np.ndarray:
    """Dual prices from Gauss-Seidel ascent on the dual of :func:`assign_exact_sizes`.

    Each price in turn is set so that, the others fixed, exactly ``capacities[h]`` objects
    find cluster ``h`` cheapest: the middle of the gap between the ``capacities[h]``-th and
    the next smallest margin, an optimal value of that coordinate. Any prices are a valid
    start for the shortest paths, which finish the job exactly; these leave far fewer
    objects to move, each move costing a shortest path (measured at n = 50,000, k = 10,
    skewed sizes: 26,848 objects over capacity at zero prices, 295 after the sweeps).
    Rows whose two cheapest clusters include ``h`` are re-ranked after ``h``'s price moves;
    the others only compare with the new column, so a sweep costs O(n k).

    ``left`` is the number of objects over capacity at ``prices``; ``prices`` is updated in
    place and returned.
    """
    n, k = cost.shape
    reduced = cost - prices
    low, first, second_low, second = _two_smallest(reduced)
    for _ in range(_PRICE_SWEEPS):
        if stop is not None and stop():
            raise AssignmentStopped
        for h in range(capacities.size):
            margin = cost[:, h] - np.where(first == h, second_low, low)
            cap = int(capacities[h])
            below, above = np.partition(margin, (cap - 1, cap))[cap - 1:cap + 1]
            prices[h] = 0.5 * (below + above)
            column = reduced[:, h] = cost[:, h] - prices[h]
            ranked = (first == h) | (second == h)
            new_first = ~ranked & (column < low)
            new_second = ~ranked & ~new_first & (column < second_low)
            second_low[new_first], second[new_first] = low[new_first], first[new_first]
            low[new_first], first[new_first] = column[new_first], h
            second_low[new_second], second[new_second] = column[new_second], h
            rows = np.flatnonzero(ranked)
            low[rows], first[rows], second_low[rows], second[rows] = _two_smallest(reduced[rows])
        now = _cheapest(cost, prices, capacities)[1]
        if now == 0 or 8 * k * (left - now) < n:
            break
        left = now
    return prices


class _MoveCandidates:
    """For every ordered pair of clusters ``(g, h)``, the member of ``g`` cheapest to move to ``h``.

    That is the smallest key ``c_ih - c_ig`` (ties: lowest index), which the prices do not
    change. The members a cluster had when it was last sorted sit in one argsort per
    cluster, read through a pointer per pair that skips the objects gone since; objects that
    joined since are scanned from an array, and the cluster is sorted again once that array
    outgrows ``_RESORT_FROM`` and ``sqrt(4 m k)`` (``m`` members at the last sort). O(n k)
    memory.
    """

    def __init__(self, cost: np.ndarray, labels: np.ndarray):
        self.cost, self.labels = cost, labels
        k = cost.shape[1]
        self.order: list = [None] * k
        self.keys: list = [None] * k
        self.pointer = np.zeros((k, k), dtype=np.int64)
        self.joined = [np.empty(0, dtype=np.int64)] * k
        self.n_joined = np.zeros(k, dtype=np.int64)
        self.resort_from = np.zeros(k, dtype=np.int64)
        self.key = np.full((k, k), np.inf)
        self.obj = np.full((k, k), -1, dtype=np.int64)
        for g in range(k):
            self._build(g)

    def _build(self, g: int) -> None:
        members = np.flatnonzero(self.labels == g)
        delta = self.cost[members] - self.cost[members, g][:, None]
        order = np.argsort(delta, axis=0, kind="stable")
        self.order[g] = members[order]
        self.keys[g] = np.take_along_axis(delta, order, axis=0)
        self.pointer[g] = 0
        self.n_joined[g] = 0
        self.resort_from[g] = max(_RESORT_FROM, math.isqrt(4 * members.size * self.cost.shape[1]))
        for h in range(self.cost.shape[1]):
            self._refresh(g, h)

    def _refresh(self, g: int, h: int) -> None:
        if h == g:
            return
        order, keys, labels = self.order[g], self.keys[g], self.labels
        at, end = int(self.pointer[g, h]), order.shape[0]
        while at < end and labels[order[at, h]] != g:
            at += 1
        self.pointer[g, h] = at
        key, obj = (keys[at, h], order[at, h]) if at < end else (np.inf, -1)
        if self.n_joined[g]:
            joined = self.joined[g][:self.n_joined[g]]
            joined = joined[labels[joined] == g]
            if joined.size:
                keys_joined = self.cost[joined, h] - self.cost[joined, g]
                best = keys_joined.min()
                candidate = joined[keys_joined == best].min()
                if best < key or (best == key and candidate < obj):
                    key, obj = best, candidate
        self.key[g, h], self.obj[g, h] = key, obj

    def moved(self, i: int, g: int, h: int) -> None:
        """Object ``i`` went from ``g`` to ``h`` (``labels`` already says so)."""
        for other in np.flatnonzero(self.obj[g] == i):
            self._refresh(g, int(other))
        count = self.n_joined[h]
        if count == self.joined[h].size:
            self.joined[h] = np.resize(self.joined[h], max(16, 2 * count))
        self.joined[h][count] = i
        self.n_joined[h] = count + 1
        if count + 1 > self.resort_from[h]:
            self._build(h)
            return
        key = self.cost[i] - self.cost[i, h]
        key[h] = np.inf
        better = (key < self.key[h]) | ((key == self.key[h]) & (i < self.obj[h]))
        self.key[h, better] = key[better]
        self.obj[h, better] = i


def _shortest_paths(weights: np.ndarray, sources: np.ndarray) -> tuple:
    """Distances from the nearest source, and predecessors, on a dense graph of ``k`` nodes.

    Rounds of min-plus relaxation (Bellman-Ford): one numpy call per round, and the paths
    here have few edges, so this beats a Dijkstra that picks one node per Python step. Only
    strict improvements are taken, so the predecessors form a forest even across
    zero-weight cycles.
    """
    k = weights.shape[0]
    dist = np.where(sources, 0.0, np.inf)
    pred = np.full(k, -1, dtype=np.int64)
    columns = np.arange(k)
    for _ in range(k):
        through = dist[:, None] + weights
        via = through.argmin(axis=0)
        candidate = through[via, columns]
        better = candidate < dist
        if not better.any():
            break
        dist[better] = candidate[better]
        pred[better] = via[better]
    return dist, pred


def assign_exact_sizes(cost: np.ndarray, capacities: np.ndarray, prices: np.ndarray | None = None,
                        stop=None) -> tuple[np.ndarray, np.ndarray]:
    """Cheapest labelling with exactly ``capacities[h]`` objects in cluster ``h``.

    The transportation problem

    .. math::

        \\min_x \\sum_{i,h} c_{ih} x_{ih} \\quad \\text{s.t.} \\quad \\sum_h x_{ih} = 1,
        \\quad \\sum_i x_{ih} = E'_h, \\quad x \\ge 0

    has a totally unimodular matrix, so its LP optimum is a labelling. Its dual is
    :math:`\\max_p \\sum_i \\min_h (c_{ih} - p_h) + \\sum_h E'_h p_h`. The solver keeps every
    object in a cluster minimising :math:`c_{ih} - p_h` (dual feasibility and complementary
    slackness) and works towards the capacities (primal feasibility): prices raised by a
    dual ascent (:func:`_raise_prices`), then successive shortest paths on the ``k``-cluster
    graph, each moving one object out of an over-full cluster along the cheapest chain of
    moves that ends in an under-full one, with the prices raised by the distances so that the
    moved objects stay at their cheapest. O(n k) memory (an ``n x n`` assignment matrix is
    never formed) and about one shortest path per object out of place: with the previous
    step's prices, a Lloyd step moves few.

    The result is checked: the sizes, and the optimality certificate ``primal - dual =
    sum_i [(c_{i l_i} - p_{l_i}) - min_h (c_ih - p_h)] = 0`` (up to rounding).
    Deterministic: ties are broken by cluster and object index.

    Parameters
    ----------
    cost : ndarray of shape (n_samples, n_clusters)
        Finite costs ``c_ih`` (squared distances).
    capacities : ndarray of int, shape (n_clusters,)
        Positive, adding up to ``n_samples``.
    prices : ndarray of shape (n_clusters,), optional
        Dual prices to start from (the previous step's); default zero.
    stop : callable, optional
        Asked between sweeps and every ``_STOP_EVERY`` paths; ``True`` abandons the
        assignment by raising :class:`AssignmentStopped`.

    Returns
    -------
    labels : ndarray of int64, shape (n_samples,)
    prices : ndarray of float64, shape (n_clusters,)
        Dual prices certifying that ``labels`` is optimal.
    """
    n, k = cost.shape
    capacities = np.asarray(capacities, dtype=np.int64)
    prices = np.zeros(k) if prices is None else np.array(prices, dtype=np.float64)
    if k == 1:
        return np.zeros(n, dtype=np.int64), prices
    labels, left = _cheapest(cost, prices, capacities)
    if left > _SWEEP_FROM:
        prices = _raise_prices(cost, capacities, prices, left, stop)
        labels = _cheapest(cost, prices, capacities)[0]
    surplus = np.bincount(labels, minlength=k) - capacities
    if np.any(surplus):
        _move_along_shortest_paths(cost, labels, prices, surplus, stop)
    _check_exact(cost, labels, prices, capacities)
    return labels, prices


def _move_along_shortest_paths(cost: np.ndarray, labels: np.ndarray, prices: np.ndarray,
                               surplus: np.ndarray, stop) -> None:
    """The successive shortest paths of :func:`assign_exact_sizes`, until ``surplus`` is zero.

    ``labels``, ``prices`` and ``surplus`` (cluster sizes minus capacities) are updated in
    place; every object must already sit in a cluster minimising ``cost - prices``.
    """
    k = cost.shape[1]
    candidates = _MoveCandidates(cost, labels)
    paths = 0
    while np.any(surplus > 0):
        paths += 1
        if stop is not None and paths % _STOP_EVERY == 0 and stop():
            raise AssignmentStopped
        # Reduced cost of the cheapest move g -> h; >= 0 but for rounding.
        weights = np.maximum(candidates.key - prices[None, :] + prices[:, None], 0.0)
        np.fill_diagonal(weights, np.inf)
        dist, pred = _shortest_paths(weights, surplus > 0)
        short = np.flatnonzero(surplus < 0)
        end = int(short[np.argmin(dist[short])])
        # Clusters farther than ``end`` rise by its distance only: every move's reduced
        # cost stays >= 0, and those on the path drop to 0.
        prices += np.minimum(dist, dist[end])
        moves = []
        h = end
        for _ in range(k):  # the predecessors form a forest: at most k - 1 steps
            g = int(pred[h])
            if g < 0:
                break
            moves.append((int(candidates.obj[g, h]), g, h))
            h = g
        surplus[h] -= 1
        surplus[end] += 1
        for i, _, to in moves:  # every move's object is read before any is made
            labels[i] = to
        for i, source, to in moves:
            candidates.moved(i, source, to)


def _check_exact(cost: np.ndarray, labels: np.ndarray, prices: np.ndarray,
                 capacities: np.ndarray) -> None:
    """Warn if ``labels`` misses the capacities or its optimality certificate (rounding aside).

    The slack of an object is how much cheaper, at ``prices``, another cluster would be; their
    sum is the gap between the labelling's cost and the dual bound, zero at the optimum.
    """
    reduced = cost - prices
    slack = reduced[np.arange(labels.size), labels] - reduced.min(axis=1)
    counts = np.bincount(labels, minlength=capacities.size)
    # The prices are sums of many path lengths: rounding leaves slacks of a few ulps of the
    # largest cost, far below this.
    tolerance = 1e-9 * max(float(cost.max()), -float(cost.min()))
    if not np.array_equal(counts, capacities) or slack.max() > tolerance:
        warn_user(
            f"The exact size assignment ended with cluster sizes {counts.tolist()} for "
            f"{capacities.tolist()} and an optimality gap of {float(slack.sum()):.3g}; the "
            "labelling may not be the cheapest with those sizes. Please report this with the data.",
            CcoptWarning,
        )
