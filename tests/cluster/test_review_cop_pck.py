"""Review of COP-kmeans (Wagstaff et al. 2001) and PCKmeans (Basu et al. 2004) on tiny instances.

Every expected value comes from a computation written out here: enumeration of all
``k ** n`` labellings, a literal transcription of the assignment step of each paper
(Table 1 of Wagstaff et al.; step 2a of Basu et al.'s PCKMeans), Lloyd's iteration, or a
hand count. ``n <= 7`` and ``k <= 3`` keep the enumeration at most 2187 labellings.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ccopt.cluster import COPKMeans, PCKMeans
from ccopt.cluster._cop_kmeans import _CopGraph, _DeadEnd, _greedy_pass
from ccopt.cluster._pckmeans import _neighbourhood_centers, _PCKModel
from ccopt.constraints import CL, ML, Constraints, _cannot_links_in_chains
from ccopt.exceptions import (
    CcoptWarning,
    ClusteringDeadEndError,
    ConflictingConstraintError,
    ConvergenceWarning,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
)
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

from ._greedy_traps import dead_end_possible

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- independent helpers
def _groups(n: int, ml) -> np.ndarray:
    """Must-link components by union-find, numbered by their smallest object."""
    parent = list(range(n))

    def root(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a, b in ml:
        parent[root(int(a))] = root(int(b))
    number: dict[int, int] = {}
    return np.array([number.setdefault(root(i), len(number)) for i in range(n)])


def _all_labellings(n: int, k: int) -> np.ndarray:
    return np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64).reshape(-1, n)


def _satisfying(n: int, k: int, ml, cl) -> np.ndarray:
    """Every labelling into ``k`` clusters (empty ones allowed) that keeps all constraints."""
    labs = _all_labellings(n, k)
    ok = np.ones(len(labs), dtype=bool)
    for i, j in ml:
        ok &= labs[:, i] == labs[:, j]
    for i, j in cl:
        ok &= labs[:, i] != labs[:, j]
    return labs[ok]


def _nonempty_satisfying(n: int, k: int, ml, cl) -> np.ndarray:
    """The labellings of :func:`_satisfying` that use all ``k`` clusters."""
    feasible = _satisfying(n, k, ml, cl)
    return feasible[[np.unique(lab).size == k for lab in feasible]]


def _hard_pairs(cons: Constraints):
    """The hard must-link and hard cannot-link pairs of ``cons``: the only rows that block."""
    hard_ml = cons.hard & (cons.kinds == ML)
    hard_cl = cons.hard & (cons.kinds == CL)
    return cons.pairs[hard_ml], cons.pairs[hard_cl]


def _wcss_to(X, labels, centers) -> float:
    return float(sum(((X[i] - centers[labels[i]]) ** 2).sum() for i in range(len(X))))


def _pck_objective(X, labels, centers, cons: Constraints, weight: float) -> float:
    """Basu et al.'s J: half the squared distances plus the penalty of each violated soft pair."""
    value = 0.5 * _wcss_to(X, labels, centers)
    for (i, j), kind, w, hard in zip(cons.pairs, cons.kinds, cons.weights, cons.hard, strict=True):
        same = labels[i] == labels[j]
        if not hard and (same if kind == CL else not same):
            value += weight * w
    return value


def _assert_centres_are_means(X, labels, centers):
    for h in np.unique(labels):
        np.testing.assert_allclose(centers[h], X[labels == h].mean(axis=0), rtol=1e-12, atol=1e-12)


