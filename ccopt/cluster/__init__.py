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

import sys
import types
from importlib import import_module

_LAZY = {
    "KMeans": "ccopt.cluster.kmeans",
    "kmeans": "ccopt.cluster.kmeans",
    "COPKMeans": "ccopt.cluster.cop_kmeans",
    "cop_kmeans": "ccopt.cluster.cop_kmeans",
    "PCKMeans": "ccopt.cluster.pckmeans",
    "pckmeans": "ccopt.cluster.pckmeans",
    "BHKMeans": "ccopt.cluster.bh_kmeans",
    "bh_kmeans": "ccopt.cluster.bh_kmeans",
    "LCC": "ccopt.cluster.lcc",
    "lcc": "ccopt.cluster.lcc",
    "KMeansS": "ccopt.cluster.pcs",
    "kmeans_s": "ccopt.cluster.pcs",
    "PCS": "ccopt.cluster.pcs",
    "pcs": "ccopt.cluster.pcs",
    "MLKMeans": "ccopt.cluster.ml_kmeans",
    "ml_kmeans": "ccopt.cluster.ml_kmeans",
    "GreedyMLKMeans": "ccopt.cluster.ml_kmeans",
    "greedy_ml_kmeans": "ccopt.cluster.ml_kmeans",
}

__all__ = sorted(_LAZY)


class _Package(types.ModuleType):
    """This package's module type: a public name is never replaced by a submodule.

    Each function twin has the name of the module that defines it (``kmeans`` in
    ``ccopt.cluster.kmeans``, ...). Importing a submodule makes the import system bind it as
    an attribute of its package, which would hide the twin: ``ccopt.cluster.kmeans`` would be
    the function or the module depending on what some other code imported first. Refusing
    that one binding keeps ``ccopt.cluster.<twin>`` the function; the submodules stay
    importable by their full names (``from ccopt.cluster.kmeans import ...``).
    """

    def __setattr__(self, name, value):
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ccopt.cluster' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
