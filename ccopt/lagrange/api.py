"""``impact_scores``: the public entry point of the Lagrangian impact score.

Randel, Aloise, Blanchard and Hertz (2021), *A Lagrangian-based score for assessing the
quality of pairwise constraints in semi-supervised clustering*, DMKD 35(6).

Methods (``method=``), by criterion:

==============  ===========  ================================================================
criterion       method       lower-bounding step
==============  ===========  ================================================================
``kmedoids``    voronoi      the cluster-indexed model (7)-(9): k-medoids Voronoi iteration
                             with the Lagrangian costs (default; heuristic, like the paper's relaxed
                             bilinear solve)
``kmedoids``    lagrangian   vectorised p-median Lagrangian (assignment rows relaxed too): no
                             LP solver, a proven bound that reaches the LP bound
``kmedoids``    lp           LP relaxation of (10) re-solved every iteration on a persistent
                             solver (the paper's route, Sec. 4.1)
``kmedoids``    exact        integer program (10) every iteration (small instances only)
``kmedoids``    lp-dual      one solve: the LP relaxation of (2)-(5) with the epsilon rows;
                             its row duals are optimal multipliers of the LP-relaxed dual
                             (a degenerate LP has many; each solver returns its own, so
                             the scores can differ between solvers)
``mssc``        kmeans       the k-means-like heuristic of Sec. 4.3 (the paper's Table 3)
==============  ===========  ================================================================
"""

from __future__ import annotations

import logging
import math
import numbers
import time
import warnings
from dataclasses import dataclass

import numpy as np

from ccopt._dead_end import no_colouring_error
from ccopt._threads import with_single_blas_thread
from ccopt._timing import Deadline, positive_limit
from ccopt._validation import check_choice, check_labels, check_random_state, check_time_limit
from ccopt._warnings import warn_user
from ccopt.config import check_dense_memory
from ccopt.constraints import _unread_settings, check_feasibility
from ccopt.exceptions import (
    CcoptWarning,
    ClusteringDeadEndError,
    ConvergenceWarning,
    InvalidParameterError,
)
from ccopt.lagrange._medoids import MedoidFinder
from ccopt.lagrange.driver import History, SubgradientConfig, SubgradientOutcome, run_subgradient
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import (
    KMedoidsLagrangianOracle,
    KMedoidsVoronoiOracle,
    MSSCLloydOracle,
    check_lagrangian_memory,
    squared_distances,
    starting_multipliers,
)
from ccopt.lagrange.repair import Repairer, repair_labels
from ccopt.lagrange.result import ImpactScoreResult, normalize_scores
from ccopt.metrics import detection_scores
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["METHODS", "impact_scores"]

logger = logging.getLogger(__name__)

# The start of the warning given when the run stopped too early to score (the command line
# matches it).
NOT_SCORED = "The scores were not computed"

METHODS = {
    "kmedoids": ("voronoi", "lagrangian", "lp", "exact", "lp-dual"),
    "mssc": ("kmeans",),
}
# The method used when none is given, per criterion.
DEFAULT_METHOD = {"kmedoids": "voronoi", "mssc": "kmeans"}
# The methods that solve programs, and so read ``solver``.
SOLVER_METHODS = ("lp", "exact", "lp-dual")


def methods_reading_solver(criterion: str, method: str | None) -> list[str] | None:
    """``None`` when ``method`` (``None``: the criterion's default) reads a solver or is unknown;
    else the methods of ``criterion`` that do (perhaps none).

    Parameters
    ----------
    criterion : str
        A key of :data:`METHODS`.
    method : str or None
        As :func:`impact_scores` takes it.

    Returns
    -------
    list of str or None
    """
    method = DEFAULT_METHOD[criterion] if method is None else method
    if method not in METHODS[criterion] or method in SOLVER_METHODS:
        return None
    return [m for m in METHODS[criterion] if m in SOLVER_METHODS]


