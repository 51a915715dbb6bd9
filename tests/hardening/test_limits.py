"""Time limits and interrupts of the long-running calls.

Time limits are measured with the wall clock: each call is set up so that without its
limit it would run far longer (huge ``n_init`` or ``max_iter``, no other stopping rule),
and must return within ``limit + MARGIN`` seconds (a generous margin: the machine is
shared and loaded) with status ``time_limit`` and a usable result.

Interrupts are simulated by monkeypatching an inner step to raise ``KeyboardInterrupt``
on its n-th call; the call must return what was done so far (status ``interrupted``), and
an interrupted experiment must resume from its CSV without redoing finished tasks.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import ccopt
from ccopt import Status
from ccopt.cluster import LCC, PCS, BHKMeans, COPKMeans, KMeans, MLKMeans, PCKMeans
from ccopt.experiments import (
    clustering_task,
    grid_tasks,
    impact_score_task,
    read_results,
    run_experiment,
)
from ccopt.generators import make_gaussian_clusters, noisy_constraints
from ccopt.lagrange.baselines import erroneous_fraction_by_k, optimistic_baseline
from ccopt.lagrange.oracles import MSSCLloydOracle
from ccopt.models.bh_assignment import BHAssignmentProgram
from tests.hardening._api import cannot_links_ignored

LIMIT = 0.3
MARGIN = 3.0


@pytest.fixture(scope="module")
def instance():
    """200 points in 4 overlapping groups with 30 noisy constraints (seeded)."""
    X, y = make_gaussian_clusters(200, 4, cluster_std=2.0, random_state=1)
    cons = noisy_constraints(y, 30, 6, random_state=1).constraints
    return X, y, cons


def _timed(call):
    with warnings.catch_warnings():
        # On a loaded machine the limit may end a scoring run before its multipliers moved.
        warnings.filterwarnings("ignore", message="The scores were not computed",
                                category=ccopt.ConvergenceWarning)
        start = time.perf_counter()
        out = call()
        return out, time.perf_counter() - start


def _feasible(labels, cons) -> bool:
    return cons.violations(labels).total == 0


# ============================================================================ time limits
ESTIMATORS = {
    "KMeans": lambda: KMeans(4, n_init=10**6, time_limit=LIMIT, random_state=0),
    "COPKMeans": lambda: COPKMeans(4, n_init=10**6, time_limit=LIMIT, random_state=0),
    "PCKMeans": lambda: PCKMeans(4, n_init=10**6, time_limit=LIMIT, random_state=0),
    "LCC": lambda: LCC(4, n_init=10**6, time_limit=LIMIT, random_state=0),
    "PCS": lambda: PCS(4, sizes=[50] * 4, n_init=10**6, time_limit=LIMIT, random_state=0, progress=False),
    "MLKMeans": lambda: MLKMeans(4, n_init=10**6, time_limit=LIMIT, random_state=0),
    # At least one assignment is always solved, with at least 1 s of solver time.
    "BHKMeans": lambda: BHKMeans(4, n_init=10**6, time_limit=LIMIT, random_state=0),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimators_stop_on_time_and_return_their_best_run(instance, name):
    X, _, cons = instance
    if name == "MLKMeans":  # Jia et al.'s method takes must-links and disjoint cannot-links only
        cons = cons.subset(cons.ml_mask)
    with cannot_links_ignored(name == "KMeans"):
        est, seconds = _timed(lambda: ESTIMATORS[name]().fit(X, constraints=cons))
    floor = 1.0 if name == "BHKMeans" else 0.0
    assert seconds < max(LIMIT, floor) + MARGIN
    assert est.status_ == Status.TIME_LIMIT
    assert est.labels_.shape == (X.shape[0],) and np.unique(est.labels_).size <= 4
    if name in ("COPKMeans", "MLKMeans"):
        assert _feasible(est.labels_, cons)


@pytest.mark.parametrize("criterion", ["mssc", "kmedoids"])
def test_impact_scores_stop_on_time_with_scores_and_a_feasible_clustering(instance, criterion):
    X, _, cons = instance
    result, seconds = _timed(lambda: ccopt.impact_scores(
        X, 4, constraints=cons, criterion=criterion, max_iter=10**7, stagnation_iter=None, gap_tol=0.0,
        time_limit=LIMIT, random_state=0, progress=False))
    assert seconds < LIMIT + MARGIN
    assert result.status == Status.TIME_LIMIT and result.n_iter >= 1
    assert result.scores.shape == (cons.n_given,) and (result.scores <= 0).all()
    assert result.lower_bound <= result.upper_bound
    assert _feasible(result.labels, cons)


def test_experiment_tasks_honour_their_time_limit(tmp_path):
    """The runner passes each task's time limit on; every task stops on it."""
    tasks = grid_tasks({"data": "synthetic", "n_samples": 150, "n_classes": 3, "constraint_fraction": 0.2,
                        "error_fraction": 0.2, "criterion": "mssc", "max_iter": 10**7,
                        "stagnation_iter": None, "gap_tol": 0.0, "time_limit": LIMIT},
                       instance_seed=[0, 1])
    result, seconds = _timed(lambda: run_experiment(tasks, impact_score_task, tmp_path / "r.csv",
                                                    progress=False))
    assert seconds < len(tasks) * LIMIT + MARGIN
    assert [r["status"] for r in result.records] == ["time_limit"] * len(tasks)
    assert all(r["run_seconds"] < LIMIT + MARGIN for r in result.records)


