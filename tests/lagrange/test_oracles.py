"""Lower-bounding oracles: their values are what (10) says, and proven bounds are bounds."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans

from ccopt import Constraints
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import KMedoidsLagrangianOracle, KMedoidsVoronoiOracle, MSSCLloydOracle

from ._brute import constrained_optimum, kmedoids_cost, lagrangian_by_loops


def _random_multipliers(rng, cons, K, scale=1.0):
    return Multipliers(-scale * rng.random((cons.n_cl, K)), -scale * rng.random((cons.n_ml, K)),
                       -scale * rng.random((cons.n_ml, K)))


def test_mssc_oracle_without_multipliers_keeps_a_kmeans_fixed_point():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (20, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(0, 25)], n_samples=60)
    km = KMeans(3, n_init=10, random_state=0).fit(X)
    oracle = MSSCLloydOracle(X, PairwiseOperator(cons, 0.5), km.cluster_centers_)
    sol = oracle.solve(Multipliers.zeros(1, 1, 3))
    np.testing.assert_array_equal(sol.labels, km.labels_)
    assert sol.value == pytest.approx(km.inertia_ + 0.0)


@pytest.mark.parametrize("oracle_kind", ["mssc", "voronoi"])
def test_heuristic_oracle_value_is_the_lagrangian_of_its_labelling(oracle_kind):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(4, 5), (0, 6)], n_samples=30)
    op = PairwiseOperator(cons, 0.5)
    mult = _random_multipliers(rng, cons, 3, scale=2.0)
    if oracle_kind == "mssc":
        oracle = MSSCLloydOracle(X, op, X[:3].copy())
        sol = oracle.solve(mult)
        criterion = sum(((X[sol.labels == c] - X[sol.labels == c].mean(0)) ** 2).sum() for c in range(3))
        clusters = sol.labels
    else:
        d = cdist(X, X)
        oracle = KMedoidsVoronoiOracle(d, op, np.array([0, 1, 2]))
        sol = oracle.solve(mult)
        # Each object is labelled with the medoid that serves it, one of the open medoids.
        assert set(sol.labels.tolist()) == set(sol.open_clusters.tolist())
        criterion = d[np.arange(30), sol.labels].sum()
        clusters = np.argmax(sol.labels[:, None] == sol.open_clusters[None, :], axis=1)
    assert not sol.is_bound
    assert np.unique(sol.labels).size == 3  # every cluster non-empty
    assert sol.value == pytest.approx(lagrangian_by_loops(criterion, np.eye(3)[clusters], cons, mult, 0.5))


@st.composite
def tiny(draw):
    n = draw(st.integers(4, 7))
    k = draw(st.integers(2, 3))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, k, n)
    hidden[:k] = np.arange(k)
    pairs = {tuple(sorted(rng.choice(n, 2, replace=False))) for _ in range(draw(st.integers(1, 4)))}
    cons = Constraints.from_labels(hidden, np.array(sorted(pairs)), n_samples=n)
    return rng.normal(size=(n, 2)) * 2, k, cons, rng


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny())
def test_pmedian_lagrangian_is_a_lower_bound_for_any_multipliers(instance):
    """Weak duality: every value of the relaxed problem is below the constrained optimum."""
    X, k, cons, rng = instance
    n = X.shape[0]
    d = cdist(X, X)
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), n, k, cons.ml_pairs.tolist(),
                                     cons.cl_pairs.tolist())
    op = PairwiseOperator(cons, 0.5)
    oracle = KMedoidsLagrangianOracle(d, k, op, initial_mu=rng.random(n) * d.max())
    sol = oracle.solve(_random_multipliers(rng, cons, n, scale=d.max()))
    assert sol.is_bound
    assert sol.value <= optimum + 1e-9
    assert sol.open_clusters.size == k
