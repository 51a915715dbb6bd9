"""Regression tests for input defects found in review (constraints, problem, datasets, CLI).

Each test names the input that used to crash with a numpy/Python traceback, be accepted
silently, or be reported wrongly.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ccopt import datasets as ds
from ccopt.cli import EXIT_BROKEN_PIPE, main
from ccopt.constraints import Constraints, check_feasibility
from ccopt.exceptions import (
    CcoptWarning,
    DataFormatError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
)
from ccopt.problem import ClusteringProblem


# --------------------------------------------------------------------------- constraints
@pytest.mark.parametrize("pairs", [np.empty((3, 0)), np.empty((0, 3)), [[]], np.empty((0, 2, 2))])
def test_empty_pair_arrays_of_the_wrong_shape_are_refused(pairs):
    shape = re.escape(str(np.asarray(pairs).shape))
    with pytest.raises(InvalidConstraintError, match=rf"ml must have shape \(m, 2\).*got shape {shape}"):
        Constraints.from_pairs(ml=pairs, n_samples=4)


@pytest.mark.parametrize("pairs", [None, [], np.empty(0), np.empty((0, 2)), np.empty((0, 2), dtype=np.int8)])
def test_no_pairs_is_still_an_empty_set(pairs):
    assert len(Constraints.from_pairs(ml=pairs, n_samples=4)) == 0


@pytest.mark.parametrize(("kind", "code"), [(1, 1), (-1, -1), (np.int64(-1), -1), ("CL", -1)])
def test_a_scalar_kind_for_a_single_pair(kind, code):
    assert Constraints([(0, 1)], kind, n_samples=2).kinds.tolist() == [code]


def test_to_given_refuses_a_scalar():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=3)
    with pytest.raises(InvalidParameterError, match=r"one value per constraint \(2\), got a scalar"):
        cons.to_given(1.0)


def test_from_csv_index_beyond_int64_names_the_line(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind\n0,1,ML\n0,99999999999999999999999,CL\n")
    for n_samples in (None, 5):
        with pytest.raises(DataFormatError, match=r"c\.csv:3: index too large to be a row number"):
            Constraints.from_csv(path, n_samples=n_samples)


@pytest.mark.parametrize("header", ["i,j,kind,i", "i,j,kind,weight,WEIGHT"])
def test_from_csv_refuses_a_column_named_twice(tmp_path, header):
    path = tmp_path / "c.csv"
    path.write_text(header + "\n" + "0,1,ML," + ",".join(["3"] * (header.count(",") - 2)) + "\n")
    with pytest.raises(DataFormatError, match=r"c\.csv:1: header .* names column\(s\) \['(i|weight)'\] more than once"):
        Constraints.from_csv(path)


@pytest.mark.parametrize("matrix", [
    sp.csr_matrix(np.array([[0, 1], [0, 0]], dtype=bool)),
    sp.csr_matrix(np.array([[0, 1], [0, 0]], dtype=complex)),
    np.array([[0, 1], [0, 0]], dtype=complex),
    np.array([[0, 1], [0, 0]], dtype=bool),
])
def test_constraint_matrices_of_bool_or_complex_dtype_are_refused_dense_or_sparse(matrix):
    with pytest.raises(InvalidConstraintError, match=r"constraint matrix must be numeric \(1, -1, 0\), got dtype"):
        Constraints.from_matrix(matrix)


def test_feasibility_reason_says_the_size_bound_failed_not_the_colouring():
    report = check_feasibility(Constraints.empty(4), 2, max_cluster_size=2)
    assert report.status in ("feasible", "unknown")
    if report.status == "unknown":
        assert "No colouring" not in report.reason
        assert "exceed max_cluster_size=2" in report.reason


def test_feasibility_with_more_clusters_than_objects_does_not_blame_must_links():
    report = check_feasibility(Constraints.empty(3), 4)
    assert report.status == "infeasible"
    assert report.reason == "4 non-empty clusters need at least 4 objects; there are 3."


# --------------------------------------------------------------------------- problem
def test_with_constraints_refuses_pairs_that_are_not_a_constraints_object():
    problem = ClusteringProblem.create(np.arange(8.0).reshape(4, 2), 2)
    with pytest.raises(InvalidParameterError, match=r"constraints must be a ccopt\.Constraints object, got list"):
        problem.with_constraints([(0, 1)])


# --------------------------------------------------------------------------- datasets
def _write(tmp_path, text, name="d.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_integer_labels_beyond_int64_are_recoded_not_an_overflow(tmp_path):
    path = _write(tmp_path, "x,c\n1,99999999999999999999\n2,1\n3,1\n")
    data = ds.load_csv(path, label_column="c")
    assert data.label_names == ("1", "99999999999999999999")
    assert data.labels.tolist() == [1, 0, 0]


def test_labels_are_compared_as_numbers_when_they_all_are(tmp_path):
    # "2" and "2.0" were two classes, and integers written as floats (pandas, with a missing
    # value) were coded as names in string order: 1.0 < 10.0 < 2.
    data = ds.load_csv(_write(tmp_path, "x,c\n1,1.0\n2,2.0\n3,10.0\n4,2\n"), label_column="c")
    assert data.labels.tolist() == [1, 2, 10, 2] and data.label_names is None
    data = ds.load_csv(_write(tmp_path, "x,c\n1,0.5\n2,2.0\n3,10\n4,2\n"), label_column="c")
    assert data.labels.tolist() == [0, 1, 2, 1] and data.label_names == ("0.5", "2.0", "10.0")
    data = ds.load_csv(_write(tmp_path, "x,c\n1,b\n2,a\n3,b\n"), label_column="c")
    assert data.labels.tolist() == [1, 0, 1] and data.label_names == ("a", "b")


def test_a_header_of_numbers_with_a_fraction_is_refused_as_a_first_object(tmp_path):
    # It was only warned about, and the first object was lost (the command line refused it).
    path = _write(tmp_path, "\n0.5,-1.25\n3,4\n5,6\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:2: the header row \['0.5', '-1.25'\] holds only "
                                              r"numbers: the file seems to have no header.*Add a header row"
                                              r".*numeric_header=True"):
        ds.load_csv(path)
    with warnings.catch_warnings():  # numbers that name the columns (wavelengths): said so, read so
        warnings.simplefilter("error")
        data = ds.load_csv(path, numeric_header=True)
    assert data.feature_names == ("0.5", "-1.25") and data.n_samples == 2


def test_a_header_of_integers_other_than_pandas_column_numbers_warns(tmp_path):
    # A headerless file of counts lost its first object without a word: every integer header
    # was taken for pandas' unnamed columns, which are exactly 0..d-1.
    path = _write(tmp_path, "5,30\n4,31\n6,29\n")
    with pytest.warns(CcoptWarning, match=r"header row \['5', '30'\] holds only numbers.*Add a header row"):
        data = ds.load_csv(path)
    assert data.n_samples == 2


@pytest.mark.parametrize("header", ["0,1", "x,1.5", "a,b"])
def test_integer_or_named_headers_do_not_warn(tmp_path, header):
    path = _write(tmp_path, header + "\n3,4\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ds.load_csv(path).feature_names == tuple(header.split(","))


def test_a_label_column_named_twice_is_refused(tmp_path):
    path = _write(tmp_path, "c,x,c\n0,3,1\n1,4,0\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:1: the header names the label column 'c' more than once"):
        ds.load_csv(path, label_column="c")


@pytest.mark.parametrize(("kwargs", "exc", "pattern"), [
    ({"X": np.arange(3.0)}, InvalidDataError, r"X must be 2-D"),
    ({"X": [[1.0, np.nan]] * 2}, InvalidDataError, r"X contains NaN at row 0, column 1"),
    ({"labels": [0, 1, 1]}, InvalidDataError, r"labels has 3 entries, X has 2 rows"),
    ({"labels": [0.5, 1.5]}, InvalidDataError, r"labels must be integer class codes, got dtype float64"),
    ({"labels": ["a", "b"]}, InvalidDataError, r"labels must be integer class codes, got dtype <U1"),
    ({"feature_names": ("a",)}, InvalidDataError, r"feature_names has 1 names, X has 2 columns"),
])
def test_a_dataset_built_by_hand_is_checked(kwargs, exc, pattern):
    args = {"X": np.zeros((2, 2)), "labels": [0, 1], "name": "toy", "feature_names": ("a", "b"), **kwargs}
    with pytest.raises(exc, match=pattern):
        ds.Dataset(**args)


def test_a_dataset_keeps_integral_float_labels_and_copies_x():
    X = np.zeros((2, 1))
    data = ds.Dataset(X, np.array([0.0, 2.0]), "toy", ("a",))
    X[0, 0] = 5.0
    assert data.labels.tolist() == [0, 2] and data.labels.dtype == np.int64 and data.X[0, 0] == 0.0


# --------------------------------------------------------------------------- command line
@pytest.fixture
def data_file(tmp_path):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.3, (4, 2)), rng.normal(3, 0.3, (4, 2))])
    return _write(tmp_path, "class,x,y\n" + "".join(f"{c},{a!r},{b!r}\n" for (a, b), c in
                                                     zip(X.tolist(), [0] * 4 + [1] * 4, strict=True)), "data.csv")


def test_cluster_help_keeps_the_line_break_of_its_last_example(capsys):
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    out = capsys.readouterr().out
    assert "--algorithm bh-kmeans \\\n        --predict new.csv" in out


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


def test_check_feasibility_takes_a_generator_like_every_other_random_state():
    cons = Constraints.from_pairs(cl=[(0, 1), (1, 2)], n_samples=4)
    by_int = check_feasibility(cons, 2, random_state=3)
    by_generator = check_feasibility(cons, 2, random_state=np.random.default_rng(3))
    assert by_int.feasible is by_generator.feasible is True
    with pytest.raises(InvalidParameterError, match="random_state"):
        check_feasibility(cons, 2, random_state=-1)


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
