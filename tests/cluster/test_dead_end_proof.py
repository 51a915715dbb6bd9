"""A greedy dead end on hard constraints is reported the same way whichever algorithm hit it.

When every restart of COP-kmeans, ML-kmeans (and its greedy baseline) or PCKmeans / PCS with
hard cannot-links ends in a dead end, the bounded complete search that ``impact_scores``
relies on decides whether a labelling exists: infeasibility is raised as
``InfeasibleConstraintsError`` with ``impact_scores``' message and certificate, a labelling
found turns the "unknown" of the dead end into "satisfiable", and only a search stopped at its
bound leaves it unknown.
"""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np
import pytest

import ccopt
from ccopt import Constraints
from ccopt.cluster import PCS, COPKMeans, GreedyMLKMeans, MLKMeans, PCKMeans
from ccopt.exceptions import ClusteringDeadEndError, InfeasibleConstraintsError

from ._estimators import make_estimator
from ._greedy_traps import path_gadgets

# The wheel W5 (hub 0, rim 1..5): an odd rim plus a hub needs 4 clusters, and it has no
# 4-clique, so check_feasibility's cheap certificates cannot prove it infeasible with k = 3.
WHEEL = [(0, i) for i in range(1, 6)] + [(i, i % 5 + 1) for i in range(1, 6)]
X_WHEEL = np.random.default_rng(0).normal(size=(6, 2))
HARD_WHEEL = Constraints.from_pairs(cl=WHEEL, cl_hard=True, n_samples=6)


@pytest.fixture(scope="module")
def impact_scores_error():
    """What impact_scores, whose feasible start runs the complete search, says of the wheel."""
    with pytest.raises(InfeasibleConstraintsError) as info:
        ccopt.impact_scores(X_WHEEL, 3, cl=WHEEL, progress=False)
    assert "complete search" in str(info.value)
    return info.value


FITS = {
    "COPKMeans": lambda: COPKMeans(3, random_state=0, progress=False).fit(X_WHEEL, cl=WHEEL),
    "MLKMeans": lambda: MLKMeans(3, random_state=0, progress=False).fit(X_WHEEL, cl=WHEEL),
    "GreedyMLKMeans": lambda: GreedyMLKMeans(3, random_state=0, progress=False).fit(X_WHEEL, cl=WHEEL),
    "PCKMeans-hard": lambda: PCKMeans(3, random_state=0, progress=False).fit(X_WHEEL, constraints=HARD_WHEEL),
    "PCS-hard": lambda: PCS(3, sizes=[2, 2, 2], random_state=0, progress=False).fit(
        X_WHEEL, constraints=HARD_WHEEL),
}


@pytest.mark.parametrize("fit", FITS.values(), ids=FITS)
def test_wheel_is_proven_infeasible_as_impact_scores_proves_it(fit, impact_scores_error):
    # COPKMeans, MLKMeans and PCKMeans said "whether any labelling satisfies ... is unknown".
    with pytest.raises(InfeasibleConstraintsError, match=r"a complete search over the cannot-links .* found none"
                       ) as info:
        fit()
    assert str(info.value) == str(impact_scores_error)
    assert info.value.certificate == impact_scores_error.certificate


def test_groetzsch_cannot_links_are_proven_infeasible_for_ml_kmeans():
    # Not 3-colourable and triangle-free: check_feasibility cannot tell, the complete search can.
    edges = [tuple(sorted(edge)) for edge in nx.mycielski_graph(4).edges]
    X = np.arange(22, dtype=float).reshape(-1, 1)
    with pytest.raises(InfeasibleConstraintsError, match=r"^No labelling into n_clusters=3 clusters"):
        MLKMeans(3, random_state=0, progress=False).fit(X, cl=edges)


def test_feasible_dead_end_says_a_labelling_exists_and_points_to_bh_kmeans():
    X, cl = path_gadgets(60)
    with pytest.raises(ClusteringDeadEndError) as info:
        COPKMeans(2, n_init=4, random_state=0, progress=False).fit(X, cl=cl)
    message = str(info.value)
    assert "satisfiable (a labelling exists)" in message
    assert "satisfying every hard constraint was found" in message
    assert "only the greedy order ran into a dead end; BHKMeans enforces hard constraints exactly" in message
    assert message.endswith("Try a larger n_init, or LCC / PCKMeans, which never stop on a dead end.")


