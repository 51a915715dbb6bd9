"""Algorithm 2 of Randel et al. (2021): restore feasibility of a labelling.

The routine works on must-link super-instances (:class:`~ccopt.constraints.MustLinkClosure`):
moving an object "with the data points it is must-linked to" (Algorithm 2) is moving its
super-instance, and a violated must-link is a super-instance split across clusters.

1. Every split super-instance goes whole to its best cluster w.r.t. the criterion.
2. While a cannot-link is violated: pick at random a super-instance involved in a
   violated cannot-link and move it to the best other cluster, preferring clusters that
   hold none of its cannot-link partners.
3. Clusters left empty receive one super-instance each (taken where it costs most), so the
   result is a ``k``-partition; with the MSSC criterion this never increases the cost.

Step 2 may cycle when the cannot-link graph is hard to colour. When it stops on
``max_moves`` or the time limit without success, the violating super-instances, fewest
cannot-links first, move to their cheapest cluster holding none of their partners while one
of them can; if violations remain, a complete search takes over (backtracking over the
super-instances in DSATUR order, trying the cheapest clusters first, up to
``max_search_nodes`` nodes), so a feasible labelling is returned whenever one exists and
the search finishes; only then, or on the time limit, is failure reported.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ccopt._timing import Deadline
from ccopt.constraints import MustLinkClosure
from ccopt.exceptions import InvalidParameterError

__all__ = ["RepairResult", "Repairer", "repair_labels"]


@dataclass(frozen=True)
class RepairResult:
    """Outcome of :func:`repair_labels`.

    Attributes
    ----------
    labels : ndarray of int, shape (n_samples,)
        Labels in ``0..k-1`` (feasible when ``feasible`` is True).
    feasible : bool
        Every constraint satisfied and every cluster non-empty.
    n_moves : int
        Super-instance moves made in step 2.
    message : str
        Empty when feasible; otherwise why feasibility was not restored.
    infeasible : bool
        The complete search ran to its end without a feasible labelling: none exists.
    """

    labels: np.ndarray
    feasible: bool
    n_moves: int
    message: str = ""
    infeasible: bool = False


class Repairer:
    """Algorithm 2 bound to one must-link closure: the cannot-link adjacency is built once.

    Parameters
    ----------
    closure : MustLinkClosure
    """

    def __init__(self, closure: MustLinkClosure):
        self.closure = closure
        cl = closure.cl_pairs
        n_super = closure.n_super
        self.adjacency = sp.csr_matrix(
            (np.ones(2 * len(cl)), (np.concatenate([cl[:, 0], cl[:, 1]]), np.concatenate([cl[:, 1], cl[:, 0]]))),
            shape=(n_super, n_super),
        )
        # Row of every adjacency entry. Distinct cannot-links can join the same two
        # super-instances (two members of a must-link group cannot-linked to one object);
        # the adjacency holds such a pair once, and so must the conflict counts below.
        self._rows = np.repeat(np.arange(n_super), np.diff(self.adjacency.indptr))

    def __call__(self, labels: np.ndarray, cost: np.ndarray, rng: np.random.Generator, *,
                 deadline: Deadline | None = None, max_moves: int | None = None,
                 max_search_nodes: int = 200_000) -> RepairResult:
        """Repair ``labels``; see :func:`repair_labels` for the parameters."""
        closure = self.closure
        k = cost.shape[1]
        n_super = closure.n_super
        member_cost = closure.indicator @ cost  # (n_super, k): a super-instance's total cost per cluster
        super_labels = _majority_free_labels(labels, closure, member_cost)

        cl = closure.cl_pairs
        indptr, neighbours = self.adjacency.indptr, self.adjacency.indices
        # n_conflicts[s]: distinct cannot-link partners of s in its cluster (updated per move).
        rows = self._rows
        n_conflicts = np.bincount(rows[super_labels[rows] == super_labels[neighbours]], minlength=n_super)

        if max_moves is None:
            # Random moves either settle quickly or wander (even on a forest with k = 2);
            # past this budget the complete search is the faster way to feasibility.
            max_moves = 2 * len(cl) + 20
        moves, message = 0, ""
        while True:
            violating = np.flatnonzero(n_conflicts > 0)
            if violating.size == 0:
                break
            if moves >= max_moves:
                message = f"{violating.size} super-instances still violate cannot-links after {moves} moves"
                break
            if deadline is not None and deadline.expired():
                message = f"time limit reached with {violating.size} super-instances violating cannot-links"
                break
            s = int(violating[rng.integers(violating.size)])
            current = super_labels[s]
            partners = neighbours[indptr[s]:indptr[s + 1]]
            blocked = np.zeros(k, dtype=bool)
            blocked[super_labels[partners]] = True
            choice = member_cost[s].copy()
            choice[current] = np.inf
            free = ~blocked
            free[current] = False
            if free.any():
                choice[~free] = np.inf
            target = int(np.argmin(choice))
            # Update conflict counts incrementally: s leaves `current` and joins `target`.
            old_same = partners[super_labels[partners] == current]
            new_same = partners[super_labels[partners] == target]
            n_conflicts[old_same] -= 1
            n_conflicts[s] -= old_same.size
            n_conflicts[new_same] += 1
            n_conflicts[s] += new_same.size
            super_labels[s] = target
            moves += 1

        if message and _complete_greedily(super_labels, member_cost, n_conflicts, indptr, neighbours):
            message = ""
        infeasible = False
        if message and not (deadline is not None and deadline.expired()):
            found, infeasible = _backtrack_colouring(super_labels, member_cost, k, indptr, neighbours,
                                                     max_search_nodes, deadline)
            if found is not None:
                super_labels, message = found, ""
            elif infeasible:
                message += f"; the complete backtracking search proved that no labelling into {k} clusters exists"
            elif deadline is not None and deadline.expired():
                message += "; the time limit ran out during the backtracking search"
            else:
                message += (f"; the backtracking search stopped at its limit of max_search_nodes={max_search_nodes} "
                            "nodes without finding a feasible labelling")
        super_labels = _fill_empty(super_labels, member_cost, k, self.adjacency)
        out = closure.expand(super_labels)
        feasible = not message and np.unique(out).size == k
        if not message and not feasible:
            message = "could not give every cluster a member"
        return RepairResult(out, feasible, moves, message, infeasible)

    def descend(self, labels: np.ndarray, cost: np.ndarray, *, deadline: Deadline | None = None,
                max_rounds: int = 100) -> np.ndarray:
        """Lower the cost of a feasible labelling by moves that keep it feasible.

        Each round moves every super-instance that gains by going to its cheapest cluster
        holding none of its cannot-link partners, except where a cannot-link partner with a
        larger gain moves in the same round (so two partners never meet), and except moves
        that would empty a cluster. Rounds stop when nothing gains, at ``max_rounds`` or at
        the deadline.

        Parameters
        ----------
        labels : ndarray of int, shape (n_samples,)
            A labelling that satisfies every constraint of the closure.
        cost : ndarray of shape (n_samples, k)
            As for :func:`repair_labels`.
        deadline : Deadline, optional
        max_rounds : int, default=100

        Returns
        -------
        ndarray of int, shape (n_samples,)
            A labelling as feasible as ``labels``, of total cost no higher.
        """
        closure = self.closure
        k = cost.shape[1]
        member_cost = closure.indicator @ cost
        # A feasible labelling keeps each super-instance whole, so any member gives its label.
        super_labels = np.empty(closure.n_super, dtype=np.int64)
        super_labels[closure.component] = labels
        adjacency = self.adjacency
        rows = np.arange(closure.n_super)
        for _ in range(max_rounds):
            if deadline is not None and deadline.expired():
                break
            partner_clusters = adjacency @ sp.csr_matrix(
                (np.ones(closure.n_super), (rows, super_labels)), shape=(closure.n_super, k))
            options = np.where(partner_clusters.toarray() > 0, np.inf, member_cost)
            target = np.argmin(options, axis=1)
            gain = member_cost[rows, super_labels] - options[rows, target]
            # Relative slack: a gain lost in rounding must not make two clusters trade an
            # object back and forth.
            moving = gain > 1e-12 * np.maximum(np.abs(member_cost[rows, super_labels]), 1.0)
            if not moving.any():
                break
            rank = np.argsort(np.lexsort((-rows, gain))) + 1  # by gain, ties to the smaller index
            # Never empty a cluster: one that would lose all its members keeps its weakest mover.
            emptied = np.bincount(super_labels[~moving], minlength=k) == 0
            weakest = np.full(k, np.inf)
            np.minimum.at(weakest, super_labels[moving], rank[moving])
            moving &= ~(emptied[super_labels] & (rank == weakest[super_labels]))
            # A mover yields to a moving partner of higher rank, so the movers of a round form
            # an independent set of the cannot-link graph; the highest-ranked mover always moves.
            priority = np.where(moving, rank, 0).astype(np.float64)
            strongest_partner = adjacency.multiply(priority[None, :]).max(axis=1).toarray().ravel()
            moving &= priority > strongest_partner
            if not moving.any():
                break
            super_labels[moving] = target[moving]
        return closure.expand(super_labels)


def repair_labels(labels: np.ndarray, cost: np.ndarray, closure: MustLinkClosure,
                  rng: np.random.Generator, *, deadline: Deadline | None = None,
                  max_moves: int | None = None, max_search_nodes: int = 200_000) -> RepairResult:
    """Make ``labels`` satisfy every must-link and cannot-link (Algorithm 2).

    Parameters
    ----------
    labels : ndarray of int, shape (n_samples,)
        Cluster of each object in ``0..k-1``.
    cost : ndarray of shape (n_samples, k)
        Cost of each object in each cluster w.r.t. the criterion (squared distance to the
        cluster centre for MSSC, distance to the medoid for k-medoids); "best cluster"
        means least total cost of the moved objects.
    closure : MustLinkClosure
    rng : numpy.random.Generator
        Chooses which violated cannot-link endpoint moves next.
    deadline : Deadline, optional
        The routine's own time limit.
    max_moves : int, optional
        Bound on the moves of step 2; default ``2 * n_cl + 20``.
    max_search_nodes : int, default=200000
        Bound on the backtracking search that runs when the moves fail.

    Returns
    -------
    RepairResult

    Raises
    ------
    InvalidParameterError
        ``labels`` not one int in ``0..k-1`` per object of ``closure``, ``cost`` not a
        real (n_samples, k) array without NaN, or ``rng`` not a numpy Generator.

    Notes
    -----
    Repeated repairs on one closure are cheaper through a :class:`Repairer` (which trusts
    its inputs).
    """
    labels, cost = _checked_repair_input(labels, cost, closure, rng)
    return Repairer(closure)(labels, cost, rng, deadline=deadline, max_moves=max_moves,
                             max_search_nodes=max_search_nodes)


def _checked_repair_input(labels, cost, closure: MustLinkClosure, rng) -> tuple[np.ndarray, np.ndarray]:
    n = closure.component.shape[0]
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}.")
    cost = np.asarray(cost)
    if cost.ndim != 2 or cost.shape[0] != n or cost.shape[1] < 1 or cost.dtype.kind not in "iuf":
        raise InvalidParameterError(
            f"cost must be a real array of shape (n_samples, k) = ({n}, k); got shape {cost.shape}, "
            f"dtype {cost.dtype}.")
    if np.isnan(cost).any():
        raise InvalidParameterError("cost holds NaN; every object needs a cost in every cluster.")
    labels = np.asarray(labels)
    if labels.shape != (n,) or labels.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"labels must be {n} integer cluster indices (one per object); got shape {labels.shape}, "
            f"dtype {labels.dtype}.")
    k = cost.shape[1]
    outside = np.flatnonzero((labels < 0) | (labels >= k))
    if outside.size:
        raise InvalidParameterError(
            f"labels must lie in 0..{k - 1} (cost has k = {k} columns); object {outside[0]} has "
            f"label {labels[outside[0]]}.")
    return labels.astype(np.int64), cost.astype(np.float64)


def _complete_greedily(super_labels, member_cost, n_conflicts, indptr, neighbours) -> bool:
    """Move violating super-instances, fewest cannot-links first, to their cheapest free cluster.

    A free cluster holds none of the super-instance's cannot-link partners, so every move
    ends the violations of its super-instance without creating one: the loop ends, after at
    most as many moves as there are violated cannot-links. It succeeds where the random
    moves leave large must-link groups with a partner in every cluster, because the small
    partners move instead. Updates ``super_labels`` and ``n_conflicts`` in place; returns
    whether no cannot-link is violated.
    """
    degree = np.diff(indptr)
    k = member_cost.shape[1]
    while True:
        violating = np.flatnonzero(n_conflicts > 0)
        if violating.size == 0:
            return True
        moved = False
        for s in violating[np.argsort(degree[violating], kind="stable")]:
            if n_conflicts[s] == 0:
                continue
            partners = neighbours[indptr[s]:indptr[s + 1]]
            blocked = np.zeros(k, dtype=bool)
            blocked[super_labels[partners]] = True
            if blocked.all():
                continue
            target = int(np.argmin(np.where(blocked, np.inf, member_cost[s])))
            old_same = partners[super_labels[partners] == super_labels[s]]
            n_conflicts[old_same] -= 1
            n_conflicts[s] = 0
            super_labels[s] = target
            moved = True
        if not moved:
            return False


def _backtrack_colouring(start, member_cost, k, indptr, neighbours, max_nodes, deadline):
    """Complete search for labels with no cannot-link inside a cluster.

    Super-instances without cannot-links keep their label. The others are coloured in
    DSATUR order (most distinct neighbour colours first, then most neighbours), each trying
    its clusters from cheapest to dearest; ``used[v, c]`` counts the coloured neighbours of
    ``v`` in cluster ``c`` so that choosing the next vertex is one vectorised step. Returns
    ``(labels, False)`` on success, ``(None, False)`` when the node budget or the deadline
    runs out, and ``(None, True)`` when the search is exhausted: no colouring with ``k``
    colours exists.
    """
    labels = start.copy()
    degree = np.diff(indptr)
    nodes_all = np.flatnonzero(degree > 0)
    if nodes_all.size == 0:
        return labels, False
    position = np.full(start.size, -1, dtype=np.int64)
    position[nodes_all] = np.arange(nodes_all.size)
    used = np.zeros((nodes_all.size, k), dtype=np.int64)
    colour = np.full(nodes_all.size, -1, dtype=np.int64)
    local_degree = degree[nodes_all]
    preference = np.argsort(member_cost[nodes_all], axis=1)

    def neighbours_of(i: int) -> np.ndarray:
        v = nodes_all[i]
        return position[neighbours[indptr[v]:indptr[v + 1]]]

    dive = _greedy_dive(local_degree, preference, neighbours_of, k)
    if dive is not None:
        labels[nodes_all] = dive
        return labels, False

    def pick() -> int:
        free = colour < 0
        if not free.any():
            return -1
        saturation = (used > 0).sum(axis=1)
        key = np.where(free, saturation * (local_degree.max() + 1) + local_degree, -1)
        return int(np.argmax(key))

    def options(i: int) -> list[int]:
        return [int(c) for c in preference[i] if used[i, c] == 0]

    def set_colour(i: int, c: int, delta: int) -> None:
        np.add.at(used[:, c], neighbours_of(i), delta)

    stack: list[tuple[int, list[int]]] = []
    first = pick()
    stack.append((first, options(first)))
    n_nodes = 0
    while stack:
        n_nodes += 1
        if n_nodes > max_nodes or (deadline is not None and n_nodes % 256 == 0 and deadline.expired()):
            return None, False
        i, choices = stack[-1]
        if colour[i] >= 0:  # coming back to i: undo its colour before trying the next one
            set_colour(i, int(colour[i]), -1)
            colour[i] = -1
        if not choices:
            stack.pop()
            continue
        c = choices.pop(0)
        colour[i] = c
        set_colour(i, c, +1)
        nxt = pick()
        if nxt < 0:
            labels[nodes_all] = colour
            return labels, False
        stack.append((nxt, options(nxt)))
    return None, True


def _greedy_dive(degree, preference, neighbours_of, k) -> np.ndarray | None:
    """The first path of the backtracking search, found in O((V + E) log V); None if it dead-ends.

    The search's ``pick`` rescans every vertex at each step, O(V k) (50,000 linked
    super-instances made its first path alone outlast a 10-s repair); here a lazy heap
    yields the same vertex: most distinct neighbour clusters, then larger degree, then
    smaller index. Each vertex takes the first cluster of its preference that no coloured
    neighbour holds, as the search would.
    """
    n_nodes = degree.size
    used = np.zeros((n_nodes, k), dtype=np.int64)
    saturation = np.zeros(n_nodes, dtype=np.int64)
    colour = np.full(n_nodes, -1, dtype=np.int64)
    heap = [(0, -int(d), i) for i, d in enumerate(degree.tolist())]
    heapq.heapify(heap)
    while heap:
        minus_saturation, _, i = heapq.heappop(heap)
        if colour[i] >= 0 or -minus_saturation != saturation[i]:
            continue  # stale: coloured already, or a newer entry carries its higher saturation
        free = preference[i][used[i, preference[i]] == 0]
        if free.size == 0:
            return None
        c = int(free[0])
        colour[i] = c
        for j in neighbours_of(i).tolist():
            if colour[j] < 0:
                if used[j, c] == 0:
                    saturation[j] += 1
                    heapq.heappush(heap, (-int(saturation[j]), -int(degree[j]), j))
                used[j, c] += 1
    return colour


def _majority_free_labels(labels, closure: MustLinkClosure, member_cost) -> np.ndarray:
    """Step 1: a whole super-instance keeps its cluster; a split one goes to its best cluster."""
    labels = np.asarray(labels)
    comp = closure.component
    first = np.full(closure.n_super, -1, dtype=np.int64)
    first[comp[::-1]] = labels[::-1]
    split = np.zeros(closure.n_super, dtype=bool)
    split[comp[labels != first[comp]]] = True
    super_labels = first.copy()
    super_labels[split] = np.argmin(member_cost[split], axis=1)
    return super_labels


def _fill_empty(super_labels, member_cost, k, adjacency) -> np.ndarray:
    """Give each empty cluster a super-instance that leaves a cluster of two or more.

    A super-instance alone in its cluster violates no cannot-link, so feasibility is kept.
    """
    super_labels = super_labels.copy()
    for c in range(k):
        counts = np.bincount(super_labels, minlength=k)
        if counts[c] > 0:
            continue
        movable = counts[super_labels] > 1
        if not movable.any():
            break
        here = member_cost[np.arange(super_labels.size), super_labels]
        gain = np.where(movable, here - member_cost[:, c], -np.inf)
        super_labels[int(np.argmax(gain))] = c
    return super_labels
