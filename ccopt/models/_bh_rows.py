"""BH-kmeans' program P over a subset of units: as a Pyomo model, or as matrices for HiGHS.

:class:`~ccopt.models.bh_assignment.BHAssignmentProgram` re-solves up to two programs every
step: the full P (constrained units and slots) and, when it decomposes, P without row (3)
over the components too large to enumerate. Their structure is fixed by the constraints;
the centres change only numbers (distances, ``M``, row (3)'s right-hand sides, the
constant). Two interchangeable classes hold one such program:

* :class:`PyomoRows` builds it in Pyomo and re-solves it through
  :class:`ccopt.solvers.PersistentSolver`, with any solver;
* :class:`MatrixRows` assembles the same columns and rows with numpy and hands them to
  :class:`ccopt.solvers.HighsMatrixSolver` (``solver="highs_matrix"``, BH-kmeans'
  default). On Letter with 3 candidate centres (254,000 columns, 332,000 rows), building
  and compiling the Pyomo program took 18 s, longer than HiGHS's 23 solves (15 s); with
  the matrices the fit took 12 s instead of 40 s. Its Pyomo twin is built only when asked
  for (:attr:`MatrixRows.model`). With ``cuts_after`` it also strengthens the program by
  clique rows when a solve runs long (:mod:`ccopt.models._bh_cuts`); the twin does not
  carry those rows. A time-limited MIP solve with ``_ISOLATE_FROM`` or more free binaries
  runs in a child process that is stopped shortly after its limit
  (:class:`~ccopt.solvers.HighsMatrixSolver`'s ``isolate_from``): HiGHS 1.16 spent 300 s
  in a root heuristic that does not read the clock (central rounding) on such a program at
  100,000 objects (123,000 binaries, limit 60 s), and the fit of 120 s took 354 s. The
  threshold errs on the safe side: the child costs about 0.3 s per solve, and the largest
  root measured to end quickly had 61,000 binaries (50,000 objects, 9 s).

Both lay the program out in the order the Pyomo model compiles to (a test checks that the
matrices agree entry by entry): columns ``x[r, j]`` row-major, then ``y`` (one per soft
cannot-link), then ``z`` (one per soft must-link); rows (2) per program row, (3) per
cluster when asked for, (4) per soft cannot-link and cluster, (5) per soft must-link and
cluster, the hard cannot-link and must-link rows per pair and cluster, then the minimum-
and maximum-size rows per cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from pyomo.common.gc_manager import PauseGC
from pyomo.core.expr.numeric_expr import LinearExpression

from ccopt._params import write_values
from ccopt.models._bh_cuts import CliqueRowStrengthening
from ccopt.solvers import HighsMatrixSolver, PersistentSolver, SolveResult, SolverOptions

# Free binaries from which a time-limited MIP solve of MatrixRows runs in a child process that
# can be stopped (module docstring). Untimed solves never do.
_ISOLATE_FROM = 20_000


@dataclass(frozen=True)
class ProgramPairs:
    """The pairs and sizes of one program, in program rows (``units[r]`` is row ``r``)."""

    n_rows: int
    soft_cl: np.ndarray   # (C, 2) program rows
    w_cl: np.ndarray      # (C,)
    soft_ml: np.ndarray   # (L, 2)
    w_ml: np.ndarray      # (L,)
    hard_cl: np.ndarray   # (H, 2)
    hard_ml: np.ndarray   # (G, 2)
    sizes: np.ndarray | None  # objects per row, when the plan has size bounds

    @classmethod
    def select(cls, plan, units: np.ndarray, n_slots: int) -> ProgramPairs:
        """The pairs of ``plan`` with both units among ``units`` (slots carry no pairs)."""
        row_of_unit = np.full(plan.n_units, -1, dtype=np.int64)
        row_of_unit[units] = np.arange(units.size)

        def keep(pairs, weights=None):
            if pairs.shape[0] == 0:
                return pairs.reshape(0, 2), (None if weights is None else weights[:0])
            rows = row_of_unit[pairs]
            inside = (rows >= 0).all(axis=1)
            return rows[inside], (None if weights is None else weights[inside])

        soft_cl, w_cl = keep(plan.soft_cl, plan.soft_cl_weight)
        soft_ml, w_ml = keep(plan.soft_ml, plan.soft_ml_weight)
        hard_cl, _ = keep(plan.hard_cl)
        hard_ml, _ = keep(plan.hard_ml)
        sizes = plan.unit_sizes[units].astype(np.float64) if plan.sized else None
        return cls(int(units.size) + n_slots, soft_cl, np.asarray(w_cl, dtype=np.float64),
                   soft_ml, np.asarray(w_ml, dtype=np.float64), hard_cl, hard_ml, sizes)


class PyomoRows:
    """One program as a Pyomo model, re-solved through :class:`~ccopt.solvers.PersistentSolver`.

    Parameters
    ----------
    plan : BHAssignmentPlan
    units : ndarray of int
        The units with a program row, in row order; ``n_slots`` slot rows follow.
    n_slots : int
    nonempty : bool
        Include row (3).
    penalty : float
    name : str
    solver : str
    options : SolverOptions
    """

    def __init__(self, plan, units: np.ndarray, n_slots: int, *, nonempty: bool, penalty: float,
                 name: str, solver: str, options: SolverOptions):
        pairs = ProgramPairs.select(plan, units, n_slots)
        self.n_rows, self._k = pairs.n_rows, plan.n_clusters
        self._solver_name, self._options = solver, options
        with PauseGC():  # see kmedoids.build_from_data: 2.5x faster at 5 x 10^5 rows
            self.model = self._build(plan, pairs, nonempty=nonempty, penalty=penalty, name=name)
        self.solver: PersistentSolver | None = None
        self._forbidden = np.zeros(len(self.x_flat), dtype=bool)

    def _build(self, plan, pairs: ProgramPairs, *, nonempty, penalty, name) -> pyo.ConcreteModel:
        k, n_rows = plan.n_clusters, self.n_rows
        m = pyo.ConcreteModel(name=name)
        m.R = pyo.RangeSet(0, n_rows - 1)
        m.K = pyo.RangeSet(0, k - 1)
        m.x = pyo.Var(m.R, m.K, domain=pyo.Binary)
        m.d = pyo.Param(m.R, m.K, mutable=True, initialize=0.0)
        m.M = pyo.Param(mutable=True, initialize=0.0, within=pyo.NonNegativeReals)
        m.p = pyo.Param(mutable=True, initialize=penalty, within=pyo.NonNegativeReals)
        m.offset = pyo.Param(mutable=True, initialize=0.0)
        m.w_const = pyo.Param(initialize=plan.constant_weight)
        n_cl, n_ml = pairs.soft_cl.shape[0], pairs.soft_ml.shape[0]
        m.CL = pyo.RangeSet(0, n_cl - 1)
        m.ML = pyo.RangeSet(0, n_ml - 1)
        m.y = pyo.Var(m.CL, domain=pyo.NonNegativeReals)
        m.z = pyo.Var(m.ML, domain=pyo.NonNegativeReals)
        m.w_cl = pyo.Param(m.CL, initialize=dict(enumerate(pairs.w_cl.tolist())))
        m.w_ml = pyo.Param(m.ML, initialize=dict(enumerate(pairs.w_ml.tolist())))

        # Flat sequences in (row, cluster) order: setting Params and reading x then needs no
        # index look-ups, which dominate at 10^5 variables. A tuple, so that the solver can
        # keep the column positions it reads the solution from (PersistentSolver.values).
        x = m.x
        self.x_flat = tuple(x[r, j] for r in range(n_rows) for j in range(k))
        self.d_flat = [m.d[r, j] for r in range(n_rows) for j in range(k)]
        m.objective = pyo.Objective(
            expr=LinearExpression(
                constant=m.offset + m.M * m.p * m.w_const,
                linear_coefs=self.d_flat + [m.M * m.p * m.w_cl[c] for c in range(n_cl)]
                + [m.M * m.p * m.w_ml[c] for c in range(n_ml)],
                linear_vars=[*self.x_flat, *(m.y[c] for c in range(n_cl)), *(m.z[c] for c in range(n_ml))],
            ),
            sense=pyo.minimize,
        )

        ones_k = [1.0] * k
        m.assign = pyo.Constraint(m.R, rule=lambda m, r: LinearExpression(
            constant=0.0, linear_coefs=ones_k, linear_vars=[x[r, j] for j in range(k)]) == 1)
        if nonempty:
            m.nonempty_rhs = pyo.Param(m.K, mutable=True, initialize=1.0)
            ones_r = [1.0] * n_rows
            m.nonempty = pyo.Constraint(m.K, rule=lambda m, j: LinearExpression(
                constant=0.0, linear_coefs=ones_r, linear_vars=[x[r, j] for r in range(n_rows)])
                >= m.nonempty_rhs[j])

        cl_a, cl_b = pairs.soft_cl[:, 0].tolist(), pairs.soft_cl[:, 1].tolist()
        m.cannot_link = pyo.Constraint(m.CL, m.K, rule=lambda m, c, j: LinearExpression(
            constant=0.0, linear_coefs=[1.0, 1.0, -1.0],
            linear_vars=[x[cl_a[c], j], x[cl_b[c], j], m.y[c]]) <= 1)
        ml_a, ml_b = pairs.soft_ml[:, 0].tolist(), pairs.soft_ml[:, 1].tolist()
        m.must_link = pyo.Constraint(m.ML, m.K, rule=lambda m, c, j: LinearExpression(
            constant=0.0, linear_coefs=[1.0, -1.0, -1.0],
            linear_vars=[x[ml_a[c], j], x[ml_b[c], j], m.z[c]]) <= 0)

        m.HCL = pyo.RangeSet(0, pairs.hard_cl.shape[0] - 1)
        hcl_a, hcl_b = pairs.hard_cl[:, 0].tolist(), pairs.hard_cl[:, 1].tolist()
        m.hard_cannot_link = pyo.Constraint(m.HCL, m.K, rule=lambda m, h, j: LinearExpression(
            constant=0.0, linear_coefs=[1.0, 1.0], linear_vars=[x[hcl_a[h], j], x[hcl_b[h], j]]) <= 1)
        m.HML = pyo.RangeSet(0, pairs.hard_ml.shape[0] - 1)
        hml_a, hml_b = pairs.hard_ml[:, 0].tolist(), pairs.hard_ml[:, 1].tolist()
        m.hard_must_link = pyo.Constraint(m.HML, m.K, rule=lambda m, h, j: LinearExpression(
            constant=0.0, linear_coefs=[1.0, -1.0], linear_vars=[x[hml_a[h], j], x[hml_b[h], j]]) <= 0)

        if pairs.sizes is not None:
            sizes = pairs.sizes.tolist()
            if plan.min_size is not None:
                m.min_size = pyo.Constraint(m.K, rule=lambda m, j: LinearExpression(
                    constant=0.0, linear_coefs=sizes,
                    linear_vars=[x[r, j] for r in range(n_rows)]) >= plan.min_size)
            if plan.max_size is not None:
                m.max_size = pyo.Constraint(m.K, rule=lambda m, j: LinearExpression(
                    constant=0.0, linear_coefs=sizes,
                    linear_vars=[x[r, j] for r in range(n_rows)]) <= plan.max_size)
        return m

    def push(self, row_cost: np.ndarray, big_m: float, penalty: float, offset: float,
             nonempty_rhs: np.ndarray | None) -> None:
        """Write one set of centres' numbers into the mutable Params."""
        m = self.model
        write_values(self.d_flat, row_cost.reshape(-1).tolist())
        m.M.set_value(big_m)
        m.p.set_value(penalty)
        m.offset.set_value(offset)
        if nonempty_rhs is not None:
            for j, value in enumerate(nonempty_rhs.tolist()):
                m.nonempty_rhs[j].set_value(value)

    def forbid(self, mask: np.ndarray | None) -> None:
        """Bound ``x[r, j] <= 0`` where ``mask[r, j]``, ``<= 1`` elsewhere (None: nowhere).

        Only the entries that change are touched, and the solver is told, so it pushes the
        bounds on its next solve (HiGHS's presolve then drops the forbidden columns).
        """
        new, changed = _mask_change(self._forbidden, mask)
        if changed.size == 0:
            return
        variables = [self.x_flat[position] for position in changed.tolist()]
        for var, forbidden in zip(variables, new[changed].tolist(), strict=True):
            var.setub(0 if forbidden else 1)
        self._forbidden = new
        if self.solver is not None:
            self.solver.bounds_changed(variables)

    def solve(self, time_limit: float | None) -> SolveResult:
        """Solve the program as it is now (the solution stays with the solver: :meth:`row_labels`)."""
        if self.solver is None:
            self.solver = PersistentSolver(self.model, self._solver_name, self._options)
        return self.solver.solve(time_limit=time_limit, require_solution=False, load=False)

    def row_labels(self) -> np.ndarray:
        """Cluster of every program row in the last solution."""
        values = np.nan_to_num(self.solver.values(self.x_flat), nan=0.0).reshape(self.n_rows, self._k)
        return np.argmax(values, axis=1)