@dataclass(frozen=True)
class _Setting:
    """Validated options of one call."""

    criterion: str
    method: str
    epsilon: float
    tau: float
    score_from: str
    solver: str | None


def _check_setting(criterion, method, epsilon, tau, score_from, solver) -> _Setting:
    criterion = check_choice(criterion, "criterion", METHODS)
    if method is None:
        method = DEFAULT_METHOD[criterion]
    if not isinstance(method, str) or method not in METHODS[criterion]:
        valid = ", ".join(repr(m) for m in METHODS[criterion])
        raise InvalidParameterError(f"Unknown method {method!r} for criterion={criterion!r}; valid: {valid}.")
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or not 0.0 < float(epsilon) < 1.0:
        raise InvalidParameterError(f"epsilon must lie strictly between 0 and 1, got {epsilon!r}.")
    if isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not 0.0 <= float(tau) < 1.0:
        raise InvalidParameterError(f"tau must lie in [0, 1), got {tau!r}.")
    score_from = check_choice(score_from, "score_from", ("best", "average"))
    if method == "lp-dual" and score_from == "average":
        warn_user("score_from='average' is not used: method='lp-dual' reads its scores from one LP "
                  "solve's duals, with no iterates to average.", CcoptWarning)
    if solver is not None:
        from ccopt.solvers import check_solver

        # A named solver must exist even when this method needs none: a typo never passes silently.
        check_solver(solver)
        readers = methods_reading_solver(criterion, method)
        if readers is not None:
            which = (f"the methods {', '.join(map(repr, readers))} do" if readers
                     else f"no method of criterion={criterion!r} does")
            warn_user(f"solver={solver!r} is not used: method={method!r} solves no program ({which}).",
                      CcoptWarning)
    return _Setting(criterion, method, float(epsilon), float(tau), score_from, solver)


def _truth(constraints, labels_true, erroneous, n_samples) -> np.ndarray | None:
    """Erroneous mask over the distinct constraints, from labels or from a given mask."""
    if labels_true is not None and erroneous is not None:
        raise InvalidParameterError("Give either labels_true or erroneous, not both.")
    if labels_true is not None:
        # Checked here, under its own name: the constraints' check calls it "labels".
        return ~constraints.is_correct(check_labels(labels_true, "labels_true", n_samples))
    if erroneous is not None:
        mask = np.asarray(erroneous)
        if mask.dtype != np.bool_ or mask.shape != (constraints.n_given,):
            raise InvalidParameterError(
                f"erroneous must be a boolean array with one entry per given constraint "
                f"({constraints.n_given}), got dtype {mask.dtype} and shape {mask.shape}."
            )
        unique = np.zeros(len(constraints), dtype=bool)
        unique[constraints.given_index[mask]] = True
        # A pair given twice is one constraint: its rows must agree on whether it is erroneous.
        disagree = unique[constraints.given_index] != mask
        if disagree.any():
            rows = np.flatnonzero(np.isin(constraints.given_index, constraints.given_index[disagree]))
            raise InvalidParameterError(
                f"erroneous disagrees on rows that give the same constraint (merged as duplicates): "
                f"rows {rows.tolist()[:10]}{' ...' if rows.size > 10 else ''}; mark every copy of a "
                f"pair alike."
            )
        return unique
    return None


