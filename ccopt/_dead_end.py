"""What a greedy hard-constrained algorithm reports when every restart ends in a dead end.

COP-kmeans, ML-kmeans and PCKmeans / PCS with hard cannot-links stop a run when an object
can join no cluster. That alone says nothing about the constraints, so before the dead end
is reported :func:`feasibility_note` decides, within a bound, whether a labelling exists:

1. :func:`~ccopt.constraints.check_feasibility` (cheap certificates and greedy colourings);
2. if it cannot tell, the complete search that ends the repair of Algorithm 2
   (:func:`~ccopt.lagrange.repair.repair_labels`, the search :func:`~ccopt.impact_scores`
   relies on: backtracking over the must-link super-instances in DSATUR order, at most
   ``max_search_nodes`` nodes and ``time_cap`` seconds).

Infeasibility is then raised as :class:`~ccopt.exceptions.InfeasibleConstraintsError`, with
the message and certificate :func:`~ccopt.impact_scores` gives, so that every algorithm
reports the same constraints the same way; otherwise the note says whether a labelling
exists or whether the search stopped at its bound.
"""

from __future__ import annotations

import logging

import numpy as np

from ccopt._timing import Deadline
from ccopt.constraints import Constraints, check_feasibility
from ccopt.exceptions import InfeasibleConstraintsError

__all__ = ["feasibility_note", "no_colouring_error"]

logger = logging.getLogger(__name__)

_FEASIBLE = ("The constraints are satisfiable (a labelling exists): one satisfying every hard constraint "
             "was found, so only the greedy order ran into a dead end; BHKMeans enforces hard constraints "
             "exactly.")
_UNKNOWN = "Whether any labelling satisfies the constraints is unknown"


def no_colouring_error(n_clusters: int) -> InfeasibleConstraintsError:
    """The error of a complete search that found no labelling into ``n_clusters`` clusters.

    The wording and certificate of :func:`~ccopt.impact_scores` (its feasible start).
    """
    return InfeasibleConstraintsError(
        f"No labelling into n_clusters={n_clusters} clusters satisfies the constraints: a complete "
        "search over the cannot-links between must-link groups found none. Remove or "
        "revise cannot-links, or raise n_clusters.",
        certificate=f"no {n_clusters}-colouring of the cannot-link graph of the must-link groups",
    )


def feasibility_note(hard: Constraints, n_clusters: int, *, deadline: Deadline | None = None,
                     time_cap: float = 10.0, max_search_nodes: int = 200_000, search: bool = True) -> str:
    """Whether a labelling satisfies the constraints a greedy pass got stuck on.

    Parameters
    ----------
    hard : Constraints
        The constraints that can block an object, bound to ``n_samples``.
    n_clusters : int
    deadline : Deadline, optional
        The fit's time budget; the search gets what is left of it, at most ``time_cap``
        seconds (none once it has expired).
    time_cap : float, default=10.0
        Seconds the complete search may take at most.
    max_search_nodes : int, default=200000
        Bound on the nodes of the complete search.
    search : bool, default=True
        False: only the cheap checks, for a caller that searches itself (the impact score's
        feasible start repairs with the same search) and would pay for it twice.

    Returns
    -------
    str
        One or two sentences for the dead-end message: a labelling satisfying every hard
        constraint exists, or whether one does is unknown (and why the search stopped).

    Raises
    ------
    InfeasibleConstraintsError
        No labelling satisfies ``hard`` (with a certificate): no further run could succeed,
        so the dead end is not the error to report.
    """
    from ccopt.lagrange.repair import repair_labels  # the lagrange package is heavy to import

    report = check_feasibility(hard, n_clusters)
    report.raise_if_infeasible()
    if report.status == "feasible":
        return _FEASIBLE
    if not search:
        return f"{_UNKNOWN}."
    # check_feasibility found no chain through a cannot-link, so the closure exists.
    closure = hard.closure
    n = closure.component.shape[0]
    search_deadline = Deadline(time_cap if deadline is None else deadline.budget(time_cap))
    logger.info("Greedy dead end: complete search for a labelling with %d clusters (at most %d nodes, %.3g s)",
                n_clusters, max_search_nodes, search_deadline.time_limit)
    # Every object in cluster 0 and no move allowed: straight to the complete search.
    result = repair_labels(np.zeros(n, dtype=np.int64), np.zeros((n, n_clusters)), closure,
                           np.random.default_rng(0), deadline=search_deadline, max_moves=0,
                           max_search_nodes=max_search_nodes)
    if result.infeasible:
        raise no_colouring_error(n_clusters)
    if result.feasible:
        return _FEASIBLE
    if deadline is not None and deadline.expired():
        return f"{_UNKNOWN}: time_limit expired before the complete search could finish."
    if search_deadline.expired():
        return f"{_UNKNOWN}: the complete search stopped at its cap of {time_cap:g} s."
    return (f"{_UNKNOWN}: the complete search stopped at its limit of max_search_nodes={max_search_nodes} "
            "nodes.")
