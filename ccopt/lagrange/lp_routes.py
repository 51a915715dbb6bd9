"""Routes of the impact score that solve k-medoids programs through :mod:`ccopt.solvers`.

* :class:`KMedoidsModelOracle` — the paper's k-medoids route (Sec. 4.1): the Lagrangian
  relaxation (10) over the p-median model, re-solved with new multipliers every iteration
  (LP relaxation, ``method="lp"``), or its integer version (``method="exact"``, small
  instances).
* :func:`lp_dual_outcome` — the one-shot route (``method="lp-dual"``): the LP relaxation
  of (2)-(5) with the epsilon rows solved once; its row duals are optimal multipliers of
  the LP-relaxed Lagrangian dual (the "LP duality shortcut" of :mod:`ccopt.models.duals`).

With the default solver (``highs_matrix``, :data:`ccopt.solvers.DEFAULT_RESOLVE_SOLVER`)
both build the program as matrices (:class:`ccopt.models.highs_direct.HighsKMedoids`): the
same rows, columns and coefficients as the Pyomo model, and so the same HiGHS solve, without
building and compiling the Pyomo model (a third of an ``lp-dual`` run on control, n = 600).
Any other solver name gets the Pyomo model (:mod:`ccopt.models`), solved by that solver.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ccopt._timing import Deadline, positive_limit
from ccopt.exceptions import SolverError
from ccopt.lagrange.driver import History, SubgradientOutcome
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import OracleSolution
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["KMedoidsModelOracle", "lp_dual_outcome"]


def _open_medoids(y: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` candidate medoids with the largest ``y`` (all of them when ``y`` is integral)."""
    return np.sort(np.argsort(-np.nan_to_num(y, nan=0.0), kind="stable")[:k])


def _is_direct(solver: str | None) -> bool:
    """Whether ``solver`` (None: the default) is the matrix hand-off to HiGHS, which the
    program built as matrices replaces; every other name gets the Pyomo model."""
    from ccopt.solvers import DEFAULT_RESOLVE_SOLVER, MATRIX_SOLVER

    return (solver or DEFAULT_RESOLVE_SOLVER) == MATRIX_SOLVER


class _DirectLagrangian:
    """The Lagrangian (10) as :class:`~ccopt.models.highs_direct.HighsKMedoids` matrices,
    re-solved through the calls the oracle makes to a :class:`ccopt.solvers.PersistentSolver`.

    The multipliers change the costs in one vectorised call (no Params to walk) and HiGHS
    keeps its basis, so an LP re-solve warm-starts as on the Pyomo route.
    """

    def __init__(self, problem: ClusteringProblem, epsilon: float, integer: bool, distances: np.ndarray):
        from ccopt.models.highs_direct import HighsKMedoids

        self.program = HighsKMedoids(problem, epsilon=epsilon, relax=not integer, lagrangian=True,
                                     distances=distances)

    def set_multipliers(self, mult: Multipliers) -> None:
        """Put ``mult`` into the costs (one ``changeColsCost`` call)."""
        self.program.set_multipliers(eta=mult.eta, lam=mult.lam, gamma=mult.gamma)

    def solve(self, *, time_limit: float | None = None, require_solution: bool = True, load: bool = False):
        """As :meth:`PersistentSolver.solve`; ``load`` is accepted for that reason and has
        nothing to load: HiGHS keeps the solution, read with :meth:`assignment`."""
        return self.program.solve(time_limit=time_limit, require_solution=require_solution)

    def assignment(self) -> np.ndarray:
        """``z[i, j]`` of the last solution, shape (n_samples, n_samples)."""
        return self.program.assignment()

    def medoid_indicator(self) -> np.ndarray:
        """``y[j]`` of the last solution, shape (n_samples,)."""
        return self.program.medoid_indicator()


