"""Tests of MLKMeans, GreedyMLKMeans and the ML-aware k-means++ seeding (Jia et al.)."""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans as SklearnKMeans

from ccopt.cluster import KMeans
from ccopt.cluster._ml_kmeans import (
    GreedyMLKMeans,
    MLKMeans,
    _cannot_link_sets,
    _jia_assign,
    _ml_kmeanspp,
    _SuperInstances,
    _weighted_cost,
    greedy_ml_kmeans,
    ml_kmeans,
    ml_kmeanspp_init,
)
from ccopt.constraints import Constraints, check_feasibility
from ccopt.exceptions import (
    ClusteringDeadEndError,
    ConvergenceWarning,
    InfeasibleConstraintsError,
    InvalidParameterError,
)
from ccopt.generators import ml_dcl_constraints
from ccopt.status import Status

from ._references import equal_up_to_renaming


def _cost(X, centers, labels) -> float:
    return float(((X - centers[labels]) ** 2).sum())


def _dcl_instance(seed, n, k, n_ml, n_cl, r):
    """Random data with the paper's constraints (ML sets, disjoint CL sets of size r)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) + rng.integers(0, 3, size=(n, 1)) * 2.0
    y = np.arange(n) % k
    return X, ml_dcl_constraints(y, n_ml, n_cl, r, random_state=seed)


def _drawn_instance(*args):
    try:
        return _dcl_instance(*args)
    except InvalidParameterError:  # the classes cannot hold that many disjoint sets
        assume(False)


# ---------------------------------------------------------------------------- properties
# A drawn start may leave a cluster empty; the constraints and Lemma 6 must hold either way.
@pytest.mark.filterwarnings(r"ignore:MLKMeans ended with \d+ empty cluster:ccopt.exceptions.ConvergenceWarning")
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(10, 30), k=st.integers(2, 4),
       n_ml=st.integers(0, 3), n_cl=st.integers(0, 4), r=st.integers(2, 4))
def test_hard_constraints_hold_and_cost_never_increases(seed, n, k, n_ml, n_cl, r):
    assume(r <= k)
    X, cs = _drawn_instance(seed, n, k, n_ml, n_cl, r)
    est = MLKMeans(k, random_state=seed, progress=False).fit(X, constraints=cs.constraints)
    labels = est.labels_
    for members in cs.ml_sets:
        assert np.unique(labels[members]).size == 1
    for members in cs.cl_sets:
        assert np.unique(labels[members]).size == members.size
    assert est.n_violations_["total"] == 0
    history = np.asarray(est.cost_history_)
    # Lemma 6: never increasing (up to floating-point rounding of the same sums).
    assert np.all(np.diff(history) <= 1e-9 * history[:-1])
    assert len(history) == est.n_iter_ + 1
    assert est.objective_ == pytest.approx(_cost(X, est.cluster_centers_, labels), rel=1e-9)
    assert est.objective_ == pytest.approx(history[-1], rel=1e-12)


# A drawn start may leave a cluster empty; the constraints must hold either way.
@pytest.mark.filterwarnings(r"ignore:GreedyMLKMeans ended with \d+ empty cluster:ccopt.exceptions.ConvergenceWarning")
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(10, 30), k=st.integers(2, 4),
       n_ml=st.integers(0, 3), n_cl=st.integers(0, 4), r=st.integers(2, 4))
def test_greedy_respects_disjoint_sets(seed, n, k, n_ml, n_cl, r):
    assume(r <= k)
    X, cs = _drawn_instance(seed, n, k, n_ml, n_cl, r)
    est = GreedyMLKMeans(k, random_state=seed, progress=False).fit(X, constraints=cs.constraints)
    assert est.n_violations_["total"] == 0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(8, 16), n_cl=st.integers(1, 10))
def test_general_cannot_links_are_kept_and_cost_never_increases(seed, n, n_cl):
    """Cannot-link pairs that are not disjoint sets (outside the paper): still hard, still monotone."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    pairs = rng.choice(n, size=(n_cl, 2))
    pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
    assume(pairs.shape[0] > 0)
    cons = Constraints.from_pairs(cl=pairs, n_samples=n)
    assume(check_feasibility(cons, 3).feasible)
    est = MLKMeans(3, random_state=seed, progress=False).fit(X, constraints=cons)
    assert est.n_violations_["cl"] == 0
    history = np.asarray(est.cost_history_)
    assert np.all(np.diff(history) <= 1e-9 * history[:-1])


