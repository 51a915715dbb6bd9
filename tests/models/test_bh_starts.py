"""BH-kmeans' MIP starts from the previous assignment, and the probe skipped after a long solve.

The start changes how soon HiGHS proves P's optimum, never the optimum: exactness is checked
against enumeration (``bh_brute.py``) on later steps, where a start is offered.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.models import _bh_cuts
from ccopt.models.bh_assignment import BHAssignmentProgram
from ccopt.solvers import HighsMatrixSolver, SolveResult
from ccopt.status import Status

from .bh_brute import brute_force, make_problem, random_instance
from .test_bh_cuts import three_groups_problem


def full_program_labels(program, row_labels):
    """Object labels of the full program's row labels (constrained units, then slots)."""
    plan = program.plan
    slot_units, fixed_units, fixed_labels = program._slots
    unit_labels = np.empty(plan.n_units, dtype=np.int64)
    n_con = plan.constrained_units.size
    unit_labels[plan.constrained_units] = row_labels[:n_con]
    unit_labels[slot_units] = row_labels[n_con:]
    unit_labels[fixed_units] = fixed_labels
    return unit_labels[plan.unit]


@pytest.mark.parametrize("seed", range(8))
def test_start_columns_are_feasible_and_cost_what_p_charges(seed):
    X, centers, k, rows, penalty, _, _ = random_instance(700 + seed, n=7, k=3, max_rows=12,
                                                         hard_prob=0.0)
    program = BHAssignmentProgram(make_problem(X, k, rows), penalty=penalty, centers=centers,
                                  decompose=False, cuts_after=None)
    program.solve()  # builds and fills the full program
    matrix_rows = program._full_rows()
    mip = matrix_rows._solver
    rng = np.random.default_rng(seed)
    for _ in range(8):
        row_labels = rng.integers(k, size=matrix_rows.n_rows)
        labels = full_program_labels(program, row_labels)
        cols = matrix_rows._start_columns(row_labels)
        if np.bincount(labels, minlength=k).min() == 0:
            assert cols is None  # row (3) asks for non-empty clusters
            continue
        assert cols is not None and mip.is_feasible(cols)
        assert mip.objective_at(cols) == pytest.approx(program.objective(labels), rel=1e-9)


def test_no_start_is_offered_with_a_forbidden_label():
    problem, _ = three_groups_problem(seed=1)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=None)
    program.solve()
    rows = program._full_rows()
    mask = np.zeros((rows.n_rows, 2), dtype=bool)
    mask[0, 0] = True
    rows.forbid(mask)
    labels = np.arange(rows.n_rows) % 2  # both clusters held: row (3) is met
    assert rows._start_columns(labels) is None  # row 0 in its forbidden cluster 0
    labels[0] = 1
    assert rows._start_columns(labels) is not None


@pytest.mark.parametrize("cuts_after", [None, 0.0])
def test_later_solves_start_from_the_previous_assignment(monkeypatch, cuts_after):
    offered = []
    real_set_start = HighsMatrixSolver.set_start

    def record(self, col_value):
        offered.append(np.asarray(col_value, dtype=float).copy())
        real_set_start(self, col_value)

    monkeypatch.setattr(HighsMatrixSolver, "set_start", record)
    problem, _ = three_groups_problem(seed=2)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=cuts_after, mip_gap=0.0)
    first = program.solve()
    before = len(offered)  # with cuts_after=0.0, only the strengthening's own starts
    program.set_centers(np.array([[0.0, 0.0], [3.0, 0.0]]))
    program.solve()
    previous = program._full_rows()._start_columns(
        _previous_row_labels(program, first.labels, program._slots[0]))
    assert before == 0 or cuts_after == 0.0
    assert any(np.array_equal(start, previous) for start in offered[before:])


def _previous_row_labels(program, labels, slot_units):
    """The full program's row labels of an object labelling (every unit's objects agree)."""
    plan = program.plan
    unit_labels = np.empty(plan.n_units, dtype=np.int64)
    unit_labels[plan.unit] = labels
    return np.concatenate([unit_labels[plan.constrained_units], unit_labels[slot_units]])


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("decompose", [False, True])
def test_later_steps_with_a_start_still_equal_enumeration(seed, decompose):
    X, centers, k, rows, penalty, _, _ = random_instance(900 + seed, n=7, k=3, max_rows=14,
                                                         hard_prob=0.1)
    problem = make_problem(X, k, rows)
    program = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                  cuts_after=0.0, decompose=decompose)
    costs, _ = brute_force(X, centers, k, rows, penalty)
    if not np.isfinite(costs.min()):
        return
    program.solve()
    rng = np.random.default_rng(seed)
    for _ in range(3):
        centers = centers + rng.normal(scale=0.5, size=centers.shape)
        program.set_centers(centers)
        costs, _ = brute_force(X, centers, k, rows, penalty)
        assert program.solve().objective == pytest.approx(costs.min(), rel=1e-7, abs=1e-7)


class _SlowClock:
    """``time.perf_counter`` that moves 1 s at every reading, so each solve "lasts" long."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 1.0
        return self.now


def test_the_probe_is_skipped_after_a_strengthened_solve_longer_than_it(monkeypatch):
    real_solve = HighsMatrixSolver.solve
    mip_limits = []

    def probe_always_stopped(self, **kwargs):
        result = real_solve(self, **kwargs)
        if self.is_mip:
            mip_limits.append(kwargs.get("time_limit"))
            if kwargs.get("time_limit") == 5.0:
                return SolveResult(Status.TIME_LIMIT, result.objective, None, result.wall_time,
                                   result.solver, "kTimeLimit", result.has_solution)
        return result

    monkeypatch.setattr(HighsMatrixSolver, "solve", probe_always_stopped)
    monkeypatch.setattr(_bh_cuts, "time", _SlowClock())
    monkeypatch.setattr(_bh_cuts, "_NEIGHBOURHOOD_FRACTIONAL_SHARE", 0.0)  # no neighbourhood MIP
    problem, _ = three_groups_problem(seed=5)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=5.0, mip_gap=0.0)
    first = program.solve()
    program.set_centers(np.array([[1.0, 0.5], [0.5, 2.5]]))
    second = program.solve()
    assert mip_limits[0] == 5.0 and 5.0 not in mip_limits[1:]
    assert first.solves[0].timing["probe"] > 0 and second.solves[0].timing["probe"] == 0.0
    plain = BHAssignmentProgram(problem, centers=np.array([[1.0, 0.5], [0.5, 2.5]]),
                                decompose=False, cuts_after=None, mip_gap=0.0)
    monkeypatch.setattr(HighsMatrixSolver, "solve", real_solve)
    assert second.objective == pytest.approx(plain.solve().objective, rel=1e-9)


def test_a_solve_within_the_probe_keeps_probing(monkeypatch):
    # Fast steps (the clock does not move): the rule never skips a probe.
    real_solve = HighsMatrixSolver.solve
    mip_limits = []

    def record(self, **kwargs):
        if self.is_mip:
            mip_limits.append(kwargs.get("time_limit"))
        return real_solve(self, **kwargs)

    monkeypatch.setattr(HighsMatrixSolver, "solve", record)
    problem, _ = three_groups_problem(seed=5)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=5.0, mip_gap=0.0)
    program.solve(time_limit=60.0)
    program.set_centers(np.array([[1.0, 0.5], [0.5, 2.5]]))
    program.solve(time_limit=60.0)
    assert mip_limits == [5.0, 5.0]
