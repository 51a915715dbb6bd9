"""COP-kmeans (Wagstaff et al. 2001): hard constraints are never violated; dead ends are reported clearly.

The tiny-instance tests check against enumeration of every labelling and against a literal
transcription of the assignment step (Table 1 of Wagstaff et al.).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ccopt._timing import Deadline
from ccopt.cluster import COPKMeans, KMeans
from ccopt.cluster import _cop_kmeans as _cop_module
from ccopt.cluster._cop_kmeans import (
    _CopGraph,
    _DeadEnd,
    _greedy_pass,
    cop_kmeans,
    cop_kmeans_problem,
)
from ccopt.constraints import Constraints
from ccopt.exceptions import (
    ClusteringDeadEndError,
    ConvergenceWarning,
    InfeasibleConstraintsError,
)
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

from ._greedy_traps import dead_end_possible, path_gadgets
from ._references import (
    assert_centres_are_means,
    must_link_groups,
    nonempty_satisfying,
    satisfying,
    tiny_instances,
    wcss_to,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def feasible_instances(draw):
    """Data, k, and constraints read off a hidden labelling with at most k groups."""
    n = draw(st.integers(6, 24))
    k = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, draw(st.integers(1, k)), size=n)
    X = rng.normal(size=(n, 2)) * draw(st.sampled_from([0.3, 1.0, 4.0]))
    m = draw(st.integers(0, 2 * n))
    pairs = np.sort(rng.integers(0, n, size=(m, 2)), axis=1)
    pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    same = hidden[pairs[:, 0]] == hidden[pairs[:, 1]]
    return X, k, pairs[same], pairs[~same], seed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(feasible_instances())
def test_never_returns_a_labelling_that_violates_a_constraint(instance):
    X, k, ml, cl, seed = instance
    cons = Constraints.from_pairs(ml=ml, cl=cl, n_samples=len(X))
    try:
        problem = ClusteringProblem.create(X, k, cons)
    except InfeasibleConstraintsError as exc:  # fewer must-link groups than k
        assert "fewer than n_clusters" in str(exc)
        return
    try:
        est = COPKMeans(k, n_init=3, random_state=seed).fit(X, constraints=cons)
    except ClusteringDeadEndError:
        # The instance is feasible by construction; only a group with k cannot-linked groups
        # can be blocked (before, a COP-kmeans that always gave up passed this test).
        assert dead_end_possible(len(X), k, ml, cl)
        return
    assert est.n_violations_ == {"ml": 0, "cl": 0, "total": 0}
    assert cons.violations(est.labels_).total == 0
    labels = cop_kmeans_problem(problem, seed, n_init=3)
    assert cons.violations(labels).total == 0


def test_feasible_greedy_dead_end_raises_with_object_and_blocking_constraints():
    X, cl = path_gadgets(60)
    with pytest.raises(ClusteringDeadEndError) as info:
        COPKMeans(2, n_init=4, random_state=0).fit(X, cl=cl)
    message = str(info.value)
    assert "dead end in all n_init=4 restart(s)" in message
    assert "could join none of the 2 clusters" in message
    assert "cluster 0 by cl[" in message and "cluster 1 by cl[" in message
    assert "satisfiable (a labelling exists)" in message


def test_dead_end_message_names_constraints_that_really_block():
    X, cl = path_gadgets(60)
    cons = Constraints.from_pairs(cl=cl, n_samples=len(X))
    with pytest.raises(ClusteringDeadEndError, match=r"object (\d+) could join") as info:
        COPKMeans(2, n_init=1, random_state=1).fit(X, constraints=cons)
    obj = int(re.search(r"object (\d+) could join", str(info.value)).group(1))
    named = [int(r) for r in re.findall(r"by cl\[(\d+)\]", str(info.value))]
    assert len(named) == 2
    for row in named:
        assert obj in cons.pairs[row].tolist()


def test_infeasible_cannot_link_triangle_raises_infeasible_with_certificate():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    with pytest.raises(InfeasibleConstraintsError, match=r"3 objects need 3 clusters, only 2") as info:
        COPKMeans(2, random_state=0).fit(X, cl=[(0, 1), (1, 2), (0, 2)])
    assert sorted(info.value.certificate) == [0, 1, 2]


def test_cannot_link_inside_must_link_group_is_infeasible():
    X = np.arange(10, dtype=float).reshape(5, 2)
    with pytest.raises(InfeasibleConstraintsError, match=r"Cannot-link \(0, 2\) \[cl\[0\]\].*0 - 1 - 2"):
        COPKMeans(2).fit(X, ml=[(0, 1), (1, 2)], cl=[(0, 2)])


def test_without_constraints_it_is_lloyd_from_the_same_start():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(40, 3))
    init = X[[0, 10, 20]]
    cop = COPKMeans(3, init=init, tol=0.0).fit(X)
    km = KMeans(3, init=init, tol=0.0).fit(X)
    np.testing.assert_array_equal(cop.labels_, km.labels_)
    np.testing.assert_allclose(cop.cluster_centers_, km.cluster_centers_)


def test_recovers_separated_groups_and_moves_must_link_groups_as_one():
    rng = np.random.default_rng(3)
    centres = np.array([[0, 0], [6, 0], [0, 6]])
    hidden = np.repeat(np.arange(3), 15)
    X = centres[hidden] + rng.normal(0, 0.6, size=(45, 2))
    # A must-link that drags object 0 to group 1: it has to move with object 20.
    ml = np.array([[0, 20], [1, 2]])
    cl = np.array([[3, 16], [17, 33], [31, 4]])
    est = COPKMeans(3, random_state=0).fit(X, ml=ml, cl=cl)
    assert est.labels_[0] == est.labels_[20]
    assert est.n_violations_["total"] == 0
    assert est.status_ is Status.CONVERGED
    rest = np.setdiff1d(np.arange(45), [0])
    # Up to a renaming of clusters, the other objects are in their hidden groups.
    mapping = {h: est.labels_[hidden == h][1] for h in range(3)}
    assert all(est.labels_[i] == mapping[hidden[i]] for i in rest)


def test_a_cycle_of_labellings_ends_the_run_without_a_warning(recwarn):
    """Found by hypothesis: with this visiting order the greedy pass alternates between
    labellings for ever; the run stops at the first repeat instead of spending max_iter."""
    X = np.array([[0.35404968, 0.52303356], [-0.05306161, 0.28432639], [0.16068873, 0.07134128],
                  [0.24338584, 0.09065608], [0.5394156, 0.21170688], [-0.14474199, 0.24572514],
                  [0.28128416, -0.54276454], [0.09961906, -0.00444334], [0.00119048, -0.33634777],
                  [-0.37613228, 0.39333728], [0.42856447, 0.46298905]])
    cons = Constraints.from_pairs(ml=[(0, 2), (0, 5), (2, 5)], cl=[(0, 4), (2, 10), (3, 6)],
                                  n_samples=11)
    est = COPKMeans(2, n_init=3, random_state=60).fit(X, constraints=cons)
    assert est.status_ is Status.STAGNATION
    assert est.n_iter_ < 20
    assert est.n_violations_["total"] == 0
    assert not recwarn.list


def test_empty_cluster_keeps_its_centre():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 0.0], [1.1, 0.0]])
    init = np.array([[0.0, 0.0], [1.0, 0.0], [50.0, 50.0]])
    with pytest.warns(ConvergenceWarning, match=r"1 empty cluster\(s\) of n_clusters=3 \(cluster\(s\) \[2\]\)"):
        est = COPKMeans(3, init=init).fit(X, cl=[(0, 2)])
    np.testing.assert_array_equal(est.cluster_centers_[2], [50.0, 50.0])


def test_problem_kernel_honours_a_deadline_and_returns_labels(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    problem = ClusteringProblem.create(X, 3, ml=[(0, 1)], cl=[(1, 2), (2, 3)])
    starts = []  # one k-means++ start per restart
    original = _cop_module.kmeanspp
    monkeypatch.setattr(_cop_module, "kmeanspp", lambda *args, **kw: starts.append(None) or original(*args, **kw))
    labels = cop_kmeans_problem(problem, np.random.default_rng(0), Deadline(1e-9), n_init=50)
    assert labels.shape == (30,)
    assert problem.constraints.violations(labels).total == 0
    # The expired deadline leaves the first restart only (the test checked the labels alone, and
    # passed with the deadline ignored and all 50 restarts run).
    assert len(starts) == 1
    starts.clear()
    cop_kmeans_problem(problem, np.random.default_rng(0), n_init=50)
    assert len(starts) == 50


def test_same_generator_state_same_labels():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 2))
    problem = ClusteringProblem.create(X, 3, cl=[(1, 2), (2, 3), (5, 9)])
    first = cop_kmeans_problem(problem, 12)
    second = cop_kmeans_problem(problem, np.random.default_rng(12))
    np.testing.assert_array_equal(first, second)


def test_function_twin():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(20, 2))
    labels, centers, info = cop_kmeans(X, 2, cl=[(0, 1)], random_state=0)
    assert labels[0] != labels[1]
    assert info["n_violations"]["total"] == 0
    assert info["estimator"].n_dead_ends_ == 0
    # The twin is the estimator: the same labels, centres and objective for the same seed.
    est = COPKMeans(2, random_state=0).fit(X, cl=[(0, 1)])
    np.testing.assert_array_equal(labels, est.labels_)
    np.testing.assert_array_equal(centers, est.cluster_centers_)
    assert info["objective"] == est.objective_


# --------------------------------------------------------------------------- against enumeration and Table 1
@SETTINGS
@given(tiny_instances())
def test_cop_never_returns_a_violating_labelling_and_raises_when_none_exists(instance):
    X, k, ml, cl, rng = instance
    n = len(X)
    seed = int(rng.integers(2**31))
    feasible = satisfying(n, k, ml, cl)
    nonempty = nonempty_satisfying(n, k, ml, cl)
    try:
        est = COPKMeans(k, n_init=2, random_state=seed).fit(X, ml=ml, cl=cl)
    except InfeasibleConstraintsError:
        assert len(nonempty) == 0  # only raised with a proof
        return
    except ClusteringDeadEndError:
        # The greedy order may fail on a satisfiable set, but only where a group has k
        # cannot-linked groups (a COP-kmeans that always gave up would pass otherwise).
        assert dead_end_possible(n, k, ml, cl)
        return
    assert len(feasible), "returned a labelling although none satisfies the constraints"
    labels = est.labels_
    assert all(labels[i] == labels[j] for i, j in ml)
    assert all(labels[i] != labels[j] for i, j in cl)
    assert est.n_violations_ == {"ml": 0, "cl": 0, "total": 0}
    wcss = wcss_to(X, labels, est.cluster_centers_)
    assert est.objective_ == pytest.approx(wcss, rel=1e-12, abs=1e-12)
    assert est.inertia_ == pytest.approx(est.objective_, rel=1e-12, abs=1e-12)
    assert_centres_are_means(X, labels, est.cluster_centers_)
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
@given(tiny_instances(), st.booleans())
def test_cop_pass_is_table_1_over_must_link_groups(instance, integer_costs):
    """The vectorised pass (only cannot-linked groups visited one by one) equals the fully
    sequential pass of the paper in any interleaving; integer costs exercise the ties."""
    X, k, ml, cl, rng = instance
    n = len(X)
    cons = Constraints.from_pairs(ml=ml, cl=cl, n_samples=n)
    groups = must_link_groups(n, ml)
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


def test_cop_run_whose_clusters_only_swap_numbers_has_converged():
    # From these centres the greedy pass puts object 1 with 3's centre and 3 with the centre
    # of {1, 2}: the clusters {0}, {1, 2}, {3} come back with clusters 0 and 1 swapped on
    # every pass. Same clusters under other numbers are convergence, not 'stagnation' after
    # a full extra cycle.
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
