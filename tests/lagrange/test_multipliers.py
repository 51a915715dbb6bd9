import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import Constraints
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator


def _lagrangian_terms_by_loops(cons, mult, x, eps):
    """Penalty terms of (10) written out term by term."""
    total = 0.0
    for row, (u, v) in enumerate(cons.cl_pairs):
        for c in range(x.shape[1]):
            total += mult.eta[row, c] * (1 + eps - x[u, c] - x[v, c])
    for row, (u, v) in enumerate(cons.ml_pairs):
        for c in range(x.shape[1]):
            total += mult.lam[row, c] * (eps + x[u, c] - x[v, c])
            total += mult.gamma[row, c] * (eps + x[v, c] - x[u, c])
    return total


@st.composite
def instances(draw):
    n = draw(st.integers(4, 9))
    k = draw(st.integers(2, 4))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                          min_size=1, max_size=8, unique_by=lambda p: tuple(sorted(p))))
    kinds = draw(st.lists(st.sampled_from(["ML", "CL"]), min_size=len(pairs), max_size=len(pairs)))
    seed = draw(st.integers(0, 2**16))
    return n, k, Constraints(pairs, kinds, n_samples=n), np.random.default_rng(seed)


@settings(max_examples=40, deadline=None)
@given(instances())
def test_penalty_and_constant_reproduce_the_lagrangian_terms(instance):
    n, k, cons, rng = instance
    eps = 0.5
    op = PairwiseOperator(cons, eps)
    mult = Multipliers(-rng.random((cons.n_cl, k)), -rng.random((cons.n_ml, k)), -rng.random((cons.n_ml, k)))
    x = rng.random((n, k))
    linear = float((op.penalty(mult) * x).sum()) + op.constant(mult)
    assert linear == pytest.approx(_lagrangian_terms_by_loops(cons, mult, x, eps))


@settings(max_examples=40, deadline=None)
@given(instances())
def test_subgradient_from_labels_equals_the_one_hot_subgradient(instance):
    n, k, cons, rng = instance
    op = PairwiseOperator(cons, 0.3)
    labels = rng.integers(0, k, n)
    one_hot = np.eye(k)[labels]
    a, b = op.subgradient(one_hot), op.subgradient_from_labels(labels, k)
    np.testing.assert_allclose(a.eta, b.eta)
    np.testing.assert_allclose(a.lam, b.lam)
    np.testing.assert_allclose(a.gamma, b.gamma)


def test_scores_follow_the_constraint_order_with_kinds_interleaved():
    cons = Constraints([(0, 1), (2, 3), (1, 2), (3, 4)], ["CL", "ML", "CL", "ML"], n_samples=5)
    mult = Multipliers(eta=np.array([[-1.0, 0.0], [0.0, -2.0]]),
                       lam=np.array([[-0.5, 0.0], [0.0, 0.0]]),
                       gamma=np.array([[0.0, -0.25], [0.0, -3.0]]))
    # CL rows in order (0,1), (1,2); ML rows in order (2,3), (3,4).
    np.testing.assert_allclose(mult.scores(cons), [-1.0, -0.75, -2.0, -3.0])
