"""Baselines and companions of the Lagrangian impact score (Randel et al. 2021, Secs. 2, 4.1-4.4).

What the impact score (17) is measured against, and the measures it is compared with:

=============================  ===================================================================
function                       what it computes
=============================  ===================================================================
:func:`naive_baseline`         unconstrained clustering; a constraint is predicted erroneous
                               exactly when that clustering violates it (the bar the score
                               must clear; BENCHMARKS.md prints it beside the paper)
:func:`optimistic_baseline`    Sec. 4.2: ``I^o_uv = Z_uv - Z_B``, ``Z_B`` with every constraint,
                               ``Z_uv`` without ``(u, v)``
:func:`pessimistic_baseline`   Sec. 4.2: ``I^p_uv = Z_B - Z_uv``, ``Z_B`` without constraints,
                               ``Z_uv`` with ``(u, v)`` only
:func:`informativeness`        Davidson et al. (2006): the fraction of constraints the
                               unconstrained clustering violates
:func:`coherence`              Davidson et al. (2006): the fraction of (ML, CL) pairs whose
                               constraint vectors do not overlap when projected onto each other
:func:`erroneous_fraction_by_k`  Sec. 4.1, Fig. 3: the fraction of constraints the impact score
                               predicts erroneous (and its F1) for each number of clusters
=============================  ===================================================================

How the optimistic and pessimistic programs are solved (``solver_mode``):

* ``"exact"`` (k-medoids only): the p-median integer program of :mod:`ccopt.models.kmedoids`
  with the exact rows (3), (4), solved through :func:`ccopt.solvers.solve` with a zero MIP gap.
* ``"heuristic"``: for MSSC, COP-kmeans (the paper's baseline on real data, Sec. 4.3),
  best of ``n_init`` restarts; when every restart reaches a dead end, the same descent as
  for k-medoids with centres instead of medoids. For k-medoids, a constrained Voronoi
  iteration: assign every object to its nearest medoid, restore feasibility with Algorithm 2
  (:func:`ccopt.lagrange.repair.repair_labels`, which ends in a complete backtracking
  search), move each medoid to its cluster's best member, repeat while the cost falls; best
  of ``n_init`` restarts seeded by k-medoids++ (the paper used a VNS here, which we do not
  have).
* ``"auto"``: exact for k-medoids when ``n_samples <= 60``, heuristic otherwise. Measured on
  this (loaded, 2-core) machine, one exact solve took about 0.2 s at n = 20, 1 s at n = 40,
  1.5-2.5 s at n = 60 and 3-4 s at n = 80 (HiGHS via ``appsi_highs``, ``k = 3``, ``n / 5``
  constraints); a baseline needs ``p + 1`` of them, so n = 60 with 12 constraints is already
  about half a minute.

With ``time_limit`` (the paper's ``T_s``), every solve runs under its own limit
``T_b = time_limit / p`` (Sec. 4.3). The base solve gets ``T_b`` as well, so the solves take at
most ``(p + 1) T_b = time_limit (1 + 1/p)`` in sequence (less with ``n_jobs > 1``); a re-solve
that has not started by then is skipped and counted as failed.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import math
import numbers
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ccopt._parallel import _check_n_jobs, parallel_imap, task_seeds
from ccopt._threads import one_thread
from ccopt._timing import Deadline, positive_limit
from ccopt._validation import (
    check_bool,
    check_choice,
    check_data,
    check_n_clusters,
    check_positive_int,
    check_random_state,
    check_time_limit,
)
from ccopt.constraints import Constraints, as_constraints, check_feasibility
from ccopt.exceptions import (
    ClusteringDeadEndError,
    ConvergenceWarning,
    InfeasibleConstraintsError,
    InvalidParameterError,
    SolverError,
)
from ccopt.lagrange._medoids import MedoidFinder, kmedoids_cost
from ccopt.lagrange.api import (
    _truth,
    _warn_unused_weights,
    impact_scores,
    pairwise_distances_checked,
)
from ccopt.lagrange.repair import repair_labels
from ccopt.lagrange.result import ImpactScoreResult, normalize_scores
from ccopt.metrics import DetectionScores, detection_scores, wcss
from ccopt.problem import ClusteringProblem
from ccopt.solvers import DEFAULT_SOLVER, check_solver
from ccopt.status import Status

__all__ = [
    "EXACT_MAX_SAMPLES",
    "BaselineResult",
    "ConstraintSetMeasure",
    "KSweepResult",
    "NaiveBaselineResult",
    "coherence",
    "erroneous_fraction_by_k",
    "informativeness",
    "naive_baseline",
    "optimistic_baseline",
    "pessimistic_baseline",
]

logger = logging.getLogger(__name__)

CRITERIA = ("kmedoids", "mssc")
SOLVER_MODES = ("auto", "exact", "heuristic")

#: ``solver_mode="auto"`` solves the k-medoids integer program exactly up to this many objects.
EXACT_MAX_SAMPLES = 60

# Scores are differences of objective values; below this fraction of the base cost they are
# rounding (the same partition summed in another cluster order), not information.
_ZERO_TOL = 1e-9
# Iterations of one start of the repaired descent (each one lowers the cost or ends the start).
_DESCENT_MAX_ITER = 100


# ----------------------------------------------------------------------------- results
@dataclass
class NaiveBaselineResult:
    """The naive baseline: constraints violated by an unconstrained clustering.

    Per-constraint arrays are aligned with the constraints as given (as in
    :class:`~ccopt.lagrange.ImpactScoreResult`).

    Attributes
    ----------
    constraints : Constraints
    criterion : str
        ``"mssc"`` (scikit-learn k-means) or ``"kmedoids"`` (Voronoi iteration).
    labels : ndarray of int, shape (n_samples,)
        The unconstrained clustering.
    cost : float
        Its objective (WCSS for MSSC, sum of distances to the medoids for k-medoids).
    predicted_erroneous : ndarray of bool, shape (n_given,)
        True where ``labels`` violates the constraint.
    informativeness : float
        Davidson et al.'s informativeness: the fraction of the distinct constraints violated.
    seconds : float
    detection : DetectionScores or None
        When the truth was given.
    erroneous : ndarray of bool or None
        The truth used for ``detection``.
    """

    constraints: Constraints
    criterion: str
    labels: np.ndarray
    cost: float
    predicted_erroneous: np.ndarray
    informativeness: float
    seconds: float
    detection: DetectionScores | None = None
    erroneous: np.ndarray | None = None


@dataclass
class BaselineResult:
    """Scores of the optimistic or pessimistic baseline (Sec. 4.2).

    Per-constraint arrays are aligned with the constraints as given (duplicate rows carry
    the values of their merged constraint).

    Attributes
    ----------
    constraints : Constraints
    approach : {"optimistic", "pessimistic"}
    criterion : {"kmedoids", "mssc"}
    solver_mode : {"exact", "heuristic"}
        How the programs were solved (``"auto"`` resolved).
    scores : ndarray of float, shape (n_given,)
        ``I^o = Z_uv - Z_B`` (optimistic) or ``I^p = Z_B - Z_uv`` (pessimistic); ``<= 0`` with
        exact solves; negative means predicted erroneous before normalisation. NaN where no
        value of ``Z_uv`` was found; ``-inf`` (pessimistic) where the constraint cannot hold
        even alone, a cannot-link with ``k = 1`` or a must-link with ``k = n_samples``
        (``Z_uv = +inf``; predicted erroneous).
    normalized_scores : ndarray of float, shape (n_given,)
        Scores divided by the smallest score of their kind (Sec. 4.2); NaN where ``scores`` is,
        1 where it is ``-inf``.
    tau : float
        Predicted erroneous iff ``normalized > tau``.
    predicted_erroneous : ndarray of bool, shape (n_given,)
    base_cost : float
        ``Z_B`` (``inf`` when no solution of the base program was found).
    costs : ndarray of float, shape (n_given,)
        ``Z_uv`` of every constraint (NaN where no value was found, ``inf`` where the
        constraint cannot hold even alone).
    failed : ndarray of bool, shape (n_given,)
        The constraint's own re-solve gave no solution (dead end, infeasible, time limit,
        or not started before the overall limit). With ``reuse_solutions`` its score may
        still come from another run's solution.
    n_failed : int
        Number of failed re-solves (distinct constraints).
    n_resolves : int
        Number of re-solves run (the pessimistic approach skips the constraints the base
        solution satisfies and those that cannot hold alone, see :func:`pessimistic_baseline`).
    base_labels : ndarray of int or None
        A solution of cost ``base_cost``.
    status : Status
        ``optimal`` (every solve exact and optimal), ``feasible`` (heuristic solves),
        ``time_limit`` (some solve stopped on its limit or was skipped), ``interrupted``
        (Ctrl-C: the re-solves that finished are used, the others count as failed),
        ``infeasible`` (no base solution, and no time limit or Ctrl-C stopped its search).
        Without a base solution ``time_limit`` and ``interrupted`` also come with NaN scores.
    seconds : float
    per_run_time_limit : float or None
        ``T_b``.
    reuse_solutions : bool
    detection : DetectionScores or None
    erroneous : ndarray of bool or None
    """

    constraints: Constraints
    approach: str
    criterion: str
    solver_mode: str
    scores: np.ndarray
    normalized_scores: np.ndarray
    tau: float
    predicted_erroneous: np.ndarray
    base_cost: float
    costs: np.ndarray
    failed: np.ndarray
    n_failed: int
    n_resolves: int
    base_labels: np.ndarray | None
    status: Status
    seconds: float
    per_run_time_limit: float | None
    reuse_solutions: bool
    detection: DetectionScores | None = None
    erroneous: np.ndarray | None = None

    @property
    def set_score(self) -> float:
        """Sum of the scores of the distinct constraints (the analogue of ``I(C)``, Sec. 4.4)."""
        unique = np.zeros(len(self.constraints))
        # Not nan_to_num: it would turn the -inf of an impossible constraint into -1.8e308.
        unique[self.constraints.given_index] = np.where(np.isnan(self.scores), 0.0, self.scores)
        return float(unique.sum())

    def summary(self) -> str:
        """A few lines: approach, costs, counts, detection quality."""
        lines = [
            f"{self.approach} baseline, criterion={self.criterion}, {self.solver_mode} solves, "
            f"status={self.status} in {self.seconds:.2f} s",
            f"base cost Z_B = {self.base_cost:.6g}; {self.n_resolves} re-solves, {self.n_failed} failed",
            f"{int(self.predicted_erroneous.sum())} of {self.scores.size} constraints predicted erroneous "
            f"(tau={self.tau:g})",
        ]
        if self.detection is not None:
            lines.append(f"detection: {self.detection.describe()}")
        return "\n".join(lines)


@dataclass(frozen=True)
class ConstraintSetMeasure:
    """A measure of a whole constraint set, with each constraint's share.

    Attributes
    ----------
    name : {"informativeness", "coherence"}
    value : float
        The measure of the set, in [0, 1].
    per_constraint : ndarray of float, shape (n_given,)
        Each constraint's contribution, aligned with the constraints as given (see the
        function that computed it).
    constraints : Constraints
    """

    name: str
    value: float
    per_constraint: np.ndarray
    constraints: Constraints


@dataclass
class KSweepResult:
    """The impact score run for several numbers of clusters (Sec. 4.1, Fig. 3).

    Attributes
    ----------
    ks : ndarray of int, shape (n_k,)
    fraction_erroneous : ndarray of float, shape (n_k,)
        Fraction of the distinct constraints predicted erroneous; NaN where the run failed.
    f1 : ndarray of float, shape (n_k,) or None
        F1 of detecting the erroneous constraints (when the truth was given).
    results : list of ImpactScoreResult or None
        One per ``k`` (None where the constraints cannot hold with ``k`` clusters).
    errors : dict of int to str
        Why the run for a ``k`` failed (or that Ctrl-C stopped the sweep before it).
    seconds : float
    """

    ks: np.ndarray
    fraction_erroneous: np.ndarray
    f1: np.ndarray | None
    results: list
    errors: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def best_k(self) -> int | None:
        """The ``k`` with the smallest fraction predicted erroneous (the smaller ``k`` on a tie)."""
        finite = np.isfinite(self.fraction_erroneous)
        if not finite.any():
            return None
        candidates = self.ks[finite][self.fraction_erroneous[finite] == self.fraction_erroneous[finite].min()]
        return int(candidates.min())

    def table(self) -> str:
        """One line per ``k``: fraction predicted erroneous, F1 and the status of the run."""
        lines = [f"{'k':>4}  {'erroneous':>9}  {'F1':>6}  status", "-" * 34]
        for idx, k in enumerate(self.ks):
            result = self.results[idx]
            f1 = "" if self.f1 is None or not np.isfinite(self.f1[idx]) else f"{self.f1[idx]:.3f}"
            status = str(result.status) if result is not None else "failed"
            lines.append(f"{k:>4}  {self.fraction_erroneous[idx]:>9.3f}  {f1:>6}  {status}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------- validation
def _check_tau(tau) -> float:
    if isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not 0.0 <= float(tau) < 1.0:
        raise InvalidParameterError(f"tau must lie in [0, 1), got {tau!r}.")
    return float(tau)


def _resolve_mode(solver_mode: str, criterion: str, n_samples: int) -> str:
    solver_mode = check_choice(solver_mode, "solver_mode", SOLVER_MODES)
    if solver_mode == "exact" and criterion != "kmedoids":
        raise InvalidParameterError(
            "solver_mode='exact' needs criterion='kmedoids': the MSSC program (6) is a non-convex "
            "MINLP with no exact route here; use solver_mode='heuristic' (COP-kmeans)."
        )
    if solver_mode == "auto":
        return "exact" if criterion == "kmedoids" and n_samples <= EXACT_MAX_SAMPLES else "heuristic"
    return solver_mode


def _fan_out(function, tasks: list, n_jobs: int, progress: bool, desc: str) -> tuple[list, bool]:
    """``function`` over ``tasks`` in parallel, keeping every finished task on Ctrl-C.

    Returns the results in task order, ``None`` for the tasks that did not finish, and
    whether the loop was interrupted.
    """
    results: list = [None] * len(tasks)
    # In the order they finish, so that no finished task waits behind a slower one when
    # Ctrl-C comes (and no worker idles at the end of a batch).
    done = parallel_imap(function, tasks, n_jobs=n_jobs, progress=progress, desc=desc, ordered=False)
    try:
        for position, result in done:
            results[position] = result
    except KeyboardInterrupt:
        logger.warning("%s interrupted after %d of %d tasks; returning what finished",
                       desc, sum(r is not None for r in results), len(tasks))
        return results, True
    finally:
        done.close()
    return results, False


# ----------------------------------------------------------------------------- solving one program
@dataclass(frozen=True)
class _Engine:
    """Everything a solve needs besides its constraints (picklable, shared by the tasks)."""

    X: np.ndarray
    n_clusters: int
    criterion: str
    mode: str
    solver: str
    n_init: int
    distances: np.ndarray | None


@dataclass(frozen=True)
class _Task:
    """One program: the engine, a constraint subset, a seed and the time it may take."""

    engine: _Engine
    pairs: np.ndarray
    kinds: np.ndarray
    seed: int
    time_limit: float | None
    stop_at: float | None  # wall-clock (time.time()) after which the task is not started
    warm: np.ndarray | None  # labels to start one restart from


@dataclass(frozen=True)
class _Solved:
    labels: np.ndarray | None
    cost: float
    status: Status
    message: str
    seconds: float


def _cost(engine: _Engine, labels: np.ndarray) -> float:
    """The criterion's value of a labelling, computed the same way for every run."""
    if engine.criterion == "kmedoids":
        return kmedoids_cost(engine.distances, labels)
    return wcss(engine.X, labels)


