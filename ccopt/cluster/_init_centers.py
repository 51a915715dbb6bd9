"""Seeding of cluster centres, shared by the k-means family of estimators.

:func:`kmeanspp` is the one k-means++ seeding used across :mod:`ccopt.cluster` (KMeans,
COP-kmeans, and available to PCS, ML-kmeans and BH-kmeans): it works on *weighted* points,
so that must-link super-instances (``MustLinkClosure.super_instances(X)`` gives their mean
positions and sizes) are seeded with the probability their objects would have together.

Usage from another estimator::

    from ccopt.cluster._init_centers import kmeanspp

    positions, sizes = problem.closure.super_instances(problem.X)
    centers = kmeanspp(positions, problem.n_clusters, rng, sample_weight=sizes)

:func:`squared_distances` is the ``(n, k)`` distance table every assignment step needs,
computed without any ``n x n`` array.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import kmeans_plusplus

__all__ = ["kmeanspp", "squared_distances"]


def kmeanspp(X, k: int, rng: np.random.Generator, sample_weight=None, *, return_indices: bool = False):
    """k-means++ seeding (Arthur and Vassilvitskii 2007) on weighted points.

    The first centre is drawn with probability proportional to the weight. Each further
    centre follows scikit-learn's greedy variant (:func:`sklearn.cluster.kmeans_plusplus`):
    ``2 + log(k)`` candidates are drawn with probability proportional to
    ``weight * D(x)^2`` (D = distance to the nearest centre chosen so far) and the one
    leaving the smallest potential ``sum weight * D(x)^2`` is kept, so the centre itself is
    not distributed as ``weight * D(x)^2`` (the original k-means++ draws one candidate).

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        Points to seed from (objects, or super-instance positions). Assumed finite.
    k : int
        Number of centres, ``1 <= k <= n_points``.
    rng : numpy.random.Generator
        Source of randomness; one integer seed is drawn from it, so the same generator
        state gives the same centres.
    sample_weight : ndarray of shape (n_points,), optional
        Non-negative weight of each point (e.g. super-instance sizes); default all 1.
    return_indices : bool, default=False
        Also return the row of ``X`` each centre was taken from.

    Returns
    -------
    centers : ndarray of shape (k, n_features)
        Rows of ``X``.
    indices : ndarray of int64, shape (k,)
        Only when ``return_indices`` is True.
    """
    X = np.asarray(X, dtype=np.float64)
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    seed = int(rng.integers(0, 2**31 - 1))
    centers, indices = kmeans_plusplus(X, k, sample_weight=weights, random_state=seed)
    centers = np.array(centers, dtype=np.float64)
    if return_indices:
        return centers, np.asarray(indices, dtype=np.int64)
    return centers


def squared_distances(X, centers) -> np.ndarray:
    """Squared Euclidean distances of every point to every centre.

    Uses ``|x|^2 - 2 x.c + |c|^2`` (one matrix product, memory ``n x k``), clipped at 0
    against rounding.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
    centers : ndarray of shape (k, n_features)

    Returns
    -------
    ndarray of shape (n_points, k)
    """
    X = np.asarray(X, dtype=np.float64)
    centers = np.asarray(centers, dtype=np.float64)
    dist = np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * (X @ centers.T)
    dist += np.einsum("ij,ij->i", centers, centers)[None, :]
    np.maximum(dist, 0.0, out=dist)
    return dist
