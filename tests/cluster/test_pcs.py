"""Tests of KMeansS and PCS (Zhang, Wong, Xie): size terms, reductions, exact sizes, errors."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import entropy
from sklearn.cluster import KMeans as SklearnKMeans

from ccopt.cluster._pcs import (
    PCS,
    KMeansS,
    _align,
    _centroid_rule,
    _size_terms,
    kmeans_s,
    pcs,
)
from ccopt.cluster._transport import assign_exact_sizes
from ccopt.constraints import Constraints
from ccopt.exceptions import ClusteringDeadEndError, InvalidParameterError
from ccopt.status import Status


def _blobs(seed: int, sizes=(12, 8, 5), spread: float = 1.0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 3.5]])[: len(sizes)]
    X = np.vstack([rng.normal(c, spread, size=(m, 2)) for c, m in zip(centres, sizes, strict=True)])
    y = np.repeat(np.arange(len(sizes)), sizes)
    return X, y


def _dist(a, b) -> float:
    return float(np.sqrt(((a - b) ** 2).sum()))


def _terms_by_hand(X, labels, centers, sizes):
    """NO/FI/VFI and J_A, J_S, J_L written object by object from eqs. (6)-(18)."""
    n, k = X.shape[0], centers.shape[0]
    F = np.bincount(labels, minlength=k)
    by_rank = sorted(range(k), key=lambda h: (F[h], h))
    E = dict(zip(by_rank, sorted(sizes), strict=True))
    no, fi, vfi = {}, {}, {}
    for h in range(k):
        U = F[h] - E[h]
        if U < 0:
            scores = []
            for i in range(n):
                j = labels[i]
                if j != h:
                    a, b = _dist(X[i], centers[h]), _dist(X[i], centers[j])
                    scores.append((a * (a + b) / (b * _dist(centers[h], centers[j])), i))  # (13)
            no[h] = sorted(i for _, i in sorted(scores)[:-U])
        if U > 0:
            scores = []
            for i in np.flatnonzero(labels == h):
                best = min(_dist(X[i], centers[j]) * (_dist(X[i], centers[h]) + _dist(X[i], centers[j]))
                           / (_dist(X[i], centers[h]) * _dist(centers[h], centers[j]))
                           for j in range(k) if j != h)  # (16)
                scores.append((best, i))
            fi[h] = [i for _, i in sorted(scores)[:U]]
            rest = [i for i in np.flatnonzero(labels == h) if i not in fi[h]]
            vfi[h] = [2 * X[rest].mean(axis=0) - X[i] for i in fi[h]]  # (17)
    p = np.array([E[h] for h in range(k)]) / n
    q = F / n
    J_A = n * (0.5 * entropy(p, q) + 0.5 * entropy(q, p))  # (9)-(11)
    J_S = sum(((X[idx] - centers[h]) ** 2).sum() for h, idx in no.items())  # (15)
    J_L = sum(((np.array(z) - centers[h]) ** 2).sum() for h, z in vfi.items())  # (18)
    return E, no, fi, vfi, J_A, J_S, J_L


# ---------------------------------------------------------------------------- size terms
@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(0, 30), min_size=2, max_size=5), seed=st.integers(0, 1000))
def test_sorted_alignment_minimises_eq_6(counts, seed):
    counts = np.array(counts)
    k = counts.size
    targets = np.sort(np.random.default_rng(seed).integers(1, 30, size=k))
    aligned = _align(counts, targets)
    best = min(np.abs(counts - np.array(perm)).sum() for perm in itertools.permutations(targets))
    assert np.abs(counts - aligned).sum() == best
    assert sorted(aligned.tolist()) == targets.tolist()


@pytest.mark.parametrize("seed", range(8))
def test_size_terms_match_the_equations(seed):
    X, _ = _blobs(seed)
    rng = np.random.default_rng(seed + 50)
    centers = X[rng.choice(X.shape[0], 3, replace=False)] + rng.normal(0, 0.1, size=(3, 2))
    sq = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
    labels = sq.argmin(axis=1)
    sizes = [5, 9, 11]
    terms = _size_terms(X, labels, centers, sq, np.sort(sizes))
    E, no, fi, vfi, J_A, J_S, J_L = _terms_by_hand(X, labels, centers, sizes)
    assert terms.aligned.tolist() == [E[h] for h in range(3)]
    for h in range(3):
        assert sorted(terms.no[h].tolist()) == no.get(h, [])
        assert terms.fi[h].tolist() == fi.get(h, [])
        np.testing.assert_allclose(terms.vfi[h], np.array(vfi.get(h, np.empty((0, 2)))).reshape(-1, 2))
    assert terms.divergence == pytest.approx(J_A, rel=1e-9)
    assert terms.small == pytest.approx(J_S, rel=1e-9)
    assert terms.large == pytest.approx(J_L, rel=1e-9)


def test_empty_cluster_makes_divergence_infinite():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    centers = np.array([[0.0], [2.0], [50.0]])
    labels = np.array([0, 0, 1, 1])
    sq = (X - centers.T) ** 2
    terms = _size_terms(X, labels, centers, sq, np.array([1, 1, 2]))
    assert terms.divergence == np.inf
    assert terms.penalty(0.0, 1.0, 1.0) < np.inf  # alpha = 0 drops J_A
    assert terms.no[2].size == 1  # the empty cluster looks for one nearest out-class point


@pytest.mark.parametrize(("beta", "gamma"), [(1.0, 1.0), (0.5, 2.0), (0.0, 0.0)])
def test_centroid_rule_is_eq_19(beta, gamma):
    X, _ = _blobs(3)
    centers = np.array([[0.5, 0.5], [3.0, 0.0], [2.0, 2.5]])
    sq = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
    labels = sq.argmin(axis=1)
    terms = _size_terms(X, labels, centers, sq, np.array([4, 10, 11]))
    got = _centroid_rule(X, labels, centers, terms, beta, gamma)
    for h in range(3):
        num = X[labels == h].sum(axis=0) + beta * X[terms.no[h]].sum(axis=0) + gamma * terms.vfi[h].sum(axis=0)
        den = (labels == h).sum() + beta * terms.no[h].size + gamma * terms.vfi[h].shape[0]
        np.testing.assert_allclose(got[h], num / den)


# ---------------------------------------------------------------------------- reductions to k-means
def _lloyd_reference(X, init):
    return SklearnKMeans(init.shape[0], init=init, n_init=1, algorithm="lloyd", tol=0.0).fit(X)


@pytest.mark.parametrize("seed", range(3))
def test_kmeans_s_without_size_pull_is_kmeans(seed):
    """beta = gamma = 0: the centroid rule (19) is the mean, so KmeansS is Lloyd's k-means."""
    X, _ = _blobs(seed, spread=1.3)
    init = X[[0, 12, 20]]
    est = KMeansS(3, sizes=[10, 10, 5], beta=0.0, gamma=0.0, filter_refinement=False, init=init,
                  progress=False).fit(X)
    ref = _lloyd_reference(X, init)
    np.testing.assert_array_equal(est.labels_, ref.labels_)


