"""benchmarks/bench_lcc.py: the given-order and restarts columns beside the paper's single run."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_lcc")


@pytest.fixture
def overlapping(bench, monkeypatch):
    """Three overlapping groups standing in for Iris, so cannot-links get violated."""
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), 20)
    X = np.array([[0.0, 0.0], [1.5, 0.0], [0.0, 1.5]])[y] + rng.normal(0.0, 1.0, size=(60, 2))
    monkeypatch.setattr(bench, "load", lambda name: (X, y))
    return X, y


def test_restarts_never_violate_more_than_the_single_run(bench, overlapping):
    rows = bench.run(["iris"], n_sets=2, n_runs=2, base_seed=0, restarts=4)
    single = {(r["size"], r["set"], r["run"]): r["cl"] for r in rows if r["algorithm"] == "LCC"}
    best = {(r["size"], r["set"], r["run"]): r["cl"] for r in rows if r["algorithm"] == bench.RESTARTS}
    assert single.keys() == best.keys() and len(single) == 3 * 2 * 2
    assert all(best[key] <= single[key] for key in single)
    assert sum(single.values()) > 0, "the instance should make the single run violate something"
    assert all(r["ml"] == 0 for r in rows if r["algorithm"] in ("LCC", bench.RESTARTS))

    table, _, summary = bench.summarise(rows, ["iris"])
    assert summary["restarts_cl"] <= summary["ours_cl"]
    assert summary["restarts_met"] >= summary["met"]
    assert all(len(line) == len(bench.HEAD_LCC) + 4 for line in table)


def test_one_run_per_execution_leaves_the_column_out(bench, overlapping):
    rows = bench.run(["iris"], n_sets=1, n_runs=1, base_seed=0, restarts=1)
    assert {r["algorithm"] for r in rows} == {*bench.ALGORITHMS, bench.GIVEN_ORDER}
    table, _, summary = bench.summarise(rows, ["iris"])
    assert "restarts_cl" not in summary and "given_cl" in summary
    assert all(len(line) == len(bench.HEAD_LCC) + 2 for line in table)


def test_the_given_order_column_is_lcc_visiting_the_pairs_as_given(bench, overlapping, monkeypatch):
    from ccopt.cluster import LCC

    orders = []
    real_fit = LCC.fit

    def recording(self, *args, **kwargs):
        orders.append(self.pair_order)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(LCC, "fit", recording)
    rows = bench.run(["iris"], n_sets=1, n_runs=1, base_seed=0, restarts=1)
    lcc_rows = [r["algorithm"] for r in rows if r["algorithm"].startswith("LCC")]
    assert orders == ["random" if a == "LCC" else "given" for a in lcc_rows] and "given" in orders


def test_restarts_below_one_are_refused(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--datasets", "iris", "--restarts", "0"])
    assert "--restarts must be at least 1, got 0" in capsys.readouterr().err
