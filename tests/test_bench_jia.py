"""benchmarks/bench_jia.py: the report and its figure rebuilt from the stored results."""

from __future__ import annotations

import argparse
import csv

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_jia")


def _rows():
    rows = []
    for n_sets, pairs in ((0, 0), (5, 30)):
        for run, (ours, greedy) in enumerate(((0.9, 0.8), (1.0, 0.8))):
            for algo, ri in (("MLKMeans", ours - 0.1 * (n_sets == 0)), ("greedy", greedy)):
                rows.append({"dataset": "iris", "n_sets": n_sets, "set_size": 3, "n_constraints": pairs,
                             "instance": 0, "run": run, "redraws": 0, "algorithm": algo, "rand_index": ri,
                             "cost": 1.5, "violations": 0, "n_iter": 4, "status": "converged", "seconds": 0.01})
    return rows


def test_stored_rows_read_back_with_their_numbers(bench, benchmark_script, tmp_path):
    rows = _rows()
    with open(tmp_path / "jia.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    read_rows = benchmark_script("_reports").read_rows
    assert read_rows(tmp_path / "jia.csv", ints=bench._INT_COLUMNS, floats=bench._FLOAT_COLUMNS) == rows


def test_the_figure_has_one_panel_per_data_set_and_one_line_per_algorithm(bench):
    fig = bench.rand_index_figure(_rows(), ["soybean", "iris"])  # soybean has no rows: no panel
    (ax,) = fig.axes
    ours, greedy = ax.lines
    assert list(ours.get_xdata()) == [0, 30] and list(greedy.get_xdata()) == [0, 30]
    np.testing.assert_allclose(ours.get_ydata(), [0.85, 0.95])
    np.testing.assert_allclose(greedy.get_ydata(), [0.8, 0.8])


@pytest.mark.parametrize("rule", ["largest", "below-k"])
def test_every_point_of_each_set_size_rule_can_be_drawn(bench, datasets_dir, rule):
    # The grids end near the most disjoint sets a data set holds; a point the generator cannot
    # draw in its 50 tries would stop the benchmark after the earlier points' runs.
    from ccopt.datasets import load_benchmark

    for name, spec in bench.GRIDS[rule].items():
        y = load_benchmark(name, root=datasets_dir).labels
        k = int(y.max()) + 1
        r = spec["r"]
        assert r <= k and (rule == "largest" or r < k or k == 2)
        n_sets = spec["sets"][-1]
        sets, _ = bench._constraints(y, n_sets, r, seed=0)
        assert len(sets.constraints) == 2 * n_sets * r * (r - 1) // 2


def test_the_report_names_the_set_size_rule(bench, tmp_path):
    args = argparse.Namespace(report=tmp_path / "jia_below_k.md", instances=1, runs=2, seed=0,
                              set_size_rule="below-k")
    def command(report):
        return next(line for line in report.splitlines() if line.startswith("Command:"))

    report = bench.summarise(_rows(), ["iris"], args)
    assert command(report).endswith(" --set-size-rule below-k`") and "Set size r = 2" in report
    args.set_size_rule = "largest"
    report = bench.summarise(_rows(), ["iris"], args)
    assert "--set-size-rule" not in command(report) and "Set size r = min(k, 4)" in report
