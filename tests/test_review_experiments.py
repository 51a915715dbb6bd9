"""Regressions found in the review of generators, experiments and plotting."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection

from ccopt import Constraints
from ccopt.exceptions import InvalidDataError, InvalidParameterError
from ccopt.experiments import read_results, run_experiment
from ccopt.generators import cs_constraint_sets, nested_noisy_constraints
from ccopt.plotting import plot_constraint_scores, plot_k_sweep, project_2d

LABELS = np.repeat([0, 1, 2], 20)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------- generators
@pytest.mark.parametrize(("fractions", "key"), [
    ((0.15, 0.152), "15"),
    ((0.115, 0.125), "12"),   # round() rounds halves to even: 11.5 and 12.5 both give 12
])
def test_two_fractions_with_one_set_name_are_refused_not_silently_merged(fractions, key):
    # Before the fix the dict kept one entry: the set of the smaller fraction was lost.
    with pytest.raises(InvalidParameterError, match=f"would both be named 'p{key}'"):
        nested_noisy_constraints(LABELS, fractions, random_state=0)
    with pytest.raises(InvalidParameterError, match=f"would both be named 'CS{key}-regenerated'"):
        cs_constraint_sets(LABELS, fractions, random_state=0)


def test_fractions_with_distinct_names_still_give_one_set_each():
    sets = nested_noisy_constraints(LABELS, (0.15, 0.16), random_state=0)
    assert list(sets) == ["p15", "p16"]
    # ceil(0.15 * 60) = 9 and ceil(0.16 * 60) = 10 constraints.
    assert [len(s.constraints) for s in sets.values()] == [9, 10]
    assert list(cs_constraint_sets(LABELS, (0.15, 0.16), random_state=0)) == ["CS15-regenerated",
                                                                           "CS16-regenerated"]


# --------------------------------------------------------------------------- experiments
FAILING: set[int] = set()


def _flaky_task(config: dict) -> dict:
    """Fails for the x listed in FAILING (serial runs only: the set lives in this process)."""
    if config["x"] in FAILING:
        raise ValueError(f"x={config['x']} failed")
    return {"value": config["seed"] % 1000}


def test_a_retried_failed_task_replaces_its_row_instead_of_adding_a_second(tmp_path):
    out = tmp_path / "sweep.csv"
    tasks = [{"x": 0}, {"x": 1}, {"x": 2}]
    FAILING.clear()
    FAILING.update({1, 2})
    try:
        first = run_experiment(tasks, _flaky_task, out, progress=False, on_error="record")
        assert first.n_failed == 2
        FAILING.discard(1)   # x=1 now succeeds, x=2 fails again
        second = run_experiment(tasks, _flaky_task, out, progress=False, on_error="record")
    finally:
        FAILING.clear()
    assert (second.n_run, second.n_skipped, second.n_failed) == (2, 1, 1)
    rows = read_results(out)
    # One row per task, as the records of the run: no stale failed row left behind.
    assert sorted(r["x"] for r in rows) == [0, 1, 2]
    by_x = {r["x"]: r for r in rows}
    assert by_x[1]["error"] is None and by_x[1]["value"] == second.where(x=1)[0]["value"]
    assert by_x[2]["error"] == "ValueError: x=2 failed"
    assert by_x[0] == {**first.where(x=0)[0]}
    third = run_experiment(tasks, _flaky_task, out, progress=False, on_error="record")  # x=2 succeeds now
    assert (third.n_run, third.n_skipped, third.n_failed) == (1, 2, 0)
    rows = read_results(out)
    assert sorted(r["x"] for r in rows) == [0, 1, 2] and all(r["error"] is None for r in rows)


def _undefined_task(config: dict) -> dict:
    """Results that are not finite: an F1 with nothing predicted, an unbounded gap."""
    return {"f1": float("nan"), "gap": float("inf"), "bounds": [1.0, float("-inf")]}


def test_non_finite_task_results_are_kept_not_refused(tmp_path):
    out = tmp_path / "undefined.csv"
    result = run_experiment([{"x": 0}], _undefined_task, out, progress=False)
    for row in (result.records[0], read_results(out)[0]):  # in memory and read back
        assert np.isnan(row["f1"]) and row["gap"] == np.inf
        assert row["bounds"][0] == 1.0 and row["bounds"][1] == -np.inf


def _unusable_result_task(config: dict):
    return [1, 2] if config["x"] == 1 else {"value": config["x"]}


def test_an_unusable_task_result_is_a_recorded_failure_with_on_error_record(tmp_path):
    out = tmp_path / "unusable.csv"
    result = run_experiment([{"x": 0}, {"x": 1}, {"x": 2}], _unusable_result_task, out,
                            progress=False, on_error="record")
    assert result.n_failed == 1
    rows = {r["x"]: r for r in read_results(out)}
    assert sorted(rows) == [0, 1, 2]
    assert rows[1]["error"].startswith("InvalidParameterError: The task function must return a dict")
    assert rows[0]["value"] == 0 and rows[2]["value"] == 2
    with pytest.raises(InvalidParameterError, match="must return a dict"):
        run_experiment([{"x": 1}], _unusable_result_task, tmp_path / "raise.csv", progress=False)


# --------------------------------------------------------------------------- plotting
# numpy warns about the all-NaN columns (the mean of failed runs is undefined); that is fine.
_NAN_WARNINGS = (pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning"),
                 pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning"))


@_NAN_WARNINGS[0]
@_NAN_WARNINGS[1]
def test_k_sweep_with_every_fraction_nan_draws_no_minimum_and_does_not_raise():
    before = set(plt.get_fignums())
    fig = plot_k_sweep([2, 3, 4], [[np.nan] * 3, [np.nan] * 3])
    assert set(plt.get_fignums()) - before == {fig.number}
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["fraction predicted erroneous"]


@_NAN_WARNINGS[0]
@_NAN_WARNINGS[1]
def test_k_sweep_minimum_ignores_failed_runs():
    fraction = [[0.4, np.nan, 0.3], [0.2, np.nan, 0.5]]   # means 0.3, NaN, 0.4: minimum at k=2
    ax = plot_k_sweep([2, 3, 4], fraction).axes[0]
    marker = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert len(marker) == 1 and list(marker[0].get_xdata()) == [2.0, 2.0]


def test_project_2d_of_a_single_object_with_many_features():
    # Centred, the one object sits at the origin of both axes.
    coords, labels = project_2d(np.array([[1.0, 2.0, 3.0]]))
    np.testing.assert_array_equal(coords, np.zeros((1, 2)))
    assert labels[0].startswith("PC1") and labels[1].startswith("PC2")


def test_constraint_score_colours_span_the_finite_scores_when_some_are_nan():
    X = np.arange(12, dtype=float).reshape(6, 2)
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3), (4, 5)], n_samples=6)
    scores = np.array([np.nan, -3.0, -1.0])
    fig = plot_constraint_scores(X, constraints=cons, scores=scores)
    coloured = [c for c in fig.axes[0].collections if isinstance(c, LineCollection) and c.get_array() is not None]
    assert coloured
    for collection in coloured:
        assert (collection.norm.vmin, collection.norm.vmax) == (np.nanmin(scores), 0.0)


# --------------------------------------------------------------------------- datasets
def test_hand_built_dataset_refuses_constraint_sets_that_do_not_fit_its_data():
    from ccopt.datasets import Dataset

    X = np.zeros((4, 2))
    with pytest.raises(InvalidDataError, match="names object 7"):
        Dataset(X=X, labels=None, name="toy", feature_names=("a", "b"), constraint_sets={"p": Constraints.from_pairs(ml=[(0, 7)])})
    with pytest.raises(InvalidDataError, match="is a list, not Constraints"):
        Dataset(X=X, labels=None, name="toy", feature_names=("a", "b"), constraint_sets={"p": [(0, 1)]})
    ok = Dataset(X=X, labels=None, name="toy", feature_names=("a", "b"), constraint_sets={"p": Constraints.from_pairs(ml=[(0, 3)])})
    assert len(ok.constraint_sets["p"]) == 1


@pytest.mark.parametrize("options", [{"n_jobs": 0}, {"backend": "multiprocessing"}, {"progress": "never"}])
def test_a_bad_run_option_leaves_no_results_file(tmp_path, options):
    out = tmp_path / "results.csv"
    with pytest.raises(InvalidParameterError):
        run_experiment([{"a": 1}], _one_row, out, **options)
    assert list(tmp_path.iterdir()) == []


def _one_row(config):
    return {"x": config["a"]}
