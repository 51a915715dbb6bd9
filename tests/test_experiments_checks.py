"""Resuming and task settings: a resumed CSV must be the same experiment, and a
setting a task does not read must not pass in silence."""

from __future__ import annotations

import functools
import json
import re
import shutil
import sys

import pytest

from ccopt.exceptions import InvalidParameterError
from ccopt.experiments import (
    clustering_task,
    constraint_set_task,
    grid_tasks,
    impact_score_task,
    load_instance,
    run_experiment,
)


def _seed_task(config: dict) -> dict:
    return {"value": config["seed"] % 1000}


def _other_task(config: dict) -> dict:
    return {"other": config["x"]}


def _files(folder) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


# --------------------------------------------------------------------------- resuming
def test_resuming_with_another_task_function_is_refused_and_nothing_is_rewritten(tmp_path):
    out = tmp_path / "sweep.csv"
    run_experiment(grid_tasks(x=[0, 1]), _seed_task, out, progress=False)
    before = _files(tmp_path)
    # Before the fix the rows of _seed_task came back as results of _other_task (n_run=0)
    # and the record was rewritten to name _other_task.
    message = (rf"{re.escape(repr(str(out)))} holds rows of {__name__}\._seed_task, not "
               rf"{__name__}\._other_task .*write to another out_csv")
    with pytest.raises(InvalidParameterError, match=message):
        run_experiment(grid_tasks(x=[0, 1]), _other_task, out, progress=False)
    assert _files(tmp_path) == before
    # Another file, or starting afresh, is how the other function is run.
    assert run_experiment(grid_tasks(x=[0, 1]), _other_task, tmp_path / "other.csv", progress=False).n_run == 2
    assert run_experiment(grid_tasks(x=[0, 1]), _other_task, out, progress=False, resume=False).n_run == 2


def test_a_benchmark_run_as_a_script_resumes_under_ccopt_bench_and_back():
    # One function, named __main__.task when its script runs and benchmarks.bench_x.task when
    # `ccopt bench x` imports it: a run started one way must resume the other.
    from ccopt.experiments import _same_function

    assert _same_function("__main__.table3_task", "benchmarks.bench_impact_table3.table3_task")
    assert _same_function("benchmarks.bench_impact_table3.table3_task", "__main__.table3_task")
    assert not _same_function("__main__.table3_task", "benchmarks.bench_impact_table3.other_task")
    assert not _same_function("ccopt.experiments.clustering_task", "ccopt.experiments.impact_score_task")


class _ScaledTask:
    """A task as a callable object: each run (each process) makes a new one."""

    def __init__(self, scale: int):
        self.scale = scale

    def __call__(self, config: dict) -> dict:
        return {"value": config["x"] * self.scale}


def _scaled(config: dict, scale: int) -> dict:
    return {"value": config["x"] * scale}


def test_the_function_check_names_callable_objects_and_partials_without_addresses(tmp_path):
    # A name holding a memory address would differ in the next process: every resume refused.
    out = tmp_path / "objects.csv"
    run_experiment(grid_tasks(x=[0, 1]), _ScaledTask(2), out, progress=False)
    assert run_experiment(grid_tasks(x=[0, 1]), _ScaledTask(2), out, progress=False).n_skipped == 2
    assert json.loads((tmp_path / "objects.json").read_text())["function"] == f"{__name__}._ScaledTask"
    run_experiment(grid_tasks(x=[0, 1]), functools.partial(_scaled, scale=2), tmp_path / "partial.csv",
                   progress=False)
    assert json.loads((tmp_path / "partial.json").read_text())["function"] == f"functools.partial({__name__}._scaled)"


def test_a_csv_without_its_record_resumes_only_with_the_random_state_of_its_seeds(tmp_path):
    tasks = grid_tasks(x=[0, 1])
    first = run_experiment(tasks, _seed_task, tmp_path / "sweep.csv", progress=False, random_state=0)
    copy = tmp_path / "s3.csv"
    shutil.copyfile(tmp_path / "sweep.csv", copy)  # without s3.json, as a killed run leaves it
    text = copy.read_text()
    # Before the fix every row was reused (seeds of root 0) and s3.json claimed random_state 5.
    with pytest.raises(InvalidParameterError, match=r"seeds that random_state=5 does not give: task \w+ has "
                                                    r"seed \d+ in the file, \d+ expected; its record .*s3\.json' is missing"):
        run_experiment(tasks, _seed_task, copy, progress=False, random_state=5)
    with pytest.raises(InvalidParameterError, match=r"cannot resume .*s3\.csv.* with random_state=None: "
                                                    r"its record .*s3\.json.* is missing"):
        run_experiment(tasks, _seed_task, copy, progress=False, random_state=None)
    assert copy.read_text() == text and not (tmp_path / "s3.json").exists()
    # The root its seeds came from resumes it: nothing is run again.
    resumed = run_experiment([*tasks, {"x": 2}], _seed_task, copy, progress=False, random_state=0)
    assert (resumed.n_run, resumed.n_skipped) == (1, 2)
    assert [r["value"] for r in resumed.records[:2]] == [r["value"] for r in first.records]
    assert json.loads((tmp_path / "s3.json").read_text())["random_state"] == 0


