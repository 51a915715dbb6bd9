"""The ``ccopt`` command.

Most cases call :func:`ccopt.cli.main` in this process (capturing stdout/stderr), which is
what the console script runs; a few go through the installed ``ccopt`` script in a
subprocess to check exit codes and tracebacks end to end. Every malformed-input case also
runs through the subprocess in the slow tier.
"""

from __future__ import annotations

import csv
import io
import logging
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import ccopt
from ccopt.cli import EXIT_BROKEN_PIPE, discover_benchmarks, main
from ccopt.generators import make_gaussian_clusters

N = 10


@pytest.fixture
def files(tmp_path):
    """A tiny data file with a label column and a constraint file (one erroneous ML)."""
    X, y = make_gaussian_clusters(N, 2, cluster_std=0.3, random_state=3)
    data = tmp_path / "data.csv"
    data.write_text("x,y,class\n" + "".join(f"{float(a)!r},{float(b)!r},{c}\n" for (a, b), c in zip(X, y, strict=True)))
    cons = tmp_path / "cons.csv"
    cons.write_text("i,j,kind\n0,1,ML\n0,7,ML\n2,3,ML\n0,9,CL\n4,8,CL\n")
    return {"dir": tmp_path, "data": data, "cons": cons, "X": X, "y": y}


