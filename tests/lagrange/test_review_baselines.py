"""Review regressions for :mod:`ccopt.lagrange.baselines`, checked against enumeration."""

import math

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from ccopt import Status
from ccopt.lagrange.baselines import pessimistic_baseline

from ._brute import constrained_optimum, kmedoids_cost, wcss

# Two coincident objects, so that a heuristic MSSC run may leave a cluster empty.
X_TIES = np.array([[0.0], [0.0], [1.0], [5.0]])

ROUTES = [("kmedoids", "exact"), ("kmedoids", "heuristic"), ("mssc", "heuristic")]


def _brute_pessimistic(X, k, ml, cl, criterion):
    """``I^p = Z_B - Z_uv`` per constraint, both optima enumerated over k-partitions (+inf if none)."""
    d = cdist(X, X)
    cost = (lambda lab: kmedoids_cost(d, lab)) if criterion == "kmedoids" else (lambda lab: wcss(X, lab))
    n = X.shape[0]
    z_none, _ = constrained_optimum(cost, n, k, [], [])
    alone = [([pair], []) for pair in ml] + [([], [pair]) for pair in cl]
    return np.array([z_none - constrained_optimum(cost, n, k, m, c)[0] for m, c in alone])


@pytest.mark.parametrize("reuse", [False, True])
@pytest.mark.parametrize("criterion, mode", ROUTES)
@pytest.mark.parametrize("k, ml, cl", [
    (1, [(0, 2)], [(0, 1), (2, 3)]),   # no 1-partition separates a cannot-link pair
    (4, [(0, 1), (2, 3)], [(0, 3)]),   # no 4-partition of 4 objects joins a must-link pair
])
def test_pessimistic_constraint_that_cannot_hold_alone_is_erroneous(k, ml, cl, criterion, mode, reuse):
    # Enumeration: the lone program of such a constraint has no k-partition, so Z_uv = +inf
    # and I^p = Z_B - Z_uv = -inf < 0: erroneous by the paper's rule (Sec. 4.2), and every
    # (here: the unique) optimal unconstrained clustering violates it. It used to come back
    # as NaN, counted as a failed re-solve and predicted correct.
    expected = _brute_pessimistic(X_TIES, k, ml, cl, criterion)
    assert np.isinf(expected).any() and np.isfinite(expected).any()

    res = pessimistic_baseline(X_TIES, k, ml=ml, cl=cl, criterion=criterion, solver_mode=mode,
                               reuse_solutions=reuse, n_init=3, random_state=0, progress=False)

    impossible = np.isinf(expected)
    assert res.scores[impossible].tolist() == [-math.inf] * int(impossible.sum())
    np.testing.assert_allclose(res.scores[~impossible], expected[~impossible], atol=1e-9)
    assert res.predicted_erroneous.tolist() == impossible.tolist()
    assert res.normalized_scores[impossible].tolist() == [1.0] * int(impossible.sum())
    assert np.isinf(res.costs[impossible]).all()
    assert not res.failed.any() and res.n_failed == 0
    assert res.set_score == -math.inf
    if mode == "exact":
        assert res.status is Status.OPTIMAL
