"""The solver seam (ccopt.solvers) on the programs of ccopt.models, solver by solver: option
names, time and gap limits, statuses and bounds, and the options HiGHS refuses."""

from __future__ import annotations

import itertools
import math
import time

import networkx as nx
import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt import ClusteringProblem
from ccopt.exceptions import InvalidParameterError, SolverError
from ccopt.models import build_kmedoids_model, build_mssc_model
from ccopt.models.highs_direct import HighsKMedoids
from ccopt.solvers import (
    HighsMatrixSolver,
    PersistentSolver,
    SolverOptions,
    _require,
    available_solvers,
    solve,
)
from ccopt.status import Status

from .instances import blobs_with_noisy_constraints

HIGHS_SOLVERS = available_solvers(("appsi_highs", "highs", "highs_matrix"))
needs_appsi_cbc = pytest.mark.skipif("appsi_cbc" not in available_solvers(("appsi_cbc",)),
                                     reason="cbc is not installed (apt-get install coinor-cbc)")
needs_cbc = pytest.mark.skipif("cbc" not in available_solvers(("cbc",)),
                               reason="cbc is not installed (apt-get install coinor-cbc)")


def small_knapsack(n: int = 12, seed: int = 0):
    """max v.x s.t. w.x <= W, x binary; its optimum is found by enumeration below."""
    rng = np.random.default_rng(seed)
    w, v = rng.integers(5, 30, n), rng.integers(5, 30, n)
    capacity = int(w.sum() // 2)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(n), domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(int(w[j]) * m.x[j] for j in range(n)) <= capacity)
    m.objective = pyo.Objective(expr=sum(int(v[j]) * m.x[j] for j in range(n)), sense=pyo.maximize)
    picks = np.array(list(itertools.product((0, 1), repeat=n)))
    best = float((picks @ v)[picks @ w <= capacity].max())
    return m, best


def tiny_mssc_problem():
    X = np.random.default_rng(0).normal(size=(5, 2))
    return ClusteringProblem.create(X, 2, ml=[(0, 1)]), X


# ----------------------------------------------------------------------------- CBC (appsi_cbc and cbc) and glpk


@needs_appsi_cbc
def test_appsi_cbc_gets_the_mip_gap_under_cbc_option_names(capfd):
    # Before: the gap went to CBC as "-mip_rel_gap", which CBC answered with "No match for
    # mip_rel_gap" and ignored; CBC's own name is "ratio" (ratioGap).
    model, best = small_knapsack()
    result = solve(model, "appsi_cbc", mip_gap=0.25, tee=True)
    log = capfd.readouterr().out
    assert "No match for" not in log
    assert "ratioGap was changed from 0 to 0.25" in log
    assert result.has_solution and result.objective <= best + 1e-9
    # APPSI's CBC reports no bound: with a gap allowed, the incumbent is not claimed as one.
    assert result.bound is None
    assert solve(small_knapsack()[0], "appsi_cbc").bound == pytest.approx(best)


@needs_appsi_cbc
def test_appsi_cbc_refuses_nonlinear_models_instead_of_solving_another_one():
    # Before: APPSI's LP writer dropped the fractional objective (6) and CBC returned
    # "optimal" with the WCSS of an arbitrary labelling (5.27 here, optimum 2.47).
    problem, _ = tiny_mssc_problem()
    with pytest.raises(SolverError, match=r"Objective objective is nonlinear; 'appsi_cbc'"):
        solve(build_mssc_model(problem, form="fractional"), "appsi_cbc")
    # Before: "No such file or directory: '....soln'".
    with pytest.raises(SolverError, match=r"Constraint bigm_rows\[0,0\] is nonlinear; 'appsi_cbc'"):
        solve(build_mssc_model(problem), "appsi_cbc")
    # Linear models still go through, on later persistent solves too.
    model, best = small_knapsack()
    persistent = PersistentSolver(model, "appsi_cbc")
    assert persistent.solve().objective == pytest.approx(best)
    assert persistent.solve().objective == pytest.approx(best)


@needs_cbc
def test_an_option_cbc_does_not_know_is_refused_not_dropped():
    # CBC printed "No match for mip_rel_gap" and solved without a gap, where the HiGHS routes
    # refuse a misspelt option.
    model = build_kmedoids_model(ClusteringProblem.create(np.array([[0.0], [1.0], [5.0]]), 2))
    with pytest.raises(InvalidParameterError, match=r"CBC does not know the option\(s\) 'mip_rel_gap', "
                       r"'secs' \(options given: \{'mip_rel_gap': 0.3, 'secs': 5\}\)"):
        solve(model, "cbc", options={"mip_rel_gap": 0.3, "secs": 5})
    assert solve(model, "cbc", options={"ratioGap": 0.3, "seconds": 5}).status is Status.OPTIMAL


@pytest.mark.skipif("glpk" not in available_solvers(("glpk",)),
                    reason="glpk is not installed (apt-get install glpk-utils)")
def test_an_infeasible_lp_on_glpk_says_where_to_look():
    # glpsol prints "LP HAS NO PRIMAL FEASIBLE SOLUTION", which Pyomo maps to "other": the
    # message said only "status: error".
    X = np.array([[0.0], [0.2], [5.0], [5.3], [9.0]])
    model = build_kmedoids_model(ClusteringProblem.create(X, 2), relax=True)
    model.extra = pyo.Constraint(expr=sum(model.y.values()) >= 3)  # two medoids exactly, in (5)
    with pytest.raises(SolverError, match=r"termination: other.*GLPK ends an infeasible LP so\); run "
                       r"with tee=True to see its log"):
        solve(model, "glpk")
    with pytest.raises(SolverError, match=r"The model is infeasible\.$"):
        solve(model, "highs_matrix")


@pytest.mark.skipif("glpk" not in available_solvers(("glpk",)),
                    reason="glpk is not installed (apt-get install glpk-utils)")
def test_glpk_stopped_at_the_mip_gap_is_optimal_within_it_as_on_highs():
    # glpsol calls a run stopped at --mipgap 'feasible', which ccopt reported while HiGHS and
    # CBC report the same stop as optimal. Seed 0's optimum (172) is not reached at gap 0.3.
    model, best = small_knapsack(12, 0)
    result = solve(model, "glpk", mip_gap=0.3)
    assert result.objective < best and result.objective >= (1 - 0.3) * best
    assert result.status is Status.OPTIMAL and result.bound is None  # glpsol reports no bound
    assert solve(model, "glpk", mip_gap=0.3, time_limit=60).status is Status.OPTIMAL
    # With a limit of glpsol's own among the options, an early stop proves nothing.
    assert solve(model, "glpk", mip_gap=0.3, options={"tmlim": 60}).status is Status.FEASIBLE
    assert solve(model, "glpk").objective == pytest.approx(best)


def _kmedoids_80(relax: bool = False):
    """A k-medoids program that CBC cannot settle in a second (k = 5, 150 random pairs)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, size=80)
    X = rng.normal(size=(80, 2)) * 1.5 + np.c_[np.cos(y * 1.2566), np.sin(y * 1.2566)] * 2
    pairs = list(itertools.combinations(range(80), 2))
    rng.shuffle(pairs)
    ml = [(int(a), int(b)) for a, b in pairs[:150] if y[a] == y[b]]
    cl = [(int(a), int(b)) for a, b in pairs[:150] if y[a] != y[b]]
    return build_kmedoids_model(ClusteringProblem.create(X, 5, ml=ml, cl=cl), relax=relax)


@pytest.mark.slow  # about 8 s of CBC runs
@needs_cbc
def test_cbc_stopped_by_its_time_limit_says_so_with_or_without_an_incumbent():
    # CBC says only "a limit was hit": intermediateNonInteger (MIP, no integer point yet) was
    # reported as an error, maxIterations (LP) as an iteration limit, neither with the hint.
    mip = solve(_kmedoids_80(), "cbc", time_limit=1, require_solution=False)
    assert (mip.status, mip.termination, mip.has_solution, mip.objective) == (
        Status.TIME_LIMIT, "intermediateNonInteger", False, None)
    with pytest.raises(SolverError, match=r"termination: intermediateNonInteger, status: time_limit\)\. Raise the time limit"):
        _require(mip, require_solution=True)
    lp = solve(_kmedoids_80(relax=True), "cbc", time_limit=0.01, require_solution=False)
    assert lp.status is Status.TIME_LIMIT
    # With a limit of CBC's own among the options, the stop proves nothing about the time.
    assert solve(_kmedoids_80(), "cbc", time_limit=1, options={"maxNodes": 1},
                 require_solution=False).status is Status.ERROR


@needs_cbc
def test_cbc_reports_no_bound_for_an_infeasible_model():
    # The Groetzsch graph's cannot-links need 4 clusters: CBC proved infeasibility with k = 3
    # but handed back the bound of its last node (9.79), which no other solver reports. (A
    # triangle-free graph: the builder refuses what check_feasibility proves, a (k+1)-clique
    # or, for k = 2, an odd cycle, before any solver sees it.)
    X = np.random.default_rng(0).normal(size=(12, 2))
    edges = [tuple(sorted(edge)) for edge in nx.mycielski_graph(4).edges]
    model = build_kmedoids_model(ClusteringProblem.create(X, 3, cl=edges))
    result = solve(model, "cbc", require_solution=False)
    assert result.status is Status.INFEASIBLE and result.bound is None


# ----------------------------------------------------------------------------- time limits


@pytest.mark.parametrize("solver", available_solvers(("appsi_highs", "highs", "highs_matrix", "cbc",
                                                      "glpk", "scip_direct", "appsi_cbc")))
def test_an_infinite_time_limit_means_no_limit(solver):
    # Before: glpk failed with "cannot convert float infinity to integer" and SCIP with
    # "the value is invalid for the given parameter"; check_time_limit accepts inf.
    model, best = small_knapsack()
    result = solve(model, solver, time_limit=math.inf)
    assert result.status is Status.OPTIMAL and result.objective == pytest.approx(best)
    assert SolverOptions(time_limit=math.inf).time_limit is None
    again = PersistentSolver(small_knapsack()[0], solver, SolverOptions(time_limit=60.0))
    assert again.solve(time_limit=math.inf).objective == pytest.approx(best)


def test_highs_matrix_counts_compiling_against_the_time_limit(monkeypatch):
    import ccopt.solvers as solvers

    given = []
    original_solve = HighsMatrixSolver.solve
    original_init = solvers._CompiledModel.__init__

    def slow_compile(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        time.sleep(0.3)

    def recording(self, *, time_limit=None, **kwargs):
        given.append(time_limit)
        return original_solve(self, time_limit=time_limit, **kwargs)

    monkeypatch.setattr(solvers._CompiledModel, "__init__", slow_compile)
    monkeypatch.setattr(HighsMatrixSolver, "solve", recording)
    model, best = small_knapsack()
    assert PersistentSolver(model, "highs_matrix").solve(time_limit=10.0).objective == pytest.approx(best)
    assert given and given[0] <= 10.0 - 0.3


# ----------------------------------------------------------------------------- HiGHS


@pytest.mark.parametrize("solver", HIGHS_SOLVERS)
def test_highs_options_it_refuses_are_errors_not_silently_dropped(solver):
    # Before: a misspelt "time_limt" (so no time limit at all) or an invalid value was
    # ignored by every HiGHS route and the solve went on.
    model, best = small_knapsack()
    for options, shown in (({"time_limt": 5.0}, "'time_limt' = 5.0"),
                           ({"presolve": "maybe"}, "'presolve' = 'maybe'"),
                           ({"time_limit": "abc"}, "'time_limit' = 'abc'")):
        with pytest.raises(InvalidParameterError, match=f"HiGHS rejects the option {shown}"):
            solve(model, solver, options=options)
    assert solve(model, solver, options={"presolve": "off", "random_seed": 3}).objective == pytest.approx(best)


def test_highs_matrix_solver_and_highs_kmedoids_check_their_options():
    with pytest.raises(InvalidParameterError, match="HiGHS rejects the option 'mip_rel_gp'"):
        HighsMatrixSolver([1.0], np.ones((1, 1)), [1.0], [np.inf], [0.0], [2.0],
                          options=SolverOptions(extra={"mip_rel_gp": 0.1}))
    problem = blobs_with_noisy_constraints(3, n=6, m=3)
    with pytest.raises(InvalidParameterError, match="HiGHS rejects the option 'thread'"):
        HighsKMedoids(problem, options=SolverOptions(extra={"thread": 1}))


def test_highs_matrix_solves_a_model_whose_variables_are_all_fixed_like_the_other_routes():
    # Before: HiGHS answered the program without columns with kModelEmpty and no solution,
    # so highs_matrix raised where appsi_highs and highs return the objective at the point.
    def fixed_model():
        m = pyo.ConcreteModel()
        m.x = pyo.Var(bounds=(0, 4))
        m.y = pyo.Var(domain=pyo.Binary)
        m.x.fix(1.5)
        m.y.fix(1)
        m.c = pyo.Constraint(expr=m.x + m.y <= 3)
        m.objective = pyo.Objective(expr=2 * m.x + m.y + 1)
        return m

    for solver in HIGHS_SOLVERS:
        result = solve(fixed_model(), solver)
        assert result.status is Status.OPTIMAL and result.objective == pytest.approx(2 * 1.5 + 1 + 1)
    # In matrix form: rows without columns hold at 0 or make the program infeasible.
    empty = np.zeros((1, 0))
    feasible = HighsMatrixSolver([], empty, [-1.0], [1.0], [], [], offset=2.5).solve()
    assert feasible.status is Status.OPTIMAL and feasible.objective == pytest.approx(2.5)
    infeasible = HighsMatrixSolver([], empty, [1.0], [2.0], [], []).solve(require_solution=False)
    assert infeasible.status is Status.INFEASIBLE and not infeasible.has_solution