@pytest.fixture
def data_file(tmp_path):
    """8 points in two groups of 4, their class in the first column (data.csv)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.3, (4, 2)), rng.normal(3, 0.3, (4, 2))])
    return _write(tmp_path / "data.csv", "class,x,y\n" + "".join(
        f"{c},{a!r},{b!r}\n" for (a, b), c in zip(X.tolist(), [0] * 4 + [1] * 4, strict=True)))


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write(path, text):
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- malformed input
def _cases(d):
    """(name, argv, fragments the one-line error must contain)."""
    data, cons = d["data"], d["cons"]
    bad = d["dir"]
    return {
        "missing data file": (["score", bad / "nope.csv", "--constraints", cons, "-k", 2],
                              ["nope.csv", "cannot read file"]),
        "missing constraint file": (["score", data, "--constraints", bad / "none.csv", "-k", 2],
                                    ["none.csv", "cannot read file"]),
        "wrong field count (data)": (["score", _write(bad / "f.csv", "x,y\n1,2\n3\n"), "--constraints", cons,
                                      "-k", 1], ["f.csv:3:", "expected 2 fields"]),
        "wrong field count (constraints)": (["score", data, "--constraints",
                                             _write(bad / "c.csv", "i,j,kind\n0,1,ML\n0,2\n"), "-k", 2],
                                            ["c.csv:3:", "expected 3 fields, got 2"]),
        "non-numeric value": (["score", _write(bad / "t.csv", "x,y\n1,2\n3,abc\n"), "--constraints", cons,
                               "-k", 1], ["t.csv:3:", "non-numeric value 'abc' in column 'y'"]),
        "non-integer index": (["score", data, "--constraints", _write(bad / "i.csv", "i,j,kind\n0,x,ML\n"),
                               "-k", 2], ["i.csv:2:", "indices must be integers"]),
        "bad kind": (["score", data, "--constraints", _write(bad / "k.csv", "i,j,kind\n0,1,ML\n1,2,XX\n"),
                      "-k", 2], ["k.csv:3:", "Unknown constraint kind 'XX'"]),
        "index out of range": (["score", data, "--constraints",
                                _write(bad / "r.csv", "i,j,kind\n0,1,ML\n1,99,CL\n"), "-k", 2],
                               ["r.csv:3: ", "out of range for n_samples=10"]),
        "self pair": (["score", data, "--constraints", _write(bad / "s.csv", "i,j,kind\n0,1,ML\n3,3,CL\n"),
                       "-k", 2], ["s.csv:3: ", "self-pairs"]),
        "NaN value": (["score", _write(bad / "n.csv", "x,y\n1,2\n3,nan\n4,5\n"), "--constraints", cons,
                       "-k", 1], ["n.csv", "line 3", "missing value (NaN)", "column 'y'"]),
        "k larger than n": (["score", data, "--constraints", cons, "-k", 11],
                            ["-k 11 is larger than the number of objects", "data.csv has 10 data rows"]),
        "contradictory pair": (["score", data, "--constraints",
                                _write(bad / "x.csv", "i,j,kind\n0,1,ML\n1,0,CL\n"), "-k", 2],
                               ["x.csv line 2", "x.csv line 3", "must-link", "cannot-link"]),
        "matrix of the wrong size": (["score", data, "--constraint-matrix", _write(bad / "m.txt", "0 1\n1 0\n"),
                                      "-k", 2], ["m.txt", "the matrix is 2 x 2", "10 data rows"]),
        "unknown label column": (["cluster", data, "-k", 2, "--algorithm", "kmeans", "--label-column", "cls"],
                                 ["data.csv:1:", "no label column 'cls'"]),
        "missing output folder": (["score", data, "--constraints", cons, "-k", 2, "--out", bad / "no" / "s.csv"],
                                  ["--out", "does not exist"]),
        "option of another algorithm": (["cluster", data, "-k", 2, "--algorithm", "lcc", "--penalty", 1],
                                        ["--penalty does not apply to --algorithm lcc"]),
        "candidates for another algorithm": (["cluster", data, "-k", 2, "--algorithm", "kmeans",
                                              "--candidates", 1], ["--candidates does not apply"]),
        "pcs without sizes": (["cluster", data, "-k", 2, "--algorithm", "pcs"], ["needs the target cluster sizes"]),
        "predict without its output": (["cluster", data, "-k", 2, "--algorithm", "kmeans", "--predict", data],
                                       ["--predict NEW.csv and --predict-out FILE go together"]),
        "output over an input": (["score", data, "--constraints", cons, "-k", 2, "--out", cons],
                                 ["--out", "cons.csv is also the input --constraints", "would be overwritten"]),
        "two outputs in one file": (["cluster", data, "-k", 2, "--algorithm", "kmeans", "--out", bad / "o.csv",
                                     "--predict", data, "--predict-out", bad / "o.csv"],
                                    ["--predict-out", "o.csv is also the output --out"]),
        "predict with other columns": (["cluster", data, "-k", 2, "--algorithm", "kmeans", "--label-column",
                                        "class", "--predict", _write(bad / "p.csv", "y,x\n1,2\n"),
                                        "--predict-out", bad / "pl.csv"],
                                       ["p.csv:1:", "feature columns ['y', 'x'] are not those of",
                                        "['x', 'y']"]),
        "predict with other columns below blank lines": (
            ["cluster", data, "-k", 2, "--algorithm", "kmeans", "--label-column", "class", "--predict",
             _write(bad / "p2.csv", "\n\ny,x\n1,2\n"), "--predict-out", bad / "pl.csv"],
            ["p2.csv:3:", "feature columns ['y', 'x'] are not those of"]),
    }


CASES = ["missing data file", "missing constraint file", "wrong field count (data)",
         "wrong field count (constraints)", "non-numeric value", "non-integer index", "bad kind",
         "index out of range", "self pair", "NaN value", "k larger than n", "contradictory pair",
         "matrix of the wrong size", "unknown label column", "missing output folder",
         "option of another algorithm", "candidates for another algorithm", "pcs without sizes",
         "predict without its output", "output over an input", "two outputs in one file",
         "predict with other columns", "predict with other columns below blank lines"]


def test_case_list_is_complete(files):
    assert list(_cases(files)) == CASES


def test_an_output_named_like_an_input_leaves_the_input_intact(files, capsys):
    before = files["cons"].read_bytes()
    code, _, _ = _run(["score", files["data"], "--constraints", files["cons"], "-k", 2, "--out", files["cons"],
                       "-q"], capsys)
    assert code == 2 and files["cons"].read_bytes() == before


@pytest.mark.parametrize("case", CASES)
def test_malformed_input_is_one_line_with_exit_code_2(case, files, capsys):
    argv, fragments = _cases(files)[case]
    code, out, err = _run([*argv, "--quiet"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ccopt {argv[0]}: error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in err and out == ""


def test_usage_errors_exit_2_through_argparse(files, capsys):
    with pytest.raises(SystemExit) as info:
        main(["score", str(files["data"]), "--constraints", str(files["cons"]), "-k", "0"])
    assert info.value.code == 2
    assert "-k/--n-clusters: expected a positive integer, got 0" in capsys.readouterr().err


def test_unexpected_errors_are_not_swallowed(files, monkeypatch):
    import ccopt.datasets

    def broken(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(ccopt.datasets, "load_csv", broken)
    with pytest.raises(RuntimeError, match="bug"):
        main(["cluster", str(files["data"]), "-k", "2", "--algorithm", "kmeans", "-q"])


# --------------------------------------------------------------------------- help
@pytest.mark.parametrize(("argv", "expected"), [
    ([], ["score", "cluster", "bench", "examples:"]),
    (["score"], ["--constraints", "--criterion", "--plot", "examples:", "CONS.csv"]),
    (["cluster"], ["--algorithm", "bh-kmeans", "pcs", "examples:"]),
    (["bench"], ["--list", "examples:", "CCOPT_BENCHMARKS"]),
])
def test_help_for_every_command(argv, expected, capsys):
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for fragment in expected:
        assert fragment in text


def test_cluster_help_keeps_the_line_break_of_its_last_example(capsys):
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    out = capsys.readouterr().out
    assert "--algorithm bh-kmeans \\\n        --predict new.csv" in out


def test_the_score_help_warns_that_the_exact_method_is_for_small_instances(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "exact solves an integer program every iteration: small" in capsys.readouterr()[0]


# --------------------------------------------------------------------------- happy paths
def test_score_ranks_and_writes_what_the_api_computes(files, capsys):
    from ccopt import Constraints, impact_scores

    out = files["dir"] / "scores.csv"
    history = files["dir"] / "history.csv"
    code, text, err = _run(["score", files["data"], "--constraints", files["cons"], "-k", 2, "--criterion",
                            "mssc", "--max-iter", 5, "--seed", 3, "--label-column", "class", "--quiet",
                            "--out", out, "--history", history], capsys)
    assert code == 0, err
    cons = Constraints.from_csv(files["cons"], n_samples=N)
    api = impact_scores(files["X"], 2, constraints=cons, criterion="mssc", max_iter=5, random_state=3,
                        progress=False, labels_true=files["y"])
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4, 5]
    scores = np.array([float(r["score"]) for r in rows])
    assert np.all(np.diff(scores) >= 0)  # most suspicious (most negative) first
    by_row = {int(r["row"]): r for r in rows}
    for row, (i, j) in enumerate(api.pairs):
        assert (int(by_row[row]["i"]), int(by_row[row]["j"])) == (i, j)
        assert float(by_row[row]["score"]) == pytest.approx(api.scores[row])
        assert int(by_row[row]["predicted_erroneous"]) == int(api.predicted_erroneous[row])
        assert int(by_row[row]["erroneous"]) == int(api.erroneous[row])
    assert "rank" in text and "detection: precision" in text and f"wrote {out}" in text
    assert history.read_text().splitlines()[0].startswith("iteration,")


def test_the_result_writes_the_ranked_csv_that_the_command_line_writes(tmp_path):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, size=(8, 2)) for c in (0.0, 4.0)])
    result = ccopt.impact_scores(X, 2, ml=[(0, 1), (0, 8)], cl=[(0, 9), (2, 3)], progress=False, random_state=0)
    result.to_csv(tmp_path / "given.csv")
    result.to_csv(tmp_path / "ranked.csv", ranked=True)
    given = list(csv.reader((tmp_path / "given.csv").read_text().splitlines()))
    ranked = list(csv.reader((tmp_path / "ranked.csv").read_text().splitlines()))
    assert ranked[0] == ["rank", "row", *given[0]]
    assert [int(r[1]) for r in ranked[1:]] == result.ranking().tolist()
    assert [r[0] for r in ranked[1:]] == [str(k) for k in range(1, len(given))]
    assert all(r[2:] == given[int(r[1]) + 1] for r in ranked[1:])
    assert not any(value.startswith("-0.0") and float(value) == 0 for row in given[1:] for value in row[3:5])


def test_score_reads_a_constraint_matrix_and_draws_both_plots(files, capsys):
    matrix = np.zeros((N, N), dtype=int)
    matrix[0, 1] = 1
    matrix[9, 0] = -1  # either triangle counts (the published files keep CL in the lower one)
    path = files["dir"] / "m.txt"
    np.savetxt(path, matrix, fmt="%d")
    plot, conv = files["dir"] / "p.png", files["dir"] / "c.png"
    code, text, err = _run(["score", files["data"], "--constraint-matrix", path, "-k", 2, "--criterion", "mssc",
                            "--max-iter", 3, "--top", 1, "--quiet", "--plot", plot, "--plot-convergence", conv],
                           capsys)
    assert code == 0, err
    assert "... 1 more rows" in text
    assert plot.read_bytes()[:4] == conv.read_bytes()[:4] == b"\x89PNG"


def test_cluster_writes_the_labels_of_the_estimator(files, capsys):
    from ccopt import Constraints
    from ccopt.cluster import COPKMeans

    out = files["dir"] / "labels.csv"
    code, text, err = _run(["cluster", files["data"], "--constraints", files["cons"], "-k", 2, "--algorithm",
                            "cop-kmeans", "--seed", 4, "--n-init", 2, "--label-column", "class", "--out", out],
                           capsys)
    assert code == 0, err
    est = COPKMeans(2, n_init=2, random_state=4).fit(
        files["X"], constraints=Constraints.from_csv(files["cons"], n_samples=N))
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["index"]) for r in rows] == list(range(N))
    np.testing.assert_array_equal([int(r["label"]) for r in rows], est.labels_)
    assert "violated constraints: 0 of 5" in text and "ARI" in text


@pytest.mark.parametrize("with_label_column", [True, False])
def test_cluster_predicts_new_rows_with_the_label_of_their_neighbours(files, capsys, with_label_column):
    """Rows next to training objects get those objects' labels (the data are well separated)."""
    X, y = files["X"], files["y"]
    near = [0, 5, 9]
    new = files["dir"] / "new.csv"
    header = "x,y,class\n" if with_label_column else "x,y\n"
    new.write_text(header + "".join(
        f"{float(X[i, 0]) + 0.01!r},{float(X[i, 1]) - 0.01!r}" + (f",{y[i]}" if with_label_column else "") + "\n"
        for i in near))
    out, predicted = files["dir"] / "labels.csv", files["dir"] / "new_labels.csv"
    code, text, err = _run(["cluster", files["data"], "-k", 2, "--algorithm", "kmeans", "--label-column", "class",
                            "--out", out, "--predict", new, "--predict-out", predicted, "-q"], capsys)
    assert code == 0, err
    with open(out, newline="") as handle:
        labels = [int(r["label"]) for r in csv.DictReader(handle)]
    with open(predicted, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["index"]) for r in rows] == [0, 1, 2]
    assert [int(r["label"]) for r in rows] == [labels[i] for i in near]
    assert "new.csv: 3 rows to the nearest centre" in text


