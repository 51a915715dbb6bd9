"""Routes of the impact score that solve Pyomo models through :mod:`ccopt.solvers`.

* :class:`KMedoidsModelOracle` — the paper's k-medoids route (Sec. 4.1): the Lagrangian
  relaxation (10) over the p-median model, with the multipliers as mutable Params, re-solved
  on a persistent solver every iteration (LP relaxation, ``method="lp"``), or its integer
  version (``method="exact"``, small instances).
* :func:`lp_dual_outcome` — the one-shot route (``method="lp-dual"``): the LP relaxation
  of (2)-(5) with the epsilon rows solved once; its row duals are optimal multipliers of
  the LP-relaxed Lagrangian dual (DESIGN.md, "LP duality shortcut").
"""

from __future__ import annotations

import math
import time

import numpy as np

from ccopt._timing import Deadline
from ccopt.exceptions import SolverError
from ccopt.lagrange.driver import History, SubgradientOutcome
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import OracleSolution
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["KMedoidsModelOracle", "lp_dual_outcome"]


def _positive(seconds: float | None) -> float | None:
    """A solver time limit: solvers reject 0, so a spent budget becomes a token millisecond."""
    return None if seconds is None else max(seconds, 1e-3)


def _open_medoids(y: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` candidate medoids with the largest ``y`` (all of them when ``y`` is integral)."""
    return np.sort(np.argsort(-np.nan_to_num(y, nan=0.0), kind="stable")[:k])


class KMedoidsModelOracle:
    """Solve the Lagrangian relaxation (10) of the p-median k-medoids model with Pyomo.

    The model is built once (:func:`ccopt.models.build_lagrangian_model`); each call sets
    the multipliers in place (:func:`ccopt.models.set_multipliers`) and re-solves on a
    :class:`ccopt.solvers.PersistentSolver`, which with HiGHS pushes only the changed costs
    and warm-starts the LP from the previous basis. The value is the optimal LP objective,
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
        Pyomo solver name (default ``"highs_matrix"``, HiGHS with the matrix hand-off).
    deadline : Deadline
        Each solve gets the remaining time.
    """

    def __init__(self, problem: ClusteringProblem, operator: PairwiseOperator, distances: np.ndarray, *,
                 integer: bool, solver: str | None, deadline: Deadline):
        from ccopt.models import build_lagrangian_model
        from ccopt.solvers import DEFAULT_RESOLVE_SOLVER, PersistentSolver

        self.model = build_lagrangian_model(problem, base="kmedoids", epsilon=operator.epsilon,
                                            relax=not integer, distances=distances)
        self.solver = PersistentSolver(self.model, solver or DEFAULT_RESOLVE_SOLVER)
        # Read back from the solver each step (PersistentSolver.values): on Iris, writing the
        # solution into the model's 22,650 variables and reading it out again took longer
        # than HiGHS's re-solve.
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

        set_multipliers(self.model, eta=mult.eta, lam=mult.lam, gamma=mult.gamma)
        result = self.solver.solve(time_limit=_positive(self.deadline.remaining()), load=False)
        x = self.solver.values(self._z).reshape(self.op.n_samples, -1)
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
        medoids = _open_medoids(self.solver.values(self._y), self.n_clusters)
        labels = medoids[np.argmax(x[:, medoids], axis=1)]
        return OracleSolution(value, labels, self.op.subgradient(x), is_bound=True, open_clusters=medoids)


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
        An LP solver that returns duals; default ``"highs_matrix"``, the fastest hand-off.
    deadline : Deadline
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
        lp = solve_lp_duals(problem, epsilon=operator.epsilon, solver=solver or DEFAULT_RESOLVE_SOLVER,
                            distances=distances, time_limit=_positive(deadline.remaining()))
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
