"""LCC (Ganji et al. 2016): must-links always hold, the centre update (3.4) minimises what
the paper differentiates, the multiplier rule, best-solution tracking and the stopping rules.

The visiting order of the cannot-link pairs has its own file (test_lcc_pair_order.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from ccopt.cluster import LCC, KMeans
from ccopt.cluster._lcc import _lcc_centers, lcc
from ccopt.constraints import Constraints
from ccopt.exceptions import ConvergenceWarning, InfeasibleConstraintsError, InvalidParameterError
from ccopt.status import Status


@st.composite
def instances(draw):
    """Must-links inside hidden groups, cannot-links between them. With more hidden groups
    than clusters, the cannot-links may be impossible to satisfy (cliques larger than k)."""
    n = draw(st.integers(6, 30))
    k = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, draw(st.integers(k, k + 2)), size=n)
    X = rng.normal(size=(n, 2)) * 2.0
    pairs = np.sort(rng.integers(0, n, size=(draw(st.integers(0, 2 * n)), 2)), axis=1)
    pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    same = hidden[pairs[:, 0]] == hidden[pairs[:, 1]]
    return X, k, Constraints.from_pairs(ml=pairs[same], cl=pairs[~same], n_samples=n), seed


def _fit(X, k, cons, **params):
    try:
        with warnings.catch_warnings():
            # Drawn instances may leave a cluster empty from their start; the warning says so,
            # and these tests check the constraints and the bookkeeping, not the start.
            warnings.filterwarnings("ignore", message="LCC ended with .* empty cluster", category=ConvergenceWarning)
            return LCC(k, **params).fit(X, constraints=cons)
    except InfeasibleConstraintsError as exc:  # fewer must-link groups than clusters
        assert "fewer than n_clusters" in str(exc)
        return None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_never_violates_a_must_link_and_tracks_the_best_solution(instance):
    X, k, cons, seed = instance
    est = _fit(X, k, cons, random_state=seed)
    if est is None:
        return
    assert est.n_violations_["ml"] == 0
    history = est.history_
    # labels_ is the lexicographic minimum of (violations, objective) over the iterations
    # (or the initial labelling, with its own violations, when nothing beat it).
    best = est.best_iter_
    if best > 0:
        v_best, o_best = history["violations"][best - 1], history["objective"][best - 1]
        assert est.n_violations_["cl"] == v_best
        for v, o in zip(history["violations"], history["objective"], strict=True):
            assert (v_best, o_best) <= (v, o)
        assert history["improved"][best - 1]
        assert not history["improved"][best:].any()
    else:
        assert all(v >= est.n_violations_["cl"] for v in history["violations"])
    _check_stopping(est, max_iter=100, patience=25)


def _check_stopping(est, *, max_iter, patience):
    n_iter = est.n_iter_
    assert 1 <= n_iter <= max_iter
    assert len(est.history_["violations"]) == n_iter
    if est.status_ is Status.STAGNATION:
        assert n_iter - est.best_iter_ == patience
    elif est.status_ is Status.ITERATION_LIMIT:
        assert n_iter == max_iter
        assert n_iter - est.best_iter_ < patience
    else:
        assert est.status_ is Status.CONVERGED
        assert est.history_["n_conflicts"][-1] == 0
        if est.pair_order == "random":  # another order could still repair a violated pair
            assert est.history_["violations"][-1] == 0
        assert n_iter - est.best_iter_ < patience


@pytest.mark.parametrize(("max_iter", "patience"), [(100, 25), (3, 25), (100, 1), (100, 2), (7, 3)])
def test_stopping_rules(max_iter, patience):
    """25 iterations without a better best, or 100 in all (and a fixed point, which would
    repeat without improvement). Several seeds on data with impossible cannot-links, so
    that the multipliers keep changing."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 2))
    pairs = np.array([(a, b) for a in range(8) for b in range(a + 1, 8)])
    cons = Constraints.from_pairs(cl=pairs, n_samples=40)  # an 8-clique, k=3: infeasible
    statuses = set()
    for seed in range(4):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = LCC(3, max_iter=max_iter, max_no_improvement=patience, random_state=seed).fit(
                X, constraints=cons)
        _check_stopping(est, max_iter=max_iter, patience=patience)
        statuses.add(est.status_)
        # A stop on max_iter, and only that, comes with a ConvergenceWarning that says so.
        assert [w.category for w in caught] == [ConvergenceWarning] * (est.status_ is Status.ITERATION_LIMIT)
        assert all(str(w.message).startswith(f"LCC stopped after max_iter={max_iter} iterations") for w in caught)
    # Both paper rules are exercised: the 3-iteration cap bites first, otherwise stagnation.
    assert (Status.ITERATION_LIMIT if max_iter == 3 else Status.STAGNATION) in statuses


