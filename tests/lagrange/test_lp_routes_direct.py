"""The k-medoids solver routes built as matrices against the same routes built in Pyomo.

With the default solver (``highs_matrix``) the ``lp``, ``exact`` and ``lp-dual`` routes build
their program with :class:`ccopt.models.highs_direct.HighsKMedoids` instead of a Pyomo model
compiled by :mod:`ccopt.solvers`. Both hand HiGHS the same rows, columns and coefficients, so
the results must agree to the last digit; the Pyomo route is forced here by making
``_is_direct`` say no, which keeps the solver (``highs_matrix``) the same. Any other solver
name must still get the Pyomo model.
"""

import dataclasses
import time

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import ccopt
import ccopt.lagrange.lp_routes as lp_routes
import ccopt.models
from ccopt import ClusteringProblem
from ccopt._timing import Deadline
from ccopt.exceptions import ConvergenceWarning, SolverError
from ccopt.generators import noisy_constraints
from ccopt.lagrange.lp_routes import KMedoidsModelOracle
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.models.highs_direct import HighsKMedoids
from ccopt.solvers import HighsMatrixSolver, PersistentSolver
from ccopt.status import Status

# (seed, n, k): n in 15-30, k in 2-3; every draw has must-links and cannot-links, some wrong.
INSTANCES = [(0, 15, 2), (1, 21, 3), (2, 24, 2), (3, 30, 3)]


