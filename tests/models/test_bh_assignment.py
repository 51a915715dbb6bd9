"""The BH-kmeans assignment program P: structure, exactness against enumeration, errors.

The gold standard is brute force (``bh_brute.py``): every labelling of a tiny instance
scored by P's definition, written out independently of ccopt.models.
"""

from __future__ import annotations

import warnings

import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt import ClusteringProblem, Constraints
from ccopt.exceptions import (
    InfeasibleConstraintsError,
    InvalidDataError,
    InvalidParameterError,
    SolverError,
    SolverNotAvailableError,
)
from ccopt.models._bh_rows import MatrixRows, PyomoRows
from ccopt.models.bh_assignment import (
    BHAssignmentPlan,
    BHAssignmentProgram,
    bh_objective,
    build_bh_assignment_model,
)
from ccopt.solvers import SolverOptions, _CompiledModel, available_solvers, solve
from ccopt.status import Status

from .bh_brute import FLAG_SETS, brute_force, make_problem, random_instance
from .instances import SIX_POINTS, random_pairs_problem, six_points_problem


def check_against_enumeration(X, centers, k, rows, penalty, min_size, max_size, **flags):
    costs, labellings = brute_force(X, centers, k, rows, penalty, min_size, max_size)
    problem = make_problem(X, k, rows, min_size, max_size)
    best = costs.min()
    if not np.isfinite(best):
        with pytest.raises(InfeasibleConstraintsError):
            BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                **flags).solve()
        return None
    program = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0, **flags)
    result = program.solve()
    assert result.objective == pytest.approx(best, rel=1e-7, abs=1e-7)
    # The labelling itself is pinned down when the optimum is unique.
    ordered = np.sort(costs[np.isfinite(costs)])
    if ordered.size == 1 or ordered[1] - ordered[0] > 1e-6:
        np.testing.assert_array_equal(result.labels, labellings[np.argmin(costs)])
    return result


# The program as matrices (highs_matrix, the default) and built in Pyomo (any other solver).
ROUTES = ["highs_matrix", "appsi_highs"]

# ----------------------------------------------------------------------------- exactness


@pytest.mark.parametrize("solver", ROUTES)
@pytest.mark.parametrize("seed", range(16))
def test_optimum_equals_enumeration(seed, solver):
    instance = random_instance(seed)
    for flags in FLAG_SETS:
        check_against_enumeration(*instance, solver=solver, **flags)


@pytest.mark.parametrize("solver", ROUTES)
@pytest.mark.parametrize("seed", range(8))
def test_optimum_with_size_bounds_equals_enumeration(seed, solver):
    instance = random_instance(100 + seed, sizes=True)
    for flags in ({}, {"contract": False}):
        check_against_enumeration(*instance, solver=solver, **flags)


@pytest.mark.parametrize("seed", range(6))
def test_free_object_elimination_is_exact_when_row_3_binds(seed):
    # k = 2 and few constrained objects: more than k^2 = 4 free objects, so only the
    # candidate slots keep variables; the far centre makes (3) decide the assignment.
    X, centers, k, rows, penalty, _, _ = random_instance(200 + seed, n=8, k=2, max_rows=2,
                                                         hard_prob=0.0, far_centre=True)
    # With p <= 0.2 (and weights <= 2) violating a constraint costs at most 0.4 M, less
    # than moving any object to the far centre, so only (3) can populate that cluster.
    penalty = min(penalty, 0.2)
    full = check_against_enumeration(X, centers, k, rows, penalty, None, None, decompose=False)
    decomposed = check_against_enumeration(X, centers, k, rows, penalty, None, None)
    if decomposed is not None:
        # Without (3) every object would stay at the near centre: the full program decides.
        assert decomposed.route == "full"
        assert full.objective == pytest.approx(decomposed.objective)