# ---------------------------------------------------------------------------- exact
@pytest.mark.parametrize("seed", range(6))
def test_assignment_step_is_optimal_for_fixed_centres(seed):
    """Algorithm 2 on DCL input = the cheapest feasible labelling (brute force over 3^7)."""
    k, n = 3, 7
    X, cs = _dcl_instance(seed, n, k, 1, 2 - seed % 2, 2 + seed % 2)
    cons = cs.constraints
    centers = np.random.default_rng(seed + 100).normal(size=(k, 2)) * 2.0
    closure = cons.closure
    sup = _SuperInstances.from_closure(X, closure)
    got = _jia_assign(_weighted_cost(sup, centers), _cannot_link_sets(closure, sup.first, k), None)
    got_cost = _cost(X, centers, got[sup.component])
    best = np.inf
    for labels in itertools.product(range(k), repeat=n):
        labels = np.array(labels)
        if cons.violations(labels).total == 0:
            best = min(best, _cost(X, centers, labels))
    assert cons.violations(got[sup.component]).total == 0
    assert got_cost == pytest.approx(best, rel=1e-12)


def test_non_clique_component_is_never_worse_than_previous():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(6, 2))
    cons = Constraints.from_pairs(cl=[(0, 1), (1, 2), (2, 3), (3, 4)], n_samples=6)  # a path
    closure = cons.closure
    sup = _SuperInstances.from_closure(X, closure)
    cls = _cannot_link_sets(closure, sup.first, 2)
    assert len(cls.mixed) == 1 and not cls.dcl_sets
    previous = np.array([0, 1, 0, 1, 0, 0])  # feasible
    for _ in range(20):
        centers = rng.normal(size=(2, 2))
        cost = _weighted_cost(sup, centers)
        new = _jia_assign(cost, cls, previous)
        assert cons.violations(new).total == 0
        rows = np.arange(6)
        assert cost[rows, new].sum() <= cost[rows, previous].sum() + 1e-12


def test_first_assignment_follows_algorithm_2_by_hand():
    """1-D case worked out by hand: ML set by its mass centre, CL set by min-sum matching."""
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    init = np.array([[0.5], [11.0]])
    with pytest.warns(ConvergenceWarning, match=r"^MLKMeans stopped after max_iter=0 iterations"):
        est = MLKMeans(2, init=init, max_iter=0, progress=False).fit(X, ml=[(2, 3)], cl=[(4, 5)])
    # ML {2, 3}: mass centre 6 is nearer 11 (25) than 0.5 (30.25). CL {4, 5}: 4->0, 5->1 costs
    # 110.25 + 1, the other way 0 + 132.25.
    np.testing.assert_array_equal(est.labels_, [0, 0, 1, 1, 0, 1])


def test_greedy_first_assignment_follows_section_6_1_1_by_hand():
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    init = np.array([[0.5], [11.0]])
    with pytest.warns(ConvergenceWarning, match=r"^GreedyMLKMeans stopped after max_iter=0 iterations"):
        est = GreedyMLKMeans(2, init=init, max_iter=0, progress=False).fit(X, ml=[(2, 3)], cl=[(4, 5)])
    # ML {2, 3} follows object 2 (nearest centre 0.5); CL {4, 5}: 4 takes 11, 5 is left 0.5.
    np.testing.assert_array_equal(est.labels_, [0, 0, 0, 0, 1, 0])


def test_without_constraints_it_is_lloyd_from_the_seeds():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.6, size=(20, 2)) for c in ((0, 0), (4, 0), (2, 3))])
    est = MLKMeans(3, random_state=5, progress=False).fit(X)
    ref = SklearnKMeans(3, init=est.seed_centers_, n_init=1, algorithm="lloyd", tol=0.0).fit(X)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    np.testing.assert_allclose(est.cluster_centers_, ref.cluster_centers_, atol=1e-10)
    assert est.objective_ == pytest.approx(ref.inertia_, rel=1e-9)


def test_greedy_without_constraints_is_lloyd_from_random_objects():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.8, size=(15, 2)) for c in ((0, 0), (4, 0), (2, 3))])
    est = GreedyMLKMeans(3, random_state=8, progress=False).fit(X)
    assert all(np.any(np.all(c == X, axis=1)) for c in est.seed_centers_)  # step (1)
    ref = SklearnKMeans(3, init=est.seed_centers_, n_init=1, algorithm="lloyd", tol=0.0).fit(X)
    np.testing.assert_array_equal(est.labels_, ref.labels_)


