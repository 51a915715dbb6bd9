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