def test_reductions_agree_on_a_larger_instance():
    # 40 objects, k = 3: slots (9) are fewer than the free objects, components of every
    # size; no enumeration possible, so the variants are compared with each other.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    centers = rng.normal(size=(3, 3))
    pairs = rng.choice(40, size=(14, 2), replace=False)
    kinds = rng.choice(["ML", "CL"], size=14)
    hard = rng.random(14) < 0.3
    cons = Constraints(pairs, kinds, weights=rng.uniform(0.5, 2, 14), hard=hard, n_samples=40)
    problem = ClusteringProblem.create(X, 3, cons, require_closure=False)
    objectives = []
    for flags in FLAG_SETS:
        program = BHAssignmentProgram(problem, penalty=0.3, centers=centers, mip_gap=0.0, **flags)
        result = program.solve()
        assert not cons.violations(result.labels).violated[cons.hard].any()
        objectives.append(result.objective)
    assert objectives == pytest.approx([objectives[0]] * len(objectives), rel=1e-9)


def test_solver_objective_equals_definition_on_full_program():
    X, centers, k, rows, _, _, _ = random_instance(7, n=8, k=3, max_rows=6, hard_prob=0.0)
    problem = make_problem(X, k, rows)
    program = BHAssignmentProgram(problem, penalty=1.0, centers=centers, decompose=False, mip_gap=0.0)
    result = program.solve()
    assert result.route == "full"
    assert result.solves[0].objective == pytest.approx(result.objective, rel=1e-9)
    assert bh_objective(problem, result.labels, centers, penalty=1.0) == pytest.approx(result.objective)


def test_penalty_can_change_between_solves():
    X, centers, k, rows, _, _, _ = random_instance(11, n=7, k=2, max_rows=5, hard_prob=0.0)
    problem = make_problem(X, k, rows)
    for flags in ({}, {"decompose": False}):
        program = BHAssignmentProgram(problem, penalty=0.0, centers=centers, mip_gap=0.0, **flags)
        for penalty in (0.0, 2.0, 0.1):
            program.penalty = penalty
            costs, _ = brute_force(X, centers, k, rows, penalty)
            assert program.solve().objective == pytest.approx(costs.min())


