"""Cluster medoids under a distance matrix: the one place the k-medoids routes compute them.

A cluster's medoid is its member with the least total distance to the other members; the
work is the ``m x m`` block of the distance matrix, ``O(m^2)`` for a cluster of ``m``
objects. On Optical (n = 3,823, k = 10) that block is most of a subgradient iteration of
the ``voronoi`` route, and about half of the clusters it meets were met in one of the last
few iterations (unchanged by the step, or repaired back), so :class:`MedoidFinder`
remembers the latest ones. Remembered answers are the ones a fresh computation gives, bit
for bit: the cache is keyed by the exact member list.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

__all__ = ["MedoidFinder", "best_member", "cluster_members", "kmedoids_cost"]


def best_member(distances: np.ndarray, members: np.ndarray) -> tuple[int, float]:
    """The medoid of ``members`` (ascending object indices) and its total distance to them.

    Ties go to the first member in ``members``.
    """
    sums = distances[np.ix_(members, members)].sum(axis=0)
    best = int(np.argmin(sums))
    return int(members[best]), float(sums[best])


def cluster_members(labels: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The labels present (ascending) and the members of each, in ascending order."""
    order = np.argsort(labels, kind="stable")
    present, starts = np.unique(labels[order], return_index=True)
    return present, np.split(order, starts[1:])


class MedoidFinder:
    """:func:`best_member` that remembers the clusters it met most recently.

    Parameters
    ----------
    distances : ndarray of shape (n_samples, n_samples)
    memory : int, default=64
        Clusters remembered (least recently used forgotten first). A cluster of ``m``
        objects costs ``8 m`` bytes of key.
    """

    def __init__(self, distances: np.ndarray, memory: int = 64):
        self.distances = distances
        self.memory = memory
        self._known: OrderedDict[bytes, tuple[int, float]] = OrderedDict()

    def best(self, members: np.ndarray) -> tuple[int, float]:
        """The medoid of ``members`` and its cost, as :func:`best_member` gives them."""
        key = members.tobytes()
        found = self._known.get(key)
        if found is not None:
            self._known.move_to_end(key)
            return found
        found = best_member(self.distances, members)
        self._known[key] = found
        if len(self._known) > self.memory:
            self._known.popitem(last=False)
        return found

    def medoids_and_cost(self, labels: np.ndarray) -> tuple[np.ndarray, float]:
        """Medoid of every cluster of ``labels`` (ascending label order) and the k-medoids cost."""
        found = [self.best(members) for members in cluster_members(labels)[1]]
        total = 0.0
        for _, cost in found:  # summed in label order, as every caller always has
            total += cost
        return np.array([medoid for medoid, _ in found], dtype=np.int64), total

    def cost(self, labels: np.ndarray) -> float:
        """k-medoids objective of ``labels``: each cluster served by its best member."""
        return self.medoids_and_cost(labels)[1]


def kmedoids_cost(distances: np.ndarray, labels: np.ndarray) -> float:
    """k-medoids objective of a labelling: each cluster served by its best member."""
    return MedoidFinder(distances, memory=0).cost(labels)
