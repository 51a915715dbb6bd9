"""ccopt: optimization models for clustering with must-link, cannot-link and size constraints.

The public names are importable from the top level: constraints (:class:`Constraints`),
the validated problem (:class:`ClusteringProblem`), the impact score
(:func:`impact_scores`), the estimators (:class:`BHKMeans`, :class:`COPKMeans`, ...), and
the exceptions (see :mod:`ccopt.exceptions`). Sub-modules: ``ccopt.models`` (Pyomo
builders), ``ccopt.solvers``, ``ccopt.lagrange``, ``ccopt.cluster``, ``ccopt.datasets``,
``ccopt.generators``, ``ccopt.metrics``, ``ccopt.plotting``, ``ccopt.experiments``.
"""

from importlib import import_module

from ccopt.config import config_context, get_config, set_config
from ccopt.constraints import (
    CL,
    ML,
    Constraints,
    FeasibilityReport,
    MustLinkClosure,
    ViolationReport,
    as_constraints,
    check_feasibility,
)
from ccopt.exceptions import (
    CcoptError,
    CcoptWarning,
    ClusteringDeadEndError,
    ConflictingConstraintError,
    ConvergenceWarning,
    DataFormatError,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    MemoryBudgetError,
    NotFittedError,
    SolverError,
    SolverNotAvailableError,
)
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__version__ = "0.1.0"

# Heavier sub-packages (Pyomo, the algorithms) load on first use, keeping `import ccopt` light.
_LAZY = {
    "KMeans": "ccopt.cluster",
    "COPKMeans": "ccopt.cluster",
    "PCKMeans": "ccopt.cluster",
    "BHKMeans": "ccopt.cluster",
    "LCC": "ccopt.cluster",
    "KMeansS": "ccopt.cluster",
    "PCS": "ccopt.cluster",
    "MLKMeans": "ccopt.cluster",
    "GreedyMLKMeans": "ccopt.cluster",
    "impact_scores": "ccopt.lagrange",
    "ImpactScoreResult": "ccopt.lagrange",
}
_SUBMODULES = {"cluster", "datasets", "experiments", "generators", "lagrange", "metrics", "models",
               "plotting", "solvers"}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return import_module(f"ccopt.{name}")
    raise AttributeError(f"module 'ccopt' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)


__all__ = [
    "CL",
    "ML",
    "CcoptError",
    "CcoptWarning",
    "ClusteringDeadEndError",
    "ClusteringProblem",
    "ConflictingConstraintError",
    "Constraints",
    "ConvergenceWarning",
    "DataFormatError",
    "DuplicateConstraintWarning",
    "FeasibilityReport",
    "InfeasibleConstraintsError",
    "InvalidConstraintError",
    "InvalidDataError",
    "InvalidParameterError",
    "MemoryBudgetError",
    "MustLinkClosure",
    "NotFittedError",
    "SolverError",
    "SolverNotAvailableError",
    "Status",
    "ViolationReport",
    "as_constraints",
    "check_feasibility",
    "config_context",
    "get_config",
    "set_config",
    *_LAZY,
]
