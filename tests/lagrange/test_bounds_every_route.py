"""Lower bound <= enumerated optimum <= upper bound on every impact-score route, with errors.

The other property tests cover the ``lagrangian`` and ``kmeans`` routes on error-free sets;
here all six routes see sets with up to two flipped constraints, kept only when enumeration
shows that a feasible labelling still exists.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from scipy.spatial.distance import cdist

import ccopt

from ._brute import constrained_optimum, kmedoids_cost, tiny_instances, wcss

ROUTES = [("kmedoids", m) for m in ccopt.lagrange.METHODS["kmedoids"]] + [("mssc", "kmeans")]
# The routes whose lower value is a Lagrangian (or LP) bound; voronoi and kmeans are heuristics.
CERTIFIED = {"lagrangian", "lp", "exact", "lp-dual"}


# 30 iterations may not beat the first bound on a tiny instance: the bounds are checked anyway.
@pytest.mark.filterwarnings("ignore:The scores were not computed")
@pytest.mark.parametrize(("criterion", "method"), ROUTES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=tiny_instances(max_pairs=6, max_flips=2))
def test_every_route_brackets_the_enumerated_optimum(criterion, method, instance):
    X, k, cons = instance
    n = X.shape[0]
    d = cdist(X, X)
    cost = (lambda lab: kmedoids_cost(d, lab)) if criterion == "kmedoids" else (lambda lab: wcss(X, lab))
    optimum, _ = constrained_optimum(cost, n, k, cons.ml_pairs.tolist(), cons.cl_pairs.tolist())
    assume(np.isfinite(optimum))  # a flip may leave no feasible labelling
    res = ccopt.impact_scores(X, k, constraints=cons, criterion=criterion, method=method, max_iter=30,
                              random_state=0, progress=False)
    assert res.lower_is_bound == (method in CERTIFIED)
    if res.lower_is_bound:
        assert res.lower_bound <= optimum + 1e-7 * max(1.0, abs(optimum))
    assert optimum <= res.upper_bound + 1e-7 * max(1.0, abs(optimum))
    assert cons.violations(res.labels).total == 0
    assert np.unique(res.labels).size == k
    assert res.upper_bound == pytest.approx(cost(res.labels))
    assert np.all(res.scores <= 0)