def test_new_centres_change_only_params():
    X, _, k, rows, penalty, _, _ = random_instance(3, n=8, k=3)
    problem = make_problem(X, k, rows)
    program = BHAssignmentProgram(problem, penalty=penalty, decompose=False, mip_gap=0.0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        centers = rng.normal(size=(k, 2))
        program.set_centers(centers)
        costs, _ = brute_force(X, centers, k, rows, penalty)
        if np.isfinite(costs.min()):
            assert program.solve().objective == pytest.approx(costs.min(), rel=1e-7)


# ----------------------------------------------------------------------------- structure


@pytest.mark.parametrize("route", ["matrices", "pyomo"])
def test_full_program_is_resolved_in_place_on_highs_matrix(route):
    # New centres change the costs and row (3)'s right-hand sides. The matrix program sets
    # them in HiGHS; the Pyomo program, compiled by highs_matrix, refreshes them without
    # recompiling. Each re-solve equals a fresh solve of the Pyomo program by APPSI.
    rng = np.random.default_rng(3)
    problem = random_pairs_problem(rng, 60, 40, 4)
    program = BHAssignmentProgram(problem, solver="highs_matrix", decompose=False, mip_gap=0.0)
    if route == "pyomo":
        program._rows = lambda units, n_slots, *, nonempty, name: PyomoRows(
            program.plan, units, n_slots, nonempty=nonempty, penalty=program.penalty, name=name,
            solver="highs_matrix", options=program._options)
    for step, centers in enumerate(rng.normal(size=(3, 4, 2))):
        program.set_centers(centers)
        result = program.solve()
        fresh = BHAssignmentProgram(problem, centers=centers, decompose=False, mip_gap=0.0,
                                    solver="appsi_highs").solve()
        assert result.objective == pytest.approx(fresh.objective, rel=1e-9)
        if route == "pyomo":
            assert ("update" in result.solves[-1].timing) == (step > 0)


@pytest.mark.parametrize("seed", range(12))
def test_matrix_program_equals_the_compiled_pyomo_program(seed):
    # MatrixRows assembles P without Pyomo; compiling PyomoRows' model must give the same
    # columns, rows, bounds and costs, entry by entry, after the same numbers are pushed.
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(6, 14)), int(rng.integers(2, 4))
    every_pair = np.array(np.triu_indices(n, 1)).T
    pairs = every_pair[rng.choice(every_pair.shape[0], size=int(rng.integers(0, 12)), replace=False)]
    kinds = rng.choice(["ML", "CL"], size=pairs.shape[0])
    weights, hard = rng.uniform(0.5, 2, pairs.shape[0]), rng.random(pairs.shape[0]) < 0.3
    sizes = {"min_size": 1, "max_size": n} if seed % 3 == 0 else {}
    X = rng.normal(size=(n, 2))
    try:
        cons = Constraints(pairs, kinds, weights=weights, hard=hard, n_samples=n)
        plan = BHAssignmentPlan.from_problem(ClusteringProblem.create(X, k, cons, require_closure=False, **sizes))
    except InfeasibleConstraintsError:  # a hard cannot-link inside a hard must-link chain
        cons = Constraints(pairs, kinds, weights=weights, n_samples=n)
        plan = BHAssignmentPlan.from_problem(ClusteringProblem.create(X, k, cons, require_closure=False, **sizes))
    units = plan.constrained_units if seed % 2 else np.arange(plan.n_units)
    n_slots = int(rng.integers(0, 3)) if seed % 2 and not plan.sized else 0  # sized: no free units
    options = SolverOptions()
    nonempty = seed % 4 != 1
    common = dict(nonempty=nonempty, penalty=0.7, name="P", options=options)
    matrices = MatrixRows(plan, units, n_slots, **common)
    pyomo_rows = PyomoRows(plan, units, n_slots, solver="highs_matrix", **common)
    n_rows = units.size + n_slots
    rhs = rng.integers(-1, 2, k).astype(float) if nonempty else None
    push = (rng.uniform(0, 5, size=(n_rows, k)), 3.5, 0.7, 1.25, rhs)
    mask = rng.random((n_rows, k)) < 0.3
    for rows in (matrices, pyomo_rows):
        rows.push(*push)
        rows.forbid(mask)
    compiled = _CompiledModel(pyomo_rows.model, options).solver
    built = matrices._solver
    np.testing.assert_array_equal(built._A.toarray(), compiled._A.toarray())
    for name in ("_row_lower", "_row_upper", "_col_lower", "_col_upper", "_integer"):
        np.testing.assert_array_equal(getattr(built, name), getattr(compiled, name), err_msg=name)
    np.testing.assert_allclose(built._cost, compiled._cost, rtol=1e-15)
    assert built._offset == pytest.approx(compiled._offset, rel=1e-15)
    # The Pyomo twin of the matrices carries the same numbers.
    twin = _CompiledModel(matrices.model, options).solver
    np.testing.assert_allclose(twin._cost, compiled._cost, rtol=1e-15)
    np.testing.assert_array_equal(twin._col_upper, compiled._col_upper)


def test_uncontracted_model_has_the_rows_of_the_paper():
    X = np.arange(12, dtype=float).reshape(6, 2)
    cons = Constraints([(0, 1), (2, 3), (1, 4), (4, 5)], ["ML", "CL", "ML", "CL"],
                       hard=[False, False, True, True], n_samples=6)
    problem = ClusteringProblem.create(X, 3, cons, require_closure=False)
    m = build_bh_assignment_model(problem, X[:3], contract=False, eliminate_free=False)
    assert len(m.x) == 6 * 3
    assert len(m.assign) == 6
    assert len(m.nonempty) == 3
    assert len(m.must_link) == len(m.cannot_link) == 3          # one soft row per cluster
    assert len(m.hard_must_link) == len(m.hard_cannot_link) == 3
    assert len(m.z) == len(m.y) == 1
    assert m.find_component("min_size") is None
    assert pyo.value(m.M) == pytest.approx(np.linalg.norm(X[:, None] - X[None, :3], axis=2).max())


