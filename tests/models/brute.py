"""Brute-force enumeration of tiny constrained clustering instances (the gold standard).

Every labelling into exactly ``k`` non-empty clusters is generated once (restricted growth
strings: object 0 is in cluster 0, each later object joins a used cluster or opens the next
one), filtered by the must-link/cannot-link constraints, and scored by the definition of
the criterion, written here independently of ccopt.models:

* k-medoids: the sum over clusters of the smallest sum of distances from the cluster's
  objects to one of its members;
* MSSC: the sum of squared distances of the objects to their cluster mean.
"""

from __future__ import annotations

import numpy as np


def labellings(n: int, k: int) -> np.ndarray:
    """All partitions of ``n`` objects into exactly ``k`` non-empty clusters, shape (L, n)."""
    out = []

    def grow(prefix: list[int], used: int) -> None:
        if len(prefix) == n:
            if used == k:
                out.append(list(prefix))
            return
        if used + (n - len(prefix)) < k:  # not enough objects left to open every cluster
            return
        for c in range(min(used + 1, k)):
            grow([*prefix, c], max(used, c + 1))

    grow([0], 1)
    return np.array(out, dtype=np.int64).reshape(-1, n)


def satisfies(labels: np.ndarray, ml=(), cl=()) -> np.ndarray:
    """Mask of the labellings (rows) that satisfy every must-link and cannot-link."""
    ok = np.ones(labels.shape[0], dtype=bool)
    for u, v in ml:
        ok &= labels[:, u] == labels[:, v]
    for u, v in cl:
        ok &= labels[:, u] != labels[:, v]
    return ok


def sizes_within(labels: np.ndarray, k: int, min_size=None, max_size=None) -> np.ndarray:
    """Mask of the labellings whose cluster sizes lie within the bounds."""
    counts = np.stack([(labels == c).sum(axis=1) for c in range(k)], axis=1)
    ok = np.ones(labels.shape[0], dtype=bool)
    if min_size is not None:
        ok &= counts.min(axis=1) >= min_size
    if max_size is not None:
        ok &= counts.max(axis=1) <= max_size
    return ok


def kmedoids_costs(D: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """k-medoids cost of every labelling (medoid chosen among the cluster's members)."""
    total = np.zeros(labels.shape[0])
    for c in range(k):
        member = (labels == c).astype(np.float64)          # (L, n)
        to_candidate = member @ D                             # sum_i in cluster d(i, m), (L, n)
        to_candidate[member == 0] = np.inf                    # the medoid must be a member
        total += to_candidate.min(axis=1)
    return total


def wcss_costs(X: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """Within-cluster sum of squares of every labelling."""
    total = np.zeros(labels.shape[0])
    for c in range(k):
        member = (labels == c).astype(np.float64)
        count = member.sum(axis=1)
        sums = member @ X
        sq = member @ (X ** 2).sum(axis=1)
        total += sq - (sums ** 2).sum(axis=1) / count
    return total


def same_partition(a, b) -> bool:
    """True when two labellings are equal up to a renaming of the clusters."""
    a, b = np.asarray(a), np.asarray(b)
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))
