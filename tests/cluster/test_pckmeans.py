"""PCKmeans: the objective J, its monotone descent, k-means at zero penalty, hard constraints."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt.cluster import PCS, KMeans, PCKMeans
from ccopt.cluster._pckmeans import _neighbourhood_centers, pckmeans
from ccopt.constraints import CL, ML, Constraints
from ccopt.exceptions import ClusteringDeadEndError, InfeasibleConstraintsError
from ccopt.problem import ClusteringProblem
from ccopt.status import Status


def _objective(X, labels, centers, cons: Constraints, weight: float) -> float:
    """J of Basu et al. written out directly from its definition."""
    value = 0.5 * sum(float(((X[i] - centers[labels[i]]) ** 2).sum()) for i in range(len(X)))
    for (i, j), kind, w, hard in zip(cons.pairs, cons.kinds, cons.weights, cons.hard, strict=True):
        if hard:
            continue
        same = labels[i] == labels[j]
        if (kind == ML and not same) or (kind == CL and same):
            value += weight * w
    return value


@st.composite
def soft_instances(draw):
    n = draw(st.integers(6, 30))
    k = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 2.0
    m = draw(st.integers(1, 2 * n))
    pairs = np.sort(rng.integers(0, n, size=(m, 2)), axis=1)
    pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    kinds = np.where(rng.random(len(pairs)) < 0.5, ML, CL)
    weights = rng.uniform(0.0, 3.0, size=len(pairs))
    cons = Constraints(pairs, kinds, weights=weights, n_samples=n)
    weight = draw(st.sampled_from([0.0, 0.3, 1.0, 5.0]))
    return X, k, cons, weight, seed


# Some drawn starts leave a cluster empty (ConvergenceWarning); the objective must hold either way.
@pytest.mark.filterwarnings("ignore::ccopt.exceptions.ConvergenceWarning")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soft_instances())
def test_objective_never_increases_and_is_reported_exactly(instance):
    """Each single-object move lowers J given the other labels and the mean minimises the
    distance term, so J after every assignment pass is non-increasing."""
    X, k, cons, weight, seed = instance
    est = PCKMeans(k, weight=weight, init="k-means++", random_state=seed).fit(X, constraints=cons)
    history = np.asarray(est.objective_history_)
    assert (np.diff(history) <= 1e-9 * np.maximum(1.0, np.abs(history[:-1]))).all()
    direct = _objective(X, est.labels_, est.cluster_centers_, cons, weight)
    assert est.objective_ == pytest.approx(direct, rel=1e-9, abs=1e-9)


@pytest.mark.filterwarnings("ignore::ccopt.exceptions.ConvergenceWarning")  # drawn starts may empty a cluster
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soft_instances())
def test_labels_at_convergence_are_a_local_minimum_of_single_moves(instance):
    X, k, cons, weight, seed = instance
    est = PCKMeans(k, weight=weight, init="k-means++", tol=0.0, random_state=seed).fit(X, constraints=cons)
    if est.status_ is not Status.CONVERGED:
        return
    base = _objective(X, est.labels_, est.cluster_centers_, cons, weight)
    for i in range(len(X)):
        for h in range(k):
            moved = est.labels_.copy()
            moved[i] = h
            assert _objective(X, moved, est.cluster_centers_, cons, weight) >= base - 1e-9


def test_zero_penalty_is_kmeans_from_the_same_centres():
    rng = np.random.default_rng(21)
    X = rng.normal(size=(60, 3))
    ml = np.array([[0, 30], [5, 44], [12, 13]])
    cl = np.array([[1, 2], [3, 40], [7, 8], [20, 21]])
    init = X[[2, 17, 33, 50]]
    pck = PCKMeans(4, weight=0.0, init=init, tol=0.0, random_state=0).fit(X, ml=ml, cl=cl)
    km = KMeans(4, init=init, tol=0.0).fit(X)
    np.testing.assert_array_equal(pck.labels_, km.labels_)
    np.testing.assert_allclose(pck.cluster_centers_, km.cluster_centers_)
    assert pck.n_iter_ == km.n_iter_
    assert pck.objective_ == pytest.approx(0.5 * km.objective_)


def test_large_weight_satisfies_consistent_constraints_that_k_means_breaks():
    rng = np.random.default_rng(9)
    centres = np.array([[0, 0], [7, 0], [0, 7]])
    hidden = np.repeat(np.arange(3), 20)
    X = centres[hidden] + rng.normal(0, 2.5, size=(60, 2))  # overlapping: k-means breaks some pairs
    pairs = np.unique(np.sort(rng.choice(60, size=(40, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    cons = Constraints.from_labels(hidden, pairs)
    # Without these two, a PCKmeans that ignored its penalties passed (on well-separated blobs
    # k-means itself violated nothing).
    assert cons.violations(KMeans(3, random_state=0).fit(X).labels_).total > 0
    assert PCKMeans(3, weight=0.0, random_state=0).fit(X, constraints=cons).n_violations_["total"] > 0
    est = PCKMeans(3, weight=1e3, random_state=0).fit(X, constraints=cons)
    assert est.n_violations_["total"] == 0


def test_hard_constraints_are_never_violated():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(40, 2))
    pairs = np.array([[0, 1], [1, 2], [3, 4], [5, 6], [6, 7], [8, 9], [2, 10]])
    kinds = np.array([ML, ML, CL, CL, CL, ML, CL])
    hard = np.array([True, True, True, True, True, False, False])
    cons = Constraints(pairs, kinds, hard=hard, n_samples=40)
    for seed in range(5):
        est = PCKMeans(3, weight=0.0, init="k-means++", random_state=seed).fit(X, constraints=cons)
        assert not cons.violations(est.labels_).violated[hard].any()


def test_hard_cannot_link_dead_end_raises():
    # Satisfiable ({0, 2} and {1}), but with object 1 placed after 0 and 2 went to their own
    # centres, both clusters are closed to it (seed 0 visits it last).
    X = np.array([[0.0, 0.0], [5.0, 0.0], [10.0, 0.0], [0.0, 1.0], [10.0, 1.0]])
    cons = Constraints([(0, 1), (1, 2)], [CL, CL], hard=True, n_samples=5)
    with pytest.raises(ClusteringDeadEndError,
                       match=r"PCKmeans reached a dead end in all n_init=1 .*object 1 could join none of "
                             r"the 2 clusters: cluster 0 by row 0 = \(0, 1\); cluster 1 by row 1 = \(1, 2\)\. "
                             r"The constraints are satisfiable"):
        PCKMeans(2, init=np.array([[0.0, 0.5], [10.0, 0.5]]), random_state=0).fit(X, constraints=cons)


@pytest.mark.parametrize("make", [lambda: PCKMeans(2, n_init=2, random_state=0),
                                  lambda: PCS(2, sizes=[3, 2], n_init=2, random_state=0, progress=False)])
def test_hard_cannot_links_no_labelling_satisfies_are_infeasible(make):
    # Three objects that pairwise cannot-link need three clusters: every run is blocked, and
    # the error says the constraints are infeasible instead of asking for more runs.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]])
    cons = Constraints([(0, 1), (1, 2), (0, 2)], [CL, CL, CL], hard=True, n_samples=5)
    with pytest.raises(InfeasibleConstraintsError, match=r"Objects \[0, 1, 2\] pairwise cannot-link"):
        make().fit(X, constraints=cons)


def test_hard_cannot_link_inside_hard_must_links_is_infeasible():
    X = np.arange(12, dtype=float).reshape(6, 2)
    cons = Constraints([(0, 1), (1, 2), (0, 2)], [ML, ML, CL], hard=True, n_samples=6)
    with pytest.raises(InfeasibleConstraintsError, match=r"Cannot-link \(0, 2\) \[row 2\]"):
        PCKMeans(2).fit(X, constraints=cons)


def _enumerated_pck_optimum(X, k, ml, cl, weight):
    """Least J = SSE / 2 + weight x violations over every labelling into k nonempty clusters."""
    best = (np.inf, None)
    for labels in itertools.product(range(k), repeat=len(X)):
        labels = np.array(labels)
        if np.unique(labels).size < k:
            continue
        centres = np.array([X[labels == j].mean(axis=0) for j in range(k)])
        violated = sum(labels[a] != labels[b] for a, b in ml) + sum(labels[a] == labels[b] for a, b in cl)
        cost = 0.5 * float(((X - centres[labels]) ** 2).sum()) + weight * violated
        best = min(best, (cost, violated), key=lambda pair: pair[0])
    return best


@pytest.mark.parametrize(("weight", "violations"), [(1.0, 2), (20.0, 1)])
def test_soft_contradictions_are_allowed_and_the_weight_decides_which_to_break(weight, violations):
    """A soft cannot-link inside a soft must-link chain is just a penalty to pay.

    Every labelling breaks ML(0, 1), ML(1, 2) or CL(0, 2); the k-means partition also breaks
    ML(2, 3). With weight 1 paying two penalties is cheapest, with weight 20 one (the enumerated
    optimum in both cases). Before, the test asserted only "at least one violation", which every
    labelling of these constraints has.
    """
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1]])
    ml, cl = [(0, 1), (1, 2), (2, 3)], [(0, 2)]
    optimum, optimum_violations = _enumerated_pck_optimum(X, 2, ml, cl, weight)
    assert optimum_violations == violations
    est = PCKMeans(2, weight=weight, n_init=5, random_state=0).fit(X, ml=ml, cl=cl)
    assert est.n_violations_["total"] == violations
    assert est.objective_ == pytest.approx(optimum)


def _problem(X, k, ml=None, cl=None):
    return ClusteringProblem.create(X, k, ml=ml, cl=cl, require_closure=False)


def test_neighbourhood_init_uses_the_k_largest_neighbourhoods():
    X = np.arange(20, dtype=float).reshape(10, 2)
    ml = [(0, 1), (1, 2), (3, 4), (5, 6)]
    cl = [(7, 0)]
    centers = _neighbourhood_centers(_problem(X, 2, ml, cl), np.random.default_rng(0))
    # Sizes 3, 2, 2: the largest, then the tie {3,4} vs {5,6} goes to the smaller index.
    np.testing.assert_allclose(centers, [X[[0, 1, 2]].mean(axis=0), X[[3, 4]].mean(axis=0)])


def test_neighbourhood_init_adds_an_object_cannot_linked_to_all_then_random_ones():
    X = np.arange(24, dtype=float).reshape(12, 2)
    ml = [(0, 1), (2, 3)]
    cl = [(9, 0), (9, 3), (10, 1)]  # 9 is cannot-linked to both neighbourhoods, 10 to one
    centers = _neighbourhood_centers(_problem(X, 4, ml, cl), np.random.default_rng(0))
    np.testing.assert_allclose(centers[:3], [X[[0, 1]].mean(axis=0), X[[2, 3]].mean(axis=0), X[9]])
    assert any(np.array_equal(centers[3], X[i]) for i in (4, 5, 6, 7, 8, 10, 11))

    no_link = _neighbourhood_centers(_problem(X, 4, ml, [(10, 1)]), np.random.default_rng(0))
    np.testing.assert_allclose(no_link[:2], centers[:2])
    rest = [next(i for i in range(12) if np.array_equal(c, X[i])) for c in no_link[2:]]
    assert len(set(rest)) == 2 and not set(rest) & {0, 1, 2, 3}


def test_function_twin_and_history_attribute():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 2))
    labels, centers, info = pckmeans(X, 3, ml=[(0, 1)], cl=[(2, 3)], random_state=0)
    est = info["estimator"]
    np.testing.assert_array_equal(labels, est.labels_)
    np.testing.assert_array_equal(centers, est.cluster_centers_)
    # J of the final labels with their means is at most J with the centres of the last pass.
    assert info["objective"] <= est.objective_history_[-1] + 1e-12
