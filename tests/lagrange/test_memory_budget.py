"""Memory of the k-medoids steps besides the distance matrix: bounded, checked up front, same bits.

An audit measured ``impact_scores(method="lagrangian")`` at n = 10,000 with 20,000
constraints using 2.6-15 times the ``n x n`` distance matrix ``d`` (a second ``n x n``
buffer, ``rows x n`` penalty arrays, dense ``m x n`` multipliers and subgradients) and
dying with a raw ``MemoryError`` under an 8 GiB address-space limit; and the ``voronoi``
route with ``k = 2`` gathering each cluster's ``m x m`` block of ``d`` (5.2 GB at
n = 23,000). The steps now read ``d`` in blocks of rows of at most 8 MiB and
``max_dense_bytes``, keep the multipliers sparse, and check their other dense arrays
(``O(n k + m k)``) against the bound before the first step. The blocks change no bit.
Budgets are shown at small sizes through :func:`ccopt.config_context`.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

import ccopt
from ccopt import Constraints, MemoryBudgetError, config_context, generators
from ccopt.lagrange import _medoids
from ccopt.lagrange._medoids import MedoidFinder, best_member, rows_per_block
from ccopt.lagrange.driver import SubgradientConfig, run_subgradient
from ccopt.lagrange.multipliers import PairwiseOperator
from ccopt.lagrange.oracles import (
    KMedoidsLagrangianOracle,
    check_lagrangian_memory,
    starting_multipliers,
)

# ----------------------------------------------------------------------------- refused up front, naming the sizes


@pytest.mark.parametrize(("n", "k", "n_pairs", "budget", "message"), [
    (1000, 3, 10, 8_000, r"row block of the p-median reduced costs \(2 x 1000\) needs 15\.62 KiB"),
    (1000, 3, 10, 20_000, r"reduced costs on the open medoids \(1000 x 3\) needs 23\.44 KiB"),
    (20, 8, 100, 3_200, r"subgradient of the pairwise rows on the open medoids \(100 x 8\) needs 6\.25 KiB"),
])
def test_each_working_array_is_checked_and_named(n, k, n_pairs, budget, message):
    with config_context(max_dense_bytes=budget), pytest.raises(MemoryBudgetError, match=message) as info:
        check_lagrangian_memory(n, k, n_pairs, 0)
    assert "more than the configured bound" in str(info.value)
    check_lagrangian_memory(n, k, n_pairs, 0)  # the default bound allows them


def test_impact_scores_refuses_a_working_array_past_the_bound_although_d_fits():
    # 100 cannot-links between two halves of 20 objects (2-colourable, so feasible) and k = 8:
    # the 100 x 8 subgradient block takes twice the 20 x 20 distance matrix.
    n = 20
    X = np.random.default_rng(0).normal(size=(n, 2))
    cl = [(u, v) for u in range(10) for v in range(10, 20)]
    with config_context(max_dense_bytes=8 * n * n), \
            pytest.raises(MemoryBudgetError, match=r"open medoids \(100 x 8\) needs 6\.25 KiB, more than"):
        ccopt.impact_scores(X, 8, cl=cl, method="lagrangian", max_iter=5, random_state=0, progress=False)
    result = ccopt.impact_scores(X, 8, cl=cl, method="lagrangian", max_iter=5, random_state=0, progress=False)
    assert result.n_iter == 5


def test_blocks_follow_the_bound_and_never_fall_below_one_row():
    with config_context(max_dense_bytes=8 * 100 * 5):
        assert rows_per_block(100) == 4  # and one row for the sums carried between blocks
    with config_context(max_dense_bytes=8):
        assert rows_per_block(10**6) == 1
    assert (rows_per_block(1000) + 1) * 1000 * 8 <= 8 * 1024**2


# ----------------------------------------------------------------------------- what a step allocates


def _traced_peak(run) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_lagrangian_steps_allocate_a_fraction_of_d():
    # Before: 11 times d (n = 1,200, 2,400 constraints, measured with tracemalloc); the dense
    # multipliers alone were 3 x 1,200 x 1,200 entries, of which 765 are non-zero here.
    n, k = 1200, 6
    X, y = generators.make_gaussian_clusters(n, k, cluster_std=1.0, random_state=0)
    cons = generators.correct_constraints(y, 2400, random_state=0)
    d = cdist(X, X)
    start = d[:, :k].min(axis=1)
    with config_context(max_dense_bytes=d.nbytes // 8):
        oracle = KMedoidsLagrangianOracle(d, k, PairwiseOperator(cons, 0.5), start)
        mult = starting_multipliers(oracle, cons.n_cl, cons.n_ml)
        config = SubgradientConfig(max_iter=10, stagnation_iter=None, gap_tol=0.0)
        peak = _traced_peak(lambda: run_subgradient(oracle, mult, config=config, initial_upper=float(start.sum()),
                                                    initial_labels=None))
    assert peak < d.nbytes / 4
    assert mult.is_sparse and mult.eta.nnz + mult.lam.nnz + mult.gamma.nnz < n * len(cons) / 100


def test_a_large_cluster_medoid_is_found_in_row_blocks_with_the_same_bits():
    # Before: the whole m x m block of the cluster (here 1,500 x 1,500, half of d), gathered and
    # then laid out again. Now a block and its gather, each within the bound.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2100, 3))
    d = cdist(X, X)
    members = np.sort(rng.choice(2100, size=1500, replace=False))
    expected = best_member(d, members)
    with config_context(max_dense_bytes=d.nbytes // 32):
        peak = _traced_peak(lambda: MedoidFinder(d).best(members))
        assert best_member(d, members) == expected
    assert peak < d.nbytes / 8


# ----------------------------------------------------------------------------- blocks change no bit


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 70), n_clusters=st.integers(1, 3),
       steps=st.integers(1, 40), max_change=st.integers(0, 5), block_rows=st.integers(1, 9),
       symmetric=st.booleans())
def test_medoids_in_row_blocks_are_those_of_the_whole_block(seed, n, n_clusters, steps, max_change,
                                                            block_rows, symmetric):
    """Fresh sums and derived totals (from 1 member on) read a few rows at a time: same answers."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).round(1)  # coincident points too: ties
    d = cdist(X, X) if symmetric else rng.exponential(size=(n, n))
    sequence = []
    clusters = [np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)) for _ in range(n_clusters)]
    for _ in range(steps):
        c = int(rng.integers(n_clusters))
        kept = set(clusters[c].tolist()) - set(rng.choice(n, size=int(rng.integers(0, max_change + 1))).tolist())
        kept |= set(rng.integers(0, n, size=int(rng.integers(0, max_change + 1))).tolist())
        clusters[c] = np.array(sorted(kept) or [0], dtype=np.intp)
        sequence.append(clusters[c])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_medoids, "_INCREMENTAL_MIN", 1)
        whole = MedoidFinder(d)
        expected = [(whole.best(members), best_member(d, members)) for members in sequence]
        # At most block_rows rows of n entries (and the carried sums); more of narrower ones.
        with config_context(max_dense_bytes=8 * n * (block_rows + 1)):
            blocked = MedoidFinder(d)
            got = [(blocked.best(members), best_member(d, members)) for members in sequence]
    assert got == expected


