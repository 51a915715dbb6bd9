"""The Pyomo routes of the impact score: the one-shot LP dual against the subgradient routes,
and the LP dual's status, history and time limit."""

import time

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import ccopt
import ccopt.models
from ccopt.exceptions import ConvergenceWarning, SolverError

from ._brute import constrained_optimum, feasible, kmedoids_cost


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


# ----------------------------------------------------------------------------- the one-shot LP dual: status, history, time limit


def _wider_three_blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.5, (5, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    return X, [(0, 1), (2, 7)], [(0, 6), (3, 4)]


def test_lp_dual_out_of_time_returns_the_start_marked_time_limit(monkeypatch):
    # impact_scores promises the best result so far on its time limit; the lp-dual route
    # raised SolverError instead, as the other routes never do.
    def out_of_time(problem, *, time_limit=None, **kwargs):
        time.sleep(time_limit)
        raise SolverError("The LP relaxation was not solved to optimality (status time_limit).")

    monkeypatch.setattr(ccopt.models, "solve_lp_duals", out_of_time)
    X, ml, cl = _wider_three_blobs()
    with pytest.warns(ConvergenceWarning, match="The scores were not computed"):
        res = ccopt.impact_scores(X, 3, ml=ml, cl=cl, method="lp-dual", time_limit=0.5, random_state=0,
                                  solver="appsi_highs", progress=False)  # the Pyomo route
    assert res.status == "time_limit" and res.n_iter == 0 and len(res.history) == 0 and not res.scored
    assert res.lower_bound == -np.inf
    assert np.all(res.scores == 0) and not res.predicted_erroneous.any()
    assert feasible(res.labels, ml, cl) and np.unique(res.labels).size == 3
    assert res.upper_bound == pytest.approx(kmedoids_cost(cdist(X, X), res.labels))


def test_lp_dual_solver_failure_within_the_time_limit_is_still_an_error(monkeypatch):
    def fails(problem, **kwargs):
        raise SolverError("The LP relaxation was not solved to optimality (status error).")

    monkeypatch.setattr(ccopt.models, "solve_lp_duals", fails)
    X, ml, cl = _wider_three_blobs()
    with pytest.raises(SolverError, match="status error"):
        ccopt.impact_scores(X, 3, ml=ml, cl=cl, method="lp-dual", time_limit=60.0, random_state=0,
                            solver="appsi_highs", progress=False)  # the Pyomo route


def test_lp_dual_history_has_the_f1_column_when_the_truth_is_given():
    X = np.vstack([np.random.default_rng(0).normal(c, 0.4, (5, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    y = np.repeat([0, 1, 2], 5)
    res = ccopt.impact_scores(X, 3, ml=[(0, 7), (1, 2)], cl=[(3, 11)], method="lp-dual", labels_true=y,
                              random_state=0, progress=False)
    assert "f1" in res.history.names
    assert res.history["f1"][-1] == pytest.approx(res.detection.f1)


def test_lp_dual_is_optimal_only_within_the_gap_tolerance():
    # It reported "optimal" whatever the gap (68 % here), though the status promises the gap
    # tolerance was met.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, .3, (6, 2)), rng.normal(4, .3, (6, 2)), rng.normal([0, 4], .3, (6, 2))])
    kwargs = dict(ml=[(0, 1), (6, 7), (0, 6)], cl=[(0, 12), (1, 2), (7, 13)], method="lp-dual", random_state=0,
                  progress=False)
    res = ccopt.impact_scores(X, 3, **kwargs)
    assert res.gap > 1e-4 and res.status == ccopt.Status.CONVERGED
    loose = ccopt.impact_scores(X, 3, gap_tol=res.gap + 1e-9, **kwargs)
    assert loose.status == ccopt.Status.OPTIMAL and loose.gap == res.gap
