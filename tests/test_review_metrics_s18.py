"""Review checks of ccopt.metrics, k-means++ seeding and the fixed-column reduction.

Each metric is compared with an independent reference: scikit-learn where it has the
metric, plain loops over the definitions otherwise.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ccopt import metrics
from ccopt._reduction import reduce_fixed
from ccopt.cluster._init_centers import kmeanspp, squared_distances
from ccopt.constraints import Constraints
from ccopt.exceptions import InfeasibleConstraintsError, InvalidParameterError

# Labels: negative, non-contiguous and very large values, lengths from 1.
_values = st.one_of(st.integers(-4, 4), st.sampled_from([-(2**62), 2**62, 10**18]))
labelings = st.integers(1, 20).flatmap(
    lambda n: st.tuples(st.lists(_values, min_size=n, max_size=n), st.lists(_values, min_size=n, max_size=n)))


def _rand_by_pairs(true, pred) -> float:
    n = len(true)
    if n < 2:
        return 1.0
    agree = sum((true[i] == true[j]) == (pred[i] == pred[j]) for i, j in itertools.combinations(range(n), 2))
    return agree / (n * (n - 1) / 2)


# ----------------------------------------------------------------------------- partitions
@given(labelings)
@settings(max_examples=80, deadline=None)
def test_partition_scores_against_references(pair):
    true, pred = (np.array(p) for p in pair)
    assert metrics.rand_score(true, pred) == pytest.approx(_rand_by_pairs(true.tolist(), pred.tolist()), abs=1e-12)
    assert metrics.rand_score(true, pred) == pytest.approx(skm.rand_score(true, pred), abs=1e-12)
    assert metrics.adjusted_rand_score(true, pred) == pytest.approx(skm.adjusted_rand_score(true, pred), abs=1e-12)
    assert metrics.normalized_mutual_info_score(true, pred) == pytest.approx(
        skm.normalized_mutual_info_score(true, pred, average_method="arithmetic"), abs=1e-12)
    for method in ("geometric", "min", "max"):
        assert metrics.normalized_mutual_info_score(true, pred, average_method=method) == pytest.approx(
            skm.normalized_mutual_info_score(true, pred, average_method=method), abs=1e-12)


@pytest.mark.parametrize(("true", "pred", "expected"), [
    ([7], [-3], 1.0),                               # one object: no pair to disagree on
    ([1] * 6, list(range(6)), 0.0),                 # one cluster against all singletons
    ([2**63 - 1, 0, 2**63 - 1], [5, -5, 5], 1.0),   # extreme int64 labels
    ([2**70, 0, 2**70], [1, 2, 1], 1.0),            # beyond int64: object labels
])
def test_rand_score_edge_partitions(true, pred, expected):
    assert metrics.rand_score(true, pred) == expected


# ----------------------------------------------------------------------------- objectives
@given(st.integers(1, 15).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([-3, 0, 5, 10**15]), min_size=n, max_size=n),
    st.lists(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=2), min_size=n, max_size=n))))
@settings(max_examples=60, deadline=None)
def test_wcss_against_a_loop(case):
    labels, X = np.array(case[0]), np.array(case[1])
    expected = 0.0
    for c in set(labels.tolist()):
        members = X[labels == c]
        expected += sum(float(((x - members.mean(axis=0)) ** 2).sum()) for x in members)
    assert metrics.wcss(X, labels) == pytest.approx(expected, rel=1e-9, abs=1e-6)


# ----------------------------------------------------------------------------- detection
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=30),
       st.sampled_from([0.0, 1.0, math.nan]))
@settings(max_examples=80, deadline=None)
def test_detection_scores_follow_the_papers_definitions(rows, zero_division):
    truth, pred = [r[0] for r in rows], [r[1] for r in rows]
    s = metrics.detection_scores(truth, pred, zero_division=zero_division)
    tn = sum(t and p for t, p in rows)          # erroneous predicted erroneous
    fn = sum((not t) and p for t, p in rows)    # correct predicted erroneous
    fp = sum(t and not p for t, p in rows)      # erroneous predicted correct
    assert (s.tn, s.fn, s.fp, s.tp) == (tn, fn, fp, len(rows) - tn - fn - fp)

    def same(a, b):
        return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)

    assert same(s.precision, tn / (tn + fn) if tn + fn else zero_division)
    assert same(s.recall, tn / (tn + fp) if tn + fp else zero_division)
    assert same(s.f1, 2 * tn / (2 * tn + fn + fp) if 2 * tn + fn + fp else zero_division)


def test_detection_scores_reject_ragged_input_with_a_ccopt_error():
    # Regression: numpy's ValueError for a ragged list escaped instead of InvalidParameterError.
    with pytest.raises(InvalidParameterError, match="erroneous could not be read as a 1-D array"):
        metrics.detection_scores([[1], [1, 0]], [True, False])
    with pytest.raises(InvalidParameterError, match="predicted_erroneous could not be read as a 1-D array"):
        metrics.detection_scores([True, False], [[1], [1, 0]])


# ----------------------------------------------------------------------------- k-means++
def _greedy_pair_probabilities(X, w):
    """Exact law of the first two centres of greedy k-means++ with 2 candidates (k = 2)."""
    D = ((X[:, None] - X[None]) ** 2).sum(axis=-1)
    n = X.shape[0]
    probs = {}
    for first in range(n):
        q = w * D[first] / (w * D[first]).sum()
        potential = np.array([(w * np.minimum(D[first], D[c])).sum() for c in range(n)])
        for a, b in itertools.product(range(n), repeat=2):
            kept = a if potential[a] <= potential[b] else b  # argmin keeps the first on ties
            probs[first, kept] = probs.get((first, kept), 0.0) + w[first] / w.sum() * q[a] * q[b]
    return probs


def test_kmeanspp_draws_the_greedy_weighted_law():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 3.0], [4.0, 4.0]])
    w = np.array([1.0, 3.0, 0.5, 2.0])
    probs = _greedy_pair_probabilities(X, w)
    n_draws = 3000
    counts = dict.fromkeys(probs, 0)
    for seed in range(n_draws):
        _, idx = kmeanspp(X, 2, np.random.default_rng(seed), w, return_indices=True)
        counts[tuple(idx.tolist())] += 1  # a KeyError would be a pair of probability 0
    keys = [key for key in probs if probs[key] > 0]
    assert sum(counts[key] for key in keys) == n_draws
    expected = np.array([probs[key] for key in keys]) * n_draws
    # Pool cells expected below 5 draws for the chi-square test.
    small = expected < 5
    observed = np.array([counts[key] for key in keys])
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    first = np.bincount([key[0] for key in keys for _ in range(counts[key])], minlength=4)
    assert stats.chisquare(first, w / w.sum() * n_draws).pvalue > 1e-3


def test_kmeanspp_is_deterministic_and_handles_duplicates():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2))
    a = kmeanspp(X, 4, np.random.default_rng(11), return_indices=True)
    b = kmeanspp(X, 4, np.random.default_rng(11), return_indices=True)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    # Two distinct locations among many duplicates: both are seeded before any repeat.
    dup = np.repeat([[0.0, 0.0], [3.0, 1.0]], [7, 5], axis=0)
    for seed in range(10):
        centers = kmeanspp(dup, 2, np.random.default_rng(seed))
        assert {tuple(c) for c in centers.tolist()} == {(0.0, 0.0), (3.0, 1.0)}
    # Fewer distinct points than k: rows of X, repeated.
    centers, idx = kmeanspp(np.ones((5, 2)), 3, np.random.default_rng(0), return_indices=True)
    np.testing.assert_array_equal(centers, np.ones((3, 2)))
    assert ((idx >= 0) & (idx < 5)).all()


@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_squared_distances_are_non_negative_and_match_the_plain_sum(offset):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3)) + offset
    C = np.vstack([X[:4], rng.normal(size=(2, 3)) + offset])
    got = squared_distances(X, C)
    expected = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
    assert (got >= 0).all()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8 * (1 + offset**2))


# ----------------------------------------------------------------------------- reduction
@st.composite
def programs(draw):
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    A = rng.choice([-2.5, -1.0, 0.0, 0.0, 0.5, 1.0, 3.0], size=(m, n))
    lower = rng.choice([-np.inf, -2.0, 0.0, 0.5], size=n)
    upper = np.maximum(lower, rng.choice([np.inf, 0.0, 1.0, 3.5], size=n))
    fixed = rng.random(n) < 0.5
    lower[fixed] = upper[fixed] = rng.choice([0.0, 1.0, -2.0, 0.5], size=n)[fixed]
    row_lower = rng.choice([-np.inf, -3.0, 0.0, 1.0], size=m)
    row_upper = np.maximum(row_lower, rng.choice([np.inf, 0.0, 1.0, 6.0], size=m))
    return A, rng.normal(size=n).round(2), row_lower, row_upper, lower, upper


@given(programs())
@settings(max_examples=60, deadline=None)
def test_reduction_drops_only_rows_every_point_of_the_box_satisfies(program):
    A, cost, row_lower, row_upper, lower, upper = program
    red = reduce_fixed(sp.csc_array(A), cost, 2.0, row_lower, row_upper, lower, upper)
    fixed = (lower == upper) & (lower == np.round(lower))
    assert red.keep_cols.tolist() == (~fixed).tolist()
    shift = A[:, fixed] @ lower[fixed]
    keep = red.keep_cols
    for i in np.flatnonzero(~red.keep_rows):
        ends = [(a * lower[j], a * upper[j]) for j, a in zip(np.flatnonzero(keep), A[i, keep], strict=True) if a != 0]
        lowest, highest = sum(min(e) for e in ends), sum(max(e) for e in ends)
        assert highest + shift[i] <= row_upper[i] + 1e-9 and lowest + shift[i] >= row_lower[i] - 1e-9
    np.testing.assert_array_equal(red.row_lower, (row_lower - shift)[red.keep_rows])
    np.testing.assert_array_equal(red.row_upper, (row_upper - shift)[red.keep_rows])
    np.testing.assert_array_equal(red.A.toarray(), A[np.ix_(red.keep_rows, keep)])
    x = np.where(np.isfinite(lower), lower, np.minimum(upper, 0.0))
    full = red.expand(x[keep])
    np.testing.assert_array_equal(full, x)
    assert cost @ full + 2.0 == pytest.approx(cost[keep] @ x[keep] + red.offset)


# ----------------------------------------------------------------------------- super-instances
@given(st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=10),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6))))
@settings(max_examples=60, deadline=None)
def test_must_link_closure_against_networkx(case):
    n, ml, cl = case
    ml = sorted({tuple(sorted(p)) for p in ml if p[0] != p[1]})
    cl = sorted({tuple(sorted(p)) for p in cl if p[0] != p[1]} - set(ml))
    cons = Constraints.from_pairs(ml=np.array(ml, dtype=int).reshape(-1, 2),
                                  cl=np.array(cl, dtype=int).reshape(-1, 2), n_samples=n)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(ml)
    components = sorted((sorted(c) for c in nx.connected_components(graph)), key=min)
    comp = {v: i for i, c in enumerate(components) for v in c}
    if any(comp[i] == comp[j] for i, j in cl):
        with pytest.raises(InfeasibleConstraintsError, match=r"Cannot-link .* joins two objects"):
            _ = cons.closure
        return
    closure = cons.closure
    assert closure.component.tolist() == [comp[v] for v in range(n)]
    X = np.arange(2.0 * n).reshape(n, 2) ** 1.5
    centers, weights = closure.super_instances(X)
    np.testing.assert_allclose(centers, [X[c].mean(axis=0) for c in components])
    assert weights.tolist() == [len(c) for c in components]
    assert closure.cl_pairs.tolist() == [[comp[i], comp[j]] for i, j in cons.cl_pairs.tolist()]