def test_a_fixed_point_stops_as_converged():
    """Without cannot-links the iteration is Lloyd's from a random partition: once the
    centres repeat, every later iteration would too, so LCC stops there."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 2))
    est = LCC(3, random_state=0).fit(X, ml=[(0, 1)])
    assert est.status_ is Status.CONVERGED
    _check_stopping(est, max_iter=100, patience=25)
    assert est.n_violations_["total"] == 0


def test_centre_update_is_the_minimiser_of_the_differentiated_objective():
    """(3.4) sets the gradient of sum w D(X_i, mu_{c_i})^2 + sum_conf lambda w D(X_i, mu_j)^2
    to zero; that function is a convex quadratic, so (3.4) is its minimiser."""
    rng = np.random.default_rng(0)
    n, k, d = 25, 4, 3
    points = rng.normal(size=(n, d))
    sizes = rng.integers(1, 5, size=n).astype(float)
    labels = rng.integers(0, k, size=n)
    labels[:k] = np.arange(k)
    conf_cluster = rng.integers(0, k, size=9)
    conf_member = rng.integers(0, n, size=9)
    lam = 2.0 ** rng.integers(0, 5, size=9)
    conf_weight = sizes[conf_member] * lam

    def surrogate(flat):
        mu = flat.reshape(k, d)
        own = (sizes * ((points - mu[labels]) ** 2).sum(axis=1)).sum()
        conf = (conf_weight * ((points[conf_member] - mu[conf_cluster]) ** 2).sum(axis=1)).sum()
        return own + conf

    previous = rng.normal(size=(k, d))
    mu = _lcc_centers(points, sizes, labels, conf_cluster, conf_member, conf_weight, previous)
    for j in range(k):
        own = labels == j
        conf = conf_cluster == j
        grad = (2 * sizes[own, None] * (mu[j] - points[own])).sum(axis=0)
        grad += (2 * conf_weight[conf, None] * (mu[j] - points[conf_member[conf]])).sum(axis=0)
        np.testing.assert_allclose(grad, 0.0, atol=1e-9)
    numeric = minimize(surrogate, previous.ravel(), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(mu.ravel(), numeric, atol=1e-5)
    assert surrogate(mu.ravel()) <= surrogate(previous.ravel())
    for _ in range(20):
        assert surrogate(mu.ravel()) <= surrogate(mu.ravel() + rng.normal(scale=0.1, size=k * d))


def test_centre_update_keeps_a_centre_with_no_member_and_no_conflict():
    points = np.array([[0.0, 0.0], [2.0, 0.0]])
    previous = np.array([[9.0, 9.0], [1.0, 1.0], [-5.0, 3.0]])
    mu = _lcc_centers(points, np.ones(2), np.array([0, 0]), np.array([1]), np.array([1]),
                      np.array([3.0]), previous)
    np.testing.assert_allclose(mu, [[1.0, 0.0], [2.0, 0.0], [-5.0, 3.0]])


def _disjoint_pairs_instance(seed):
    """Cannot-links forming a matching: no object is in two pairs, so no move made for one
    pair can touch another and both ends of a pair sit at their nearest centre (swap >= 0)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 2))
    order = rng.permutation(30)
    cl = order[:16].reshape(8, 2)
    return X, Constraints.from_pairs(cl=cl, n_samples=30)


