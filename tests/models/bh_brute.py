"""Brute force for the BH-kmeans assignment program P, and seeded tiny instances.

Every labelling of a tiny instance is scored by P's definition (Baumann and Hochbaum 2022,
(1)-(8)) written out independently of ccopt.models: the sum of Euclidean distances to the
assigned centres, plus ``M p w`` for every violated soft constraint with ``M`` the largest
object-centre distance; labellings with an empty cluster, a violated hard constraint or a
size outside the bounds are excluded.
"""

from __future__ import annotations

import itertools

import numpy as np

from ccopt import ClusteringProblem, Constraints

# The reductions of P (contraction, free-object elimination, decomposition) switched on and off:
# every exactness test solves P under each setting.
FLAG_SETS = [
    {},
    {"decompose": False},
    {"contract": False, "eliminate_free": False, "decompose": False},
    {"decompose": True, "max_labellings": 1},  # every component goes to the MILP
]


def brute_force(X, centers, k, rows, penalty, min_size=None, max_size=None):
    """Objective of every labelling (inf if P excludes it); rows = (i, j, kind, weight, hard)."""
    n = X.shape[0]
    dist = np.array([[np.sqrt(((X[i] - centers[j]) ** 2).sum()) for j in range(k)] for i in range(n)])
    big_m = dist.max()
    labellings = np.array(list(itertools.product(range(k), repeat=n)))
    cost = dist[np.arange(n), labellings].sum(axis=1)
    counts = np.stack([(labellings == j).sum(axis=1) for j in range(k)], axis=1)
    feasible = (counts >= 1).all(axis=1)
    if min_size is not None:
        feasible &= (counts >= min_size).all(axis=1)
    if max_size is not None:
        feasible &= (counts <= max_size).all(axis=1)
    for i, j, kind, weight, hard in rows:
        together = labellings[:, i] == labellings[:, j]
        violated = ~together if kind == "ML" else together
        if hard:
            feasible &= ~violated
        else:
            cost = cost + big_m * penalty * weight * violated
    return np.where(feasible, cost, np.inf), labellings


def random_instance(seed, *, n=None, k=None, max_rows=6, hard_prob=0.3, sizes=False, far_centre=False):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(5, 9))
    k = k or int(rng.integers(2, 4))
    X = rng.normal(size=(n, 2))
    centers = rng.normal(scale=1.5, size=(k, 2))
    if far_centre:
        # A centre far from every object: (3) must pull some object over to it.
        centers[-1] = [25.0, 25.0]
    all_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    m = int(rng.integers(0, max_rows + 1))
    chosen = rng.choice(len(all_pairs), size=min(m, len(all_pairs)), replace=False)
    rows = []
    for c in chosen:
        i, j = all_pairs[c]
        kind = "ML" if rng.random() < 0.5 else "CL"
        weight = float(rng.choice([1.0, rng.uniform(0.2, 2.0), 0.0], p=[0.5, 0.4, 0.1]))
        rows.append((i, j, kind, weight, bool(rng.random() < hard_prob)))
    min_size = max_size = None
    if sizes:
        min_size = int(rng.integers(1, n // k + 1))
        max_size = int(rng.integers(-(-n // k), n - (k - 1) * min_size + 1))
    penalty = float(rng.choice([0.0, 0.05, 0.2, 1.0]))
    return X, centers, k, rows, penalty, min_size, max_size


def make_problem(X, k, rows, min_size=None, max_size=None):
    if not rows:
        return ClusteringProblem.create(X, k, min_size=min_size, max_size=max_size)
    cons = Constraints([(i, j) for i, j, *_ in rows], [r[2] for r in rows],
                       weights=[r[3] for r in rows], hard=[r[4] for r in rows], n_samples=X.shape[0])
    return ClusteringProblem.create(X, k, cons, min_size=min_size, max_size=max_size,
                                    require_closure=False)
