"""Row duals of the pairwise rows as Lagrange multipliers, and the impact score (17).

LP duality shortcut. When the lower-bounding step of Algorithm 1 solves the LP
relaxation of (10), the Lagrangian dual (11) equals the LP relaxation of (2)-(5) with the
epsilon rows, and optimal multipliers of (11) are that LP's row duals. So one LP solve with
a ``dual`` Suffix gives multipliers :math:`\\eta, \\lambda, \\gamma` and the scores

.. math::

    \\mathcal{I}_{uv} = \\sum_{q} \\eta_{uv}^q \\ \\ ((u,v) \\in CL), \\qquad
    \\mathcal{I}_{uv} = \\sum_{q} (\\lambda_{uv}^q + \\gamma_{uv}^q) \\ \\ ((u,v) \\in ML)
    \\qquad (17)

Signs: a row dual is :math:`\\partial Z / \\partial \\text{rhs}`; relaxing a binding ``<=``
row of a minimisation cannot raise the optimum, so its dual is ``<= 0`` -- the convention
of (10)-(11). By (12)-(16), the score of a constraint is the rate at which the LP optimum
falls when all its rows are relaxed by ``b`` (for small ``b``, when the LP is
non-degenerate). A degenerate LP has many optimal duals, and solvers differ in the one they
return: on an 8-object instance HiGHS, CBC and GLPK gave one constraint -1.08, -0.32 and
-0.03 with the same LP optimum, and relaxing its rows by ``b = 1e-3`` lowered the optimum
at GLPK's rate. Scores of one LP are comparable; across solvers, only on non-degenerate LPs.

Which row belongs to which multiplier (see :mod:`ccopt.models.lagrangian`): ``eta`` <-
``cl_rows``, ``lam`` <- ``ml_rows_bwd`` (4''), ``gamma`` <- ``ml_rows_fwd`` (4').
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from ccopt._validation import check_time_limit
from ccopt.exceptions import InvalidParameterError, SolverError
from ccopt.models._common import assignment_matrix, assignment_var, check_model
from ccopt.models.kmedoids import build_kmedoids_model
from ccopt.problem import ClusteringProblem
from ccopt.solvers import DEFAULT_RESOLVE_SOLVER, SolveResult, check_solver, solve
from ccopt.status import Status

__all__ = ["LPDuals", "PairwiseDuals", "read_pairwise_duals", "solve_lp_duals"]

# Relative size of a positive dual tolerated as round-off before it is called a sign error.
_SIGN_TOLERANCE = 1e-6


@dataclass(frozen=True)
class PairwiseDuals:
    """Multipliers of the pairwise rows, aligned with a :class:`~ccopt.constraints.Constraints`.

    Attributes
    ----------
    eta : ndarray of float64, shape (n_cl, K)
        Cannot-link multipliers; row ``c`` is the ``c``-th cannot-link, column ``q`` a
        cluster (a candidate medoid in the k-medoids model).
    lam, gamma : ndarray of float64, shape (n_ml, K)
        Must-link multipliers.
    ml_indices, cl_indices : ndarray of int64, shape (n_ml,) and (n_cl,)
        Position of each must-link / cannot-link in the constraints' order.

    All multipliers are ``<= 0``.
    """

    eta: np.ndarray
    lam: np.ndarray
    gamma: np.ndarray
    ml_indices: np.ndarray
    cl_indices: np.ndarray

    @property
    def n_constraints(self) -> int:
        """Number of constraints scored."""
        return int(self.ml_indices.shape[0] + self.cl_indices.shape[0])

    @property
    def scores(self) -> np.ndarray:
        """Impact score (17) of every constraint, in the constraints' order, shape (m,)."""
        out = np.zeros(self.n_constraints)
        out[self.cl_indices] = self.eta.sum(axis=1)
        out[self.ml_indices] = self.lam.sum(axis=1) + self.gamma.sum(axis=1)
        return out

    @classmethod
    def from_row_duals(cls, eta, lam, gamma, ml_indices, cl_indices) -> PairwiseDuals:
        """Check the signs of raw row duals, clip round-off above 0, and wrap them.

        A positive dual no larger than ``1e-6 * max(1, max |dual|)`` of its array is taken
        for round-off and set to 0. Shapes and the alignment of the index arrays with the
        multipliers are not checked here.

        Parameters
        ----------
        eta : array-like of float, shape (n_cl, K)
            Row duals of ``cl_rows``: row ``c`` the ``c``-th cannot-link, column ``q`` a
            cluster (a candidate medoid in the k-medoids model).
        lam : array-like of float, shape (n_ml, K)
            Row duals of ``ml_rows_bwd`` (4'').
        gamma : array-like of float, shape (n_ml, K)
            Row duals of ``ml_rows_fwd`` (4').
        ml_indices : array-like of int, shape (n_ml,)
            Position of each must-link in the constraints' order.
        cl_indices : array-like of int, shape (n_cl,)
            Position of each cannot-link in the constraints' order.

        Returns
        -------
        PairwiseDuals
            The multipliers as float64 arrays, all ``<= 0``, and the indices as int64.

        Raises
        ------
        SolverError
            If a dual is clearly positive (a solver or objective-sense mismatch).
        """
        return cls(_non_positive(np.asarray(eta, dtype=np.float64), "cl_rows"),
                   _non_positive(np.asarray(lam, dtype=np.float64), "ml_rows_bwd"),
                   _non_positive(np.asarray(gamma, dtype=np.float64), "ml_rows_fwd"),
                   np.asarray(ml_indices, dtype=np.int64), np.asarray(cl_indices, dtype=np.int64))

    def multipliers(self) -> dict[str, np.ndarray]:
        """``{"eta": ..., "lam": ..., "gamma": ...}``, ready for :func:`set_multipliers`."""
        return {"eta": self.eta, "lam": self.lam, "gamma": self.gamma}