def test_kmeans_s_with_the_kmeans_sizes_is_kmeans():
    """If the targets are the k-means sizes, U = 0 at the k-means fixed point: nothing moves."""
    X, _ = _blobs(4, spread=1.2)
    init = X[[1, 13, 22]]
    ref = _lloyd_reference(X, init)
    sizes = np.bincount(ref.labels_, minlength=3)
    est = KMeansS(3, sizes=sizes[::-1], init=init, progress=False).fit(X)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    assert est.objective_ == pytest.approx(ref.inertia_, rel=1e-9)  # J_A = J_S = J_L = 0


@pytest.mark.parametrize("with_pairs", [False, True])
def test_pcs_without_penalties_or_size_terms_is_kmeans(with_pairs):
    """No pairs (or weight 0) and alpha = beta = gamma = 0: J_PCS = WCSS/2, every Lloyd step
    is accepted and the visiting order no longer matters.

    With alpha > 0 this no longer holds: a k-means step that worsens the size divergence can
    be rejected by the J < J_last test of Fig. 3; with beta or gamma > 0 the centroids are
    pulled by the NO and VFI points.
    """
    X, y = _blobs(5, spread=1.3)
    ml, cl = _disjoint_pairs(y, 0, 8) if with_pairs else (None, None)
    init = X[[2, 14, 21]]
    est = PCS(3, sizes=[9, 9, 7], weight=0.0, alpha=0.0, beta=0.0, gamma=0.0,
              filter_refinement=False, init=init, progress=False).fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(est.labels_, _lloyd_reference(X, init).labels_)


