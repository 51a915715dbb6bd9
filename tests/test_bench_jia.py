"""benchmarks/bench_jia.py: the report and its figure rebuilt from the stored results."""

from __future__ import annotations

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
