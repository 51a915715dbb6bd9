"""COP-kmeans (Wagstaff, Cardie, Rogers, Schroedl 2001): k-means with hard pairwise constraints.

Every constraint is hard (weights and ``hard`` flags are not used). The algorithm, as
described in Wagstaff et al. and in Sec. 2 of Ganji et al. 2016:

1. contract the must-links into super-instances (the must-link closure) — every must-link
   is then satisfied and no must-link can cause a dead end;
2. start from k centres (weighted k-means++ on the super-instances);
3. visit the super-instances in a random order and put each into the nearest centre whose
   cluster holds no object it cannot-links *among those already placed in this pass*;
   if every cluster is blocked, the pass has reached a dead end;
4. move each centre to the mean of its objects and repeat from 3 until no label changes
   (or the labels repeat an earlier state: the greedy pass is not the best feasible
   assignment, so the WCSS need not decrease and the iteration can cycle).

A dead end abandons the run; the next restart draws a new order and new seeds. If all
``n_init`` restarts end in a dead end, :class:`~ccopt.exceptions.ClusteringDeadEndError`
names the object that was stuck and the constraints blocking each cluster, and says whether
a labelling satisfying them exists — unless :func:`~ccopt.constraints.check_feasibility` or
the bounded complete search of :func:`ccopt._dead_end.feasibility_note` proves that none
does, in which case :class:`~ccopt.exceptions.InfeasibleConstraintsError` (with the
certificate) is raised instead. A labelling that violates a constraint is never returned.

Readings chosen:

- Only super-instances that carry a cannot-link depend on the visiting order; the others
  go to their nearest centre whatever the order, so they are assigned in one vectorised
  step and only the cannot-linked ones are visited one by one (same result as the fully
  sequential pass, much faster at large ``n``). Among the cannot-linked ones, every choice
  is first made at once from the last pass's labels (the nearest centres in the first
  pass), and only those that can differ from the sequential choice are visited again in
  order (:func:`_revisit`; the same result to the bit).
- An empty cluster keeps its previous centre (the original does not say; re-seeding it
  would need a placement that could itself break a cannot-link).
- The objective is the WCSS of the objects with respect to the returned centres; among the
  restarts that finish, the one with the lowest objective is kept.
"""

from __future__ import annotations

import heapq
import logging

import numpy as np

from ccopt._dead_end import feasibility_note
from ccopt._progress import progress_bar
from ccopt._threads import single_blas_thread
from ccopt._timing import Deadline
from ccopt._validation import check_n_clusters, check_positive_int, check_random_state
from ccopt._warnings import warn_user
from ccopt.cluster._base import ConstrainedClusterer, FitOutcome, function_twin
from ccopt.cluster._init_centers import kmeanspp, squared_distances
from ccopt.cluster._kmeans import (
    _absolute_tol,
    _adjacency,
    _alternate,
    _check_init,
    _check_tol,
    _restarts,
    _weighted_cost,
    _within_scatter,
)
from ccopt.constraints import Constraints, MustLinkClosure
from ccopt.exceptions import ClusteringDeadEndError, ConvergenceWarning
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["COPKMeans", "cop_kmeans", "cop_kmeans_problem"]

logger = logging.getLogger(__name__)


class _DeadEnd:
    """Where a greedy pass got stuck: the super-instance and, per cluster, a blocking constraint."""

    def __init__(self, super_index: int, blockers: dict[int, int]):
        self.super_index = super_index
        self.blockers = blockers  # cluster -> position of a cannot-link in the Constraints


class _CopGraph:
    """Cannot-link adjacency between super-instances, as Python lists for the greedy pass.

    Only the ``m`` super-instances with a cannot-link take part; they are renumbered
    ``0..m-1`` (``nodes[local] = super-instance``) so that the per-pass lists have length
    ``m``, not ``n``.
    """

    def __init__(self, closure: MustLinkClosure, cl_positions: np.ndarray):
        n_super = closure.n_super
        indptr, indices, data = _adjacency(n_super, closure.cl_pairs, cl_positions)
        self.nodes = np.flatnonzero(np.diff(indptr) > 0)
        self.m = int(self.nodes.size)
        local = np.full(n_super, -1, dtype=np.int64)
        local[self.nodes] = np.arange(self.m)
        ptr = indptr[self.nodes].tolist()
        ends = np.diff(indptr)[self.nodes].tolist()
        idx = local[indices].tolist()
        dat = data.tolist()
        self.neighbours = [idx[p:p + e] for p, e in zip(ptr, ends, strict=True)]
        self.edges = [dat[p:p + e] for p, e in zip(ptr, ends, strict=True)]
        # The same edges as flat arrays (source, target), for the first sweep of the pass.
        self.src = local[np.repeat(np.arange(n_super), np.diff(indptr))]
        self.dst = local[indices]


