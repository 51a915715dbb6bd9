"""Rough edges a new-user walkthrough found (eighth session of 2026-11-24)."""

from __future__ import annotations

import numpy as np
import pytest

import ccopt
from ccopt.cli import main
from ccopt.config import check_dense_memory, config_context
from ccopt.datasets import load_csv


def test_scoring_no_constraints_says_so():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.warns(ccopt.CcoptWarning, match="given no constraints: there is nothing to score"):
        result = ccopt.impact_scores(X, 2, ml=[], cl=[], progress=False, random_state=0)
    assert result.scores.shape == (0,)


def test_a_text_column_of_classes_is_pointed_at_the_label_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x,y,name\n0,0,a\n0.1,0,a\n5,5,b\n")
    with pytest.raises(ccopt.DataFormatError,
                       match=r"d\.csv:2: non-numeric value 'a' in column 'name'\. If 'name' holds the classes, "
                             r"name it as the label column \(label_column='name'; command line: "
                             r"--label-column name\)\."):
        load_csv(path)
    path.write_text("x,y\n0,0\n0.1,a\n5,5\n")  # one stray word in a numeric column: no such advice
    with pytest.raises(ccopt.DataFormatError, match=r"in column 'y'\.$"):
        load_csv(path)


@pytest.mark.parametrize(("shape", "bound", "needs", "bound_text"), [
    ((10, 20), 1000, "1.56 KiB", "1000 bytes"),
    ((4000, 4000), 2**20, "122.07 MiB", "1.00 MiB"),
    ((3, 3), 1, "72 bytes", "1 byte"),
])
def test_the_memory_bound_speaks_in_a_unit_that_shows_the_numbers(shape, bound, needs, bound_text):
    with config_context(max_dense_bytes=bound), pytest.raises(ccopt.MemoryBudgetError) as info:
        check_dense_memory(shape, what="matrix")
    assert info.value.summary == f"The matrix ({shape[0]} x {shape[1]}) needs {needs}, more than the " \
                                 f"configured bound of {bound_text}."


def test_the_score_help_warns_that_the_exact_method_is_for_small_instances(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "exact solves an integer program every iteration: small" in capsys.readouterr()[0]


def test_a_csv_index_written_as_a_whole_float_is_read_as_the_api_reads_it(tmp_path):
    # pandas writes an integer column that holds a missing value as 3.0; ml=[(1.0, 2.0)] is accepted.
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind\n1.0,2.00,ML\n 0 ,3.,CL\n")
    cons = ccopt.Constraints.from_csv(path)
    assert cons.ml_pairs.tolist() == [[1, 2]] and cons.cl_pairs.tolist() == [[0, 3]]
    path.write_text("i,j,kind\n1.5,2,ML\n")
    with pytest.raises(ccopt.DataFormatError, match=r"c\.csv:2: indices must be integers, got i='1.5'"):
        ccopt.Constraints.from_csv(path)


def test_the_result_writes_the_ranked_csv_that_the_command_line_writes(tmp_path):
    import csv

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
