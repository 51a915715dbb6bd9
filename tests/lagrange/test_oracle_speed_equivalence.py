"""The k-medoids 'lagrangian' oracle works on the constrained rows and the medoid columns only.

Its value, labels, medoids and every subgradient must stay what the dense computation gave,
bit for bit (``np.array_equal``, not ``allclose``): the subgradient driver feeds them back
into the multipliers, so a last-bit difference would change the impact scores of a run.
Two references are kept here: the dense solve as it was before the change, and a dense
reimplementation written from the formula of :class:`KMedoidsLagrangianOracle`.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from sklearn.datasets import load_iris

import ccopt
from ccopt import Constraints, generators
from ccopt.lagrange import oracles
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator, Subgradient
from ccopt.lagrange.oracles import KMedoidsLagrangianOracle, OracleSolution


def _dense_solve_as_before(oracle, mult):
    """``KMedoidsLagrangianOracle.solve`` as it was before it skipped the zeros of P and z."""
    mu = oracle.extra["mu"]
    reduced = oracle.op.penalty(mult)
    reduced += oracle.d
    reduced -= mu[:, None]
    negative = np.minimum(reduced, 0.0)
    negative.flat[::reduced.shape[0] + 1] = reduced.diagonal()
    rho = negative.sum(axis=0)
    k = oracle.n_clusters
    medoids = np.argpartition(rho, k - 1)[:k] if k < rho.size else np.arange(rho.size)
    value = float(mu.sum() + oracle.op.constant(mult) + rho[medoids].sum())
    z = negative
    z.fill(0.0)
    z[:, medoids] = reduced[:, medoids] < 0.0
    z[medoids, medoids] = 1.0
    g_mu = 1.0 - z.sum(axis=1)
    labels = medoids[np.argmin(reduced[:, medoids], axis=1)]
    labels[medoids] = medoids
    return OracleSolution(value, labels, oracle.op.subgradient(z), {"mu": g_mu}, is_bound=True,
                          open_clusters=np.sort(medoids))


def _dense_solve_from_the_maths(d, k, cons, epsilon, mult, mu):
    """The oracle's formula with every array dense, the penalty summed constraint by constraint.

    ``r = d + P - mu``, ``rho_j = r_jj + sum_{i != j} min(0, r_ij)``, the ``k`` smallest
    ``rho`` open, ``z[i, j] = [r_ij < 0]`` on open columns and ``z[j, j] = 1``; the
    subgradients are the row activities of ``z``.
    """
    n = d.shape[0]
    # P summed in the order a sparse product takes each row: constraints by index, CL and ML
    # apart, so the float sums are the ones the oracle makes.
    p_cl, p_ml = np.zeros((n, n)), np.zeros((n, n))
    for r, (u, v) in enumerate(cons.cl_pairs):
        p_cl[u] -= mult.eta[r]
        p_cl[v] -= mult.eta[r]
    for r, (u, v) in enumerate(cons.ml_pairs):
        p_ml[u] += mult.lam[r] - mult.gamma[r]
        p_ml[v] -= mult.lam[r] - mult.gamma[r]
    r_cost = (p_cl + p_ml + d) - mu[:, None]
    served = np.minimum(r_cost, 0.0)
    np.fill_diagonal(served, np.diag(r_cost))
    rho = served.sum(axis=0)
    medoids = np.argpartition(rho, k - 1)[:k] if k < n else np.arange(n)
    constant = (1.0 + epsilon) * mult.eta.sum() + epsilon * (mult.lam.sum() + mult.gamma.sum())
    value = float(mu.sum() + constant + rho[medoids].sum())
    z = np.zeros((n, n))
    z[:, medoids] = r_cost[:, medoids] < 0.0
    z[medoids, medoids] = 1.0
    ml_u, ml_v = cons.ml_pairs.T if cons.n_ml else (np.empty(0, int),) * 2
    cl_u, cl_v = cons.cl_pairs.T if cons.n_cl else (np.empty(0, int),) * 2
    diff = z[ml_u] - z[ml_v]
    subgradient = Subgradient((1.0 + epsilon) - z[cl_u] - z[cl_v], epsilon + diff, epsilon - diff)
    labels = medoids[np.argmin(r_cost[:, medoids], axis=1)]
    labels[medoids] = medoids
    return OracleSolution(value, labels, subgradient, {"mu": 1.0 - z.sum(axis=1)}, is_bound=True,
                          open_clusters=np.sort(medoids))


def _assert_same_bits(got, expected, *, sparse=False):
    """Equal bit for bit; with ``sparse`` multipliers the value up to the rounding of its constant.

    ``C(eta, lam, gamma)`` sums the stored entries of a sparse family, in another order than
    the dense sum over every entry; everything else is computed entry by entry.
    """
    if sparse:
        assert got.value == pytest.approx(expected.value, rel=1e-13, abs=1e-13)
    else:
        assert got.value == expected.value
    np.testing.assert_array_equal(got.labels, expected.labels)
    np.testing.assert_array_equal(got.open_clusters, expected.open_clusters)
    for family in ("eta", "lam", "gamma"):
        assert np.array_equal(getattr(got.subgradient, family), getattr(expected.subgradient, family)), family
    assert got.extra_subgradients.keys() == expected.extra_subgradients.keys() == {"mu"}
    assert np.array_equal(got.extra_subgradients["mu"], expected.extra_subgradients["mu"])


@st.composite
def instances(draw):
    """Random k-medoids Lagrangian subproblems, with ties on purpose.

    ``ties`` draws points on a small grid (coincident objects, equal distances) and
    multipliers and ``mu`` from a few integers (zero multipliers, equal reduced costs), so
    that partial sorts and argmins meet equal values.
    """
    n = draw(st.integers(4, 30))
    k = draw(st.integers(2, 4))
    ties = draw(st.booleans())
    epsilon = draw(st.sampled_from([0.5, 0.2, 0.1, 1e-3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_pairs = draw(st.integers(0, min(3 * n, n * (n - 1) // 2)))
    pairs = set()
    while len(pairs) < n_pairs:
        u, v = rng.choice(n, 2, replace=False)
        pairs.add((int(min(u, v)), int(max(u, v))))
    pairs = rng.permutation(np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2))
    is_ml = rng.random(len(pairs)) < 0.5
    cons = Constraints.from_pairs(ml=pairs[is_ml].reshape(-1, 2), cl=pairs[~is_ml].reshape(-1, 2), n_samples=n)
    X = rng.integers(0, 3, (n, 2)).astype(float) if ties else rng.normal(size=(n, 2)) * 3
    d = cdist(X, X)

    def draw_multipliers(rows):
        if ties:
            return -rng.integers(0, 3, (rows, n)).astype(float)
        return -rng.exponential(d.max() + 1.0, (rows, n)) * (rng.random((rows, n)) < 0.7)

    mult = Multipliers(draw_multipliers(cons.n_cl), draw_multipliers(cons.n_ml), draw_multipliers(cons.n_ml))
    mu = rng.integers(-2, 4, n).astype(float) if ties else rng.normal(d.mean(), d.std() + 1.0, n)
    return d, k, cons, epsilon, mult, mu


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_lagrangian_oracle_is_bit_identical_to_the_dense_computation(instance):
    d, k, cons, epsilon, mult, mu = instance
    oracle = KMedoidsLagrangianOracle(d, k, PairwiseOperator(cons, epsilon), mu)
    got = oracle.solve(mult)
    # Twice: the reused buffer must not carry anything from one step into the next.
    _assert_same_bits(oracle.solve(mult), got)
    _assert_same_bits(got, _dense_solve_as_before(oracle, mult))
    _assert_same_bits(got, _dense_solve_from_the_maths(d, k, cons, epsilon, mult, mu))
    # The same bits with sparse multipliers, and with r summed a few rows at a time.
    sparse_mult = mult.copy()
    sparse_mult.sparsify()
    n = d.shape[0]
    for rows in sorted({1, 2, n // 3 + 1, n - 1}):
        blocked = KMedoidsLagrangianOracle(d, k, PairwiseOperator(cons, epsilon), mu)
        blocked._block_rows = rows
        _assert_same_bits(blocked.solve(sparse_mult), got, sparse=True)
        _assert_same_bits(blocked.solve(mult), got)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_sparse_penalty_and_column_subgradient_match_their_dense_forms(instance):
    d, k, cons, epsilon, mult, _ = instance
    op = PairwiseOperator(cons, epsilon)
    n = d.shape[0]
    dense = op.penalty(mult)
    sparse_mult = mult.copy()
    sparse_mult.sparsify()
    assert sparse_mult.is_sparse and not mult.is_sparse
    for form in (mult, sparse_mult):
        assert np.array_equal(op.penalty_sparse(form).toarray(), dense)
    assert np.array_equal(op.penalty(sparse_mult), dense)
    assert op.constant(sparse_mult) == pytest.approx(op.constant(mult), rel=1e-12, abs=1e-12)
    rng = np.random.default_rng(n)
    columns = rng.choice(n, k, replace=False)
    x = np.zeros((n, n))
    x[:, columns] = rng.random((n, k)) < 0.5
    sparse_form = op.subgradient_from_columns(x[:, columns], columns, n)
    dense_form = op.subgradient(x)
    for family in ("eta", "lam", "gamma"):
        assert np.array_equal(getattr(sparse_form, family), getattr(dense_form, family)), family


def test_iris_impact_scores_are_unchanged_by_the_sparse_oracle(monkeypatch):
    """End to end: the scores of a seeded run equal those of the dense oracle, bit for bit."""
    X, y = load_iris(return_X_y=True)
    cons = generators.noisy_constraints(y, 23, 3, random_state=0).constraints

    def run():
        return ccopt.impact_scores(X, 3, constraints=cons, criterion="kmedoids", method="lagrangian",
                                   max_iter=150, random_state=0, progress=False)

    with monkeypatch.context() as patch:
        patch.setattr(oracles.KMedoidsLagrangianOracle, "solve", _dense_solve_as_before)
        before = run()
    after = run()
    assert after.n_iter == before.n_iter > 1
    assert np.array_equal(after.scores, before.scores)
    assert np.any(after.scores < 0)  # the run moved its multipliers: the comparison means something
    assert after.lower_bound == before.lower_bound
    assert after.upper_bound == before.upper_bound
    np.testing.assert_array_equal(after.labels, before.labels)
    assert np.array_equal(after.oracle_multipliers["mu"], before.oracle_multipliers["mu"])


def test_the_oracle_keeps_one_block_buffer_and_no_n_by_n_array_but_the_distances():
    """Memory: the block buffer is made once, and no n x n array but ``d`` lives on the oracle."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=12)
    d = cdist(X, X)
    with ccopt.config_context(max_dense_bytes=8 * 12 * 4):  # blocks of 3 rows (and the carried sums)
        oracle = KMedoidsLagrangianOracle(d, 3, PairwiseOperator(cons, 0.5), d[:, :3].min(axis=1))
    mult = Multipliers(-rng.random((1, 12)), -rng.random((1, 12)), -rng.random((1, 12)))
    first = oracle.solve(mult)
    buffer = oracle._block
    assert buffer.shape == (4, 12)
    _assert_same_bits(oracle.solve(mult), first)
    assert oracle._block is buffer
    _assert_same_bits(first, _dense_solve_as_before(oracle, mult))
    owned = [v for v in vars(oracle).values() if isinstance(v, np.ndarray) and v.shape == d.shape]
    assert len(owned) == 1 and owned[0] is d


@pytest.mark.parametrize("k", [2, 12])
def test_no_constraints_and_k_equal_to_n_stay_identical(k):
    """Edge cases of the sparse form: no constrained row at all; every object a medoid."""
    rng = np.random.default_rng(k)
    X = rng.normal(size=(12, 2))
    d = cdist(X, X)
    cons = Constraints.from_pairs(ml=np.empty((0, 2), int), cl=np.empty((0, 2), int), n_samples=12)
    mult = Multipliers.zeros(0, 0, 12)
    mu = rng.normal(d.mean(), 1.0, 12)
    oracle = KMedoidsLagrangianOracle(d, k, PairwiseOperator(cons, 0.5), mu)
    _assert_same_bits(oracle.solve(mult), _dense_solve_as_before(oracle, mult))
    _assert_same_bits(oracle.solve(mult), _dense_solve_from_the_maths(d, k, cons, 0.5, mult, mu))