class KMedoidsModelOracle:
    """Solve the Lagrangian relaxation (10) of the p-median k-medoids model.

    The program is built once; each call sets the multipliers in place and re-solves. With
    the default ``highs_matrix`` it is built as matrices
    (:class:`~ccopt.models.highs_direct.HighsKMedoids` with ``lagrangian=True``), whose
    multipliers change the costs in one call; with any other solver it is the Pyomo model
    (:func:`ccopt.models.build_lagrangian_model`, multipliers as mutable Params set by
    :func:`ccopt.models.set_multipliers`) on a :class:`ccopt.solvers.PersistentSolver`.
    With HiGHS (the matrices, ``highs_matrix`` or ``appsi_highs`` on the Pyomo model) a
    re-solve gets only the changed costs and warm-starts the LP from the previous basis; the
    matrices are the Pyomo model's rows, columns and coefficients in the same order, so
    HiGHS returns the same solutions on both. The value is the optimal LP objective,
    or the MIP's proven dual bound; a solve that proves none (an LP cut short by the time
    limit, a MIP without a dual bound) gives ``-inf``, a trivial bound.

    Parameters
    ----------
    problem : ClusteringProblem
    operator : PairwiseOperator
    distances : ndarray of shape (n_samples, n_samples)
    integer : bool
        Binary ``z, y`` (the exact Lagrangian subproblem) instead of the LP relaxation.
    solver : str or None
        Pyomo solver name (default ``"highs_matrix"``, HiGHS with the matrix hand-off,
        which builds the program as matrices; any other name builds the Pyomo model).
    deadline : Deadline
        Each solve gets the remaining time (setting the multipliers counts against it).

    Attributes
    ----------
    model : pyomo.environ.ConcreteModel or None
        The Pyomo model; None for the program built as matrices.
    solver : PersistentSolver or object
        What :meth:`solve` re-solves through (``solve(time_limit=..., load=False)``).
    """

    def __init__(self, problem: ClusteringProblem, operator: PairwiseOperator, distances: np.ndarray, *,
                 integer: bool, solver: str | None, deadline: Deadline):
        from ccopt.models import build_lagrangian_model
        from ccopt.solvers import DEFAULT_RESOLVE_SOLVER, PersistentSolver

        if _is_direct(solver):
            self.model = None
            self.solver = _DirectLagrangian(problem, operator.epsilon, integer, distances)
        else:
            self.model = build_lagrangian_model(problem, base="kmedoids", epsilon=operator.epsilon,
                                                relax=not integer, distances=distances)
            self.solver = PersistentSolver(self.model, solver or DEFAULT_RESOLVE_SOLVER)
            # Read back from the solver each step (PersistentSolver.values): on Iris, writing
            # the solution into the model's 22,650 variables and reading it out again took
            # longer than HiGHS's re-solve.
            self._z = tuple(self.model.z.values())  # (object, medoid) row-major
            self._y = tuple(self.model.y[j] for j in self.model.J)
        self.op = operator
        self.integer = integer
        self.n_clusters = problem.n_clusters
        self.deadline = deadline
        self.extra: dict[str, np.ndarray] = {}
        self.is_exact = True

    @property
    def n_index(self) -> int:
        """Number of cluster indices of the multipliers (``n``: candidate medoids)."""
        return self.op.n_samples

    def solve(self, mult: Multipliers) -> OracleSolution:
        from ccopt.models import set_multipliers

        direct = self.model is None
        if direct:
            self.solver.set_multipliers(mult)
        else:
            set_multipliers(self.model, eta=mult.eta, lam=mult.lam, gamma=mult.gamma)
        result = self.solver.solve(time_limit=positive_limit(self.deadline.remaining()), load=False)
        x = self.solver.assignment() if direct else self.solver.values(self._z).reshape(self.op.n_samples, -1)
        if np.isnan(x).any():
            raise SolverError(f"The solver {result.solver!r} returned no value for some z[i, j].")
        # Without a proven value: -inf, a trivial bound, so the driver keeps its best proven
        # bound and makes no step. The solution's own value lies above the minimum of (10):
        # kept as the best, it would replace the run's proven bounds.
        if self.integer:
            # Only the dual bound is proven: "optimal" means within the solver's relative MIP
            # gap (HiGHS: 1e-4), so the incumbent can lie above the minimum of (10). A solver
            # that reports no bound gets the incumbent as one from ccopt.solvers only when no
            # gap was allowed; otherwise there is no bound.
            value = float(result.bound) if result.bound is not None else -math.inf
        else:
            # Only an optimal LP's objective is the minimum: an LP cut short by the time limit
            # stops at a feasible point of (10) (ccopt.solvers may even report that point's
            # objective as its bound).
            value = float(result.objective) if result.status is Status.OPTIMAL else -math.inf
        y = self.solver.medoid_indicator() if direct else self.solver.values(self._y)
        medoids = _open_medoids(y, self.n_clusters)
        labels = medoids[np.argmax(x[:, medoids], axis=1)]
        return OracleSolution(value, labels, self.op.subgradient(x), is_bound=True, open_clusters=medoids)


def _direct_lp_duals(problem: ClusteringProblem, epsilon: float, distances: np.ndarray, deadline: Deadline):
    """:func:`ccopt.models.solve_lp_duals` on the program built as matrices, for ``highs_matrix``.

    The same LP, so the same HiGHS solve, objective, duals and solution, without the Pyomo
    model (whose build and compilation took 1.9 s and 2.0 s of a 14.6 s run on control,
    n = 600). The time limit
    is read after the build, so the build counts against the deadline (on the Pyomo route
    only the compilation does).

    Returns
    -------
    LPDuals

    Raises
    ------
    SolverError
        As :func:`ccopt.models.solve_lp_duals`: no solution, or not solved to optimality.
    """
    from ccopt.models.duals import LPDuals, _require_optimal_lp
    from ccopt.models.highs_direct import HighsKMedoids
    from ccopt.solvers import MATRIX_SOLVER, check_solver

    check_solver(MATRIX_SOLVER)  # a missing highspy is named before the n^2 columns are built
    program = HighsKMedoids(problem, pairwise="epsilon", epsilon=epsilon, relax=True, distances=distances)
    result = program.solve(time_limit=positive_limit(deadline.remaining()))
    _require_optimal_lp(result)
    return LPDuals(program.pairwise_duals(), float(result.objective), program.assignment(), result)


