"""The Lagrangian impact score of pairwise constraints (Randel et al. 2021).

:func:`impact_scores` is the entry point; :class:`ImpactScoreResult` holds the scores and
the evidence (bounds, gap, history, best feasible clustering). The parts: the subgradient
driver (:mod:`.driver`, Algorithm 1), lower-bounding oracles (:mod:`.oracles`), the repair
routine (:mod:`.repair`, Algorithm 2), the multiplier algebra (:mod:`.multipliers`), the
Pyomo routes (:mod:`.lp_routes`), and the paper's baselines and companions
(:mod:`.baselines`: naive, optimistic, pessimistic, Davidson's informativeness and
coherence, the k sweep of Fig. 3).
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
    "coherence",
    "erroneous_fraction_by_k",
    "impact_scores",
    "informativeness",
    "naive_baseline",
    "normalize_scores",
    "optimistic_baseline",
    "pessimistic_baseline",
    "repair_labels",
    "run_subgradient",
]

# The baselines import ccopt.solvers and with it pyomo.environ (about 0.9 s), which the
# impact score's default routes never need: they are loaded on first use.
_BASELINES = ("coherence", "erroneous_fraction_by_k", "informativeness", "naive_baseline",
              "optimistic_baseline", "pessimistic_baseline")


def __getattr__(name: str):
    if name in _BASELINES:
        from ccopt.lagrange import baselines

        return getattr(baselines, name)
    raise AttributeError(f"module 'ccopt.lagrange' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_BASELINES))
