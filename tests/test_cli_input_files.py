"""How the command line reads its files: header rows of numbers, the separators of the data,
constraint and matrix files, and columns that look like classes or row numbers."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from ccopt import Constraints, InvalidParameterError
from ccopt.cli import main
from ccopt.generators import make_gaussian_clusters
from tests._cli_files import CONSTRAINTS, ROWS, messages_given, write_arg
from tests._constraint_matrix import MATRIX, matrix_text

README = Path(__file__).resolve().parents[1] / "README.md"


# ----------------------------------------------------------------------------- header rows of numbers
def test_a_data_file_without_a_header_is_an_error_on_the_command_line(ten_point_files, capsys):
    # load_csv only warned: the first object became the header, every later one was numbered
    # one too low, and the constraints pointed at the wrong rows (exit 0).
    X, _, without, cons = ten_point_files
    for argv in (["cluster", str(without), "-k", "2", "--algorithm", "kmeans", "-q"],
                 ["score", str(without), "--constraints", str(cons), "-k", "2", "-q"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert err.startswith(f"ccopt {argv[0]}: error: {without}:1: the header row ['{float(X[0, 0])!r}', "
                              f"'{float(X[0, 1])!r}'] holds only numbers")
        assert "Add a header row" in err


def test_a_header_of_integers_is_read_with_numeric_header(tmp_path, capsys):
    # Years make a real header of numbers: --numeric-header reads it. Without the flag the command
    # line refuses it, since a file without a header would shift every constraint by one object.
    path = tmp_path / "years.csv"
    path.write_text("1990,2000,2010\n1,2,3\n4,5,6\n7,8,9\n")
    assert main(["cluster", str(path), "-k", "2", "--algorithm", "kmeans", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert "holds only numbers" in err and "--numeric-header" in err
    code = main(["cluster", str(path), "-k", "2", "--algorithm", "kmeans", "-q", "--numeric-header"])
    out, err = capsys.readouterr()
    assert code == 0 and "cluster sizes" in out and err == ""


@pytest.mark.parametrize("header", ["1,2", "1.5,2"])
@pytest.mark.parametrize("command", ["cluster", "score"])
def test_a_header_of_numbers_is_refused_without_numeric_header(tmp_path, capsys, header, command):
    # Integers were only warned about: the first object became the header and the constraint
    # 0-4 landed on the objects after those it names.
    data = write_arg(tmp_path / "f.csv", f"{header}\n{ROWS}")
    cons = write_arg(tmp_path / "c.csv", CONSTRAINTS)
    extra = ["--algorithm", "cop-kmeans"] if command == "cluster" else ["--criterion", "mssc"]
    assert main([command, data, "-k", "2", "--constraints", cons, "-q", *extra]) == 2
    err = capsys.readouterr()[1]
    assert err.startswith(f"ccopt {command}: error: {data}:1: the header row {header.split(',')} holds only numbers")
    assert "pass --numeric-header if these numbers name the columns" in err
    assert "numeric_header" not in err and err.count("\n") == 1


def test_numeric_header_reads_the_numbers_as_column_names(tmp_path, capsys):
    data = write_arg(tmp_path / "f.csv", "400.5,401\n" + ROWS)
    cons = write_arg(tmp_path / "c.csv", CONSTRAINTS)
    out = tmp_path / "labels.csv"
    argv = ["cluster", data, "-k", "2", "--constraints", cons, "--algorithm", "cop-kmeans", "-q",
            "--numeric-header", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "violated constraints: 0 of 2" in captured.out and captured.err == ""
    labels = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int)[:, 1]
    assert len(labels) == 6 and labels[0] == labels[1] != labels[4]


def test_numeric_header_applies_to_the_predict_file(tmp_path, capsys):
    data = write_arg(tmp_path / "train.csv", "x,y\n" + ROWS)
    new = write_arg(tmp_path / "new.csv", "5,6\n0,0\n9,9\n")  # no header: its first row is an object
    base = ["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--predict", new,
            "--predict-out", str(tmp_path / "new_labels.csv")]
    assert main(base) == 2
    err = capsys.readouterr()[1]
    assert f"{new}:1: the header row ['5', '6'] holds only numbers" in err and "--numeric-header" in err
    numbered = write_arg(tmp_path / "train_numbered.csv", "1,2\n" + ROWS)
    numbered_new = write_arg(tmp_path / "new_numbered.csv", "1,2\n0,0\n9,9\n")
    assert main(["cluster", numbered, "-k", "2", "--algorithm", "kmeans", "-q", "--numeric-header",
                 "--predict", numbered_new, "--predict-out", str(tmp_path / "out.csv")]) == 0
    captured = capsys.readouterr()
    assert f"{numbered_new}: 2 rows to the nearest centre" in captured.out and captured.err == ""


@pytest.mark.parametrize("command", ["score", "cluster"])
def test_both_data_commands_list_the_new_options(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr()[0]
    assert "--numeric-header" in text and "--constraints-delimiter" in text


# ----------------------------------------------------------------------------- constraint indices
def test_the_cli_hint_names_the_line(ten_point_files, tmp_path, capsys):
    _, with_header, _, _ = ten_point_files
    one_based = tmp_path / "one.csv"
    one_based.write_text("i,j,kind\n1,2,ML\n3,10,CL\n")
    code = main(["score", str(with_header), "--constraints", str(one_based), "-k", "2", "-q"])
    _, err = capsys.readouterr()
    assert code == 2 and "one.csv:3: " in err and "if the indices count from 1, subtract 1" in err


# ----------------------------------------------------------------------------- separators
def _semicolon_files(tmp_path, X, separator):
    tmp_path.mkdir(exist_ok=True)
    data = tmp_path / "semi.csv"
    data.write_text(f"x{separator}y\n" + "".join(f"{float(a)!r}{separator}{float(b)!r}\n" for a, b in X))
    cons = tmp_path / "csemi.csv"
    cons.write_text(f"i{separator}j{separator}kind\n0{separator}1{separator}ML\n0{separator}9{separator}CL\n")
    return data, cons


def test_a_file_with_another_separator_is_named_and_read_with_delimiter(ten_point_files, tmp_path, capsys):
    # The bare "non-numeric value '0.06;-0.07' in column 'x;y'" did not say why.
    X, with_header, _, cons = ten_point_files
    semi, csemi = _semicolon_files(tmp_path, X, ";")
    hint = "The file seems to separate its fields with ';': pass delimiter=';' (command line: --delimiter ';')."
    assert main(["score", str(semi), "--constraints", str(cons), "-k", "2", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert f"{semi}:2: non-numeric value" in err and hint in err
    assert main(["score", str(with_header), "--constraints", str(csemi), "-k", "2", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert f"{csemi}:1: header ['i;j;kind'] lacks column(s)" in err and "pass --constraints-delimiter ';'." in err
    assert main(["score", str(semi), "--constraints", str(csemi), "-k", "2", "-q", "--delimiter", ";"]) == 0
    assert "2 constraints" in capsys.readouterr()[0]
    assert Constraints.from_csv(csemi, delimiter=";").pairs.tolist() == [[0, 1], [0, 9]]
    tabbed, ctabbed = _semicolon_files(tmp_path / "tab", X, "\t")
    assert main(["cluster", str(tabbed), "--constraints", str(ctabbed), "-k", "2", "--algorithm", "kmeans",
                 "-q", "--delimiter", "tab"]) == 0
    assert "ccopt: warning: KMeans does not enforce cannot-links" in capsys.readouterr()[1]
    with pytest.raises(InvalidParameterError, match="delimiter must be a single character, got ';;'"):
        Constraints.from_csv(csemi, delimiter=";;")
    with pytest.raises(SystemExit):
        main(["score", str(semi), "--constraints", str(csemi), "-k", "2", "--delimiter", ";;"])
    assert "expected one character or 'tab', got ';;'" in capsys.readouterr()[1]


def test_decimal_commas_are_named_not_taken_for_a_separator(tmp_path, capsys):
    # 'x;y' / '1,5;2,3' (a European spreadsheet): the hint sent the user back and forth
    # between --delimiter ';' and ','.
    path = tmp_path / "dec.csv"
    path.write_text("x;y\n1,5;2,3\n2,5;1,0\n3,0;0,5\n")
    assert main(["cluster", str(path), "-k", "2", "--algorithm", "kmeans", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert "dec.csv:2: expected 1 fields like the header, got 3. The file seems to separate its fields with ';'" in err
    assert main(["cluster", str(path), "-k", "2", "--algorithm", "kmeans", "-q", "--delimiter", ";"]) == 2
    err = capsys.readouterr()[1]
    assert err.endswith("non-numeric value '1,5' in column 'x'. The file seems to write decimal commas (1,5 for "
                        "1.5); save it with decimal points.\n")


def test_the_constraints_file_has_a_separator_of_its_own(tmp_path, capsys):
    data = write_arg(tmp_path / "d.csv", "x,y\n" + ROWS)
    tsv = write_arg(tmp_path / "c.tsv", CONSTRAINTS.replace(",", "\t"))
    base = ["cluster", data, "-k", "2", "--constraints", tsv, "--algorithm", "cop-kmeans", "-q"]
    assert main(base) == 2
    err = capsys.readouterr()[1]
    assert f"{tsv}:1: header ['i\\tj\\tkind'] lacks column(s)" in err
    assert err.rstrip().endswith("The file seems to separate its fields with a tab: pass --constraints-delimiter tab.")
    assert "--delimiter" not in err.replace("--constraints-delimiter", "")
    assert main([*base, "--constraints-delimiter", "tab"]) == 0
    assert "violated constraints: 0 of 2" in capsys.readouterr()[0]
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--constraints-delimiter", "tab"]) == 2
    assert capsys.readouterr()[1] == ("ccopt cluster: error: --constraints-delimiter applies to a --constraints or "
                                      "--constraint-matrix file, and none was given.\n")
    # Both files ';': --delimiter still serves both.
    semi = write_arg(tmp_path / "d_semi.csv", "x;y\n" + ROWS.replace(",", ";"))
    csemi = write_arg(tmp_path / "c_semi.csv", CONSTRAINTS.replace(",", ";"))
    assert main(["cluster", semi, "-k", "2", "--constraints", csemi, "--algorithm", "cop-kmeans", "-q",
                 "--delimiter", ";"]) == 0
    capsys.readouterr()


def test_a_missing_label_column_of_a_misread_file_gets_the_separator_hint(tmp_path, capsys):
    data = write_arg(tmp_path / "semi.csv", "a;b;lab\n1;2;0\n3;4;1\n5;6;1\n")
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--label-column", "lab"]) == 2
    err = capsys.readouterr()[1]
    assert f"{data}:1: no label column 'lab' in header ['a;b;lab']." in err
    assert "The file seems to separate its fields with ';'" in err and "--delimiter ';'" in err
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--label-column", "lab",
                 "--delimiter", ";"]) == 0
    capsys.readouterr()


# ----------------------------------------------------------------------------- constraint matrix files
@pytest.mark.parametrize(("separator", "option"), [(";", ";"), ("|", "|")])
def test_the_command_line_reads_the_matrix_file_with_delimiter(tmp_path, capsys, separator, option):
    # --delimiter used to reach the data and constraint CSV files only, so a ';' matrix was refused.
    X, _ = make_gaussian_clusters(4, 2, cluster_std=0.3, random_state=3)
    data = tmp_path / "data.csv"
    data.write_text(f"x{separator}y\n" + "".join(f"{float(a)!r}{separator}{float(b)!r}\n" for a, b in X))
    matrix = tmp_path / "m.csv"
    matrix.write_text(matrix_text(separator))
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


def test_a_comma_data_file_goes_with_a_semicolon_matrix_without_a_delimiter(tmp_path):
    X, _ = make_gaussian_clusters(4, 2, cluster_std=0.3, random_state=3)
    data = tmp_path / "data.csv"
    data.write_text("x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    matrix = tmp_path / "m.txt"
    matrix.write_text(matrix_text(";"))
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(data), "--constraint-matrix", str(matrix), "-k", "2", "--algorithm",
                 "cop-kmeans", "-q", "--out", str(out)]) == 0
    labels = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int)[:, 1]
    assert labels[0] == labels[1] and labels[0] != labels[3]


def test_the_constraints_delimiter_reads_a_matrix_file(tmp_path, capsys):
    data = write_arg(tmp_path / "d.csv", "x,y\n" + ROWS)
    matrix = np.zeros((6, 6), dtype=int)
    matrix[0, 1] = matrix[1, 0] = 1
    matrix[0, 4] = matrix[4, 0] = -1
    path = write_arg(tmp_path / "m.txt", "".join("|".join(str(v) for v in row) + "\n" for row in matrix))
    base = ["cluster", data, "-k", "2", "--constraint-matrix", path, "--algorithm", "cop-kmeans", "-q"]
    assert main(base) == 2
    assert "pass --constraints-delimiter '|'." in capsys.readouterr()[1]
    assert main([*base, "--constraints-delimiter", "|"]) == 0
    assert "violated constraints: 0 of 2" in capsys.readouterr()[0]


# ----------------------------------------------------------------------------- columns that look like classes or row numbers
@pytest.mark.parametrize(("header", "column", "advice"), [
    ("x,y,species", "species", "looks like classes; if it holds them, pass --label-column species"),
    ("id,x,y", "id", "looks like row numbers; remove it from the file"),
    ("n,x,y", "n", "looks like row numbers; remove it from the file"),  # 1..n whatever its name
])
def test_columns_that_look_like_classes_or_row_numbers_are_named(ten_point_files, tmp_path, caplog, header, column, advice):
    # Every column but --label-column is a feature: a forgotten label column or a row number
    # changed every distance without a word (Iris: lower bound 109.7 instead of 103.9).
    X, _, _, _ = ten_point_files
    extra = {"species": [0, 1] * 5, "id": list(range(10)), "n": list(range(1, 11))}[column]
    rows = [[*map(repr, map(float, x))] for x in X]
    rows = [[str(e), *r] if header.startswith(column) else [*r, str(e)] for e, r in zip(extra, rows, strict=True)]
    path = tmp_path / "extra.csv"
    path.write_text(header + "\n" + "".join(",".join(r) + "\n" for r in rows))
    with caplog.at_level(logging.WARNING, logger="ccopt"):
        assert main(["cluster", str(path), "-k", "2", "--algorithm", "kmeans", "-q"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: column '{column}' is used as a feature (every column except --label-column is one) but {advice}."]
    caplog.clear()
    if column == "species":
        with caplog.at_level(logging.WARNING, logger="ccopt"):
            assert main(["cluster", str(path), "-k", "2", "--algorithm", "kmeans", "-q", "--label-column",
                         column]) == 0
        assert caplog.records == []


def test_the_readme_says_the_class_column_check_goes_by_name(tmp_path, capsys, caplog):
    text = " ".join(README.read_text().split())
    assert "one that looks like classes or row numbers draws a warning" not in text
    assert "the values of a class column under another name are not examined" in text
    # What the sentence says: 'cls' holding classes passes unnoticed, 'species' is named.
    rows = "0,0,1\n0,1,1\n5,5,2\n5,6,2\n9,0,3\n9,1,3\n"
    for name, warned in (("cls", False), ("species", True)):
        data = write_arg(tmp_path / f"{name}.csv", f"a,b,{name}\n{rows}")
        with caplog.at_level(logging.WARNING, logger="ccopt"):
            assert main(["cluster", data, "-k", "3", "--algorithm", "kmeans", "-q"]) == 0
        assert any("looks like classes" in line for line in messages_given(capsys, caplog)) is warned