@pytest.mark.parametrize("header", ["\ufeffclass,x,y", " class ,x,y", "\nclass,x,y"])
def test_predict_file_label_column_is_found_as_load_csv_finds_it(tmp_path, data_file, capsys, header):
    new = tmp_path / "new.csv"
    new.write_text(header + "\n1,0.1,0.2\n0,3.1,2.9\n", encoding="utf-8")
    out = tmp_path / "pred.csv"
    code = main(["cluster", str(data_file), "-k", "2", "--algorithm", "kmeans", "--label-column", "class",
                 "--predict", str(new), "--predict-out", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert out.read_text().splitlines()[0] == "index,label" and len(out.read_text().splitlines()) == 3


@pytest.mark.parametrize(("scale", "scaler"), [("standard", "StandardScaler"), ("minmax", "MinMaxScaler")])
def test_scale_rescales_the_data_before_scoring(files, capsys, scale, scaler):
    from sklearn import preprocessing

    from ccopt import Constraints, impact_scores

    X = files["X"] * np.array([1.0, 1000.0])  # the second feature in other units
    data = _write(files["dir"] / "units.csv", "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    out = files["dir"] / "scores.csv"
    code, _, err = _run(["score", data, "--constraints", files["cons"], "-k", 2, "--criterion", "mssc",
                         "--max-iter", 5, "--seed", 3, "--scale", scale, "-q", "--out", out], capsys)
    assert code == 0, err
    rescaled = getattr(preprocessing, scaler)().fit_transform(X)
    api = impact_scores(rescaled, 2, constraints=Constraints.from_csv(files["cons"], n_samples=N),
                        criterion="mssc", max_iter=5, random_state=3, progress=False)
    with open(out, newline="") as handle:
        by_row = {int(r["row"]): float(r["score"]) for r in csv.DictReader(handle)}
    assert [by_row[row] for row in range(len(api.scores))] == pytest.approx(api.scores.tolist())


def test_scale_rescales_predicted_rows_with_the_training_statistics(files, capsys):
    from sklearn.preprocessing import StandardScaler

    from ccopt.cluster import KMeans

    X = files["X"] * np.array([1.0, 1000.0])  # the second feature in other units
    data = _write(files["dir"] / "units.csv", "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    rows = np.array([[11.0, -4000.0], [2.0, -3000.0], [10.0, -12000.0]])
    new = _write(files["dir"] / "new.csv", "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in rows))
    predicted = files["dir"] / "new_labels.csv"
    code, _, err = _run(["cluster", data, "-k", 2, "--algorithm", "kmeans", "--scale", "standard", "--seed", 1,
                         "--predict", new, "--predict-out", predicted, "-q"], capsys)
    assert code == 0, err
    scaler = StandardScaler().fit(X)
    expected = KMeans(2, random_state=1).fit(scaler.transform(X)).predict(scaler.transform(rows))
    unscaled = KMeans(2, random_state=1).fit(X).predict(rows)
    # The first row is nearer the other cluster in the original units: the test tells the two apart.
    assert not np.array_equal(expected == expected[0], unscaled == unscaled[0])
    with open(predicted, newline="") as handle:
        assert [int(r["label"]) for r in csv.DictReader(handle)] == expected.tolist()


def test_duplicate_rows_warn_on_one_line(files, capsys):
    # Also under this suite's filters, which turn ccopt warnings into errors: the command sets
    # its own, as it does under ``python -W error``.
    dup = _write(files["dir"] / "dup.csv", "i,j,kind\n0,1,ML\n1,0,ML\n")
    code, _, err = _run(["cluster", files["data"], "--constraints", dup, "-k", 2, "--algorithm", "kmeans", "-q"],
                        capsys)
    assert code == 0
    assert [line for line in err.splitlines() if line] == [
        line for line in err.splitlines() if line.startswith("ccopt: warning: 1 duplicate constraint row")]


def test_scores_file_echoes_a_reversed_duplicate_as_written(files, capsys):
    # Both rows are one constraint and share its score, but each line names the pair the user wrote.
    dup = _write(files["dir"] / "dup.csv", "i,j,kind\n0,1,ML\n9,0,CL\n1,0,ML\n0,9,CL\n")
    out = files["dir"] / "scores.csv"
    code, _, err = _run(["score", files["data"], "--constraints", dup, "-k", 2, "--label-column", "class",
                         "--out", out, "-q"], capsys)
    assert code == 0
    assert "ccopt: warning: 2 duplicate constraint row(s) merged: " in err
    with open(out, newline="") as handle:
        rows = {int(r["row"]): r for r in csv.DictReader(handle)}
    assert [(rows[r]["i"], rows[r]["j"]) for r in range(4)] == [("0", "1"), ("9", "0"), ("1", "0"), ("0", "9")]
    assert rows[0]["score"] == rows[2]["score"] and rows[1]["score"] == rows[3]["score"]


# --------------------------------------------------------------------------- output closed early or unwritable
class _ClosedPipe(io.TextIOBase):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        raise io.UnsupportedOperation("fileno")


def test_output_closed_early_exits_141_without_a_traceback(data_file, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["cluster", str(data_file), "-k", "2", "--algorithm", "kmeans", "-q"]) == EXIT_BROKEN_PIPE


@pytest.mark.parametrize("buffered", [True, False])
def test_console_script_into_a_closed_pipe_exits_141_quietly(data_file, buffered):
    """Buffered output fails only when flushed: at exit that was 'Exception ignored', code 120."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "ccopt", "cluster", str(data_file), "-k", "2",
                               "--algorithm", "kmeans", "-q", "--label-column", "class"],
                              stdout=write_end, stderr=subprocess.PIPE,
                              env=env, timeout=120, check=False)
    finally:
        os.close(write_end)
    assert proc.returncode == EXIT_BROKEN_PIPE and proc.stderr == b"", proc.stderr.decode()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("command", ["score", "cluster"])
def test_an_output_file_that_cannot_be_written_is_a_clean_error(tmp_path, capsys, command):
    rng = np.random.default_rng(0)
    data = tmp_path / "d.csv"
    data.write_text("a,b\n" + "".join(f"{x},{y}\n" for x, y in rng.normal(size=(12, 2))))
    cons = tmp_path / "c.csv"
    cons.write_text("i,j,kind\n0,1,ML\n2,3,CL\n")
    argv = [command, str(data), "--constraints", str(cons), "-k", "2", "--out", "/dev/full", "--quiet"]
    if command == "cluster":
        argv += ["--algorithm", "cop-kmeans"]
    assert main(argv) == 2
    assert "cannot write /dev/full" in capsys.readouterr().err


# --------------------------------------------------------------------------- bench
def _bench_dir(tmp_path):
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    _write(folder / "bench_demo.py", '"""Demo benchmark: writes its arguments."""\n'
           "import sys\n\n\ndef main(argv=None):\n    print('demo got', argv, sys.argv[0])\n    return 3\n")
    _write(folder / "bench_nomain.py", '"""No main here."""\nX = 1\n')
    _write(folder / "helper.py", "def main(argv):\n    pass\n")
    return folder


def test_bench_discovers_scripts_with_main_only(tmp_path):
    found = discover_benchmarks(_bench_dir(tmp_path))
    assert list(found) == ["demo"]
    assert found["demo"][1] == "Demo benchmark: writes its arguments."


def test_bench_lists_and_runs_with_passed_arguments(tmp_path, capsys, monkeypatch):
    folder = _bench_dir(tmp_path)
    code, text, _ = _run(["bench", "--dir", folder, "--list"], capsys)
    assert code == 0 and "demo" in text and "nomain" not in text
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, text, _ = _run(["bench", "--dir", folder, "demo", "--quick", "--seed", "1"], capsys)
    assert code == 3
    assert "demo got ['--quick', '--seed', '1'] ccopt bench demo" in text
    code, _, err = _run(["bench", "--dir", folder, "nope"], capsys)
    assert code == 2 and "No benchmark 'nope'" in err and "available: demo" in err
    code, _, err = _run(["bench", "--dir", tmp_path / "empty", "--list"], capsys)
    assert code == 2 and "No benchmarks found" in err


def test_bench_finds_the_checkouts_benchmarks(capsys, monkeypatch):
    monkeypatch.delenv("CCOPT_BENCHMARKS", raising=False)
    code, text, _ = _run(["bench", "--list"], capsys)
    assert code == 0 and "benchmarks in" in text


# --------------------------------------------------------------------------- console script
def _console(*argv, cwd, command=None):
    """Run the installed ``ccopt`` script (or ``command``, e.g. ``python -m ccopt``) on ``argv``."""
    if command is None:
        exe = shutil.which("ccopt")
        command = [exe] if exe else [sys.executable, "-m", "ccopt.cli"]
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([*command, *map(str, argv)], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


def test_console_script_happy_path(files):
    out = files["dir"] / "labels.csv"
    done = _console("cluster", "data.csv", "--constraints", "cons.csv", "-k", 2, "--algorithm", "kmeans",
                    "--out", "labels.csv", "--label-column", "class", cwd=files["dir"])
    assert done.returncode == 0, done.stderr
    assert "algorithm kmeans" in done.stdout and len(out.read_text().splitlines()) == N + 1
    # The one line on stderr: kmeans keeps the must-links of cons.csv and ignores its cannot-links.
    assert done.stderr.startswith("ccopt: warning: KMeans does not enforce cannot-links")
    assert done.stderr.count("\n") == 1


def test_python_dash_m_ccopt_runs_the_same_command(files):
    module = [sys.executable, "-m", "ccopt"]
    done = _console("cluster", "data.csv", "--constraints", "cons.csv", "-k", 2, "--algorithm", "kmeans",
                    "--out", "m.csv", cwd=files["dir"], command=module)
    assert done.returncode == 0, done.stderr
    assert len((files["dir"] / "m.csv").read_text().splitlines()) == N + 1
    missing = _console("score", "nowhere.csv", "-k", 2, "--constraints", "cons.csv", cwd=files["dir"],
                       command=module)
    assert missing.returncode == 2 and "nowhere.csv" in missing.stderr


@pytest.mark.slow
def test_console_script_score_happy_path(files):
    out = files["dir"] / "s.csv"
    done = _console("score", "data.csv", "--constraints", "cons.csv", "-k", 2, "--criterion", "mssc",
                    "--max-iter", 3, "--out", "s.csv", cwd=files["dir"])
    assert done.returncode == 0, done.stderr
    assert "rank" in done.stdout and len(out.read_text().splitlines()) == 6
    assert "Traceback" not in done.stderr


def test_console_script_malformed_input_exit_2_one_line(files):
    _write(files["dir"] / "k.csv", "i,j,kind\n0,1,ZZ\n")
    done = _console("score", "data.csv", "--constraints", "k.csv", "-k", 2, "--label-column", "class",
                    cwd=files["dir"])
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ccopt score: error: k.csv:2: Unknown constraint kind 'ZZ' in line 2; use 'ML'/'CL' (or +1/-1)."]
    assert done.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_console_script_every_malformed_input(case, files):
    argv, fragments = _cases(files)[case]
    done = _console(*argv, cwd=files["dir"])
    assert done.returncode == 2
    # The cases leave out --label-column, so the fixture's class column draws its warning.
    lines = [line for line in done.stderr.strip().splitlines() if "column 'class' is used as a feature" not in line]
    assert len(lines) == 1 and "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["score", "cluster", "bench"])
def test_console_script_help(command, tmp_path):
    done = _console(command, "--help", cwd=tmp_path)
    assert done.returncode == 0 and "examples:" in done.stdout


def test_cluster_passes_the_bh_kmeans_options(files, capsys):
    from ccopt import Constraints
    from ccopt.cluster import BHKMeans

    out = files["dir"] / "bh.csv"
    code, _, err = _run(["cluster", files["data"], "--constraints", files["cons"], "-k", 2, "--algorithm",
                         "bh-kmeans", "--candidates", 1, "--solve-time-limit", 30, "--quiet", "--out", out],
                        capsys)
    assert code == 0, err
    est = BHKMeans(2, n_candidates=1, solve_time_limit=30, random_state=0).fit(
        files["X"], constraints=Constraints.from_csv(files["cons"], n_samples=N))
    with open(out, newline="") as handle:
        np.testing.assert_array_equal([int(r["label"]) for r in csv.DictReader(handle)], est.labels_)
    assert all(record["restricted"] for record in est.history_)


# --------------------------------------------------------------------------- plots, sizes, reports, logs
PNG = b"\x89PNG"


def test_plot_without_a_suffix_is_a_png_under_the_name_given(files, capsys):
    plot = files["dir"] / "noext"
    code, text, err = _run(["cluster", files["data"], "-k", 2, "--algorithm", "kmeans", "-q", "--plot", plot],
                           capsys)
    assert code == 0, err
    assert plot.read_bytes()[:4] == PNG and not (files["dir"] / "noext.png").exists()
    assert f"wrote {plot}" in text


@pytest.mark.parametrize(("command", "option"), [("score", "--plot"), ("score", "--plot-convergence"),
                                               ("cluster", "--plot")])
def test_unsupported_plot_format_fails_before_any_work(command, option, files, capsys):
    out = files["dir"] / "out.csv"
    argv = (["score", files["data"], "--constraints", files["cons"], "-k", 2, "--max-iter", 2]
            if command == "score" else ["cluster", files["data"], "-k", 2, "--algorithm", "kmeans"])
    code, text, err = _run([*argv, "-q", "--out", out, option, files["dir"] / "x.pdfx"], capsys)
    assert code == 2 and text == "" and not out.exists()
    (line,) = err.strip().splitlines()
    for fragment in (f"ccopt {command}: error: {option}", "x.pdfx", "'pdfx'", "png", "pdf", "svg"):
        assert fragment in line
    assert not (files["dir"] / "x.pdfx").exists()


def test_sizes_are_soft_targets_reported_beside_the_sizes_reached(files, capsys):
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    assert "soft" in " ".join(capsys.readouterr().out.split())
    argv = ["cluster", files["data"], "-k", 2, "--sizes", "2,8", "-q"]
    for algorithm in ("kmeans-s", "pcs"):
        code, text, err = _run([*argv, "--algorithm", algorithm], capsys)
        assert code == 0, err
        # The two groups of 5 are far apart: the size terms do not move an object.
        assert "cluster sizes [5, 5]; target sizes [" in text and "soft" in text
    code, text, err = _run([*argv, "--algorithm", "kmeans-s", "--exact-sizes"], capsys)
    assert code == 0, err
    sizes = text.split("cluster sizes ")[1].splitlines()[0]
    assert sorted(int(s) for s in sizes.strip("[]").split(",")) == [2, 8] and "target" not in text
    code, _, err = _run([*argv, "--algorithm", "pcs", "--exact-sizes"], capsys)
    assert code == 2 and "--exact-sizes does not apply to --algorithm pcs" in err


def test_plots_label_the_axes_with_the_csv_columns(files, capsys, monkeypatch):
    import ccopt.cli

    drawn = []
    save = ccopt.cli._save_figure

    def spy(fig, *args, **kwargs):
        drawn.append((fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()))
        save(fig, *args, **kwargs)

    monkeypatch.setattr(ccopt.cli, "_save_figure", spy)
    plot = files["dir"] / "p.png"
    code, _, err = _run(["cluster", files["data"], "-k", 2, "--algorithm", "kmeans", "--label-column", "class",
                         "-q", "--plot", plot], capsys)
    assert code == 0, err
    code, _, err = _run(["score", files["data"], "--constraints", files["cons"], "-k", 2, "--criterion", "mssc",
                         "--max-iter", 2, "--label-column", "class", "-q", "--plot", plot], capsys)
    assert code == 0, err
    code, _, err = _run(["score", files["data"], "--constraints", files["cons"], "-k", 2, "--criterion", "mssc",
                         "--max-iter", 2, "--label-column", "class", "--scale", "standard", "-q", "--plot", plot],
                        capsys)
    assert code == 0, err
    assert drawn == [("x", "y"), ("x", "y"), ("x (standard-scaled)", "y (standard-scaled)")]


def test_score_detection_is_undefined_when_nothing_is_erroneous_or_predicted(files, capsys):
    # Correct constraints only (classes 0: objects 0-4, 1: objects 5-9), all scoring 0.
    assert files["y"].tolist() == [0] * 5 + [1] * 5
    cons = _write(files["dir"] / "good.csv", "i,j,kind\n0,1,ML\n0,2,ML\n0,5,CL\n0,6,CL\n")
    code, text, err = _run(["score", files["data"], "--constraints", cons, "-k", 2, "--label-column", "class",
                            "-q"], capsys)
    assert code == 0, err
    (line,) = [line for line in text.splitlines() if line.startswith("detection:")]
    assert line.startswith("detection: precision n/a, recall n/a, F1 n/a (")
    assert "0.000" not in line and "no constraint is erroneous" in line


def test_help_says_which_commands_use_the_weight_and_hard_columns(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    score_help = " ".join(capsys.readouterr().out.split())
    assert "reads the weight and hard columns but does not use them" in score_help
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    cluster_help = " ".join(capsys.readouterr().out.split())
    assert "bh-kmeans, pckmeans and pcs use the weight and hard columns" in cluster_help
    assert "does not use them" not in cluster_help


def test_log_lines_take_the_form_of_warnings_on_stderr(files):
    # The interrupt notice is a log record; it read "ccopt: WARNING: ..." while warnings read
    # "ccopt: warning: ...", so a grep for the documented form missed it.
    from ccopt.cli import _LineFormatter

    record = logging.LogRecord("ccopt.lagrange", logging.WARNING, __file__, 1, "interrupted\n after %d", (3,), None)
    assert _LineFormatter().format(record) == "ccopt: warning: interrupted after 3"
    done = _console("score", "data.csv", "--constraints", "cons.csv", "-k", 2, "--max-iter", 3, "-v", "-q",
                    cwd=files["dir"])
    assert done.returncode == 0, done.stderr
    assert any(line.startswith("ccopt: info: data.csv: ") for line in done.stderr.splitlines()), done.stderr


def test_help_names_what_each_command_reports_against_the_label_column(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "precision, recall and F1 of the predictions" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    cluster_help = " ".join(capsys.readouterr().out.split())
    assert "ARI and NMI against it" in cluster_help and "F1" not in cluster_help


def test_ctrl_c_keeps_the_best_score_or_exits_130(files, capsys, monkeypatch):
    """Interrupted score work is kept (exit 0); an interrupt before there is a result exits with 130."""
    import ccopt.datasets
    import ccopt.lagrange.driver

    class Interrupting:
        # After the second iteration: the first leaves the best multipliers at their
        # starting zeros, which is no result (tests/test_cli_no_iteration.py).
        def __init__(self, *args, **kwargs):
            self.updates = 0

        def update(self, *args):
            self.updates += 1
            if self.updates == 2:
                raise KeyboardInterrupt

        def __getattr__(self, name):
            return lambda *args, **kwargs: None

    monkeypatch.setattr(ccopt.lagrange.driver, "progress_bar", Interrupting)
    out = files["dir"] / "s.csv"
    code, text, _ = _run(["score", files["data"], "--constraints", files["cons"], "-k", 2, "--criterion", "mssc",
                          "--out", out], capsys)
    assert code == 0 and "status=interrupted" in text and out.exists()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ccopt.datasets, "load_csv", interrupted)
    code, text, err = _run(["score", files["data"], "--constraints", files["cons"], "-k", 2], capsys)
    assert code == 130 and err == "ccopt score: interrupted\n" and text == ""
