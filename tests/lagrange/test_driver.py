"""Algorithm 1 on hand-made oracles: termination reasons, interrupts, steps, projection."""

import numpy as np
import pytest

from ccopt import Constraints, InvalidParameterError, Status
from ccopt.lagrange.driver import SubgradientConfig, _TailAverage, run_subgradient
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import OracleSolution


class ScriptedOracle:
    """Returns a fixed labelling; the value follows a script; can raise on a given call."""

    def __init__(self, values, labels, operator, k, raise_at=None):
        self.values, self.labels, self.op, self.k = list(values), labels, operator, k
        self.calls, self.raise_at = 0, raise_at
        self.extra = {}
        self.seen = []

    @property
    def n_index(self):
        return self.k

    def solve(self, mult):
        self.calls += 1
        self.seen.append(mult.copy())
        if self.raise_at is not None and self.calls == self.raise_at:
            raise KeyboardInterrupt
        value = self.values[min(self.calls - 1, len(self.values) - 1)]
        return OracleSolution(value, self.labels, self.op.subgradient_from_labels(self.labels, self.k))


def _setup(values, raise_at=None):
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=4)
    op = PairwiseOperator(cons, 0.5)
    labels = np.array([0, 1, 1, 1])  # violates the ML (0,1) and the CL (2,3)
    return cons, op, ScriptedOracle(values, labels, op, 2, raise_at)


def test_interrupt_returns_the_best_multipliers_so_far(caplog):
    _cons, _op, oracle = _setup([1.0, 2.0, 5.0, 3.0, 4.0, 4.5], raise_at=6)
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=100),
                          initial_upper=10.0, initial_labels=None)
    assert out.status == Status.INTERRUPTED
    assert out.n_iter == 5 and out.lower_bound == 5.0
    # The warning counted the iteration under way too (6), against the result's 5.
    assert "interrupted after 5 iterations" in caplog.text
    best_seen = oracle.seen[2]  # the multipliers that produced the value 5.0
    np.testing.assert_array_equal(out.best_multipliers.eta, best_seen.eta)


def test_gap_tolerance_stops_with_status_optimal():
    _cons, _op, oracle = _setup([1.0, 9.9995])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=100, gap_tol=1e-4),
                          initial_upper=10.0, initial_labels=None)
    assert out.status == Status.OPTIMAL and out.n_iter == 2


def test_stagnation_and_iteration_limits():
    _, _, oracle = _setup([1.0, 2.0, 2.0])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2),
                          config=SubgradientConfig(max_iter=100, stagnation_iter=5), initial_upper=10.0,
                          initial_labels=None)
    assert out.status == Status.STAGNATION and out.n_iter == 7  # last improvement at iteration 2
    _, _, oracle = _setup([1.0, 2.0, 3.0])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=4),
                          initial_upper=10.0, initial_labels=None)
    assert out.status == Status.ITERATION_LIMIT and out.n_iter == 4


def test_first_step_follows_algorithm_1_and_projects_onto_the_nonpositive_orthant():
    _cons, _op, oracle = _setup([4.0])
    mult = Multipliers.zeros(1, 1, 2)
    run_subgradient(oracle, mult, config=SubgradientConfig(max_iter=1), initial_upper=10.0, initial_labels=None)
    # labels [0,1,1,1]: CL (2,3) both in cluster 1, ML (0,1) split across 0 and 1.
    g_eta = np.array([[1.5, -0.5]])
    g_lam = np.array([[1.5, -0.5]])  # eps + x0 - x1
    g_gam = np.array([[-0.5, 1.5]])  # eps + x1 - x0
    scale = 1.0 * (10.0 - 4.0)  # alpha_1 = 1
    np.testing.assert_allclose(mult.eta, np.minimum(0, scale / (g_eta**2).sum() * g_eta))
    np.testing.assert_allclose(mult.lam, np.minimum(0, scale / (g_lam**2).sum() * g_lam))
    np.testing.assert_allclose(mult.gamma, np.minimum(0, scale / (g_gam**2).sum() * g_gam))
    assert (mult.eta <= 0).all() and (mult.lam <= 0).all() and (mult.gamma <= 0).all()


def test_history_has_one_row_per_iteration_and_f1_when_asked():
    _, _, oracle = _setup([1.0, 2.0, 3.0])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=3),
                          initial_upper=10.0, initial_labels=None, f1_of=lambda m: 0.5)
    assert len(out.history) == 3
    assert set(out.history.names) >= {"iteration", "lower_bound", "best_lower_bound", "upper_bound", "gap",
                                      "step", "seconds", "f1"}
    np.testing.assert_array_equal(out.history["best_lower_bound"], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(out.history["step"], [1.0, 1 / np.sqrt(2), 1 / np.sqrt(3)])


def test_tail_average_covers_the_last_half_to_three_quarters():
    tail = _TailAverage()
    for it in range(1, 21):
        tail.add(Multipliers(np.full((1, 1), -float(it)), np.zeros((0, 1)), np.zeros((0, 1))), it)
    # Windows opened at 8 and 16; the older one averages iterations 8..20.
    assert tail.mean().eta[0, 0] == pytest.approx(-np.mean(np.arange(8, 21)))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_iter": 0}, "max_iter must be >= 1"),
    ({"time_limit": -1}, "time_limit must be > 0"),
    ({"step_norm": "l1"}, "Unknown step_norm 'l1'"),
    ({"gap_tol": -0.1}, "gap_tol must be finite and >= 0"),
])
def test_config_is_validated(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        SubgradientConfig(**kwargs)


class HeuristicOracle(ScriptedOracle):
    """A scripted oracle whose values are not bounds (a local search of the Lagrangian)."""

    def solve(self, mult):
        solution = super().solve(mult)
        solution.is_bound = False
        return solution


def test_a_heuristic_value_above_the_incumbent_is_not_kept_as_a_lower_bound():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=4)
    op = PairwiseOperator(cons, 0.5)
    oracle = HeuristicOracle([12.0, 3.0, 4.0], np.array([0, 1, 1, 1]), op, 2)
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=3),
                          initial_upper=10.0, initial_labels=None)
    # 12 > 10 cannot be the Lagrangian minimum (weak duality): no "optimal" stop at a negative
    # gap with the first iteration's zero multipliers; the best value kept is 4.
    assert out.status == Status.ITERATION_LIMIT and out.n_iter == 3
    assert out.lower_bound == 4.0 and not out.lower_is_bound
    assert out.history["best_lower_bound"].tolist()[0] == -np.inf
    np.testing.assert_array_equal(out.best_multipliers.eta, oracle.seen[2].eta)