def _row_duals(suffix, rows, shape: tuple[int, int], name: str) -> np.ndarray:
    values = np.fromiter((suffix.get(row, np.nan) for row in rows.values()), dtype=np.float64,
                         count=shape[0] * shape[1])
    if np.isnan(values).any():
        raise SolverError(
            f"No dual is loaded for some rows of {name}: solve the LP relaxation "
            "(relax=True, which declares the 'dual' Suffix) with an LP solver first."
        )
    return values.reshape(shape)


def _non_positive(values: np.ndarray, name: str) -> np.ndarray:
    """Clip round-off above 0; a clearly positive dual means a sign-convention mismatch."""
    if values.size:
        scale = max(1.0, float(np.abs(values).max()))
        worst = float(values.max())
        if worst > _SIGN_TOLERANCE * scale:
            raise SolverError(
                f"A dual of {name} is positive ({worst:.3g}); for <= rows of a minimisation the "
                "solver must report d(objective)/d(rhs) <= 0. Was the objective maximised?"
            )
    return np.minimum(values, 0.0)


def read_pairwise_duals(model) -> PairwiseDuals:
    """Read the duals of the pairwise rows of a solved LP (the k-medoids LP relaxation).

    Only the k-medoids LP relaxation carries a ``dual`` Suffix: the relaxed MSSC programs
    keep a quadratic or fractional objective, so they are not LPs and get none.

    Parameters
    ----------
    model : ConcreteModel
        Built with ``relax=True`` and pairwise rows (:func:`build_kmedoids_model`), then
        solved by an LP solver through :mod:`ccopt.solvers`.

    Returns
    -------
    PairwiseDuals

    Raises
    ------
    InvalidParameterError
        If ``model`` is not a Pyomo model, or has no pairwise rows or no ``dual`` Suffix.
    SolverError
        If duals are missing (not solved) or have the wrong sign.
    """
    check_model(model)
    suffix = model.component("dual")
    if not isinstance(suffix, pyo.Suffix):
        raise InvalidParameterError(
            "The model has no 'dual' Suffix; build it with relax=True (build_kmedoids_model: the "
            "relaxed MSSC programs are not LPs and get no Suffix)."
        )
    if model.component("cl_rows") is None:
        raise InvalidParameterError("The model has no pairwise rows (built with pairwise='none'?).")
    n_clusters = len(assignment_var(model)[1])
    n_ml, n_cl = len(model.ML), len(model.CL)
    eta = _row_duals(suffix, model.cl_rows, (n_cl, n_clusters), "cl_rows")
    lam = _row_duals(suffix, model.ml_rows_bwd, (n_ml, n_clusters), "ml_rows_bwd")
    gamma = _row_duals(suffix, model.ml_rows_fwd, (n_ml, n_clusters), "ml_rows_fwd")
    ml_indices = np.array([model.ml_index[c] for c in model.ML], dtype=np.int64)
    cl_indices = np.array([model.cl_index[c] for c in model.CL], dtype=np.int64)
    return PairwiseDuals.from_row_duals(eta, lam, gamma, ml_indices, cl_indices)


