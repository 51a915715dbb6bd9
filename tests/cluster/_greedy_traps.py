"""When a greedy pass over hard constraints can reach a dead end at all."""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components


def dead_end_possible(n: int, k: int, ml, cl) -> bool:
    """Whether some must-link group is cannot-linked to at least ``k`` other groups.

    A greedy pass (COP-kmeans, PCKmeans' hard rows) blocks a group only when the groups it is
    cannot-linked to already fill all ``k`` clusters; with fewer than ``k`` such neighbours every
    group always has a cluster left, so a dead end there is a bug, not bad luck.
    """
    ml = np.asarray(ml, dtype=np.int64).reshape(-1, 2)
    cl = np.asarray(cl, dtype=np.int64).reshape(-1, 2)
    graph = coo_array((np.ones(len(ml)), (ml[:, 0], ml[:, 1])), shape=(n, n))
    _, group = connected_components(graph, directed=False)
    ends = np.sort(group[cl], axis=1)
    ends = np.unique(ends[ends[:, 0] != ends[:, 1]], axis=0)
    degree = np.bincount(ends.ravel(), minlength=group.max() + 1)
    return bool((degree >= k).any())


def path_gadgets(n_paths: int):
    """Feasible for k=2 but a greedy trap: paths a-b-c-d of cannot-links with a and d at the
    same spot. Whenever a and d are placed before b and c (probability 1/6 per path and
    restart), a and d share their nearest centre, b must leave it and c has no cluster left.
    """
    rng = np.random.default_rng(0)
    X, cl = [], []
    for p in range(n_paths):
        base = 4 * p
        spot = rng.normal(size=2)
        X.extend([spot, spot + np.array([3.0, 0.0]), spot + np.array([0.0, 3.0]), spot])
        cl.extend([(base, base + 1), (base + 1, base + 2), (base + 2, base + 3)])
    return np.array(X), np.array(cl)