def _import_route(engine: _Engine) -> None:
    """Import the modules of the engine's route before any solve's clock starts.

    Their first import (for MSSC: COP-kmeans and with it scikit-learn, about 0.2 s) would
    otherwise be charged to the first solve in each process, the base solve on which every
    score depends, whose ``T_b`` is often of that order (Ionosphere: 12 s / 53 constraints).
    """
    if engine.mode == "exact":
        importlib.import_module("ccopt.models.kmedoids")
    elif engine.criterion == "mssc":
        importlib.import_module("ccopt.cluster._cop_kmeans")  # imports ccopt.cluster._init_centers


def _run_task(task: _Task) -> _Solved:
    """Solve one program; a program without a solution is reported, never raised."""
    _import_route(task.engine)
    start = time.perf_counter()
    limit = task.time_limit
    if task.stop_at is not None:
        left = task.stop_at - time.time()
        if left <= 0:
            return _Solved(None, math.inf, Status.TIME_LIMIT, "not started: the overall time limit was reached", 0.0)
        limit = left if limit is None else min(limit, left)
    engine = task.engine
    n = engine.X.shape[0]
    cons = Constraints(task.pairs, task.kinds, n_samples=n, _warn_duplicates=False)
    problem = ClusteringProblem(engine.X, engine.n_clusters, cons)
    rng = np.random.default_rng(task.seed)
    deadline = Deadline(limit)
    solve_one = _exact_kmedoids if engine.mode == "exact" else (
        _heuristic_kmedoids if engine.criterion == "kmedoids" else _heuristic_mssc)
    try:
        labels, status = solve_one(engine, problem, rng, deadline, task.warm)
    except (ClusteringDeadEndError, InfeasibleConstraintsError, SolverError, _NoSolution) as exc:
        status = exc.status if isinstance(exc, _NoSolution) else Status.INFEASIBLE
        return _Solved(None, math.inf, status, str(exc), time.perf_counter() - start)
    if cons.violations(labels).total:
        # Defensive: every route returns feasible labels; a violated constraint would make
        # Z_uv meaningless, so the run counts as failed rather than being used silently.
        logger.warning("a %s solve returned labels violating %d constraints; run discarded",
                       engine.mode, cons.violations(labels).total)
        return _Solved(None, math.inf, Status.ERROR, "solution violates its constraints",
                       time.perf_counter() - start)
    return _Solved(labels, _cost(engine, labels), status, "", time.perf_counter() - start)


