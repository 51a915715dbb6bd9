"""COP-kmeans as a driver's start (cop_kmeans_problem) skips the complete search after a dead end."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import ccopt.lagrange.repair as repair_module
from ccopt.cluster import COPKMeans
from ccopt.cluster._cop_kmeans import cop_kmeans_problem
from ccopt.exceptions import ClusteringDeadEndError, InfeasibleConstraintsError
from ccopt.problem import ClusteringProblem

# The Groetzsch graph needs 4 clusters and has no 4-clique: only the complete search proves it.
EDGES = [tuple(sorted(edge)) for edge in nx.mycielski_graph(4).edges]
X = np.arange(22, dtype=float).reshape(-1, 1)


def test_a_driver_s_start_reports_the_dead_end_without_the_search(monkeypatch):
    # The impact score and its baselines repair with the same search after a dead end:
    # searching inside COP-kmeans as well doubled the time before their own fallback.
    searched = []
    original = repair_module.repair_labels

    def spy(*args, **kwargs):
        searched.append(True)
        return original(*args, **kwargs)

    monkeypatch.setattr(repair_module, "repair_labels", spy)
    problem = ClusteringProblem.create(X, 3, cl=EDGES)
    with pytest.raises(ClusteringDeadEndError, match=r"is unknown\."):
        cop_kmeans_problem(problem, 0, n_init=2)
    assert not searched
    with pytest.raises(InfeasibleConstraintsError, match=r"complete search .* found none"):
        cop_kmeans_problem(problem, 0, n_init=2, complete_search=True)
    assert searched


def test_the_estimator_still_searches():
    with pytest.raises(InfeasibleConstraintsError, match=r"complete search .* found none"):
        COPKMeans(3, n_init=2, random_state=0, progress=False).fit(X, cl=EDGES)