def lp_dual_outcome(problem: ClusteringProblem, operator: PairwiseOperator, distances: np.ndarray, *,
                    solver: str | None, deadline: Deadline, upper_bound, initial_upper: float,
                    initial_labels, f1_of=None, gap_tol: float = 1e-4) -> SubgradientOutcome:
    """One LP solve instead of the subgradient loop: duals of the epsilon rows as multipliers.

    Parameters
    ----------
    problem : ClusteringProblem
    operator : PairwiseOperator
    distances : ndarray of shape (n_samples, n_samples)
    solver : str or None
        An LP solver that returns duals; default ``"highs_matrix"``, the fastest hand-off,
        which builds the LP as matrices (:class:`~ccopt.models.highs_direct.HighsKMedoids`);
        any other name solves the Pyomo model (:func:`ccopt.models.solve_lp_duals`).
    deadline : Deadline
        The LP solve gets the remaining time; with ``highs_matrix`` after the LP is built.
    upper_bound : callable
        The repair routine applied to the LP solution.
    initial_upper : float
    initial_labels : ndarray or None
    f1_of : callable, optional
        Multipliers -> F1 of the predicted erroneous constraints (history column ``f1``, as
        in :func:`~ccopt.lagrange.driver.run_subgradient`).
    gap_tol : float, default=1e-4
        Relative gap up to which the result is called ``optimal``.

    Returns
    -------
    SubgradientOutcome
        With one history row; ``status`` is ``optimal`` when the gap between the LP bound and
        the repaired clustering is within ``gap_tol``, ``converged`` otherwise (the LP dual is
        solved exactly either way). When
        the deadline runs out before the LP is solved, ``status`` is ``time_limit``, as for the
        routes that stop before their first iteration: no history row, no lower bound, zero
        multipliers, and the starting feasible solution as the upper bound.

    Raises
    ------
    SolverError
        The LP was not solved to optimality for another reason than the deadline.
    """
    from ccopt.models import solve_lp_duals
    from ccopt.solvers import DEFAULT_RESOLVE_SOLVER

    start = time.perf_counter()
    try:
        if _is_direct(solver):
            lp = _direct_lp_duals(problem, operator.epsilon, distances, deadline)
        else:
            lp = solve_lp_duals(problem, epsilon=operator.epsilon, solver=solver or DEFAULT_RESOLVE_SOLVER,
                                distances=distances, time_limit=positive_limit(deadline.remaining()))
    except SolverError:
        # The solver had the remaining time, so a stop on it leaves the deadline expired;
        # impact_scores promises the best result so far, marked time_limit, not an error.
        if not deadline.expired():
            raise
        constraints = problem.constraints
        return SubgradientOutcome(
            best_multipliers=Multipliers.zeros(constraints.n_cl, constraints.n_ml, problem.n_samples),
            lower_bound=-math.inf, upper_bound=float(initial_upper), best_labels=initial_labels,
            lower_labels=None, status=Status.TIME_LIMIT, n_iter=0, history=History(),
            seconds=time.perf_counter() - start, lower_is_bound=True)
    duals = lp.duals
    mult = Multipliers(np.array(duals.eta), np.array(duals.lam), np.array(duals.gamma))
    x = np.asarray(lp.x)
    k = problem.n_clusters
    medoids = np.sort(np.argsort(-np.diag(x), kind="stable")[:k])  # z[j, j] = y[j]
    labels = medoids[np.argmax(x[:, medoids], axis=1)]
    candidate = upper_bound(OracleSolution(lp.objective, labels, operator.subgradient(x), open_clusters=medoids))
    upper, best_labels = initial_upper, initial_labels
    if candidate is not None and candidate[0] < upper:
        upper, best_labels = candidate
    history = History()
    seconds = time.perf_counter() - start
    gap = (upper - lp.objective) / max(1e-12, abs(upper)) if math.isfinite(upper) else math.inf
    history.append(iteration=1, lower_bound=lp.objective, best_lower_bound=lp.objective, upper_bound=upper,
                   gap=gap, step=0.0, seconds=seconds, **({"f1": f1_of(mult)} if f1_of is not None else {}))
    if not math.isfinite(lp.objective):
        raise SolverError("The LP relaxation returned no objective value.")
    # The LP's multipliers are the best the relaxation offers, but the bounds are proven only
    # as close as the gap says: "optimal" is kept for a gap within tolerance, as on every route.
    status = Status.OPTIMAL if gap <= gap_tol else Status.CONVERGED
    return SubgradientOutcome(best_multipliers=mult, lower_bound=float(lp.objective), upper_bound=float(upper),
                              best_labels=best_labels, lower_labels=labels, status=status, n_iter=1,
                              history=history, seconds=seconds, lower_is_bound=True)
