"""Pyomo models of the constrained clustering programs (pure builders: they never solve).

========================================  ==================================================
builder                                   program
========================================  ==================================================
:func:`build_kmedoids_model`              k-medoids IP (2)-(5), (7)-(9), p-median form, with
                                          the exact (3)(4) or epsilon (3')(4')(4'') rows,
                                          integer or LP relaxation
:func:`build_mssc_model`                  MSSC IP (2)-(6): fractional objective (MINLP) or
                                          convex MIQCP reformulation
:func:`build_lagrangian_model`            the Lagrangian relaxation (10) over either model,
                                          multipliers as mutable Params
:func:`build_bh_assignment_model`         the BH-kmeans assignment MILP P (1)-(8)
========================================  ==================================================

Helpers: :func:`set_multipliers` (multipliers from numpy arrays, in place),
:func:`assignment_matrix` (a solved model's ``x`` as an ``(n, K)`` array),
:func:`lagrangian_subgradients`, :func:`read_pairwise_duals` and :func:`solve_lp_duals` (row
duals of the pairwise rows and the impact score (17)), :func:`kmedoids_labels`,
:func:`mssc_labels`. :class:`~ccopt.models.highs_direct.HighsKMedoids` builds the same
k-medoids program directly as sparse matrices for highspy.

Solve with :func:`ccopt.solvers.solve` or :class:`ccopt.solvers.PersistentSolver`. The same
formulations, declared by the same rules, are available as AbstractModels for ``.dat`` data
(:func:`abstract_kmedoids_model`, :func:`abstract_mssc_model`,
:func:`abstract_lagrangian_model`) and as Pyomo command files in the repository's
``models/`` folder.
"""

from importlib import import_module

from ccopt.models.duals import LPDuals, PairwiseDuals, read_pairwise_duals, solve_lp_duals
from ccopt.models.kmedoids import abstract_kmedoids_model, build_kmedoids_model, kmedoids_labels
from ccopt.models.lagrangian import (
    abstract_lagrangian_model,
    assignment_matrix,
    build_lagrangian_model,
    lagrangian_subgradients,
    set_multipliers,
)
from ccopt.models.mssc import abstract_mssc_model, build_mssc_model, mssc_labels

# Loaded on first use: highs_direct needs highspy, and bh_assignment is maintained apart.
_LAZY = {
    "build_bh_assignment_model": "ccopt.models.bh_assignment",
    "HighsKMedoids": "ccopt.models.highs_direct",
    "kmedoids_matrices": "ccopt.models.highs_direct",
}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ccopt.models' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "LPDuals",
    "PairwiseDuals",
    "abstract_kmedoids_model",
    "abstract_lagrangian_model",
    "abstract_mssc_model",
    "assignment_matrix",
    "build_kmedoids_model",
    "build_lagrangian_model",
    "build_mssc_model",
    "kmedoids_labels",
    "lagrangian_subgradients",
    "mssc_labels",
    "read_pairwise_duals",
    "set_multipliers",
    "solve_lp_duals",
    *_LAZY,
]
