"""Small seeded instances shared by the tests of ccopt.models."""

from __future__ import annotations

import numpy as np

from ccopt import ClusteringProblem, Constraints


def blobs_with_noisy_constraints(seed: int, n: int = 24, k: int = 3, m: int = 6,
                                 flip: float = 0.35) -> ClusteringProblem:
    """``n`` objects in ``k`` Gaussian groups and ``m`` distinct constraints drawn from the
    groups, each flipped (made erroneous) with probability ``flip``."""
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0], [4.0, 4.0]])[:k]
    groups = np.repeat(np.arange(k), n // k + 1)[:n]
    X = centers[groups] + rng.normal(scale=0.8, size=(n, 2))
    seen, ml, cl = set(), [], []
    while len(seen) < m:
        u, v = sorted(rng.choice(n, 2, replace=False).tolist())
        if (u, v) in seen:
            continue
        seen.add((u, v))
        together = groups[u] == groups[v]
        if rng.random() < flip:
            together = not together
        (ml if together else cl).append((u, v))
    return ClusteringProblem.create(X, k, ml=ml, cl=cl, require_closure=False)


def random_pairs_problem(rng: np.random.Generator, n: int, n_pairs: int, k: int) -> ClusteringProblem:
    """``n`` standard normal points in 2-D and ``n_pairs`` distinct random pairs, each must-link
    or cannot-link at random (soft, weight 1): a constraint graph with cycles once
    ``n_pairs`` is near ``n``."""
    X = rng.normal(size=(n, 2))
    all_pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    pairs = all_pairs[rng.choice(len(all_pairs), size=n_pairs, replace=False)]
    cons = Constraints(pairs, rng.choice(["ML", "CL"], size=n_pairs), n_samples=n)
    return ClusteringProblem.create(X, k, cons, require_closure=False)


# Three far-apart pairs of close points.
SIX_POINTS = np.array([[0.0, 0], [0.1, 0], [5, 5], [5.1, 5], [10, 0], [10.2, 0]])


def six_points_problem() -> ClusteringProblem:
    """SIX_POINTS in two clusters with the must-link (0, 1) and the cannot-link (1, 2)."""
    return ClusteringProblem.create(SIX_POINTS, 2, ml=[(0, 1)], cl=[(1, 2)])
