"""Audit of the impact-score benchmark scripts: how their figures are counted and labelled."""

from __future__ import annotations

import numpy as np
import pytest

from ccopt import Constraints, DuplicateConstraintWarning
from ccopt.datasets import Dataset


@pytest.fixture(scope="module")
def table3(benchmark_script):
    return benchmark_script("bench_impact_table3")


@pytest.fixture(scope="module")
def k_sweep(benchmark_script):
    return benchmark_script("bench_impact_k_sweep")


def _cells(text: str, first: str) -> dict[str, str]:
    lines = text.splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    line = next(line for line in lines if line.startswith(f"| {first} |"))
    return dict(zip(header, [cell.strip() for cell in line.strip("|").split("|")], strict=True))


def test_table3_met_by_names_its_f1_and_gives_the_published_set_verdict(table3):
    # TARGETS.md's target is measured on the published set (draw -1). Here mssc meets it only
    # on the mean over the draws, kmedoids only on the published set.
    def row(draw, method, f1):
        return {"data": "iris", "set": "p15", "draw": draw, "method": method, "f1": f1, "run_seconds": 1.0,
                "gap": 0.1, "error": ""}

    rows = [row(-1, "mssc", 0.80), row(0, "mssc", 0.95), row(1, "mssc", 0.95),
            row(-1, "kmedoids", 0.95), row(0, "kmedoids", 0.50), row(1, "kmedoids", 0.50)]
    target = max(table3.PAPER_TABLE3[("iris", "p15")][2], table3.NAIVE_TABLE3[("iris", "p15")])
    assert np.mean([0.80, 0.95, 0.95]) >= target > 0.80 and 0.95 >= target > np.mean([0.95, 0.5, 0.5])
    cells = _cells(table3.report(rows, ["iris"], ["mssc", "kmedoids"]), "iris")
    assert cells["met by (mean F1)"] == "mssc"
    assert cells["met by (published set)"] == "kmedoids"


def test_k_sweep_f1_counts_the_constraint_rows_as_given(k_sweep, monkeypatch):
    # Objects 0,1 | 2,3 | 4,5 on a line: k-means with k = 3 splits class 1 (objects 2..5).
    X = np.array([[0.0], [0.1], [10.0], [10.1], [20.0], [20.1]])
    labels = np.array([0, 0, 1, 1, 1, 1])
    # ML(2, 4) correct but violated, given twice; ML(0, 3) erroneous and violated; CL(0, 2) correct.
    with pytest.warns(DuplicateConstraintWarning, match=r"1 duplicate constraint row\(s\) merged: row 0 = row 1\."):
        cons = Constraints([(2, 4), (2, 4), (0, 3), (0, 2)], ["ML", "ML", "ML", "CL"], n_samples=6)
    data = Dataset(X=X, labels=labels, name="toy", feature_names=("x",), constraint_sets={"set": cons})
    import ccopt.datasets

    monkeypatch.setattr(ccopt.datasets, "load_lagrangian_synthetic", lambda instance: data)
    out = k_sweep.k_sweep_task({"instance": 0, "k": 3, "method": "naive", "max_iter": 10, "seed": 0})
    assert out["n_constraints"] == 4 and out["n_predicted"] == 3
    assert out["fraction_predicted"] == pytest.approx(0.75)
    # Given rows: TN = 1, FN = 2 (the duplicated row twice), FP = 0 -> F1 = 2 / 4.
    assert out["f1"] == pytest.approx(0.5)
    assert out["f1"] == pytest.approx(out["f1_negative"])
