"""Options checked against the method, the data and each other before any work: --solver,
--max-memory, --sizes, and --scale as the advice for values too large, too small or far from
the origin."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

import ccopt
from ccopt import CcoptWarning
from ccopt.cli import main
from tests._cli_files import CONSTRAINTS, messages_given, write_arg


# ----------------------------------------------------------------------------- --solver
def test_a_solver_for_a_method_that_solves_nothing_is_refused_or_warned(ten_point_files, capsys):
    X, with_header, _, cons = ten_point_files
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


def test_the_solver_refusal_names_the_criterion_s_methods(ten_point_files, capsys):
    _, with_header, _, cons = ten_point_files
    base = ["score", str(with_header), "--constraints", str(cons), "-k", "2", "-q", "--solver", "highs"]
    assert main([*base, "--criterion", "mssc"]) == 2
    assert capsys.readouterr()[1] == ("ccopt score: error: --solver is not read with --criterion mssc: none of its "
                                      "methods solves a program.\n")
    assert main([*base, "--criterion", "mssc", "--method", "voronoi"]) == 2
    assert "Unknown method 'voronoi' for criterion='mssc'" in capsys.readouterr()[1]


# ----------------------------------------------------------------------------- --max-memory
def test_the_memory_bound_is_set_and_named_on_the_command_line(ten_point_files, capsys):
    # The library's advice, ccopt.set_config(max_dense_bytes=...), is out of a CLI user's reach.
    _, with_header, _, cons = ten_point_files
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


# ----------------------------------------------------------------------------- --sizes
def test_sizes_are_checked_against_k_and_the_file(tmp_path, capsys):
    data = write_arg(tmp_path / "s.csv", "a,b\n0,0\n1,1\n5,5\n6,6\n7,7\n")
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


# ----------------------------------------------------------------------------- --scale
def test_too_large_values_name_the_file_and_the_options(tmp_path, capsys):
    data = write_arg(tmp_path / "h.csv", "a,b\n1e200,1\n2e200,5\n3e200,2\n")
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert (f"ccopt cluster: error: {data}: the feature values are too large for squared Euclidean "
            "distances in float64 (largest absolute value 3e+200)") in err
    assert "X is too large" not in err and "--scale minmax" in err
    # The advice holds: min-max scaling needs no squares of the raw values.
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--scale", "minmax"]) == 0


def test_too_small_values_name_the_file_and_the_options(tmp_path, capsys):
    data = write_arg(tmp_path / "t.csv", "a,b\n1e-160,1e-160\n2e-160,1e-160\n3e-160,3e-160\n")
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q"]) == 2
    err = capsys.readouterr()[1]
    assert f"{data}: the feature values are too small" in err and "X is too small" not in err
    assert "--scale standard" in err
    assert main(["cluster", data, "-k", "2", "--algorithm", "kmeans", "-q", "--scale", "standard"]) == 0


@pytest.mark.parametrize("command", ["cluster", "score"])
def test_the_far_from_origin_warning_names_the_file_and_scale(tmp_path, capsys, caplog, command):
    data = write_arg(tmp_path / "far.csv", "a,b\n" + "".join(f"{1e6 + x},{1e6 + y}\n" for x, y in
                                                             [(0, 0), (0, 1), (5, 5), (5, 6), (9, 0), (9, 1)]))
    cons = write_arg(tmp_path / "c.csv", CONSTRAINTS)
    extra = ["--algorithm", "cop-kmeans"] if command == "cluster" else ["--criterion", "mssc", "--max-iter", "5"]
    with caplog.at_level(logging.WARNING, logger="ccopt"):
        assert main([command, data, "-k", "2", "--constraints", cons, "-q", *extra]) == 0
    far = [line for line in messages_given(capsys, caplog) if "far from the origin" in line]
    assert len(far) == 1, far  # the library's own warning, in Python's words, is not repeated
    assert far[0].startswith(f"{data}: the data sit far from the origin for their spread")
    assert "--scale standard" in far[0] and "X.mean" not in far[0]
    with caplog.at_level(logging.WARNING, logger="ccopt"):
        assert main([command, data, "-k", "2", "--constraints", cons, "-q", "--scale", "standard", *extra]) == 0
    assert not any("far from the origin" in line for line in messages_given(capsys, caplog))