def _greedy_pass(dist: np.ndarray, graph: _CopGraph, order: np.ndarray,
                 previous: np.ndarray | None = None):
    """One COP assignment pass. Returns labels, or a :class:`_DeadEnd`.

    ``order`` lists the cannot-linked super-instances (local numbers) in visiting order;
    every other super-instance goes to its nearest centre. The pass is sequential: each
    cannot-linked super-instance goes to its nearest centre unless a neighbour visited before
    it already holds that cluster, then to the next nearest open one (stable order: the lower
    cluster index first on a tie, as argmin); if every cluster is held, the pass stops at a
    dead end. ``previous`` (labels of the super-instances from the last pass, or ``None``)
    is only a guess that :func:`_revisit` starts from; the result, dead ends included, is
    that of the plain loop to the last bit whatever the guess.
    """
    labels = np.argmin(dist, axis=1)
    if graph.m == 0:
        return labels
    nearest = labels[graph.nodes]
    guess = nearest if previous is None else np.where(previous[graph.nodes] >= 0, previous[graph.nodes], nearest)
    lab = guess.tolist()
    dead = _revisit(dist, graph, order, nearest, lab)
    if dead is not None:
        return dead
    labels[graph.nodes] = lab
    return labels


def _revisit(dist: np.ndarray, graph: _CopGraph, order: np.ndarray, nearest: np.ndarray,
             lab: list[int]) -> _DeadEnd | None:
    """The sequential pass from the guessed labels ``lab`` of the cannot-linked nodes, updated in place.

    A node's label depends only on its nearest centre and on the labels of its neighbours
    visited before it. So every node's choice is first computed at once as if those
    neighbours held their guessed label; that choice is the sequential one for every node
    none of whose earlier neighbours ends with a label other than its guess. The nodes whose
    choice differs from their guess or is blocked, and the later neighbours of a node whose
    label changes (*stale*: their choice must be computed again from the labels of this
    pass), are then visited in visiting order; the others keep their guess. Returns the
    :class:`_DeadEnd` of the first blocked node in visiting order, or ``None``.
    """
    m = graph.m
    k = dist.shape[1]
    rows = dist[graph.nodes]
    guess = np.asarray(lab, dtype=np.int64)
    position = np.empty(m, dtype=np.int64)
    position[order] = np.arange(m)
    earlier = position[graph.dst] < position[graph.src]
    held = np.zeros((m, k), dtype=bool)  # held[s, h]: an earlier neighbour of s is guessed in h
    held[graph.src[earlier], guess[graph.dst[earlier]]] = True
    choice = nearest.copy()
    blocked = np.zeros(m, dtype=bool)
    moved = np.flatnonzero(held[np.arange(m), nearest])
    if moved.size:
        # The first open cluster in stable preference order, as the loop picks it.
        pref = np.argsort(rows[moved], axis=1, kind="stable")
        open_ = ~np.take_along_axis(held[moved], pref, axis=1)
        first = open_.argmax(axis=1)
        choice[moved] = pref[np.arange(moved.size), first]
        blocked[moved] = ~open_[np.arange(moved.size), first]
    visit, where = order.tolist(), position.tolist()
    choice_l, blocked_l, nearest_l = choice.tolist(), blocked.tolist(), nearest.tolist()
    neighbours, edges = graph.neighbours, graph.edges

    def choose(s: int, p: int, stale: bool) -> int:
        if not stale:
            return -1 if blocked_l[s] else choice_l[s]
        held_s = {lab[t] for t in neighbours[s] if where[t] < p}
        h = nearest_l[s]
        if h in held_s:
            pref_s = np.argsort(rows[s], kind="stable").tolist()
            h = next((c for c in pref_s if c not in held_s), -1)
        return h

    def dead_end(s: int, p: int) -> _DeadEnd:
        blockers: dict[int, int] = {}
        for t, pos in zip(neighbours[s], edges[s], strict=True):
            if where[t] < p:
                blockers.setdefault(lab[t], pos)
        return _DeadEnd(int(graph.nodes[s]), blockers)

    return revisit_in_order(visit, where, (choice != guess) | blocked, neighbours, lab, choose, dead_end)