@pytest.mark.parametrize("seed", range(4))
def test_multiplier_rule_keeps_a_pair_violated_only_while_lambda_is_at_most_one(seed):
    """a - min(b, c) = (lambda - 1) swap with swap >= 0: with lambda_init = 1 a pair is kept
    violated at most once (then lambda = 2); with lambda_init > 1 never."""
    X, cons = _disjoint_pairs_instance(seed)
    est = LCC(3, lambda_init=1.0, random_state=seed).fit(X, constraints=cons)
    assert set(np.unique(est.multipliers_)) <= {1.0, 2.0}
    assert est.history_["n_conflicts"].sum() == int((est.multipliers_ == 2.0).sum())
    for strict_init in (1.5, None):  # None: the default (2), chosen so that costs, not ties, decide
        kwargs = {} if strict_init is None else {"lambda_init": strict_init}
        strict = LCC(3, random_state=seed, **kwargs).fit(X, constraints=cons)
        np.testing.assert_array_equal(strict.multipliers_, strict.lambda_init)
        assert strict.lambda_init > 1.0
        assert strict.history_["n_conflicts"].sum() == 0
    slow = LCC(3, lambda_init=0.25, random_state=seed).fit(X, constraints=cons)
    assert set(np.unique(slow.multipliers_)) <= {0.25, 0.5, 1.0, 2.0}


def test_each_multiplier_grows_by_alpha_per_deliberate_violation():
    X, cons = _disjoint_pairs_instance(7)
    est = LCC(3, lambda_init=0.01, alpha=3.0, random_state=7).fit(X, constraints=cons)
    exponents = np.log(est.multipliers_ / 0.01) / np.log(3.0)
    np.testing.assert_allclose(exponents, np.round(exponents), atol=1e-9)
    assert np.round(exponents).sum() == est.history_["n_conflicts"].sum()


def test_repeated_cannot_links_between_the_same_groups_share_one_multiplier():
    X = np.array([[0.0], [0.1], [0.2], [0.3], [5.0], [5.1]])
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(0, 2), (1, 3), (4, 5)], n_samples=6)
    est = LCC(2, random_state=0).fit(X, constraints=cons)
    assert est.multipliers_.shape == (3,)
    assert est.multipliers_[0] == est.multipliers_[1]
    assert est.n_violations_["ml"] == 0


def test_satisfies_consistent_constraints_that_k_means_and_must_links_alone_break():
    rng = np.random.default_rng(3)
    centres = np.array([[0, 0], [6, 0], [0, 6]])
    hidden = np.repeat(np.arange(3), 20)
    X = centres[hidden] + rng.normal(0, 2.5, size=(60, 2))  # overlapping groups
    pairs = np.unique(np.sort(rng.choice(60, size=(60, 2)), axis=1), axis=0)
    cons = Constraints.from_labels(hidden, pairs[pairs[:, 0] != pairs[:, 1]])
    # On well-separated groups (sd 1) neither k-means nor LCC with its cannot-links dropped broke
    # a constraint, so the test could not see LCC's cannot-link handling.
    assert cons.violations(KMeans(3, random_state=0).fit(X).labels_).total > 0
    must_links_only = LCC(3, random_state=0).fit(X, ml=cons.ml_pairs)
    assert cons.violations(must_links_only.labels_).n_cl > 0
    est = LCC(3, random_state=0).fit(X, constraints=cons)
    assert est.n_violations_["total"] == 0


def test_objective_is_the_kmeans_cost_with_the_returned_centres():
    X, cons = _disjoint_pairs_instance(2)
    est = LCC(3, random_state=2).fit(X, constraints=cons)
    direct = ((X - est.cluster_centers_[est.labels_]) ** 2).sum()
    assert est.objective_ == pytest.approx(direct)


