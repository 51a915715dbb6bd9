"""HighsMatrixSolver, the program handed to HiGHS as arrays: changes in place, rows added and
deleted, starts, re-solve time limits, and the statuses of unbounded and infeasible programs."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pyomo.environ as pyo
import pytest
import scipy.sparse as sp
from pyomo.core.expr.numeric_expr import LinearExpression

from ccopt import solvers
from ccopt.exceptions import InvalidDataError, SolverError
from ccopt.solvers import HighsMatrixSolver, PersistentSolver, SolverOptions
from ccopt.status import Status


# ----------------------------------------------------------------------------- changes in place
def test_highs_matrix_solver_changes_costs_and_bounds_in_place():
    A = np.array([[1.0, 2.0], [3.0, 1.0]])
    program = HighsMatrixSolver([-1.0, -1.0], A, [-np.inf, -np.inf], [4.0, 6.0], [0, 0],
                                [np.inf, np.inf], offset=10.0)
    assert program.solve().objective == pytest.approx(7.2)
    assert program.row_dual == pytest.approx([-0.4, -0.2])
    assert program.col_value == pytest.approx([1.6, 1.2])
    # Vertices (2, 0), (1.6, 1.2), (0, 2): max 2x + y is 4.4 at (1.6, 1.2).
    program.set_costs([-2.0, -1.0])
    assert program.solve().objective == pytest.approx(10 - 4.4)
    # 3x + y <= 9 moves the vertex to (2.8, 0.6): 2x + y = 6.2 (beats (3, 0) with 6).
    program.set_row_bounds([1], -np.inf, 9.0)
    assert program.solve().objective == pytest.approx(10 - 6.2)
    assert program.col_value == pytest.approx([2.8, 0.6])
    with pytest.raises(InvalidDataError, match="cost must have 2 entries, got 3"):
        program.set_costs([1.0, 2.0, 3.0])
    with pytest.raises(InvalidDataError, match="row_upper contains NaN at position 1"):
        HighsMatrixSolver([0, 0], A, [0, 0], [1, np.nan], [0, 0], [1, 1])
    integer = HighsMatrixSolver([-1.0, -1.0], A, [-np.inf, -np.inf], [4.0, 6.0], [0, 0], [10, 10],
                                integrality=[True, True])
    assert integer.solve().objective == pytest.approx(-2.0)
    with pytest.raises(SolverError, match="no row duals"):
        _ = integer.row_dual


def test_highs_matrix_solver_adds_rows_and_keeps_them_in_its_relaxation():
    # max x + y, x + 2y <= 4, 3x + y <= 6, integers: optimum 3 at (2, 1) (LP: 2.8 at (1.6, 1.2)).
    A = np.array([[1.0, 2.0], [3.0, 1.0]])
    mip = HighsMatrixSolver([-1.0, -1.0], A, [-np.inf, -np.inf], [4.0, 6.0], [0, 0], [10, 10],
                            integrality=[True, True])
    assert mip.relaxation().solve().objective == pytest.approx(-2.8)
    # x + y <= 2 cuts the LP optimum off; the relaxation taken afterwards holds the row.
    mip.add_rows(sp.csr_array(np.array([[1.0, 1.0]])), -np.inf, 2.0)
    assert mip.n_rows == 3
    assert mip.relaxation().solve().objective == pytest.approx(-2.0)
    assert mip.solve().objective == pytest.approx(-2.0)
    with pytest.raises(InvalidDataError, match="rows must have 2 columns, got 3"):
        mip.add_rows(sp.csr_array(np.ones((1, 3))), -np.inf, 1.0)


def test_highs_matrix_solver_deletes_rows():
    A = np.array([[1.0, 2.0], [3.0, 1.0]])
    mip = HighsMatrixSolver([-1.0, -1.0], A, [-np.inf, -np.inf], [4.0, 6.0], [0, 0], [10, 10],
                            integrality=[True, True])
    mip.add_rows(sp.csr_array(np.array([[1.0, 1.0]])), -np.inf, 2.0)
    assert mip.relaxation().solve().objective == pytest.approx(-2.0)
    # Without x + 2y <= 4 and x + y <= 2 the LP optimum is 6 at (0, 6).
    mip.delete_rows([2, 0])
    assert mip.n_rows == 1
    assert mip.relaxation().solve().objective == pytest.approx(-6.0)
    assert mip.solve().objective == pytest.approx(-6.0)
    with pytest.raises(InvalidDataError, match="row 1 is out of range for a program of 1 rows"):
        mip.delete_rows([1])


def _two_column_mip():
    # min x0 + x1, x0 + x1 >= 1, x binary: optimum 1.
    return HighsMatrixSolver([1.0, 1.0], np.array([[1.0, 1.0]]), [1.0], [np.inf], [0.0, 0.0],
                             [1.0, 1.0], integrality=[True, True])


@pytest.mark.parametrize(("change", "match"), [
    (lambda s: s.set_col_bounds([2], 0.0, 1.0), "column position 2 is out of range: the program has 2"),
    (lambda s: s.set_col_bounds([-1], 1.0, 1.0), "column position -1 is out of range"),
    (lambda s: s.set_col_bounds([0, 0], [1.0, 0.0], [1.0, 0.0]), "column position 0 is given twice"),
    (lambda s: s.set_col_bounds([0], np.inf, np.inf), "lower bound of \\+inf"),
    (lambda s: s.set_row_bounds([1], 0.0, 1.0), "row position 1 is out of range: the program has 1 row"),
    (lambda s: s.set_row_bounds([0], -np.inf, -np.inf), "upper bound of -inf"),
])
def test_bounds_highs_would_refuse_are_refused_and_leave_the_program_as_it_was(change, match):
    """HiGHS refuses these changes; the numpy copies (read by the reduction) were changed anyway,
    and a negative position silently changed the last column's copy."""
    solver = _two_column_mip()
    with pytest.raises(InvalidDataError, match=match):
        change(solver)
    assert solver.col_bounds([0, 1])[0].tolist() == [0.0, 0.0]
    assert solver.col_bounds([0, 1])[1].tolist() == [1.0, 1.0]
    assert solver.solve().objective == pytest.approx(1.0)