@pytest.mark.parametrize("method", ["lagrangian", "voronoi"])
def test_impact_scores_in_blocks_of_two_rows_are_bit_identical(method, monkeypatch):
    X, y = generators.make_gaussian_clusters(150, 2, cluster_std=1.5, random_state=1)
    cons = generators.noisy_constraints(y, 40, 4, random_state=1).constraints

    def run():
        return ccopt.impact_scores(X, 2, constraints=cons, method=method, max_iter=60, random_state=0,
                                   progress=False)

    whole = run()
    monkeypatch.setattr(_medoids, "_BLOCK_BYTES", 8 * 150 * 3)
    assert rows_per_block(150) == 2
    blocked = run()
    assert blocked.n_iter == whole.n_iter
    assert np.array_equal(blocked.scores, whole.scores) and np.any(whole.scores < 0)
    assert blocked.lower_bound == whole.lower_bound and blocked.upper_bound == whole.upper_bound
    np.testing.assert_array_equal(blocked.history["lower_bound"], whole.history["lower_bound"])
    np.testing.assert_array_equal(blocked.labels, whole.labels)


def test_no_constraint_at_all_in_blocks():
    rng = np.random.default_rng(2)
    d = cdist(*(rng.normal(size=(30, 2)),) * 2)
    cons = Constraints.from_pairs(ml=np.empty((0, 2), int), cl=np.empty((0, 2), int), n_samples=30)
    oracle = KMedoidsLagrangianOracle(d, 3, PairwiseOperator(cons, 0.5), d[:, :3].min(axis=1))
    mult = starting_multipliers(oracle, 0, 0)
    expected = oracle.solve(mult)
    oracle = KMedoidsLagrangianOracle(d, 3, PairwiseOperator(cons, 0.5), d[:, :3].min(axis=1))
    oracle._block_rows = 7
    got = oracle.solve(mult)
    assert got.value == expected.value
    np.testing.assert_array_equal(got.labels, expected.labels)
