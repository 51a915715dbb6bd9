"""Fixed columns and redundant rows removed before HiGHS (ccopt._reduction).

The gold standard is enumeration: on tiny binary programs every 0/1 vector within the
bounds is scored, and the solve through the reduced program must reach that optimum.
"""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import solvers
from ccopt._reduction import _activity_range, reduce_fixed
from ccopt.solvers import HighsMatrixSolver
from ccopt.status import Status


@st.composite
def binary_programs(draw):
    """min c x, row_lower <= A x <= row_upper, x binary, some columns fixed by their bounds."""
    n_rows, n_cols = draw(st.integers(1, 5)), draw(st.integers(1, 7))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    A = rng.choice([-1.0, 0.0, 0.0, 1.0, 2.0], size=(n_rows, n_cols))
    cost = rng.normal(size=n_cols).round(3)
    row_lower = np.where(rng.random(n_rows) < 0.5, -np.inf, rng.integers(-2, 2, n_rows).astype(float))
    row_upper = np.where(rng.random(n_rows) < 0.3, np.inf, rng.integers(0, 3, n_rows).astype(float))
    row_upper = np.maximum(row_upper, row_lower)
    col_lower, col_upper = np.zeros(n_cols), np.ones(n_cols)
    fixed = rng.random(n_cols) < 0.6
    value = rng.integers(0, 2, n_cols).astype(float)
    col_lower[fixed] = col_upper[fixed] = value[fixed]
    return A, cost, row_lower, row_upper, col_lower, col_upper


def enumerate_optimum(A, cost, row_lower, row_upper, col_lower, col_upper) -> float:
    best = np.inf
    for bits in itertools.product([0.0, 1.0], repeat=A.shape[1]):
        x = np.array(bits)
        if (x < col_lower).any() or (x > col_upper).any():
            continue
        activity = A @ x
        if (activity >= row_lower - 1e-9).all() and (activity <= row_upper + 1e-9).all():
            best = min(best, float(cost @ x))
    return best


@settings(max_examples=150, deadline=None)
@given(binary_programs())
def test_reduced_program_reaches_the_enumerated_optimum(program):
    A, cost, row_lower, row_upper, col_lower, col_upper = program
    solver = HighsMatrixSolver(cost, A, row_lower, row_upper, col_lower, col_upper,
                               integrality=np.ones(A.shape[1], dtype=bool), offset=1.5)
    # Every MIP through the reduction, whatever its share of fixed columns.
    with mock.patch.object(solvers, "_REDUCE_FIXED_SHARE", 0.0):
        result = solver.solve(require_solution=False)
    best = enumerate_optimum(A, cost, row_lower, row_upper, col_lower, col_upper)
    if not np.isfinite(best):
        assert result.status is Status.INFEASIBLE
        return
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(best + 1.5, abs=1e-9)
    x = solver.col_value
    # The expanded solution is a solution of the whole program, fixed columns included.
    assert (x >= col_lower).all() and (x <= col_upper).all()
    assert solver.row_value == pytest.approx(A @ x)
    assert (A @ x >= row_lower - 1e-7).all() and (A @ x <= row_upper + 1e-7).all()
    assert float(cost @ x) + 1.5 == pytest.approx(result.objective, abs=1e-9)


