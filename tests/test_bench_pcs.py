"""benchmarks/bench_pcs.py: the figure drawn from the stored results (the paper's Fig. 6)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_pcs")


def _row(algorithm, m, nmi, scaling="none"):
    return {"scaling": scaling, "dataset": "iris", "trial": 0, "n_constraints": m, "algorithm": algorithm,
            "nmi": nmi, "as": 0.1, "violations": 0, "n_iter": 3, "status": "converged", "seconds": 0.01}


def test_the_figure_draws_pc_and_pcs2_against_m_and_the_constraint_free_levels(bench):
    rows = [_row("KM", "", 0.6), _row("KMS2", "", 0.65), _row("PC", 0, 0.6), _row("PC", 100, 0.7),
            _row("PCS2", 0, 0.62), _row("PCS2", 100, 0.8), _row("PCS2", 100, 0.9)]
    fig = bench.nmi_figure(rows, ["iris"], ["none"], (0, 100))
    (ax,) = fig.axes
    pc, pcs2, km, kms2 = ax.lines
    np.testing.assert_allclose(pc.get_ydata(), [0.6, 0.7])
    np.testing.assert_allclose(pcs2.get_ydata(), [0.62, 0.85])
    assert list(km.get_ydata()) == [0.6, 0.6] and list(kms2.get_ydata()) == [0.65, 0.65]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["PC", "PCS2", "KM", "KMS2"]
