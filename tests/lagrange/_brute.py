"""Brute-force references for tiny instances: every labelling into k non-empty clusters."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from ccopt import Constraints


def all_partitions(n: int, k: int):
    """Canonical labellings of n objects into exactly k non-empty clusters (first-occurrence order)."""
    for labels in itertools.product(range(k), repeat=n):
        seen = []
        canonical = True
        for lab in labels:
            if lab not in seen:
                if lab != len(seen):
                    canonical = False
                    break
                seen.append(lab)
        if canonical and len(seen) == k:
            yield np.array(labels)


def feasible(labels, ml, cl) -> bool:
    return all(labels[i] == labels[j] for i, j in ml) and all(labels[i] != labels[j] for i, j in cl)


def kmedoids_cost(d, labels) -> float:
    return sum(d[np.ix_(labels == c, labels == c)].sum(axis=0).min() for c in np.unique(labels))


def wcss(X, labels) -> float:
    return sum(((X[labels == c] - X[labels == c].mean(axis=0)) ** 2).sum() for c in np.unique(labels))


def constrained_optimum(cost, n, k, ml, cl):
    """Smallest cost over feasible labellings, and one optimal labelling."""
    best, arg = np.inf, None
    for labels in all_partitions(n, k):
        if feasible(labels, ml, cl):
            value = cost(labels)
            if value < best - 1e-12:
                best, arg = value, labels
    return best, arg


def lagrangian_by_loops(criterion_value, x, cons, mult, eps) -> float:
    """(10) at an assignment matrix ``x`` (n, k), one relaxed row at a time."""
    total = criterion_value
    for r, (u, v) in enumerate(cons.cl_pairs):
        total += (mult.eta[r] * (1 + eps - x[u] - x[v])).sum()
    for r, (u, v) in enumerate(cons.ml_pairs):
        total += (mult.lam[r] * (eps + x[u] - x[v])).sum() + (mult.gamma[r] * (eps + x[v] - x[u])).sum()
    return total


def row_activities(cl_pairs, ml_pairs, x, eps):
    """The derivative of (10) with respect to each multiplier (eta, lambda, gamma), by loops."""
    k = x.shape[1]
    g_eta = np.array([[1 + eps - x[i][c] - x[j][c] for c in range(k)] for i, j in cl_pairs]).reshape(-1, k)
    g_lam = np.array([[eps + x[i][c] - x[j][c] for c in range(k)] for i, j in ml_pairs]).reshape(-1, k)
    g_gam = np.array([[eps + x[j][c] - x[i][c] for c in range(k)] for i, j in ml_pairs]).reshape(-1, k)
    return g_eta, g_lam, g_gam


@st.composite
def tiny_instances(draw, max_pairs: int = 5, max_flips: int = 0):
    """n <= 7, k in {2, 3}, 1..max_pairs constraints from a hidden labelling, 0..max_flips flipped."""
    n = draw(st.integers(4, 7))
    k = draw(st.integers(2, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    X = rng.normal(size=(n, 2)) * 3
    hidden = rng.integers(0, k, n)
    hidden[:k] = np.arange(k)
    m = draw(st.integers(1, max_pairs))
    pairs = set()
    while len(pairs) < m:
        i, j = rng.choice(n, 2, replace=False)
        pairs.add((min(i, j), max(i, j)))
    pairs = np.array(sorted(pairs))
    kinds = Constraints.from_labels(hidden, pairs, n_samples=n).kinds.copy()
    if max_flips:
        flipped = draw(st.lists(st.integers(0, m - 1), max_size=max_flips, unique=True))
        kinds[flipped] = -kinds[flipped]
    return X, k, Constraints(pairs, kinds, n_samples=n)