def test_a_proven_bound_above_the_incumbent_is_still_kept():
    # A proven bound above the incumbent would be a bug elsewhere; the driver does not hide it.
    _cons, _op, oracle = _setup([10.0005])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=5, gap_tol=1e-4),
                          initial_upper=10.0, initial_labels=None)
    assert out.lower_bound == 10.0005 and out.status == Status.OPTIMAL


def test_a_kept_heuristic_value_that_a_new_incumbent_undercuts_is_replaced():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=4)
    op = PairwiseOperator(cons, 0.5)
    oracle = HeuristicOracle([9.0, 5.0, 6.0], np.array([0, 1, 1, 1]), op, 2)
    incumbents = iter([(8.0, np.array([0, 0, 1, 0])), None, None])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=3),
                          initial_upper=10.0, initial_labels=None, upper_bound=lambda _s: next(incumbents))
    # 9 was kept at iteration 1 (below 10), then the incumbent 8 showed it was no bound.
    assert out.upper_bound == 8.0 and out.lower_bound == 6.0
    assert out.history["best_lower_bound"].tolist() == [-np.inf, 5.0, 6.0]
    np.testing.assert_array_equal(out.best_multipliers.eta, oracle.seen[2].eta)


def _three_pairs_on_a_line():
    # Pairs {0, 1}, {2, 3}, {4, 5} far apart; one cannot-link the three-pair clustering keeps.
    x = np.array([0.0, 0.1, 5.0, 5.1, 10.0, 10.1])
    cons = Constraints.from_pairs(cl=[(0, 2)], n_samples=6)
    return np.abs(x[:, None] - x[None, :]), PairwiseOperator(cons, 0.5)


def test_a_descent_stuck_above_the_incumbent_restarts_from_the_incumbent():
    from ccopt.lagrange.oracles import KMedoidsVoronoiOracle

    d, op = _three_pairs_on_a_line()
    # Medoids 0, 1 and 2: the Voronoi iteration stops at {0}, {1}, {2, 3, 4, 5} (value 10.0),
    # far above the feasible {0, 1}, {2, 3}, {4, 5} (0.3); every value would be rejected.
    oracle = KMedoidsVoronoiOracle(d, op, [0, 1, 2])
    incumbent = np.array([0, 0, 1, 1, 2, 2])
    out = run_subgradient(oracle, Multipliers.zeros(1, 0, 3), config=SubgradientConfig(max_iter=5),
                          initial_upper=0.3, initial_labels=incumbent)
    assert out.lower_bound == pytest.approx(0.3)
    assert out.status == Status.OPTIMAL and out.n_iter == 1


def test_restart_keeps_each_cluster_index_on_its_nearest_representative():
    from ccopt.lagrange.oracles import KMedoidsVoronoiOracle, MSSCLloydOracle

    d, op = _three_pairs_on_a_line()
    incumbent = np.array([0, 0, 1, 1, 2, 2])  # cluster 0 on the left, 2 on the right
    voronoi = KMedoidsVoronoiOracle(d, op, [4, 0, 2])  # index 0 on the right, 1 on the left
    voronoi.restart_from(incumbent)
    assert [m // 2 for m in voronoi.medoids] == [2, 0, 1]
    X = np.array([0.0, 0.1, 5.0, 5.1, 10.0, 10.1])[:, None]
    mssc = MSSCLloydOracle(X, op, np.array([[9.0], [1.0], [4.0]]))
    mssc.restart_from(incumbent)
    np.testing.assert_allclose(mssc.centers.ravel(), [10.05, 0.05, 5.05])


def test_history_csv_writes_iteration_numbers_as_integers(tmp_path):
    # Every cell went through float(), so iterations read "1.0,2.0,..." in --history files.
    _cons, _op, oracle = _setup([1.0, 2.0, 3.0])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=3),
                          initial_upper=10.0, initial_labels=None)
    path = tmp_path / "history.csv"
    out.history.to_csv(path)
    header, *rows = path.read_text().splitlines()
    at = header.split(",").index("iteration")
    assert [row.split(",")[at] for row in rows] == ["1", "2", "3"]
    lower = header.split(",").index("lower_bound")
    assert [float(row.split(",")[lower]) for row in rows] == [1.0, 2.0, 3.0]
