"""Command-line defects found by a user audit: a file without a header, 1-based indices, an
unused --solver."""

from __future__ import annotations

import logging
import re
import warnings

import numpy as np
import pytest

import ccopt
from ccopt import CcoptWarning, Constraints, InvalidConstraintError
from ccopt.cli import main
from ccopt.generators import make_gaussian_clusters


@pytest.fixture
def data(tmp_path):
    X, _ = make_gaussian_clusters(10, 2, cluster_std=0.3, random_state=3)
    rows = "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X)
    with_header = tmp_path / "data.csv"
    with_header.write_text("x,y\n" + rows)
    without = tmp_path / "noheader.csv"
    without.write_text(rows)
    cons = tmp_path / "cons.csv"
    cons.write_text("i,j,kind\n0,1,ML\n0,9,CL\n")
    return X, with_header, without, cons


def test_a_data_file_without_a_header_is_an_error_on_the_command_line(data, capsys):
    # load_csv only warned: the first object became the header, every later one was numbered
    # one too low, and the constraints pointed at the wrong rows (exit 0).
    X, _, without, cons = data
    for argv in (["cluster", str(without), "-k", "2", "--algorithm", "kmeans", "-q"],
                 ["score", str(without), "--constraints", str(cons), "-k", "2", "-q"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert err.startswith(f"ccopt {argv[0]}: error: {without}:1: the header row ['{float(X[0, 0])!r}', "
                              f"'{float(X[0, 1])!r}'] holds only numbers")
        assert "Add a header row" in err


def test_an_index_equal_to_n_hints_at_one_based_indices():
    with pytest.raises(InvalidConstraintError, match=r"\(3, 10\)\. The largest index is 10 and none is 0: "
                                                     r"if the indices count from 1, subtract 1"):
        Constraints.from_pairs(ml=[(1, 2)], cl=[(3, 10)], n_samples=10)
    with pytest.raises(InvalidConstraintError, match=r"if the indices count from 1") as info:
        Constraints.from_pairs(ml=[(1, 2), (3, 10)]).with_n_samples(10)
    assert list(info.value.rows) == [1]
    # Index 0 is used: the file counts from 0, and the hint would mislead.
    with pytest.raises(InvalidConstraintError) as info:
        Constraints.from_pairs(ml=[(0, 2), (3, 10)], n_samples=10)
    assert "count from 1" not in str(info.value)


def test_the_cli_hint_names_the_line(data, tmp_path, capsys):
    _, with_header, _, _ = data
    one_based = tmp_path / "one.csv"
    one_based.write_text("i,j,kind\n1,2,ML\n3,10,CL\n")
    code = main(["score", str(with_header), "--constraints", str(one_based), "-k", "2", "-q"])
    _, err = capsys.readouterr()
    assert code == 2 and "one.csv:3: " in err and "if the indices count from 1, subtract 1" in err


def test_a_solver_for_a_method_that_solves_nothing_is_refused_or_warned(data, capsys):
    X, with_header, _, cons = data
    code = main(["score", str(with_header), "--constraints", str(cons), "-k", "2", "-q", "--solver", "highs"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err == ("ccopt score: error: --solver is read by --method lp, exact, lp-dual only; --method voronoi "
                   "solves no program.\n")
    with pytest.warns(CcoptWarning, match=r"solver='highs' is not used: method='kmeans' solves no program") as rec:
        ccopt.impact_scores(X, 2, ml=[(0, 1)], cl=[(0, 9)], criterion="mssc", solver="highs", max_iter=5,
                            progress=False)
    assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", CcoptWarning)
        ccopt.impact_scores(X, 2, ml=[(0, 1)], cl=[(0, 9)], method="lp", solver="highs", max_iter=5,
                            progress=False)


@pytest.mark.parametrize(("header", "column", "advice"), [
    ("x,y,species", "species", "looks like classes; if it holds them, pass --label-column species"),
    ("id,x,y", "id", "looks like row numbers; remove it from the file"),
    ("n,x,y", "n", "looks like row numbers; remove it from the file"),  # 1..n whatever its name
])
def test_columns_that_look_like_classes_or_row_numbers_are_named(data, tmp_path, caplog, header, column, advice):
    # Every column but --label-column is a feature: a forgotten label column or a row number
    # changed every distance without a word (Iris: lower bound 109.7 instead of 103.9).
    X, _, _, _ = data
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


def _semicolon_files(tmp_path, X, separator):
    tmp_path.mkdir(exist_ok=True)
    data = tmp_path / "semi.csv"
    data.write_text(f"x{separator}y\n" + "".join(f"{float(a)!r}{separator}{float(b)!r}\n" for a, b in X))
    cons = tmp_path / "csemi.csv"
    cons.write_text(f"i{separator}j{separator}kind\n0{separator}1{separator}ML\n0{separator}9{separator}CL\n")
    return data, cons


def test_a_file_with_another_separator_is_named_and_read_with_delimiter(data, tmp_path, capsys):
    # The bare "non-numeric value '0.06;-0.07' in column 'x;y'" did not say why.
    X, with_header, _, cons = data
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
    with pytest.raises(ccopt.InvalidParameterError, match="delimiter must be a single character, got ';;'"):
        Constraints.from_csv(csemi, delimiter=";;")
    with pytest.raises(SystemExit):
        main(["score", str(semi), "--constraints", str(csemi), "-k", "2", "--delimiter", ";;"])
    assert "expected one character or 'tab', got ';;'" in capsys.readouterr()[1]


def test_a_matrix_file_with_a_byte_order_mark_is_read(tmp_path):
    # Spreadsheets write one; the first value was '\ufeff0' and the file was refused.
    path = tmp_path / "m.csv"
    path.write_bytes("0,1,-1\n1,0,0\n-1,0,0\n".encode("utf-8-sig"))
    cons = Constraints.from_matrix_file(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 2]]


@pytest.mark.parametrize("reader", [
    lambda p: Constraints.from_csv(p),
    lambda p: Constraints.from_matrix_file(p),
    lambda p: ccopt.datasets.load_csv(p),
])
def test_a_file_that_is_not_utf8_names_the_line_of_its_first_bad_byte(tmp_path, reader):
    path = tmp_path / "latin.csv"
    path.write_bytes("i,j,kind\n0,1,ML\n1,2,CL # caf\xe9\n".encode("latin-1"))
    with pytest.raises(ccopt.DataFormatError, match=r"latin\.csv:3: not a UTF-8 text file: .*byte 0xe9.*"
                                                    r"save it as UTF-8") as info:
        reader(path)
    assert info.value.line == 3


@pytest.mark.parametrize("marker", ["NA", "nan", "?"])
def test_a_missing_label_is_refused_not_made_a_class(tmp_path, marker):
    path = tmp_path / "d.csv"
    path.write_text(f"x,species\n1.0,a\n2.0,{marker}\n3.0,b\n")
    with pytest.raises(ccopt.DataFormatError, match=rf"d\.csv:3: missing value '{re.escape(marker)}' in label "
                                                    r"column 'species': every object needs its class"):
        ccopt.datasets.load_csv(path, label_column="species")


def test_the_memory_bound_is_set_and_named_on_the_command_line(data, capsys):
    # The library's advice, ccopt.set_config(max_dense_bytes=...), is out of a CLI user's reach.
    _, with_header, _, cons = data
    before = ccopt.get_config()
    code = main(["score", str(with_header), "--constraints", str(cons), "-k", "2", "-q", "--max-memory", "1e-9"])
    err = capsys.readouterr()[1]
    assert code == 2
    assert err == ("ccopt score: error: The k-medoids distance matrix (10 x 10) needs 800 bytes, more than the "
                   "configured bound of 1 byte. Score with --criterion mssc (no n x n matrix), subsample the "
                   "data, or raise the bound with --max-memory GIB.\n")
    assert ccopt.get_config() == before  # the bound held for the run only
    assert main(["score", str(with_header), "--constraints", str(cons), "-k", "2", "-q", "--criterion", "mssc",
                 "--max-memory", "1e-9"]) == 0
    capsys.readouterr()
    with ccopt.config_context(max_dense_bytes=8), pytest.raises(ccopt.MemoryBudgetError) as info:
        ccopt.impact_scores(np.zeros((3, 1)) + np.arange(3)[:, None], 2, ml=[(0, 1)], progress=False)
    assert info.value.summary == ("The k-medoids distance matrix (3 x 3) needs 72 bytes, more than the "
                                  "configured bound of 8 bytes.")
    assert str(info.value).startswith(info.value.summary + " Use a method that needs no dense matrix")


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


def test_the_solver_refusal_names_the_criterion_s_methods(data, capsys):
    _, with_header, _, cons = data
    base = ["score", str(with_header), "--constraints", str(cons), "-k", "2", "-q", "--solver", "highs"]
    assert main([*base, "--criterion", "mssc"]) == 2
    assert capsys.readouterr()[1] == ("ccopt score: error: --solver is not read with --criterion mssc: none of its "
                                      "methods solves a program.\n")
    assert main([*base, "--criterion", "mssc", "--method", "voronoi"]) == 2
    assert "Unknown method 'voronoi' for criterion='mssc'" in capsys.readouterr()[1]


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