# ---------------------------------------------------------------------------- exact sizes
def test_exact_assignment_is_the_cheapest_labelling_with_those_sizes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 2))
    centers = rng.normal(size=(3, 2))
    sq = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
    capacities = np.array([3, 1, 3])
    labels, _ = assign_exact_sizes(sq, capacities)
    assert np.bincount(labels, minlength=3).tolist() == capacities.tolist()
    best = min(sq[np.arange(7), list(lab)].sum() for lab in itertools.product(range(3), repeat=7)
               if np.bincount(lab, minlength=3).tolist() == capacities.tolist())
    assert sq[np.arange(7), labels].sum() == pytest.approx(best, rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), parts=st.lists(st.integers(1, 9), min_size=2, max_size=4))
def test_exact_mode_meets_the_sizes(seed, parts):
    n, k = sum(parts), len(parts)
    X = np.random.default_rng(seed).normal(size=(n, 2))
    est = KMeansS(k, sizes=parts, size_assignment="exact", random_state=seed, progress=False).fit(X)
    assert sorted(np.bincount(est.labels_, minlength=k).tolist()) == sorted(parts)
    np.testing.assert_array_equal(np.bincount(est.labels_, minlength=k), est.aligned_sizes_)
    history = np.asarray(est.objective_history_)  # size-constrained Lloyd: never increasing
    assert np.all(np.diff(history) <= 1e-9 * history[:-1])


# ---------------------------------------------------------------------------- PCS
def _disjoint_pairs(y, seed, m):
    """m pairs with no object in two pairs, labelled from y (ML same class, CL otherwise)."""
    idx = np.random.default_rng(seed).permutation(y.size)[: 2 * m].reshape(m, 2)
    same = y[idx[:, 0]] == y[idx[:, 1]]
    return idx[same], idx[~same]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 10))
def test_pcs_with_overwhelming_penalty_keeps_disjoint_pairs(seed, m):
    """Each object has at most one partner; whoever is visited later follows its partner."""
    X, y = _blobs(seed % 7, spread=1.5)
    ml, cl = _disjoint_pairs(y, seed, m)
    est = PCS(3, sizes=[12, 8, 5], weight=1e6, random_state=seed, progress=False).fit(X, ml=ml, cl=cl)
    assert est.n_violations_["total"] == 0


def test_pcs_objective_is_eq_20_of_the_result():
    X, y = _blobs(1, spread=1.4)
    ml, cl = _disjoint_pairs(y, 3, 8)
    sizes = [12, 8, 5]
    est = PCS(3, sizes=sizes, random_state=2, progress=False).fit(X, ml=ml, cl=cl)
    labels, centers = est.labels_, est.cluster_centers_
    weight = np.sqrt(X.shape[1])
    penalties = weight * (sum(labels[a] != labels[b] for a, b in ml) + sum(labels[a] == labels[b] for a, b in cl))
    _, _, _, _, J_A, J_S, J_L = _terms_by_hand(X, labels, centers, sizes)
    J = 0.5 * ((X - centers[labels]) ** 2).sum() + penalties + J_A + J_S + J_L
    assert est.objective_ == pytest.approx(J, rel=1e-9)
    assert est.objective_ == min(est.objective_history_)


