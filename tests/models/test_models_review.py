"""Regressions of an audit of ccopt.models: each test failed before its fix.

A: set_multipliers is atomic. B: BHAssignmentProgram.solve checks time_limit. C: it checks
the solver name at construction. D: the abstract models check their .dat data. E: boolean
flags refuse non-bools. F: HighsKMedoids(lagrangian=True)'s epsilon hint. G: docstrings
(the .dat multipliers, read_pairwise_duals). H: the readers name what they expected.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ccopt import ClusteringProblem
from ccopt.exceptions import (
    InvalidParameterError,
    SolverNotAvailableError,
)
from ccopt.models import (
    build_lagrangian_model,
    set_multipliers,
)
from ccopt.models.bh_assignment import BHAssignmentProgram, build_bh_assignment_model
from ccopt.models.highs_direct import HighsKMedoids
from ccopt.status import Status

X = np.array([[0.0, 0], [0.1, 0], [5, 5], [5.1, 5], [10, 0], [10.2, 0]])
CENTERS = np.array([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]])
TINY = Path(__file__).resolve().parents[2] / "models" / "data" / "tiny.dat"


def problem():
    return ClusteringProblem.create(X, 2, ml=[(0, 1)], cl=[(1, 2)])


# ----------------------------------------------------------------------------- A: set_multipliers


def test_set_multipliers_stores_nothing_when_one_array_is_rejected():
    m = build_lagrangian_model(problem())
    with pytest.raises(InvalidParameterError, match=r"lam must be <= 0"):
        set_multipliers(m, eta=np.full((1, 6), -1.0), lam=np.full((1, 6), 1.0))
    assert all(v.value == 0.0 for v in m.eta.values())


def test_highs_set_multipliers_keeps_the_costs_highs_has_after_an_error():
    program = HighsKMedoids(problem(), lagrangian=True)
    reference = program.solve().objective
    with pytest.raises(InvalidParameterError, match=r"lam must be <= 0"):
        program.set_multipliers(eta=np.full((1, 6), -1.0), lam=np.full((1, 6), 1.0))
    # Before: the rejected eta was kept and pushed by this call.
    program.set_multipliers(lam=np.zeros((1, 6)))
    assert program.solve().objective == pytest.approx(reference)


# ----------------------------------------------------------------------------- B, C: P (and E, H)


@pytest.mark.parametrize("time_limit", [-1, float("nan"), "1", True, -np.inf])
def test_bh_solve_refuses_a_bad_time_limit(time_limit):
    program = BHAssignmentProgram(problem(), centers=CENTERS[:2])
    with pytest.raises(InvalidParameterError, match="time_limit must be"):
        program.solve(time_limit=time_limit)


def test_bh_solve_takes_zero_as_a_spent_budget():
    # BHKMeans hands over what its Deadline has left, which stops at 0.
    program = BHAssignmentProgram(problem(), centers=CENTERS[:2], decompose=False)
    result = program.solve(time_limit=0)
    assert result.status is Status.TIME_LIMIT and result.solves == ()


def test_bh_solve_takes_an_infinite_time_limit():
    program = BHAssignmentProgram(problem(), centers=CENTERS[:2], decompose=False)
    assert program.solve(time_limit=float("inf")).status is Status.OPTIMAL


def test_bh_program_checks_the_solver_name_at_construction():
    # Before: accepted, and solve() returned optimal by the decomposition (no solver call).
    with pytest.raises(SolverNotAvailableError, match="foobar"):
        BHAssignmentProgram(problem(), solver="foobar", centers=CENTERS[:2])


@pytest.mark.parametrize(("builder", "kwargs"), [
    (BHAssignmentProgram, {"contract": "no"}),
    (BHAssignmentProgram, {"decompose": 0}),
    (build_bh_assignment_model, {"centers": CENTERS[:2], "eliminate_free": "no"}),
])
def test_bh_builders_refuse_non_bool_flags(builder, kwargs):
    flag, value = next((key, v) for key, v in kwargs.items() if key != "centers")
    with pytest.raises(InvalidParameterError, match=rf"{flag} must be True or False, got {value!r}"):
        builder(problem(), **kwargs)


def test_bh_builders_refuse_a_non_problem():
    with pytest.raises(InvalidParameterError, match=r"Expected a ccopt\.ClusteringProblem, got ndarray"):
        build_bh_assignment_model(X, CENTERS[:2])
    with pytest.raises(InvalidParameterError, match=r"Expected a ccopt\.ClusteringProblem, got NoneType"):
        BHAssignmentProgram(None)
