"""Cluster medoids under a distance matrix: the one place the k-medoids routes compute them.

A cluster's medoid is its member with the least total distance to the other members; the
work is the ``m x m`` block of the distance matrix, ``O(m^2)`` for a cluster of ``m``
objects. On Optical (n = 3,823, k = 10) that block is most of a subgradient iteration of
the ``voronoi`` route, and about half of the clusters it meets were met in one of the last
few iterations (unchanged by the step, or repaired back), so :class:`MedoidFinder`
remembers the latest ones. Remembered answers are the ones a fresh computation gives, bit
for bit: the cache is keyed by the exact member list.

The other clusters it meets mostly differ from a remembered one by a few objects, so for
large clusters the finder also remembers every member's total distance to the cluster and
derives a new cluster's totals from the closest remembered cluster's, ``O(m)`` per object
added or removed. Those derived totals are summed in another order than a fresh
computation and may differ from it in the last bits, so they only pick the few members
that can be the medoid (a rigorous rounding-error bound, see
:meth:`MedoidFinder._near_minimum`); those few are summed again exactly as
:func:`best_member` sums them, and the answer is again the fresh one, bit for bit.

Blocks of the distance matrix are read a bounded number of rows at a time
(:func:`rows_per_block`): with ``k = 2`` a cluster holds about half of the objects, and its
whole ``m x m`` block would be a quarter of the matrix (1 GB at n = 23,000). The sums are
carried from one block to the next in the order numpy sums the whole block, so they are the
same bit for bit.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from ccopt.config import check_dense_memory, get_config

__all__ = ["MedoidFinder", "best_member", "cluster_members", "kmedoids_cost", "rows_per_block"]

# Below this many members the whole m x m block costs less than the bookkeeping of a
# derivation (about twenty small numpy calls, 100-200 us): measured on random drifting
# clusters, the break-even is near 128 members when the matrix is out of cache (n = 5,000)
# and past 256 when it is in (n = 300).
_INCREMENTAL_MIN = 256
# A cluster is derived from a remembered one only if they differ by at most m / 4 objects:
# a derivation reads about 2 m entries per differing object, a fresh block m^2.
_MAX_DIFFERENCE = 4
# The search for a remembered cluster to derive from stops at one this close (m / 64).
_CLOSE_ENOUGH = 64
# Totals derived through more than 2 m added or removed rows are summed afresh: the error
# bound grows with the number of terms, and a looser bound lets in more candidates.
_MAX_TERMS = 2
# More candidates than m / 16 (many near-ties, e.g. coincident points) and the whole block
# is as cheap as summing the candidates again.
_MAX_CANDIDATES = 16
# Remembered clusters with fewer than half of these probes in the new one are not compared
# in full (a cluster within m / 4 objects keeps most of them).
_PROBES = 8
# Totals whose terms are bounded by this cannot overflow, and neither can any partial sum.
_SAFE_WEIGHT = 2.0**1000
_EPS = float(np.finfo(np.float64).eps)  # 2 u, twice the unit roundoff of float64
_TINY = float(np.finfo(np.float64).tiny)
# A block of rows of the distance matrix read at once: large enough that numpy's per-call
# overhead vanishes against the row operations, small enough to stay in a core's cache.
_BLOCK_BYTES = 8 * 1024**2


def rows_per_block(width: int) -> int:
    """Rows of ``width`` float64 entries to process at a time, at least 1.

    The block and one more row (the sums carried from the blocks before) take at most
    8 MiB and at most ``max_dense_bytes`` (:func:`ccopt.set_config`), unless a single
    such pair of rows is larger.

    Parameters
    ----------
    width : int
        Entries per row.

    Returns
    -------
    int
    """
    limit = min(_BLOCK_BYTES, int(get_config()["max_dense_bytes"]))
    return max(1, limit // (8 * max(1, width)) - 1)


def _carry(sums: np.ndarray | None, block: np.ndarray) -> np.ndarray:
    """``sums`` plus the column sums of ``block``, the same bit for bit as one ``sum(axis=0)``.

    numpy reduces a C-contiguous array along axis 0 one row after the other, vectorised
    across the columns (two columns or more: a single one is reduced pairwise). Adding the
    sums of the rows before to the block's first row continues the same additions in the
    same order. ``block`` must be a C-contiguous array of its own: its first row is
    overwritten.
    """
    if sums is not None:
        block[0] += sums
    return block.sum(axis=0)


def _column_sums(distances: np.ndarray, rows: np.ndarray, columns: np.ndarray, *,
                 symmetric: bool = False) -> np.ndarray:
    """``sum_i distances[rows[i], columns[j]]`` for every ``j``, summed as :func:`best_member` sums.

    The gathered block is C-contiguous and numpy reduces it along axis 0 one row after the
    other, vectorised across the columns: every column is the sequential sum in ``rows``
    order, whatever the other columns are. With a single column numpy reduces a contiguous
    vector instead, pairwise, which is another order; ``columns`` must hold at least two
    entries (repeat one if need be) for the bits to be those of the full block.

    With ``symmetric=True`` (``distances`` equal to its transpose, bit for bit) the block is
    gathered from the rows of ``columns`` (contiguous reads instead of one cache line per
    entry) and laid out C-contiguous again: the same numbers in the same layout, so the
    same sums.

    A block of more rows than :func:`rows_per_block` is gathered and summed a part of the
    rows at a time (:func:`_carry`), with the same sums. Then ``columns`` are many (or the
    block would fit), and the parts are gathered from the rows of ``rows`` even when
    ``symmetric``: as many cache lines as from the rows of ``columns``, and no transposed
    copy (measured twice as fast for a cluster of 5,000 of 10,000 objects).
    """
    step = rows_per_block(columns.size)
    if rows.size <= step or columns.size < 2:
        if symmetric:
            return np.ascontiguousarray(distances[np.ix_(columns, rows)].T).sum(axis=0)
        return distances[np.ix_(rows, columns)].sum(axis=0)
    check_dense_memory((step, columns.size), what="block of the distance matrix")
    sums = None
    for start in range(0, rows.size, step):
        sums = _carry(sums, distances[np.ix_(rows[start:start + step], columns)])
    return sums


def _is_symmetric(distances: np.ndarray, tile: int = 256) -> bool:
    """Whether ``distances`` equals its transpose exactly (False with any NaN).

    Compared tile by tile, each tile with its mirror: both stay in cache, where comparing
    whole rows with whole columns reads a cache line per entry (five times slower).
    """
    n = distances.shape[0]
    return all(np.array_equal(distances[a:a + tile, c:c + tile], distances[c:c + tile, a:a + tile].T)
               for a in range(0, n, tile) for c in range(a, n, tile))


def best_member(distances: np.ndarray, members: np.ndarray) -> tuple[int, float]:
    """The medoid of ``members`` (ascending object indices) and its total distance to them.

    Ties go to the first member in ``members``.
    """
    sums = _column_sums(distances, members, members)
    best = int(np.argmin(sums))
    return int(members[best]), float(sums[best])


def cluster_members(labels: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The labels present (ascending) and the members of each, in ascending order."""
    order = np.argsort(labels, kind="stable")
    present, starts = np.unique(labels[order], return_index=True)
    return present, np.split(order, starts[1:])


