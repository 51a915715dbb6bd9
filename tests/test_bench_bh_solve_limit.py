"""benchmarks/bench_bh_solve_limit.py: which runs it repeats and how it merges them into the table."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_bh_solve_limit")


def _row(dataset, size, seed, ari, time, limited=0, violations=0, solve_limit=200.0):
    return {"dataset": dataset, "folder": dataset.lower(), "size": str(size), "seed": str(seed),
            "ari": str(ari), "wcss": "1.0", "time": str(time), "violations": str(violations),
            "n_time_limited_solves": str(limited), "solve_time_limit": str(solve_limit)}


@pytest.fixture()
def table():
    return [_row("A", 5, 0, 0.5, 3.0), _row("A", 5, 1, 0.7, 250.0, limited=1),
            _row("B", 5, 0, 0.9, 21.0), _row("A", 10, 0, 0.8, 19.9)]


def test_only_runs_longer_than_the_limit_are_repeated(bench, table):
    keys = [(r["dataset"], r["seed"], r["size"]) for r in bench.runs_to_repeat(table, 20.0)]
    assert keys == [("A", "1", "5"), ("B", "0", "5")]


def test_summary_replaces_the_repeated_runs_and_keeps_the_rest(bench, table):
    repeats = [_row("A", 5, 1, 0.6, 30.0, solve_limit=20.0), _row("B", 5, 0, 0.9, 21.5, solve_limit=20.0)]
    cs5, cs10 = bench.summary_rows(table, repeats, 20.0)
    # Mean over data sets of the mean over seeds: A (0.5, 0.7) and B (0.9).
    assert cs5["ari_table"] == pytest.approx((0.6 + 0.9) / 2)
    assert cs5["ari_short"] == pytest.approx((0.55 + 0.9) / 2)
    assert cs5["time_table"] == pytest.approx(3.0 + 250.0 + 21.0)
    assert cs5["time_short"] == pytest.approx(3.0 + 30.0 + 21.5)
    assert (cs5["limited_table"], cs5["limited_short"], cs5["repeated"]) == (1, 0, 2)
    assert cs10["time_short"] == cs10["time_table"] == pytest.approx(19.9)
    assert cs10["repeated"] == 0


def test_a_missing_repeat_is_an_error_not_a_silent_table_row(bench, table):
    with pytest.raises(ValueError, match="no repeat"):
        bench.summary_rows(table, [_row("A", 5, 1, 0.6, 30.0, solve_limit=20.0)], 20.0)


def test_limit_must_be_below_the_tables(bench, tmp_path):
    path = tmp_path / "table.csv"
    path.write_text("dataset,folder,size,seed,ari,wcss,time,violations,n_time_limited_solves,"
                    "solve_time_limit\nA,a,5,0,0.5,1.0,3.0,0,0,200.0\n")
    with pytest.raises(SystemExit):
        bench.main(["--table", str(path), "--limit", "200", "--report-only"])