def test_rows_the_fixed_columns_settle_are_dropped_and_the_rest_shifted():
    # Rows: x0 + x1 - y <= 1 (a cannot-link row), x0 - x2 <= 0, x1 + x2 >= 1.
    A = sp.csc_array(np.array([[1.0, 1.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]))
    cost = np.array([1.0, 2.0, 3.0, 10.0])
    lower, upper = np.array([-np.inf, -np.inf, 1.0]), np.array([1.0, 0.0, np.inf])
    col_lower, col_upper = np.array([0.0, 0.0, 0.0, 0.0]), np.array([0.0, 1.0, 1.0, np.inf])
    reduction = reduce_fixed(A, cost, 4.0, lower, upper, col_lower, col_upper)
    # x0 = 0 leaves x1 - y <= 1 (always true) and -x2 <= 0 (always true): both dropped.
    assert reduction.keep_cols.tolist() == [False, True, True, True]
    assert reduction.keep_rows.tolist() == [False, False, True]
    assert reduction.A.toarray().tolist() == [[1.0, 1.0, 0.0]]
    assert reduction.offset == 4.0
    assert reduction.expand(np.array([1.0, 0.0, 0.0])).tolist() == [0.0, 1.0, 0.0, 0.0]


def test_activity_range_is_open_where_a_bound_is_infinite():
    A = sp.csc_array(np.array([[1.0, -2.0, 0.0], [0.0, 1.0, 1.0]]))
    low, high = _activity_range(A, np.array([0.0, 0.0, 0.0]), np.array([1.0, np.inf, 2.0]))
    assert low.tolist() == [-np.inf, 0.0]
    assert high.tolist() == [1.0, np.inf]


def test_lps_and_mips_with_few_fixed_columns_keep_the_whole_program(monkeypatch):
    calls = []

    def recorded(*args):
        calls.append(args)
        return reduce_fixed(*args)

    monkeypatch.setattr(solvers, "reduce_fixed", recorded)
    A = np.array([[1.0, 1.0, 1.0]])
    lp = HighsMatrixSolver([1.0, 1.0, 1.0], A, [1.0], [np.inf], [0, 0, 0], [0, 0, 1])
    assert lp.solve().objective == pytest.approx(1.0)
    col_upper = np.ones(3)
    mip = HighsMatrixSolver([1.0, 1.0, 1.0], A, [1.0], [np.inf], [0, 0, 0], col_upper,
                            integrality=[True, True, True])
    assert mip.solve().objective == pytest.approx(1.0)
    assert calls == []
    # Two of three columns fixed: the MIP is reduced.
    mip.set_col_bounds([0, 1], 0.0, 0.0)
    assert mip.solve().objective == pytest.approx(1.0)
    assert len(calls) == 1
    assert mip.col_value.tolist() == [0.0, 0.0, 1.0]
    assert col_upper.tolist() == [1.0, 1.0, 1.0]  # the caller's array is not the solver's


# ----------------------------------------------------------------------------- against the whole program
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


# ----------------------------------------------------------------------------- dropped rows
@st.composite
def programs(draw):
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    A = rng.choice([-2.5, -1.0, 0.0, 0.0, 0.5, 1.0, 3.0], size=(m, n))
    lower = rng.choice([-np.inf, -2.0, 0.0, 0.5], size=n)
    upper = np.maximum(lower, rng.choice([np.inf, 0.0, 1.0, 3.5], size=n))
    fixed = rng.random(n) < 0.5
    lower[fixed] = upper[fixed] = rng.choice([0.0, 1.0, -2.0, 0.5], size=n)[fixed]
    row_lower = rng.choice([-np.inf, -3.0, 0.0, 1.0], size=m)
    row_upper = np.maximum(row_lower, rng.choice([np.inf, 0.0, 1.0, 6.0], size=m))
    return A, rng.normal(size=n).round(2), row_lower, row_upper, lower, upper


@given(programs())
@settings(max_examples=60, deadline=None)
def test_reduction_drops_only_rows_every_point_of_the_box_satisfies(program):
    A, cost, row_lower, row_upper, lower, upper = program
    red = reduce_fixed(sp.csc_array(A), cost, 2.0, row_lower, row_upper, lower, upper)
    fixed = (lower == upper) & (lower == np.round(lower))
    assert red.keep_cols.tolist() == (~fixed).tolist()
    shift = A[:, fixed] @ lower[fixed]
    keep = red.keep_cols
    for i in np.flatnonzero(~red.keep_rows):
        ends = [(a * lower[j], a * upper[j]) for j, a in zip(np.flatnonzero(keep), A[i, keep], strict=True) if a != 0]
        lowest, highest = sum(min(e) for e in ends), sum(max(e) for e in ends)
        assert highest + shift[i] <= row_upper[i] + 1e-9 and lowest + shift[i] >= row_lower[i] - 1e-9
    np.testing.assert_array_equal(red.row_lower, (row_lower - shift)[red.keep_rows])
    np.testing.assert_array_equal(red.row_upper, (row_upper - shift)[red.keep_rows])
    np.testing.assert_array_equal(red.A.toarray(), A[np.ix_(red.keep_rows, keep)])
    x = np.where(np.isfinite(lower), lower, np.minimum(upper, 0.0))
    full = red.expand(x[keep])
    np.testing.assert_array_equal(full, x)
    assert cost @ full + 2.0 == pytest.approx(cost[keep] @ x[keep] + red.offset)