def test_a_refused_change_raises_instead_of_desynchronising_the_copies():
    solver = _two_column_mip()
    error = solvers._highspy().HighsStatus.kError
    with mock.patch.object(solver._h, "changeColsBounds", return_value=error), \
            pytest.raises(SolverError, match="HiGHS refused the new column bounds"):
        solver.set_col_bounds([0], 1.0, 1.0)
    assert solver.col_bounds([0])[0].tolist() == [0.0]


def test_highs_matrix_solver_starts_from_a_given_solution():
    # A subset-sum equality: without search nodes or heuristics HiGHS finds no solution, and
    # with a start it returns that start.
    rng = np.random.default_rng(0)
    n = 40
    sizes = rng.integers(1000, 5000, n).astype(float)
    chosen = rng.random(n) < 0.5
    target = sizes[chosen].sum()
    cost = rng.random(n)
    program = HighsMatrixSolver(cost, sizes[None, :], [target], [target], np.zeros(n), np.ones(n),
                                integrality=np.ones(n, dtype=bool),
                                options=SolverOptions(extra={"mip_max_nodes": 0, "presolve": "off",
                                                             "mip_heuristic_effort": 0.0}))
    assert not program.solve(require_solution=False).has_solution
    program.set_start(chosen.astype(float))
    assert program.solve(require_solution=False).objective == pytest.approx(cost[chosen].sum())
    with pytest.raises(InvalidDataError, match="col_value must have 40 entries"):
        program.set_start(np.zeros(3))


