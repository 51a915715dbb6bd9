"""Time limits inside BH-kmeans' assignment step: the local search and HiGHS stop at them.

No test waits for a large solve. The local search runs on a fake clock; HiGHS's child process
(``HighsMatrixSolver(isolate_from=...)``, used by :class:`ccopt.models._bh_rows.MatrixRows`) is
replaced by a script that ignores its limit, as HiGHS 1.16 does inside its root heuristic.
"""

from __future__ import annotations

import itertools
import time
import types

import numpy as np
import pytest
import scipy.sparse as sp

import ccopt.models._bh_rows
import ccopt.models._bh_search
import ccopt.models.bh_assignment
import ccopt.solvers
from ccopt import Status
from ccopt.exceptions import SolverError
from ccopt.models._bh_search import _CLOCK_EVERY, MoveGraph, improve, single_moves
from ccopt.models.bh_assignment import _SEARCH_FLOOR, BHAssignmentProgram
from ccopt.solvers import HighsMatrixSolver, SolverOptions

from .bh_brute import brute_force, make_problem, random_instance

# A child that writes no solution and sleeps far beyond any limit of these tests.
SLEEPING_CHILD = "import time; time.sleep(120)"
# A child that reports the all-zero point as its incumbent, then sleeps.
ZERO_INCUMBENT_CHILD = """
import os, sys, time
import numpy as np
folder = sys.argv[1]
np.save(os.path.join(folder, "incumbent.npy"), np.zeros(int(np.load(os.path.join(folder, "program.npz"))["shape"][1])))
time.sleep(120)
"""


def use_child(monkeypatch, folder, program: str) -> None:
    """Run ``program`` as HiGHS's child process (a file, as ``ccopt/_highs_child.py`` is)."""
    path = folder / "child.py"
    path.write_text(program)
    monkeypatch.setattr(ccopt.solvers, "_HIGHS_CHILD", str(path))


def fake_clock(monkeypatch, module, readings):
    """Make ``module.time.perf_counter`` return ``readings`` one after the other."""
    ticks = iter(readings)
    monkeypatch.setattr(module, "time", types.SimpleNamespace(perf_counter=lambda: float(next(ticks))))


def unlinked_nodes(n=300, k=3):
    """Nodes without rows, all but two in cluster 0, each cheapest in cluster 1."""
    empty = sp.csr_matrix((n, n))
    graph = MoveGraph(n_clusters=k, sizes=np.ones(n), ml=empty, cl=empty, hard_cl=empty,
                      movable=np.ones(n, dtype=bool), min_size=None, max_size=None)
    labels = np.zeros(n, dtype=np.int64)
    labels[-2:] = [1, 2]
    cost = np.tile([1.0, 0.0, 2.0], (n, 1))
    return graph, labels, cost


def test_single_moves_stop_at_the_deadline_with_the_moves_made_so_far(monkeypatch):
    graph, labels, cost = unlinked_nodes()
    untimed = single_moves(graph, labels, cost, 1.0)
    assert (untimed[:-3] == 1).all()  # the last node of cluster 0 stays: it may not empty it
    # The clock is read every _CLOCK_EVERY nodes; the second reading is past the deadline.
    fake_clock(monkeypatch, ccopt.models._bh_search, [0.0, 10.0])
    stopped = single_moves(graph, labels, cost, 1.0, end=5.0)
    assert (stopped[:_CLOCK_EVERY] == 1).all()
    np.testing.assert_array_equal(stopped[_CLOCK_EVERY:], labels[_CLOCK_EVERY:])
    assert cost[np.arange(labels.size), stopped].sum() < cost[np.arange(labels.size), labels].sum()


def test_a_search_given_a_past_deadline_moves_nothing(monkeypatch):
    graph, labels, cost = unlinked_nodes()
    fake_clock(monkeypatch, ccopt.models._bh_search, itertools.repeat(10.0))
    np.testing.assert_array_equal(single_moves(graph, labels, cost, 1.0, end=5.0), labels)
    components = np.arange(labels.size)
    np.testing.assert_array_equal(improve(graph, components, labels, cost, 1.0, end=5.0), labels)


def test_the_search_after_a_stopped_solve_gets_the_time_left_or_its_floor(monkeypatch):
    # No solver is reached (decompose=False and a spent limit): the search after it is given
    # the floor of a spent search limit, not an unlimited time.
    X, centers, k, rows, penalty, _, _ = random_instance(11, n=7, k=3, max_rows=6, hard_prob=0.0)
    program = BHAssignmentProgram(make_problem(X, k, rows), penalty=penalty, decompose=False,
                                  centers=centers)
    ends = []
    original = ccopt.models.bh_assignment.improve

    def spy(*args, end=None, **kwargs):
        ends.append((end, time.perf_counter()))
        return original(*args, end=end, **kwargs)

    monkeypatch.setattr(ccopt.models.bh_assignment, "improve", spy)
    result = program.solve(time_limit=1e-9, search_time_limit=1e-9)
    assert result.status is Status.TIME_LIMIT and result.solves == ()
    assert ends and all(end is not None and end - now <= _SEARCH_FLOOR for end, now in ends)
    # A per-solve limit alone leaves the search unlimited, as it was: the caller's overall
    # time is what bounds it.
    ends.clear()
    program.solve(time_limit=1e-9)
    assert ends and all(end is None for end, _ in ends)
    costs, _ = brute_force(X, centers, k, rows, penalty)
    assert np.isfinite(result.objective) and result.objective >= costs.min() - 1e-9


