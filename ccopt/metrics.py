"""Clustering quality measures: partition agreement, objectives, constraint violations."""

from __future__ import annotations

import numpy as np

__all__ = ["wcss"]


def wcss(X, labels) -> float:
    """Within-cluster sum of squares: squared distances of objects to their cluster mean.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    labels : array-like of int, shape (n_samples,)

    Returns
    -------
    float
    """
    X = np.asarray(X, dtype=np.float64)
    labels = np.asarray(labels).reshape(-1)
    _, inverse = np.unique(labels, return_inverse=True)
    counts = np.bincount(inverse)
    sums = np.zeros((counts.size, X.shape[1]))
    np.add.at(sums, inverse, X)
    means = sums / counts[:, None]
    return float(((X - means[inverse]) ** 2).sum())
