"""KMeans on must-link super-instances, the k-means++ seeding, the distance table, and the
partition comparison the Lloyd-type loops stop on."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans as SkKMeans

from ccopt.cluster import KMeans
from ccopt.cluster._init_centers import kmeanspp, squared_distances
from ccopt.cluster._kmeans import _same_partition, kmeans
from ccopt.exceptions import (
    CcoptWarning,
    ConvergenceWarning,
    InfeasibleConstraintsError,
    InvalidParameterError,
)
from ccopt.metrics import wcss
from ccopt.status import Status


def _groups(n, ml):
    """Must-link groups by networkx (independent of ccopt's closure), smallest member first."""
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(map(tuple, ml))
    comps = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: c[0])
    component = np.empty(n, dtype=int)
    for g, members in enumerate(comps):
        component[members] = g
    return component, len(comps)


@pytest.fixture
def grouped():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(c, 0.8, size=(12, 2)) for c in ([0, 0], [5, 1], [2, 6])])
    ml = np.array([[0, 13], [13, 25], [3, 4], [30, 31], [31, 7], [15, 16]])
    return X, ml


def test_matches_scikit_learn_weighted_kmeans_on_super_instances(grouped):
    X, ml = grouped
    component, n_groups = _groups(len(X), ml)
    sizes = np.bincount(component)
    points = np.vstack([X[component == g].mean(axis=0) for g in range(n_groups)])
    init = points[[1, 9, 20]]
    ours = KMeans(3, init=init, tol=0.0).fit(X, ml=ml)
    ref = SkKMeans(3, init=init, n_init=1, tol=0.0, algorithm="lloyd").fit(points, sample_weight=sizes)
    np.testing.assert_array_equal(ours.labels_, ref.labels_[component])
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, atol=1e-10)
    assert ours.status_ is Status.CONVERGED
    assert ours.n_super_instances_ == n_groups


def test_must_links_kept_and_cannot_links_ignored(grouped):
    X, ml = grouped
    cl = np.array([[0, 1], [13, 14], [25, 26]])  # same-blob pairs: k-means will violate some
    without = KMeans(3, random_state=3).fit(X, ml=ml)
    with pytest.warns(CcoptWarning, match=r"^KMeans does not enforce cannot-links: .* ignores the 3 cannot-link\(s\)"):
        with_cl = KMeans(3, random_state=3).fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(without.labels_, with_cl.labels_)
    assert with_cl.n_violations_["ml"] == 0
    same = with_cl.labels_[cl[:, 0]] == with_cl.labels_[cl[:, 1]]
    assert with_cl.n_violations_["cl"] == int(same.sum())


def test_cannot_link_inside_a_must_link_group_is_no_error_for_kmeans():
    X = np.array([[0.0], [0.2], [0.4], [9.0]])
    with pytest.warns(CcoptWarning, match=r"^KMeans does not enforce cannot-links: .* ignores the 1 cannot-link\(s\)"):
        est = KMeans(2, random_state=0).fit(X, ml=[(0, 1), (1, 2)], cl=[(0, 2)])
    assert est.n_violations_ == {"ml": 0, "cl": 1, "total": 1}


def test_finds_the_enumerated_optimum_on_a_tiny_instance():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(8, 2)) * [3.0, 1.0]
    ml = np.array([[0, 5], [2, 7]])
    component, n_groups = _groups(8, ml)
    best = np.inf
    for assignment in itertools.product(range(2), repeat=n_groups):
        labels = np.asarray(assignment)[component]
        if len(set(assignment)) == 2:
            best = min(best, wcss(X, labels))
    est = KMeans(2, n_init=20, random_state=0).fit(X, ml=ml)
    assert est.inertia_ == pytest.approx(best)
    assert est.objective_ == pytest.approx(best)


def test_objective_is_the_wcss_with_respect_to_the_returned_centres(grouped):
    X, ml = grouped
    est = KMeans(3, random_state=1).fit(X, ml=ml)
    direct = ((X - est.cluster_centers_[est.labels_]) ** 2).sum()
    assert est.objective_ == pytest.approx(direct)


def test_empty_cluster_keeps_its_centre():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 0.0], [1.1, 0.0]])
    init = np.array([[0.0, 0.0], [1.0, 0.0], [50.0, 50.0]])
    with pytest.warns(ConvergenceWarning, match="1 empty cluster.*from this start"):
        est = KMeans(3, init=init).fit(X)
    np.testing.assert_array_equal(est.cluster_centers_[2], [50.0, 50.0])
    assert set(est.labels_.tolist()) == {0, 1}


