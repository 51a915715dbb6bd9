"""Review of the solver internals: the fixed-column reduction, the objective image, Param reads.

Gold standards: the same program solved by HiGHS without the reduction, and Pyomo's own
evaluation of the objective (``pyo.value``) after random Param changes.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pyomo.environ as pyo
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import solvers
from ccopt._objective_image import ObjectiveImage
from ccopt._params import read_values
from ccopt._reduction import reduce_fixed
from ccopt.exceptions import InvalidDataError, SolverError
from ccopt.solvers import HighsMatrixSolver, PersistentSolver
from ccopt.status import Status


def solve_both(args, kwargs):
    """The program solved whole (no reduction) and through the reduction, whatever its share
    of fixed columns: ``(result, col_value or None)`` for each."""
    out = []
    for share in (2.0, 0.0):
        solver = HighsMatrixSolver(*args, **kwargs)
        with mock.patch.object(solvers, "_REDUCE_FIXED_SHARE", share):
            result = solver.solve(require_solution=False)
        out.append((result, solver.col_value.copy() if result.has_solution else None))
    return out


# -- the reduction ---------------------------------------------------------------------------

def test_integer_column_fixed_at_a_fractional_value_keeps_the_program_infeasible():
    # min x0 + x1 + x2, x0 + x1 + x2 >= 0, every column integer, x0 = x1 = 0.5 by their bounds:
    # no integer point exists. Dropping x0 and x1 as constants hid that.
    args = ([1.0, 1.0, 1.0], np.array([[1.0, 1.0, 1.0]]), [0.0], [np.inf],
            [0.5, 0.5, 0.0], [0.5, 0.5, 1.0])
    (whole, _), (reduced, x) = solve_both(args, {"integrality": [True, True, True]})
    assert whole.status is Status.INFEASIBLE
    assert reduced.status is Status.INFEASIBLE, x
    reduction = reduce_fixed(sp.csc_array(args[1]), np.array(args[0]), 0.0, np.array(args[2]),
                             np.array(args[3]), np.array(args[4]), np.array(args[5]))
    assert reduction.keep_cols.tolist() == [True, True, True]  # nothing settled by a fraction
    # A column fixed at an integral value is still dropped, its cost in the offset.
    reduction = reduce_fixed(sp.csc_array(args[1]), np.array(args[0]), 0.25, np.array(args[2]),
                             np.array(args[3]), np.array([2.0, 0.5, 0.0]), np.array([2.0, 0.5, 1.0]))
    assert reduction.keep_cols.tolist() == [False, True, True]
    assert reduction.offset == 0.25 + 1.0 * 2.0


@st.composite
def integer_programs(draw):
    """min/max c x + c0, row bounds, general-integer and continuous columns with finite
    bounds (never unbounded), many fixed, some at fractional values."""
    n_rows, n_cols = draw(st.integers(0, 4)), draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    A = rng.choice([-2.0, -1.0, 0.0, 0.0, 0.5, 1.0, 3.0], size=(n_rows, n_cols))
    cost = rng.normal(size=n_cols).round(2)
    col_lower = rng.integers(-2, 2, n_cols).astype(float)
    col_upper = col_lower + rng.integers(0, 3, n_cols)
    fixed = rng.random(n_cols) < 0.6
    value = rng.integers(-2, 3, n_cols) + np.where(rng.random(n_cols) < 0.3, 0.5, 0.0)
    col_lower[fixed] = col_upper[fixed] = value[fixed]
    row_lower = np.where(rng.random(n_rows) < 0.4, -np.inf, rng.integers(-4, 3, n_rows).astype(float))
    row_upper = np.where(rng.random(n_rows) < 0.3, np.inf, row_lower + rng.integers(0, 4, n_rows))
    row_upper = np.where(np.isinf(row_lower) & np.isinf(row_upper), 3.0, row_upper)
    integer = rng.random(n_cols) < 0.7
    integer[0] = True
    kwargs = {"integrality": integer, "offset": round(float(rng.normal()), 2),
              "maximize": bool(rng.random() < 0.3)}
    return (cost, A, row_lower, row_upper, col_lower, col_upper), kwargs


@settings(max_examples=40, deadline=None)
@given(integer_programs())
def test_reduction_agrees_with_the_whole_program(program):
    args, kwargs = program
    cost, A, row_lower, row_upper, col_lower, col_upper = args
    (whole, _), (reduced, x) = solve_both(args, kwargs)
    assert reduced.status is whole.status
    if whole.objective is None:
        assert reduced.objective is None
        return
    assert reduced.objective == pytest.approx(whole.objective, abs=1e-7)
    # The expanded solution solves the whole program, with the reported objective.
    integer = kwargs["integrality"]
    assert (x >= col_lower).all() and (x <= col_upper).all()
    assert np.allclose(x[integer], np.round(x[integer]))
    assert (A @ x >= row_lower - 1e-7).all() and (A @ x <= row_upper + 1e-7).all()
    assert float(cost @ x) + kwargs["offset"] == pytest.approx(reduced.objective, abs=1e-7)


def test_bound_of_a_mip_whose_integer_columns_are_all_fixed():
    # min x0 + 2 y, x0 + y >= 1.5, x0 integer fixed at 1, y continuous in [0, 3]: optimum 2.
    args = ([1.0, 2.0], np.array([[1.0, 1.0]]), [1.5], [np.inf], [1.0, 0.0], [1.0, 3.0])
    (whole, _), (reduced, _) = solve_both(args, {"integrality": [True, False]})
    assert whole.bound == pytest.approx(whole.objective)
    assert reduced.objective == pytest.approx(whole.objective)
    assert reduced.bound == pytest.approx(whole.bound)


def test_unbounded_lp_is_not_reported_feasible():
    # min -x0 + x1, x0 + x1 >= 0, x0 >= 0 unbounded above: unbounded.
    solver = HighsMatrixSolver([-1.0, 1.0], np.array([[1.0, 1.0]]), [0.0], [np.inf],
                               [0.0, 0.0], [np.inf, 1.0])
    result = solver.solve(require_solution=False)
    assert result.status is Status.ERROR and result.termination == "kUnbounded"
    assert result.objective is None and not result.has_solution
    with pytest.raises(SolverError, match=r"The model is unbounded\.$"):
        solver.solve()


# -- changing bounds in place ------------------------------------------------------------------

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


# -- Param reads -------------------------------------------------------------------------------

def test_a_param_set_to_none_is_refused_by_name():
    m = pyo.ConcreteModel()
    m.q = pyo.Param(mutable=True, initialize=1.0, within=pyo.Any)
    m.nan = pyo.Param(mutable=True, initialize=float("nan"))
    m.q = None
    with pytest.raises(ValueError, match="No value for uninitialized ScalarParam object q"):
        read_values([m.q])
    assert np.isnan(read_values([m.nan])).all()  # a NaN value is a value: read as it is


def test_highs_matrix_refresh_names_a_cost_param_set_to_none():
    m = pyo.ConcreteModel()
    m.q = pyo.Param(mutable=True, initialize=1.0, within=pyo.Any)
    m.x = pyo.Var(bounds=(0, 1))
    m.row = pyo.Constraint(expr=m.x >= 0.5)
    m.objective = pyo.Objective(expr=m.q * m.x + m.x)
    persistent = PersistentSolver(m, "highs_matrix")
    assert persistent.solve().objective == pytest.approx(1.0)
    assert persistent._compiled._image is not None  # the costs come from the image
    m.q = None
    with pytest.raises(SolverError, match="No value for uninitialized ScalarParam object q"):
        persistent.solve()


# -- the objective image -----------------------------------------------------------------------

def random_objective(rng):
    """A random linear objective over x[0..3], its coefficients random expressions of four
    mutable Params (products, repeated terms, divisions, functions, named expressions)."""
    m = pyo.ConcreteModel()
    m.P = pyo.Param(range(4), mutable=True, initialize=1.0)
    m.fixed = pyo.Param(initialize=2.5)
    m.x = pyo.Var(range(4))
    params = [m.P[i] for i in range(4)]
    names = iter(range(10**6))

    def param():
        return params[rng.integers(4)]

    def coefficient(depth=0):
        kind = rng.integers(0, 11 if depth < 3 else 3)
        if kind == 0:
            return float(rng.integers(-3, 4))
        if kind in (1, 2):
            return param()
        if kind == 3:
            return -coefficient(depth + 1)
        if kind == 4:
            return coefficient(depth + 1) + coefficient(depth + 1)
        if kind == 5:
            return coefficient(depth + 1) * coefficient(depth + 1)
        if kind == 6:
            return coefficient(depth + 1) / float(rng.choice([2.0, -4.0, 3.0]))
        if kind == 7:
            return coefficient(depth + 1) / (param() + 10.0)
        if kind == 8:
            return param() ** 2 + m.fixed * coefficient(depth + 1)
        if kind == 9:
            return pyo.exp(coefficient(depth + 1) / 10.0)
        named = pyo.Expression(expr=coefficient(depth + 1))
        m.add_component(f"e{next(names)}", named)
        return named

    def term(depth=0):
        kind = rng.integers(0, 5 if depth < 2 else 4)
        var = m.x[int(rng.integers(4))]
        if kind == 0:
            return var
        if kind == 1:
            return coefficient() * var
        if kind == 2:
            return coefficient()
        if kind == 3:
            return var * coefficient()
        return sum(term(depth + 1) for _ in range(rng.integers(1, 4)))

    return m, params, sum(term() for _ in range(rng.integers(2, 7)))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_objective_image_matches_pyomo_after_param_changes(seed):
    rng = np.random.default_rng(seed)
    m, params, expr = random_objective(rng)
    columns: dict = {}
    image = ObjectiveImage.of(expr, lambda var: columns.setdefault(id(var), len(columns)))
    if image is None:  # a shape the compiler walks on every refresh instead
        return
    for _ in range(3):
        for p in params:
            p.value = float(rng.normal() * 3)
        point = rng.normal(size=4)
        for i, value in enumerate(point):
            m.x[i].value = float(value)
        cost, offset = image.evaluate(len(columns))
        got = offset + sum(cost[columns[id(m.x[i])]] * point[i] for i in range(4) if id(m.x[i]) in columns)
        assert math.isclose(got, pyo.value(expr), rel_tol=1e-9, abs_tol=1e-9)


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