class MatrixRows:
    """One program as numpy matrices, solved by :class:`~ccopt.solvers.HighsMatrixSolver`.

    The same program as :class:`PyomoRows` (module docstring), without building it in Pyomo.
    Takes the parameters of :class:`PyomoRows` except ``solver`` (always HiGHS), and

    cuts_after : float or None, default=None
        Seconds of a MIP solve before the program is strengthened by clique rows
        (:meth:`solve`); None: never.
    """

    def __init__(self, plan, units: np.ndarray, n_slots: int, *, nonempty: bool, penalty: float,
                 name: str, options: SolverOptions, cuts_after: float | None = None):
        pairs = ProgramPairs.select(plan, units, n_slots)
        self._lp_point: np.ndarray | None = None  # the solution, when an LP gave it
        k, n_rows = plan.n_clusters, pairs.n_rows
        self.n_rows, self._k = n_rows, k
        self._pairs = pairs
        self._build_twin = partial(PyomoRows, plan, units, n_slots, nonempty=nonempty, penalty=penalty,
                                   name=name, solver="highs_matrix", options=options)
        self._w_const = float(plan.constant_weight)
        A, row_lower, row_upper, self._nonempty_rows = _matrix(plan, pairs, nonempty)
        n_x = n_rows * k
        n_cols = n_x + pairs.soft_cl.shape[0] + pairs.soft_ml.shape[0]
        col_upper = np.concatenate([np.ones(n_x), np.full(n_cols - n_x, np.inf)])
        integer = np.zeros(n_cols, dtype=bool)
        integer[:n_x] = True
        self._strengthening = (None if cuts_after is None
                               else CliqueRowStrengthening(pairs, k, cuts_after, A.shape[0]))
        self._forbidden = np.zeros(n_x, dtype=bool)
        self._solver = HighsMatrixSolver(np.zeros(n_cols), A, row_lower, row_upper, np.zeros(n_cols),
                                         col_upper, integrality=integer, options=options,
                                         isolate_from=_ISOLATE_FROM)
        self._last_push: tuple | None = None
        self._twin: PyomoRows | None = None

    @property
    def model(self) -> pyo.ConcreteModel:
        """The same program in Pyomo, with the numbers last pushed (built on first access)."""
        if self._twin is None:
            self._twin = self._build_twin()
            if self._last_push is not None:
                self._twin.push(*self._last_push)
            self._twin.forbid(self._forbidden.reshape(self.n_rows, self._k))
        return self._twin.model

    def push(self, row_cost: np.ndarray, big_m: float, penalty: float, offset: float,
             nonempty_rhs: np.ndarray | None) -> None:
        """Set the costs (and row (3)'s right-hand sides) for one set of centres."""
        scale = big_m * penalty
        cost = np.concatenate([np.asarray(row_cost, dtype=np.float64).reshape(-1),
                               scale * self._pairs.w_cl, scale * self._pairs.w_ml])
        self._solver.set_costs(cost, offset=offset + scale * self._w_const)
        if nonempty_rhs is not None and self._nonempty_rows.size:
            self._solver.set_row_bounds(self._nonempty_rows, nonempty_rhs, np.inf)
        # Kept, not copied, for the Pyomo twin: callers pass fresh arrays every step.
        self._last_push = (row_cost, big_m, penalty, offset, nonempty_rhs)
        if self._twin is not None:
            self._twin.push(*self._last_push)

    def forbid(self, mask: np.ndarray | None) -> None:
        """Bound ``x[r, j] <= 0`` where ``mask[r, j]``, ``<= 1`` elsewhere (None: nowhere)."""
        new, changed = _mask_change(self._forbidden, mask)
        if changed.size:
            self._solver.set_col_bounds(changed, 0.0, np.where(new[changed], 0.0, 1.0))
            self._forbidden = new
        if self._twin is not None:
            self._twin.forbid(mask)

    def solve(self, time_limit: float | None) -> SolveResult:
        """Solve the program as it is now.

        With ``cuts_after``, a MIP solve that has not finished after that many seconds is
        stopped, the program is strengthened by cannot-link clique rows over must-link
        components (:class:`~ccopt.models._bh_cuts.CliqueRowStrengthening`; the rows stay
        for later solves) and solved again, from the first solve's incumbent, in the time
        that is left. When the strengthened LP relaxation already has an integral optimum,
        that is the solution.
        """
        self._lp_point = None
        if self._strengthening is None:
            return self._solver.solve(time_limit=time_limit, require_solution=False)
        result, self._lp_point = self._strengthening.solve(self._solver, time_limit)
        return result

    def row_labels(self) -> np.ndarray:
        """Cluster of every program row in the last solution."""
        point = self._solver.col_value if self._lp_point is None else self._lp_point
        n_x = self.n_rows * self._k
        return np.argmax(point[:n_x].reshape(self.n_rows, self._k), axis=1)