def _instance(seed, n, k):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(k, 2))
    y = np.arange(n) % k
    X = centres[y] + rng.normal(scale=1.0, size=(n, 2))
    drawn = noisy_constraints(y, max(4, n // 4), 2, random_state=seed)
    cons = drawn.constraints
    assert cons.n_ml > 0 and cons.n_cl > 0
    return X, k, cons


def _impact(X, k, cons, method, **kwargs):
    return ccopt.impact_scores(X, k, constraints=cons, criterion="kmedoids", method=method, random_state=0,
                               progress=False, stagnation_iter=None, gap_tol=0.0, **kwargs)


def _assert_same_result(direct, pyomo):
    assert direct.status == pyomo.status and direct.n_iter == pyomo.n_iter
    assert direct.lower_bound == pytest.approx(pyomo.lower_bound, rel=1e-12, abs=1e-9)
    assert direct.upper_bound == pytest.approx(pyomo.upper_bound, rel=1e-12, abs=1e-9)
    np.testing.assert_allclose(direct.scores, pyomo.scores, rtol=0, atol=1e-9)
    for name in ("eta", "lam", "gamma"):
        np.testing.assert_allclose(getattr(direct.multipliers, name), getattr(pyomo.multipliers, name),
                                   rtol=0, atol=1e-9, err_msg=name)
    np.testing.assert_array_equal(direct.labels, pyomo.labels)
    np.testing.assert_array_equal(direct.predicted_erroneous, pyomo.predicted_erroneous)
    for column in ("lower_bound", "best_lower_bound", "upper_bound"):
        np.testing.assert_allclose(direct.history[column], pyomo.history[column], rtol=1e-12, atol=1e-9,
                                   err_msg=column)


# -- lp-dual -------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "n", "k"), INSTANCES)
def test_the_lp_dual_built_as_matrices_gives_the_pyomo_lp(seed, n, k):
    X, k, cons = _instance(seed, n, k)
    problem = ClusteringProblem.create(X, k, constraints=cons)
    d = cdist(X, X)
    direct = lp_routes._direct_lp_duals(problem, 0.5, d, Deadline(None))
    pyomo = ccopt.models.solve_lp_duals(problem, epsilon=0.5, distances=d)
    assert direct.solve.solver == "highs_direct" and pyomo.solve.solver == "highs_matrix"
    assert direct.objective == pytest.approx(pyomo.objective, rel=1e-12, abs=1e-9)
    np.testing.assert_allclose(direct.x, pyomo.x, rtol=0, atol=1e-9)
    for name in ("eta", "lam", "gamma"):
        np.testing.assert_allclose(getattr(direct.duals, name), getattr(pyomo.duals, name), rtol=0, atol=1e-9,
                                   err_msg=name)
    np.testing.assert_allclose(direct.scores, pyomo.scores, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("seed", "n", "k"), INSTANCES)
def test_impact_scores_lp_dual_is_the_same_on_both_builds(seed, n, k, monkeypatch):
    X, k, cons = _instance(seed, n, k)
    direct = _impact(X, k, cons, "lp-dual")
    monkeypatch.setattr(lp_routes, "_is_direct", lambda solver: False)
    _assert_same_result(direct, _impact(X, k, cons, "lp-dual"))


# -- lp and exact: the oracle of the subgradient loop -------------------------------------------


def _random_multipliers(rng, cons, n):
    return Multipliers(-2 * rng.random((cons.n_cl, n)), -2 * rng.random((cons.n_ml, n)),
                       -2 * rng.random((cons.n_ml, n)))


@pytest.mark.parametrize("integer", [False, True])
@pytest.mark.parametrize(("seed", "n", "k"), INSTANCES[:3])
def test_the_oracle_built_as_matrices_solves_as_the_pyomo_one(seed, n, k, integer, monkeypatch):
    X, k, cons = _instance(seed, n, k)
    problem = ClusteringProblem.create(X, k, constraints=cons)
    op, d = PairwiseOperator(cons, 0.5), cdist(X, X)
    direct = KMedoidsModelOracle(problem, op, d, integer=integer, solver=None, deadline=Deadline(None))
    monkeypatch.setattr(lp_routes, "_is_direct", lambda solver: False)
    pyomo = KMedoidsModelOracle(problem, op, d, integer=integer, solver=None, deadline=Deadline(None))
    assert direct.model is None and pyomo.model is not None
    rng = np.random.default_rng(seed)
    # Zero multipliers first, then changed ones: the re-solves warm-start on both builds.
    for mult in [Multipliers.zeros(cons.n_cl, cons.n_ml, n)] + [_random_multipliers(rng, cons, n)
                                                                  for _ in range(4)]:
        a, b = direct.solve(mult), pyomo.solve(mult)
        assert a.value == pytest.approx(b.value, rel=1e-12, abs=1e-9)
        assert a.is_bound and b.is_bound
        np.testing.assert_array_equal(a.labels, b.labels)
        np.testing.assert_array_equal(a.open_clusters, b.open_clusters)
        for name in ("eta", "lam", "gamma"):
            np.testing.assert_allclose(getattr(a.subgradient, name), getattr(b.subgradient, name),
                                       rtol=0, atol=1e-9, err_msg=name)


@pytest.mark.parametrize(("method", "max_iter"), [("lp", 30), ("exact", 8)])
@pytest.mark.parametrize(("seed", "n", "k"), INSTANCES[:2])
def test_impact_scores_lp_and_exact_are_the_same_on_both_builds(seed, n, k, method, max_iter, monkeypatch):
    X, k, cons = _instance(seed, n, k)
    direct = _impact(X, k, cons, method, max_iter=max_iter)
    monkeypatch.setattr(lp_routes, "_is_direct", lambda solver: False)
    _assert_same_result(direct, _impact(X, k, cons, method, max_iter=max_iter))


# -- which build each solver name gets ----------------------------------------------------------


class _Spy:
    def __init__(self, monkeypatch, owner, name):
        self.calls = 0
        original = getattr(owner, name)

        def spy(*args, **kwargs):
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, spy)


def _spies(monkeypatch):
    return {"pyomo lp-dual": _Spy(monkeypatch, ccopt.models, "solve_lp_duals"),
            "pyomo lagrangian": _Spy(monkeypatch, ccopt.models, "build_lagrangian_model"),
            "matrices": _Spy(monkeypatch, HighsKMedoids, "__init__")}


@pytest.mark.parametrize("solver", [None, "highs_matrix"])
@pytest.mark.parametrize("method", ["lp", "lp-dual"])
def test_the_default_solver_builds_the_matrices_and_no_pyomo_model(solver, method, monkeypatch):
    X, k, cons = _instance(0, 15, 2)
    spies = _spies(monkeypatch)
    _impact(X, k, cons, method, max_iter=3, solver=solver)
    assert {name: spy.calls for name, spy in spies.items()} == {
        "pyomo lp-dual": 0, "pyomo lagrangian": 0, "matrices": 1}


@pytest.mark.parametrize("method", ["lp", "lp-dual"])
def test_another_solver_keeps_the_pyomo_model(method, monkeypatch):
    # appsi_highs drives the same HiGHS through Pyomo: the promise that any Pyomo solver can
    # take over holds only if the Pyomo model is what it gets.
    X, k, cons = _instance(0, 15, 2)
    spies = _spies(monkeypatch)
    _impact(X, k, cons, method, max_iter=3, solver="appsi_highs")
    expected = {"pyomo lp-dual": int(method == "lp-dual"), "pyomo lagrangian": int(method == "lp"), "matrices": 0}
    assert {name: spy.calls for name, spy in spies.items()} == expected


def test_the_oracle_of_another_solver_is_a_persistent_pyomo_solve():
    X, k, cons = _instance(1, 21, 3)
    problem = ClusteringProblem.create(X, k, constraints=cons)
    oracle = KMedoidsModelOracle(problem, PairwiseOperator(cons, 0.5), cdist(X, X), integer=False,
                                 solver="appsi_highs", deadline=Deadline(None))
    assert oracle.model is not None and isinstance(oracle.solver, PersistentSolver)
    assert oracle.solver.name == "appsi_highs"


# -- the time limit on the matrix build ------------------------------------------------------------


def test_the_matrix_build_counts_against_the_lp_dual_time_limit(monkeypatch):
    X, k, cons = _instance(2, 24, 2)
    problem = ClusteringProblem.create(X, k, constraints=cons)
    build, limits = HighsKMedoids.__init__, []

    def slow_build(self, *args, **kwargs):
        time.sleep(0.3)
        build(self, *args, **kwargs)

    solve = HighsKMedoids.solve

    def spy(self, *, time_limit=None, **kwargs):
        limits.append(time_limit)
        return solve(self, time_limit=time_limit, **kwargs)

    monkeypatch.setattr(HighsKMedoids, "__init__", slow_build)
    monkeypatch.setattr(HighsKMedoids, "solve", spy)
    lp_routes._direct_lp_duals(problem, 0.5, cdist(X, X), Deadline(5.0))
    assert len(limits) == 1 and limits[0] <= 5.0 - 0.3


def test_an_lp_dual_stopped_by_the_deadline_returns_the_start_marked_time_limit(monkeypatch):
    # As on the Pyomo route: the best result so far, not an error.
    solve = HighsMatrixSolver.solve

    def out_of_time(self, *, time_limit=None, **kwargs):
        time.sleep(time_limit)
        return dataclasses.replace(solve(self, time_limit=time_limit, **kwargs), status=Status.TIME_LIMIT)

    monkeypatch.setattr(HighsMatrixSolver, "solve", out_of_time)
    X, k, cons = _instance(1, 21, 3)
    with pytest.warns(ConvergenceWarning, match="The scores were not computed"):
        res = ccopt.impact_scores(X, k, constraints=cons, method="lp-dual", time_limit=0.5, random_state=0,
                                  progress=False)
    assert res.status == "time_limit" and res.n_iter == 0 and not res.scored
    assert res.lower_bound == -np.inf and np.all(res.scores == 0)


def test_an_lp_dual_failure_within_the_time_limit_is_still_an_error(monkeypatch):
    solve = HighsMatrixSolver.solve

    def fails(self, **kwargs):
        return dataclasses.replace(solve(self, **kwargs), status=Status.ERROR)

    monkeypatch.setattr(HighsMatrixSolver, "solve", fails)
    X, k, cons = _instance(1, 21, 3)
    with pytest.raises(SolverError, match="status error"):
        ccopt.impact_scores(X, k, constraints=cons, method="lp-dual", time_limit=60.0, random_state=0,
                            progress=False)


# -- the solution of HighsMatrixSolver, read when first asked for ---------------------------------


def test_the_solution_is_read_lazily_and_never_stale():
    # min -x0 - 2 x1 s.t. x0 + x1 <= 1, x0 - x1 <= 0.5; 0 <= x <= 1
    A = np.array([[1.0, 1.0], [1.0, -1.0]])
    program = HighsMatrixSolver([-1.0, -2.0], A, [-np.inf, -np.inf], [1.0, 0.5], [0, 0], [1, 1])
    program.solve()
    np.testing.assert_allclose(program.col_value, [0.0, 1.0], atol=1e-9)
    program.set_costs([-2.0, -1.0])
    with pytest.raises(SolverError, match="No solution is loaded"):
        _ = program.row_dual  # the values of the earlier solve are gone with it
    program.solve()
    x = program.col_value
    np.testing.assert_allclose(x, [0.75, 0.25], atol=1e-9)
    np.testing.assert_allclose(program.row_value, A @ x, atol=1e-9)
    # Optimality of the LP: reduced costs c - A^T y, both duals read only now.
    np.testing.assert_allclose(program.col_dual, np.array([-2.0, -1.0]) - A.T @ program.row_dual, atol=1e-9)
    assert program.col_value is x  # converted once