def revisit_in_order(visit: list[int], where: list[int], start: np.ndarray, neighbours: list,
                     lab: list[int], choose, dead_end) -> _DeadEnd | None:
    """Visit, in visiting order, the nodes of ``start`` and the later neighbours of every node
    whose label changes; the rest of a sequential pass keeps the labels ``lab`` (updated in place).

    The scheduling shared by the COP-kmeans and PCKmeans passes (their ``_revisit``).

    Parameters
    ----------
    visit : list of int
        The nodes in visiting order (position -> node).
    where : list of int
        Each node's position in ``visit``.
    start : ndarray of bool, shape (m,)
        The nodes whose vectorised choice differs from their label or is blocked.
    neighbours : list of list of int
        Each node's neighbours.
    lab : list of int
        The labels, guessed for every node not yet visited; updated in place.
    choose : callable
        ``choose(s, p, stale)``: node ``s``'s cluster at position ``p``, or ``-1`` when
        blocked; ``stale`` says that an earlier neighbour changed label, so the vectorised
        choice no longer holds.
    dead_end : callable
        ``dead_end(s, p)``: the :class:`_DeadEnd` of blocked node ``s``.

    Returns
    -------
    _DeadEnd or None
        That of the first blocked node in visiting order.
    """
    # Positions in visiting order; a sorted list is a heap.
    heap = sorted(where[s] for s in np.flatnonzero(start).tolist())
    queued = [False] * len(visit)  # by position
    for p in heap:
        queued[p] = True
    stale = [False] * len(visit)  # by node
    while heap:
        p = heapq.heappop(heap)
        s = visit[p]
        h = choose(s, p, stale[s])
        if h < 0:
            return dead_end(s, p)
        if h != lab[s]:
            lab[s] = h
            for t in neighbours[s]:
                q = where[t]
                if q > p:
                    stale[t] = True
                    if not queued[q]:
                        queued[q] = True
                        heapq.heappush(heap, q)
    return None


def _dead_end_message(problem: ClusteringProblem, closure: MustLinkClosure, dead: _DeadEnd,
                      n_tried: int, timed_out: bool, algorithm: str = "COP-kmeans") -> str:
    """Say which object got stuck and which constraint blocks each cluster."""
    cons = problem.constraints
    members = closure.members(dead.super_index)
    obj = int(members[0])
    group = ""
    if members.size > 1:
        shown = members[:8].tolist()
        group = (f" (must-linked with objects {shown[1:]}{' ...' if members.size > 8 else ''},"
                 " placed together)")
    blocks = "; ".join(
        f"cluster {h} by {cons.row_name(pos)} = ({int(cons.pairs[pos, 0])}, {int(cons.pairs[pos, 1])})"
        for h, pos in sorted(dead.blockers.items())
    )
    tried = (f"in each of the {n_tried} restart(s) tried before time_limit expired" if timed_out
             else f"in all n_init={n_tried} restart(s)")
    return (f"{algorithm} reached a dead end {tried}. In the last one, object {obj}{group} could "
            f"join none of the {problem.n_clusters} clusters: {blocks}.")


def dead_end_error(problem: ClusteringProblem, hard: Constraints, closure: MustLinkClosure, dead: _DeadEnd,
                   n_tried: int, timed_out: bool, *, algorithm: str, advice: str,
                   deadline: Deadline | None = None, complete_search: bool = True) -> ClusteringDeadEndError:
    """The error when every run ended in a dead end, saying whether a labelling exists.

    ``hard`` are the constraints that can block an object (all of them for COP-kmeans);
    ``deadline`` (the fit's) bounds the complete search of
    :func:`ccopt._dead_end.feasibility_note`, which ``complete_search=False`` skips.

    Raises
    ------
    InfeasibleConstraintsError
        :func:`ccopt._dead_end.feasibility_note` proves that no labelling satisfies
        ``hard``: no further run could succeed, so the dead end is not the error to report.
    """
    message = _dead_end_message(problem, closure, dead, n_tried, timed_out, algorithm)
    if timed_out and deadline is None:
        deadline = Deadline(0.0)  # the fit's time_limit has run out: no time for the complete search
    note = feasibility_note(hard, problem.n_clusters, deadline=deadline, search=complete_search)
    return ClusteringDeadEndError(f"{message} {note} {advice}")