def test_too_few_must_link_groups_is_rejected():
    X = np.arange(8, dtype=float).reshape(4, 2)
    with pytest.raises(InfeasibleConstraintsError, match=r"into 2 groups, fewer than n_clusters=3"):
        KMeans(3).fit(X, ml=[(0, 1), (2, 3)])


@pytest.mark.parametrize(("params", "message"), [
    ({"init": np.zeros((2, 2))}, r"init must have shape \(n_clusters, n_features\) = \(3, 2\)"),
    ({"init": "forgy"}, r"Unknown init 'forgy'; valid values are 'k-means\+\+'"),
    ({"n_init": 0}, r"n_init must be >= 1"),
    ({"max_iter": 2.5}, r"max_iter must be an integer"),
    ({"tol": -1.0}, r"tol must be finite and >= 0"),
    ({"time_limit": 0}, r"time_limit must be > 0"),
])
def test_bad_parameters_are_rejected(grouped, params, message):
    X, _ = grouped
    with pytest.raises(InvalidParameterError, match=message):
        KMeans(3, **params).fit(X)


@pytest.mark.parametrize("progress", [None, 0, 1])
def test_an_estimator_refuses_a_progress_that_is_not_a_bool(progress):
    line = np.array([[0.0], [0.1], [5.0], [5.1], [10.0], [10.1]])
    with pytest.raises(InvalidParameterError, match=rf"progress must be True, False or 'always', got {progress}"):
        KMeans(2, random_state=0, progress=progress).fit(line)


def test_time_limit_returns_the_run_so_far(grouped):
    X, ml = grouped
    est = KMeans(3, n_init=50, time_limit=1e-9, random_state=0).fit(X, ml=ml)
    assert est.status_ is Status.TIME_LIMIT
    assert est.n_violations_["ml"] == 0


def test_function_twin_returns_labels_centres_and_info(grouped):
    X, ml = grouped
    labels, centers, info = kmeans(X, 3, ml=ml, random_state=4)
    est = KMeans(3, random_state=4).fit(X, ml=ml)
    np.testing.assert_array_equal(labels, est.labels_)
    np.testing.assert_array_equal(centers, est.cluster_centers_)
    assert info["objective"] == est.objective_
    assert info["n_violations"] == est.n_violations_
    assert info["estimator"].labels_ is labels


def test_kmeanspp_picks_rows_and_never_zero_weight_points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    weights = np.zeros(40)
    chosen = [3, 17, 29]
    weights[chosen] = [1.0, 2.0, 5.0]
    centers, idx = kmeanspp(X, 3, np.random.default_rng(1), weights, return_indices=True)
    assert sorted(idx.tolist()) == chosen
    np.testing.assert_array_equal(centers, X[idx])
    again = kmeanspp(X, 3, np.random.default_rng(1), weights)
    np.testing.assert_array_equal(again, centers)


def test_squared_distances_match_the_definition():
    rng = np.random.default_rng(2)
    X, C = rng.normal(size=(25, 4)), rng.normal(size=(5, 4))
    expected = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_allclose(squared_distances(X, C), expected, atol=1e-12)
    assert (squared_distances(X, X[:3])[np.arange(3), np.arange(3)] >= 0).all()


def test_fewer_distinct_points_than_clusters_warns():
    with pytest.warns(ConvergenceWarning, match="2 empty cluster.*only 1 distinct point"):
        est = KMeans(3, random_state=0).fit(np.ones((10, 2)))
    assert np.unique(est.labels_).size == 1


# --------------------------------------------------------------------------- same partition, other numbers
@pytest.mark.parametrize(("old", "new", "same"), [
    ([0, 1, 1, 2], [0, 1, 1, 2], True),
    ([2, 1, 1, 0], [2, 0, 0, 1], True),
    ([0, 0, 1, 1], [0, 1, 1, 1], False),   # a cluster absorbed
    ([0, 1, 2, 2], [0, 0, 1, 1], False),   # two clusters merged, one split
    ([0, 0, 1, 1], [1, 1, 2, 2], True),    # same clusters, one number unused in both
])
def test_same_partition(old, new, same):
    assert _same_partition(np.array(old), np.array(new)) is same


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.data())
def test_same_partition_is_equality_of_the_first_appearance_numbering(old, data):
    new = data.draw(st.one_of(st.lists(st.integers(0, 3), min_size=len(old), max_size=len(old)),
                              st.permutations(range(4)).map(lambda perm: [perm[v] for v in old])))

    def first_appearance(labels):
        seen: dict[int, int] = {}
        return [seen.setdefault(v, len(seen)) for v in labels]

    assert _same_partition(np.array(old), np.array(new)) is (first_appearance(old) == first_appearance(new))
