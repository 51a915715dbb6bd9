"""A scoring run stopped before its multipliers moved has no scores, and says so.

The multipliers start at 0 and the scores are read from the best ones, which after one
iteration are still the starting zeros. Such a run used to print and write a table of zero
scores ("0 of 23 constraints predicted erroneous") with exit code 0, and an interrupt during
the first iteration did the same instead of exiting with 130.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import ccopt
import ccopt.lagrange.oracles
from ccopt.cli import main
from ccopt.exceptions import ConvergenceWarning, SolverError
from ccopt.generators import make_gaussian_clusters

CONSTRAINTS = "i,j,kind\n0,1,ML\n0,7,ML\n2,3,ML\n0,9,CL\n4,8,CL\n"


@pytest.fixture
def files(tmp_path):
    X, _ = make_gaussian_clusters(10, 2, cluster_std=0.3, random_state=3)
    data = tmp_path / "data.csv"
    data.write_text("x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    cons = tmp_path / "cons.csv"
    cons.write_text(CONSTRAINTS)
    return tmp_path, data, cons


def _interrupt_the_oracle(monkeypatch):
    def interrupted(self, mult):
        raise KeyboardInterrupt

    monkeypatch.setattr(ccopt.lagrange.oracles.MSSCLloydOracle, "solve", interrupted)


def test_the_api_warns_that_no_iteration_finished(monkeypatch):
    X, _ = make_gaussian_clusters(10, 2, cluster_std=0.3, random_state=3)
    _interrupt_the_oracle(monkeypatch)
    with pytest.warns(ConvergenceWarning, match=r"The scores were not computed \(status interrupted after "
                                                r"0 iteration\(s\)\)") as record:
        result = ccopt.impact_scores(X, 2, ml=[(0, 1)], cl=[(0, 9)], criterion="mssc", progress=False)
    assert result.n_iter == 0 and not result.scored and np.all(result.scores == 0)
    assert record[0].filename == __file__


def test_one_iteration_that_leaves_a_gap_has_not_scored_and_more_have():
    X, _ = make_gaussian_clusters(12, 2, cluster_std=2.0, random_state=3)
    cons = {"ml": [(0, 1), (2, 5)], "cl": [(0, 2), (3, 4), (1, 7)], "criterion": "mssc", "progress": False,
            "random_state": 0}
    with pytest.warns(ConvergenceWarning, match="status iteration_limit after 1 iteration"):
        one = ccopt.impact_scores(X, 2, max_iter=1, **cons)
    assert not one.scored and one.gap > 0 and np.all(one.scores == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        more = ccopt.impact_scores(X, 2, max_iter=50, **cons)
    best = np.asarray(more.history["best_lower_bound"])
    assert more.scored and best[-1] > best[0] and np.any(more.scores < 0)


def test_a_second_iteration_with_a_lower_bound_has_not_scored_either():
    # The best multipliers move only with a better bound: here the second iteration's bound
    # is lower, so they are still the starting zeros (an instance where it happens, lp route).
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2)) + np.repeat(rng.normal(scale=3, size=(3, 2)), [14, 13, 13], axis=0)
    pairs = [tuple(p) for p in rng.choice(40, size=(12, 2)) if p[0] != p[1]]
    ml, cl = pairs[:6], [p for p in pairs[6:] if p not in pairs[:6] and p[::-1] not in pairs[:6]]
    with pytest.warns(ConvergenceWarning, match="status iteration_limit after 2 iteration"):
        res = ccopt.impact_scores(X, 3, ml=ml, cl=cl, method="lp", max_iter=2, random_state=1, progress=False)
    lower = np.asarray(res.history["lower_bound"])
    assert lower[1] < lower[0] and not res.scored and np.all(res.scores == 0)


def test_zero_scores_of_a_run_that_gave_up_improving_are_a_finding():
    # Stagnation: the multipliers were moved and none gave a better bound. Nothing to warn.
    X, _ = make_gaussian_clusters(30, 3, cluster_std=0.2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        res = ccopt.impact_scores(X, 3, ml=[(0, 3)], cl=[(0, 1)], criterion="mssc", stagnation_iter=5,
                                  gap_tol=0.0, random_state=0, progress=False)
    assert res.status == "stagnation" and res.scored


def test_the_lp_dual_route_has_scored_after_its_one_solve():
    X, _ = make_gaussian_clusters(10, 2, cluster_std=0.3, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        result = ccopt.impact_scores(X, 2, ml=[(0, 1)], cl=[(0, 9)], method="lp-dual", progress=False)
    assert result.n_iter == 1 and result.scored


def test_a_time_limit_that_no_iteration_meets_is_an_error_and_writes_nothing(files, capsys, monkeypatch):
    tmp_path, data, cons = files

    def stopped_by_the_limit(self, mult):
        # What an LP route's first solve does when the time is up: no solution to load.
        time.sleep(0.01)
        raise SolverError("time limit reached, no solution")

    monkeypatch.setattr(ccopt.lagrange.oracles.MSSCLloydOracle, "solve", stopped_by_the_limit)
    out, plot = tmp_path / "scores.csv", tmp_path / "scores.png"
    code = main(["score", str(data), "--constraints", str(cons), "-k", "2", "--criterion", "mssc", "-q",
                 "--time-limit", "0.001", "--out", str(out), "--plot", str(plot)])
    stdout, stderr = capsys.readouterr()
    assert code == 2
    assert stderr.startswith("ccopt score: error: the run stopped (status time_limit) after 0 iteration(s)")
    assert "Allow more time (--time-limit) or iterations (--max-iter)" in stderr and "warning" not in stderr
    assert stdout == "" and not out.exists() and not plot.exists()


def test_an_interrupt_in_the_first_iteration_exits_130(files, capsys, monkeypatch):
    tmp_path, data, cons = files
    out = tmp_path / "scores.csv"
    _interrupt_the_oracle(monkeypatch)
    code = main(["score", str(data), "--constraints", str(cons), "-k", "2", "--criterion", "mssc", "-q",
                 "--out", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 130 and stderr == "ccopt score: interrupted\n" and stdout == ""
    assert not out.exists()
