"""Constrained clustering estimators (scikit-learn contract, see :mod:`ccopt.cluster._base`).

=====================  ==============================================================
estimator              algorithm
=====================  ==============================================================
:class:`KMeans`        k-means on must-link super-instances (weighted), k-means++ start
:class:`COPKMeans`     COP-kmeans, Wagstaff et al. 2001 (hard constraints, greedy)
:class:`PCKMeans`      PCKmeans, Basu et al. 2004 (soft constraints, penalty weights)
:class:`BHKMeans`      BH-kmeans, Baumann and Hochbaum 2022 (assignment MILP per step)
:class:`LCC`           Lagrangian constrained clustering, Ganji et al. 2016
:class:`KMeansS`       k-means with size constraints, Zhang et al.
:class:`PCS`           pairwise and size constraints, Zhang et al.
:class:`MLKMeans`      ML-aware k-means++ and DCL matching, Jia et al.
:class:`GreedyMLKMeans` the greedy baseline of Jia et al. Sec. 6.1.1
=====================  ==============================================================
"""

# The modules are private (``_kmeans``, ...) as in scikit-learn, so that each function twin
# (``kmeans``, ``lcc``, ...) is the only public object with its name.
from importlib import import_module

_LAZY = {
    "KMeans": "ccopt.cluster._kmeans",
    "kmeans": "ccopt.cluster._kmeans",
    "COPKMeans": "ccopt.cluster._cop_kmeans",
    "cop_kmeans": "ccopt.cluster._cop_kmeans",
    "cop_kmeans_problem": "ccopt.cluster._cop_kmeans",
    "PCKMeans": "ccopt.cluster._pckmeans",
    "pckmeans": "ccopt.cluster._pckmeans",
    "BHKMeans": "ccopt.cluster._bh_kmeans",
    "bh_kmeans": "ccopt.cluster._bh_kmeans",
    "LCC": "ccopt.cluster._lcc",
    "lcc": "ccopt.cluster._lcc",
    "KMeansS": "ccopt.cluster._pcs",
    "kmeans_s": "ccopt.cluster._pcs",
    "PCS": "ccopt.cluster._pcs",
    "pcs": "ccopt.cluster._pcs",
    "MLKMeans": "ccopt.cluster._ml_kmeans",
    "ml_kmeans": "ccopt.cluster._ml_kmeans",
    "GreedyMLKMeans": "ccopt.cluster._ml_kmeans",
    "greedy_ml_kmeans": "ccopt.cluster._ml_kmeans",
    "ml_kmeanspp_init": "ccopt.cluster._ml_kmeans",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ccopt.cluster' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
