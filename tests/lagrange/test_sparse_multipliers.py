"""Sparse multipliers of the p-median route: the dense algebra, entry by entry.

With ``K = n`` columns a family of multipliers is as large as the distance matrix, but the
projected subgradient step leaves every entry at 0 on a column the oracle did not open
(there the subgradient is the positive constant ``1 + eps`` or ``eps``). The ``lagrangian``
route keeps them as CSR arrays and its subgradients column by column
(:class:`~ccopt.lagrange.multipliers.ColumnSubgradient`). Each entry of a step is the dense
step's, bit for bit; the sums over a whole family (the step's norm, the constant of the
Lagrangian, the scores) are taken in another order, so whole runs agree to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from ccopt import Constraints, generators
from ccopt.lagrange.driver import SubgradientConfig, run_subgradient
from ccopt.lagrange.multipliers import ColumnSubgradient, Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import (
    KMedoidsLagrangianOracle,
    KMedoidsVoronoiOracle,
    starting_multipliers,
)


@st.composite
def steps(draw):
    """Non-positive sparse values, a column subgradient and a step length."""
    rows, n_columns = draw(st.integers(0, 12)), draw(st.integers(1, 15))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dense = -rng.exponential(size=(rows, n_columns)) * (rng.random((rows, n_columns)) < draw(st.sampled_from([0.0, 0.2, 1.0])))
    columns = rng.choice(n_columns, size=draw(st.integers(0, n_columns)), replace=False)
    eps = draw(st.sampled_from([0.5, 0.2, 1e-3]))
    constant = draw(st.sampled_from([eps, 1.0 + eps, 0.0, -eps]))
    # The row activities of a 0/1 assignment, or any numbers.
    block = (rng.choice([eps - 1.0, eps, 1.0 + eps], size=(rows, columns.size)) if draw(st.booleans())
             else rng.normal(size=(rows, columns.size)))
    step = float(draw(st.sampled_from([1e-3, 0.7, 13.0, 1e5])))
    return dense, ColumnSubgradient(float(constant), columns, block, n_columns), step


@settings(max_examples=300, deadline=None)
@given(steps())
def test_projected_step_is_the_dense_step_bit_for_bit(case):
    dense, grad, step = case
    expected = dense + step * np.asarray(grad)
    np.minimum(expected, 0.0, out=expected)
    got = grad.projected_step(sp.csr_array(dense), step)
    assert isinstance(got, sp.csr_array) and got.shape == dense.shape
    assert np.array_equal(got.toarray(), expected)
    assert np.all(got.data != 0.0)  # only the non-zero entries are stored


@settings(max_examples=300, deadline=None)
@given(steps())
def test_squared_norms_are_the_dense_sums_up_to_rounding(case):
    dense, grad, _ = case
    g = np.asarray(grad)
    assert grad.squared_norm() == pytest.approx(float((g * g).sum()), rel=1e-13, abs=0.0)
    active = ~((dense >= 0.0) & (g > 0.0))
    assert grad.squared_norm(sp.csr_array(dense)) == pytest.approx(float((g[active] ** 2).sum()), rel=1e-13, abs=0.0)


def test_a_column_subgradient_reads_as_its_dense_array():
    grad = ColumnSubgradient(1.5, np.array([3, 0]), np.array([[0.5, -0.5], [1.5, 1.5]]), 4)
    assert grad.shape == (2, 4)
    np.testing.assert_array_equal(np.asarray(grad), [[-0.5, 1.5, 1.5, 0.5], [1.5, 1.5, 1.5, 1.5]])
    assert np.asarray(grad, dtype=np.float32).dtype == np.float32


def test_sparse_zeros_and_sparsify_keep_shapes_values_and_scores():
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(0, 2)], n_samples=6)
    zeros = Multipliers.zeros(cons.n_cl, cons.n_ml, 6, sparse=True)
    assert zeros.is_sparse and zeros.eta.shape == (1, 6) and zeros.lam.shape == (2, 6)
    assert zeros.eta.nnz == zeros.lam.nnz == zeros.gamma.nnz == 0
    np.testing.assert_array_equal(zeros.scores(cons), 0.0)
    rng = np.random.default_rng(0)
    dense = Multipliers(*(-rng.random((rows, 6)) * (rng.random((rows, 6)) < 0.5) for rows in (1, 2, 2)))
    sparse = dense.copy()
    sparse.sparsify()
    assert sparse.is_sparse and not dense.is_sparse
    for name in ("eta", "lam", "gamma"):
        np.testing.assert_array_equal(getattr(sparse, name).toarray(), getattr(dense, name))
    np.testing.assert_allclose(sparse.scores(cons), dense.scores(cons), rtol=1e-15, atol=0.0)
    copy = sparse.copy()
    copy.eta.data[:] = 0.0
    assert sparse.eta.toarray().min() < 0.0  # an independent copy


def test_the_start_is_sparse_for_the_lagrangian_oracle_only():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=8)
    d = cdist(*(np.random.default_rng(1).normal(size=(8, 2)),) * 2)
    op = PairwiseOperator(cons, 0.5)
    start = starting_multipliers(KMedoidsLagrangianOracle(d, 2, op, d[:, :2].min(axis=1)), 1, 1)
    assert start.is_sparse and start.eta.shape == (1, 8)
    start = starting_multipliers(KMedoidsVoronoiOracle(d, op, [0, 1]), 1, 1)
    assert not start.is_sparse and start.eta.shape == (1, 2)


def _run(oracle, mult, step_norm, average_tail):
    config = SubgradientConfig(max_iter=40, stagnation_iter=None, gap_tol=0.0, step_norm=step_norm)
    return run_subgradient(oracle, mult, config=config, initial_upper=float(oracle.extra["mu"].sum()),
                           initial_labels=None, average_tail=average_tail)


@pytest.mark.parametrize(("step_norm", "average_tail"), [("full", False), ("active", True)])
def test_a_sparse_run_follows_the_dense_run(step_norm, average_tail):
    """The driver with sparse multipliers against the dense algebra it replaced (the old one)."""
    X, y = generators.make_gaussian_clusters(120, 3, cluster_std=1.5, random_state=2)
    cons = generators.noisy_constraints(y, 60, 6, random_state=2).constraints
    d = cdist(X, X)
    mu = d[:, :3].min(axis=1)
    runs = {}
    for sparse in (True, False):
        oracle = KMedoidsLagrangianOracle(d, 3, PairwiseOperator(cons, 0.5), mu)
        oracle.sparse_multipliers = sparse  # False: dense families, the steps as they were
        mult = Multipliers.zeros(cons.n_cl, cons.n_ml, 120)  # dense: the driver sparsifies it
        runs[sparse] = (_run(oracle, mult, step_norm, average_tail), mult)
    (got, mult), (expected, dense_mult) = runs[True], runs[False]
    assert mult.is_sparse and not dense_mult.is_sparse  # updated in place, either way
    assert got.best_multipliers.is_sparse
    assert got.n_iter == expected.n_iter == 40
    for column in ("lower_bound", "best_lower_bound", "upper_bound", "step"):
        np.testing.assert_allclose(got.history[column], expected.history[column], rtol=1e-12, atol=0.0)
    assert got.lower_bound == pytest.approx(expected.lower_bound, rel=1e-12)
    # The last iterates (updated in place), the best ones and the averages.
    pairs = [(mult, dense_mult), (got.best_multipliers, expected.best_multipliers)]
    if average_tail:
        pairs.append((got.average_multipliers, expected.average_multipliers))
    for sparse_form, dense_form in pairs:
        scale = max(1.0, float(np.abs(dense_form.eta).max()))
        for name in ("eta", "lam", "gamma"):
            np.testing.assert_allclose(getattr(sparse_form, name).toarray(), getattr(dense_form, name),
                                       rtol=1e-9, atol=1e-12 * scale)
        np.testing.assert_allclose(sparse_form.scores(cons), dense_form.scores(cons), rtol=1e-9, atol=1e-12 * scale)
    stored = sum(getattr(mult, name).nnz for name in ("eta", "lam", "gamma"))
    assert 0 < stored < 0.05 * 120 * (cons.n_cl + 2 * cons.n_ml)  # moved, and almost all zero
