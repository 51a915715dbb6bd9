"""Every estimator that ccopt.cluster exports, by name, and a quiet way to build one."""

from __future__ import annotations

import ccopt.cluster

ESTIMATORS = ["KMeans", "COPKMeans", "PCKMeans", "BHKMeans", "LCC", "KMeansS", "PCS", "MLKMeans",
              "GreedyMLKMeans"]


def make_estimator(name: str, n_clusters: int = 3, **params):
    """``name(n_clusters, random_state=0)`` with ``params``, and ``progress=False`` where it has one."""
    cls = getattr(ccopt.cluster, name)
    est = cls(n_clusters, random_state=0)
    if "progress" in est.get_params():
        params.setdefault("progress", False)
    return est.set_params(**params)
