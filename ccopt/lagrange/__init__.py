"""The Lagrangian impact score of pairwise constraints (Randel et al. 2021).

:func:`impact_scores` is the entry point; :class:`ImpactScoreResult` holds the scores and
the evidence (bounds, gap, history, best feasible clustering). The parts: the subgradient
driver (:mod:`.driver`, Algorithm 1), lower-bounding oracles (:mod:`.oracles`), the repair
routine (:mod:`.repair`, Algorithm 2), and the multiplier algebra (:mod:`.multipliers`).
"""

from ccopt.lagrange.api import METHODS, impact_scores
from ccopt.lagrange.driver import History, SubgradientConfig, run_subgradient
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.repair import RepairResult, repair_labels
from ccopt.lagrange.result import ImpactScoreResult, normalize_scores

__all__ = [
    "METHODS",
    "History",
    "ImpactScoreResult",
    "Multipliers",
    "PairwiseOperator",
    "RepairResult",
    "SubgradientConfig",
    "impact_scores",
    "normalize_scores",
    "repair_labels",
    "run_subgradient",
]
