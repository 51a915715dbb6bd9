"""Cannot-link clique rows over must-link components: valid rows that close P's LP gap.

Why. P's LP relaxation lets the objects of a must-link component spread evenly over two
clusters, and a cannot-linked component share the same two halves: every row (4) then reads
``1/2 + 1/2 <= 1`` and charges nothing. On the dense noise-free sets of the BH-kmeans table
(vehicle CS20: four must-link components of about 210 objects, cannot-links between every two)
the LP bound of the first step stays 6 % under the optimum, and HiGHS spends its whole
200-s limit at the root node. Cannot-link cliques over single objects (the classic rows) do
not help there: the cannot-link graph has few triangles. The cliques are among the
*components*.

The rows. Let ``g_1, ..., g_t`` be must-link components pairwise joined by cannot-links,
``r_g`` a member of each, and for each pair ``(g, h)`` one cannot-link ``(u, v)``, ``u`` in ``g``
and ``v`` in ``h``, with must-link paths ``r_g ~ u`` inside ``g`` and ``v ~ r_h`` inside ``h``.
With ``T`` the union of those edges and ``s_e`` the slack of edge ``e`` (``y`` of a cannot-link,
``z`` of a must-link; a hard edge has none and is never violated), for every cluster ``j``

.. math::

    \\sum_{g} x_{r_g j} - \\sum_{e \\in T} s_e \\le 1 .

Valid for every assignment: if ``t'`` representatives sit in ``j``, each pair of them needs a
violated edge on its path (otherwise ``u`` and ``v`` are both in ``j`` and their cannot-link
is violated). An edge inside component ``g`` lies only on paths of pairs that contain ``g``,
and a cannot-link on the path of one pair, so the violated edges cover the pairs of a
``t'``-clique by stars and single pairs, which takes at least ``t' - 1`` of them, each with
slack at least 1. The rows depend on the constraints only, not on the centres, so rows found
for one set of centres stay valid for every later one.

Separation (:meth:`CliqueRowSeparator.separate`), for an LP point and each cluster ``j``: the
representative of a component is its member with the ``q``-th largest ``x[., j]``
(``q = 0, ..., ranks - 1``: the LP answers a row by moving mass to another member, so one
round offers it several); shortest must-link paths from the representatives under the slack
values (one multi-source Dijkstra: components are disjoint); for each pair of components the
cannot-link that minimises path + slack + path; cliques grown greedily from each of the
components with the largest ``x``, a component joining when its ``x`` exceeds the slack it
adds. :func:`tighten` alternates LP solves and separation.

The start. When the strengthened LP is still fractional, P is solved again from the better
of the stopped solve's incumbent and :func:`neighbourhood_start`'s solution: P with every
object fixed where the LP point puts it, except the fractional ones and their constraint
neighbours. Those LP points are nearly integral (led7digit CS15: 16-20 fractional objects
of 500) and the neighbourhood MIP finds P's optimum in well under a second, from which
HiGHS closes its last 0.1-0.3 % gap several times sooner than from the probe's incumbent.

Measured on the first step of the table's slowest runs (scratch runs, 20 ranks): vehicle
CS20 seed 0, LP bound 3,897 to 4,158.5 in 2 rounds (19 s), which is the optimum (the LP point
is integral); led7digit CS20 seed 0, 862 to 903.0 in 5 rounds (29 s), again integral (HiGHS
alone had stopped at 873 / 2,129 after 100 s). Not closed: movement libras CS20 seed 2 (15
classes, many small components), 2,809 to 2,893, 3 % under the best assignment found; vehicle
CS10 seed 0 (a sparse must-link graph): integral at the optimum 4,131.2 after 11 rounds and
163 s of LP solves when every row found stays in the LP (rounds of 1 to 28 s as it grows by
some 1,800 rows a round), after 15 rounds and 97 s when :func:`tighten` drops the rows each LP
leaves slack (rounds of about 7 s, 1,800-2,300 rows held; on a slower machine the warm
dual simplex took 12 s a round and interior-point solves 4 s, hence ``_ROUND_METHODS``).
Over the 16 runs of the BH-kmeans table that had a solve stopped by the 200-s limit: 4,244 s
without the rows, 2,499 s with them (``benchmarks/reports/bh_kmeans.md``; 9 of the 16 still
stop a solve at that limit).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, dijkstra

from ccopt.solvers import MATRIX_SOLVER, HighsMatrixSolver, SolveResult
from ccopt.status import Status

# A row is added only when the LP point violates it by more than this.
_MIN_VIOLATION = 1e-4
# Dijkstra needs a positive weight on must-links whose slack is 0 in the LP point.
_TINY = 1e-9
# A clique row whose activity is this far under 1 at an LP optimum is dropped from the LP.
_SLACK_ROW = 1e-6
# An LP value this close to 0 or 1 counts as integral.
_INTEGRAL_TOL = 1e-6
# HiGHS methods for the LP rounds after the first (a user's own "solver" option wins). Each
# round adds violated rows and drops slack ones; which method re-solves faster depends on the
# program, so rounds 2 and 3 try one each and later rounds take the one whose last round was
# quicker. Vehicle CS10 seed 0, first step: warm dual simplex rounds of 12 s, interior-point
# rounds of 4 s (13 rounds in 142 s, still fractional, against 17 in 74 s to the integral
# optimum); vehicle CS15 seed 1: 20-25 s against 10 s; movement libras CS20 seed 0: 0.5-1.7 s
# against 3 s. The first round, cold, is quickest with the simplex on all three. Crossover
# gives the vertex that the integrality check and the separation expect.
_ROUND_METHODS = ("simplex", "ipm")
_IPM_OPTIONS = {"run_crossover": "on"}
# Components considered per cluster and rank (those with the largest x).
_MAX_CANDIDATES = 100
# Share of a solve's remaining time limit that the clique-row LP rounds may use. The MIP
# solved after them closed a gap only where the rounds had ended well within their share
# (led7digit CS15); on vehicle CS10's first step the rounds need about 120 of the 190 s.
_CUT_SHARE = 0.75
# No more clique rows once they reach this share of P's own rows (vehicle CS10's first
# step took 13,000 rows on 14,000 in 9 rounds without closing).
_MAX_CUT_ROW_SHARE = 1.0
# The neighbourhood MIP of the start (neighbourhood_start) runs only when the strengthened
# LP leaves at most this share of P's rows fractional (led7digit CS15: 3-4 %; vehicle CS5
# seed 2: 79 %, where the neighbourhood is P itself and the MIP spent its 19 s in vain) ...
_NEIGHBOURHOOD_FRACTIONAL_SHARE = 0.1
# ... and frees them and their constraint neighbours while those are at most this share, the
# fractional rows alone otherwise.
_NEIGHBOURHOOD_ROW_SHARE = 0.5
# Share of a solve's remaining time limit that the neighbourhood MIP may use, and its cap.
_NEIGHBOURHOOD_TIME_SHARE = 0.1
_NEIGHBOURHOOD_MAX_SECONDS = 30.0

logger = logging.getLogger(__name__)


class CliqueRowSeparator:
    """Finds cannot-link clique rows over must-link components that an LP point violates.

    Parameters
    ----------
    pairs : ProgramPairs
        The program's pairs in program rows (:class:`ccopt.models._bh_rows.ProgramPairs`).
    n_clusters : int
    ranks : int, default=20
        Representatives tried per component and cluster in one call.
    max_starts : int, default=50
        Cliques grown per cluster and rank (from the components with the largest ``x``).

    Notes
    -----
    Columns follow the layout of :mod:`ccopt.models._bh_rows`: ``x[r, j]`` at ``r * k + j``,
    then one ``y`` per soft cannot-link, then one ``z`` per soft must-link.
    """

    def __init__(self, pairs, n_clusters: int, *, ranks: int = 20, max_starts: int = 50):
        k, n = n_clusters, pairs.n_rows
        self._k, self._n = k, n
        self._ranks, self._max_starts = ranks, max_starts
        n_x, n_cl = n * k, pairs.soft_cl.shape[0]
        self.n_x = n_x  # the integer columns come first
        self.n_cols = n_x + n_cl + pairs.soft_ml.shape[0]
        no_slack = np.int64(-1)
        ml = np.concatenate([pairs.soft_ml, pairs.hard_ml]).astype(np.int64).reshape(-1, 2)
        ml_col = np.concatenate([n_x + n_cl + np.arange(pairs.soft_ml.shape[0]),
                                 np.full(pairs.hard_ml.shape[0], no_slack)])
        cl = np.concatenate([pairs.soft_cl, pairs.hard_cl]).astype(np.int64).reshape(-1, 2)
        cl_col = np.concatenate([n_x + np.arange(n_cl), np.full(pairs.hard_cl.shape[0], no_slack)])

        graph = sp.coo_array((np.ones(ml.shape[0]), (ml[:, 0], ml[:, 1])), shape=(n, n))
        self.n_components, comp = connected_components(graph, directed=False)
        self._comp = comp
        # Only cannot-links between two components can form these cliques.
        between = comp[cl[:, 0]] != comp[cl[:, 1]]
        self._cl, self._cl_col = cl[between], cl_col[between]
        ends = np.sort(comp[self._cl], axis=1)
        self._cl_comp_a, self._cl_comp_b = ends[:, 0], ends[:, 1]
        self._active = np.unique(ends)  # components some such cannot-link touches
        # Where each component's members start once sorted by component (q-th largest x).
        self._comp_size = np.bincount(comp, minlength=self.n_components)
        self._comp_start = np.cumsum(self._comp_size) - self._comp_size
        # Both directions of every must-link; the data index finds an edge's slack column.
        rows = np.concatenate([ml[:, 0], ml[:, 1]])
        cols = np.concatenate([ml[:, 1], ml[:, 0]])
        self._ml_rows, self._ml_cols = rows, cols
        self._ml_slack_col = np.concatenate([ml_col, ml_col])
        self._seen: set[tuple] = set()

    @cached_property
    def _edge_of(self) -> dict[tuple[int, int], int]:
        """Slack column of the must-link between two rows (-1: hard), both directions.

        Built on the first row: a program whose solves finish within ``cuts_after`` never
        needs it."""
        return {(int(a), int(b)): int(c)
                for a, b, c in zip(self._ml_rows, self._ml_cols, self._ml_slack_col, strict=True)}

    @property
    def useful(self) -> bool:
        """Whether any row of this family can exist (it needs a cannot-link between two
        components)."""
        return self._cl.shape[0] > 0

    def separate(self, col_value: np.ndarray) -> sp.csr_array:
        """Rows ``a @ col <= 1`` violated by ``col_value`` and not returned before.

        Parameters
        ----------
        col_value : ndarray of shape (n_cols,)

        Returns
        -------
        scipy.sparse.csr_array of shape (n_new, n_cols)
        """
        k, n = self._k, self._n
        # LP values can stray from their bounds by the solver's tolerance (Dijkstra needs
        # non-negative weights).
        col_value = np.clip(np.asarray(col_value, dtype=np.float64), 0.0, None)
        x = col_value[: n * k].reshape(n, k)
        values = np.append(col_value, 0.0)  # position -1: hard edges, no slack
        weights = values[self._ml_slack_col] + _TINY
        ml_graph = sp.csr_array((weights, (self._ml_rows, self._ml_cols)), shape=(n, n))
        cl_slack = values[self._cl_col]
        found: list[tuple[list[int], list[int]]] = []
        for j in range(k):
            # Members by component, largest x first.
            order = np.lexsort((-x[:, j], self._comp))
            for rank in range(self._ranks):
                found.extend(self._separate_one(x[:, j], order, j, rank, ml_graph, cl_slack, values))
        if not found:
            return sp.csr_array((0, self.n_cols))
        indptr = np.cumsum([0] + [len(xs) + len(ss) for xs, ss in found])
        indices = np.concatenate([np.array(xs + ss, dtype=np.int64) for xs, ss in found])
        data = np.concatenate([np.r_[np.ones(len(xs)), -np.ones(len(ss))] for xs, ss in found])
        return sp.csr_array((data, indices, indptr), shape=(len(found), self.n_cols))

    def _separate_one(self, xj, order, j, rank, ml_graph, cl_slack, values):
        comps = self._active
        size = self._comp_size[comps]
        # The rank-th member of each component by x (the last if the component is smaller).
        reps = order[self._comp_start[comps] + np.minimum(rank, size - 1)]
        value = xj[reps]
        keep = value > _MIN_VIOLATION
        if keep.sum() < 2:
            return []
        comps, reps, value = comps[keep], reps[keep], value[keep]
        dist, pred, _ = dijkstra(ml_graph, indices=reps, min_only=True, return_predecessors=True)
        cost = dist[self._cl[:, 0]] + cl_slack + dist[self._cl[:, 1]]
        ok = np.isfinite(cost)
        edges = np.flatnonzero(ok)
        # The cheapest cannot-link of every pair of components.
        order = np.lexsort((cost[edges], self._cl_comp_b[edges], self._cl_comp_a[edges]))
        edges = edges[order]
        a, b = self._cl_comp_a[edges], self._cl_comp_b[edges]
        first = np.ones(edges.size, dtype=bool)
        first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
        best_edge = {(int(p), int(q)): (float(cost[e]), int(e))
                     for p, q, e in zip(a[first], b[first], edges[first], strict=True)}
        rep_of = dict(zip(comps.tolist(), reps.tolist(), strict=True))
        # Cliques grow from, and over, the components of largest x only: a clique has at
        # most a few members with x well above 0, and the loops below are Python.
        by_value = np.argsort(-value, kind="stable")[:_MAX_CANDIDATES]
        ranked = [(int(comps[i]), float(value[i])) for i in by_value]
        rows = []
        for g0, v0 in ranked[: self._max_starts]:
            clique, total, pair_cost = [g0], v0, 0.0
            for h, vh in ranked:
                if h == g0:
                    continue
                added = 0.0
                for g in clique:
                    hit = best_edge.get((g, h) if g < h else (h, g))
                    if hit is None:
                        break
                    added += hit[0]
                else:
                    if vh > added:
                        clique.append(h)
                        total += vh
                        pair_cost += added
            if len(clique) < 2 or total - 1.0 - pair_cost <= _MIN_VIOLATION:
                continue
            row = self._row(clique, j, rep_of, best_edge, pred, values)
            if row is not None:
                rows.append(row)
        return rows

    def forget(self, rows: sp.csr_array) -> None:
        """Let :meth:`separate` return ``rows`` again (rows dropped from an LP while slack)."""
        rows = sp.csr_array(rows)
        for i in range(rows.shape[0]):
            cols = rows.indices[rows.indptr[i]:rows.indptr[i + 1]]
            sign = rows.data[rows.indptr[i]:rows.indptr[i + 1]]
            self._seen.discard(_row_key(cols[sign > 0].tolist(), cols[sign < 0].tolist()))

    def _row(self, clique, j, rep_of, best_edge, pred, values):
        """The row of one clique, or None when the exact union of paths makes it slack or it
        was returned before."""
        k = self._k
        x_cols = sorted(rep_of[g] * k + j for g in clique)
        slack_cols: set[int] = set()
        for i, g in enumerate(clique):
            for h in clique[i + 1:]:
                edge = best_edge[(g, h) if g < h else (h, g)][1]
                slack_cols.add(int(self._cl_col[edge]))
                for end in self._cl[edge]:
                    node = int(end)
                    while pred[node] >= 0:
                        step = int(pred[node])
                        slack_cols.add(self._edge_of[(node, step)])
                        node = step
        slack_cols.discard(-1)
        cols = sorted(slack_cols)
        key = _row_key(x_cols, cols)
        if key in self._seen:
            return None
        if values[x_cols].sum() - 1.0 - values[cols].sum() <= _MIN_VIOLATION:
            return None
        self._seen.add(key)
        return x_cols, cols


def _row_key(x_cols, slack_cols) -> tuple:
    """What identifies a clique row in :attr:`CliqueRowSeparator._seen`."""
    return tuple(sorted(x_cols)), tuple(sorted(slack_cols))


@dataclass(frozen=True)
class Tightening:
    """What :func:`tighten` did.

    Attributes
    ----------
    rows : scipy.sparse.csr_array
        The clique rows the last LP holds (``rows @ col <= 1``), to add to the MIP; rows
        found and dropped again while slack are not among them.
    bound : float or None
        Optimum of the last LP solved (a lower bound on the MIP's), None if none finished.
    point : ndarray or None
        The last LP point (None if no LP finished).
    rounds : int
    seconds : float
    integral : bool
        The last LP violates no clique row and ``point`` is integral in the integer columns
        (then it solves the MIP).
    interrupted : bool
        The LP stopped on Ctrl-C.
    """

    rows: sp.csr_array
    bound: float | None
    point: np.ndarray | None
    rounds: int
    seconds: float
    integral: bool = False
    interrupted: bool = False

    @property
    def solution(self) -> np.ndarray | None:
        """``point`` when it is integral (it solves the MIP), else None."""
        return self.point if self.integral else None


def tighten(mip: HighsMatrixSolver, separator: CliqueRowSeparator, *, end: float | None,
            max_rounds: int = 30) -> Tightening:
    """Solve ``mip``'s LP relaxation, add the violated clique rows, repeat.

    Stops when no row is violated, after ``max_rounds``, when an LP does not finish, or at
    ``end`` (``perf_counter`` time). After every LP the clique rows it leaves slack are
    dropped from it (the separator may offer them again later), which keeps the rounds
    short (module docstring: vehicle CS10). The rows are not added to ``mip``; the caller
    adds :attr:`Tightening.rows`, the clique rows the last LP holds.

    Parameters
    ----------
    mip : HighsMatrixSolver
    separator : CliqueRowSeparator
        Also gives the integer columns (the ``x``, first), for the integrality check of
        the last LP point.
    end : float or None
    max_rounds : int, default=30
    """
    started = time.perf_counter()
    lp = mip.relaxation()
    chooser = _RoundMethod(mip.options)
    n_base = lp.n_rows
    held = sp.csr_array((0, separator.n_cols))  # the clique rows in the LP, in its row order
    bound, point, rounds, integral, interrupted = None, None, 0, False, False
    while rounds < max_rounds:
        limit = None if end is None else end - time.perf_counter()
        if limit is not None and limit <= 0:
            break
        lp.options = chooser.options()
        result = lp.solve(time_limit=limit, require_solution=False)
        chooser.record(result.wall_time)
        rounds += 1
        if result.status is not Status.OPTIMAL:
            logger.debug("clique-row round %d: the LP stopped (%s)", rounds, result.termination)
            interrupted = result.status is Status.INTERRUPTED
            break
        bound = result.objective
        point = lp.col_value
        slack = lp.row_value[n_base:] < 1.0 - _SLACK_ROW
        if slack.any():
            separator.forget(held[slack])
            lp.delete_rows(n_base + np.flatnonzero(slack))
            held = held[~slack]
        rows = separator.separate(point)
        logger.debug("clique-row round %d: LP bound %.6g, %d rows held, %d dropped, %d new (%.2f s)",
                     rounds, bound, held.shape[0], int(slack.sum()), rows.shape[0],
                     time.perf_counter() - started)
        if rows.shape[0] == 0:
            integral = not _fractional_rows(point, separator._n, separator._k).any()
            break
        held = sp.vstack([held, rows], format="csr")
        lp.add_rows(rows, -np.inf, 1.0)
    return Tightening(held, bound, point, rounds, time.perf_counter() - started, integral, interrupted)


class _RoundMethod:
    """The HiGHS method of each LP round of :func:`tighten` (see ``_ROUND_METHODS``)."""

    def __init__(self, options):
        self._base = options
        self._fixed = "solver" in options.extra  # the user chose
        self._seconds: dict[str, float] = {}  # method -> seconds of its last warm round
        self._timed: str | None = None  # the method of the round running, when its time counts
        self._cold = True  # the next round is the first: no basis yet

    def options(self):
        """Options for the next round (call once per round, before :meth:`record`)."""
        if self._fixed:
            return self._base
        if self._cold:  # its time says nothing of the warm rounds after it
            method, self._timed, self._cold = _ROUND_METHODS[0], None, False
        else:
            untried = [m for m in _ROUND_METHODS if m not in self._seconds]
            method = self._timed = untried[0] if untried else min(self._seconds, key=self._seconds.get)
        extra = {"solver": method, **(_IPM_OPTIONS if method == "ipm" else {}), **self._base.extra}
        return replace(self._base, extra=extra)

    def record(self, seconds: float) -> None:
        if self._timed is not None:
            self._seconds[self._timed] = seconds


def _fractional_rows(point: np.ndarray, n_rows: int, n_clusters: int) -> np.ndarray:
    """Which program rows (objects) ``point`` assigns fractionally, shape (n_rows,)."""
    x = point[: n_rows * n_clusters].reshape(n_rows, n_clusters)
    return (np.abs(x - np.round(x)) > _INTEGRAL_TOL).any(axis=1)


def neighbourhood_start(mip: HighsMatrixSolver, pairs, n_clusters: int, point: np.ndarray, *,
                        time_limit: float) -> tuple[SolveResult, np.ndarray | None] | None:
    """A solution of ``mip`` near an LP point: the MIP with most rows fixed where the point puts them.

    The rows (objects) that ``point`` assigns fractionally stay free, and so do the rows a
    constraint joins to them while those are at most ``_NEIGHBOURHOOD_ROW_SHARE`` of the
    program; every other row is fixed to the cluster the point gives it. The neighbourhood
    of RINS (Danna, Rothberg and Le Pape 2005) with the incumbent replaced by the
    strengthened LP point, grown along the constraints because a fractional row is held by
    its neighbours' rows. The bounds of ``mip`` are as before when this returns.

    Why. HiGHS proves P's optimum far sooner from a good start: on the first step of
    led7digit CS15 seed 1 the MIP after the clique rows took 105 s from the probe's
    incumbent and 37 s from this start (the optimum, found in 2.7 s with 167 of 500 rows
    free); seed 0: 58 s and 7 s, the optimum found in 0.2 s with 141 rows free (scratch runs).

    Parameters
    ----------
    mip : HighsMatrixSolver
    pairs : ProgramPairs
        The program's pairs (the constraint graph over its rows).
    n_clusters : int
    point : ndarray of shape (n_cols,)
        An LP point of ``mip``'s relaxation.
    time_limit : float
        Seconds for the neighbourhood MIP.

    Returns
    -------
    (result, col_value) or None
        The neighbourhood MIP's result (its objective is P's at that solution) and its
        solution (None when it found none in its time); None without a solve when more than
        ``_NEIGHBOURHOOD_FRACTIONAL_SHARE`` of the rows are fractional in ``point``.
    """
    k, n = n_clusters, pairs.n_rows
    fractional = _fractional_rows(point, n, k)
    if fractional.sum() > _NEIGHBOURHOOD_FRACTIONAL_SHARE * n:
        logger.debug("no neighbourhood start: %d of %d rows fractional", int(fractional.sum()), n)
        return None
    ends = np.concatenate([pairs.soft_ml, pairs.soft_cl, pairs.hard_ml, pairs.hard_cl]).reshape(-1, 2)
    touched = np.zeros(n, dtype=bool)
    touched[ends[fractional[ends[:, 0]], 1]] = True
    touched[ends[fractional[ends[:, 1]], 0]] = True
    free = fractional | touched
    if free.sum() > _NEIGHBOURHOOD_ROW_SHARE * n:
        free = fractional
    cols = np.flatnonzero(np.repeat(~free, k))
    lower, upper = mip.col_bounds(cols)
    value = np.clip(np.round(point[cols]), lower, upper)
    mip.set_col_bounds(cols, value, value)
    try:
        result = mip.solve(time_limit=time_limit, require_solution=False)
        found = mip.col_value.copy() if result.has_solution else None
    finally:
        mip.set_col_bounds(cols, lower, upper)
    logger.debug("neighbourhood start: %d of %d rows free, %s, objective %s (%.2f s)", int(free.sum()), n,
                 result.status.value, result.objective, result.wall_time)
    return result, found


class CliqueRowStrengthening:
    """The policy of :meth:`ccopt.models._bh_rows.MatrixRows.solve` with ``cuts_after``.

    A MIP solve still running after ``cuts_after`` seconds is stopped; :func:`tighten`
    strengthens the program (the rows stay in ``mip``) with at most ``_CUT_SHARE`` of the
    time left; an integral strengthened LP optimum is the answer, otherwise the MIP is
    solved again in the rest of the time, from the better of the first solve's incumbent
    and :func:`neighbourhood_start`'s solution near the last LP point. When the first LP of
    those rounds already violates no clique row, later solves of the program run to their
    limit without stopping.

    Parameters
    ----------
    pairs : ProgramPairs
    n_clusters : int
    cuts_after : float
        Seconds of the first solve (0: strengthen before solving).
    n_base_rows : int
        Rows of the program without clique rows; strengthening stops once the clique rows
        reach ``_MAX_CUT_ROW_SHARE`` of them.
    """

    def __init__(self, pairs, n_clusters: int, cuts_after: float, n_base_rows: int):
        self._pairs, self._k = pairs, n_clusters
        self._cuts_after = cuts_after
        self._max_rows = int(n_base_rows * (1 + _MAX_CUT_ROW_SHARE))
        self._separator: CliqueRowSeparator | None = None
        # Set when LP rounds found no row: later solves of this program are not stopped.
        self._fruitless = False

    def solve(self, mip: HighsMatrixSolver, time_limit: float | None) -> tuple[SolveResult, np.ndarray | None]:
        """Solve ``mip``; the result, and the LP point when that is the solution."""
        started = time.perf_counter()
        end = None if time_limit is None else started + time_limit
        probe = self._cuts_after
        if self._separator is None:
            self._separator = CliqueRowSeparator(self._pairs, self._k)
        if ((time_limit is not None and time_limit <= probe) or mip.n_rows >= self._max_rows
                or not self._separator.useful or self._fruitless):
            return mip.solve(time_limit=time_limit, require_solution=False), None
        first = mip.solve(time_limit=probe, require_solution=False) if probe > 0 else None
        if first is not None and first.status is not Status.TIME_LIMIT:
            return first, None
        incumbent = mip.col_value.copy() if first is not None and first.has_solution else None
        cut_end = None if end is None else time.perf_counter() + _CUT_SHARE * (end - time.perf_counter())
        tightening = tighten(mip, self._separator, end=cut_end)
        mip.add_rows(tightening.rows, -np.inf, 1.0)
        # HiGHS restarts a stopped MIP from scratch, so the probe costs its seconds on every
        # long solve. Where the LP point violates no clique row (letter: 20,000 objects, a 1 %
        # set of random pairs, small components) every later probe would be lost as well:
        # the exact letter run went from 27 steps in 1,077 s to 22 steps in the 1,200-s limit.
        self._fruitless = (tightening.rounds == 1 and tightening.rows.shape[0] == 0
                           and tightening.bound is not None and tightening.solution is None)
        timing = {"probe": 0.0 if first is None else first.wall_time, "cuts": tightening.seconds}
        logger.debug("P strengthened by %d clique rows in %d LP rounds (%.2f s), LP bound %s",
                     tightening.rows.shape[0], tightening.rounds, tightening.seconds, tightening.bound)
        if tightening.interrupted:
            return _interrupted(started, "the clique-row LP rounds", timing), None
        if tightening.solution is not None:
            # An integral optimum of a relaxation of P is optimal for P.
            return SolveResult(Status.OPTIMAL, tightening.bound, tightening.bound,
                               time.perf_counter() - started, MATRIX_SOLVER,
                               "optimal (LP relaxation with clique rows is integral)", True,
                               timing), tightening.solution
        start, interrupted = self._start(mip, tightening.point, end, incumbent,
                                         first.objective if incumbent is not None else math.inf, timing)
        if interrupted:
            return _interrupted(started, "the neighbourhood start", timing), None
        if start is not None:
            mip.set_start(start)
        limit = None if end is None else max(end - time.perf_counter(), 1e-3)
        result = mip.solve(time_limit=limit, require_solution=False)
        timing.update(result.timing)
        return replace(result, wall_time=time.perf_counter() - started, timing=timing), None

    def _start(self, mip, point, end, incumbent, incumbent_value: float,
               timing: dict) -> tuple[np.ndarray | None, bool]:
        """The better of the probe's incumbent and the neighbourhood solution of ``point``,
        and whether Ctrl-C stopped the neighbourhood MIP."""
        if point is None:
            return incumbent, False
        limit = (_NEIGHBOURHOOD_MAX_SECONDS if end is None
                 else min(_NEIGHBOURHOOD_MAX_SECONDS, _NEIGHBOURHOOD_TIME_SHARE * (end - time.perf_counter())))
        if limit <= 0:
            return incumbent, False
        outcome = neighbourhood_start(mip, self._pairs, self._k, point, time_limit=limit)
        if outcome is None:
            return incumbent, False
        result, found = outcome
        timing["neighbourhood"] = result.wall_time
        if result.status is Status.INTERRUPTED:
            return incumbent, True
        if found is not None and result.objective < incumbent_value:
            return found, False
        return incumbent, False


def _interrupted(started: float, during: str, timing: dict) -> SolveResult:
    """The result of a solve that Ctrl-C stopped ``during`` a step of the strengthening."""
    return SolveResult(Status.INTERRUPTED, None, None, time.perf_counter() - started, MATRIX_SOLVER,
                       f"interrupted during {during}", False, timing)