def test_complete_search_finds_the_labelling_when_the_cheap_checks_cannot(monkeypatch):
    # Were check_feasibility unable to colour the paths, the complete search still finds a labelling.
    import ccopt._dead_end as dead_end
    from ccopt.constraints import FeasibilityReport

    monkeypatch.setattr(dead_end, "check_feasibility", lambda hard, k: FeasibilityReport("unknown", "no idea"))
    X, cl = path_gadgets(60)
    with pytest.raises(ClusteringDeadEndError, match=r"satisfiable \(a labelling exists\): one satisfying every"):
        COPKMeans(2, n_init=4, random_state=0, progress=False).fit(X, cl=cl)


def test_search_stopped_at_its_bound_keeps_unknown(monkeypatch):
    import ccopt._dead_end as dead_end
    import ccopt.cluster._cop_kmeans as cop

    monkeypatch.setattr(cop, "feasibility_note", functools.partial(dead_end.feasibility_note, max_search_nodes=2))
    with pytest.raises(ClusteringDeadEndError,
                       match=r"Whether any labelling satisfies the constraints is unknown: the complete search "
                             r"stopped at its limit of max_search_nodes=2 nodes\. Try a larger n_init"):
        COPKMeans(3, random_state=0, progress=False).fit(X_WHEEL, cl=WHEEL)


def test_feasibility_note_says_why_the_search_stopped():
    from ccopt._dead_end import feasibility_note
    from ccopt._timing import Deadline

    wheel = Constraints.from_pairs(cl=WHEEL, n_samples=6)
    assert feasibility_note(wheel, 3, max_search_nodes=1).endswith(
        "is unknown: the complete search stopped at its limit of max_search_nodes=1 nodes.")
    assert feasibility_note(wheel, 3, time_cap=0.0).endswith("is unknown: the complete search stopped at its cap of 0 s.")
    assert feasibility_note(wheel, 3, deadline=Deadline(0.0)).endswith(
        "is unknown: time_limit expired before the complete search could finish.")
    with pytest.raises(InfeasibleConstraintsError):
        feasibility_note(wheel, 3)
    assert "satisfiable" in feasibility_note(wheel, 4)


# --------------------------------------------------------------------------- ML-kmeans: proof, not dead end
@pytest.mark.parametrize("name", ["MLKMeans", "GreedyMLKMeans"])
def test_ml_kmeans_reports_proven_infeasibility_not_a_dead_end(name):
    # k=1 with cannot-links that are not one clique is infeasible, as COPKMeans says; a
    # ClusteringDeadEndError ("greedy colouring needs 2 clusters") would hide the proof.
    line = np.array([[0.0], [0.1], [5.0], [5.1], [10.0], [10.1]])
    with pytest.raises(InfeasibleConstraintsError, match=r"2 objects need 2 clusters, only 1") as info:
        make_estimator(name, 1).fit(line, cl=[(0, 1), (1, 2)])
    assert len(info.value.certificate) == 2


def test_ml_kmeans_dead_end_says_whether_a_labelling_exists():
    # The Groetzsch graph: not 3-colourable, no 4-clique; the complete search proves it.
    edges = [tuple(sorted(edge)) for edge in nx.mycielski_graph(4).edges]
    X = np.arange(22, dtype=float).reshape(-1, 1)
    with pytest.raises(InfeasibleConstraintsError, match=r"complete search .* found none"):
        make_estimator("MLKMeans", 3).fit(X, cl=edges)
    cycle = [(i, (i + 1) % 5) for i in range(5)]  # with k = 2 an odd cycle is a proof
    with pytest.raises(InfeasibleConstraintsError, match=r"cycle of 5 cannot-links"):
        make_estimator("MLKMeans", 2).fit(X[:10], cl=cycle)
    X = np.array([[0.0], [10.0], [0.2], [9.8], [5.0]])
    with pytest.raises(ClusteringDeadEndError, match=r"dead end.*satisfiable"):
        make_estimator("GreedyMLKMeans", 2, init=np.array([[0.0], [10.0]])).fit(X, cl=[(0, 4), (1, 4)])
