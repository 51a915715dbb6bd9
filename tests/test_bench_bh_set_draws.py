"""benchmarks/bench_bh_set_draws.py: which draws count as complete and where each row comes from."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_bh_set_draws")


def _row(dataset, size, seed, ari, time, *, source="regenerated", draw=None, solve_limit=200.0):
    row = {"dataset": dataset, "folder": dataset.lower(), "size": str(size), "seed": str(seed),
           "source": source, "ari": str(ari), "wcss": "1.0", "time": str(time), "violations": "0",
           "n_time_limited_solves": "0", "solve_time_limit": str(solve_limit)}
    if draw is not None:
        row["draw"] = str(draw)
    return row


@pytest.fixture()
def table():
    # "Iris" has a published set; "A" a regenerated one, one of its runs longer than 20 s.
    return [_row("Iris", 5, 0, 0.7, 1.0, source="published"), _row("A", 5, 0, 0.5, 3.0),
            _row("A", 5, 1, 0.9, 250.0)]


@pytest.fixture()
def repeats():
    return [_row("A", 5, 1, 0.8, 20.5, solve_limit=20.0)]


def test_the_tables_draw_uses_the_repeats_and_a_complete_draw_the_published_rows(bench, table, repeats):
    rows = [_row("A", 5, 0, 0.1, 2.0, draw=25, solve_limit=20.0),
            _row("A", 5, 1, 0.3, 2.0, draw=25, solve_limit=20.0)]
    draws = bench.draws_by_seed(table, repeats, rows, 20.0)
    assert sorted(draws) == [bench.CONSTRAINT_SEED, 25]
    ari = {(r["dataset"], r["seed"]): float(r["ari"]) for r in draws[bench.CONSTRAINT_SEED]}
    assert ari == {("Iris", "0"): 0.7, ("A", "0"): 0.5, ("A", "1"): 0.8}
    ari = {(r["dataset"], r["seed"]): float(r["ari"]) for r in draws[25]}
    assert ari == {("Iris", "0"): 0.7, ("A", "0"): 0.1, ("A", "1"): 0.3}


def test_an_incomplete_draw_or_one_at_another_limit_is_left_out(bench, table, repeats):
    rows = [_row("A", 5, 0, 0.1, 2.0, draw=25, solve_limit=20.0),
            _row("A", 5, 0, 0.1, 2.0, draw=26, solve_limit=200.0),
            _row("A", 5, 1, 0.3, 2.0, draw=26, solve_limit=200.0)]
    assert sorted(bench.draws_by_seed(table, repeats, rows, 20.0)) == [bench.CONSTRAINT_SEED]


def test_a_slow_table_run_without_its_repeat_is_an_error(bench, table):
    with pytest.raises(ValueError, match="no 20 s repeat"):
        bench.draws_by_seed(table, [], [], 20.0)


def test_a_slow_published_run_is_an_error_not_a_borrowed_row(bench, table, repeats):
    table.append(_row("Iris", 5, 1, 0.7, 30.0, source="published"))
    with pytest.raises(ValueError, match="published-set run Iris CS5"):
        bench.draws_by_seed(table, repeats, [], 20.0)


def test_the_tables_own_seed_is_not_a_draw_to_run(bench):
    with pytest.raises(SystemExit):
        bench.main(["--draws", str(bench.CONSTRAINT_SEED), "--report-only"])