@st.composite
def _tiny(draw, *, ml_share: float = 0.4):
    """Up to 7 points, k <= 3, any pairs: infeasible sets are drawn as often as feasible ones."""
    n = draw(st.integers(2, 7))
    k = draw(st.integers(1, min(3, n)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(n, 2))
    pairs = [(i, j) for i, j in itertools.combinations(range(n), 2) if rng.random() < 0.35]
    pairs = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    is_ml = rng.random(len(pairs)) < ml_share
    return X, k, pairs[is_ml], pairs[~is_ml], rng


# --------------------------------------------------------------------------- COP-kmeans
@SETTINGS
@given(_tiny())
def test_cop_never_returns_a_violating_labelling_and_raises_when_none_exists(instance):
    X, k, ml, cl, rng = instance
    n = len(X)
    seed = int(rng.integers(2**31))
    feasible = _satisfying(n, k, ml, cl)
    nonempty = _nonempty_satisfying(n, k, ml, cl)
    try:
        est = COPKMeans(k, n_init=2, random_state=seed).fit(X, ml=ml, cl=cl)
    except InfeasibleConstraintsError:
        assert len(nonempty) == 0  # only raised with a proof
        return
    except ClusteringDeadEndError:
        # The greedy order may fail on a satisfiable set, but only where a group has k
        # cannot-linked groups (before, a COP-kmeans that always gave up passed this test).
        assert dead_end_possible(n, k, ml, cl)
        return
    assert len(feasible), "returned a labelling although none satisfies the constraints"
    labels = est.labels_
    assert all(labels[i] == labels[j] for i, j in ml)
    assert all(labels[i] != labels[j] for i, j in cl)
    assert est.n_violations_ == {"ml": 0, "cl": 0, "total": 0}
    wcss = _wcss_to(X, labels, est.cluster_centers_)
    assert est.objective_ == pytest.approx(wcss, rel=1e-12, abs=1e-12)
    assert est.inertia_ == pytest.approx(est.objective_, rel=1e-12, abs=1e-12)
    _assert_centres_are_means(X, labels, est.cluster_centers_)
    again = COPKMeans(k, n_init=2, random_state=seed).fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(again.labels_, labels)
    np.testing.assert_array_equal(again.cluster_centers_, est.cluster_centers_)


def _table1_pass(cost, groups, cl, order):
    """Table 1 of Wagstaff et al., step 2, over must-link groups visited in ``order``.

    A group goes to the cheapest cluster (lower index on a tie) that holds no cannot-link
    partner of its members already placed in this pass; ``None`` when every cluster is
    blocked (the paper's "fail").
    """
    k = cost.shape[1]
    placed = np.full(cost.shape[0], -1)
    for g in order:
        for h in sorted(range(k), key=lambda c: (cost[g, c], c)):
            blocked = any((groups[i] == g and placed[groups[j]] == h)
                          or (groups[j] == g and placed[groups[i]] == h) for i, j in cl)
            if not blocked:
                placed[g] = h
                break
        else:
            return None
    return placed


@SETTINGS
@given(_tiny(), st.booleans())
def test_cop_pass_is_table_1_over_must_link_groups(instance, integer_costs):
    """The vectorised pass (only cannot-linked groups visited one by one) equals the fully
    sequential pass of the paper in any interleaving; integer costs exercise the ties."""
    X, k, ml, cl, rng = instance
    n = len(X)
    cons = Constraints.from_pairs(ml=ml, cl=cl, n_samples=n)
    groups = _groups(n, ml)
    assume(all(groups[i] != groups[j] for i, j in cl))
    closure = cons.closure
    np.testing.assert_array_equal(closure.component, groups)
    n_groups = int(groups.max()) + 1
    if integer_costs:
        cost = rng.integers(0, 3, size=(n_groups, k)).astype(float)
    else:
        cost = rng.random((n_groups, k))
    graph = _CopGraph(closure, cons.cl_indices)
    order = rng.permutation(graph.m)
    got = _greedy_pass(cost, graph, order)
    visit = graph.nodes[order].tolist()
    free = [g for g in range(n_groups) if g not in visit]
    full = list(visit)
    for g in free:  # groups without a cannot-link, at random places in the order
        full.insert(int(rng.integers(len(full) + 1)), g)
    expected = _table1_pass(cost, groups, cl, full)
    if expected is None:
        assert isinstance(got, _DeadEnd)
    else:
        np.testing.assert_array_equal(got, expected)


# --------------------------------------------------------------------------- PCKmeans
@st.composite
def _pck_tiny(draw, *, hard_share: float = 0.0):
    X, k, ml, cl, rng = draw(_tiny(ml_share=0.5))
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
    groups = _groups(len(X), hard_ml)
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
    before = _pck_objective(X, previous[groups], centers, cons, weight)
    after = _pck_objective(X, got[groups], centers, cons, weight)
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            est = PCKMeans(k, weight=weight, init=init, n_init=2, random_state=seed).fit(
                X, constraints=cons)
        except InfeasibleConstraintsError:
            assert len(_nonempty_satisfying(len(X), k, *_hard_pairs(cons))) == 0  # only raised with a proof
            return
        except ClusteringDeadEndError:
            assert dead_end_possible(len(X), k, *_hard_pairs(cons))
            return
        again = PCKMeans(k, weight=weight, init=init, n_init=2, random_state=seed).fit(
            X, constraints=cons)
    labels = est.labels_
    assert not cons.violations(labels).violated[cons.hard].any()
    direct = _pck_objective(X, labels, est.cluster_centers_, cons, weight)
    assert est.objective_ == pytest.approx(direct, rel=1e-12, abs=1e-12)
    _assert_centres_are_means(X, labels, est.cluster_centers_)
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
    assert est.objective_ == pytest.approx(0.5 * _wcss_to(X, labels, centers), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(16))
def test_neighbourhood_init_never_takes_the_same_object_twice(seed):
    # One neighbourhood {0, 1, 2}; object 3 is cannot-linked to it, so it is the second
    # centre. No object is left outside the neighbourhood for the third: before the fix it
    # was drawn among all four objects and was object 3 again for 7 of these 16 seeds; the
    # fit then kept cluster 2 empty (J = 5/3 instead of 5/4 with three clusters).
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
    problem = ClusteringProblem.create(X, 3, ml=[(0, 1), (0, 2)], cl=[(2, 3)],
                                       require_closure=False)
    centers = _neighbourhood_centers(problem, np.random.default_rng(seed))
    np.testing.assert_allclose(centers[0], [1.0 / 3.0, 2.0 / 3.0])
    np.testing.assert_array_equal(centers[1], X[3])
    assert any(np.array_equal(centers[2], X[i]) for i in (0, 1, 2))


# --------------------------------------------------------------------------- bad input
X_BAD = np.arange(12.0).reshape(6, 2)


@pytest.mark.parametrize("cls", [COPKMeans, PCKMeans])
@pytest.mark.parametrize(("k", "X", "fit_kw", "error", "match"), [
    (2, X_BAD, {"ml": [(0, 6)]}, InvalidConstraintError,
     r"out of range for n_samples=6 .*\(0, 6\)"),
    (2, X_BAD, {"cl": [(-1, 2)]}, InvalidConstraintError, r"negative object indices"),
    (2, X_BAD, {"cl": [(3, 3)]}, InvalidConstraintError,
     r"self-pairs i == j in cl\[0\] = \(3, 3\)"),
    (2, np.where(X_BAD == 5.0, np.nan, X_BAD), {}, InvalidDataError,
     r"X contains NaN at row 2, column 1"),
    (7, X_BAD, {}, InvalidParameterError, r"n_samples=6 should be >= n_clusters=7"),
    (2, X_BAD, {"ml": [(0, 1)], "cl": [(1, 0)]}, ConflictingConstraintError,
     r"must-link in ml\[0\] and cannot-link"),
])
def test_bad_input_raises_the_specific_error(cls, k, X, fit_kw, error, match):
    with pytest.raises(error, match=match):
        cls(k, random_state=0).fit(X, **fit_kw)


@pytest.mark.parametrize("weight", [-0.5, np.nan, np.inf])
def test_pck_refuses_a_bad_penalty_weight(weight):
    with pytest.raises(InvalidParameterError, match=r"weight must be finite and >= 0"):
        PCKMeans(2, weight=weight).fit(X_BAD, cl=[(0, 1)])


def test_a_negative_constraint_weight_is_refused_before_any_estimator_sees_it():
    with pytest.raises(InvalidConstraintError,
                       match=r"weights must be finite and >= 0; bad values in row 0 = -1.0"):
        Constraints([(0, 1)], [CL], weights=[-1.0], n_samples=6)


def _overflow_case():
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    cons = Constraints([(0, 1), (1, 2), (0, 2)], [ML, CL, ML], weights=2.0, n_samples=4)
    return X, cons


def test_pck_refuses_penalties_that_overflow_float64():
    # weight and weights are finite, their product is not: the costs became inf - inf = nan,
    # no run was ever kept, and fit died with AttributeError ('NoneType' has no 'super_index').
    X, cons = _overflow_case()
    with pytest.raises(InvalidParameterError, match=r"penalties overflow float64: weight=1e\+308"):
        PCKMeans(2, weight=1e308, random_state=0).fit(X, constraints=cons)


def test_pck_huge_but_representable_penalties_still_fit():
    # The three constraints contradict each other, so every labelling pays at least one
    # penalty of 1e300 * 2; the distance term is lost in its rounding.
    X, cons = _overflow_case()
    with pytest.warns(ConvergenceWarning, match=r"1 empty cluster\(s\) of n_clusters=2"):
        est = PCKMeans(2, weight=1e300, random_state=0).fit(X, constraints=cons)
    best = min(_pck_objective(X, lab, np.array([[0.0], [0.0]]), cons, 1e300)
               for lab in _all_labellings(4, 2))
    assert best == 2e300
    assert est.objective_ == pytest.approx(best, rel=1e-12)


def test_cop_run_whose_clusters_only_swap_numbers_has_converged():
    # From these centres the greedy pass puts object 1 with 3's centre and 3 with the centre
    # of {1, 2}: the clusters {0}, {1, 2}, {3} come back with clusters 0 and 1 swapped on
    # every pass. The run was reported 'stagnation' after a full extra cycle.
    X = np.array([[-0.533531464905991, 0.8062589990324183], [1.2181597416544145, 0.380258394002888],
                  [1.3038221997299253, -0.63244165615455], [0.894456340270809, 0.25428886493433117]])
    init = np.array([[2.261422572003528, 1.5809877466893978], [0.9170648961154307, -1.0654804406252794],
                     [-1.9530050571049367, -0.20850471113723648]])
    cl = [(0, 2), (0, 3), (1, 3), (2, 3)]
    est = COPKMeans(3, init=init, tol=0.0, random_state=623107957).fit(X, cl=cl)
    assert est.status_ is Status.CONVERGED
    assert est.n_iter_ == 2
    groups = {frozenset(np.flatnonzero(est.labels_ == c).tolist()) for c in range(3)}
    assert groups == {frozenset({0}), frozenset({1, 2}), frozenset({3})}
    for c in range(3):
        np.testing.assert_allclose(est.cluster_centers_[c], X[est.labels_ == c].mean(axis=0))


@pytest.mark.parametrize(("old", "new", "same"), [
    ([0, 1, 1, 2], [0, 1, 1, 2], True),
    ([2, 1, 1, 0], [2, 0, 0, 1], True),
    ([0, 0, 1, 1], [0, 1, 1, 1], False),   # a cluster absorbed
    ([0, 1, 2, 2], [0, 0, 1, 1], False),   # two clusters merged, one split
    ([0, 0, 1, 1], [1, 1, 2, 2], True),    # same clusters, one number unused in both
])
def test_same_partition(old, new, same):
    from ccopt.cluster._kmeans import _same_partition

    assert _same_partition(np.array(old), np.array(new)) is same


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.data())
def test_same_partition_is_equality_of_the_first_appearance_numbering(old, data):
    from ccopt.cluster._kmeans import _same_partition

    new = data.draw(st.one_of(st.lists(st.integers(0, 3), min_size=len(old), max_size=len(old)),
                              st.permutations(range(4)).map(lambda perm: [perm[v] for v in old])))

    def first_appearance(labels):
        seen: dict[int, int] = {}
        return [seen.setdefault(v, len(seen)) for v in labels]

    assert _same_partition(np.array(old), np.array(new)) is (first_appearance(old) == first_appearance(new))
