"""benchmarks/bench_impact_gap_floor.py: the floor under a certified gap, and what the report concludes."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_impact_gap_floor")


def test_floor_is_the_relative_distance_from_the_lagrangian_bound_to_the_optimum(bench):
    assert bench.gap_floor(110.0, 99.0) == pytest.approx(0.1)
    # A weaker lower bound on the optimum gives a smaller floor (the floor stays valid).
    assert bench.gap_floor(105.0, 99.0) < bench.gap_floor(110.0, 99.0)
    assert bench.gap_floor(99.0, 99.0) == 0.0


def _row(lp_none, lp_eps, ip, dataset="a", status="optimal"):
    return {"dataset": dataset, "lp_none": lp_none, "lp_epsilon": lp_eps, "ip_bound": ip,
            "ip_status": status, "floor": (ip - lp_eps) / ip}


def test_conclusion_measures_what_the_epsilon_rows_close_only_on_proven_optima(bench):
    # An unsolved IP's bound is not the optimum; an LP at the no-pairwise LP closes 0 %, not -0 %.
    text = bench.conclusion([_row(90.0, 95.0, 100.0), _row(50.0, 50.0 - 1e-12, 60.0, dataset="b"),
                             _row(10.0, 11.0, 12.0, dataset="c", status="time_limit")])
    assert "close 0-50 %" in text
    assert "(2 rows with a proven optimum)" in text


def test_conclusion_claims_the_target_unreachable_only_when_every_floor_is_above_it(bench):
    high = bench.conclusion([_row(90.0, 91.0, 100.0), _row(50.0, 50.0, 60.0, dataset="b")])
    assert "On every row the floor is above the target" in high
    assert "close 0-10 %" in high
    assert "same optimum" not in high  # no data set with both sets
    low = bench.conclusion([_row(90.0, 91.0, 100.0), _row(50.0, 60.0, 60.0)])
    assert "above the target on 1 of 2 rows" in low
    assert "On every row" not in low


def test_unknown_data_set_is_an_argparse_error(bench):
    with pytest.raises(SystemExit):
        bench.main(["--datasets", "iris,nosuch", "--report-only"])


def test_conclusion_counts_data_sets_whose_two_sets_share_the_epsilon_bound(bench):
    text = bench.conclusion([_row(90.0, 91.0, 100.0, "a"), _row(90.0, 91.0, 105.0, "a"),
                             _row(50.0, 51.0, 60.0, "b"), _row(50.0, 52.0, 60.0, "b")])
    assert "same optimum for p15 and p20 on 1 of 2 data sets" in text


def test_a_missing_root_bound_gives_the_trivial_floor(bench):
    assert bench.gap_floor(0.0, 99.0) == 0.0
    assert bench.gap_floor(float("-inf"), 99.0) == 0.0