class _Totals(NamedTuple):
    """A remembered cluster's approximate totals and what bounds their rounding error.

    ``sums[p]`` approximates ``sum_{i in members} d(i, members[p])``; each is a sum (in
    some order, with some terms added and later subtracted) of at most ``terms`` entries of
    the distance matrix, all from rows whose largest ``|d|`` add up to at most ``weight``.
    """

    members: np.ndarray
    sums: np.ndarray
    terms: int
    weight: float
    probes: tuple[int, ...]  # a few members, spread out: a cheap first test of closeness


def _probes_found(position: np.ndarray, probes: tuple[int, ...]) -> bool:
    """Whether at least half of ``probes`` are current members (stops at the deciding one)."""
    allowed = len(probes) // 2
    for i in probes:
        if position[i] < 0:
            allowed -= 1
            if allowed < 0:
                return False
    return True


def _totals(members: np.ndarray, sums: np.ndarray, terms: int, weight: float) -> _Totals:
    probes = tuple(members[:: max(1, members.size // _PROBES)].tolist())
    return _Totals(members, sums, terms, weight, probes)


class MedoidFinder:
    """:func:`best_member` that remembers the clusters it met most recently.

    Parameters
    ----------
    distances : ndarray of shape (n_samples, n_samples)
    memory : int, default=64
        Clusters remembered (least recently used forgotten first), twice over: their answers
        (``8 m`` bytes of key for a cluster of ``m`` objects), and for clusters of at least
        256 objects the total distance of every member to the cluster (``8 m`` bytes more),
        which new clusters close to a remembered one are derived from. Either way the
        answers are :func:`best_member`'s, bit for bit. With ``memory=0`` nothing is
        remembered. The first time it meets a cluster of 256 objects the finder reads the
        whole matrix three times (each row's largest and smallest entry, for the
        rounding-error bound, and whether it is symmetric, for faster reads) and keeps two
        vectors of ``n_samples`` entries.
    """

    def __init__(self, distances: np.ndarray, memory: int = 64):
        self.distances = distances
        self.memory = memory
        self._known: OrderedDict[bytes, tuple[int, float]] = OrderedDict()
        self._totals: OrderedDict[bytes, _Totals] = OrderedDict()
        self._row_bound: np.ndarray | None = None  # max_j |d(i, j)| for every row i
        self._symmetric = False
        self._position: np.ndarray | None = None  # scratch: index in the current members, or -1

    def best(self, members: np.ndarray) -> tuple[int, float]:
        """The medoid of ``members`` and its cost, as :func:`best_member` gives them."""
        key = members.tobytes()
        found = self._known.get(key)
        if found is not None:
            self._known.move_to_end(key)
            return found
        if self._derivable(members):
            found = self._best_from_totals(members, key)
        else:
            found = best_member(self.distances, members)
        self._remember(self._known, key, found)
        return found

    def _remember(self, store: OrderedDict, key: bytes, value) -> None:
        store[key] = value
        if len(store) > self.memory:
            store.popitem(last=False)

    def _derivable(self, members: np.ndarray) -> bool:
        # The derivation maps objects to positions, so it needs distinct, valid indices (the
        # ascending member lists every caller passes); anything else, and float32 or integer
        # matrices whose sums round otherwise, take the plain route.
        d = self.distances
        return (self.memory > 0 and members.ndim == 1 and members.size >= _INCREMENTAL_MIN
                and d.dtype == np.float64 and d.ndim == 2 and d.shape[0] == d.shape[1]
                and members.dtype.kind in "iu" and members[0] >= 0 and members[-1] < d.shape[0]
                and bool(np.all(members[1:] > members[:-1])))

    def _best_from_totals(self, members: np.ndarray, key: bytes) -> tuple[int, float]:
        """The medoid by derived totals when a remembered cluster is close, else afresh."""
        if self._row_bound is None:
            d = self.distances
            self._row_bound = np.maximum(d.max(axis=1), -d.min(axis=1))  # NaN rows stay NaN
            self._symmetric = _is_symmetric(d)
            self._position = np.full(d.shape[0], -1, dtype=np.intp)
        # Stored as a read-only view of the key's bytes: no copy, and no caller can change it.
        members = np.frombuffer(key, dtype=members.dtype)
        derived = self._derive(members)
        if derived is not None:
            found = self._near_minimum(members, derived)
            if found is not None:
                self._remember(self._totals, key, derived)
                return found
        sums = _column_sums(self.distances, members, members)
        best = int(np.argmin(sums))
        weight = float(self._row_bound[members].sum())
        if weight <= _SAFE_WEIGHT:  # False for NaN: never derive from non-finite totals
            self._remember(self._totals, key, _totals(members, sums, members.size, weight))
        return int(members[best]), float(sums[best])

    def _derive(self, members: np.ndarray) -> _Totals | None:
        """Totals of ``members`` from the closest remembered cluster, or None if none is close."""
        m = members.size
        position = self._position
        position[members] = np.arange(m)
        try:
            base_key, base, base_position, difference = None, None, None, m // _MAX_DIFFERENCE + 1
            for key in reversed(self._totals):  # the most recent first: usually the closest
                totals = self._totals[key]
                if abs(totals.members.size - m) >= difference or not _probes_found(position, totals.probes):
                    continue
                where = position[totals.members]
                common = int(np.count_nonzero(where >= 0))
                if totals.members.size + m - 2 * common < difference:
                    base_key, base, base_position = key, totals, where
                    difference = totals.members.size + m - 2 * common
                    if difference <= max(2, m // _CLOSE_ENOUGH):
                        break
        finally:
            position[members] = -1
        if base is None or base.terms + difference > _MAX_TERMS * m:
            return None
        self._totals.move_to_end(base_key)
        kept = base_position >= 0
        kept_at = base_position[kept]  # ascending: both member lists are
        removed = base.members[~kept]
        is_kept = np.zeros(m, dtype=bool)
        is_kept[kept_at] = True
        added_at = np.flatnonzero(~is_kept)
        added = members[added_at]
        d = self.distances
        kept_sums = base.sums[kept]
        sums = np.empty(m)
        if added.size:
            # The added rows are read a block at a time (rows_per_block), once for both uses.
            step = rows_per_block(m)
            if step < added.size:
                check_dense_memory((step, m), what="block of the distance matrix")
            # numpy sums a single column pairwise, not row after row: that one is summed apart.
            carried = kept_at.size > 1
            added_sums = None
            for start in range(0, added.size, step):
                # Broadcast index arrays rather than np.ix_: the same gather, less call overhead.
                added_rows = d[added[start:start + step, None], members]
                if carried:
                    added_sums = _carry(added_sums, added_rows[:, kept_at])
                if self._symmetric:
                    # New members' totals are summed afresh, over m <= terms rows; from the rows
                    # just read if those are the columns (otherwise a cache line per entry is read).
                    sums[added_at[start:start + step]] = added_rows.sum(axis=1)
            kept_sums += added_sums if carried else _column_sums(d, added, members[kept_at])
            if not self._symmetric:
                sums[added_at] = _column_sums(d, members, added)
        if removed.size:
            kept_sums -= _column_sums(d, removed, members[kept_at])
        sums[kept_at] = kept_sums
        weight = base.weight + float(self._row_bound[added].sum()) + float(self._row_bound[removed].sum())
        if not weight <= _SAFE_WEIGHT:
            return None
        return _totals(members, sums, base.terms + difference, weight)

    def _near_minimum(self, members: np.ndarray, totals: _Totals) -> tuple[int, float] | None:
        """The medoid among the members whose derived total may be the least; None if too many.

        Why the candidates contain :func:`best_member`'s answer. Let ``T_j`` be the exact
        (real) total of member ``j``, ``S_j`` the derived one, ``B_j`` best_member's. Both
        ``S_j`` and ``B_j`` are float64 sums of terms of ``T_j`` (S_j also of terms added
        and later subtracted, which cancel in ``T_j``), at most ``N = totals.terms`` of them
        in any order, so each term passes through at most ``N - 1`` roundings of ``(1 + δ)``,
        ``|δ| <= u = eps / 2``, and (Higham, *Accuracy and Stability of Numerical
        Algorithms*, 2nd ed., §4.2, for any summation order)

            |S_j - T_j|, |B_j - T_j| <= γ_N W,   γ_N = N u / (1 - N u) <= 1.01 N u,

        with ``W = totals.weight >= sum |terms|`` (each term is at most its row's largest
        ``|d|``). Additions that land in the subnormal range are exact, so underflow adds
        nothing; overflow is excluded by ``W <= 2^1000``. Hence ``|S_j - B_j| <= 2γW``. Let
        ``j*`` be best_member's answer and ``j0`` the least ``S``:
        ``S_j* <= B_j* + 2γW <= B_j0 + 2γW <= S_j0 + 4γW``, so every ``j`` with
        ``S_j <= S_j0 + 4γW`` (``<= S_j0 + 4.04 N u W``) must be a candidate. The cutoff used,
        ``S_j0 + 8 N eps W + tiny = S_j0 + 16 N u W + tiny``, is about four times that
        margin, which also covers the roundings of ``W`` (relative, about ``N u``), of the
        cutoff itself (at most ``u |S_j0 + 16 N u W| <= 1.02 u W``) and of the product
        (``tiny`` if it underflows).

        The candidates are then summed exactly as best_member sums them, and the least
        of those, first in ``members`` order on ties, is ``j*``: no candidate before it can
        tie with it, or best_member would have chosen that one.
        """
        sums = totals.sums
        cutoff = sums.min() + (8.0 * totals.terms * _EPS * totals.weight + _TINY)
        candidates = np.flatnonzero(sums <= cutoff)
        if not 0 < candidates.size <= max(2, members.size // _MAX_CANDIDATES):  # 0: NaN, never met
            return None
        columns = members[candidates]
        if columns.size == 1:
            columns = np.repeat(columns, 2)  # two columns: see _column_sums
        exact = _column_sums(self.distances, members, columns, symmetric=self._symmetric)[: candidates.size]
        best = int(np.argmin(exact))
        return int(members[candidates[best]]), float(exact[best])

    def medoids_and_cost(self, labels: np.ndarray) -> tuple[np.ndarray, float]:
        """Medoid of every cluster of ``labels`` (ascending label order) and the k-medoids cost."""
        found = [self.best(members) for members in cluster_members(labels)[1]]
        total = 0.0
        for _, cost in found:  # summed in label order, as every caller always has
            total += cost
        return np.array([medoid for medoid, _ in found], dtype=np.int64), total

    def cost(self, labels: np.ndarray) -> float:
        """k-medoids objective of ``labels``: each cluster served by its best member."""
        return self.medoids_and_cost(labels)[1]


def kmedoids_cost(distances: np.ndarray, labels: np.ndarray) -> float:
    """k-medoids objective of a labelling: each cluster served by its best member."""
    return MedoidFinder(distances, memory=0).cost(labels)
