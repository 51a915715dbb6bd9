"""PCKmeans (Basu et al. 2004): the objective J, its monotone descent, k-means at zero penalty,
hard constraints.

The tiny-instance tests check against enumeration of every labelling, a literal transcription
of step 2a of PCKMeans, and Lloyd's iteration.
"""

from __future__ import annotations

import itertools
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ccopt.cluster import PCS, KMeans, PCKMeans
from ccopt.cluster._pckmeans import _neighbourhood_centers, _PCKModel, pckmeans
from ccopt.constraints import CL, ML, Constraints, _cannot_links_in_chains
from ccopt.exceptions import (
    CcoptWarning,
    ClusteringDeadEndError,
    ConvergenceWarning,
    InfeasibleConstraintsError,
    InvalidParameterError,
)
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

from ._greedy_traps import dead_end_possible
from ._references import (
    assert_centres_are_means,
    must_link_groups,
    nonempty_satisfying,
    pck_objective,
    tiny_instances,
    wcss_to,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def _drawn_data_warnings():
    """Ignore exactly the two warnings a drawn instance may give, which these tests do not
    check: a cannot-link inside a must-link chain, and a start that leaves a cluster empty."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"PCKMeans: \d+ of the \d+ cannot-link\(s\) lie inside must-link chains",
                                CcoptWarning)
        warnings.filterwarnings("ignore", r"PCKMeans ended with \d+ empty cluster\(s\)", ConvergenceWarning)
        yield


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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soft_instances())
def test_objective_never_increases_and_is_reported_exactly(instance):
    """Each single-object move lowers J given the other labels and the mean minimises the
    distance term, so J after every assignment pass is non-increasing."""
    X, k, cons, weight, seed = instance
    with _drawn_data_warnings():  # the objective must hold with or without them
        est = PCKMeans(k, weight=weight, init="k-means++", random_state=seed).fit(X, constraints=cons)
    history = np.asarray(est.objective_history_)
    assert (np.diff(history) <= 1e-9 * np.maximum(1.0, np.abs(history[:-1]))).all()
    direct = pck_objective(X, est.labels_, est.cluster_centers_, cons, weight)
    assert est.objective_ == pytest.approx(direct, rel=1e-9, abs=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soft_instances())
def test_labels_at_convergence_are_a_local_minimum_of_single_moves(instance):
    X, k, cons, weight, seed = instance
    with _drawn_data_warnings():  # a local minimum either way
        est = PCKMeans(k, weight=weight, init="k-means++", tol=0.0, random_state=seed).fit(X, constraints=cons)
    if est.status_ is not Status.CONVERGED:
        return
    base = pck_objective(X, est.labels_, est.cluster_centers_, cons, weight)
    for i in range(len(X)):
        for h in range(k):
            moved = est.labels_.copy()
            moved[i] = h
            assert pck_objective(X, moved, est.cluster_centers_, cons, weight) >= base - 1e-9


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
    with pytest.warns(CcoptWarning, match=r"^PCKMeans: 1 of the 1 cannot-link\(s\) lie inside must-link chains"):
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


# --------------------------------------------------------------------------- against step 2a, enumeration and Lloyd
def _hard_pairs(cons: Constraints):
    """The hard must-link and hard cannot-link pairs of ``cons``: the only rows that block."""
    hard_ml = cons.hard & (cons.kinds == ML)
    hard_cl = cons.hard & (cons.kinds == CL)
    return cons.pairs[hard_ml], cons.pairs[hard_cl]


@st.composite
def _pck_tiny(draw, *, hard_share: float = 0.0):
    X, k, ml, cl, rng = draw(tiny_instances(ml_share=0.5))
    pairs = np.vstack([ml, cl])
    kinds = np.array([ML] * len(ml) + [CL] * len(cl), dtype=np.int8)
    weights = rng.uniform(0.0, 2.0, size=len(pairs))
    hard = rng.random(len(pairs)) < hard_share
    cons = Constraints(pairs, kinds, weights=weights, hard=hard, n_samples=len(X))
    weight = draw(st.sampled_from([0.0, 0.4, 1.0, 3.0]))
    return X, k, cons, weight, rng


def _icm_pass(X, centers, cons, weight, groups, order, previous):
    """Step 2a of PCKMeans over hard must-link groups in ``order``: each group takes the
    cluster of least ``1/2 sum ||x - mu_h||^2`` plus the soft penalties it would incur with
    the current labels of the others (unlabelled ones count nothing); a cluster holding a
    hard cannot-link partner is closed. Returns group labels or ``None`` (no open cluster).
    """
    k = centers.shape[0]
    lab = np.full(int(groups.max()) + 1, -1) if previous is None else previous.copy()
    for g in order:
        members = np.flatnonzero(groups == g)
        cost = []
        for h in range(k):
            c = 0.5 * float(((X[members] - centers[h]) ** 2).sum())
            rows = zip(cons.pairs, cons.kinds, cons.weights, cons.hard, strict=True)
            for (i, j), kind, w, hard in rows:
                if (groups[i] == g) == (groups[j] == g):
                    continue  # not this group's pair, or inside it (a constant)
                other = lab[groups[j] if groups[i] == g else groups[i]]
                if other < 0:
                    continue
                if hard and kind == CL and other == h:
                    c = np.inf
                elif not hard and (other != h if kind == ML else other == h):
                    c += weight * w
            cost.append(c)
        best = int(np.argmin(cost))
        if not np.isfinite(cost[best]):
            return None
        lab[g] = best
    return lab


def _pck_case(X, k, cons, weight, rng):
    problem = ClusteringProblem.create(X, k, cons, require_closure=False)
    hard_ml = cons.pairs[cons.hard & (cons.kinds == ML)]
    groups = must_link_groups(len(X), hard_ml)
    hard_cl = cons.pairs[cons.hard & (cons.kinds == CL)]
    assume(all(groups[i] != groups[j] for i, j in hard_cl) and groups.max() + 1 >= k)
    model = _PCKModel(problem, weight)
    np.testing.assert_array_equal(model.closure.component, groups)
    centers = rng.normal(size=(k, X.shape[1]))
    order = rng.permutation(model.m)
    rest = [g for g in range(int(groups.max()) + 1) if g not in set(model.nodes.tolist())]
    return model, groups, centers, order, model.nodes[order].tolist() + rest


@SETTINGS
@given(_pck_tiny(hard_share=0.3))
def test_pck_assignment_pass_is_step_2a_and_never_increases_j(instance):
    X, k, cons, weight, rng = instance
    model, groups, centers, order, full = _pck_case(X, k, cons, weight, rng)
    # A previous labelling that keeps the hard cannot-links, as every pass after the first has.
    previous = rng.integers(0, k, size=int(groups.max()) + 1)
    hard_cl = cons.pairs[cons.hard & (cons.kinds == CL)]
    assume(all(previous[groups[i]] != previous[groups[j]] for i, j in hard_cl))
    got = model.assign(centers, previous, order=order)
    expected = _icm_pass(X, centers, cons, weight, groups, full, previous)
    assert expected is not None  # the previous cluster of a group is always open
    np.testing.assert_array_equal(got, expected)
    before = pck_objective(X, previous[groups], centers, cons, weight)
    after = pck_objective(X, got[groups], centers, cons, weight)
    assert after <= before + 1e-9 * max(1.0, abs(before))

    first = model.assign(centers, None, order=order)
    expected_first = _icm_pass(X, centers, cons, weight, groups, full, None)
    if expected_first is None:
        assert not isinstance(first, np.ndarray)
    else:
        np.testing.assert_array_equal(first, expected_first)


@SETTINGS
@given(_pck_tiny(hard_share=0.3), st.sampled_from(["neighborhoods", "k-means++"]))
def test_pck_fit_reports_j_of_its_labels_and_centres(instance, init):
    X, k, cons, weight, rng = instance
    seed = int(rng.integers(2**31))
    with _drawn_data_warnings():  # J is reported exactly either way
        try:
            est = PCKMeans(k, weight=weight, init=init, n_init=2, random_state=seed).fit(
                X, constraints=cons)
        except InfeasibleConstraintsError:
            assert len(nonempty_satisfying(len(X), k, *_hard_pairs(cons))) == 0  # only raised with a proof
            return
        except ClusteringDeadEndError:
            assert dead_end_possible(len(X), k, *_hard_pairs(cons))
            return
        again = PCKMeans(k, weight=weight, init=init, n_init=2, random_state=seed).fit(
            X, constraints=cons)
    labels = est.labels_
    assert not cons.violations(labels).violated[cons.hard].any()
    direct = pck_objective(X, labels, est.cluster_centers_, cons, weight)
    assert est.objective_ == pytest.approx(direct, rel=1e-12, abs=1e-12)
    assert_centres_are_means(X, labels, est.cluster_centers_)
    history = np.asarray(est.objective_history_)
    assert (np.diff(history) <= 1e-9 * np.maximum(1.0, np.abs(history[:-1]))).all()
    np.testing.assert_array_equal(again.labels_, labels)
    np.testing.assert_array_equal(again.cluster_centers_, est.cluster_centers_)


def _lloyd(X, centers, max_iter=300):
    """Lloyd's k-means: nearest centre (lower index on a tie), means, until no label changes."""
    labels = None
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - n_iter is returned
        new = np.array([int(np.argmin(((x - centers) ** 2).sum(axis=1))) for x in X])
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        centers = np.array([X[labels == h].mean(axis=0) if (labels == h).any() else centers[h]
                            for h in range(len(centers))])
    return labels, centers, n_iter


@SETTINGS
@given(_pck_tiny(), st.booleans())
def test_pck_with_zero_penalties_is_lloyd_from_the_same_centres(instance, zero_global):
    X, k, cons, weight, rng = instance
    if zero_global:
        weight = 0.0
    else:
        cons = Constraints(cons.pairs, cons.kinds, weights=0.0, n_samples=len(X))
        weight = max(weight, 1.0)
    start = rng.normal(size=(k, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = PCKMeans(k, weight=weight, init=start, tol=0.0, random_state=0).fit(X, constraints=cons)
    labels, centers, n_iter = _lloyd(X, start)
    lloyd_leaves_empty = np.unique(labels).size < k
    # A drawn set may put a cannot-link inside a must-link chain: fit says so (CcoptWarning).
    contradictory = _cannot_links_in_chains(cons).size > 0
    assert [w.category for w in caught] == [CcoptWarning] * contradictory + [ConvergenceWarning] * lloyd_leaves_empty
    np.testing.assert_array_equal(est.labels_, labels)
    np.testing.assert_allclose(est.cluster_centers_, centers, rtol=1e-12, atol=1e-12)
    assert est.n_iter_ == n_iter
    assert est.objective_ == pytest.approx(0.5 * wcss_to(X, labels, centers), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(16))
def test_neighbourhood_init_never_takes_the_same_object_twice(seed):
    # One neighbourhood {0, 1, 2}; object 3 is cannot-linked to it, so it is the second
    # centre. No object is left outside the neighbourhood for the third, which must come from
    # the neighbourhood: drawn among all four objects it was object 3 again for 7 of these 16
    # seeds, and the fit then kept cluster 2 empty (J = 5/3 instead of 5/4 with three clusters).
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
    problem = ClusteringProblem.create(X, 3, ml=[(0, 1), (0, 2)], cl=[(2, 3)],
                                       require_closure=False)
    centers = _neighbourhood_centers(problem, np.random.default_rng(seed))
    np.testing.assert_allclose(centers[0], [1.0 / 3.0, 2.0 / 3.0])
    np.testing.assert_array_equal(centers[1], X[3])
    assert any(np.array_equal(centers[2], X[i]) for i in (0, 1, 2))


@pytest.mark.parametrize("weight", [-0.5, np.nan, np.inf])
def test_pck_refuses_a_bad_penalty_weight(weight):
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(InvalidParameterError, match=r"weight must be finite and >= 0"):
        PCKMeans(2, weight=weight).fit(X, cl=[(0, 1)])
