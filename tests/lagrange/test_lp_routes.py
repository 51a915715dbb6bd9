"""The Pyomo routes of the impact score: the one-shot LP dual against the subgradient routes."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import ccopt

from ._brute import constrained_optimum, kmedoids_cost


def _three_blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.4, (5, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    y = np.repeat([0, 1, 2], 5)
    # ml (0, 7) joins two blobs (erroneous); ml (1, 2) and cl (3, 11) are correct.
    return X, y, [(0, 7), (1, 2)], [(3, 11)]


@pytest.fixture(scope="module")
def routes():
    X, y, ml, cl = _three_blobs()
    kw = dict(ml=ml, cl=cl, criterion="kmedoids", random_state=0, progress=False, labels_true=y,
              stagnation_iter=None, gap_tol=0.0)
    return X, {
        "lp-dual": ccopt.impact_scores(X, 3, method="lp-dual", **kw),
        "lagrangian": ccopt.impact_scores(X, 3, method="lagrangian", max_iter=3000, **kw),
        "lp": ccopt.impact_scores(X, 3, method="lp", max_iter=150, **kw),
    }


def test_the_lp_dual_is_the_best_bound_and_the_subgradient_routes_approach_it(routes):
    _, results = routes
    best = results["lp-dual"].lower_bound
    for name in ("lagrangian", "lp"):
        bound = results[name].lower_bound
        assert bound <= best + 1e-6, name  # no route can beat the optimum of the LP-relaxed dual
        assert bound >= best - 0.01 * abs(best), name  # and the subgradient gets within 1 %


def test_one_shot_and_subgradient_routes_predict_the_same_constraints(routes):
    _, results = routes
    reference = results["lp-dual"].predicted_erroneous
    assert reference.tolist() == [True, False, False]  # only the must-link across blobs
    for name in ("lagrangian", "lp"):
        np.testing.assert_array_equal(results[name].predicted_erroneous, reference, err_msg=name)


@pytest.mark.parametrize("method", ["lp-dual", "lp", "lagrangian"])
def test_all_bounded_routes_bracket_the_optimum(method):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(9, 2)) * 2
    ml, cl = [(0, 1), (2, 7)], [(0, 3), (4, 5)]
    d = cdist(X, X)
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), 9, 3, ml, cl)
    res = ccopt.impact_scores(X, 3, ml=ml, cl=cl, criterion="kmedoids", method=method, max_iter=100,
                              random_state=0, progress=False)
    assert res.lower_is_bound
    assert res.lower_bound <= optimum + 1e-7 <= res.upper_bound + 2e-7
    assert np.all(res.scores <= 0)


def test_the_exact_route_solves_integer_subproblems():
    X = _three_blobs()[0]
    res = ccopt.impact_scores(X[:9], 2, ml=[(0, 7), (1, 2)], cl=[(3, 6)], criterion="kmedoids",
                              method="exact", max_iter=15, random_state=0, progress=False)
    d = cdist(X[:9], X[:9])
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), 9, 2, [(0, 7), (1, 2)], [(3, 6)])
    assert res.lower_is_bound
    assert res.lower_bound <= optimum + 1e-7 <= res.upper_bound + 2e-7


def test_an_unknown_solver_is_named_with_what_to_install():
    X, _, ml, cl = _three_blobs()
    with pytest.raises(ccopt.SolverNotAvailableError, match="gurobi"):
        ccopt.impact_scores(X, 3, ml=ml, cl=cl, criterion="kmedoids", method="lp", solver="gurobi",
                            progress=False, max_iter=2)
