"""BHKMeans under a time limit its solver does not keep, and the progress of a long step.

HiGHS 1.16 ignored a 60-s limit for 300 s in a root heuristic on P at 100,000 objects; here
every MIP goes to a stand-in child process that never returns, on a tiny instance.
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np

import ccopt.models._bh_rows
import ccopt.solvers
from ccopt import Constraints, Status
from ccopt._timing import Deadline
from ccopt.cluster._bh_kmeans import BHKMeans
from ccopt.generators import make_gaussian_clusters
from ccopt.models.bh_assignment import BHAssignmentProgram
from tests._terminal import Terminal


def instance():
    X, y = make_gaussian_clusters(60, 3, center_std=1.5, cluster_std=1.0, random_state=0)
    pairs = np.random.default_rng(0).choice(60, size=(20, 2), replace=False)
    return X, Constraints.from_labels(y, pairs)


def test_a_fit_whose_solver_overruns_stops_at_its_time_limit(monkeypatch, tmp_path):
    monkeypatch.setattr(ccopt.models._bh_rows, "_ISOLATE_FROM", 1)
    child = tmp_path / "child.py"
    child.write_text("import time; time.sleep(120)")  # HiGHS's child, ignoring its limit
    monkeypatch.setattr(ccopt.solvers, "_HIGHS_CHILD", str(child))
    monkeypatch.setattr(ccopt.solvers, "_CHILD_GRACE_SECONDS", 0.2)
    X, cons = instance()
    started = time.perf_counter()
    # decompose=False: P goes to the solver whole (the components alone need none here).
    est = BHKMeans(3, time_limit=1.0, decompose=False, random_state=0).fit(X, constraints=cons)
    assert time.perf_counter() - started < 60  # the stand-in sleeps for 120 s
    assert est.status_ is Status.TIME_LIMIT
    assert est.n_iter_ == 1 and est.n_solves_time_limited_ == 1
    assert est.history_[0]["solve_status"] == "time_limit"
    assert np.bincount(est.labels_, minlength=3).min() > 0


def test_a_step_shows_its_phase_on_the_bar(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    X, cons = instance()
    BHKMeans(3, decompose=False, random_state=0, progress="always").fit(X, constraints=cons)
    shown = terminal.getvalue()
    assert "step 1: assignment" in shown
    assert "step 1: solver: full P," in shown


def test_a_step_cut_short_by_the_spent_budget_does_not_count_as_convergence(monkeypatch):
    # The second step stops on the time limit with no better labelling than the first: the
    # fit stops there, as a time limit, not as "converged".
    X, cons = instance()
    original = BHAssignmentProgram.solve
    first = {}

    def second_step_stopped(self, **kwargs):
        result = original(self, **kwargs)
        if not first:
            first["labels"] = result.labels
            return result
        return dataclasses.replace(result, labels=first["labels"], status=Status.TIME_LIMIT)

    readings = iter([False, False, True])  # expired() before step 2, then after it
    monkeypatch.setattr(BHAssignmentProgram, "solve", second_step_stopped)
    monkeypatch.setattr(Deadline, "expired", lambda self: next(readings))
    est = BHKMeans(3, time_limit=600.0, random_state=0).fit(X, constraints=cons)
    assert est.status_ is Status.TIME_LIMIT
    assert est.n_iter_ == 1
    np.testing.assert_array_equal(est.labels_, first["labels"])