_KILLED_RUN = """
import os, sys
from ccopt.experiments import grid_tasks, run_experiment

def task(config):
    if config["x"] == 2 and os.environ.get("KILL_AT_2"):
        os._exit(9)  # as SIGKILL or a lost machine: no finally block runs
    return {"value": config["seed"] % 1000}

run_experiment(grid_tasks(x=[0, 1, 2, 3]), task, sys.argv[1], progress=False, random_state=7)
"""


def test_a_run_killed_outright_leaves_its_record_and_resumes_with_its_own_seeds(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "killed.py"
    script.write_text(_KILLED_RUN)
    out = tmp_path / "sweep.csv"
    env = {**os.environ, "KILL_AT_2": "1"}
    assert subprocess.run([sys.executable, str(script), str(out)], env=env, cwd=tmp_path).returncode == 9
    # Before the fix the record was written only at the end, so a killed run left none.
    record = json.loads((tmp_path / "sweep.json").read_text())
    assert (record["random_state"], record["finished"], record["n_tasks"]) == (7, None, 4)
    assert len(out.read_text().splitlines()) == 3  # header and the two finished tasks
    env.pop("KILL_AT_2")
    assert subprocess.run([sys.executable, str(script), str(out)], env=env, cwd=tmp_path).returncode == 0
    record = json.loads((tmp_path / "sweep.json").read_text())
    assert record["n_done"] == 4 and record["finished"] is not None and "resumed" in record


_WORKER_KILLED = """
import os, sys
from ccopt.experiments import grid_tasks, run_experiment

def task(config):
    if config["x"] == 2:
        os._exit(9)  # the system killing a worker, e.g. for its memory
    return {"value": config["x"]}

try:
    run_experiment(grid_tasks(x=[0, 1, 2]), task, sys.argv[1], n_jobs=2, progress=False)
except Exception as exc:
    print(type(exc).__name__)
    print("\\n".join(getattr(exc, "__notes__", [])))
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are Python 3.11+")
def test_a_worker_killed_outright_names_the_unfinished_tasks(tmp_path):
    import subprocess

    script = tmp_path / "worker_killed.py"
    script.write_text(_WORKER_KILLED)
    out = tmp_path / "sweep.csv"
    printed = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True,
                             cwd=tmp_path, timeout=300).stdout
    assert printed.startswith("TerminatedWorkerError")
    assert "unfinished when the workers failed" in printed and "x=2" in printed
    assert f"saved in {out}" in printed and "resume=True" in printed


def test_explicit_seeds_are_checked_as_they_were_given(tmp_path):
    out = tmp_path / "sweep.csv"
    run_experiment([{"x": 0, "seed": 7}], _seed_task, out, progress=False)
    (tmp_path / "sweep.json").unlink()
    # An explicit seed does not depend on the root: any random_state resumes it.
    assert run_experiment([{"x": 0, "seed": 7}], _seed_task, out, progress=False, random_state=3).n_skipped == 1


# --------------------------------------------------------------------------- the record beside the CSV
def test_the_record_is_named_as_documented(tmp_path):
    doc = " ".join(run_experiment.__doc__.split())
    assert "``<out_csv>.json``" not in doc and "``sweep.csv`` -> ``sweep.json``" in doc
    run_experiment([{"x": 0}], _seed_task, tmp_path / "my2.csv", progress=False)
    run_experiment([{"x": 0}], _seed_task, tmp_path / "rows.txt", progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my2.csv", "my2.json", "rows.txt", "rows.txt.json"]


@pytest.mark.parametrize("resume", [True, False])
@pytest.mark.parametrize("content", ['{"a": 1}', "not json", "[1, 2]"])
def test_a_json_that_is_not_an_experiment_record_is_not_overwritten(tmp_path, content, resume):
    mine = tmp_path / "my2.json"
    mine.write_text(content)
    with pytest.raises(InvalidParameterError, match=r"my2\.json' is not the record of a ccopt experiment.*"
                                                    r"would overwrite it; move it away or choose another out_csv"):
        run_experiment([{"x": 0}], _seed_task, tmp_path / "my2.csv", progress=False, resume=resume)
    assert _files(tmp_path) == {"my2.json": content.encode()}


def test_a_record_without_its_random_state_is_reported_not_a_key_error(tmp_path):
    out = tmp_path / "sweep.csv"
    run_experiment([{"x": 0}], _seed_task, out, progress=False, random_state=4)
    meta = json.loads((tmp_path / "sweep.json").read_text())
    del meta["random_state"]
    (tmp_path / "sweep.json").write_text(json.dumps(meta))
    with pytest.raises(InvalidParameterError, match=r"cannot resume .*sweep\.csv.* with random_state=None: "
                                                    r"its record .*sweep\.json.* records no random_state"):
        run_experiment([{"x": 0}], _seed_task, out, progress=False, random_state=None)
    # Given explicitly, the root is checked against the rows' seeds instead.
    assert run_experiment([{"x": 0}], _seed_task, out, progress=False, random_state=4).n_skipped == 1


# --------------------------------------------------------------------------- task settings
_WAYS = r"constraint_set \(a stored set\), n_constraints with n_erroneous \(counts\), or constraint_fraction"


@pytest.mark.parametrize(("config", "match"), [
    # Before the fix: 20 constraints, 0 erroneous.
    ({"data": "iris", "n_constraints": 20, "error_fraction": 0.5, "instance_seed": 0},
     rf"\['n_constraints', 'error_fraction'\] mix ways of giving constraints; use one: {_WAYS}"),
    # Before the fix: 15 constraints, 0 erroneous.
    ({"data": "iris", "constraint_fraction": 0.1, "n_erroneous": 5},
     rf"\['n_erroneous', 'constraint_fraction'\] mix ways of giving constraints; use one: {_WAYS}"),
    ({"data": "iris", "constraint_set": "p15", "n_constraints": 3},
     rf"\['constraint_set', 'n_constraints'\] mix ways of giving constraints; use one: {_WAYS}"),
    # Before the fix: no constraints at all.
    ({"data": "iris", "n_erroneous": 5}, r"n_erroneous needs n_constraints \(of which n_erroneous are wrong\)"),
    ({"data": "iris", "error_fraction": 0.2}, r"error_fraction needs constraint_fraction"),
    ({"data": "iris", "n_samples": 50, "n_constraints": 3},
     r"\['n_samples'\] describe data='synthetic' only; data 'iris' brings its own objects"),
])
def test_load_instance_refuses_mixed_constraint_settings(config, match):
    with pytest.raises(InvalidParameterError, match=match):
        load_instance(config)


def test_clustering_task_names_a_misspelt_setting_and_lists_the_valid_ones():
    # Before the fix this ran unconstrained without a word.
    with pytest.raises(InvalidParameterError, match=r"clustering_task takes no setting\(s\) "
                                                    r"\['constriant_fraction'\] \(did you mean 'constraint_fraction'\?\); "
                                                    r"its settings are \[.*'algorithm'.*'params'.*'seed'.*\]"):
        clustering_task({"data": "iris", "algorithm": "lcc", "constriant_fraction": 0.1})
    # An estimator parameter at the top level was ignored too: it goes in "params".
    with pytest.raises(InvalidParameterError, match=r"takes no setting\(s\) \['n_init'\].*estimator "
                                                    r"parameters go in 'params'"):
        clustering_task({"data": "iris", "algorithm": "kmeans", "n_init": 3})


def test_impact_score_and_constraint_set_tasks_refuse_settings_they_do_not_read():
    with pytest.raises(InvalidParameterError, match=r"impact_score_task takes no setting\(s\) \['max_iters'\] "
                                                    r"\(did you mean 'max_iter'\?\)"):
        impact_score_task({"data": "iris", "n_constraints": 4, "max_iters": 2})
    # constraint_set_task draws its own set: fractions and n_erroneous were dropped in silence.
    with pytest.raises(InvalidParameterError, match=r"constraint_set_task takes no setting\(s\) "
                                                    r"\['constraint_fraction'\] \(did you mean 'n_constraints'\?\); "
                                                    r"its settings are \[.*'erroneous'"):
        constraint_set_task({"data": "iris", "constraint_fraction": 0.1, "max_iter": 2})


def test_settings_that_only_name_a_task_are_still_accepted():
    base = {"data": "synthetic", "n_samples": 12, "n_classes": 2, "constraint_fraction": 0.25,
            "error_fraction": 0.0, "instance_seed": 1, "seed": 0}
    tags = {"instance": 3, "set": 1, "repeat": 2, "tag": "a"}
    plain = clustering_task({**base, "algorithm": "cop-kmeans", "params": {"n_init": 1}})
    tagged = clustering_task({**base, **tags, "algorithm": "cop-kmeans", "params": {"n_init": 1}})
    assert tagged["ari"] == plain["ari"]
    assert impact_score_task({**base, **tags, "max_iter": 2})["n_constraints"] == 3
    # The configuration bench_impact_set_selection.py runs (its "set" names the set).
    row = constraint_set_task({"data": "synthetic", "n_samples": 12, "n_classes": 2, "erroneous": False,
                               "set": 0, "instance_seed": 0, "n_constraints": 3, "criterion": "kmedoids",
                               "method": "voronoi", "time_limit": 5.0, "max_iter": 2, "exact": False,
                               "exact_time_limit": 5.0, "seed": 0})
    assert row["n_ml"] + row["n_cl"] == 3