class _NoSolution(Exception):
    """A solver returned without a solution (infeasible, or no incumbent by the time limit)."""

    def __init__(self, message: str, status: Status):
        super().__init__(message)
        self.status = status


def _exact_kmedoids(engine: _Engine, problem: ClusteringProblem, rng, deadline: Deadline, warm):
    """The p-median integer program with the exact rows (3), (4), zero MIP gap."""
    from ccopt.models.kmedoids import build_kmedoids_model, kmedoids_labels
    from ccopt.solvers import solve

    model = build_kmedoids_model(problem, pairwise="exact", distances=engine.distances)
    result = solve(model, engine.solver, time_limit=positive_limit(deadline.remaining()),
                   mip_gap=0.0, threads=1, require_solution=False)
    if not result.has_solution:
        raise _NoSolution(f"{engine.solver} returned no solution ({result.termination})",
                          result.status if result.status is not Status.OPTIMAL else Status.ERROR)
    labels, _ = kmedoids_labels(model)
    return labels, result.status


def _quiet_cop_kmeans(problem: ClusteringProblem, rng, deadline: Deadline, **params) -> np.ndarray:
    """COP-kmeans without its ConvergenceWarning.

    A restart that cycles until ``max_iter`` still returns a feasible labelling, which is all
    a baseline run needs; the warning would otherwise repeat for every one of the ``p`` runs.
    """
    from ccopt.cluster._cop_kmeans import cop_kmeans_problem

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return cop_kmeans_problem(problem, rng, deadline, **params)


def _heuristic_mssc(engine: _Engine, problem: ClusteringProblem, rng, deadline: Deadline, warm):
    """COP-kmeans (one run from the warm solution's centres, then k-means++ restarts).

    If every COP-kmeans restart reaches a dead end (frequent with many cannot-links and a
    small ``k``, e.g. Ionosphere), the repaired Lloyd descent takes over: Algorithm 2 with
    its complete backtracking search finds a feasible labelling whenever one exists.
    """
    X, k = engine.X, engine.n_clusters
    candidates, message = [], ""
    restarts = engine.n_init
    start = _cluster_means(X, warm, k) if warm is not None else None
    if start is not None:
        restarts -= 1
        try:
            candidates.append(_quiet_cop_kmeans(problem, rng, deadline, init=start))
        except ClusteringDeadEndError as exc:
            message = str(exc)
    if restarts > 0 and not (candidates and deadline.expired()):
        try:
            candidates.append(_quiet_cop_kmeans(problem, rng, deadline, n_init=restarts))
        except ClusteringDeadEndError as exc:
            message = str(exc)
    if candidates:
        labels = min(candidates, key=lambda lab: wcss(X, lab))
    else:
        logger.debug("COP-kmeans found no feasible labelling (%s); using the repaired Lloyd descent", message)
        labels = _mssc_descent(X, k, problem.closure, rng, deadline, engine.n_init, warm=warm)[0]
        if labels is None:
            raise ClusteringDeadEndError(message)
    return labels, Status.TIME_LIMIT if deadline.expired() else Status.FEASIBLE


def _heuristic_kmedoids(engine: _Engine, problem: ClusteringProblem, rng, deadline: Deadline, warm):
    labels, _, message = _kmedoids_descent(engine.distances, engine.n_clusters, problem.closure, rng,
                                           deadline, engine.n_init, warm=warm)
    if labels is None:
        raise ClusteringDeadEndError(f"the constrained k-medoids heuristic found no feasible labelling: {message}")
    return labels, Status.TIME_LIMIT if deadline.expired() else Status.FEASIBLE


