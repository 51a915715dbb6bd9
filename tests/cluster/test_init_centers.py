"""k-means++ seeding and squared distances (ccopt.cluster._init_centers).

The seeding is compared with its exact law, computed by enumeration on four weighted points.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from ccopt.cluster._init_centers import kmeanspp, squared_distances


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