def test_single_cluster_leaves_every_cannot_link_violated():
    X, cons = _disjoint_pairs_instance(1)
    est = LCC(1, random_state=0).fit(X, constraints=cons)
    assert est.n_violations_["cl"] == cons.n_cl
    np.testing.assert_allclose(est.cluster_centers_[0], X.mean(axis=0))


def test_cannot_link_inside_a_must_link_group_is_infeasible():
    X = np.arange(10, dtype=float).reshape(5, 2)
    with pytest.raises(InfeasibleConstraintsError, match=r"must-links already tie together"):
        LCC(2).fit(X, ml=[(0, 1), (1, 2)], cl=[(2, 0)])


@pytest.mark.parametrize(("params", "message"), [
    ({"alpha": 1.0}, r"alpha must be finite and > 1.0"),
    ({"lambda_init": 0.0}, r"lambda_init must be finite and > 0.0"),
    ({"max_no_improvement": 0}, r"max_no_improvement must be >= 1"),
    ({"init": "kmeans"}, r"Unknown init 'kmeans'; valid values are 'random', 'k-means\+\+'"),
])
def test_bad_parameters_are_rejected(params, message):
    X = np.arange(10, dtype=float).reshape(5, 2)
    with pytest.raises(InvalidParameterError, match=message):
        LCC(2, **params).fit(X, cl=[(0, 1)])


def test_time_limit_and_function_twin():
    X, cons = _disjoint_pairs_instance(5)
    labels, centers, info = lcc(X, 3, constraints=cons, time_limit=1e-9, random_state=0)
    assert info["status"] is Status.TIME_LIMIT
    assert info["n_iter"] == 1
    assert labels.shape == (30,) and centers.shape == (3, 2)


# --------------------------------------------------------------------------- best solution against the initial one
def _lloyd_fixed_point(X, centers):
    """Plain Lloyd iterations until the labels repeat (a reference, not ccopt's code)."""
    labels = None
    while True:
        new = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2).argmin(axis=1)
        if labels is not None and np.array_equal(new, labels):
            return centers
        labels = new
        centers = np.array([X[labels == j].mean(axis=0) for j in range(centers.shape[0])])


def test_lcc_does_not_return_the_callers_init_array():
    """When the initial labelling stays the best, ``cluster_centers_`` are those centres: a
    copy, not the caller's array (which they may go on to change)."""
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    init = np.array([[0.05], [5.05]])  # the means of the nearest-centre split: nothing improves
    with pytest.warns(ConvergenceWarning, match=r"^LCC stopped after max_iter=1 iterations"):
        est = LCC(2, init=init, max_iter=1).fit(X)
    assert est.best_iter_ == 0
    init[0, 0] = 99.0
    np.testing.assert_array_equal(est.cluster_centers_, [[0.05], [5.05]])


def test_lcc_single_cluster_iterations_are_not_improvements():
    """With k = 1 every iteration repeats the initial labelling and centre, so (V, O) ties
    with the initial (bestV, bestO) and line 37's strict ``<`` records no improvement."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) * 3
    ml = [(i, i + 1) for i in range(0, 60, 3)]  # weights 2: a weighted sum, as in (3.2)
    est = LCC(1, random_state=0).fit(X, ml=ml, cl=[(0, 100)])
    assert est.best_iter_ == 0
    assert not est.history_["improved"].any()
    assert est.objective_ == pytest.approx(((X - X.mean(axis=0)) ** 2).sum(), rel=1e-12)


def test_lcc_first_iteration_from_a_fixed_point_is_not_an_improvement():
    """From the centres of a Lloyd fixed point and with no cannot-link, iteration 1 assigns
    every object where the initial labelling put it: a tie with (bestV, bestO), not a new
    best (the two objectives must be summed the same way for the tie to show)."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, size=(150, 2)), rng.normal(6, 1, size=(150, 2))])
    X += np.random.default_rng(3).normal(scale=1e-3, size=X.shape)
    start = _lloyd_fixed_point(X, X[[0, 299]].copy())
    est = LCC(2, init=start, max_iter=3).fit(X)
    assert est.best_iter_ == 0
    assert not est.history_["improved"].any()
