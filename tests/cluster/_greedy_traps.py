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
