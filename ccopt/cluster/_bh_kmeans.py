"""BH-kmeans: k-means whose assignment step is a mixed-binary program (Baumann and Hochbaum 2022).

The algorithm of Sec. 3 of the paper:

1. centres from k-means++ (Arthur and Vassilvitskii 2007);
2. *assignment step*: solve the program P (1)-(8) for the current centres
   (:mod:`ccopt.models.bh_assignment`): Euclidean distances plus ``M p w`` for every
   violated soft constraint, every cluster non-empty;
3. *update step*: every centre becomes the mean of its cluster;
4. repeat 2-3 until ``OFV_{t-1} - OFV_t <= 0`` or the time limit.

Readings chosen:

* ``OFV_t`` ("the objective function after t update steps") is P's objective (1) for the
  labels of step ``t`` evaluated at the centres after the ``t``-th update, with ``M``
  recomputed for those centres. The authors' published code compares the total distance
  without the penalty term; the two agree whenever no soft constraint is violated (the
  usual case at ``p = 1``). When the test fails, the labels of step ``t - 1`` (the best
  ones) are returned with their means as centres.
* Penalty ``p``: 1.0 for noise-free constraints as in Sec. 4; the paper recommends
  ``p`` in [0.18, 0.20] when the noise level is unknown (Sec. 5). ``p = 0`` is k-means with
  Euclidean assignment (each object to its nearest centre) except that no cluster may be
  empty.
* Per-constraint weights (``Constraints.weights``) scale each penalty, and a subset of
  hard constraints (``Constraints.hard``) is enforced exactly: the extensions announced in
  the paper's conclusion. Hard must-link components are contracted into one unit before
  the first assignment (exact). Soft must-links are not contracted: doing so would make
  them hard. Optional ``min_size``/``max_size`` bounds enter P as rows.
* A time limit stops the loop between iterations; each solve gets the remaining time
  (capped by ``solve_time_limit``, the paper's per-solve limit). At least one assignment is
  always computed (with at least 1 s of solver time) so that a labelling exists. A solve
  that stops on its limit yields the best of its incumbent, the previous assignment, the
  nearest-centre assignment and a greedy placement of the must-link components, each
  improved by a local search in the time left (at least half a second;
  :class:`~ccopt.models.bh_assignment.BHAssignmentProgram`), not a proven optimum of P.
  HiGHS does not read the clock everywhere: large programs are solved in a child process
  that is stopped a few seconds after its limit (:mod:`ccopt.models._bh_rows`), so a fit
  ends within seconds of ``time_limit`` (n = 100,000 with 100,000 constraints, 120 s: 121-123 s
  instead of 354 s).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from ccopt._progress import progress_bar, show_phase
from ccopt._timing import Deadline
from ccopt._validation import (
    check_bool,
    check_nonnegative,
    check_positive_int,
    check_time_limit,
)
from ccopt._warnings import warn_user
from ccopt.cluster._base import ConstrainedClusterer, FitOutcome, function_twin
from ccopt.cluster._init_centers import kmeanspp
from ccopt.cluster._kmeans import _check_init
from ccopt.exceptions import ConvergenceWarning, InvalidParameterError, SolverError
from ccopt.models.bh_assignment import DEFAULT_CUTS_AFTER, BHAssignmentProgram
from ccopt.problem import ClusteringProblem
from ccopt.solvers import DEFAULT_RESOLVE_SOLVER, check_solver
from ccopt.status import Status

__all__ = ["BHKMeans", "bh_kmeans"]

logger = logging.getLogger(__name__)

# Solver seconds the first assignment gets even when the overall budget is already spent.
_FIRST_SOLVE_FLOOR = 1.0


def _means(X: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """Cluster means; P keeps every cluster non-empty, so no division by zero."""
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    sums = np.zeros((k, X.shape[1]))
    np.add.at(sums, labels, X)
    return sums / counts[:, None]


@dataclass
class _Run:
    """Best state of one k-means++ start, updated in place (so an interrupt can read it)."""

    labels: np.ndarray | None = None
    centers: np.ndarray | None = None
    objective: float = np.inf
    n_iter: int = 0
    status: Status = Status.CONVERGED
    history: list = field(default_factory=list)


class BHKMeans(ConstrainedClusterer):
    """BH-kmeans (Baumann and Hochbaum 2022): soft must-link/cannot-link k-means via a MILP.

    Each assignment step solves the program P (1)-(8) of the paper through Pyomo and
    :mod:`ccopt.solvers` (:class:`~ccopt.models.bh_assignment.BHAssignmentProgram`: built
    once per fit, re-solved with new distance Params every iteration).

    Parameters
    ----------
    n_clusters : int
        Number of clusters ``k``.
    penalty : float, default=1.0
        The paper's ``p``: a violated constraint of weight ``w`` costs ``M p w`` with ``M``
        the largest object-centre distance. 1.0 for noise-free constraints, 0.18-0.20 when
        the constraints may be noisy (paper, Sec. 5).
    solver : str, default="highs_matrix"
        HiGHS through ccopt's matrix hand-off (``highs_matrix``, :mod:`ccopt.solvers`: the
        same labels as ``appsi_highs``, faster re-solves), or any Pyomo solver name
        (``appsi_highs``, ``highs``, ``cbc``, ``glpk``, ``scip_direct``, ``gurobi``, ...).
    time_limit : float or None, default=None
        Overall seconds; the best labelling so far is returned when it expires (status
        ``time_limit``). The paper used 1,800 s. With the default solver a step's large MIP
        (20,000 free binaries or more) runs in a child process, stopped a few seconds after
        the limit: HiGHS 1.16 does not check its limit in its root heuristics (at 100,000
        objects it overran a 120-s limit by 234 s). Through Pyomo solvers it can overrun.
    solve_time_limit : float or None, default=None
        Seconds per assignment solve (the paper used 200 s); each solve also gets at most
        the remaining overall time. With HiGHS, 20 s gave the paper's 300-run table the
        same clustering as 200 s (mean ARI within 0.002 per constraint-set size, no
        violations) in 1,542 s instead of 5,126 s (``benchmarks/reports/bh_solve_limit.md``).
    max_iter : int, default=100
        Assignment steps per start.
    n_init : int, default=1
        k-means++ starts; the one with the lowest objective is kept (the paper ran one start
        per seed).
    init : {"k-means++"} or array-like of shape (n_clusters, n_features), default="k-means++"
        k-means++ on the objects, or given starting centres (then a single start is made).
    random_state : int, numpy.random.Generator or None, default=None
    min_size, max_size : int or None, default=None
        Bounds on the number of objects per cluster, as rows of P.
    mip_gap : float or None, default=None
        Relative MIP gap of each solve (solver default when None; HiGHS 1e-4, Gurobi 1e-4).
    threads : int or None, default=None
        Solver threads.
    solver_options : dict or None, default=None
        Passed to the solver unchanged.
    decompose : bool, default=True
        Solve P by components when its row (3) is not binding (exact; see
        :mod:`ccopt.models.bh_assignment`). ``False`` always solves the whole program.
    n_candidates : int or None, default=None
        Not in the paper: let each constrained object (must-link unit) go only to its
        ``n_candidates`` nearest centres in every assignment step, as PCCC (the authors'
        successor algorithm, its ``n_neighbors``) does; must-linked objects share the
        nearest centres of their group. The programs get smaller and faster (Letter, 20,000
        objects, k = 26, 5 candidates: about 1 s per step with the default ``highs_matrix``,
        which hands HiGHS the program without the excluded variables, and 9 s with
        ``appsi_highs``, instead of about 40 s per exact step), but an assignment step is then optimal only
        among those centres; a step whose
        restriction admits no assignment solves P in full. None (or ``>= n_clusters``): the
        paper's exact assignment step.
    cuts_after : float or None, default=10.0
        Not in the paper (``solver="highs_matrix"`` only): seconds an assignment solve may
        run before it is stopped, P is strengthened by cannot-link clique rows over
        must-link components and solved again in the time left. The rows are valid for
        every assignment, so the step stays exact; on the dense first steps that HiGHS
        could not close in 200 s (vehicle, led7digit) the strengthened LP relaxation is
        integral and the step is solved in 28-40 s. Where it stays fractional, the MIP
        starts from a solution near the LP point (led7digit CS15: the run in 27-65 s
        instead of 78-130 s). 0 strengthens before every solve, None never
        (:mod:`ccopt.models._bh_cuts`).
    progress : bool or "always", default=True
        A progress bar over the iterations, drawn on a terminal at the first step that ends
        after a second (``"always"``: drawn at once, terminal or not), or earlier when a step
        runs long: its postfix names the phase of the step under way (a solver call and its
        size, the local search after a stopped solve).
    tee : bool, default=False
        Show the solver log.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Means of the clusters of ``labels_``.
    objective_ : float
        ``OFV`` of the returned labelling: objective (1) at ``cluster_centers_``.
    inertia_ : float
        WCSS of ``labels_``.
    n_violations_ : dict
        ``{"ml": int, "cl": int, "total": int}`` violated constraints (hard ones never are).
    constraints_, violations_, violated_
        The constraints used and which of them ``labels_`` violates: ``violations_`` by
        position in ``constraints_`` (duplicates merged), ``violated_`` per row as given;
        see :class:`~ccopt.cluster._base.ConstrainedClusterer`.
    n_iter_ : int
        Assignment steps of the kept start.
    status_ : Status
        ``converged`` (the objective stopped improving), ``iteration_limit``,
        ``time_limit`` or ``interrupted``.
    history_ : list of dict
        One record per assignment step of every start: ``start``, ``iteration``,
        ``objective`` (OFV), ``violations``, ``solve_time``, ``route`` (``decomposed`` or
        ``full``), ``solve_status``, ``restricted`` (the step used ``n_candidates``).
    n_solves_time_limited_ : int
        Assignment solves that stopped on a time limit with an unproven incumbent.

    Raises
    ------
    InfeasibleConstraintsError
        The hard constraints and size bounds admit no assignment (from the first solve, or
        earlier for a hard cannot-link inside a hard must-link chain).
    SolverNotAvailableError
        ``solver`` is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.cluster import BHKMeans
    >>> X = np.array([[0.0], [0.2], [4.0], [4.2], [8.0], [8.2]])
    >>> est = BHKMeans(3, random_state=0).fit(X, ml=[(1, 2)], cl=[(0, 1)])
    >>> est.n_violations_["total"]
    0
    """

    def __init__(self, n_clusters, *, penalty=1.0, solver=DEFAULT_RESOLVE_SOLVER, time_limit=None,
                 solve_time_limit=None, max_iter=100, n_init=1, init="k-means++",
                 random_state=None, min_size=None, max_size=None, mip_gap=None, threads=None,
                 solver_options=None, decompose=True, n_candidates=None,
                 cuts_after=DEFAULT_CUTS_AFTER, progress=True, tee=False):
        self.n_clusters = n_clusters
        self.penalty = penalty
        self.solver = solver
        self.time_limit = time_limit
        self.solve_time_limit = solve_time_limit
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.min_size = min_size
        self.max_size = max_size
        self.mip_gap = mip_gap
        self.threads = threads
        self.solver_options = solver_options
        self.decompose = decompose
        self.n_candidates = n_candidates
        self.cuts_after = cuts_after
        self.progress = progress
        self.tee = tee

    def _size_bounds(self) -> dict:
        return {"min_size": self.min_size, "max_size": self.max_size}

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        k = problem.n_clusters
        penalty = check_nonnegative(self.penalty, "penalty")
        max_iter = check_positive_int(self.max_iter, "max_iter")
        n_init = check_positive_int(self.n_init, "n_init")
        solve_cap = check_time_limit(self.solve_time_limit, "solve_time_limit")
        init = _check_init(self.init, ("k-means++",), problem)
        if self.solver_options is not None and not isinstance(self.solver_options, dict):
            raise InvalidParameterError(
                f"solver_options must be a dict or None, got {type(self.solver_options).__name__}.")
        n_candidates = (None if self.n_candidates is None
                        else check_positive_int(self.n_candidates, "n_candidates"))
        decompose = check_bool(self.decompose, "decompose")
        tee = check_bool(self.tee, "tee")
        solver = check_solver(self.solver)
        starts = 1 if not isinstance(init, str) else n_init

        program = BHAssignmentProgram(
            problem, penalty=penalty, decompose=decompose, solver=solver,
            mip_gap=self.mip_gap, threads=self.threads, tee=tee,
            solver_options=self.solver_options, n_candidates=n_candidates,
            cuts_after=self.cuts_after,  # checked by the program
        )
        runs: list[_Run] = []
        counters = {"time_limited": 0, "solves": 0}
        status = None
        try:
            with progress_bar(starts * max_iter, enabled=self.progress, desc="BH-kmeans",
                              unit="step") as bar:
                for start in range(starts):
                    centers = init if not isinstance(init, str) else kmeanspp(problem.X, k, rng)
                    run = _Run()
                    runs.append(run)
                    self._one_start(program, problem, centers, run, start, max_iter, solve_cap,
                                    deadline, counters, bar)
                    if run.status is Status.TIME_LIMIT:
                        status = Status.TIME_LIMIT
                        break
        except KeyboardInterrupt:
            if not any(r.labels is not None for r in runs):
                raise
            status = Status.INTERRUPTED
            logger.info("BH-kmeans interrupted; returning the best labelling so far.")

        done = [r for r in runs if r.labels is not None]
        best = min(done, key=lambda r: r.objective)
        if status is None:
            status = best.status
        if status is Status.ITERATION_LIMIT:
            warn_user(f"BH-kmeans stopped after max_iter={max_iter} assignment steps while "
                      "its objective was still improving; increase max_iter.", ConvergenceWarning)
        logger.info("BH-kmeans: objective %.6g after %d steps (%s), %d solves", best.objective,
                    best.n_iter, status, counters["solves"])
        history = [record for r in runs for record in r.history]
        return FitOutcome(labels=best.labels, centers=best.centers, objective=best.objective,
                          n_iter=best.n_iter, status=status,
                          extra={"history": history,
                                 "n_solves_time_limited": counters["time_limited"]})

    def _one_start(self, program: BHAssignmentProgram, problem: ClusteringProblem, centers,
                   run: _Run, start: int, max_iter: int, solve_cap, deadline: Deadline,
                   counters: dict, bar) -> None:
        """Alternate assignment and update steps from ``centers``, recording into ``run``."""
        k = problem.n_clusters
        program.set_centers(centers)
        for iteration in range(1, max_iter + 1):
            first = counters["solves"] == 0
            if deadline.expired() and not first:
                run.status = Status.TIME_LIMIT
                return
            budget = deadline.budget(solve_cap)
            if first and budget is not None:
                budget = max(budget, _FIRST_SOLVE_FLOOR)
            solve_start = time.perf_counter()
            # One step can take minutes at 10^5 objects: the bar says what it is doing.
            def phase(what: str, step: int = iteration) -> None:
                show_phase(bar, f"step {step}: {what}")

            phase("assignment")
            try:
                result = program.solve(time_limit=budget, search_time_limit=deadline.remaining(), on_phase=phase)
            except SolverError:
                # A solver that reports a time stop without an incumbent as an error (the
                # fallback covers the others): with a labelling in hand, stop and return it.
                # An error before the budget was spent is a real failure, not a time limit.
                if budget is None or first or time.perf_counter() - solve_start < budget:
                    raise
                run.status = Status.TIME_LIMIT
                return
            counters["solves"] += 1
            if result.status is Status.TIME_LIMIT:
                counters["time_limited"] += 1
            labels = result.labels
            new_centers = _means(problem.X, labels, k)
            # The next assignment needs exactly these centres, so set them now and read
            # OFV_t from the program (objective (1) at the updated centres, M recomputed).
            program.set_centers(new_centers)
            ofv = program.objective(labels)
            n_violated = int(problem.constraints.violations(labels).total) if len(problem.constraints) else 0
            run.history.append({"start": start, "iteration": iteration, "objective": ofv,
                                "violations": n_violated, "solve_time": result.wall_time,
                                "route": result.route, "solve_status": str(result.status),
                                "restricted": result.restricted})
            logger.debug("start %2d  iter %3d  OFV %14.6f  viol %5d  solve %7.3fs  %s%s", start,
                         iteration, ofv, n_violated, result.wall_time, result.route,
                         " *" if ofv < run.objective else "")
            bar.update()
            if ofv >= run.objective:
                # A step cut short by the spent budget proves no convergence: it did not finish.
                cut_short = result.status is not Status.OPTIMAL and deadline.expired()
                run.status = Status.TIME_LIMIT if cut_short else Status.CONVERGED
                return
            run.labels, run.centers, run.objective, run.n_iter = labels, new_centers, ofv, iteration
        run.status = Status.ITERATION_LIMIT


bh_kmeans = function_twin(BHKMeans, "bh_kmeans")