def _cluster_means(X: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray | None:
    """Means of the clusters of ``labels`` (sorted label order); None unless there are ``k``."""
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    if counts.size != k:
        return None
    means = np.zeros((k, X.shape[1]))
    np.add.at(means, inverse.reshape(-1), X)
    return means / counts[:, None]


def _seed_medoids(D: np.ndarray, k: int, rng: np.random.Generator, start=None) -> np.ndarray:
    """k-medoids++: complete ``start`` (or one random object) to ``k`` distinct medoids.

    Each new medoid is drawn with probability proportional to its distance to the nearest
    chosen medoid (the k-medoids objective sums distances, so distance plays the role that
    squared distance plays in k-means++).
    """
    n = D.shape[0]
    chosen = [int(v) for v in start] if start is not None and len(start) else [int(rng.integers(n))]
    nearest = D[:, chosen].min(axis=1)
    while len(chosen) < k:
        weights = nearest.copy()
        weights[chosen] = 0.0
        total = weights.sum()
        if total > 0:
            j = int(rng.choice(n, p=weights / total))
        else:  # every object coincides with a medoid: any unused one will do
            j = int(rng.choice(np.setdiff1d(np.arange(n), chosen)))
        chosen.append(j)
        nearest = np.minimum(nearest, D[:, j])
    return np.asarray(chosen[:k], dtype=np.int64)


def _repaired_descent(starts, assign, update, closure, rng: np.random.Generator, deadline: Deadline):
    """Lloyd-type descent kept feasible by Algorithm 2, best over several starts.

    From each start (centres or medoids), repeat: ``assign(centres)`` gives every object's
    cost in every cluster, objects go to their cheapest cluster, Algorithm 2
    (:func:`~ccopt.lagrange.repair.repair_labels`; without constraints it only fills empty
    clusters) restores feasibility, and ``update(labels)`` returns the new centres and the
    labelling's cost; a start ends when the cost stops falling.

    Parameters
    ----------
    starts : iterable
        Starting centres, produced lazily (a start is only drawn if time is left).
    assign : callable, centres -> ndarray of shape (n_samples, k)
    update : callable, labels -> (centres, cost)

    Returns
    -------
    labels : ndarray of int or None
        The best feasible labelling (None if no start found one).
    cost : float
    message : str
        Why the last failed repair failed (empty if none failed).
    """
    best_labels, best_cost, message = None, math.inf, ""
    for centres in starts:
        run_cost = math.inf
        for _ in range(_DESCENT_MAX_ITER):
            cost = assign(centres)
            repaired = repair_labels(np.argmin(cost, axis=1), cost, closure, rng,
                                     deadline=Deadline(deadline.remaining()))
            if not repaired.feasible:
                message = repaired.message
                break
            centres, value = update(repaired.labels)
            if value >= run_cost - _ZERO_TOL * abs(run_cost):
                break
            run_cost = value
            if value < best_cost:
                best_labels, best_cost = repaired.labels, value
            if deadline.expired():
                break
        if deadline.expired() and best_labels is not None:
            break
    return best_labels, best_cost, message


def _kmedoids_descent(D: np.ndarray, k: int, closure, rng: np.random.Generator, deadline: Deadline,
                      n_init: int, *, warm=None):
    """Constrained Voronoi iteration for k-medoids: k-medoids++ starts (the first from ``warm``)."""
    finder = MedoidFinder(D)
    first = finder.medoids_and_cost(warm)[0] if warm is not None else None
    starts = (_seed_medoids(D, k, rng, first if run == 0 else None) for run in range(n_init))
    return _repaired_descent(starts, lambda medoids: D[:, medoids], finder.medoids_and_cost, closure, rng, deadline)


def _mssc_descent(X: np.ndarray, k: int, closure, rng: np.random.Generator, deadline: Deadline,
                  n_init: int, *, warm=None):
    """Constrained Lloyd iteration for MSSC: k-means++ starts (the first from ``warm``'s means)."""
    from ccopt.cluster._init_centers import kmeanspp, squared_distances

    first = _cluster_means(X, warm, k) if warm is not None else None
    starts = (first if run == 0 and first is not None else kmeanspp(X, k, rng) for run in range(n_init))
    return _repaired_descent(starts, lambda centres: squared_distances(X, centres),
                             lambda labels: (_cluster_means(X, labels, k), wcss(X, labels)), closure, rng, deadline)


def _unconstrained_clustering(X: np.ndarray, k: int, criterion: str, n_init: int, rng: np.random.Generator,
                              deadline: Deadline, distances=None) -> tuple[np.ndarray, float]:
    """k-means (scikit-learn) or the k-medoids Voronoi iteration, without constraints."""
    if criterion == "mssc":
        from sklearn.cluster import KMeans

        # One thread: the baseline is then the same on every machine and n_jobs (one_thread).
        with one_thread():
            labels = KMeans(n_clusters=k, n_init=n_init, random_state=int(rng.integers(2**31 - 1))).fit(X).labels_
        return labels.astype(np.int64), wcss(X, labels)
    closure = Constraints.empty(X.shape[0]).closure
    labels, cost, _ = _kmedoids_descent(distances, k, closure, rng, deadline, n_init)
    return labels, cost


# ----------------------------------------------------------------------------- naive baseline and informativeness
def naive_baseline(X, n_clusters, *, ml=None, cl=None, constraints=None, criterion: str = "kmedoids",
                   n_init: int = 10, random_state=None, time_limit: float | None = None,
                   labels_true=None, erroneous=None) -> NaiveBaselineResult:
    """Predict a constraint erroneous exactly when an unconstrained clustering violates it.

    The naive column of the Table 3 benchmark (BENCHMARKS.md): with ``criterion="mssc"`` the
    clustering is scikit-learn's k-means (``n_init`` restarts, ``k = n_clusters``); with ``criterion="kmedoids"`` it is the unconstrained Voronoi
    iteration (k-medoids++ seeding, best of ``n_init`` restarts; Euclidean distances).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    ml, cl : array-like of int, shape (m, 2), optional
        Must-link and cannot-link pairs; results come back with the ML pairs first.
    constraints : Constraints, optional
        Alternative to ``ml``/``cl``; results come back in its row order.
    criterion : {"kmedoids", "mssc"}, default="kmedoids"
    n_init : int, default=10
    random_state : int, numpy.random.Generator or None
    time_limit : float, optional
        Seconds for the k-medoids restarts (the best finished one is kept); k-means runs to
        completion.
    labels_true : array-like of shape (n_samples,), optional
        Ground truth; enables ``detection``.
    erroneous : array-like of bool, shape (n_given,), optional
        The truth per constraint instead of labels.

    Returns
    -------
    NaiveBaselineResult

    Raises
    ------
    InvalidDataError, InvalidConstraintError, InvalidParameterError
    MemoryBudgetError
        k-medoids needs the ``n x n`` distance matrix.

    Warns
    -----
    CcoptWarning
        Constraints with weights or hard flags, which the baseline does not read (as
        :func:`~ccopt.lagrange.impact_scores` does not).

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.lagrange.baselines import naive_baseline
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> res = naive_baseline(X, 2, ml=[(0, 1), (1, 2)], cl=[(0, 3)], random_state=0)
    >>> res.predicted_erroneous.tolist()
    [False, True, False]
    """
    start = time.perf_counter()
    criterion = check_choice(criterion, "criterion", CRITERIA)
    n_init = check_positive_int(n_init, "n_init")
    time_limit = check_time_limit(time_limit)
    problem = ClusteringProblem.create(X, n_clusters, constraints, ml=ml, cl=cl, require_closure=False)
    cons = problem.constraints
    _warn_unused_weights(cons, "naive_baseline")
    truth = _truth(cons, labels_true, erroneous, problem.n_samples)
    rng = check_random_state(random_state)
    distances = pairwise_distances_checked(problem.X) if criterion == "kmedoids" else None
    labels, cost = _unconstrained_clustering(problem.X, problem.n_clusters, criterion, n_init, rng,
                                             Deadline(time_limit), distances)
    violated = ~cons.satisfied(labels)
    return NaiveBaselineResult(
        constraints=cons,
        criterion=criterion,
        labels=labels,
        cost=float(cost),
        predicted_erroneous=cons.to_given(violated),
        informativeness=float(violated.mean()) if violated.size else 0.0,
        seconds=time.perf_counter() - start,
        detection=detection_scores(truth, violated) if truth is not None else None,
        erroneous=None if truth is None else cons.to_given(truth),
    )


def informativeness(X, n_clusters, *, ml=None, cl=None, constraints=None, criterion: str = "kmedoids",
                    labels=None, n_init: int = 10, random_state=None) -> ConstraintSetMeasure:
    """Davidson, Wagstaff and Basu (2006): the fraction of constraints an unconstrained clustering violates.

    .. math::

        \\mathrm{Inf}(C) = \\frac{1}{|C|} \\sum_{c \\in C} [\\, P \\text{ violates } c \\,]

    where :math:`P` is the clustering the algorithm finds without constraints. The higher,
    the more the constraints tell the algorithm that it does not already know.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    ml, cl, constraints
        As in :func:`naive_baseline`.
    criterion : {"kmedoids", "mssc"}, default="kmedoids"
        Which unconstrained clustering to run (as in :func:`naive_baseline`).
    labels : array-like of int, shape (n_samples,), optional
        An unconstrained clustering to use instead of running one (e.g. that of another
        algorithm); ``criterion``, ``n_init`` and ``random_state`` are then unused.
    n_init : int, default=10
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    ConstraintSetMeasure
        ``value`` is the fraction over the distinct constraints (0 without constraints);
        ``per_constraint`` is 1.0 where the constraint is violated, else 0.0.
    """
    if labels is None:
        naive = naive_baseline(X, n_clusters, ml=ml, cl=cl, constraints=constraints, criterion=criterion,
                               n_init=n_init, random_state=random_state)
        return ConstraintSetMeasure("informativeness", naive.informativeness,
                                    naive.predicted_erroneous.astype(np.float64), naive.constraints)
    data = check_data(X)
    check_n_clusters(n_clusters, data.shape[0])
    cons = as_constraints(constraints, ml=ml, cl=cl, n_samples=data.shape[0])
    violated = ~cons.satisfied(labels)
    value = float(violated.mean()) if violated.size else 0.0
    return ConstraintSetMeasure("informativeness", value, cons.to_given(violated.astype(np.float64)), cons)


# ----------------------------------------------------------------------------- coherence
def _projection_overlap(A1: np.ndarray, A2: np.ndarray, B1: np.ndarray, B2: np.ndarray) -> np.ndarray:
    """Overlap of segments ``A`` projected onto segments ``B``: shape (len(A), len(B)), plus a tolerance.

    The endpoints of segment ``a`` are projected onto the line through segment ``b``; the
    overlap is the length of the part of ``b`` that the projected segment covers. A
    degenerate ``b`` (both objects at one point) has length 0 and so no overlap.
    """
    U = B2 - B1
    length = np.linalg.norm(U, axis=1)
    unit = U / np.where(length > 0, length, 1.0)[:, None]
    offset = (B1 * unit).sum(axis=1)
    s1 = A1 @ unit.T - offset
    s2 = A2 @ unit.T - offset
    low, high = np.minimum(s1, s2), np.maximum(s1, s2)
    overlap = np.minimum(high, length) - np.maximum(low, 0.0)
    return overlap > _ZERO_TOL * np.maximum(length, 1e-300)


def coherence(X, *, ml=None, cl=None, constraints=None, chunk_size: int = 1_000_000) -> ConstraintSetMeasure:
    """Davidson, Wagstaff and Basu (2006): how little the must-links and cannot-links overlap.

    Every constraint ``(u, v)`` is the segment between ``x_u`` and ``x_v``. The overlap of a
    segment ``a`` *onto* a segment ``b``, :math:`\\mathrm{over}_b(a)`, is the length of the
    part of ``b`` covered by the orthogonal projection of ``a`` onto the line through ``b``.
    A must-link ``m`` and a cannot-link ``c`` agree when neither overlaps the other:

    .. math::

        \\mathrm{Coh}(C) = \\frac{1}{|ML|\\,|CL|} \\sum_{m \\in ML} \\sum_{c \\in CL}
            [\\, \\mathrm{over}_c(m) = 0 \\ \\text{and}\\ \\mathrm{over}_m(c) = 0 \\,]

    (Randel et al. 2021, Sec. 2 and Fig. 2: "the proportion of null projections"). Reading
    chosen where the description is informal: Euclidean geometry in the feature space,
    overlap measured along ``b`` and clipped to ``b``'s extent, segments touching in a single
    projected point do not overlap (an overlap below ``1e-9`` of ``b``'s length counts as
    zero), and a degenerate segment (two identical objects) overlaps nothing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    ml, cl : array-like of int, shape (m, 2), optional
    constraints : Constraints, optional
    chunk_size : int, default=1000000
        Bound on the (ML, CL) pairs held in memory at once.

    Returns
    -------
    ConstraintSetMeasure
        ``value`` is the fraction of coherent (ML, CL) pairs; ``per_constraint`` is, for a
        must-link, the fraction of cannot-links it agrees with, and for a cannot-link the
        fraction of must-links it agrees with (``value`` is the mean of either group). Without
        must-links or without cannot-links there is no pair that can disagree: the value and
        every contribution are 1.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.lagrange.baselines import coherence
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0], [3.0, 0.0], [0.0, 5.0], [1.0, 5.0]])
    >>> coherence(X, ml=[(0, 1)], cl=[(2, 3), (4, 5)]).per_constraint.tolist()
    [0.0, 0.0, 0.0]
    """
    data = check_data(X)
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    cons = as_constraints(constraints, ml=ml, cl=cl, n_samples=data.shape[0])
    contributions = np.ones(len(cons))
    if cons.n_ml == 0 or cons.n_cl == 0:
        return ConstraintSetMeasure("coherence", 1.0, cons.to_given(contributions), cons)
    # Coherence does not depend on the scale: bring the largest value near 1 by a power of
    # two (exact), so that the dot products neither overflow nor underflow (1e160, 1e-170).
    # Centred: the projections are differences of dot products, which a large common offset
    # (e.g. 1e6) would round into overlaps between segments that merely share an endpoint.
    exponent = np.frexp(np.abs(data).max())[1] if data.size else 0
    data = np.ldexp(data, -exponent)
    data = data - data.mean(axis=0)
    ml_pairs, cl_pairs = cons.ml_pairs, cons.cl_pairs
    C1, C2 = data[cl_pairs[:, 0]], data[cl_pairs[:, 1]]
    rows = max(1, chunk_size // cons.n_cl)
    ml_share = np.empty(cons.n_ml)
    cl_count = np.zeros(cons.n_cl)
    for lo in range(0, cons.n_ml, rows):
        M1, M2 = data[ml_pairs[lo:lo + rows, 0]], data[ml_pairs[lo:lo + rows, 1]]
        coherent = ~(_projection_overlap(M1, M2, C1, C2) | _projection_overlap(C1, C2, M1, M2).T)
        ml_share[lo:lo + rows] = coherent.mean(axis=1)
        cl_count += coherent.sum(axis=0)
    contributions[cons.ml_indices] = ml_share
    contributions[cons.cl_indices] = cl_count / cons.n_ml
    return ConstraintSetMeasure("coherence", float(ml_share.mean()), cons.to_given(contributions), cons)


# ----------------------------------------------------------------------------- optimistic / pessimistic
def optimistic_baseline(X, n_clusters, *, ml=None, cl=None, constraints=None, criterion: str = "kmedoids",
                        solver_mode: str = "auto", tau: float = 0.15, n_init: int = 10,
                        time_limit: float | None = None, reuse_solutions: bool = False,
                        solver: str = DEFAULT_SOLVER, random_state=None, n_jobs: int | None = 1,
                        progress: bool = True, labels_true=None, erroneous=None) -> BaselineResult:
    """The optimistic baseline of Sec. 4.2: what does dropping one constraint gain?

    Solves the constrained program (2)-(5) with every constraint (base cost ``Z_B``) and
    once more without each constraint ``(u, v)`` (``Z_uv``):

    .. math::

        \\mathcal{I}^o_{uv} = Z_{uv} - Z_B \\le 0,

    normalised per kind by the smallest score of the kind, and predicted erroneous iff the
    normalised score exceeds ``tau`` (the paper's best threshold for this approach, 0.15).
    Its blind spot (Fig. 4): two erroneous constraints that hold the same object in place
    each look harmless, since dropping either one alone changes nothing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    ml, cl : array-like of int, shape (m, 2), optional
        Results come back with the ML pairs first, then the CL pairs.
    constraints : Constraints, optional
        Alternative to ``ml``/``cl``; results come back in its row order.
    criterion : {"kmedoids", "mssc"}, default="kmedoids"
        k-medoids (7)-(9) with Euclidean distances, or MSSC (6).
    solver_mode : {"auto", "exact", "heuristic"}, default="auto"
        See the module docstring (exact: k-medoids integer program; heuristic: COP-kmeans or
        constrained Voronoi iteration; auto: exact for k-medoids up to
        :data:`EXACT_MAX_SAMPLES` objects).
    tau : float, default=0.15
        Threshold on the normalised scores, in [0, 1).
    n_init : int, default=10
        Restarts of every heuristic solve.
    time_limit : float, optional
        ``T_s``: every solve gets ``T_b = time_limit / p`` (module docstring).
    reuse_solutions : bool, default=False
        False: the paper's protocol (Sec. 4.3), independent runs and raw differences;
        heuristic scores may then be positive or slightly negative, which the normalisation
        and ``tau`` absorb. True: use every solution found by any run where it is feasible
        (``Z_B`` is the best solution found that satisfies all constraints, ``Z_uv`` the best
        one that satisfies all but ``(u, v)``, so ``Z_uv <= Z_B`` always) and start one
        restart of each heuristic re-solve from the base solution. Exact solves give the
        same scores either way; heuristic ones come closer to the exact scores, which is
        not always the better predictor: the exact optimistic score is 0 for every tied
        constraint (Fig. 4), and the exact pessimistic score is 0 for every constraint
        that some optimal unconstrained clustering satisfies, which on data with many
        equivalent optima (a grid such as Balance) is nearly every constraint.
    solver : str, default="appsi_highs"
        Pyomo solver of the exact mode.
    random_state : int, numpy.random.Generator or None
        Seeds every run (one independent seed per run: results do not depend on ``n_jobs``).
    n_jobs : int or None, default=1
        Workers for the re-solves (``-1``: all cores).
    progress : bool or "always", default=True
        Progress bar over the re-solves, drawn on a terminal at the first step that ends after a second
        (``"always"``: drawn at once, terminal or not).
    labels_true : array-like of shape (n_samples,), optional
        Ground truth; enables ``detection``.
    erroneous : array-like of bool, shape (n_given,), optional
        The truth per constraint instead of labels.

    Returns
    -------
    BaselineResult

    Raises
    ------
    InvalidDataError, InvalidConstraintError, InvalidParameterError
    InfeasibleConstraintsError
        The constraints cannot all hold with ``n_clusters`` clusters (no ``Z_B``): a
        cannot-link inside a must-link chain, fewer must-link groups than clusters, a
        cannot-link clique larger than ``n_clusters``, or an exact solve proving it. When a
        heuristic finds no base solution without such a proof, the result has NaN scores
        and status ``infeasible`` (``time_limit`` when the base solve ran out of time).
    SolverNotAvailableError
        Exact mode with a solver that is not installed.
    MemoryBudgetError
        k-medoids needs the ``n x n`` distance matrix.

    Warns
    -----
    CcoptWarning
        Constraints with weights or hard flags, which the baseline does not read (as
        :func:`~ccopt.lagrange.impact_scores` does not).

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.lagrange.baselines import optimistic_baseline
    >>> X = np.array([[0.0], [0.2], [0.4], [2.0], [10.0], [10.2], [10.4]])
    >>> res = optimistic_baseline(X, 2, ml=[(3, 4)], cl=[(0, 3)], progress=False)
    >>> res.predicted_erroneous.tolist()  # the tied pair of Fig. 4 looks harmless
    [False, False]
    """
    return _one_at_a_time("optimistic", X, n_clusters, ml, cl, constraints, criterion, solver_mode, tau, n_init,
                          time_limit, reuse_solutions, solver, random_state, n_jobs, progress, labels_true,
                          erroneous)


def pessimistic_baseline(X, n_clusters, *, ml=None, cl=None, constraints=None, criterion: str = "kmedoids",
                         solver_mode: str = "auto", tau: float = 0.0, n_init: int = 10,
                         time_limit: float | None = None, reuse_solutions: bool = False,
                         solver: str = DEFAULT_SOLVER, random_state=None, n_jobs: int | None = 1,
                         progress: bool = True, labels_true=None, erroneous=None) -> BaselineResult:
    """The pessimistic baseline of Sec. 4.2: what does imposing one constraint alone cost?

    Solves the program without pairwise constraints (base cost ``Z_B``) and once with each
    constraint ``(u, v)`` alone (``Z_uv``):

    .. math::

        \\mathcal{I}^p_{uv} = Z_B - Z_{uv} \\le 0,

    normalised per kind by the smallest score of the kind, and predicted erroneous iff the
    normalised score exceeds ``tau`` (the paper's best threshold for this approach, 0). With
    exact solves and ``tau = 0`` a constraint is predicted erroneous exactly when every
    optimal unconstrained clustering violates it: when that clustering is unique, this is
    the naive baseline (:func:`naive_baseline`) run on the optimal clustering. Its blind
    spot (Fig. 5): correct constraints that only make sense together each look costly alone.

    A constraint that no ``k``-partition satisfies even alone (a cannot-link with
    ``n_clusters=1``, a must-link with ``n_clusters=n_samples``) has ``Z_uv = +inf``, so its
    score is ``-inf`` and it is predicted erroneous, without a re-solve.

    A constraint that the base solution satisfies has ``Z_uv = Z_B`` when the base solve is
    optimal (the base solution is feasible with the constraint), so it is not re-solved;
    with ``reuse_solutions=True`` this shortcut is taken for heuristic solves too. The whole set
    need not be satisfiable (each constraint is used alone), so contradictory sets are
    accepted, e.g. a cannot-link that closes a must-link chain; one pair given as both a
    must-link and a cannot-link is not a set of constraints and raises
    :class:`~ccopt.exceptions.ConflictingConstraintError`.

    Parameters
    ----------
    X, n_clusters, ml, cl, constraints, criterion, solver_mode, n_init, time_limit, solver, random_state, n_jobs, progress, labels_true, erroneous
        As in :func:`optimistic_baseline`.
    tau : float, default=0.0
        Threshold on the normalised scores, in [0, 1).
    reuse_solutions : bool, default=False
        False: the paper's protocol (independent runs, raw differences; only an exact,
        optimal base solve lets satisfied constraints skip their re-solve). True: use every
        solution found where it is feasible (``Z_B`` is the best solution found by any run,
        all being feasible without constraints, and ``Z_uv`` the best one that satisfies
        ``(u, v)``, so ``Z_uv >= Z_B`` always) and start one restart of each heuristic
        re-solve from the base solution.

    Returns
    -------
    BaselineResult

    Raises
    ------
    InvalidDataError, InvalidConstraintError, InvalidParameterError
    SolverNotAvailableError, MemoryBudgetError
        As in :func:`optimistic_baseline`.
    ConflictingConstraintError
        One pair given as both a must-link and a cannot-link.

    Warns
    -----
    CcoptWarning
        Constraints with weights or hard flags, which the baseline does not read (as
        :func:`~ccopt.lagrange.impact_scores` does not).

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.lagrange.baselines import pessimistic_baseline
    >>> X = np.array([[0.0], [0.2], [0.4], [2.0], [10.0], [10.2], [10.4]])
    >>> res = pessimistic_baseline(X, 2, ml=[(3, 4)], cl=[(0, 3)], progress=False)
    >>> res.predicted_erroneous.tolist()
    [True, True]
    """
    return _one_at_a_time("pessimistic", X, n_clusters, ml, cl, constraints, criterion, solver_mode, tau, n_init,
                          time_limit, reuse_solutions, solver, random_state, n_jobs, progress, labels_true,
                          erroneous)


def _one_at_a_time(approach, X, n_clusters, ml, cl, constraints, criterion, solver_mode, tau, n_init, time_limit,
                   reuse_solutions, solver, random_state, n_jobs, progress, labels_true, erroneous) -> BaselineResult:
    """The shared driver of the optimistic and pessimistic baselines."""
    start, wall_start = time.perf_counter(), time.time()
    optimistic = approach == "optimistic"
    criterion = check_choice(criterion, "criterion", CRITERIA)
    tau = _check_tau(tau)
    n_init = check_positive_int(n_init, "n_init")
    time_limit = check_time_limit(time_limit)
    reuse = check_bool(reuse_solutions, "reuse_solutions")
    n_jobs = _check_n_jobs(n_jobs)
    # The optimistic base program holds every constraint, so they must be satisfiable together.
    problem = ClusteringProblem.create(X, n_clusters, constraints, ml=ml, cl=cl, require_closure=optimistic)
    cons, n = problem.constraints, problem.n_samples
    _warn_unused_weights(cons, f"{approach}_baseline")
    mode = _resolve_mode(solver_mode, criterion, n)
    if mode == "exact":
        solver = check_solver(solver)
    truth = _truth(cons, labels_true, erroneous, n)
    p = len(cons)
    seeds = task_seeds(random_state, p + 1)
    engine = _Engine(problem.X, problem.n_clusters, criterion, mode, solver, n_init,
                     pairwise_distances_checked(problem.X) if criterion == "kmedoids" else None)
    per_run = None if time_limit is None else time_limit / max(p, 1)
    stop_at = None if time_limit is None else wall_start + time_limit + per_run

    everything = np.ones(p, dtype=bool)
    base_mask = everything if optimistic else ~everything
    base = _run_task(_Task(engine, cons.pairs[base_mask], cons.kinds[base_mask], seeds[0], per_run, stop_at, None))
    if optimistic and base.labels is None:
        # No Z_B: raise when the constraints provably cannot hold together (the closure checks
        # of ClusteringProblem.create do not look for cannot-link cliques); otherwise the
        # heuristic merely failed, and the result says so.
        check_feasibility(cons, problem.n_clusters).raise_if_infeasible()
        if mode == "exact" and base.status is Status.INFEASIBLE:
            raise InfeasibleConstraintsError(
                f"The k-medoids integer program with all {p} constraints has no solution with "
                f"n_clusters={problem.n_clusters} ({base.message}).",
                certificate=f"{solver}: integer program infeasible")
        logger.warning("optimistic baseline: the base program found no solution (%s)", base.message)

    # A constraint that cannot hold on its own (a cannot-link with k = 1, a must-link with
    # k = n) makes its pessimistic program infeasible: Z_uv = +inf is known without a solve,
    # and I^p = -inf (the paper's rule I^p < 0: erroneous), not "no value found".
    impossible = _impossible_alone(cons, problem.n_clusters, n) if not optimistic else np.zeros(p, dtype=bool)

    # Which constraints to re-solve, and the program of each.
    if not optimistic and base.labels is not None and (reuse or (mode == "exact" and base.status is Status.OPTIMAL)):
        todo = np.flatnonzero(~cons.satisfied(base.labels) & ~impossible)
    else:
        todo = np.flatnonzero(~impossible)
    warm = base.labels if reuse else None
    tasks = []
    for c in todo:
        keep = everything.copy() if optimistic else ~everything
        keep[c] = not optimistic
        tasks.append(_Task(engine, cons.pairs[keep], cons.kinds[keep], seeds[1 + c], per_run, stop_at, warm))
    runs, interrupted = _fan_out(_run_task, tasks, n_jobs, progress, f"{approach} re-solves")
    runs = [run if run is not None else _Solved(None, math.inf, Status.INTERRUPTED, "interrupted", 0.0)
            for run in runs]

    base_cost, costs, base_labels = _combine(approach, cons, base, todo, runs, reuse)
    # Set after _combine: without reuse it gives every constraint it skipped Z_B, and with
    # reuse a heuristic labelling with fewer than k clusters (duplicate points) may seem to
    # satisfy an impossible must-link.
    costs[impossible] = math.inf
    tolerance = _ZERO_TOL * abs(base_cost) if math.isfinite(base_cost) else 0.0
    with np.errstate(invalid="ignore"):
        raw = costs - base_cost if optimistic else base_cost - costs
        scores = np.where(np.isfinite(raw), np.where(np.abs(raw) <= tolerance, 0.0, raw), np.nan)
        scores[impossible] = -math.inf
        normalized = normalize_scores(np.where(np.isfinite(scores), scores, 0.0), cons.ml_mask)
    normalized[np.isnan(scores)] = np.nan
    # -inf / -inf: an impossible constraint is the most suspicious of its kind (and, being
    # impossible because of its kind and k alone, so is every constraint of its kind).
    normalized[impossible] = 1.0
    predicted = np.nan_to_num(normalized, nan=0.0) > tau

    failed = np.zeros(p, dtype=bool)
    failed[todo] = [run.labels is None for run in runs]
    statuses = [base.status] + [run.status for run in runs]
    if not math.isfinite(base_cost):
        # No base solution: say why when the clock (or Ctrl-C) rather than the search ended it.
        stopped = (Status.TIME_LIMIT, Status.INTERRUPTED)
        status = base.status if base.status in stopped else Status.INFEASIBLE
    elif interrupted:
        status = Status.INTERRUPTED
    elif Status.TIME_LIMIT in statuses:
        status = Status.TIME_LIMIT
    elif mode == "exact" and all(s is Status.OPTIMAL for s in statuses):
        status = Status.OPTIMAL
    else:
        status = Status.FEASIBLE
    n_failed = int(failed.sum())
    if n_failed:
        logger.info("%s baseline: %d of %d re-solves found no solution", approach, n_failed, len(todo))
    return BaselineResult(
        constraints=cons,
        approach=approach,
        criterion=criterion,
        solver_mode=mode,
        scores=cons.to_given(scores),
        normalized_scores=cons.to_given(normalized),
        tau=tau,
        predicted_erroneous=cons.to_given(predicted),
        base_cost=float(base_cost),
        costs=cons.to_given(np.where(np.isfinite(costs) | impossible, costs, np.nan)),
        failed=cons.to_given(failed),
        n_failed=n_failed,
        n_resolves=len(todo),
        base_labels=base_labels,
        status=status,
        seconds=time.perf_counter() - start,
        per_run_time_limit=per_run,
        reuse_solutions=reuse,
        detection=detection_scores(truth, predicted) if truth is not None else None,
        erroneous=None if truth is None else cons.to_given(truth),
    )


def _impossible_alone(cons: Constraints, k: int, n: int) -> np.ndarray:
    """Constraints that no partition into ``k`` non-empty clusters satisfies even alone.

    A cannot-link needs two clusters; a must-link leaves ``n - 1`` groups, too few for
    ``k = n`` non-empty clusters.
    """
    if k == 1:
        return cons.cl_mask.copy()
    if k == n:
        return cons.ml_mask.copy()
    return np.zeros(len(cons), dtype=bool)


def _combine(approach: str, cons: Constraints, base: _Solved, todo: np.ndarray, runs: list[_Solved],
             reuse: bool) -> tuple[float, np.ndarray, np.ndarray | None]:
    """``Z_B``, ``Z_uv`` per distinct constraint (``inf`` where unknown) and a base solution.

    Without reuse every value is its own run's. With reuse every solution found is checked
    against every program: a labelling is feasible for "all but c" iff it violates nothing
    or only c, and for "c alone" iff it satisfies c.
    """
    p = len(cons)
    optimistic = approach == "optimistic"
    if not reuse:
        costs = np.full(p, math.inf)
        costs[todo] = [run.cost for run in runs]
        if not optimistic:
            # Constraints the (optimal) base solution satisfies were not re-solved: Z_uv = Z_B.
            skipped = np.ones(p, dtype=bool)
            skipped[todo] = False
            costs[skipped] = base.cost
        return base.cost, costs, base.labels
    pool = [s for s in [base, *runs] if s.labels is not None]
    if not pool:
        return math.inf, np.full(p, math.inf), None
    labels = np.stack([s.labels for s in pool])
    value = np.array([s.cost for s in pool])
    same = labels[:, cons.pairs[:, 0]] == labels[:, cons.pairs[:, 1]]
    violated = np.where(cons.ml_mask[None, :], ~same, same)  # (n_solutions, p)
    if optimistic:
        n_violated = violated.sum(axis=1)
        feasible_all = n_violated == 0
        base_cost = value[feasible_all].min() if feasible_all.any() else math.inf
        only = violated & (n_violated == 1)[:, None]
        costs = np.minimum(base_cost, np.where(only, value[:, None], math.inf).min(axis=0))
        best = int(np.argmin(np.where(feasible_all, value, math.inf))) if feasible_all.any() else None
    else:
        base_cost = value.min()
        costs = np.where(~violated, value[:, None], math.inf).min(axis=0)
        best = int(np.argmin(value))
    return float(base_cost), costs, None if best is None else labels[best]


# ----------------------------------------------------------------------------- the k sweep (Fig. 3)
# Options of impact_scores that the sweep sets itself.
_SWEEP_OWN = {"X", "n_clusters", "ml", "cl", "constraints", "criterion", "random_state", "progress",
              "time_limit", "labels_true", "erroneous"}


def _sweep_task(task) -> tuple[ImpactScoreResult | None, str]:
    X, k, cons, seed, options = task
    try:
        return impact_scores(X, k, constraints=cons, random_state=seed, progress=False, **options), ""
    except (InfeasibleConstraintsError, ClusteringDeadEndError) as exc:
        return None, str(exc)


def erroneous_fraction_by_k(X, ks, *, ml=None, cl=None, constraints=None, criterion: str = "kmedoids",
                            labels_true=None, erroneous=None, random_state=None,
                            time_limit: float | None = None, n_jobs: int | None = 1, progress: bool = True,
                            **options) -> KSweepResult:
    """Run the impact score for every ``k`` in ``ks`` (Sec. 4.1, Fig. 3).

    A high fraction of constraints predicted erroneous suggests a wrong number of clusters
    (or an unsuitable criterion); the paper finds the fraction smallest, and the F1 largest,
    at the true ``k``. Every ``k`` gets its own seed derived from ``random_state``, so the
    result does not depend on ``n_jobs``.

    Unlike :func:`ccopt.impact_scores`, the sweep predicts a constraint erroneous when its
    score is negative at all (``tau=0``, the paper's rule of Sec. 4.1) unless ``tau`` is
    given: dividing each score by the most negative of its kind blurs the comparison across
    ``k``. On 40 published five-cluster instances (``impact_k_sweep`` in BENCHMARKS.md) the
    fraction is lowest at the true ``k = 5`` on 67.5 % of them with ``tau=0`` and on 40 % with
    ``tau=0.1``, whose mean fraction is lowest at ``k = 7`` (by less than 0.001 over ``k = 6``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    ks : sequence of int
        Distinct numbers of clusters, each in ``1..n_samples``.
    ml, cl, constraints
        As in :func:`ccopt.impact_scores`.
    criterion : {"kmedoids", "mssc"}, default="kmedoids"
    labels_true : array-like of shape (n_samples,), optional
        Ground truth; enables ``f1``.
    erroneous : array-like of bool, shape (n_given,), optional
        The truth per constraint instead of labels.
    random_state : int, numpy.random.Generator or None
    time_limit : float, optional
        Seconds for the whole sweep: each ``k`` gets ``time_limit / len(ks)``.
    n_jobs : int or None, default=1
        Workers (one ``k`` per task; ``-1``: all cores).
    progress : bool or "always", default=True
        Progress bar over the values of ``k``, drawn on a terminal at the first step that ends after a
        second (``"always"``: drawn at once, terminal or not).
    **options
        Passed to :func:`ccopt.impact_scores` (``method``, ``max_iter``, ``epsilon``, ``tau``,
        ...); ``tau`` defaults to 0 here (see above).

    Returns
    -------
    KSweepResult
        A ``k`` for which the constraints cannot hold (e.g. a cannot-link clique larger
        than ``k``) gets NaN and its reason in ``errors``.

    Raises
    ------
    InvalidDataError, InvalidConstraintError, InvalidParameterError
    """
    start = time.perf_counter()
    data = check_data(X)
    n = data.shape[0]
    criterion = check_choice(criterion, "criterion", CRITERIA)
    # dtype=object: a plain asarray would turn [True, 2] into [1, 2] before the check sees True.
    raw_ks = np.asarray(ks, dtype=object).reshape(-1) if not np.isscalar(ks) else np.asarray([ks], dtype=object)
    if raw_ks.size == 0:
        raise InvalidParameterError("ks must list at least one number of clusters.")
    k_values = np.empty(raw_ks.size, dtype=np.int64)
    for position, k in enumerate(raw_ks):
        try:
            k_values[position] = check_n_clusters(k.item() if isinstance(k, np.generic) else k, n)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"ks[{position}]: {exc}") from None
    if np.unique(k_values).size != k_values.size:
        raise InvalidParameterError(f"ks must be distinct, got {k_values.tolist()}.")
    unknown = sorted(set(options) - (set(inspect.signature(impact_scores).parameters) - _SWEEP_OWN))
    if unknown:
        valid = sorted(set(inspect.signature(impact_scores).parameters) - _SWEEP_OWN)
        raise InvalidParameterError(f"Unknown option(s) {unknown} for impact_scores; valid: {valid}.")
    time_limit = check_time_limit(time_limit)
    n_jobs = _check_n_jobs(n_jobs)
    cons = as_constraints(constraints, ml=ml, cl=cl, n_samples=n)
    truth = _truth(cons, labels_true, erroneous, n)
    seeds = task_seeds(random_state, k_values.size)
    shared = dict({"tau": 0.0, **options}, criterion=criterion,
                  time_limit=None if time_limit is None else time_limit / k_values.size,
                  erroneous=None if truth is None else cons.to_given(truth))
    tasks = [(data, int(k), cons, seed, shared) for k, seed in zip(k_values, seeds, strict=True)]
    outputs, _ = _fan_out(_sweep_task, tasks, n_jobs, progress, "k sweep")
    outputs = [out if out is not None else (None, "interrupted before this k ran") for out in outputs]

    fraction = np.full(k_values.size, np.nan)
    f1 = np.full(k_values.size, np.nan) if truth is not None else None
    results, errors = [], {}
    for idx, (result, message) in enumerate(outputs):
        results.append(result)
        if result is None:
            errors[int(k_values[idx])] = message
            continue
        unique = np.zeros(len(cons), dtype=bool)
        unique[cons.given_index] = result.predicted_erroneous
        fraction[idx] = unique.mean() if unique.size else 0.0
        if f1 is not None:
            f1[idx] = result.detection.f1
    return KSweepResult(ks=k_values, fraction_erroneous=fraction, f1=f1, results=results, errors=errors,
                        seconds=time.perf_counter() - start)
