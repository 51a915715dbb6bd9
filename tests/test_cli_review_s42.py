"""Command-line fixes of review session 42: a header of numbers, messages in the command line's
words, a separator of the constraints file's own, and what the class-column warning checks."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from ccopt.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"

# Six objects in two groups; constraint 0-1 ML and 0-4 CL hold for them (0-based data rows).
ROWS = "0,0\n0,1\n5,5\n5,6\n9,0\n9,1\n"
CONSTRAINTS = "i,j,kind\n0,1,ML\n0,4,CL\n"


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def _messages(capsys, caplog) -> set[str]:
    """The distinct messages the command gave on stderr or through its logger (a log record can
    reach both), without the ``ccopt: warning:`` prefix; the log records are cleared."""
    lines = capsys.readouterr()[1].splitlines() + [r.getMessage() for r in caplog.records]
    caplog.clear()
    return {line.removeprefix("ccopt: warning: ") for line in lines}


# ----------------------------------------------------------------------------- 1. numeric header
@pytest.mark.parametrize("header", ["1,2", "1.5,2"])
@pytest.mark.parametrize("command", ["cluster", "score"])
def test_a_header_of_numbers_is_refused_without_numeric_header(tmp_path, capsys, header, command):
    # Integers were only warned about: the first object became the header and the constraint
    # 0-4 landed on the objects after those it names.
    data = _write(tmp_path / "f.csv", f"{header}\n{ROWS}")
    cons = _write(tmp_path / "c.csv", CONSTRAINTS)
    extra = ["--algorithm", "cop-kmeans"] if command == "cluster" else ["--criterion", "mssc"]
    assert main([command, data, "-k", "2", "--constraints", cons, "-q", *extra]) == 2
    err = capsys.readouterr()[1]
    assert err.startswith(f"ccopt {command}: error: {data}:1: the header row {header.split(',')} holds only numbers")
    assert "pass --numeric-header if these numbers name the columns" in err
    assert "numeric_header" not in err and err.count("\n") == 1


def test_numeric_header_reads_the_numbers_as_column_names(tmp_path, capsys):
    data = _write(tmp_path / "f.csv", "400.5,401\n" + ROWS)
    cons = _write(tmp_path / "c.csv", CONSTRAINTS)
    out = tmp_path / "labels.csv"
    argv = ["cluster", data, "-k", "2", "--constraints", cons, "--algorithm", "cop-kmeans", "-q",
            "--numeric-header", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "violated constraints: 0 of 2" in captured.out and captured.err == ""
    labels = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int)[:, 1]
    assert len(labels) == 6 and labels[0] == labels[1] != labels[4]


def test_numeric_header_applies_to_the_predict_file(tmp_path, capsys):
    data = _write(tmp_path / "train.csv", "x,y\n" + ROWS)
    new = _write(tmp_path / "new.csv", "5,6\n0,0\n9,9\n")  # no header: its first row is an object
    base = ["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--predict", new,
            "--predict-out", str(tmp_path / "new_labels.csv")]
    assert main(base) == 2
    err = capsys.readouterr()[1]
    assert f"{new}:1: the header row ['5', '6'] holds only numbers" in err and "--numeric-header" in err
    numbered = _write(tmp_path / "train_numbered.csv", "1,2\n" + ROWS)
    numbered_new = _write(tmp_path / "new_numbered.csv", "1,2\n0,0\n9,9\n")
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


# ----------------------------------------------------------------------------- 2. Python words
def test_too_large_values_name_the_file_and_the_options(tmp_path, capsys):
    data = _write(tmp_path / "h.csv", "a,b\n1e200,1\n2e200,5\n3e200,2\n")
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert (f"ccopt cluster: error: {data}: the feature values are too large for squared Euclidean "
            "distances in float64 (largest absolute value 3e+200)") in err
    assert "X is too large" not in err and "--scale minmax" in err
    # The advice holds: min-max scaling needs no squares of the raw values.
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--scale", "minmax"]) == 0


def test_too_small_values_name_the_file_and_the_options(tmp_path, capsys):
    data = _write(tmp_path / "t.csv", "a,b\n1e-160,1e-160\n2e-160,1e-160\n3e-160,3e-160\n")
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert f"{data}: the feature values are too small" in err and "X is too small" not in err
    assert "--scale standard" in err
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--scale", "standard"]) == 0


@pytest.mark.parametrize("command", ["cluster", "score"])
def test_the_far_from_origin_warning_names_the_file_and_scale(tmp_path, capsys, caplog, command):
    data = _write(tmp_path / "far.csv", "a,b\n" + "".join(f"{1e6 + x},{1e6 + y}\n" for x, y in
                                                             [(0, 0), (0, 1), (5, 5), (5, 6), (9, 0), (9, 1)]))
    cons = _write(tmp_path / "c.csv", CONSTRAINTS)
    extra = ["--algorithm", "cop-kmeans"] if command == "cluster" else ["--criterion", "mssc", "--max-iter", "5"]
    with caplog.at_level(logging.WARNING, logger="ccopt"):
        assert main([command, data, "-k", "2", "--constraints", cons, "-q", *extra]) == 0
    far = [line for line in _messages(capsys, caplog) if "far from the origin" in line]
    assert len(far) == 1, far  # the library's own warning, in Python's words, is not repeated
    assert far[0].startswith(f"{data}: the data sit far from the origin for their spread")
    assert "--scale standard" in far[0] and "X.mean" not in far[0]
    with caplog.at_level(logging.WARNING, logger="ccopt"):
        assert main([command, data, "-k", "2", "--constraints", cons, "-q", "--scale", "standard", *extra]) == 0
    assert not any("far from the origin" in line for line in _messages(capsys, caplog))


def test_sizes_are_checked_against_k_and_the_file(tmp_path, capsys):
    data = _write(tmp_path / "s.csv", "a,b\n0,0\n1,1\n5,5\n6,6\n7,7\n")
    base = ["cluster", data, "--algorithm", "pcs", "-q"]
    assert main([*base, "-k", "3", "--sizes", "3,2"]) == 2
    assert capsys.readouterr()[1] == ("ccopt cluster: error: --sizes 3,2 gives 2 target sizes, but -k is 3: "
                                      "give one size per cluster.\n")
    assert main([*base, "-k", "2", "--sizes", "3,3"]) == 2
    assert capsys.readouterr()[1] == (f"ccopt cluster: error: --sizes 3,3 adds up to 6, but {data} has 5 data "
                                      "rows: the target sizes must add up to the number of objects.\n")
    with pytest.raises(SystemExit) as info:
        main([*base, "-k", "2", "--sizes", "5,0"])
    assert info.value.code == 2
    assert "argument --sizes: expected positive integers" in capsys.readouterr()[1]
    assert main([*base, "-k", "2", "--sizes", "3,2"]) == 0


# ----------------------------------------------------------------------------- 3. separators
def test_the_constraints_file_has_a_separator_of_its_own(tmp_path, capsys):
    data = _write(tmp_path / "d.csv", "x,y\n" + ROWS)
    tsv = _write(tmp_path / "c.tsv", CONSTRAINTS.replace(",", "\t"))
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
    semi = _write(tmp_path / "d_semi.csv", "x;y\n" + ROWS.replace(",", ";"))
    csemi = _write(tmp_path / "c_semi.csv", CONSTRAINTS.replace(",", ";"))
    assert main(["cluster", semi, "-k", "2", "--constraints", csemi, "--algorithm", "cop-kmeans", "-q",
                 "--delimiter", ";"]) == 0
    capsys.readouterr()


def test_the_constraints_delimiter_reads_a_matrix_file(tmp_path, capsys):
    data = _write(tmp_path / "d.csv", "x,y\n" + ROWS)
    matrix = np.zeros((6, 6), dtype=int)
    matrix[0, 1] = matrix[1, 0] = 1
    matrix[0, 4] = matrix[4, 0] = -1
    path = _write(tmp_path / "m.txt", "".join("|".join(str(v) for v in row) + "\n" for row in matrix))
    base = ["cluster", data, "-k", "2", "--constraint-matrix", path, "--algorithm", "cop-kmeans", "-q"]
    assert main(base) == 2
    assert "pass --constraints-delimiter '|'." in capsys.readouterr()[1]
    assert main([*base, "--constraints-delimiter", "|"]) == 0
    assert "violated constraints: 0 of 2" in capsys.readouterr()[0]


def test_a_missing_label_column_of_a_misread_file_gets_the_separator_hint(tmp_path, capsys):
    data = _write(tmp_path / "semi.csv", "a;b;lab\n1;2;0\n3;4;1\n5;6;1\n")
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--label-column", "lab"]) == 2
    err = capsys.readouterr()[1]
    assert f"{data}:1: no label column 'lab' in header ['a;b;lab']." in err
    assert "The file seems to separate its fields with ';'" in err and "--delimiter ';'" in err
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--label-column", "lab",
                 "--delimiter", ";"]) == 0
    capsys.readouterr()


# ----------------------------------------------------------------------------- 4. class columns
def test_the_readme_says_the_class_column_check_goes_by_name(tmp_path, capsys, caplog):
    text = " ".join(README.read_text().split())
    assert "one that looks like classes or row numbers draws a warning" not in text
    assert "the values of a class column under another name are not examined" in text
    # What the sentence says: 'cls' holding classes passes unnoticed, 'species' is named.
    rows = "0,0,1\n0,1,1\n5,5,2\n5,6,2\n9,0,3\n9,1,3\n"
    for name, warned in (("cls", False), ("species", True)):
        data = _write(tmp_path / f"{name}.csv", f"a,b,{name}\n{rows}")
        with caplog.at_level(logging.WARNING, logger="ccopt"):
            assert main(["cluster", data, "-k", "3", "--algorithm", "kmeans", "-q"]) == 0
        assert any("looks like classes" in line for line in _messages(capsys, caplog)) is warned
