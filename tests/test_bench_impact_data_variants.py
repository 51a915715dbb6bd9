"""benchmarks/bench_impact_data_variants.py: the data variants and the naive F1 they feed."""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.constraints import Constraints


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_impact_data_variants")


def test_variants_transform_as_named(bench):
    X = np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]])  # second feature constant
    labels = np.array([0, 0, 1])
    std = bench.VARIANTS["standardised"](X, labels)
    np.testing.assert_allclose(std[:, 0], [-np.sqrt(1.5), 0.0, np.sqrt(1.5)])
    np.testing.assert_array_equal(std[:, 1], 0.0)  # a constant feature stays finite
    np.testing.assert_allclose(bench.VARIANTS["min-max"](X, labels), [[0, 0], [0.5, 0], [1, 0]])
    np.testing.assert_array_equal(bench.VARIANTS["id"](X, labels)[:, 0], [1, 2, 3])
    np.testing.assert_array_equal(bench.VARIANTS["class"](X, labels)[:, -1], labels)
    np.testing.assert_array_equal(bench.VARIANTS["raw"](X, labels), X)


def test_naive_f1_finds_the_one_flipped_constraint(bench):
    # Two blobs 100 apart: k-means splits them exactly, so it violates the wrong
    # must-link across the blobs and nothing else: precision = recall = 1.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.1, (10, 2)), rng.normal(100, 0.1, (10, 2))])
    constraints = Constraints.from_pairs(ml=[[0, 1], [10, 11], [2, 12]], cl=[[3, 13]], n_samples=20)
    erroneous = np.array([False, False, True, False])
    assert bench.naive_f1(X, 2, constraints, erroneous, seeds=range(2)) == pytest.approx(1.0)


def test_unknown_data_set_is_a_usage_error(bench):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--datasets", "optical"])
    assert stop.value.code == 2
