"""benchmarks/bench_impact_k_sweep.py: where the fraction predicted erroneous is lowest (Fig. 3)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_impact_k_sweep")


def _rows(bench, instance, fractions, method="kmedoids"):
    return [{"instance": instance, "k": k, "method": method, "fraction_predicted": f, "f1": 1.0 - f,
             "fraction_negative": f / 2, "f1_negative": 0.5} for k, f in zip(bench.KS, fractions, strict=True)]


def test_arrays_hold_one_row_per_instance_and_nan_where_a_run_is_missing(bench):
    fractions = np.linspace(0.5, 0.1, len(bench.KS))
    rows = _rows(bench, 7, fractions) + _rows(bench, 7, fractions + 1, method="naive")
    rows += _rows(bench, 9, fractions)[:3]
    fraction, f1 = bench.sweep_arrays(rows, "kmedoids", [7, 9])
    np.testing.assert_allclose(fraction[0], fractions)
    np.testing.assert_allclose(f1[0], 1.0 - fractions)
    assert np.isnan(fraction[1, 3:]).all() and not np.isnan(fraction[1, :3]).any()
    negative, _ = bench.sweep_arrays(rows, "kmedoids", [7], bench.NEGATIVE_COLUMNS)
    np.testing.assert_allclose(negative[0], fractions / 2)


def test_share_at_the_true_k_counts_ties_and_skips_incomplete_instances(bench):
    at5 = bench.KS.index(bench.TRUE_K)
    lowest_at_5 = np.ones(len(bench.KS))
    lowest_at_5[at5] = 0.1
    tied = np.full(len(bench.KS), 0.2)
    elsewhere = np.ones(len(bench.KS))
    elsewhere[0] = 0.0
    incomplete = np.full(len(bench.KS), np.nan)
    values = np.vstack([lowest_at_5, tied, elsewhere, incomplete])
    assert bench.share_at_true_k(values, np.min) == pytest.approx(2 / 3)
    assert bench.share_at_true_k(values, np.max) == pytest.approx(2 / 3)  # tied and elsewhere peak at k = 5 too


def test_the_figure_has_one_panel_per_curve_with_fraction_and_f1(bench):
    fraction = np.linspace(0.5, 0.1, len(bench.KS))[None, :]
    fig = bench.sweep_figure({"a": (fraction, 1 - fraction), "b": (fraction, 1 - fraction)})
    assert [ax.get_title() for ax in fig.axes] == ["a", "b"]
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), fraction[0])


def test_the_report_names_the_k_of_the_lowest_fraction_per_reading(bench):
    ks = np.asarray(bench.KS)
    # _rows: F1 = 1 - fraction, so each reading's F1 peaks where its fraction is lowest.
    rows = _rows(bench, 1, np.abs(ks - 6) / 10 + 0.1) + _rows(bench, 1, np.abs(ks - 5) / 10 + 0.1, method="naive")
    text, curves = bench.report(rows, [1], ["kmedoids", "naive"], 4, "python benchmarks/bench_impact_k_sweep.py")
    assert list(curves) == ["kmedoids, tau = 0.1", "naive", "kmedoids, any negative score"]
    assert "| kmedoids, tau = 0.1 | 6 | 6 | 0.000 | 0.000 |" in text
    assert "| naive | 5 | 5 | 1.000 | 1.000 |" in text