def test_pcs_keeps_hard_constraints_at_zero_weight():
    X, _ = _blobs(2, spread=1.5)
    cons = Constraints.from_pairs(ml=[(0, 24), (5, 13)], cl=[(1, 2)], n_samples=X.shape[0],
                                  ml_hard=True, cl_hard=True)
    est = PCS(3, sizes=[12, 8, 5], weight=0.0, random_state=0, progress=False).fit(X, constraints=cons)
    assert est.n_violations_["total"] == 0


def test_order_of_sizes_does_not_matter():
    X, y = _blobs(6, spread=1.4)
    ml, cl = _disjoint_pairs(y, 1, 6)
    a = PCS(3, sizes=[12, 8, 5], random_state=3, progress=False).fit(X, ml=ml, cl=cl)
    b = PCS(3, sizes=[5, 12, 8], random_state=3, progress=False).fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    c = KMeansS(3, sizes=[12, 8, 5], random_state=3, progress=False).fit(X)
    d = KMeansS(3, sizes=[8, 5, 12], random_state=3, progress=False).fit(X)
    np.testing.assert_array_equal(c.labels_, d.labels_)


def test_same_seed_same_result():
    X, y = _blobs(7, spread=1.4)
    ml, cl = _disjoint_pairs(y, 2, 7)
    runs = [PCS(3, sizes=[12, 8, 5], n_init=2, random_state=seed, progress=False).fit(X, ml=ml, cl=cl)
            for seed in (4, 4, np.random.default_rng(4))]
    for other in runs[1:]:
        np.testing.assert_array_equal(runs[0].labels_, other.labels_)
        assert runs[0].objective_history_ == other.objective_history_


def test_time_limit_is_reported():
    X, y = _blobs(8, sizes=(40, 30, 20), spread=1.5)
    ml, cl = _disjoint_pairs(y, 0, 15)
    est = PCS(3, sizes=[40, 30, 20], time_limit=1e-9, random_state=0, progress=False).fit(X, ml=ml, cl=cl)
    assert est.status_ is Status.TIME_LIMIT
    assert est.labels_.shape == (90,) and set(est.labels_) <= {0, 1, 2}
    # What is returned is a real clustering: its WCSS, recomputed here, is the reported one.
    wcss = sum(((X[est.labels_ == c] - X[est.labels_ == c].mean(axis=0)) ** 2).sum()
               for c in np.unique(est.labels_))
    assert est.inertia_ == pytest.approx(wcss)


def test_function_twins_match_estimators():
    X, y = _blobs(9, spread=1.3)
    labels, centers, info = kmeans_s(X, 3, sizes=[12, 8, 5], random_state=1, progress=False)
    est = KMeansS(3, sizes=[12, 8, 5], random_state=1, progress=False).fit(X)
    np.testing.assert_array_equal(labels, est.labels_)
    assert info["objective"] == est.objective_
    ml, cl = _disjoint_pairs(y, 4, 5)
    labels, centers, info = pcs(X, 3, sizes=[12, 8, 5], ml=ml, cl=cl, random_state=1, progress=False)
    est = PCS(3, sizes=[12, 8, 5], random_state=1, progress=False).fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(labels, est.labels_)
    np.testing.assert_array_equal(centers, est.cluster_centers_)


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(("sizes", "message"), [
    (None, r"needs the target cluster sizes: pass sizes=\[\.\.\.\] with n_clusters=3"),
    ([12, 13], r"n_clusters=3 target sizes, got shape \(2,\)"),
    ([12.5, 7.5, 5], r"whole numbers of objects; sizes\[0\] = 12.5"),
    ([25, 0, 0], r"must be positive .*sizes\[1\] = 0"),
    ([12, 8, 4], "add up to 24, but X has n_samples=25"),
    (["a", "b", "c"], "must hold integers"),
])
@pytest.mark.parametrize("estimator", [KMeansS, PCS])
def test_bad_sizes_are_rejected(estimator, sizes, message):
    X, _ = _blobs(0)
    with pytest.raises(InvalidParameterError, match=message):
        estimator(3, sizes=sizes, progress=False).fit(X)