def test_contraction_merges_hard_must_link_components():
    X = np.arange(14, dtype=float).reshape(7, 2)
    # Hard ML 0-1-2 make one unit; the soft ML (0, 2) inside it disappears, the soft CL
    # (1, 2) inside it is always violated; two CL from the unit to 3 merge into one row.
    cons = Constraints([(0, 1), (1, 2), (0, 2), (0, 3), (2, 3), (4, 5)],
                       ["ML", "ML", "ML", "CL", "CL", "CL"], weights=[1, 1, 1, 0.5, 2.0, 1.0],
                       hard=[True, True, False, False, False, False], n_samples=7)
    problem = ClusteringProblem.create(X, 2, cons, require_closure=False)
    plan = BHAssignmentPlan.from_problem(problem)
    assert plan.n_units == 5
    assert plan.soft_ml.shape[0] == 0
    assert plan.soft_cl.shape[0] == 2
    assert sorted(plan.soft_cl_weight.tolist()) == [1.0, 2.5]
    m = build_bh_assignment_model(problem, X[:2], eliminate_free=False)
    assert len(m.x) == 5 * 2
    assert len(m.hard_must_link) == 0


def test_soft_cannot_link_inside_hard_component_is_a_constant():
    X = np.array([[0.0], [1.0], [5.0], [6.0]])
    cons = Constraints([(0, 1), (1, 2), (0, 2)], ["ML", "ML", "CL"], weights=[1, 1, 0.7],
                       hard=[True, True, False], n_samples=4)
    problem = ClusteringProblem.create(X, 2, cons, require_closure=False)
    plan = BHAssignmentPlan.from_problem(problem)
    assert plan.constant_weight == pytest.approx(0.7)
    rows = [(0, 1, "ML", 1.0, True), (1, 2, "ML", 1.0, True), (0, 2, "CL", 0.7, False)]
    check_against_enumeration(X, np.array([[0.0], [6.0]]), 2, rows, 1.0, None, None)


def test_size_rows_are_built_and_disable_elimination():
    X = np.arange(20, dtype=float).reshape(10, 2)
    problem = ClusteringProblem.create(X, 2, ml=[(0, 1)], min_size=3, max_size=7, require_closure=False)
    m = build_bh_assignment_model(problem, X[:2])
    assert len(m.min_size) == len(m.max_size) == 2
    assert len(m.x) == 10 * 2      # every object keeps its variables


def test_elimination_keeps_k_squared_slots():
    X = np.random.default_rng(0).normal(size=(50, 2))
    problem = ClusteringProblem.create(X, 3, ml=[(0, 1)], cl=[(2, 3)], require_closure=False)
    m = build_bh_assignment_model(problem, X[:3])
    assert len(m.x) == (4 + 9) * 3
    assert sum(pyo.value(m.nonempty_rhs[j]) for j in range(3)) == pytest.approx(3 - (50 - 4 - 9))


def test_built_model_solves_through_the_solver_seam():
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    problem = ClusteringProblem.create(X, 2, ml=[(0, 2)], require_closure=False)
    m = build_bh_assignment_model(problem, [[0.0], [5.0]], penalty=1.0, contract=False,
                                  eliminate_free=False)
    result = solve(m, mip_gap=0.0)
    costs, _ = brute_force(X, np.array([[0.0], [5.0]]), 2, [(0, 2, "ML", 1.0, False)], 1.0)
    assert result.objective == pytest.approx(costs.min())


# ----------------------------------------------------------------------------- errors


def test_hard_cannot_link_inside_hard_must_link_chain_raises_with_chain():
    X = np.zeros((4, 1)) + np.arange(4)[:, None]
    cons = Constraints([(0, 1), (1, 2), (0, 2)], ["ML", "ML", "CL"], hard=True, n_samples=4)
    problem = ClusteringProblem.create(X, 2, cons, require_closure=False)
    with pytest.raises(InfeasibleConstraintsError, match=r"chain 0 - 1 - 2") as info:
        BHAssignmentProgram(problem)
    assert info.value.certificate == [0, 1, 2]