class _Predictor:
    """Scores -> normalised scores -> predictions, with one tolerance for 'zero'."""

    def __init__(self, constraints, tau: float, scale: float):
        self.constraints = constraints
        self.tau = tau
        # Multipliers are in units of the objective; below this they are numerical noise. Relative
        # only: with a floor of 1 every score of data in small units (Iris * 1e-5) counted as zero.
        self.zero_tol = 1e-9 * abs(scale)

    def clean(self, scores: np.ndarray) -> np.ndarray:
        return np.where(scores < -self.zero_tol, scores, 0.0)

    def predict(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scores = self.clean(scores)
        normalized = normalize_scores(scores, self.constraints.ml_mask)
        return normalized, normalized > self.tau


def _warn_unused_weights(cons, who: str = "impact_scores") -> None:
    """Say that weights and hard flags, which the clustering estimators use, do not enter the
    score of ``who`` (the impact score or one of its baselines)."""
    unread = _unread_settings(cons)
    if unread:
        warn_user(f"{who} does not use per-constraint weights or hard flags "
                  f"({unread} of {len(cons)} constraints): every constraint is "
                  "scored as a candidate with the paper's unit penalty.", CcoptWarning)


@with_single_blas_thread
def impact_scores(X, n_clusters, *, ml=None, cl=None, constraints=None, criterion: str = "kmedoids",
                  method: str | None = None, epsilon: float = 0.5, max_iter: int = 1000,
                  time_limit: float | None = None, gap_tol: float = 1e-4,
                  stagnation_iter: int | None = 300, solver: str | None = None,
                  random_state=None, progress: bool = True, labels_true=None, erroneous=None,
                  score_from: str = "best", tau: float = 0.1, repair_every: int | None = None,
                  repair_time_limit: float = 2.0, step_norm: str = "full") -> ImpactScoreResult:
    """Impact score (17) of every must-link and cannot-link constraint.

    Solves the Lagrangian dual (11) of the constrained clustering program (2)-(5) by the
    subgradient method (Algorithm 1) and reads each constraint's score from its
    multipliers: ``I_uv = sum_c eta_uv^c`` for a cannot-link, ``sum_c lambda_uv^c +
    gamma_uv^c`` for a must-link. Scores are ``<= 0``; a negative score predicts that the
    constraint is erroneous (review it).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    ml, cl : array-like of int, shape (m, 2), optional
        Must-link and cannot-link pairs (0-based). Scores come back with the ML pairs in
        their order, then the CL pairs.
    constraints : Constraints, optional
        Alternative to ``ml``/``cl``; scores come back in its row order. Its per-constraint
        weights and hard flags are not used (a warning says so): the score treats every
        constraint as a candidate with the paper's unit penalty.
    criterion : {"kmedoids", "mssc"}, default="kmedoids"
        Clustering criterion ``f``: k-medoids (7)-(9) with Euclidean distances, or MSSC (6).
    method : str, optional
        Lower-bounding route (module docstring); default "voronoi" for k-medoids,
        "kmeans" for MSSC. ``"exact"`` solves an integer program every iteration: small
        instances only (Iris: over a second per iteration, several times ``"lp"``'s). The
        scores do not depend on the units of ``X`` (every tolerance is relative to the
        objective), except through the solver routes (``lp``, ``exact``, ``lp-dual``), which
        inherit the solver's absolute tolerances (HiGHS: 1e-7): there, scale data whose
        distances are far below 1.
    epsilon : float, default=0.5
        The epsilon of rows (3'), (4'), (4''), in ]0, 1[.
    max_iter : int, default=1000
        Subgradient iterations (the paper's ``m``).
    time_limit : float, optional
        Seconds for the whole computation; the best result so far is returned with
        status ``time_limit``. The clock is read between iterations, so one iteration's
        oracle overruns it (``lagrangian`` at 5,000 objects: about 1 s). It is read in the
        setup too (between blocks of the distance matrix, after k-means and after the
        feasible start): a limit spent there returns no iteration, with the feasible start
        when there is one (``labels``, ``upper_bound``) and no scores. The solver routes
        (``lp``, ``exact``, ``lp-dual``) build their model before the first check, so a limit
        below that time (about 0.5 s for 120 objects) is overrun and returns no iteration
        (scores all 0, status ``time_limit``); ``exact`` hands HiGHS the rest of the limit,
        but HiGHS's presolve does not always keep to it (200 objects, k = 5: 5-60 s for a
        2-s limit), one more reason to keep that route to small instances.
    gap_tol : float, default=1e-4
        Stop when the relative gap between the bounds reaches this (0.01 %). With
        ``method="lp-dual"`` (one LP solve, no iterations; ``max_iter``, ``stagnation_iter``
        and ``score_from`` do not apply) the status is ``optimal`` within it and
        ``converged`` beyond.
    stagnation_iter : int or None, default=300
        Stop when the best lower bound has not improved for this many iterations.
    solver : str, optional
        Pyomo solver for the "lp", "exact" and "lp-dual" methods (default
        ``ccopt.solvers.DEFAULT_RESOLVE_SOLVER``, HiGHS through ``highs_matrix``); the other
        methods need no solver (one given to them must exist, and a warning says it is unused).
    random_state : int, Generator or None
        Seeds the starting clustering and the repair routine.
    progress : bool or "always", default=True
        Progress bar with LB/UB/gap, drawn on a terminal at the first step that ends after a second
        (``"always"``: drawn at once, terminal or not).
    labels_true : array-like of shape (n_samples,), optional
        Ground truth; enables F1 in the history and ``result.detection``.
    erroneous : array-like of bool, shape (n_given,), optional
        The truth per constraint instead of labels.
    score_from : {"best", "average"}, default="best"
        "best": the multipliers of the largest lower bound (Algorithm 1). "average": the
        mean of the multiplier iterates over the last half of the run (roughly), which
        damps the oscillation of the subgradient method.
    tau : float, default=0.1
        Threshold on the normalised scores (Sec. 4.2): predicted erroneous iff
        ``normalized > tau``; ``tau=0`` is the paper's rule "score < 0", which its own
        calibration (Sec. 4.2, exact LP route) found best. ccopt's default was calibrated
        as in Sec. 4.2 for its default routes, on synthetic data only: on 41 published synthetic
        instances (pooled F1 0.994 with tau=0.1 against 0.912 with tau=0, k-medoids) and on
        40 instances with overlapping clusters (0.854 against 0.778). Those instances have at
        most 100 constraints. With hundreds the better threshold depends on the data:
        ``tau=0`` raised F1 on Cardiotocography (319-426 constraints: 0.55 against 0.40-0.46
        with 0.1) but lowered it on Optical (574-765: MSSC route 0.85 / 0.83 against
        0.88 / 0.87; BENCHMARKS.md). Scores and their ranking do not depend on ``tau``.
    repair_every : int, optional
        Apply the repair routine (Algorithm 2) to every ``repair_every``-th lower-bound
        solution to improve the upper bound; default 1 for k-medoids and 0 (never; the
        upper bound comes from COP-kmeans once) for MSSC, as in the paper.
    repair_time_limit : float, default=2.0
        Seconds allowed to one repair.
    step_norm : {"full", "active"}, default="full"
        Step normalisation of Algorithm 1 (see :class:`SubgradientConfig`).

    Returns
    -------
    ImpactScoreResult

    Raises
    ------
    InvalidDataError, InvalidConstraintError, InvalidParameterError
        Bad input (the message says what and where).
    InfeasibleConstraintsError
        The constraints cannot all hold with ``n_clusters`` clusters (certificate attached).
    ClusteringDeadEndError
        Neither COP-kmeans nor Algorithm 2 found a clustering that satisfies the constraints
        within their limits, nor did the colourings of :func:`ccopt.check_feasibility`, so
        Algorithm 1 has no upper bound to start from.
    MemoryBudgetError
        The k-medoids routes need an ``n x n`` distance matrix larger than the configured
        bound (:func:`ccopt.set_config`); use ``criterion="mssc"``.
    SolverNotAvailableError
        The requested solver is not installed.

    Warns
    -----
    ConvergenceWarning
        The run was stopped (time or iteration limit, Ctrl-C) while its best multipliers were
        still the starting zeros (``result.scored`` is False): every score is 0, which
        predicts nothing.
    CcoptWarning
        No constraints given (the result's score arrays are empty). Weights or hard flags
        that the score does not read (it scores every constraint as a
        candidate with the paper's unit penalty). A ``solver`` the method does not use, or
        ``score_from="average"`` with ``method="lp-dual"``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import ccopt
    >>> X, y = load_iris(return_X_y=True)
    >>> result = ccopt.impact_scores(X, 3, ml=[(0, 1), (0, 50)], cl=[(0, 100)],
    ...                              criterion="mssc", random_state=0, progress=False)
    >>> result.scores.shape
    (3,)
    """
    # The routes start from k-means, whose module imports scikit-learn: about a second the
    # first time, which a short time_limit is not meant to pay for.
    import ccopt.cluster._kmeans  # noqa: F401

    start = time.perf_counter()
    setting = _check_setting(criterion, method, epsilon, tau, score_from, solver)
    repair_time_limit = check_time_limit(repair_time_limit, "repair_time_limit")
    if repair_time_limit is None:
        raise InvalidParameterError("repair_time_limit must be a positive number of seconds, got None.")
    problem = ClusteringProblem.create(X, n_clusters, constraints, ml=ml, cl=cl)
    cons = problem.constraints
    if not len(cons):
        warn_user("impact_scores was given no constraints: there is nothing to score, and the "
                  "result's score arrays are empty.", CcoptWarning)
    _warn_unused_weights(cons)
    if repair_every is None:
        repair_every = 1 if setting.criterion == "kmedoids" else 0
    config = SubgradientConfig(max_iter=max_iter, time_limit=time_limit, gap_tol=gap_tol,
                               stagnation_iter=stagnation_iter, repair_every=repair_every,
                               step_norm=step_norm, progress=progress)
    truth = _truth(cons, labels_true, erroneous, problem.n_samples)
    rng = check_random_state(random_state)
    deadline = Deadline(config.time_limit)

    try:
        route = _ROUTES[setting.criterion](problem, setting, rng, deadline, repair_time_limit)
    except _SetupOutOfTime as stop:
        logger.info("the time limit ran out in the setup (%s)", stop)
        route = None
    predictor = _Predictor(cons, setting.tau, math.inf if route is None else route.initial_upper)
    f1_of = None
    if truth is not None:
        def f1_of(mult: Multipliers) -> float:
            return detection_scores(truth, predictor.predict(mult.scores(cons))[1]).f1
    if route is None or deadline.expired():
        # The distance matrix, k-means and the feasible start spent the limit: an iteration
        # would run past it, and the result says so rather than overrun.
        outcome = _outcome_without_iterations(problem, route)
    elif setting.method == "lp-dual":
        from ccopt.lagrange.lp_routes import lp_dual_outcome

        outcome = lp_dual_outcome(problem, route.operator, route.distances, solver=setting.solver,
                                  deadline=deadline, upper_bound=route.upper_bound,
                                  initial_upper=route.initial_upper, initial_labels=route.initial_labels,
                                  f1_of=f1_of, gap_tol=config.gap_tol)
    else:
        if config.time_limit is not None:
            config = SubgradientConfig(**{**config.__dict__, "time_limit": positive_limit(deadline.remaining())})
        outcome = run_subgradient(
            route.oracle, starting_multipliers(route.oracle, cons.n_cl, cons.n_ml), config=config,
            initial_upper=route.initial_upper, initial_labels=route.initial_labels,
            upper_bound=route.upper_bound, f1_of=f1_of, average_tail=setting.score_from == "average",
        )

    mult = outcome.average_multipliers if setting.score_from == "average" and outcome.average_multipliers is not None \
        else outcome.best_multipliers
    predictor = _Predictor(cons, setting.tau, outcome.upper_bound if math.isfinite(outcome.upper_bound) else 1.0)
    unique_scores = predictor.clean(mult.scores(cons))
    normalized, predicted = predictor.predict(unique_scores)
    detection = detection_scores(truth, predicted) if truth is not None else None
    labels = outcome.best_labels
    result = ImpactScoreResult(
        constraints=cons,
        scores=cons.to_given(unique_scores),
        normalized_scores=cons.to_given(normalized),
        tau=setting.tau,
        predicted_erroneous=cons.to_given(predicted),
        lower_bound=outcome.lower_bound,
        upper_bound=outcome.upper_bound,
        lower_is_bound=outcome.lower_is_bound,
        multipliers=mult,
        labels=None if labels is None else np.asarray(labels),
        history=outcome.history,
        status=outcome.status,
        n_iter=outcome.n_iter,
        seconds=time.perf_counter() - start,
        criterion=setting.criterion,
        method=setting.method,
        score_from=setting.score_from,
        detection=detection,
        erroneous=None if truth is None else cons.to_given(truth),
        oracle_multipliers=outcome.best_oracle_multipliers,
    )
    if not result.scored:
        # Say so rather than let a table of zeros pass for a finding.
        warn_user(f"{NOT_SCORED} (status {outcome.status} after {outcome.n_iter} iteration(s)): the "
                  "best multipliers are still the starting 0, so every score is 0 and predicts nothing; "
                  "allow more time or iterations.", ConvergenceWarning)
    return result


class _SetupOutOfTime(Exception):
    """The time limit ran out before the first iteration could start (names the step)."""


def _outcome_without_iterations(problem: ClusteringProblem, route) -> SubgradientOutcome:
    """The result of a run whose time limit ran out in its setup: the start, if any, and no bound."""
    cons = problem.constraints
    return SubgradientOutcome(
        best_multipliers=Multipliers.zeros(cons.n_cl, cons.n_ml, problem.n_clusters),
        lower_bound=-math.inf,
        upper_bound=math.inf if route is None else float(route.initial_upper),
        best_labels=None if route is None else route.initial_labels,
        lower_labels=None, status=Status.TIME_LIMIT, n_iter=0, history=History(), seconds=0.0,
        lower_is_bound=True)


class _RepairBackoff:
    """Skip the repair for 1, 2, 4, ... iterations after each failure (reset on success).

    When the lower-bound solutions are hard to repair, trying every iteration would spend
    the run in Algorithm 2; the paper allows giving up the upper-bound update.
    """

    def __init__(self):
        self.failures = 0
        self.skip = 0

    def should_try(self) -> bool:
        if self.skip > 0:
            self.skip -= 1
            return False
        return True

    def record(self, success: bool) -> None:
        self.failures = 0 if success else self.failures + 1
        self.skip = 0 if success else 2 ** min(self.failures - 1, 10)


@dataclass
class _Route:
    """An oracle with its starting feasible solution and its repair-based upper bound."""

    oracle: object
    initial_upper: float
    initial_labels: np.ndarray
    upper_bound: object
    operator: PairwiseOperator
    distances: np.ndarray | None = None


def _feasible_start(problem: ClusteringProblem, rng, deadline, cost_of, unconstrained_labels, unconstrained_cost):
    """COP-kmeans (Algorithm 1's starting upper bound), or Algorithm 2 on an unconstrained solution.

    Both are kept when both succeed; the cheaper one starts the run. When both fail, a
    colouring of the cannot-link graph, improved by moves that keep it feasible, starts it.

    Raises
    ------
    InfeasibleConstraintsError
        The complete search of Algorithm 2 proved that no labelling satisfies the constraints.
    ClusteringDeadEndError
        Neither found a feasible clustering within its limits, nor did the colourings of
        :func:`~ccopt.constraints.check_feasibility`.
    """
    from ccopt.cluster._cop_kmeans import cop_kmeans_problem

    k = problem.n_clusters
    candidates = []
    cop_message = ""
    try:
        labels = cop_kmeans_problem(problem, rng, Deadline(deadline.budget(10.0)), n_init=5)
        if np.unique(labels).size < k:
            # COP-kmeans may leave a cluster empty (coincident points); a start must be a
            # k-partition. Splitting a cluster never raises either criterion.
            labels = repair_labels(labels, unconstrained_cost, problem.closure, rng).labels
        candidates.append((cost_of(labels), labels))
    except ClusteringDeadEndError as exc:
        cop_message = str(exc)
        logger.info("COP-kmeans found no start (%s); repairing the unconstrained solution", exc)
    repaired = repair_labels(unconstrained_labels, unconstrained_cost, problem.closure, rng,
                             deadline=Deadline(deadline.budget(10.0)))
    if repaired.feasible:
        candidates.append((cost_of(repaired.labels), repaired.labels))
    if not candidates and repaired.infeasible:
        raise no_colouring_error(k)
    if not candidates and deadline.expired():
        raise _SetupOutOfTime("the search for a feasible start")
    if not candidates:
        # Both heuristics can lose their way on many cannot-links (100,000 of them at
        # n = 100,000 defeat both within their limits) where the colourings of
        # check_feasibility still succeed, in a second; their labelling ignores the cost, so
        # a descent that keeps feasibility brings it near the data.
        report = check_feasibility(problem.constraints, k)
        report.raise_if_infeasible()
        if report.labels is None:
            # Algorithm 1 needs the value of a feasible solution for its step; without one
            # the multipliers would become NaN.
            raise ClusteringDeadEndError(
                f"No clustering satisfying the constraints was found to start the subgradient method "
                f"(COP-kmeans: {cop_message}; Algorithm 2: {repaired.message}; the colourings of "
                f"check_feasibility: {report.reason}). The constraints may be infeasible; raise "
                "time_limit or review the cannot-links."
            )
        logger.info("COP-kmeans and Algorithm 2 found no start; descending from a colouring of the cannot-links")
        labels = Repairer(problem.closure).descend(report.labels, unconstrained_cost,
                                                   deadline=Deadline(deadline.budget(10.0)))
        candidates.append((cost_of(labels), labels))
    value, labels = min(candidates, key=lambda pair: pair[0])
    return float(value), labels


def _unconstrained_kmeans(X: np.ndarray, k: int, rng, deadline: Deadline):
    """Best of 10 k-means++ runs without constraints: the lower-bound oracles' first solution."""
    from ccopt.cluster._kmeans import KMeans

    with warnings.catch_warnings():
        # Fewer distinct points than k leave clusters empty; the routes handle that, and the
        # warning would name a KMeans fit the user never asked for.
        warnings.filterwarnings("ignore", message="KMeans ended with", category=ConvergenceWarning)
        # No bar of its own either: impact_scores draws one (or none, with progress=False).
        km = KMeans(n_clusters=k, n_init=10, random_state=int(rng.integers(2**31 - 1)), progress=False,
                    time_limit=positive_limit(deadline.remaining())).fit(X)
    if km.status_ is Status.INTERRUPTED:
        # KMeans keeps its best run on Ctrl-C and returns; the scoring has no result yet, so
        # the interrupt must stop it rather than be spent on this preparatory step.
        raise KeyboardInterrupt
    if deadline.expired():
        raise _SetupOutOfTime("the unconstrained k-means")
    return km


def _mssc_route(problem: ClusteringProblem, setting: _Setting, rng, deadline, repair_time_limit) -> _Route:
    from ccopt.metrics import wcss

    X, k = problem.X, problem.n_clusters
    km = _unconstrained_kmeans(X, k, rng, deadline)
    initial_upper, initial_labels = _feasible_start(
        problem, rng, deadline, lambda labels: wcss(X, labels), km.labels_, squared_distances(X, km.cluster_centers_)
    )
    operator = PairwiseOperator(problem.constraints, setting.epsilon)
    oracle = MSSCLloydOracle(X, operator, km.cluster_centers_)
    repair = Repairer(problem.closure)
    backoff = _RepairBackoff()

    def upper_bound(solution):
        if not backoff.should_try():
            return None
        result = repair(solution.labels, squared_distances(X, oracle.centers), rng,
                        deadline=Deadline(deadline.budget(repair_time_limit)))
        backoff.record(result.feasible)
        return (wcss(X, result.labels), result.labels) if result.feasible else None

    return _Route(oracle, initial_upper, initial_labels, upper_bound, operator)


def pairwise_distances_checked(X: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """Euclidean distance matrix, refusing past the memory bound with a clear message.

    Computed in blocks of rows (each entry as ``cdist(X, X)`` gives it), so that a deadline
    can stop it: at 20,000 objects it alone took 5-17 s, longer than a 5-s limit.
    """
    from scipy.spatial.distance import cdist

    n = X.shape[0]
    check_dense_memory((n, n), what="k-medoids distance matrix")
    distances = np.empty((n, n))
    rows = max(1, 2**22 // max(n, 1))  # 32 MiB a block
    for start in range(0, n, rows):
        if deadline is not None and deadline.expired():
            raise _SetupOutOfTime(f"the distance matrix ({start} of {n} rows)")
        cdist(X[start:start + rows], X, out=distances[start:start + rows])
    return distances


def _kmedoids_route(problem: ClusteringProblem, setting: _Setting, rng, deadline, repair_time_limit) -> _Route:
    X, k = problem.X, problem.n_clusters
    if setting.method == "lagrangian":
        # Before the distance matrix: refused at once, not after k-means and the start.
        check_lagrangian_memory(problem.n_samples, k, problem.constraints.n_cl, problem.constraints.n_ml)
    distances = pairwise_distances_checked(X, deadline)
    finder = MedoidFinder(distances)
    km_labels = _unconstrained_kmeans(X, k, rng, deadline).labels_
    medoids = finder.medoids_and_cost(km_labels)[0]
    if medoids.size < k:
        # k-means leaves clusters empty when there are fewer distinct points than k; the
        # oracles and the repair need k medoids, and coincident objects serve as well.
        spare = np.setdiff1d(np.arange(problem.n_samples), medoids)
        medoids = np.concatenate([medoids, spare[:k - medoids.size]])
    initial_upper, initial_labels = _feasible_start(
        problem, rng, deadline, finder.cost,
        np.argmin(distances[:, medoids], axis=1), distances[:, medoids],
    )
    operator = PairwiseOperator(problem.constraints, setting.epsilon)
    start_medoids = finder.medoids_and_cost(initial_labels)[0] if initial_labels is not None else medoids
    if setting.method == "voronoi":
        oracle = KMedoidsVoronoiOracle(distances, operator, medoids, finder=finder)
    elif setting.method == "lagrangian":
        oracle = KMedoidsLagrangianOracle(distances, k, operator, distances[:, start_medoids].min(axis=1))
    elif setting.method == "lp-dual":
        oracle = None  # one LP solve, no subgradient loop (ccopt.lagrange.lp_routes)
    else:
        from ccopt.lagrange.lp_routes import KMedoidsModelOracle

        oracle = KMedoidsModelOracle(problem, operator, distances, integer=setting.method == "exact",
                                     solver=setting.solver, deadline=deadline)

    repair = Repairer(problem.closure)
    backoff = _RepairBackoff()

    def upper_bound(solution):
        if not backoff.should_try():
            return None
        open_medoids = solution.open_clusters
        if open_medoids is None or open_medoids.size != k:
            open_medoids = np.unique(solution.labels)
            if open_medoids.size != k:
                return None
        cost = distances[:, open_medoids]
        # Algorithm 2 repairs the lower-bound solution itself ("Run R(x)"), each object in the
        # cluster of the medoid that serves it; an object at a medoid that is not open (none
        # of the oracles leaves one) goes to its nearest open medoid.
        position = np.full(distances.shape[0], -1)
        position[open_medoids] = np.arange(k)
        served = position[solution.labels]
        start = served if served.min() >= 0 else np.where(served >= 0, served, np.argmin(cost, axis=1))
        result = repair(start, cost, rng, deadline=Deadline(deadline.budget(repair_time_limit)))
        backoff.record(result.feasible)
        if not result.feasible:
            return None
        return finder.cost(result.labels), result.labels

    return _Route(oracle, initial_upper, initial_labels, upper_bound, operator, distances)


_ROUTES = {"mssc": _mssc_route, "kmedoids": _kmedoids_route}
