"""The k-medoids program built directly as sparse matrices and passed to highspy.

The same program as :func:`ccopt.models.build_kmedoids_model` -- same rows in the same
order, same columns (``z`` row-major, then ``y``), same coefficients -- assembled with
numpy in a few hundred milliseconds at ``n = 500`` instead of being built in Pyomo and
handed over row by row. It serves the routes of the impact-score driver that solve many
LPs of one structure:

* the one-shot LP with the epsilon rows, whose row duals are the multipliers
  (:meth:`HighsKMedoids.pairwise_duals`);
* the Lagrangian relaxation (10) (``lagrangian=True``): the pairwise rows are left out and
  :meth:`HighsKMedoids.set_multipliers` changes the costs in one ``changeColsCost`` call,
  after which an LP re-solve warm-starts from the previous basis.

Cost of (10) per column, for a cannot-link ``(u, v)`` and medoid ``j``: ``-eta[c, j]`` on
``z[u, j]`` and ``z[v, j]``, constant ``(1 + epsilon) eta[c, j]``; for a must-link:
``lam - gamma`` on ``z[u, j]``, ``gamma - lam`` on ``z[v, j]``, constant
``epsilon (lam + gamma)`` (see :mod:`ccopt.models.lagrangian` for which row each multiplier
belongs to).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ccopt._validation import check_bool
from ccopt.config import check_dense_memory
from ccopt.exceptions import InvalidParameterError
from ccopt.models._common import (
    ModelData,
    check_distances,
    check_pairwise,
    check_problem,
    distance_matrix,
    refuse_proven_infeasible,
)
from ccopt.models.duals import PairwiseDuals
from ccopt.models.lagrangian import check_multipliers
from ccopt.problem import ClusteringProblem
from ccopt.solvers import HighsMatrixSolver, SolveResult, SolverOptions

__all__ = ["HighsKMedoids", "KMedoidsMatrices", "kmedoids_matrices"]

# Resident bytes per object-medoid pair once the LP is solved: the matrices and HiGHS's
# working copies of them (2.2 kB measured at n = 300), rounded up.
_BYTES_PER_ENTRY = 2560


@dataclass(frozen=True)
class KMedoidsMatrices:
    """The k-medoids program in matrix form: ``row_lower <= A x <= row_upper``.

    Attributes
    ----------
    cost : ndarray, shape (n^2 + n,)
        ``d[i, j]`` for ``z[i, j]`` (column ``i n + j``), 0 for ``y[j]`` (column ``n^2 + j``).
    A : scipy.sparse.csc_array, shape (n_rows, n^2 + n)
    row_lower, row_upper : ndarray, shape (n_rows,)
    integrality : ndarray of bool, shape (n^2 + n,)
    rows : dict of str to slice
        Row block of each constraint family, named as the Pyomo components (``assign``,
        ``link``, ``n_medoids``, ``size_min``, ``size_max``, ``cl_rows``, ``ml_rows_fwd``,
        ``ml_rows_bwd``); a pairwise block is ordered (constraint, medoid), row-major.
    ml, cl : ndarray of int64, shape (n_ml, 2), (n_cl, 2)
    ml_indices, cl_indices : ndarray of int64
        Positions of the pairs in the constraints' order.
    epsilon : float
    pairwise_rows : bool
        Whether the pairwise rows are in ``A``.
    """

    cost: np.ndarray
    A: sp.csc_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    integrality: np.ndarray
    rows: dict
    ml: np.ndarray
    cl: np.ndarray
    ml_indices: np.ndarray
    cl_indices: np.ndarray
    epsilon: float
    pairwise_rows: bool


def kmedoids_matrices(problem: ClusteringProblem, *, pairwise: str = "epsilon", epsilon: float = 0.5,
                      relax: bool = True, distances=None) -> KMedoidsMatrices:
    """Assemble the k-medoids program of :func:`ccopt.models.build_kmedoids_model` as matrices.

    Parameters
    ----------
    problem : ClusteringProblem
    pairwise : {"epsilon", "exact", "none"}, default="epsilon"
    epsilon : float, default=0.5
    relax : bool, default=True
        Continuous columns (LP) instead of binaries.
    distances : array-like of shape (n_samples, n_samples), optional

    Returns
    -------
    KMedoidsMatrices

    Raises
    ------
    InvalidParameterError, InvalidDataError, MemoryBudgetError, InfeasibleConstraintsError
        As :func:`ccopt.models.build_kmedoids_model`: the last with ``relax=False`` and
        pairwise rows, when the constraints provably admit no labelling.
    """
    data = ModelData.from_problem(problem, pairwise, epsilon)
    return _matrices(data, check_bool(relax, "relax"), distances)


def _matrices(data: ModelData, relax: bool, distances) -> KMedoidsMatrices:
    problem = data.problem
    # As build_kmedoids_model: HiGHS would only report "infeasible", without the certificate.
    if not relax and data.rows:
        refuse_proven_infeasible(problem)
    n, k = problem.n_samples, problem.n_clusters
    check_dense_memory((n, n), itemsize=_BYTES_PER_ENTRY, what="k-medoids program for highspy")
    dist = (distance_matrix(problem.X, what="k-medoids distance matrix") if distances is None
            else check_distances(distances, n))
    cons = problem.constraints
    ml, cl = cons.ml_pairs, cons.cl_pairs
    n2 = n * n
    j_all = np.arange(n)
    z_cols = np.arange(n2)

    blocks_r, blocks_c, blocks_v, lower, upper, rows = [], [], [], [], [], {}
    n_rows = 0

    def add(name, r, c, v, lo, up, count):
        nonlocal n_rows
        blocks_r.append(r + n_rows)
        blocks_c.append(c)
        blocks_v.append(v)
        lower.append(np.broadcast_to(np.asarray(lo, dtype=np.float64), (count,)))
        upper.append(np.broadcast_to(np.asarray(up, dtype=np.float64), (count,)))
        rows[name] = slice(n_rows, n_rows + count)
        n_rows += count

    # assign[i]: sum_j z[i, j] = 1
    add("assign", np.repeat(np.arange(n), n), z_cols, np.ones(n2), 1.0, 1.0, n)
    # link[i, j]: z[i, j] - y[j] <= 0, with equality on the diagonal
    link = np.arange(n2)
    diagonal = np.where(link // n == link % n, 0.0, -np.inf)
    add("link", np.concatenate([link, link]), np.concatenate([z_cols, n2 + link % n]),
        np.concatenate([np.ones(n2), -np.ones(n2)]), diagonal, 0.0, n2)
    # n_medoids: sum_j y[j] = k
    add("n_medoids", np.zeros(n, dtype=np.int64), n2 + j_all, np.ones(n), k, k, 1)
    # size_min[j], size_max[j]: min_size y[j] <= sum_i z[i, j] <= max_size y[j]
    for name, bound, lo, up in (("size_min", problem.min_size or 0, 0.0, np.inf),
                                ("size_max", problem.max_size or n, -np.inf, 0.0)):
        if (name == "size_min" and bound > 0) or (name == "size_max" and bound < n):
            add(name, np.concatenate([z_cols % n, j_all]), np.concatenate([z_cols, n2 + j_all]),
                np.concatenate([np.ones(n2), np.full(n, -float(bound))]), lo, up, n)
        else:
            rows[name] = slice(n_rows, n_rows)
    if data.rows:
        eps = data.epsilon
        for name, pairs, signs, rhs in (("cl_rows", cl, (1.0, 1.0), 1.0 + eps),
                                        ("ml_rows_fwd", ml, (1.0, -1.0), eps),
                                        ("ml_rows_bwd", ml, (-1.0, 1.0), eps)):
            count = pairs.shape[0] * n
            r = np.arange(count)
            cols_u = (pairs[:, 0:1] * n + j_all).ravel()
            cols_v = (pairs[:, 1:2] * n + j_all).ravel()
            add(name, np.concatenate([r, r]), np.concatenate([cols_u, cols_v]),
                np.concatenate([np.full(count, signs[0]), np.full(count, signs[1])]), -np.inf, rhs, count)
    else:
        for name in ("cl_rows", "ml_rows_fwd", "ml_rows_bwd"):
            rows[name] = slice(n_rows, n_rows)

    A = sp.csc_array((np.concatenate(blocks_v), (np.concatenate(blocks_r), np.concatenate(blocks_c))),
                     shape=(n_rows, n2 + n))
    return KMedoidsMatrices(
        cost=np.concatenate([dist.ravel(), np.zeros(n)]), A=A,
        row_lower=np.concatenate(lower), row_upper=np.concatenate(upper),
        integrality=np.full(n2 + n, not relax), rows=rows, ml=ml, cl=cl,
        ml_indices=cons.ml_indices, cl_indices=cons.cl_indices, epsilon=data.epsilon,
        pairwise_rows=data.rows)


class HighsKMedoids:
    """The k-medoids program (or its Lagrangian (10)) in highspy, built once, re-solvable.

    Parameters
    ----------
    problem : ClusteringProblem
    pairwise : {"epsilon", "exact", "none"}, default="epsilon"
        Pairwise rows of the program (ignored with ``lagrangian=True``).
    epsilon : float, default=0.5
        In ]0, 1[.
    relax : bool, default=True
        The LP relaxation (needed for duals and for the warm-started re-solves).
    lagrangian : bool, default=False
        Build (10): no pairwise rows; the multipliers enter the costs
        (:meth:`set_multipliers`, all 0 at the start).
    distances : array-like of shape (n_samples, n_samples), optional
    options : SolverOptions, optional
        ``time_limit``, ``mip_gap``, ``threads``, ``tee`` and HiGHS options in ``extra``.

    Raises
    ------
    InvalidParameterError, InvalidDataError, MemoryBudgetError, InfeasibleConstraintsError
        As :func:`kmedoids_matrices`; also ``lagrangian`` not a bool. The Lagrangian program
        has no pairwise rows, so it is built whatever the constraints.

    Attributes
    ----------
    matrices : KMedoidsMatrices
    solver : ccopt.solvers.HighsMatrixSolver

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt import ClusteringProblem
    >>> from ccopt.models.highs_direct import HighsKMedoids
    >>> X = np.array([[0.0], [0.2], [5.0], [5.3]])
    >>> program = HighsKMedoids(ClusteringProblem.create(X, 2, cl=[(0, 1)]))
    >>> round(program.solve().objective, 6)
    0.5
    >>> program.pairwise_duals().eta.shape
    (1, 4)
    """

    def __init__(self, problem: ClusteringProblem, *, pairwise: str = "epsilon", epsilon: float = 0.5,
                 relax: bool = True, lagrangian: bool = False, distances=None,
                 options: SolverOptions | None = None):
        lagrangian = check_bool(lagrangian, "lagrangian")
        relax = check_bool(relax, "relax")
        if lagrangian:
            # pairwise is ignored here: (10) always relaxes the epsilon rows.
            hint = ("lagrangian=True relaxes the epsilon rows; for the exact rows use "
                    "lagrangian=False, pairwise='exact'")
            data = ModelData(check_problem(problem), check_pairwise("epsilon", epsilon, hint=hint), rows=False)
        else:
            data = ModelData.from_problem(problem, pairwise, epsilon)
        self.problem = data.problem
        self.lagrangian = lagrangian
        self.matrices = mats = _matrices(data, relax, distances)
        n = self.n_samples
        n_cols = mats.cost.shape[0]
        self.solver = HighsMatrixSolver(
            mats.cost, mats.A, mats.row_lower, mats.row_upper, np.zeros(n_cols), np.ones(n_cols),
            integrality=mats.integrality, options=options, name="highs_direct")
        self._multipliers = {"eta": np.zeros((mats.cl.shape[0], n)),
                             "lam": np.zeros((mats.ml.shape[0], n)),
                             "gamma": np.zeros((mats.ml.shape[0], n))}

    @property
    def n_samples(self) -> int:
        """Number of objects."""
        return self.problem.n_samples

    def solve(self, *, time_limit: float | None = None, require_solution: bool = True) -> SolveResult:
        """Solve the program as it is now (see :meth:`HighsMatrixSolver.solve`).

        Parameters
        ----------
        time_limit : float, optional
            Seconds for this solve; default the ``time_limit`` of the constructor's
            ``options``. ``inf`` means no limit for this solve.
        require_solution : bool, default=True
            Raise :class:`~ccopt.exceptions.SolverError` when no solution was found.

        Returns
        -------
        SolveResult
            With ``solver="highs_direct"``. The solution is then read with
            :meth:`assignment`, :meth:`labels` and :meth:`pairwise_duals`.

        Raises
        ------
        InvalidParameterError
            A bad ``time_limit``.
        SolverError
            No solution was found and ``require_solution`` is True.
        KeyboardInterrupt
            When Ctrl-C stopped the run (HiGHS is stopped cleanly first).
        """
        return self.solver.solve(time_limit=time_limit, require_solution=require_solution)

    def assignment(self) -> np.ndarray:
        """``z[i, j]`` of the last solution, shape (n_samples, n_samples)."""
        n = self.n_samples
        return self.solver.col_value[: n * n].reshape(n, n)

    def medoid_indicator(self) -> np.ndarray:
        """``y[j]`` of the last solution, shape (n_samples,)."""
        n = self.n_samples
        return self.solver.col_value[n * n:]

    def labels(self) -> tuple[np.ndarray, np.ndarray]:
        """Labels and medoids of the last solution, as :func:`ccopt.models.kmedoids_labels`."""
        medoids, labels = np.unique(np.argmax(self.assignment(), axis=1), return_inverse=True)
        return labels.astype(np.int64), medoids.astype(np.int64)

    def pairwise_duals(self) -> PairwiseDuals:
        """Row duals of the pairwise rows of the last LP solution (see :mod:`ccopt.models.duals`).

        Raises
        ------
        InvalidParameterError
            For the Lagrangian program or ``pairwise="none"`` (no pairwise rows).
        SolverError
            For a MIP, before a solve, or on a sign mismatch.
        """
        mats = self.matrices
        if not mats.pairwise_rows:
            raise InvalidParameterError("This program has no pairwise rows to read duals from "
                                        "(lagrangian=True or pairwise='none').")
        duals, n = self.solver.row_dual, self.n_samples

        def block(name, count):
            return duals[mats.rows[name]].reshape(count, n)

        return PairwiseDuals.from_row_duals(
            block("cl_rows", len(mats.cl)), block("ml_rows_bwd", len(mats.ml)),
            block("ml_rows_fwd", len(mats.ml)), mats.ml_indices, mats.cl_indices)

    def set_multipliers(self, eta=None, lam=None, gamma=None) -> None:
        """Set the multipliers of (10) and push the new costs to HiGHS in one call.

        Parameters
        ----------
        eta : array-like of float, shape (n_cl, n_samples), optional
        lam, gamma : array-like of float, shape (n_ml, n_samples), optional
            ``None`` keeps the current values. All must be ``<= 0``.

        Raises
        ------
        InvalidParameterError
            Not a Lagrangian program, wrong shape, non-finite or positive values; nothing
            is changed then.
        """
        if not self.lagrangian:
            raise InvalidParameterError("set_multipliers needs HighsKMedoids(..., lagrangian=True).")
        mats, n = self.matrices, self.n_samples
        # All checked before any is kept: after an error the multipliers stay those whose
        # costs HiGHS has. Copies: "None keeps the current values" must not follow later
        # in-place changes of the caller's array (unchecked, possibly positive).
        checked = {name: check_multipliers(values, (count, n), name).copy()
                   for name, values, count in (("eta", eta, len(mats.cl)), ("lam", lam, len(mats.ml)),
                                               ("gamma", gamma, len(mats.ml)))
                   if values is not None}
        self._multipliers.update(checked)
        eta, lam, gamma = (self._multipliers[key] for key in ("eta", "lam", "gamma"))
        cost = mats.cost.copy()
        columns = np.arange(n)
        np.add.at(cost, (mats.cl[:, 0:1] * n + columns).ravel(), -eta.ravel())
        np.add.at(cost, (mats.cl[:, 1:2] * n + columns).ravel(), -eta.ravel())
        np.add.at(cost, (mats.ml[:, 0:1] * n + columns).ravel(), (lam - gamma).ravel())
        np.add.at(cost, (mats.ml[:, 1:2] * n + columns).ravel(), (gamma - lam).ravel())
        offset = (1.0 + mats.epsilon) * eta.sum() + mats.epsilon * (lam.sum() + gamma.sum())
        self.solver.set_costs(cost, offset=float(offset))