@pytest.mark.parametrize("flags", [{}, {"decompose": False}])
def test_hard_cannot_link_triangle_with_two_clusters_is_infeasible(flags):
    X = np.arange(8, dtype=float).reshape(4, 2)
    cons = Constraints([(0, 1), (1, 2), (0, 2)], ["CL"] * 3, hard=True, n_samples=4)
    problem = ClusteringProblem.create(X, 2, cons, require_closure=False)
    program = BHAssignmentProgram(problem, centers=X[:2], **flags)
    with pytest.raises(InfeasibleConstraintsError, match="admit no"):
        program.solve()


def test_hard_must_link_component_larger_than_max_size_raises():
    X = np.arange(12, dtype=float).reshape(6, 2)
    cons = Constraints([(0, 1), (1, 2), (2, 3)], ["ML"] * 3, hard=True, n_samples=6)
    problem = ClusteringProblem.create(X, 2, cons, max_size=3, require_closure=False)
    with pytest.raises(InfeasibleConstraintsError, match="4 objects exceeds max_size=3"):
        BHAssignmentProgram(problem)


def test_too_few_hard_must_link_groups_for_k_raises():
    X = np.arange(8, dtype=float).reshape(4, 2)
    cons = Constraints([(0, 1), (1, 2)], ["ML", "ML"], hard=True, n_samples=4)
    problem = ClusteringProblem.create(X, 3, cons, require_closure=False)
    with pytest.raises(InfeasibleConstraintsError, match="into 2 groups, fewer than n_clusters=3"):
        BHAssignmentProgram(problem)


def test_bad_centres_and_labels_are_rejected():
    X = np.arange(8, dtype=float).reshape(4, 2)
    problem = ClusteringProblem.create(X, 2)
    with pytest.raises(InvalidDataError, match=r"shape \(n_clusters, n_features\) = \(2, 2\)"):
        BHAssignmentProgram(problem, centers=np.zeros((3, 2)))
    with pytest.raises(InvalidDataError, match="NaN or inf in row 1"):
        bh_objective(problem, [0, 0, 1, 1], [[0.0, 0.0], [np.nan, 1.0]])
    with pytest.raises(InvalidParameterError, match=r"labels must lie in 0\.\.1"):
        bh_objective(problem, [0, 0, 1, 2], X[:2])
    with pytest.raises(InvalidParameterError, match="labels must be 4 integers"):
        bh_objective(problem, [0, 1], X[:2])
    with pytest.raises(InvalidParameterError, match="penalty must be finite and >= 0"):
        BHAssignmentProgram(problem, penalty=-1.0)
    with pytest.raises(InvalidParameterError, match="set_centers"):
        BHAssignmentProgram(problem).solve()


def test_objective_is_infinite_outside_the_feasible_set():
    X = np.arange(8, dtype=float).reshape(4, 2)
    cons = Constraints([(0, 1)], ["CL"], hard=True, n_samples=4)
    problem = ClusteringProblem.create(X, 2, cons, max_size=2, require_closure=False)
    assert bh_objective(problem, [0, 1, 1, 0], X[:2]) < np.inf
    assert bh_objective(problem, [0, 0, 1, 1], X[:2]) == np.inf      # hard cannot-link violated
    assert bh_objective(problem, [0, 1, 0, 0], X[:2]) == np.inf      # a cluster of 3 > max_size
    assert bh_objective(ClusteringProblem.create(X, 2), [1, 1, 1, 1], X[:2]) == np.inf  # empty


# ----------------------------------------------------------------------------- solver swap

_OTHERS = [s for s in ("cbc", "glpk", "scip_direct", "highs") if s in available_solvers((s,))]


@pytest.mark.solver
@pytest.mark.parametrize("solver", _OTHERS or [pytest.param("cbc", marks=pytest.mark.skip("no solver"))])
def test_other_solvers_give_the_same_optimum(solver):
    X, centers, k, rows, penalty, _, _ = random_instance(21, n=8, k=3, max_rows=6, hard_prob=0.3)
    problem = make_problem(X, k, rows)
    reference = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                    decompose=False).solve()
    other = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                decompose=False, solver=solver).solve()
    assert other.objective == pytest.approx(reference.objective, rel=1e-7)
    costs, labellings = brute_force(X, centers, k, rows, penalty)
    np.testing.assert_array_equal(other.labels, labellings[np.argmin(costs)])