def test_with_must_links_only_it_is_kmeans_on_super_instances():
    """Cross-check with ccopt's KMeans (weighted Lloyd on the must-link closure)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    ml = [(0, 1), (1, 2), (3, 4), (10, 20), (21, 22)]
    est = MLKMeans(3, random_state=2, progress=False).fit(X, ml=ml)
    ref = KMeans(3, init=est.seed_centers_, tol=0.0).fit(X, ml=ml)
    assert equal_up_to_renaming(est.labels_, ref.labels_)
    assert est.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


# ---------------------------------------------------------------------------- seeding
def test_seeding_law_matches_algorithm_1():
    """Empirical law of two seeds vs. the D² rule computed object by object."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [4.0, 1.0], [5.0, 3.0], [0.0, 4.0], [6.0, 6.0]])
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], n_samples=6)
    closure = cons.closure
    sup = _SuperInstances.from_closure(X, closure)
    n_super = sup.n_super
    means = sup.means

    def d2(p, c):
        return float(((p - c) ** 2).sum())

    expected = np.zeros((n_super, n_super))
    for first in range(n_super):
        p_first = sup.weights[first] / X.shape[0]  # an object uniformly, mapped to its ML set
        mass = np.zeros(n_super)
        for obj in range(X.shape[0]):
            s = closure.component[obj]
            if sup.weights[s] > 1:  # step 5: D² = d²_min(mean, C) + ||p - mean||²
                mass[s] += d2(means[s], means[first]) + d2(X[obj], means[s])
            else:
                mass[s] += d2(X[obj], means[first])
        mass[first] = 0.0  # reading: an ML set whose mean already is a centre is not re-drawn
        expected[first] = p_first * mass / mass.sum()

    rng = np.random.default_rng(0)
    draws = 4000
    counts = np.zeros((n_super, n_super))
    for _ in range(draws):
        centers = _ml_kmeanspp(sup, 2, rng)
        idx = [int(np.flatnonzero((means == c).all(axis=1))[0]) for c in centers]
        counts[idx[0], idx[1]] += 1
    freq = counts / draws
    tolerance = 4.5 * np.sqrt(expected * (1 - expected) / draws) + 1e-3
    assert np.all(np.abs(freq - expected) <= tolerance)


def test_seeds_are_mass_centres_or_points_and_distinct():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    ml = [(0, 1), (1, 2), (5, 6), (7, 8), (9, 10)]
    C = ml_kmeanspp_init(X, 5, ml=ml, random_state=1)
    sup_means = Constraints.from_pairs(ml=ml, n_samples=30).closure.super_instances(X)[0]
    for row in C:
        assert np.any(np.all(np.isclose(sup_means, row), axis=1))
    assert np.unique(C, axis=0).shape[0] == 5


def test_seeding_with_constraints_object_uses_only_must_links():
    X = np.array([[0.0], [2.0], [10.0], [11.0]])
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(1, 2)], n_samples=4)
    C = ml_kmeanspp_init(X, 2, constraints=cons, random_state=3)
    assert sorted(C.ravel().tolist()) == [1.0, 10.5]


# ---------------------------------------------------------------------------- behaviour
def test_non_clique_cannot_links_handled_where_greedy_dead_ends():
    # CL 0-4 and 1-4 (a path, not a DCL set): greedy puts 0 and 1 apart, then 4 has no cluster.
    X = np.array([[0.0], [10.0], [0.2], [9.8], [5.0]])
    init = np.array([[0.0], [10.0]])
    with pytest.raises(ClusteringDeadEndError, match="dead end"):
        GreedyMLKMeans(2, init=init, progress=False).fit(X, cl=[(0, 4), (1, 4)])
    est = MLKMeans(2, init=init, progress=False).fit(X, cl=[(0, 4), (1, 4)])
    assert est.n_violations_["total"] == 0


def test_uncolourable_general_cannot_links_are_proven_infeasible():
    # The Groetzsch graph needs 4 clusters and has no 4-clique: the cheap checks prove nothing,
    # the complete search after the dead end proves it.
    edges = [tuple(sorted(edge)) for edge in nx.mycielski_graph(4).edges]
    X = np.arange(22, dtype=float).reshape(-1, 1)
    with pytest.raises(InfeasibleConstraintsError, match="n_clusters=3"):
        MLKMeans(3, random_state=0, progress=False).fit(X, cl=edges)