def packing_mip(isolate_from=None):
    """max sum c x over binaries x with A x <= 3: HiGHS solves it to optimality in well under a second."""
    rng = np.random.default_rng(0)
    n, m = 60, 40
    A = sp.random(m, n, density=0.1, random_state=1, format="csc")
    A.data[:] = rng.random(A.nnz) + 0.5
    return HighsMatrixSolver(-rng.random(n), A, np.full(m, -np.inf), np.full(m, 3.0), np.zeros(n),
                             np.ones(n), integrality=np.ones(n, dtype=bool), options=SolverOptions(),
                             isolate_from=isolate_from)


def test_a_mip_solved_in_a_child_process_gives_the_in_process_answer():
    here, there = packing_mip(), packing_mip(isolate_from=1)
    ours, theirs = here.solve(time_limit=60), there.solve(time_limit=60)
    assert ours.status is theirs.status is Status.OPTIMAL
    assert theirs.objective == pytest.approx(ours.objective, rel=1e-9)
    assert theirs.bound == pytest.approx(ours.bound, rel=1e-9)
    np.testing.assert_allclose(there.col_value, here.col_value)
    # Untimed solves never leave the process: nothing would stop them anyway.
    assert packing_mip(isolate_from=1).solve().termination == "kOptimal"


def test_a_child_that_overruns_its_limit_is_stopped_and_its_incumbent_kept(monkeypatch, tmp_path):
    use_child(monkeypatch, tmp_path, ZERO_INCUMBENT_CHILD)
    monkeypatch.setattr(ccopt.solvers, "_CHILD_GRACE_SECONDS", 0.5)
    mip = packing_mip(isolate_from=1)
    started = time.perf_counter()
    result = mip.solve(time_limit=2.0, require_solution=False)
    assert time.perf_counter() - started < 60  # the child sleeps for 120 s
    assert result.status is Status.TIME_LIMIT and result.termination == "killed"
    assert result.has_solution and result.objective == 0.0 and result.bound is None
    np.testing.assert_array_equal(mip.col_value, np.zeros(60))


def test_a_child_that_fails_raises_with_its_error(monkeypatch, tmp_path):
    use_child(monkeypatch, tmp_path, "import sys; sys.exit('the child broke')")
    with pytest.raises(SolverError, match=r"child process failed \(exit code 1\): the child broke"):
        packing_mip(isolate_from=1).solve(time_limit=5.0)


def test_a_step_whose_solver_overruns_returns_at_its_limit(monkeypatch, tmp_path):
    # P at 100,000 objects: HiGHS ignored a 60-s limit for 300 s in its root heuristic. In
    # miniature: every MIP goes to a child that never returns.
    monkeypatch.setattr(ccopt.models._bh_rows, "_ISOLATE_FROM", 1)
    use_child(monkeypatch, tmp_path, SLEEPING_CHILD)
    monkeypatch.setattr(ccopt.solvers, "_CHILD_GRACE_SECONDS", 0.2)
    X, centers, k, rows, penalty, _, _ = random_instance(11, n=7, k=3, max_rows=6, hard_prob=0.0)
    program = BHAssignmentProgram(make_problem(X, k, rows), penalty=penalty, decompose=False,
                                  centers=centers)
    started = time.perf_counter()
    result = program.solve(time_limit=1.0)
    assert time.perf_counter() - started < 60
    assert result.status is Status.TIME_LIMIT
    assert [solve.termination for solve in result.solves] == ["killed"]
    costs, _ = brute_force(X, centers, k, rows, penalty)
    assert np.isfinite(result.objective) and result.objective >= costs.min() - 1e-9


def test_a_stopped_child_falls_back_on_a_feasible_start(monkeypatch, tmp_path):
    # HiGHS adopts a feasible start as its incumbent without reporting it as an improvement;
    # stopped by its own limit it would have returned it (or better).
    use_child(monkeypatch, tmp_path, SLEEPING_CHILD)
    monkeypatch.setattr(ccopt.solvers, "_CHILD_GRACE_SECONDS", 0.2)
    mip = packing_mip(isolate_from=1)
    start = np.zeros(60)
    start[0] = 1.0
    mip.set_start(start)
    result = mip.solve(time_limit=0.5, require_solution=False)
    assert result.status is Status.TIME_LIMIT and result.has_solution
    np.testing.assert_array_equal(mip.col_value, start)
    mip.set_start(np.full(60, 0.5))  # not integral: no incumbent
    assert not mip.solve(time_limit=0.5, require_solution=False).has_solution
