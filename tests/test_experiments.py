"""Experiment runners: determinism, resume, interrupts, recorded errors, task functions."""

from __future__ import annotations

import csv
import json
import re
import sys
import time

import numpy as np
import pytest

from ccopt.exceptions import InvalidParameterError
from ccopt.experiments import (
    Experiment,
    clustering_task,
    constraint_set_ranking,
    constraint_set_selection,
    constraint_set_task,
    grid_tasks,
    impact_score_task,
    k_sweep_tasks,
    load_instance,
    make_estimator,
    read_results,
    run_experiment,
    synthetic_tasks,
    task_key,
)

CALLS: list[dict] = []


def _noise_task(config: dict) -> dict:
    """Cheap seeded task; records its calls (serial runs only)."""
    CALLS.append(dict(config))
    draws = np.random.default_rng(config["seed"]).normal(size=config.get("size", 2))
    if config.get("fail"):
        raise ValueError("asked to fail")
    if config.get("interrupt"):
        raise KeyboardInterrupt
    return {"mean": float(draws.mean()), "first": float(draws[0]), "label": f"x{config['x']}"}


@pytest.fixture(autouse=True)
def _reset_calls():
    CALLS.clear()


def _rows(path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _without_timing(records):
    return [{k: v for k, v in r.items() if k not in ("seconds", "run_seconds")} for r in records]


# --------------------------------------------------------------------------- configurations
def test_grid_tasks_is_the_cartesian_product_last_axis_fastest():
    tasks = grid_tasks({"data": "iris"}, k=[2, 3], seed=[0, 1, 2])
    assert len(tasks) == 6
    assert [(t["k"], t["seed"]) for t in tasks] == [(2, 0), (2, 1), (2, 2), (3, 0), (3, 1), (3, 2)]
    assert all(t["data"] == "iris" for t in tasks)
    with pytest.raises(InvalidParameterError, match="grid axis 'k' must be a list of values"):
        grid_tasks(k="23")


def test_task_key_ignores_key_order_but_not_values():
    assert task_key({"a": 1, "b": [1, 2]}) == task_key({"b": [1, 2], "a": 1})
    assert task_key({"a": 1}) != task_key({"a": 2})
    assert task_key({"a": np.int64(1)}) == task_key({"a": 1})


@pytest.mark.parametrize(("task", "match"), [
    ({"x": object()}, r"task 0 setting 'x' is a object"),
    ({"x": float("nan")}, r"task 0 setting 'x' is nan; configurations hold finite numbers"),
    ({"error": 1}, r"task 0 uses the reserved name 'error'"),
    ({"seed": -2}, r"task 0 has seed=-2; a seed is a non-negative int"),
    (["x"], r"task 0 must be a dict of settings, got list"),
])
def test_bad_task_configurations_are_named(task, match):
    with pytest.raises(InvalidParameterError, match=match):
        run_experiment([task], _noise_task, progress=False)


# --------------------------------------------------------------------------- runner
def test_same_random_state_same_rows_and_seeds_do_not_depend_on_position():
    tasks = grid_tasks({"size": 3}, x=[0, 1, 2, 3])
    first = run_experiment(tasks, _noise_task, progress=False, random_state=5)
    again = run_experiment(tasks, _noise_task, progress=False, random_state=5)
    assert _without_timing(first.records) == _without_timing(again.records)
    backwards = run_experiment(tasks[::-1], _noise_task, progress=False, random_state=5)
    assert {r["x"]: r["seed"] for r in backwards.records} == {r["x"]: r["seed"] for r in first.records}
    other = run_experiment(tasks, _noise_task, progress=False, random_state=6)
    assert [r["seed"] for r in other.records] != [r["seed"] for r in first.records]
    # Each task's result is its function on its own seed (recomputed independently here).
    for record in first.records:
        assert record["first"] == np.random.default_rng(record["seed"]).normal(size=3)[0]


def test_explicit_seed_in_a_configuration_is_used():
    result = run_experiment([{"x": 0, "seed": 42}], _noise_task, progress=False)
    assert result.records[0]["seed"] == 42
    assert CALLS[0]["seed"] == 42


def test_duplicate_configurations_run_once():
    result = run_experiment([{"x": 1}, {"x": 1}], _noise_task, progress=False)
    assert len(result) == 1 and len(CALLS) == 1


def test_two_workers_give_exactly_the_serial_rows(tmp_path):
    tasks = grid_tasks({"size": 4}, x=list(range(6)))
    serial = run_experiment(tasks, _noise_task, tmp_path / "serial.csv", progress=False, random_state=3)
    parallel = run_experiment(tasks, _noise_task, tmp_path / "parallel.csv", n_jobs=2, progress=False,
                              random_state=3)
    assert _without_timing(parallel.records) == _without_timing(serial.records)
    strip = [{k: v for k, v in row.items() if k != "seconds"} for row in _rows(tmp_path / "serial.csv")]
    assert strip == [{k: v for k, v in row.items() if k != "seconds"} for row in _rows(tmp_path / "parallel.csv")]


def test_csv_and_json_hold_configuration_and_results(tmp_path):
    out = tmp_path / "run.csv"
    result = run_experiment(grid_tasks(x=[0, 1]), _noise_task, out, progress=False, random_state=9,
                            name="demo")
    rows = _rows(out)
    assert [row["x"] for row in rows] == ["0", "1"]
    assert {"task", "seed", "x", "mean", "first", "label", "seconds", "error"} == set(rows[0])
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["name"] == "demo" and meta["random_state"] == 9 and meta["n_done"] == 2
    assert meta["function"].endswith("_noise_task")
    assert [t["config"] for t in meta["tasks"]] == [{"x": 0}, {"x": 1}]
    # read_results restores the types written.
    back = read_results(out)
    assert back == [{**r, "seconds": back[i]["seconds"]} for i, r in enumerate(result.records)]


def test_resume_skips_finished_tasks(tmp_path):
    out = tmp_path / "sweep.csv"
    run_experiment(grid_tasks(x=[0, 1, 2]), _noise_task, out, progress=False)
    CALLS.clear()
    result = run_experiment(grid_tasks(x=[0, 1, 2, 3]), _noise_task, out, progress=False)
    assert [c["x"] for c in CALLS] == [3]
    assert (result.n_run, result.n_skipped) == (1, 3)
    assert [r["x"] for r in result.records] == [0, 1, 2, 3]
    assert [row["x"] for row in _rows(out)] == ["0", "1", "2", "3"]  # no duplicated rows
    CALLS.clear()
    fresh = run_experiment(grid_tasks(x=[0, 1]), _noise_task, out, progress=False, resume=False)
    assert [c["x"] for c in CALLS] == [0, 1] and fresh.n_skipped == 0
    assert [row["x"] for row in _rows(out)] == ["0", "1"]


def test_a_resumed_run_keeps_its_first_start_and_records_the_resumption(tmp_path):
    out = tmp_path / "sweep.csv"
    meta_path = tmp_path / "sweep.json"
    run_experiment(grid_tasks(x=[0, 1]), _noise_task, out, progress=False)
    first = json.loads(meta_path.read_text())
    assert "resumed" not in first
    meta_path.write_text(json.dumps({**first, "started": "2000-01-01T00:00:00+00:00"}))
    run_experiment(grid_tasks(x=[0, 1, 2]), _noise_task, out, progress=False)
    resumed = json.loads(meta_path.read_text())
    assert resumed["started"] == "2000-01-01T00:00:00+00:00" and resumed["resumed"] > resumed["started"]
    run_experiment(grid_tasks(x=[0]), _noise_task, out, progress=False, resume=False)
    fresh = json.loads(meta_path.read_text())
    assert fresh["started"] != "2000-01-01T00:00:00+00:00" and "resumed" not in fresh


def test_resume_refuses_another_random_state_and_none_reuses_the_recorded_one(tmp_path):
    out = tmp_path / "sweep.csv"
    first = run_experiment(grid_tasks(x=[0, 1]), _noise_task, out, progress=False, random_state=1)
    with pytest.raises(InvalidParameterError, match="holds rows of random_state=1, not 2"):
        run_experiment(grid_tasks(x=[0, 1, 2]), _noise_task, out, progress=False, random_state=2)
    resumed = run_experiment(grid_tasks(x=[0, 1, 2]), _noise_task, out, progress=False, random_state=None)
    assert resumed.root_seed == 1
    assert _without_timing(resumed.records[:2]) == _without_timing(first.records)


def test_interrupt_saves_finished_rows_and_resume_finishes(tmp_path):
    out = tmp_path / "sweep.csv"
    tasks = [{"x": 0}, {"x": 1}, {"x": 2, "interrupt": True}, {"x": 3}]
    result = run_experiment(tasks, _noise_task, out, progress=False)
    assert result.interrupted
    assert [r["x"] for r in result.records] == [0, 1]
    assert [row["x"] for row in _rows(out)] == ["0", "1"]
    assert json.loads((tmp_path / "sweep.json").read_text())["interrupted"] is True
    CALLS.clear()
    tasks[2] = {"x": 2}
    done = run_experiment(tasks, _noise_task, out, progress=False)
    assert not done.interrupted
    assert [c["x"] for c in CALLS] == [2, 3]
    assert [r["x"] for r in done.records] == [0, 1, 2, 3]


def _caught_interrupt_task(config: dict) -> dict:
    """A task that, like impact_scores, catches Ctrl-C and returns its best so far."""
    CALLS.append(dict(config))
    return {"status": "interrupted" if config.get("interrupt") else "optimal", "x2": 2 * config["x"]}


def test_a_task_that_caught_ctrl_c_stops_the_run_and_is_not_saved_as_finished(tmp_path):
    # Its cut-short row was saved as finished, the run went on, and a resume skipped it for good.
    out = tmp_path / "sweep.csv"
    tasks = [{"x": 0}, {"x": 1, "interrupt": True}, {"x": 2}]
    result = run_experiment(tasks, _caught_interrupt_task, out, progress=False)
    assert result.interrupted and result.n_run == 1
    assert [c["x"] for c in CALLS] == [0, 1]  # task 2 never started
    assert [row["x"] for row in _rows(out)] == ["0"]
    assert json.loads((tmp_path / "sweep.json").read_text())["interrupted"] is True
    CALLS.clear()
    tasks[1] = {"x": 1}
    done = run_experiment(tasks, _caught_interrupt_task, out, progress=False)
    assert [c["x"] for c in CALLS] == [1, 2] and done.n_skipped == 1
    assert [r["status"] for r in done.records] == ["optimal"] * 3


def test_errors_raise_by_default_and_are_recorded_and_retried_on_request(tmp_path):
    out = tmp_path / "sweep.csv"
    with pytest.raises(ValueError, match="asked to fail") as info:
        run_experiment([{"x": 0}, {"x": 1, "fail": True}], _noise_task, out, progress=False)
    assert [row["x"] for row in _rows(out)] == ["0"]
    if sys.version_info >= (3, 11):  # the error names its task (a note, since Python 3.11)
        (note,) = info.value.__notes__
        assert re.fullmatch(r"in the task x=1 fail=True seed=\d+", note)
    result = run_experiment([{"x": 0}, {"x": 1, "fail": True}, {"x": 2}], _noise_task, out,
                            progress=False, on_error="record")
    assert result.n_failed == 1
    failed = result.where(x=1)[0]
    assert failed["error"] == "ValueError: asked to fail" and "mean" not in failed
    CALLS.clear()
    run_experiment([{"x": 0}, {"x": 1, "fail": True}, {"x": 2}], _noise_task, out, progress=False,
                   on_error="record")
    assert [c["x"] for c in CALLS] == [1]  # only the failed task runs again


def _slow_first_task(config: dict) -> dict:
    """Task 0 ends (as its config asks) only once the rows of tasks 1-3 are in the CSV."""
    if config["x"] == 0:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(_rows(config["out"])) < 3:
            time.sleep(0.01)
        if config.get("fail"):
            raise ValueError("asked to fail")
        if config.get("interrupt"):
            raise KeyboardInterrupt
    return {"value": config["x"] * 10}


@pytest.mark.parametrize("ending", ["fail", "interrupt"])
def test_rows_finished_after_a_slow_task_survive_its_error_or_an_interrupt(tmp_path, ending):
    """Two workers: tasks 1-3 finish while task 0 runs; its error or Ctrl-C must not lose them."""
    out = tmp_path / "sweep.csv"
    tasks = [{"x": 0, ending: True, "out": str(out)}, {"x": 1}, {"x": 2}, {"x": 3}]
    if ending == "fail":
        with pytest.raises(ValueError, match="asked to fail"):
            run_experiment(tasks, _slow_first_task, out, n_jobs=2, backend="threading", progress=False)
    else:
        result = run_experiment(tasks, _slow_first_task, out, n_jobs=2, backend="threading",
                                progress=False)
        assert result.interrupted and [r["x"] for r in result.records] == [1, 2, 3]
    assert sorted(row["x"] for row in _rows(out)) == ["1", "2", "3"]
    assert json.loads((tmp_path / "sweep.json").read_text())["n_done"] == 3


def test_rows_are_saved_in_task_order_whatever_order_they_finish_in(tmp_path):
    out = tmp_path / "sweep.csv"
    tasks = [{"x": 0, "fail": True, "out": str(out)}, {"x": 1}, {"x": 2}, {"x": 3}]
    result = run_experiment(tasks, _slow_first_task, out, n_jobs=2, backend="threading", progress=False,
                            on_error="record")
    assert [r["x"] for r in result.records] == [0, 1, 2, 3]
    assert [row["x"] for row in _rows(out)] == ["0", "1", "2", "3"]


def test_each_finished_task_is_logged_with_its_count_and_settings(tmp_path, caplog):
    """The line a long run shows when its progress bar is hidden (stderr not a terminal)."""
    out = tmp_path / "sweep.csv"
    run_experiment([{"x": 0}], _noise_task, out, progress=False)
    with caplog.at_level("INFO", logger="ccopt.experiments"):
        run_experiment([{"x": 0}, {"x": 1, "fail": True}, {"x": 2, "size": 3}], _noise_task, out,
                       progress=False, on_error="record", name="sweep")
    done = [r.getMessage() for r in caplog.records if "tasks done" in r.getMessage()]
    assert len(done) == 2  # x=0 was finished before: resumed, not run
    assert done[0].startswith("experiment sweep: 2 of 3 tasks done (") and ", failed: x=1 fail=True" in done[0]
    assert done[1].startswith("experiment sweep: 3 of 3 tasks done (") and done[1].endswith(": x=2 size=3)")
    assert "failed" not in done[1]


def test_bad_runner_options_are_rejected(tmp_path):
    with pytest.raises(InvalidParameterError, match="Unknown on_error 'skip'"):
        run_experiment([{"x": 0}], _noise_task, on_error="skip")
    with pytest.raises(InvalidParameterError, match=r"the folder .* does not exist"):
        run_experiment([{"x": 0}], _noise_task, tmp_path / "missing" / "out.csv")
    with pytest.raises(InvalidParameterError, match="must return a dict of results, got list"):
        run_experiment([{"x": 0}], _list_task, progress=False)
    with pytest.raises(InvalidParameterError, match=r"named like settings or reserved columns: \['x'\]"):
        run_experiment([{"x": 0}], _echo_task, progress=False)
    foreign = tmp_path / "other.csv"
    foreign.write_text("a,b\n1,2\n")
    with pytest.raises(InvalidParameterError, match="is not an experiment CSV"):
        run_experiment([{"x": 0}], _noise_task, foreign, progress=False)
    assert foreign.read_text() == "a,b\n1,2\n"


def _list_task(config):
    return [1]


def _echo_task(config):
    return {"x": config["x"]}


def test_experiment_object_runs_its_tasks_under_its_name(tmp_path):
    exp = Experiment("demo", _noise_task, grid_tasks(x=[0, 1]))
    result = exp.run(tmp_path / "demo.csv", progress=False)
    assert len(result) == 2 and result.config["name"] == "demo"
    assert result.column("x").tolist() == [0.0, 1.0]


# --------------------------------------------------------------------------- failed and unusable task results
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
    with pytest.raises(InvalidParameterError, match="must return a dict") as info:
        run_experiment([{"x": 1}], _unusable_result_task, tmp_path / "raise.csv", progress=False)
    if sys.version_info >= (3, 11):  # the error names its task, as a task's own error does
        assert info.value.__notes__ == ["in the task x=1"]


@pytest.mark.parametrize("options", [{"n_jobs": 0}, {"backend": "multiprocessing"}, {"progress": "never"}])
def test_a_bad_run_option_leaves_no_results_file(tmp_path, options):
    out = tmp_path / "results.csv"
    with pytest.raises(InvalidParameterError):
        run_experiment([{"a": 1}], _one_row, out, **options)
    assert list(tmp_path.iterdir()) == []


def _one_row(config):
    return {"x": config["a"]}


# --------------------------------------------------------------------------- task builders
def test_synthetic_tasks_rebuild_the_instances_of_the_design():
    from ccopt.generators import synthetic_design

    tasks = synthetic_tasks(4, sizes=(20, 30), n_classes=(2, 3), random_state=1, max_iter=3)
    design = synthetic_design(4, sizes=(20, 30), n_clusters=(2, 3), random_state=1)
    for task, inst in zip(tasks, design, strict=True):
        X, _labels, cons, erroneous = load_instance(task)
        np.testing.assert_array_equal(X, inst.X)
        np.testing.assert_array_equal(cons.pairs, inst.constraints.pairs)
        np.testing.assert_array_equal(erroneous, inst.erroneous)
        assert task["max_iter"] == 3


def test_k_sweep_tasks_score_each_instance_at_every_k():
    tasks = k_sweep_tasks({"data": "iris"}, ks=[2, 3, 4], n_instances=2, first_instance_seed=10)
    assert [(t["instance_seed"], t["n_clusters"]) for t in tasks] == [
        (10, 2), (10, 3), (10, 4), (11, 2), (11, 3), (11, 4)]


def test_load_instance_errors_are_specific():
    with pytest.raises(InvalidParameterError, match="Unknown data specification 'nope'"):
        load_instance({"data": "nope"})
    with pytest.raises(InvalidParameterError, match=r"needs the setting\(s\) \['error_fraction'\]"):
        load_instance({"data": "synthetic", "n_samples": 10, "n_classes": 2, "constraint_fraction": 0.1})
    with pytest.raises(InvalidParameterError, match="has no constraint set 'p15'"):
        load_instance({"data": "iris", "constraint_set": "p15"})
    # Counts are integers: 2.5 constraints or 2.7 clusters are refused, not truncated.
    with pytest.raises(InvalidParameterError, match=r"n_constraints must be an integer, got 2\.5"):
        load_instance({"data": "iris", "n_constraints": 2.5})
    with pytest.raises(InvalidParameterError, match="n_erroneous must be >= 0, got -1"):
        load_instance({"data": "iris", "n_constraints": 5, "n_erroneous": -1})
    with pytest.raises(InvalidParameterError, match=r"n_clusters must be an integer, got 2\.7"):
        impact_score_task({"data": "iris", "n_constraints": 5, "n_clusters": 2.7, "max_iter": 2})
    # Fractions and seeds are named where they are wrong (a negative fraction used to be
    # reported as a negative n_constraints, a string seed as a bare ValueError).
    with pytest.raises(InvalidParameterError, match=r"constraint_fraction must be finite and >= 0, got -0\.1"):
        load_instance({"data": "iris", "constraint_fraction": -0.1})
    with pytest.raises(InvalidParameterError, match=r"error_fraction must lie in \[0, 1\], got 1\.5"):
        load_instance({"data": "iris", "constraint_fraction": 0.1, "error_fraction": 1.5})
    with pytest.raises(InvalidParameterError, match="instance_seed must be an integer, got 'x'"):
        load_instance({"data": "iris", "n_constraints": 3, "instance_seed": "x"})


def test_load_instance_generates_constraints_with_the_requested_errors():
    _X, labels, cons, erroneous = load_instance({"data": "iris", "n_constraints": 12, "n_erroneous": 4,
                                                "instance_seed": 3})
    assert len(cons) == 12 and erroneous.sum() == 4
    np.testing.assert_array_equal(erroneous, ~cons.is_correct(labels))


# --------------------------------------------------------------------------- task functions
def test_impact_score_task_matches_a_direct_call():
    from ccopt import impact_scores

    config = {"data": "synthetic", "n_samples": 16, "n_classes": 2, "constraint_fraction": 0.25,
              "error_fraction": 0.25, "instance_seed": 4, "criterion": "mssc", "max_iter": 5, "seed": 8}
    row = impact_score_task(config)
    X, _labels, cons, erroneous = load_instance(config)
    direct = impact_scores(X, 2, constraints=cons, criterion="mssc", max_iter=5, random_state=8,
                           progress=False, erroneous=erroneous)
    predicted = direct.predicted_erroneous
    assert row["n_constraints"] == len(cons) == 4
    assert row["n_erroneous"] == int(erroneous.sum()) == 1
    assert row["n_predicted"] == int(predicted.sum())
    assert row["fraction_predicted"] == pytest.approx(predicted.mean())
    detected = int((predicted & erroneous).sum())
    precision = detected / predicted.sum() if predicted.sum() else 0.0
    recall = detected / erroneous.sum()
    assert row["precision"] == pytest.approx(precision) and row["recall"] == pytest.approx(recall)
    assert row["set_score"] == pytest.approx(direct.scores.sum())


def test_clustering_task_matches_a_direct_fit():
    from ccopt.metrics import adjusted_rand_score

    config = {"data": "synthetic", "n_samples": 20, "n_classes": 2, "constraint_fraction": 0.2,
              "error_fraction": 0.0, "instance_seed": 2, "algorithm": "cop-kmeans", "seed": 5,
              "params": {"n_init": 2}}
    row = clustering_task(config)
    X, labels, cons, _ = load_instance(config)
    est = make_estimator("cop-kmeans", 2, n_init=2, random_state=5, progress=False).fit(X, constraints=cons)
    assert row["ari"] == pytest.approx(adjusted_rand_score(labels, est.labels_))
    assert row["violations"] == 0 == est.n_violations_["total"]
    assert row["n_constraints"] == len(cons)


def test_make_estimator_names_bad_algorithms_and_parameters():
    with pytest.raises(InvalidParameterError, match="Unknown algorithm 'dbscan'; valid values are 'kmeans'"):
        make_estimator("dbscan", 2)
    with pytest.raises(InvalidParameterError, match=r"LCC takes no parameter\(s\) \['penalty'\]"):
        make_estimator("lcc", 2, penalty=1.0)


# --------------------------------------------------------------------------- constraint sets (Figs. 9-10)
def test_constraint_set_task_scores_sets_of_the_requested_kind():
    from ccopt import impact_scores
    from ccopt.lagrange.baselines import coherence

    base = {"data": "synthetic", "n_samples": 16, "n_classes": 2, "n_constraints": 4, "instance_seed": 1,
            "criterion": "mssc", "max_iter": 3, "seed": 2}
    row = constraint_set_task({**base, "erroneous": True, "sampling": "balanced"})
    X, _, cons, wrong = load_instance({**base, "n_erroneous": 4})
    assert wrong.all()
    assert (row["n_ml"], row["n_cl"]) == (cons.n_ml, cons.n_cl)
    assert row["coherence"] == coherence(X, constraints=cons).value
    direct = impact_scores(X, 2, constraints=cons, criterion="mssc", max_iter=3, random_state=2, progress=False)
    assert row["set_score"] == pytest.approx(direct.set_score)
    assert not load_instance({**base, "n_erroneous": 0})[3].any()  # the sets of Fig. 9: all correct


@pytest.mark.parametrize("wrong", [False, True])
def test_constraint_set_task_draws_uniform_pairs_by_default(wrong):
    """The paper's Table 4 proportions follow the classes: uniformly random pairs, not half ML."""
    from ccopt import impact_scores
    from ccopt.generators import random_pair_constraints
    from ccopt.lagrange.baselines import informativeness

    config = {"data": "synthetic", "n_samples": 30, "n_classes": 3, "n_constraints": 9, "instance_seed": 4,
              "erroneous": wrong, "criterion": "mssc", "max_iter": 3, "seed": 2}
    row = constraint_set_task(config)
    X, labels, _, _ = load_instance({**config, "n_constraints": 0})
    cons = random_pair_constraints(labels, 9, erroneous=wrong, random_state=np.random.default_rng([4, 2 + wrong])).constraints
    assert (row["n_ml"], row["n_cl"]) == (cons.n_ml, cons.n_cl)
    assert (~cons.is_correct(labels)).tolist() == [wrong] * 9
    direct = impact_scores(X, 3, constraints=cons, criterion="mssc", max_iter=3, random_state=2, progress=False)
    assert row["set_score"] == pytest.approx(direct.set_score)
    assert row["informativeness"] == informativeness(X, 3, constraints=cons, criterion="mssc", random_state=2).value
    with pytest.raises(InvalidParameterError, match="Unknown sampling 'half'; valid values are 'pairs', 'balanced'"):
        constraint_set_task({**config, "sampling": "half"})
    with pytest.raises(InvalidParameterError, match="erroneous must be True or False, got 'no'"):
        constraint_set_task({**config, "erroneous": "no"})
    # A fractional or non-positive set size is refused, not truncated to another size.
    with pytest.raises(InvalidParameterError, match=r"n_constraints must be an integer, got 2\.5"):
        constraint_set_task({**config, "n_constraints": 2.5})
    with pytest.raises(InvalidParameterError, match="n_constraints must be >= 1, got 0"):
        constraint_set_task({**config, "n_constraints": 0})


def test_constraint_set_selection_follows_figs_9_and_10():
    records = [{"set_score": s, "coherence": c, "ari": a} for s, c, a in
               [(-5.0, 0.9, 0.1), (-1.0, 0.2, 0.2), (0.0, 0.5, 0.3), (-3.0, 0.8, 0.4)]]
    correct = constraint_set_selection(records, top=2)
    np.testing.assert_array_equal(correct["all"], [0.1, 0.2, 0.3, 0.4])
    np.testing.assert_array_equal(correct["impact score"], [0.1, 0.4])   # most negative scores
    np.testing.assert_array_equal(correct["coherence"], [0.1, 0.4])      # most coherent
    wrong = constraint_set_selection(records, top=2, erroneous=True)
    np.testing.assert_array_equal(wrong["impact score"], [0.3, 0.2])     # highest scores
    np.testing.assert_array_equal(wrong["coherence"], [0.2, 0.3])        # least coherent
    with pytest.raises(InvalidParameterError, match="no record has both 'set_score' and 'nmi'"):
        constraint_set_selection(records, value="nmi")
    assert "informativeness" not in correct  # only when every record has it


def test_constraint_set_ranking_orders_by_each_measure():
    records = [{"set_score": s, "coherence": c, "informativeness": f} for s, c, f in
               [(-1.0, 0.1, 0.9), (-9.0, 0.4, 0.2), (-5.0, 0.9, 0.5), (-5.0, 0.5, 0.1)]]
    assert constraint_set_ranking(records, "impact score").tolist() == [1, 2, 3, 0]   # ties in order
    assert constraint_set_ranking(records, "impact score", erroneous=True).tolist() == [0, 2, 3, 1]
    assert constraint_set_ranking(records, "coherence").tolist() == [2, 3, 1, 0]
    assert constraint_set_ranking(records, "coherence", erroneous=True).tolist() == [0, 1, 3, 2]
    assert constraint_set_ranking(records, "informativeness").tolist() == [0, 2, 1, 3]
    assert constraint_set_ranking(records, "informativeness", erroneous=True).tolist() == [3, 1, 2, 0]
    with pytest.raises(InvalidParameterError, match=r"measure must be one of \['impact score', 'coherence', "
                                                    r"'informativeness'\], got 'ari'"):
        constraint_set_ranking(records, "ari")


def test_constraint_set_selection_by_informativeness():
    records = [{"set_score": -1.0, "coherence": 0.5, "informativeness": f, "ari": a} for f, a in
               [(0.2, 0.1), (0.6, 0.2), (0.0, 0.3), (0.4, 0.4)]]
    np.testing.assert_array_equal(constraint_set_selection(records, top=2)["informativeness"], [0.2, 0.4])
    np.testing.assert_array_equal(constraint_set_selection(records, top=2, erroneous=True)["informativeness"],
                                  [0.3, 0.1])


def _long_text_task(config: dict) -> dict:
    return {"text": "x" * config["length"]}


def test_a_row_with_a_very_long_cell_can_be_read_back_and_resumed(tmp_path):
    # csv's default limit (131,072 characters a field) let such a row be written but not read.
    out = tmp_path / "long.csv"
    tasks = [{"length": 200_000}, {"length": 3}]
    run_experiment(tasks[:1], _long_text_task, out, progress=False)
    assert [len(row["text"]) for row in read_results(out)] == [200_000]
    done = run_experiment(tasks, _long_text_task, out, progress=False)
    assert done.n_skipped == 1 and [len(r["text"]) for r in done.records] == [200_000, 3]
    import csv

    assert csv.field_size_limit() == 131_072  # the module's setting is left as it was


def test_a_resume_after_an_upgrade_keeps_the_versions_that_wrote_the_rows(tmp_path, caplog):
    out = tmp_path / "sweep.csv"
    run_experiment([{"x": 0}], _noise_task, out, progress=False)
    record = tmp_path / "sweep.json"
    meta = json.loads(record.read_text())
    current = meta["ccopt_version"]
    assert meta["ccopt_versions"] == [current]
    del meta["ccopt_versions"]  # a record written before the list existed
    meta["ccopt_version"] = "0.0.1-old"
    record.write_text(json.dumps(meta))
    with caplog.at_level("WARNING", logger="ccopt.experiments"):
        run_experiment([{"x": 0}, {"x": 1}], _noise_task, out, progress=False)
    assert json.loads(record.read_text())["ccopt_versions"] == ["0.0.1-old", current]
    assert f"resuming rows written by ccopt 0.0.1-old with ccopt {current}" in caplog.text