def test_same_seed_same_result():
    X, cs = _dcl_instance(7, 40, 3, 3, 4, 3)
    a = MLKMeans(3, n_init=2, random_state=11, progress=False).fit(X, constraints=cs.constraints)
    b = MLKMeans(3, n_init=2, random_state=11, progress=False).fit(X, constraints=cs.constraints)
    c = MLKMeans(3, n_init=2, random_state=np.random.default_rng(11), progress=False).fit(
        X, constraints=cs.constraints)
    for other in (b, c):
        np.testing.assert_array_equal(a.labels_, other.labels_)
        np.testing.assert_array_equal(a.cluster_centers_, other.cluster_centers_)
        assert a.cost_history_ == other.cost_history_
    g1 = GreedyMLKMeans(3, random_state=4, progress=False).fit(X, constraints=cs.constraints)
    g2 = GreedyMLKMeans(3, random_state=4, progress=False).fit(X, constraints=cs.constraints)
    np.testing.assert_array_equal(g1.labels_, g2.labels_)


def test_more_restarts_never_worse():
    X, cs = _dcl_instance(2, 50, 3, 2, 5, 3)
    one = MLKMeans(3, n_init=1, random_state=9, progress=False).fit(X, constraints=cs.constraints)
    three = MLKMeans(3, n_init=3, random_state=9, progress=False).fit(X, constraints=cs.constraints)
    assert three.objective_ <= one.objective_


def test_time_limit_returns_a_feasible_labelling():
    X, cs = _dcl_instance(5, 60, 3, 3, 6, 3)
    est = MLKMeans(3, time_limit=1e-9, random_state=0, progress=False).fit(X, constraints=cs.constraints)
    assert est.status_ is Status.TIME_LIMIT
    assert est.n_violations_["total"] == 0


def test_function_twins_match_estimators():
    X, cs = _dcl_instance(8, 30, 3, 2, 3, 2)
    labels, centers, info = ml_kmeans(X, 3, constraints=cs.constraints, random_state=1, progress=False)
    est = MLKMeans(3, random_state=1, progress=False).fit(X, constraints=cs.constraints)
    np.testing.assert_array_equal(labels, est.labels_)
    np.testing.assert_array_equal(centers, est.cluster_centers_)
    assert info["objective"] == est.objective_
    labels, _, info = greedy_ml_kmeans(X, 3, constraints=cs.constraints, random_state=1, progress=False)
    assert info["n_violations"]["total"] == 0
    assert labels.shape == (30,)


# ---------------------------------------------------------------------------- errors
def test_cannot_link_set_larger_than_k_is_rejected():
    X = np.arange(6, dtype=float).reshape(-1, 1)
    with pytest.raises(InfeasibleConstraintsError, match=r"Objects \[0, 1, 2\].*only n_clusters=2"):
        MLKMeans(2, progress=False).fit(X, cl=[(0, 1), (1, 2), (0, 2)])


def test_cannot_link_inside_must_link_set_is_rejected():
    X = np.arange(6, dtype=float).reshape(-1, 1)
    with pytest.raises(InfeasibleConstraintsError, match="chain 0 - 1 - 2"):
        MLKMeans(2, progress=False).fit(X, ml=[(0, 1), (1, 2)], cl=[(0, 2)])


def test_too_few_must_link_sets_is_rejected():
    X = np.arange(4, dtype=float).reshape(-1, 1)
    with pytest.raises(InfeasibleConstraintsError, match="into 1 groups, fewer than n_clusters=2"):
        GreedyMLKMeans(2, progress=False).fit(X, ml=[(0, 1), (1, 2), (2, 3)])


@pytest.mark.parametrize(("params", "message"), [
    ({"init": "random"}, "Unknown init 'random'"),
    ({"init": np.zeros((3, 1))}, r"init must have shape \(n_clusters, n_features\) = \(2, 1\)"),
    ({"n_init": 0}, "n_init must be >= 1"),
    ({"max_iter": -1}, "max_iter must be >= 0"),
    ({"tol": -1.0}, "tol must be finite and >= 0"),
])
def test_bad_parameters_are_rejected(params, message):
    X = np.arange(6, dtype=float).reshape(-1, 1)
    with pytest.raises(InvalidParameterError, match=message):
        MLKMeans(2, progress=False, **params).fit(X)


def test_greedy_rejects_kmeanspp_init_name():
    X = np.arange(6, dtype=float).reshape(-1, 1)
    with pytest.raises(InvalidParameterError, match="Unknown init 'k-means\\+\\+'"):
        GreedyMLKMeans(2, init="k-means++", progress=False).fit(X)


