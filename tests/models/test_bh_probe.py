"""The probe of the clique-row strengthening skipped after a strengthened solve longer than it.

HiGHS restarts a stopped MIP from scratch, so a probe that the next solve would outlast as
well costs its seconds for nothing; the answer stays P's optimum (checked against the
program without rows).
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.models import _bh_cuts
from ccopt.models.bh_assignment import BHAssignmentProgram
from ccopt.solvers import HighsMatrixSolver, SolveResult
from ccopt.status import Status

from .test_bh_cuts import three_groups_problem


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