# ----------------------------------------------------------------------------- statuses
def test_unbounded_lp_is_not_reported_feasible():
    # min -x0 + x1, x0 + x1 >= 0, x0 >= 0 unbounded above: unbounded.
    solver = HighsMatrixSolver([-1.0, 1.0], np.array([[1.0, 1.0]]), [0.0], [np.inf],
                               [0.0, 0.0], [np.inf, 1.0])
    result = solver.solve(require_solution=False)
    assert result.status is Status.ERROR and result.termination == "kUnbounded"
    assert result.objective is None and not result.has_solution
    with pytest.raises(SolverError, match=r"The model is unbounded\.$"):
        solver.solve()


def test_unbounded_lp_is_a_clear_error_when_a_solution_is_required():
    solver = HighsMatrixSolver([-1.0, 1.0], np.array([[1.0, 1.0]]), [0.0], [np.inf],
                               [0.0, 0.0], [np.inf, 1.0])
    with pytest.raises(SolverError, match="unbounded"):
        solver.solve()


def test_an_infeasible_mip_reports_no_bound():
    # x0 + x1 = 1.5 with both integer in [0, 1]: infeasible.
    solver = HighsMatrixSolver([1.0, 1.0], np.array([[1.0, 1.0]]), [1.5], [1.5], [0.0, 0.0],
                               [1.0, 1.0], integrality=[True, True])
    result = solver.solve(require_solution=False)
    assert result.status is Status.INFEASIBLE and result.bound is None and result.objective is None


# ----------------------------------------------------------------------------- re-solve time limits
def _random_covering_lp(n: int):
    """min c x, A x >= 1, 0 <= x <= 10: a random sparse LP taking HiGHS a good fraction of a
    second."""
    rng = np.random.default_rng(0)
    A = sp.random(n, n, density=0.01, random_state=0, format="csr")
    return rng, A, rng.random(n)


def _assert_resolve_gets_its_limit(first, resolve):
    """A re-solve given half the time of the first solve either finishes or runs about its
    limit; HiGHS's LP clock counts every earlier run of the instance, so without
    :func:`ccopt.solvers._lp_time_limit` it stopped at once."""
    limit = max(0.5 * first.wall_time, 0.05)
    result = resolve(limit)
    assert result.status is Status.OPTIMAL or result.wall_time >= 0.8 * limit


def test_highs_matrix_lp_resolve_gets_its_own_time_limit():
    rng, A, cost = _random_covering_lp(3000)
    n = A.shape[1]
    lp = HighsMatrixSolver(cost, A, np.ones(n), np.full(n, np.inf), np.zeros(n), np.full(n, 10.0))
    first = lp.solve(time_limit=0.3, require_solution=False)

    def resolve(limit):
        lp.set_costs(rng.random(n))
        return lp.solve(time_limit=limit, require_solution=False)

    _assert_resolve_gets_its_limit(first, resolve)


@pytest.mark.parametrize("name", ["appsi_highs", "highs"])
def test_pyomo_highs_lp_resolve_gets_its_own_time_limit(name):
    rng, A, cost = _random_covering_lp(1500)
    n = A.shape[1]
    model = pyo.ConcreteModel()
    model.x = pyo.Var(range(n), bounds=(0, 10))
    model.c = pyo.Param(range(n), initialize=dict(enumerate(cost)), mutable=True)
    model.rows = pyo.ConstraintList()
    for i in range(n):
        cols = A.indices[A.indptr[i]:A.indptr[i + 1]]
        if cols.size:
            model.rows.add(LinearExpression(linear_coefs=A.data[A.indptr[i]:A.indptr[i + 1]].tolist(),
                                            linear_vars=[model.x[int(c)] for c in cols]) >= 1)
    model.obj = pyo.Objective(expr=sum(model.c[j] * model.x[j] for j in range(n)))
    solver = PersistentSolver(model, name)
    first = solver.solve(time_limit=0.3, require_solution=False)

    def resolve(limit):
        for j in range(n):
            model.c[j] = rng.random()
        return solver.solve(time_limit=limit, require_solution=False)

    _assert_resolve_gets_its_limit(first, resolve)