@dataclass(frozen=True)
class LPDuals:
    """The one-shot route: the epsilon-row LP solved once.

    Attributes
    ----------
    duals : PairwiseDuals
        The multipliers and, through ``duals.scores``, the impact scores (17).
    objective : float
        Optimal value of the LP relaxation (= the LP-relaxed Lagrangian dual (11)).
    x : ndarray of float64, shape (n_samples, n_samples)
        The LP solution ``z[i, j]``.
    solve : SolveResult
    """

    duals: PairwiseDuals
    objective: float
    x: np.ndarray
    solve: SolveResult

    @property
    def scores(self) -> np.ndarray:
        """Impact score (17) per constraint, in the constraints' order."""
        return self.duals.scores


def _require_optimal_lp(result) -> None:
    """Refuse the duals of an LP that was not solved to optimality (they are meaningless).

    Raises
    ------
    SolverError
        ``result.status`` is not optimal.
    """
    if result.status is not Status.OPTIMAL:
        raise SolverError(f"The LP relaxation was not solved to optimality (status {result.status}); "
                          "its duals are not multipliers of (11). Raise the time limit.")


def solve_lp_duals(problem: ClusteringProblem, *, epsilon: float = 0.5, solver: str = DEFAULT_RESOLVE_SOLVER,
                   distances=None, time_limit: float | None = None) -> LPDuals:
    """Solve the k-medoids LP relaxation with the epsilon rows once and read its row duals.

    Parameters
    ----------
    problem : ClusteringProblem
    epsilon : float, default=0.5
        In ]0, 1[.
    solver : str, default="highs_matrix"
        An LP solver that returns duals (``highs_matrix``, ``appsi_highs``, ``highs``,
        ``cbc``, ``glpk``); ``highs_matrix`` hands large models over fastest.
    distances : array-like of shape (n_samples, n_samples), optional
        Dissimilarities (default Euclidean).
    time_limit : float, optional
        Seconds for the solve.

    Returns
    -------
    LPDuals

    Raises
    ------
    SolverNotAvailableError
        Unknown or uninstalled ``solver`` (before the model is built).
    InvalidParameterError
        A bad ``time_limit`` or ``epsilon`` (before the model is built).
    SolverError
        If the LP was not solved to optimality (duals of a non-optimal LP are meaningless).
    """
    # Checked before building: the model has n^2 columns, and a missing solver or a bad time
    # limit should not wait for it (nor be hidden by its memory bound).
    check_solver(solver)
    check_time_limit(time_limit)
    model = build_kmedoids_model(problem, pairwise="epsilon", epsilon=epsilon, relax=True,
                                 distances=distances)
    result = solve(model, solver, time_limit=time_limit)
    _require_optimal_lp(result)
    return LPDuals(read_pairwise_duals(model), float(result.objective), assignment_matrix(model), result)
