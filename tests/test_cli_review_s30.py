"""Command-line and reader fixes of the seventh session of 2026-11-24."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ccopt
from ccopt import Constraints, DataFormatError
from ccopt.cli import main
from ccopt.generators import make_gaussian_clusters

MATRIX = [[0, 1, 0, -1], [1, 0, 0, 0], [0, 0, 0, 0], [-1, 0, 0, 0]]


def _matrix_text(separator: str) -> str:
    return "".join(separator.join(str(v) for v in row) + "\n" for row in MATRIX)


def test_a_matrix_file_is_read_with_the_delimiter_given(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(_matrix_text(" | "))
    hint = "The file seems to separate its fields with '|': pass delimiter='|' (command line: --delimiter '|')."
    with pytest.raises(DataFormatError, match=r"m\.csv:1: non-numeric value '\|' in constraint matrix row") as info:
        Constraints.from_matrix_file(path)
    assert str(info.value).endswith(hint)
    cons = Constraints.from_matrix_file(path, delimiter="|")
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]
    for separator in (" ; ", ";", ", ", "\t"):  # the default rule: commas, semicolons, whitespace
        path.write_text(_matrix_text(separator))
        cons = Constraints.from_matrix_file(path)
        assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]
    path.write_text(_matrix_text(";").replace("-1", "x", 1))
    with pytest.raises(DataFormatError, match=r"m\.csv:1: non-numeric value 'x'"):
        Constraints.from_matrix_file(path, delimiter=";")
    with pytest.raises(ccopt.InvalidParameterError, match="delimiter must be a single character, got ';;'"):
        Constraints.from_matrix_file(path, delimiter=";;")


@pytest.mark.parametrize(("separator", "option"), [(";", ";"), ("|", "|")])
def test_the_command_line_reads_the_matrix_file_with_delimiter(tmp_path, capsys, separator, option):
    # --delimiter used to reach the data and constraint CSV files only, so a ';' matrix was refused.
    X, _ = make_gaussian_clusters(4, 2, cluster_std=0.3, random_state=3)
    data = tmp_path / "data.csv"
    data.write_text(f"x{separator}y\n" + "".join(f"{float(a)!r}{separator}{float(b)!r}\n" for a, b in X))
    matrix = tmp_path / "m.csv"
    matrix.write_text(_matrix_text(separator))
    argv = ["cluster", str(data), "--constraint-matrix", str(matrix), "-k", "2", "--algorithm", "cop-kmeans", "-q",
            "--out", str(tmp_path / "labels.csv")]
    assert main([*argv, "--delimiter", option]) == 0
    labels = np.loadtxt(tmp_path / "labels.csv", delimiter=",", skiprows=1, dtype=int)[:, 1]
    assert labels[0] == labels[1] and labels[0] != labels[3]
    assert main(argv) == 2  # the data file itself is not comma-separated
    assert f"--delimiter {separator!r}" in capsys.readouterr()[1]


@pytest.mark.parametrize("matrix_separator", [" ", ","])
def test_one_delimiter_serves_a_data_file_and_a_matrix_written_by_numpy(tmp_path, matrix_separator):
    # A ';' data file (a European spreadsheet) beside a matrix from numpy.savetxt: rows without
    # the ';' keep the matrix reader's own rule, as before --delimiter reached the matrix.
    X, _ = make_gaussian_clusters(4, 2, cluster_std=0.3, random_state=3)
    data = tmp_path / "data.csv"
    data.write_text("x;y\n" + "".join(f"{float(a)!r};{float(b)!r}\n" for a, b in X))
    matrix = tmp_path / "m.txt"
    np.savetxt(matrix, np.array(MATRIX), fmt="%d", delimiter=matrix_separator)
    out = tmp_path / "labels.csv"
    argv = ["cluster", str(data), "--constraint-matrix", str(matrix), "-k", "2", "--algorithm", "cop-kmeans",
            "-q", "--delimiter", ";", "--out", str(out)]
    assert main(argv) == 0
    labels = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int)[:, 1]
    assert labels[0] == labels[1] and labels[0] != labels[3]


def test_an_empty_matrix_value_is_named_and_a_whitespace_separator_counts_once(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("0;1;\n1;0;\n")  # a separator closing a row only ends it
    assert Constraints.from_matrix_file(path, delimiter=";").ml_pairs.tolist() == [[0, 1]]
    path.write_text("0;;1\n1;0;0\n0;0;0\n")
    with pytest.raises(DataFormatError, match=r"m\.csv:1: empty value in constraint matrix row '0;;1': two "
                                              r"separators \(';'\) in a row, or one at the start"):
        Constraints.from_matrix_file(path, delimiter=";")
    path.write_text("0  1   -1\n1  0    0\n-1 0    0\n")
    for separator in (" ", "\t"):
        cons = Constraints.from_matrix_file(path, delimiter=separator)
        assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 2]]


def test_a_comma_data_file_goes_with_a_semicolon_matrix_without_a_delimiter(tmp_path):
    X, _ = make_gaussian_clusters(4, 2, cluster_std=0.3, random_state=3)
    data = tmp_path / "data.csv"
    data.write_text("x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    matrix = tmp_path / "m.txt"
    matrix.write_text(_matrix_text(";"))
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(data), "--constraint-matrix", str(matrix), "-k", "2", "--algorithm",
                 "cop-kmeans", "-q", "--out", str(out)]) == 0
    labels = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int)[:, 1]
    assert labels[0] == labels[1] and labels[0] != labels[3]


def test_an_empty_value_between_commas_is_named_not_merged(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("0,,1\n1,0,0\n")
    with pytest.raises(DataFormatError, match=r"m\.csv:1: empty value in constraint matrix row '0,,1': two "
                                              r"separators \(commas or semicolons\) in a row"):
        Constraints.from_matrix_file(path)
    path.write_text("0,1,-1,\n1 0 0 ,\n-1;0;0;\n")  # a closing separator, as rows written by a loop end
    cons = Constraints.from_matrix_file(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 2]]


def test_a_constraints_header_with_a_misspelt_column_is_refused_and_notes_are_not_read(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind,weigth\n0,1,ML,5\n0,3,CL,2\n")
    with pytest.raises(DataFormatError, match=r"c\.csv:1: the header names column\(s\) ccopt does not know: "
                                              r"'weigth' \(did you mean 'weight'\?\)"):
        Constraints.from_csv(path)
    path.write_text("id,i,j,kind,source\n0,0,1,ML,expert\n1,0,3,CL,expert\n")
    with pytest.warns(ccopt.CcoptWarning, match=r"column\(s\) \['id', 'source'\] are not read"):
        cons = Constraints.from_csv(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]
    path.write_text(",i,j,kind\n0,0,1,ML\n1,0,3,CL\n")  # pandas' to_csv writes its index unnamed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cons = Constraints.from_csv(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]


@pytest.mark.parametrize("value", [-1, 2, 0.5])
def test_a_constraint_matrix_diagonal_other_than_one_or_zero_is_refused(value):
    matrix = np.eye(3)
    matrix[1, 1] = value
    with pytest.raises(ccopt.InvalidConstraintError, match=r"diagonal .* found entry \(1, 1\)"):
        Constraints.from_matrix(matrix)
    assert len(Constraints.from_matrix(np.eye(3))) == 0