@pytest.mark.parametrize(("params", "message"), [
    ({"size_assignment": "closest"}, "Unknown size_assignment 'closest'"),
    ({"alpha": -1.0}, "alpha must be finite and >= 0"),
    ({"filter_refinement": "yes"}, "filter_refinement must be True or False"),
    ({"init": "farthest"}, "Unknown init 'farthest'"),
    ({"max_iter": 0}, "max_iter must be >= 1"),
])
def test_bad_parameters_are_rejected(params, message):
    X, _ = _blobs(0)
    with pytest.raises(InvalidParameterError, match=message):
        KMeansS(3, sizes=[12, 8, 5], progress=False, **params).fit(X)


def test_pcs_rejects_bad_threshold_and_weight():
    X, _ = _blobs(0)
    with pytest.raises(InvalidParameterError, match="threshold must be finite and >= 0"):
        PCS(3, sizes=[12, 8, 5], threshold=-0.1, progress=False).fit(X)
    with pytest.raises(InvalidParameterError, match="weight must be finite and >= 0"):
        PCS(3, sizes=[12, 8, 5], weight=float("nan"), progress=False).fit(X)


def test_kmeans_s_refuses_pairwise_constraints():
    X, _ = _blobs(0)
    with pytest.raises(InvalidParameterError, match="uses only the size constraint, but 1 pairwise"):
        KMeansS(3, sizes=[12, 8, 5], progress=False).fit(X, ml=[(0, 1)])


# ---------------------------------------------------------------- hard cannot-links: restarts
def _hard_path(n: int = 12):
    """Points in one cloud with a path of hard cannot-links: 2-colourable, but a greedy
    pass can strand an object between two neighbours already in different clusters."""
    X = np.random.default_rng(0).normal(0.0, 1.0, (n, 2))
    cl = [(i, i + 1) for i in range(n - 1)]
    return X, cl, Constraints.from_pairs([], cl, n_samples=n, cl_hard=True)


def _fit_pcs(X, cons, **params):
    return PCS(2, sizes=[6, 6], progress=False, **params).fit(X, constraints=cons)


def test_pcs_tries_the_next_run_after_a_run_blocked_by_hard_cannot_links():
    X, cl, cons = _hard_path()
    # With one run, seed 2's run is blocked; with six, that same run comes first (same
    # random stream) and a later one must give the answer.
    with pytest.raises(ClusteringDeadEndError, match=r"dead end in all n_init=1 restart"):
        _fit_pcs(X, cons, n_init=1, random_state=2)
    labels = _fit_pcs(X, cons, n_init=6, random_state=2).labels_
    assert all(labels[a] != labels[b] for a, b in cl)


def test_pcs_reports_how_many_runs_hard_cannot_links_blocked():
    X, _, cons = _hard_path()
    with pytest.raises(ClusteringDeadEndError, match=r"dead end in all n_init=6 restart.*n_init"):
        _fit_pcs(X, cons, n_init=6, random_state=0)


def test_pcs_time_limit_stops_passes_that_hard_cannot_links_all_block():
    # Hard cannot-links of the Groetzsch graph with k = 3 (it needs 4; no proof is cheap):
    # every pass is blocked, so only the time limit can end the run before max_iter.
    X = np.random.default_rng(0).normal(0.0, 1.0, (12, 2))
    edges = [tuple(sorted(edge)) for edge in nx.mycielski_graph(4).edges]
    cons = Constraints.from_pairs([], edges, n_samples=12, cl_hard=True)
    with pytest.raises(ClusteringDeadEndError, match="before time_limit expired"):
        PCS(3, sizes=[4, 4, 4], progress=False, filter_refinement=False, max_iter=10**7, time_limit=0.2,
            random_state=0).fit(X, constraints=cons)
