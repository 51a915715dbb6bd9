"""Algorithm 1 on hand-made oracles: termination reasons, interrupts, steps, projection.

The step-by-step test follows a plain-loop reading of Algorithm 1 (Randel et al. 2021),
with the projection onto w <= 0 of DESIGN.md.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import Constraints, InvalidParameterError, Status
from ccopt.lagrange.driver import SubgradientConfig, _TailAverage, run_subgradient
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import OracleSolution

from ._brute import row_activities


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
    # The gap is closed by a heuristic value, which proves nothing: "converged", not "optimal".
    assert out.status == Status.CONVERGED and out.n_iter == 1


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


# ----------------------------------------------------------------------------- values that are no bound


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
    assert out.status == "converged" and out.n_iter == 1
    assert out.lower_bound == upper  # weak duality: no heuristic value is kept above the incumbent


def test_a_heuristic_value_clearly_above_the_incumbent_is_still_not_kept():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=3)
    labels = np.array([0, 0, 1])
    oracle = _HeuristicAt(7.0, labels, PairwiseOperator(cons, 0.5), 2)
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=4, stagnation_iter=None),
                          initial_upper=6.9, initial_labels=labels)
    assert out.lower_bound == -np.inf and out.status == "iteration_limit"


def test_an_oracle_value_without_a_bound_makes_no_step():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=4)
    op = PairwiseOperator(cons, 0.5)
    labels = np.array([0, 1, 1, 1])

    class NoBoundFirst:  # an exact solve cut short before any bound, then a normal one
        def __init__(self):
            self.calls = 0
            self.extra = {}

        def solve(self, mult):
            self.calls += 1
            value = -np.inf if self.calls == 1 else 1.0
            return OracleSolution(value, labels, op.subgradient_from_labels(labels, 2))

    mult = Multipliers.zeros(1, 1, 2)
    out = run_subgradient(NoBoundFirst(), mult, config=SubgradientConfig(max_iter=3, stagnation_iter=None),
                          initial_upper=2.0, initial_labels=labels)
    assert out.history["step"][0] == 0.0
    assert all(np.isfinite(a).all() for a in (mult.eta, mult.lam, mult.gamma))
    assert out.lower_bound == 1.0 and mult.eta.min() < 0  # the finite values that follow do move


# ----------------------------------------------------------------------------- Algorithm 1 step by step, against a plain-loop reading


class _ScriptedLabellings:
    """A proven-bound oracle whose labelling and value follow a script."""

    def __init__(self, op, k, script, interrupt_at=None):
        self.op, self.k, self.script, self.calls = op, k, script, 0
        self.extra, self.seen, self.interrupt_at = {}, [], interrupt_at

    def solve(self, mult):
        self.calls += 1
        if self.interrupt_at == self.calls:
            raise KeyboardInterrupt
        self.seen.append(mult.copy())
        labels, value = self.script[min(self.calls, len(self.script)) - 1]
        return OracleSolution(value, labels, self.op.subgradient_from_labels(labels, self.k))


def _algorithm_1_by_loops(cons, eps, k, script, z_star, repairs):
    """Algorithm 1 exactly as printed, with the projection onto w <= 0 of DESIGN.md."""
    eta = np.zeros((cons.n_cl, k))
    lam = np.zeros((cons.n_ml, k))
    gam = np.zeros((cons.n_ml, k))
    best, best_value, trajectory = None, -math.inf, []
    for ell, ((labels, z), repaired) in enumerate(zip(script, repairs, strict=True), start=1):
        x = np.eye(k)[labels]
        if z > best_value:
            best_value, best = z, (eta.copy(), lam.copy(), gam.copy())
        if repaired is not None and repaired < z_star:
            z_star = repaired
        alpha = 1 / math.sqrt(ell)
        g_eta, g_lam, g_gam = row_activities(cons.cl_pairs, cons.ml_pairs, x, eps)
        for values, grad in ((eta, g_eta), (lam, g_lam), (gam, g_gam)):
            if values.size:
                values += alpha * (z_star - z) / (grad ** 2).sum() * grad
                np.minimum(values, 0.0, out=values)
        trajectory.append((eta.copy(), lam.copy(), gam.copy()))
    return best, best_value, z_star, trajectory


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_the_driver_follows_algorithm_1_step_by_step(seed, k):
    rng = np.random.default_rng(seed)
    n = 7
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (5, 6)], cl=[(0, 3), (3, 4), (2, 5), (0, 6)], n_samples=n)
    eps = float(rng.uniform(0.05, 0.95))
    op = PairwiseOperator(cons, eps)
    m = 12
    values = rng.uniform(0.0, 9.0, m)
    script = [(rng.integers(0, k, n), float(v)) for v in values]
    repairs = [float(r) if rng.random() < 0.3 else None for r in rng.uniform(9.5, 20.0, m)]
    best, best_value, z_star, trajectory = _algorithm_1_by_loops(cons, eps, k, script, 20.0, repairs)

    oracle = _ScriptedLabellings(op, k, script)
    feed = iter(repairs)
    out = run_subgradient(oracle, Multipliers.zeros(cons.n_cl, cons.n_ml, k),
                          config=SubgradientConfig(max_iter=m, gap_tol=0.0, stagnation_iter=None),
                          initial_upper=20.0, initial_labels=None,
                          upper_bound=lambda _s: (lambda r: None if r is None else (r, script[0][0]))(next(feed)))
    assert out.status == Status.ITERATION_LIMIT and out.n_iter == m
    for seen, (eta, lam, gam) in zip(oracle.seen[1:], trajectory[:-1], strict=True):
        np.testing.assert_allclose(seen.eta, eta, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(seen.lam, lam, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(seen.gamma, gam, rtol=1e-12, atol=1e-12)
    assert out.lower_bound == best_value and out.upper_bound == z_star
    np.testing.assert_allclose(out.best_multipliers.eta, best[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.best_multipliers.lam, best[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.best_multipliers.gamma, best[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.history["step"], 1 / np.sqrt(np.arange(1, m + 1)))
    gap = (out.history["upper_bound"] - out.history["best_lower_bound"]) / np.abs(out.history["upper_bound"])
    np.testing.assert_allclose(out.history["gap"], gap)


def _line_setup(k=2):
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=4)
    return cons, PairwiseOperator(cons, 0.5), np.array([0, 1, 1, 1]) % k


def test_a_time_limit_stops_the_loop_with_the_best_so_far(monkeypatch):
    import ccopt.lagrange.driver as driver

    clock = iter(np.arange(0.0, 100.0, 1.0))  # every expiry check advances one second
    monkeypatch.setattr(driver.Deadline, "expired", lambda self: next(clock) >= 3.0)
    _cons, op, labels = _line_setup()
    oracle = _ScriptedLabellings(op, 2, [(labels, 1.0), (labels, 4.0), (labels, 2.0), (labels, 3.0), (labels, 5.0)])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=50, time_limit=1.0),
                          initial_upper=10.0, initial_labels=None)
    assert out.status == Status.TIME_LIMIT and out.n_iter == 4
    assert out.lower_bound == 4.0
    np.testing.assert_array_equal(out.best_multipliers.eta, oracle.seen[1].eta)


def test_an_interrupt_in_the_repair_step_returns_the_best_so_far_marked_interrupted():
    _cons, op, labels = _line_setup()
    oracle = _ScriptedLabellings(op, 2, [(labels, 1.0), (labels, 3.0), (labels, 2.0)])
    calls = iter([None, None, KeyboardInterrupt])

    def repair(_solution):
        item = next(calls)
        if item is KeyboardInterrupt:
            raise KeyboardInterrupt
        return item

    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=10),
                          initial_upper=10.0, initial_labels=None, upper_bound=repair)
    assert out.status == Status.INTERRUPTED and out.n_iter == 2 and out.lower_bound == 3.0
    np.testing.assert_array_equal(out.best_multipliers.lam, oracle.seen[1].lam)


def test_stagnation_counts_only_relative_improvements_above_the_tolerance():
    _cons, op, labels = _line_setup()
    values = [1.0, 2.0, 2.0 + 1e-9, 2.0 + 2e-9, 2.0 + 3e-9, 2.0 + 4e-9]
    oracle = _ScriptedLabellings(op, 2, [(labels, v) for v in values])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2),
                          config=SubgradientConfig(max_iter=50, stagnation_iter=3, stagnation_tol=1e-7),
                          initial_upper=10.0, initial_labels=None)
    # Improvements of 1e-9 (relative 5e-10 < 1e-7) do not reset the count from iteration 2.
    assert out.status == Status.STAGNATION and out.n_iter == 5
    assert out.lower_bound == pytest.approx(2.0 + 3e-9)


def test_without_a_finite_incumbent_the_multipliers_wait_instead_of_jumping_to_minus_infinity():
    # Algorithm 1's step needs Z* (the value of a feasible solution). With none yet (inf) the
    # step (Z* - Z) / ||g||^2 was infinite: the multipliers went to -inf for good and their
    # scores (17) to -inf, although the repair routine found an incumbent at iteration 2.
    _cons, op, labels = _line_setup()
    oracle = _ScriptedLabellings(op, 2, [(labels, 1.0), (labels, 2.0), (labels, 3.0)])
    feed = iter([None, (5.0, labels), None])
    mult = Multipliers.zeros(1, 1, 2)
    out = run_subgradient(oracle, mult, config=SubgradientConfig(max_iter=3, gap_tol=0.0, stagnation_iter=None),
                          initial_upper=math.inf, initial_labels=None, upper_bound=lambda _s: next(feed))
    for m in (mult, out.best_multipliers, *oracle.seen):
        assert np.isfinite(m.eta).all() and np.isfinite(m.lam).all() and np.isfinite(m.gamma).all()
    np.testing.assert_array_equal(oracle.seen[1].eta, 0.0)  # no step before an incumbent exists
    assert out.history["step"][0] == 0.0
    assert (oracle.seen[2].eta < 0).any()  # steps resume once Z* = 5 is known
    assert out.upper_bound == 5.0 and out.lower_bound == 3.0