@pytest.mark.slow
def test_baselines_honour_their_time_limit(instance):
    X, _, cons = instance
    base, seconds = _timed(lambda: optimistic_baseline(X, 4, constraints=cons, criterion="mssc",
                                                       solver_mode="heuristic", n_init=10**4,
                                                       time_limit=2.0, random_state=0, progress=False))
    assert seconds < 2.0 * (1 + 1 / len(cons)) + MARGIN
    assert base.status == Status.TIME_LIMIT
    sweep, seconds = _timed(lambda: erroneous_fraction_by_k(
        X, [3, 4], constraints=cons, criterion="mssc", max_iter=10**7, stagnation_iter=None,
        gap_tol=0.0, time_limit=2.0, random_state=0, progress=False))
    assert seconds < 2.0 + MARGIN
    assert [r.status for r in sweep.results] == [Status.TIME_LIMIT] * 2


# ============================================================================ interrupts
def _raise_on_call(monkeypatch, cls, name: str, at: int):
    """Make ``cls.name`` raise KeyboardInterrupt on its ``at``-th call; return the call counter."""
    original = getattr(cls, name)
    calls = {"n": 0}

    def wrapper(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == at:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, wrapper)
    return calls


def test_interrupting_the_subgradient_returns_the_scores_so_far(instance, monkeypatch):
    X, _, cons = instance
    options = {"criterion": "mssc", "stagnation_iter": None, "gap_tol": 0.0, "random_state": 3,
               "progress": False}
    reference = ccopt.impact_scores(X, 4, constraints=cons, max_iter=7, **options)
    _raise_on_call(monkeypatch, MSSCLloydOracle, "solve", at=8)
    result = ccopt.impact_scores(X, 4, constraints=cons, max_iter=1000, **options)
    assert result.status == Status.INTERRUPTED and reference.status == Status.ITERATION_LIMIT
    assert result.n_iter == reference.n_iter == 7
    np.testing.assert_array_equal(result.scores, reference.scores)
    assert result.lower_bound == reference.lower_bound
    assert _feasible(result.labels, cons)


def test_interrupting_bh_kmeans_returns_the_labels_of_the_finished_steps(instance, monkeypatch):
    X, _, cons = instance
    with pytest.warns(ccopt.ConvergenceWarning, match="max_iter=1"):
        reference = BHKMeans(4, max_iter=1, random_state=5).fit(X, constraints=cons)
    calls = _raise_on_call(monkeypatch, BHAssignmentProgram, "solve", at=2)
    est = BHKMeans(4, max_iter=50, random_state=5).fit(X, constraints=cons)
    assert calls["n"] == 2
    assert est.status_ == Status.INTERRUPTED
    np.testing.assert_array_equal(est.labels_, reference.labels_)
    assert est.objective_ == reference.objective_


def test_interrupting_bh_kmeans_before_any_labelling_exists_propagates(instance, monkeypatch):
    X, _, cons = instance
    _raise_on_call(monkeypatch, BHAssignmentProgram, "solve", at=1)
    with pytest.raises(KeyboardInterrupt):
        BHKMeans(4, random_state=5).fit(X, constraints=cons)


def test_an_interrupted_experiment_resumes_from_its_csv_without_redoing_tasks(tmp_path, monkeypatch):
    tasks = grid_tasks({"data": "synthetic", "n_samples": 40, "n_classes": 2, "constraint_fraction": 0.2,
                        "error_fraction": 0.2, "algorithm": "cop-kmeans"}, instance_seed=[0, 1, 2, 3, 4])
    whole = run_experiment(tasks, clustering_task, tmp_path / "whole.csv", random_state=7, progress=False)

    path = tmp_path / "part.csv"
    calls = _raise_on_call(monkeypatch, COPKMeans, "fit", at=3)
    first = run_experiment(tasks, clustering_task, path, random_state=7, progress=False)
    assert first.interrupted and first.n_run == 2 and len(read_results(path)) == 2
    monkeypatch.undo()

    calls = _raise_on_call(monkeypatch, COPKMeans, "fit", at=0)  # count only
    second = run_experiment(tasks, clustering_task, path, random_state=7, progress=False)
    assert not second.interrupted and second.n_skipped == 2 and second.n_run == 3
    assert calls["n"] == 3  # the finished tasks were not fitted again

    def stable(records):
        return [{k: v for k, v in r.items() if k not in ("seconds", "run_seconds")} for r in records]

    assert stable(read_results(path)) == stable(read_results(tmp_path / "whole.csv"))
    assert stable(second.records) == stable(whole.records)