# ----------------------------------------------------------------------------- time limits


def test_exhausted_time_limit_falls_back_to_local_search_from_feasible_starts():
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(0, 0.5, size=(4, 2)), rng.normal(4, 0.5, size=(4, 2))])
    centers = np.array([[0.0, 0.0], [4.0, 4.0]])
    rows = [(0, 4, "ML", 1.0, False), (1, 2, "CL", 1.0, False), (5, 6, "CL", 0.5, False)]
    problem = make_problem(X, 2, rows)
    costs, _ = brute_force(X, centers, 2, rows, 1.0)
    nearest = np.argmin(np.linalg.norm(X[:, None] - centers[None], axis=2), axis=1)
    program = BHAssignmentProgram(problem, centers=centers, decompose=False)
    result = program.solve(time_limit=1e-9)   # spent before the solver is reached
    assert result.status == "time_limit"
    assert result.solves == ()
    assert costs.min() - 1e-9 <= result.objective <= bh_objective(problem, nearest, centers) + 1e-9
    # The previous assignment is a start too: after an exact solve it is kept.
    exact = program.solve()
    assert exact.objective == pytest.approx(costs.min())
    assert program.solve(time_limit=1e-9).objective == pytest.approx(costs.min())


def test_exhausted_time_limit_without_a_feasible_start_raises():
    # A path of hard cannot-links 0 - 1 - 2 - 3 (feasible: {0, 2} and {1, 3}). Nearest
    # centres put 0 and 1 together; the greedy placement puts 0 and 3 (largest regret) in
    # cluster 0, then 1 in cluster 1, and finds both clusters closed to 2.
    X = np.array([[0.0], [2.4], [2.6], [0.0]])
    cons = Constraints([(0, 1), (1, 2), (2, 3)], ["CL"] * 3, hard=True, n_samples=4)
    problem = ClusteringProblem.create(X, 2, cons, require_closure=False)
    program = BHAssignmentProgram(problem, centers=[[0.0], [5.0]], decompose=False)
    with pytest.raises(SolverError, match="ran out before the solver found an assignment"):
        program.solve(time_limit=1e-9)


GRAPHS = {
    "path": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
    "star": [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)],
    "cycle_with_tails": [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (0, 5), (5, 6)],
    "two_cycles": [(0, 1), (1, 2), (2, 3), (3, 0), (3, 4), (4, 5), (5, 3), (6, 7)],
}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("seed", range(3))
def test_leaf_elimination_is_exact_on_trees_and_cycles(graph, seed):
    # Leaves are folded into their neighbours' costs before anything is enumerated or
    # handed to the MILP; trees vanish entirely, cycles (the 2-core) stay.
    rng = np.random.default_rng(seed)
    k = 2 + seed % 2
    X = rng.normal(size=(8, 2))
    centers = rng.normal(scale=1.5, size=(k, 2))
    rows = [(i, j, str(rng.choice(["ML", "CL"])), float(rng.uniform(0.3, 2.0)), bool(rng.random() < 0.25))
            for i, j in GRAPHS[graph]]
    for flags in ({}, {"max_labellings": 1}):
        check_against_enumeration(X, centers, k, rows, float(rng.choice([0.1, 0.5, 1.0])), None, None,
                                  **flags)


@pytest.mark.parametrize("graph", ["path", "star"])
def test_leaf_elimination_with_a_single_cluster(graph):
    # k = 1: a peeled unit has no label other than its parent's.
    rng = np.random.default_rng(7)
    X = rng.normal(size=(8, 2))
    edges = GRAPHS[graph]
    kinds = (["ML", "CL"] * len(edges))[:len(edges)]
    rows = [(i, j, kind, 1.0, False) for (i, j), kind in zip(edges, kinds, strict=True)]
    check_against_enumeration(X, rng.normal(size=(1, 2)), 1, rows, 0.5, None, None)