# ---------------------------------------------------------------------------- stopping: cycles, renumbered clusters
def test_a_greedy_run_that_swaps_two_partitions_stops_and_keeps_the_cheaper():
    # Found by a search over small random instances: the greedy pass hands two partitions
    # back and forth; run to max_iter, the parity of max_iter would choose the answer.
    rng = np.random.default_rng(46)
    n, k = int(rng.integers(8, 20)), int(rng.integers(2, 4))
    X, y = rng.normal(size=(n, 2)), rng.integers(0, k, size=n)
    cons = ml_dcl_constraints(y, 2, 2, k, random_state=46).constraints

    def fit(max_iter):
        return GreedyMLKMeans(k, max_iter=max_iter, random_state=46, progress=False).fit(X, constraints=cons)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no max_iter warning: the run stops on its own
        first, second = fit(300), fit(301)
    assert first.status_ is Status.STAGNATION and 3 <= first.n_iter_ < 300
    np.testing.assert_array_equal(first.labels_, second.labels_)
    # The cycle's two partitions are those after n_iter - 2 and n_iter - 1 passes; the kept one
    # has the lower cost at its own means, which objective_ and inertia_ give.
    cycle = []
    for max_iter in (first.n_iter_ - 2, first.n_iter_ - 1):
        # These stop on max_iter, before the cycle shows, and say so.
        with pytest.warns(ConvergenceWarning, match=rf"^GreedyMLKMeans stopped after max_iter={max_iter} iterations"):
            cycle.append(fit(max_iter).labels_)
    costs = [_cost(X, np.array([X[labels == c].mean(axis=0) for c in range(k)]), labels) for labels in cycle]
    assert costs[0] != pytest.approx(costs[1])
    assert first.objective_ == pytest.approx(min(costs), rel=1e-9)
    assert first.inertia_ == pytest.approx(min(costs), rel=1e-9)


def test_a_cycle_of_three_partitions_stops_at_the_first_repeat_and_keeps_the_cheapest():
    # A pass that cycles through three partitions of four points on a line, whatever the centres.
    from ccopt._progress import progress_bar
    from ccopt._timing import Deadline
    from ccopt.cluster import _ml_kmeans as M

    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    sup = M._SuperInstances(means=X, weights=np.ones(4), spread=np.zeros(4), first=np.arange(4),
                            component=np.arange(4))
    cycle = [np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]), np.array([0, 0, 0, 1])]
    calls = []

    def assign(centers, cost, previous):
        calls.append(1)
        return cycle[len(calls) % 3].copy()  # starts with cycle[1], then 2, 0, 1, ...

    run = M._alternate_runs(sup, np.array([[0.0], [10.0]]), assign, max_iter=300, deadline=Deadline(None),
                            bar=progress_bar(None, enabled=False))
    assert run.status is Status.STAGNATION and run.n_iter == 3  # cycle[1] comes back after 3 passes
    np.testing.assert_array_equal(run.labels, cycle[0])  # WCSS 1, against about 60.7 for the other two
    assert run.objective == pytest.approx(1.0)


def test_greedy_stops_when_the_clusters_only_swap_numbers():
    # Must-link sets A = {0, 1} (mean 5) and B = {2, 3} (mean -3), cannot-linked. A's first
    # object (0) is nearer B's mean and B's first object (4) nearer A's: the greedy pass
    # swaps the two cluster numbers at every step while the clusters stay the same. The run
    # has converged there; it must not go on to max_iter and warn that it had not.
    X = np.array([[0.0], [10.0], [4.0], [-10.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = GreedyMLKMeans(2, init=np.array([[5.0], [-3.0]]), progress=False).fit(
            X, ml=[(0, 1), (2, 3)], cl=[(0, 2)])
    assert est.status_ is Status.CONVERGED
    assert est.n_iter_ == 1
    assert est.labels_[0] == est.labels_[1] != est.labels_[2] == est.labels_[3]
    # The cost of these labels against the swapped centres (5 and -3), as the greedy pass
    # measures it: objects 0, 1 at -3, objects 2, 3 at 5.
    swapped = (0 + 3) ** 2 + (10 + 3) ** 2 + (4 - 5) ** 2 + (-10 - 5) ** 2
    assert est.cost_history_ == [pytest.approx(swapped)] * 2


def test_ml_kmeans_stop_rule_is_unchanged_by_renumbered_clusters():
    X = np.array([[0.0], [10.0], [4.0], [-10.0]])
    est = MLKMeans(2, init=np.array([[5.0], [-3.0]]), progress=False).fit(
        X, ml=[(0, 1), (2, 3)], cl=[(0, 2)])
    assert est.status_ is Status.CONVERGED
    assert np.diff(est.cost_history_).max() <= 0