def _cop_kmeans(problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline, *,
                init, n_init: int, max_iter: int, tol: float, progress=False,
                complete_search: bool = True) -> FitOutcome:
    """COP-kmeans on a validated problem (kernel of :class:`COPKMeans` and :func:`cop_kmeans_problem`)."""
    with single_blas_thread():
        return _cop_kmeans_restarts(problem, rng, deadline, init=init, n_init=n_init,
                                    max_iter=max_iter, tol=tol, progress=progress,
                                    complete_search=complete_search)


def _cop_kmeans_restarts(problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline, *,
                         init, n_init: int, max_iter: int, tol: float, progress=False,
                         complete_search: bool = True) -> FitOutcome:
    k = problem.n_clusters
    closure = problem.closure
    check_n_clusters(k, problem.n_samples, n_super_instances=closure.n_super)
    X = problem.X
    points, sizes = closure.super_instances(X)
    within = _within_scatter(X, closure, points)
    tol_abs = _absolute_tol(X, tol)
    graph = _CopGraph(closure, problem.constraints.cl_indices)
    runs = 1 if not isinstance(init, str) else n_init

    def one_run():
        start = init if not isinstance(init, str) else kmeanspp(points, k, rng, sizes)
        order = rng.permutation(graph.m)

        def assign(centers, previous):
            return _greedy_pass(squared_distances(points, centers), graph, order, previous)

        return _alternate(assign, points, sizes, start, max_iter=max_iter, tol_abs=tol_abs,
                          deadline=deadline)

    with progress_bar(runs, enabled=progress, desc="COP-kmeans restarts", unit="run") as bar:
        done = _restarts(runs, one_run,
                         lambda run: _weighted_cost(points, sizes, run.labels, run.centers) + within,
                         deadline, bar)
    best, best_cost = done.best, done.cost

    if best is None:
        raise dead_end_error(problem, problem.constraints, closure, done.last_dead, done.tried, done.timed_out,
                             algorithm="COP-kmeans", deadline=deadline, complete_search=complete_search,
                             advice="Try a larger n_init, or LCC / PCKMeans, which never stop on a dead end.")

    status = done.status
    if status is Status.ITERATION_LIMIT:
        warn_user(f"COP-kmeans stopped after max_iter={max_iter} iterations before its labels "
                  "settled.", ConvergenceWarning)
    return FitOutcome(labels=closure.expand(best.labels), centers=best.centers, objective=best_cost,
                      n_iter=best.n_iter, status=status, extra={"n_dead_ends": done.n_dead})


