"""The flagship example, ``examples/impact_score_iris.py``, runs and prints what it computes."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "impact_score_iris.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("impact_score_iris", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_default_run_scores_the_drawn_constraints_and_writes_both_figures(example, tmp_path, capsys):
    import matplotlib.pyplot as plt

    import ccopt
    from ccopt.datasets import load_iris
    from ccopt.generators import noisy_constraints

    try:
        assert example.main(["--out", str(tmp_path)]) == 0
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    # The protocol its docstring states: p = ceil(0.15 n), ceil(p / 3) of them wrong.
    p = math.ceil(0.15 * 150)
    assert f"Iris: n=150, k=3, {p} constraints" in out and f"{math.ceil(p / 3)} of them deliberately wrong" in out
    iris = load_iris()
    drawn = noisy_constraints(iris.labels, p, math.ceil(p / 3), random_state=0)
    direct = ccopt.impact_scores(iris.X, 3, constraints=drawn.constraints, max_iter=1000, time_limit=50.0,
                                 random_state=0, erroneous=drawn.erroneous, progress=False)
    # Same bounds and detection as the library call it wraps (the run's timing line aside).
    for line in direct.summary().splitlines():
        if not line.startswith("status="):
            assert line in out
    assert direct.table().splitlines()[0] in out
    for name in ("iris_convergence.png", "iris_constraints.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


def test_options_change_the_protocol_and_no_plots_writes_nothing(example, tmp_path, capsys):
    assert example.main(["--seed", "2", "--fraction", "0.2", "--criterion", "mssc", "--max-iter", "30",
                         "--no-plots", "--out", str(tmp_path / "figures")]) == 0
    out = capsys.readouterr().out
    assert "Iris: n=150, k=3, 30 constraints" in out and "10 of them deliberately wrong" in out
    assert "criterion=mssc" in out and "figures:" not in out
    assert not (tmp_path / "figures").exists()


def test_clean_then_cluster_drops_what_the_score_flags(tmp_path, capsys):
    import numpy as np

    import ccopt
    from ccopt.cluster import COPKMeans
    from ccopt.datasets import load_iris
    from ccopt.generators import noisy_constraints
    from ccopt.metrics import adjusted_rand_score

    spec = importlib.util.spec_from_file_location("clean_then_cluster", EXAMPLE.with_name("clean_then_cluster.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--dataset", "iris", "--constraints", "30", "--wrong", "8", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    iris = load_iris()
    X = (iris.X - iris.X.mean(axis=0)) / iris.X.std(axis=0)
    drawn = noisy_constraints(iris.labels, 30, 8, random_state=1)
    flagged = np.asarray(ccopt.impact_scores(X, 3, constraints=drawn.constraints, random_state=1,
                                             progress=False).predicted_erroneous)
    wrong = np.asarray(drawn.erroneous)
    cleaned = COPKMeans(3, random_state=1).fit(X, constraints=drawn.constraints.subset(~flagged)).labels_
    row = next(line for line in out.splitlines() if line.startswith("COP-kmeans, flagged ones dropped"))
    assert float(row.split()[-3]) == round(adjusted_rand_score(iris.labels, cleaned), 3)
    all_hard = next(line for line in out.splitlines() if line.startswith("COP-kmeans, all constraints"))
    assert int(all_hard.split()[-2]) == 0  # hard constraints: none violated
    assert (f"flagged {int(flagged.sum())} constraints, {int((flagged & wrong).sum())} of them wrong; "
            f"it kept {int((~flagged & wrong).sum())} of the 8 wrong ones") in out


# --------------------------------------------------------------------------- bad flags
def _no_work(*args, **kwargs):
    raise AssertionError("the example started its work before refusing the flag")


def _assert_usage_error(run, capsys, flag):
    """argparse's exit: status 2, nothing on stdout, one error line naming the flag."""
    with pytest.raises(SystemExit) as stop:
        run()
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    last = captured.err.strip().splitlines()[-1]
    assert f": error: argument {flag}: " in last
    assert "consistent=False" not in captured.err  # not a flag of the example


@pytest.mark.parametrize(("argv", "flag"), [
    (["--fraction", "-1"], "--fraction"),   # was a traceback: n_constraints must be >= 0, got -150.
    (["--fraction", "nan"], "--fraction"),
    (["--fraction", "5"], "--fraction"),    # was a traceback: "... or pass consistent=False"
    (["--seed", "-1"], "--seed"),
    (["--max-iter", "0"], "--max-iter"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--method", "kmeans"], "--method"),   # mssc's method, not kmedoids'
])
def test_impact_score_iris_refuses_a_bad_flag_before_any_work(example, monkeypatch, capsys, argv, flag):
    import ccopt

    monkeypatch.setattr(ccopt, "impact_scores", _no_work)
    _assert_usage_error(lambda: example.main([*argv, "--no-plots"]), capsys, flag)


def test_impact_score_iris_refuses_a_file_as_its_figure_folder_before_any_work(example, monkeypatch, capsys,
                                                                               tmp_path):
    import ccopt

    monkeypatch.setattr(ccopt, "impact_scores", _no_work)
    (tmp_path / "taken").write_text("")
    # Before the fix the run finished and then failed to make the folder (FileExistsError).
    _assert_usage_error(lambda: example.main(["--out", str(tmp_path / "taken")]), capsys, "--out")


@pytest.fixture(scope="module")
def clean_example():
    spec = importlib.util.spec_from_file_location("clean_then_cluster", EXAMPLE.with_name("clean_then_cluster.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("argv", "flag"), [
    (["--penalty", "-1"], "--penalty"),     # was a traceback after three clusterings had run
    (["--penalty", "inf"], "--penalty"),
    (["--constraints", "-1"], "--constraints"),
    (["--wrong", "-1"], "--wrong"),
    (["--wrong", "61"], "--wrong"),          # more wrong ones than the 60 constraints
    (["--seed", "-2"], "--seed"),
    (["--dataset", "iris", "--constraints", "300", "--wrong", "100"], "--constraints"),
    (["--dataset", "iris", "--constraints", "20000", "--wrong", "0"], "--constraints"),
])
def test_clean_then_cluster_refuses_a_bad_flag_before_any_work(clean_example, monkeypatch, capsys, argv, flag):
    import ccopt

    monkeypatch.setattr(ccopt, "impact_scores", _no_work)
    _assert_usage_error(lambda: clean_example.main(argv), capsys, flag)