def _mask_change(current: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The flat forbidden-label mask asked for (None: nothing forbidden) and where it differs
    from ``current``."""
    new = np.zeros_like(current) if mask is None else np.asarray(mask, dtype=bool).reshape(-1)
    return new, np.flatnonzero(new != current)


def _matrix(plan, pairs: ProgramPairs, nonempty: bool):
    """P's constraint matrix in the layout of the module docstring, its row bounds, and the
    positions of row (3)."""
    k, n_rows = plan.n_clusters, pairs.n_rows
    n_x = n_rows * k
    n_cl = pairs.soft_cl.shape[0]
    clusters = np.arange(k)
    blocks: list[tuple] = []  # (row ids, column ids, values, lower, upper) per block of rows
    n_done = 0

    def add(n_new, rows, cols, values, lower, upper):
        nonlocal n_done
        blocks.append((rows + n_done, cols, values, np.broadcast_to(lower, n_new),
                       np.broadcast_to(upper, n_new)))
        n_done += n_new

    x_cols = np.arange(n_x).reshape(n_rows, k)
    # Rows with one entry per program row for each cluster j ((3), the size rows).
    per_cluster_rows, per_cluster_cols = np.repeat(clusters, n_rows), x_cols.T.reshape(-1)
    # (2): sum_j x[r, j] = 1.
    add(n_rows, np.repeat(np.arange(n_rows), k), x_cols.reshape(-1), np.ones(n_x), 1.0, 1.0)
    nonempty_rows = np.zeros(0, dtype=np.int64)
    if nonempty:
        # (3): sum_r x[r, j] >= 1 (right-hand sides set by push).
        nonempty_rows = n_done + clusters
        add(k, per_cluster_rows, per_cluster_cols, np.ones(n_x), 1.0, np.inf)

    def pair_rows(pairs, signs, slack_first_col, upper):
        # One row per (pair, cluster), pair-major: x[a, j], x[b, j] (and the pair's slack).
        n_pairs = pairs.shape[0]
        if n_pairs == 0:
            return
        row = np.arange(n_pairs * k)
        a_cols = x_cols[pairs[:, 0]].reshape(-1)
        b_cols = x_cols[pairs[:, 1]].reshape(-1)
        rows, cols, values = [row, row], [a_cols, b_cols], [np.full(row.size, signs[0]),
                                                             np.full(row.size, signs[1])]
        if slack_first_col is not None:
            rows.append(row)
            cols.append(slack_first_col + np.repeat(np.arange(n_pairs), k))
            values.append(np.full(row.size, -1.0))
        add(row.size, np.concatenate(rows), np.concatenate(cols), np.concatenate(values), -np.inf, upper)

    pair_rows(pairs.soft_cl, (1.0, 1.0), n_x, 1.0)                 # (4)
    pair_rows(pairs.soft_ml, (1.0, -1.0), n_x + n_cl, 0.0)         # (5)
    pair_rows(pairs.hard_cl, (1.0, 1.0), None, 1.0)
    pair_rows(pairs.hard_ml, (1.0, -1.0), None, 0.0)
    if pairs.sizes is not None:
        # One row per cluster j: sum_r size_r x[r, j] against the bound.
        weights = np.tile(pairs.sizes, k)
        if plan.min_size is not None:
            add(k, per_cluster_rows, per_cluster_cols, weights, float(plan.min_size), np.inf)
        if plan.max_size is not None:
            add(k, per_cluster_rows, per_cluster_cols, weights, -np.inf, float(plan.max_size))

    n_cols = n_x + n_cl + pairs.soft_ml.shape[0]
    rows, cols, values, lower, upper = (np.concatenate(part) for part in zip(*blocks, strict=True))
    A = sp.csc_array((values, (rows, cols)), shape=(n_done, n_cols))
    return A, np.array(lower, dtype=np.float64), np.array(upper, dtype=np.float64), nonempty_rows