def cop_kmeans_problem(problem: ClusteringProblem, rng=None, deadline: Deadline | None = None, *,
                       n_init: int = 10, max_iter: int = 300, tol: float = 1e-4,
                       init="k-means++", complete_search: bool = False) -> np.ndarray:
    """COP-kmeans on a validated problem: a labelling that satisfies every constraint.

    The entry point for drivers that need a feasible starting solution (e.g. the
    impact-score subgradient method). Such drivers fall back on a repair of their own after
    a dead end, so by default the dead end is reported without the complete search that
    :class:`COPKMeans` runs (up to 10 s).

    Parameters
    ----------
    problem : ClusteringProblem
    rng : int, numpy.random.Generator or None, default=None
    deadline : Deadline, optional
        Shared time budget; the best finished restart is returned when it expires.
    n_init : int, default=10
    max_iter : int, default=300
    tol : float, default=1e-4
    init : {"k-means++"} or ndarray of shape (n_clusters, n_features), default="k-means++"
    complete_search : bool, default=False
        After every restart reached a dead end, decide with the bounded complete search of
        :func:`ccopt._dead_end.feasibility_note` whether a labelling exists (as
        :class:`COPKMeans` does) instead of the cheap checks alone.

    Returns
    -------
    labels : ndarray of int64, shape (n_samples,)

    Raises
    ------
    ClusteringDeadEndError
        Every restart reached a dead end (the message names the object and the blocking
        constraints).
    InfeasibleConstraintsError
        No labelling satisfies the constraints (cannot-link inside a must-link group, fewer
        groups than clusters, a cannot-link clique larger than ``k``, or, with
        ``complete_search=True`` after every restart reached a dead end, no ``k``-colouring of
        the cannot-links found by the bounded complete search).
    InvalidDataError
        Given starting centres so large that sums of squared distances overflow float64
        (such data is refused when the problem is created).
    KeyboardInterrupt
        Ctrl-C during the restarts (an estimator would return its best run instead).
    """
    rng = check_random_state(rng)
    deadline = deadline if deadline is not None else Deadline(None)
    init = _check_init(init, ("k-means++",), problem)
    outcome = _cop_kmeans(problem, rng, deadline, init=init,
                          n_init=check_positive_int(n_init, "n_init"),
                          max_iter=check_positive_int(max_iter, "max_iter"), tol=_check_tol(tol),
                          complete_search=bool(complete_search))
    if outcome.status is Status.INTERRUPTED:
        # The restarts keep their best run on Ctrl-C, as an estimator's fit does; a caller that
        # needs only a start has no result to mark "interrupted", so the interrupt goes on.
        raise KeyboardInterrupt
    return outcome.labels


class COPKMeans(ConstrainedClusterer):
    """COP-kmeans (Wagstaff et al. 2001): every must-link and cannot-link is hard.

    See the module docstring for the algorithm and the readings chosen.

    Parameters
    ----------
    n_clusters : int
    init : {"k-means++"} or array-like of shape (n_clusters, n_features), default="k-means++"
        Weighted k-means++ on the must-link super-instances, or given starting centres (then
        one run is made whatever ``n_init``).
    n_init : int, default=10
        Restarts, each with a new random visiting order and new seeds. Restarts that reach a
        dead end are discarded; the finished run with the lowest WCSS is kept.
    max_iter : int, default=300
    tol : float, default=1e-4
        Stop when no label changes or the centres move by at most ``tol`` times the mean
        feature variance.
    random_state : int, numpy.random.Generator or None, default=None
    time_limit : float or None, default=None
    progress : bool or "always", default=True
        A progress bar over the restarts, drawn on a terminal at the first step that ends after a second
        (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_samples,)
        Satisfies every constraint.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    objective_ : float
        WCSS of the objects with respect to ``cluster_centers_``.
    inertia_ : float
    n_violations_ : dict
        Always zero.
    constraints_, violations_, violated_
        The constraints used and which of them ``labels_`` violates: ``violations_`` by
        position in ``constraints_`` (duplicates merged), ``violated_`` per row as given;
        see :class:`~ccopt.cluster._base.ConstrainedClusterer`.
    n_iter_ : int
    status_ : Status
        ``converged`` (labels settled), ``stagnation`` (the labels came back to an earlier
        state: the greedy pass does not minimise the WCSS, so COP-kmeans can cycle; the run
        stops there), ``iteration_limit``, ``time_limit`` or ``interrupted`` (Ctrl-C: the
        best run so far).
    n_dead_ends_ : int
        Restarts abandoned at a dead end.

    Raises
    ------
    ClusteringDeadEndError, InfeasibleConstraintsError
        See :func:`cop_kmeans_problem`.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.cluster import COPKMeans
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> cop = COPKMeans(2, random_state=0).fit(X, cl=[(0, 1)], ml=[(1, 2)])
    >>> cop.n_violations_["total"]
    0
    """

    _requires_feasible_closure = True

    def __init__(self, n_clusters, *, init="k-means++", n_init=10, max_iter=300, tol=1e-4,
                 random_state=None, time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        init = _check_init(self.init, ("k-means++",), problem)
        return _cop_kmeans(problem, rng, deadline, init=init,
                           n_init=check_positive_int(self.n_init, "n_init"),
                           max_iter=check_positive_int(self.max_iter, "max_iter"),
                           tol=_check_tol(self.tol), progress=self.progress)


cop_kmeans = function_twin(COPKMeans, "cop_kmeans")
