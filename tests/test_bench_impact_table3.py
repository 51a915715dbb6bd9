"""benchmarks/bench_impact_table3.py: the report's columns and the glass_id diagnostic.

The report compares our F1 with the paper's, which is measured on one (published) set per
row, so the published-set column must read that set alone; the glass_id variant must score
Glass with the Id as an extra leading feature and be compared with Glass's paper figures.
"""

from __future__ import annotations

import re

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_impact_table3")


def _row(data, draw, method, f1):
    return {"data": data, "set": "p15", "draw": draw, "method": method, "f1": f1, "run_seconds": 1.0,
            "gap": 0.1 if method == "mssc" else None, "error": ""}


def _cells(text: str, first: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"| {first} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_published_column_reads_the_published_set_only(bench):
    rows = [_row("iris", -1, "mssc", 0.9), _row("iris", 0, "mssc", 0.5), _row("iris", 1, "mssc", 0.4),
            _row("iris", -1, "naive", 0.3), _row("iris", 0, "naive", 0.7)]
    text = bench.report(rows, ["iris"], ["mssc", "naive"])
    header = [cell.strip() for cell in text.splitlines()[0].strip("|").split("|")]
    cells = dict(zip(header, _cells(text, "iris"), strict=True))
    assert cells["mssc F1"] == f"{np.mean([0.9, 0.5, 0.4]):.3f}"
    assert cells["mssc F1, published set"] == "0.900"
    assert cells["naive F1, published set"] == "0.300"
    assert cells["draws"] == "3"
    assert cells["paper F1"] == f"{bench.PAPER_TABLE3[('iris', 'p15')][2]:.3f}"


def test_variant_is_compared_with_its_base_rows(bench):
    text = bench.report([_row("glass_id", -1, "mssc", 0.8)], ["glass_id"], ["mssc"])
    cells = _cells(text, "glass_id")
    assert cells[3] == f"{bench.PAPER_TABLE3[('glass', 'p15')][2]:.3f}"
    assert cells[4] == f"{bench.NAIVE_TABLE3[('glass', 'p15')]:.3f}"


def test_glass_id_prepends_the_row_id(bench, datasets_dir, monkeypatch):
    seen = {}

    def fake_score_task(X, k, constraints, erroneous, method, seed, **kwargs):
        seen["X"], seen["k"], seen["budget"] = X, k, kwargs["time_limit"]
        return {}

    monkeypatch.setattr(bench, "score_task", fake_score_task)
    monkeypatch.setenv("CCOPT_DATASETS", str(datasets_dir))
    config = {"data": "glass_id", "set": "p15", "draw": -1, "method": "naive", "seed": 0,
              "budget_fraction": 0.1, "max_iter": 10}
    bench.table3_task(config)
    from ccopt.datasets import load_benchmark

    glass = load_benchmark("glass", root=datasets_dir)
    assert seen["X"].shape == (glass.X.shape[0], glass.X.shape[1] + 1)
    np.testing.assert_array_equal(seen["X"][:, 0], np.arange(1, glass.X.shape[0] + 1))
    np.testing.assert_array_equal(seen["X"][:, 1:], glass.X)
    assert seen["k"] == glass.n_clusters
    assert seen["budget"] == pytest.approx(12.0)


def test_unknown_data_set_is_a_usage_error(bench, capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--datasets", "iris,irs"])
    assert stop.value.code == 2
    assert re.search(r"unknown irs", capsys.readouterr().err)