@pytest.mark.parametrize("solver", ROUTES)
def test_solver_interrupt_becomes_keyboard_interrupt(monkeypatch, solver):
    # HiGHS handles Ctrl-C itself and returns status "interrupted"; the program passes it on.
    from ccopt.solvers import HighsMatrixSolver, PersistentSolver, SolveResult
    from ccopt.status import Status

    def interrupted(self, **kwargs):
        return SolveResult(Status.INTERRUPTED, None, None, 0.0, solver, "userInterrupt", False)

    monkeypatch.setattr(HighsMatrixSolver if solver == "highs_matrix" else PersistentSolver, "solve",
                        interrupted)
    X = np.arange(12, dtype=float).reshape(6, 2)
    problem = ClusteringProblem.create(X, 2, ml=[(0, 5)], cl=[(0, 1)], require_closure=False)
    with pytest.raises(KeyboardInterrupt):
        BHAssignmentProgram(problem, centers=X[:2], decompose=False, solver=solver).solve()


# ----------------------------------------------------------------------------- arguments: time limit, solver name, flags, penalties


CENTERS = np.array([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]])


@pytest.mark.parametrize("time_limit", [-1, float("nan"), "1", True, -np.inf])
def test_bh_solve_refuses_a_bad_time_limit(time_limit):
    program = BHAssignmentProgram(six_points_problem(), centers=CENTERS[:2])
    with pytest.raises(InvalidParameterError, match="time_limit must be"):
        program.solve(time_limit=time_limit)


def test_bh_solve_takes_zero_as_a_spent_budget():
    # BHKMeans hands over what its Deadline has left, which stops at 0.
    program = BHAssignmentProgram(six_points_problem(), centers=CENTERS[:2], decompose=False)
    result = program.solve(time_limit=0)
    assert result.status is Status.TIME_LIMIT and result.solves == ()


def test_bh_solve_takes_an_infinite_time_limit():
    program = BHAssignmentProgram(six_points_problem(), centers=CENTERS[:2], decompose=False)
    assert program.solve(time_limit=float("inf")).status is Status.OPTIMAL


def test_bh_program_checks_the_solver_name_at_construction():
    # Before: accepted, and solve() returned optimal by the decomposition (no solver call).
    with pytest.raises(SolverNotAvailableError, match="foobar"):
        BHAssignmentProgram(six_points_problem(), solver="foobar", centers=CENTERS[:2])


@pytest.mark.parametrize(("builder", "kwargs"), [
    (BHAssignmentProgram, {"contract": "no"}),
    (BHAssignmentProgram, {"decompose": 0}),
    (build_bh_assignment_model, {"centers": CENTERS[:2], "eliminate_free": "no"}),
])
def test_bh_builders_refuse_non_bool_flags(builder, kwargs):
    flag, value = next((key, v) for key, v in kwargs.items() if key != "centers")
    with pytest.raises(InvalidParameterError, match=rf"{flag} must be True or False, got {value!r}"):
        builder(six_points_problem(), **kwargs)


def test_bh_builders_refuse_a_non_problem():
    with pytest.raises(InvalidParameterError, match=r"Expected a ccopt\.ClusteringProblem, got ndarray"):
        build_bh_assignment_model(SIX_POINTS, CENTERS[:2])
    with pytest.raises(InvalidParameterError, match=r"Expected a ccopt\.ClusteringProblem, got NoneType"):
        BHAssignmentProgram(None)


def test_bh_penalties_that_overflow_are_refused_not_made_hard():
    # penalty * weight * M overflowed to inf: a numpy RuntimeWarning, then the soft constraint
    # acted as a hard one. PCKMeans and PCS refuse such penalties; BH-kmeans now does too.
    from ccopt import BHKMeans

    X = np.random.default_rng(0).normal(size=(12, 2))
    cons = Constraints.from_pairs(ml=[(0, 1)], ml_weights=1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(InvalidParameterError, match=r"penalties overflow float64: penalty=1e\+300 times M="):
            BHKMeans(3, penalty=1e300, random_state=0).fit(X, constraints=cons)
    program = BHAssignmentProgram(ClusteringProblem.create(X, 3, constraints=cons, require_closure=False),
                                  centers=X[:3], penalty=1.0)
    with pytest.raises(InvalidParameterError, match="penalties overflow float64"):
        program.penalty = 1e300
    assert program.penalty == 1.0
