"""Regressions found by a second review of the impact-score core (driver, routes, api)."""

import time

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import ccopt
import ccopt.models
from ccopt import Constraints
from ccopt.exceptions import ConvergenceWarning, SolverError
from ccopt.lagrange.driver import SubgradientConfig, run_subgradient
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import OracleSolution

from ._brute import constrained_optimum, feasible, kmedoids_cost


class _HeuristicAt:
    """A heuristic oracle that always returns one labelling at a fixed value."""

    def __init__(self, value, labels, op, k):
        self.value, self.labels, self.op, self.k = value, labels, op, k
        self.extra = {}

    def solve(self, mult):
        return OracleSolution(self.value, self.labels, self.op.subgradient_from_labels(self.labels, self.k),
                              is_bound=False)


def test_a_heuristic_value_at_the_incumbent_up_to_rounding_closes_the_gap():
    # Summed in another order than the upper bound, the oracle's value at the incumbent came
    # out one ulp above it and was thrown away as "above the incumbent": the run then made
    # steps of 1e-9 for stagnation_iter iterations and ended with lower bound -inf.
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=3)
    labels = np.array([0, 0, 1])
    upper = 6.919211427098391
    oracle = _HeuristicAt(np.nextafter(upper, np.inf), labels, PairwiseOperator(cons, 0.5), 2)
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=50, stagnation_iter=5),
                          initial_upper=upper, initial_labels=labels)
    assert out.status == "optimal" and out.n_iter == 1
    assert out.lower_bound == upper  # weak duality: no heuristic value is kept above the incumbent


def test_a_heuristic_value_clearly_above_the_incumbent_is_still_not_kept():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=3)
    labels = np.array([0, 0, 1])
    oracle = _HeuristicAt(7.0, labels, PairwiseOperator(cons, 0.5), 2)
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=4, stagnation_iter=None),
                          initial_upper=6.9, initial_labels=labels)
    assert out.lower_bound == -np.inf and out.status == "iteration_limit"


@pytest.mark.filterwarnings("ignore::ccopt.DuplicateConstraintWarning")  # the reversed must-link
@pytest.mark.parametrize(("X", "k", "ml", "cl"), [
    ([[0.801, -0.021], [1.505, -3.98], [3.323, 0.281], [-3.512, -4.075], [-3.92, -2.153], [3.557, 2.684]],
     3, [], [(2, 1)]),
    ([[-3.332, -2.786], [-2.766, -0.297], [1.156, 1.3], [0.86, -2.772], [-1.033, 0.589], [-0.819, -3.525]],
     2, [(4, 2), (2, 4)], []),
])
def test_voronoi_stops_optimal_when_its_first_value_is_the_enumerated_optimum(X, k, ml, cl):
    # The default route on these instances ran 300 iterations and reported lower bound -inf.
    X = np.array(X)
    d = cdist(X, X)
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), len(X), k, ml, cl)
    res = ccopt.impact_scores(X, k, ml=ml or None, cl=cl or None, random_state=0, progress=False)
    assert res.status == "optimal"
    assert res.lower_bound == pytest.approx(optimum, rel=1e-12)
    assert res.upper_bound == pytest.approx(optimum, rel=1e-12)
    assert np.all(res.scores == 0)  # zero multipliers already close the gap


def _blobs():
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
    X, ml, cl = _blobs()
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
    X, ml, cl = _blobs()
    with pytest.raises(SolverError, match="status error"):
        ccopt.impact_scores(X, 3, ml=ml, cl=cl, method="lp-dual", time_limit=60.0, random_state=0,
                            solver="appsi_highs", progress=False)  # the Pyomo route
