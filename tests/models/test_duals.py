"""Row duals of the pairwise rows: signs, alignment, and the derivation (12)-(16).

The impact score of a constraint is the derivative of the LP optimum when all its rows are
relaxed by ``b`` (one value of ``b`` for every cluster). The finite difference
``(Z(b) - Z(0)) / b`` is computed here by re-solving the LP with the right-hand sides moved,
independently of any dual. The LP dual of the relaxation is also written out: the sign of
every row's dual, the dual objective, one-row finite differences.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyomo.environ as pyo
import pytest
from pyomo.repn import generate_standard_repn

import ccopt.models.duals as duals_module
from ccopt import ClusteringProblem, Constraints
from ccopt.exceptions import InvalidParameterError, SolverError, SolverNotAvailableError
from ccopt.models import build_kmedoids_model, build_mssc_model, read_pairwise_duals, solve_lp_duals
from ccopt.models.duals import PairwiseDuals
from ccopt.solvers import available_solvers, solve

from .instances import blobs_with_noisy_constraints, six_points_problem

LP_SOLVERS = available_solvers(("appsi_highs", "highs_matrix", "cbc", "glpk"))


def relaxed_optimum(problem, position: int, b: float, solver: str = "highs_matrix") -> float:
    """LP optimum with the rows of the constraint at ``position`` relaxed by ``b``."""
    m = build_kmedoids_model(problem, relax=True)
    cons = problem.constraints
    if cons.cl_mask[position]:
        c = int(np.flatnonzero(cons.cl_indices == position)[0])
        rows = [m.cl_rows[c, j] for j in m.J]
    else:
        c = int(np.flatnonzero(cons.ml_indices == position)[0])
        rows = [m.ml_rows_fwd[c, j] for j in m.J] + [m.ml_rows_bwd[c, j] for j in m.J]
    for row in rows:
        row.set_value((None, row.body, pyo.value(row.upper) + b))
    return solve(m, solver).objective


@pytest.mark.parametrize("seed", [7, 8])
def test_scores_are_the_finite_differences_of_the_lp_optimum(seed):
    # Instances whose duals are unique (every LP solver returns the same ones): each score
    # is the derivative of Z(b) at b = 0+ (relaxing, as in (12)).
    problem = blobs_with_noisy_constraints(seed)
    m = build_kmedoids_model(problem, relax=True)
    base = solve(m, "highs_matrix").objective
    scores = read_pairwise_duals(m).scores
    assert (scores < -1e-3).any()  # the instance has a constraint the data contradict
    b = 1e-5
    for position in range(len(problem.constraints)):
        difference = (relaxed_optimum(problem, position, b) - base) / b
        assert difference == pytest.approx(scores[position], abs=1e-5)


@pytest.mark.parametrize("seed", [5])
def test_scores_are_subgradients_of_the_lp_optimum_on_degenerate_instances(seed):
    # Z(b) is convex in the right-hand sides and a dual is a subgradient of it, so the score
    # lies between the left and right finite differences even when constraints block
    # together and the duals are not unique (seeds where LP solvers disagree).
    problem = blobs_with_noisy_constraints(seed)
    m = build_kmedoids_model(problem, relax=True)
    base = solve(m, "highs_matrix").objective
    scores = read_pairwise_duals(m).scores
    b = 1e-5
    for position in range(len(problem.constraints)):
        right = (relaxed_optimum(problem, position, b) - base) / b
        left = (base - relaxed_optimum(problem, position, -b)) / b
        assert left - 1e-6 <= scores[position] <= right + 1e-6


@pytest.mark.parametrize("solver", LP_SOLVERS)
def test_every_lp_solver_gives_the_same_non_positive_duals(solver):
    problem = blobs_with_noisy_constraints(8)  # unique duals
    reference = build_kmedoids_model(problem, relax=True)
    solve(reference, "highs_matrix")
    m = build_kmedoids_model(problem, relax=True)
    result = solve(m, solver)
    assert result.objective == pytest.approx(pyo.value(reference.objective), rel=1e-7)
    duals = read_pairwise_duals(m)
    assert (duals.eta <= 0).all() and (duals.lam <= 0).all() and (duals.gamma <= 0).all()
    assert duals.scores == pytest.approx(read_pairwise_duals(reference).scores, abs=1e-6)


def test_scores_come_back_in_the_constraints_order():
    problem = blobs_with_noisy_constraints(8)  # unique duals: the row order cannot matter
    cons = problem.constraints
    shuffled = np.arange(len(cons))[::-1]
    reordered = Constraints(cons.pairs[shuffled], cons.kinds[shuffled], n_samples=problem.n_samples)
    other = ClusteringProblem.create(problem.X, problem.n_clusters, reordered, require_closure=False)
    scores = solve_lp_duals(problem).scores
    assert solve_lp_duals(other).scores == pytest.approx(scores[shuffled], abs=1e-7)


def test_one_shot_route_matches_the_model_route():
    problem = blobs_with_noisy_constraints(8)
    lp = solve_lp_duals(problem, solver="appsi_highs")
    m = build_kmedoids_model(problem, relax=True)
    assert lp.objective == pytest.approx(solve(m).objective)
    assert lp.x.shape == (problem.n_samples, problem.n_samples)
    assert lp.x.sum(axis=1) == pytest.approx(np.ones(problem.n_samples))
    assert lp.scores == pytest.approx(read_pairwise_duals(m).scores, abs=1e-6)
    multipliers = lp.duals.multipliers()
    assert multipliers["eta"].shape == (problem.constraints.n_cl, problem.n_samples)


def test_errors_say_what_is_missing():
    problem = blobs_with_noisy_constraints(1, n=6, m=2)
    with pytest.raises(InvalidParameterError, match="no 'dual' Suffix; build it with relax=True"):
        read_pairwise_duals(build_kmedoids_model(problem))
    with pytest.raises(InvalidParameterError, match="no pairwise rows"):
        read_pairwise_duals(build_kmedoids_model(problem, relax=True, pairwise="none"))
    with pytest.raises(SolverError, match="No dual is loaded"):
        read_pairwise_duals(build_kmedoids_model(problem, relax=True))
    with pytest.raises(SolverError, match="positive"):
        PairwiseDuals.from_row_duals(np.array([[0.5, 0.0]]), np.zeros((0, 2)), np.zeros((0, 2)),
                                     np.zeros(0, dtype=int), np.array([0]))


def test_read_pairwise_duals_docstring_does_not_promise_mssc():
    first_line = read_pairwise_duals.__doc__.splitlines()[0]
    assert "k-medoids" in first_line and "MSSC" not in first_line
    m = build_mssc_model(six_points_problem(), relax=True)
    with pytest.raises(InvalidParameterError, match="not LPs"):
        read_pairwise_duals(m)


def test_missing_dual_suffix_on_a_relaxed_mssc_model_is_explained():
    # Before: "build it with relax=True", given for a model built with relax=True.
    problem = ClusteringProblem.create(np.eye(4), 2, ml=[(0, 1)], cl=[(2, 3)])
    model = build_mssc_model(problem, relax=True, pairwise="epsilon")
    with pytest.raises(InvalidParameterError, match="relaxed MSSC programs are not LPs"):
        read_pairwise_duals(model)


def test_solve_lp_duals_checks_solver_and_time_limit_before_building(monkeypatch):
    # Before: the n^2-column model was built first (seconds and GB at n = 500, or a
    # MemoryBudgetError hiding the actual mistake), then the solver was looked up.
    def no_build(*args, **kwargs):
        raise AssertionError("the model was built before the arguments were checked")

    monkeypatch.setattr(duals_module, "build_kmedoids_model", no_build)
    problem = ClusteringProblem.create(np.eye(4), 2, cl=[(0, 1)])
    with pytest.raises(SolverNotAvailableError, match="Pyomo knows no solver named 'no_such_lp'"):
        solve_lp_duals(problem, solver="no_such_lp")
    with pytest.raises(InvalidParameterError, match=r"time_limit must be > 0 seconds, got -1"):
        solve_lp_duals(problem, time_limit=-1)


def test_round_off_above_zero_is_clipped():
    duals = PairwiseDuals.from_row_duals(np.array([[1e-12, -2.0]]), np.zeros((0, 2)),
                                         np.zeros((0, 2)), np.zeros(0, dtype=int), np.array([0]))
    assert duals.eta.tolist() == [[0.0, -2.0]] and duals.scores.tolist() == [-2.0]


# ----------------------------------------------------------------------------- the LP dual written out


def _lp_problems():
    yield blobs_with_noisy_constraints(8, n=12, k=3, m=6)
    rng = np.random.default_rng(400)
    for _ in range(6):
        n = int(rng.integers(4, 9))
        k = int(rng.integers(1, 4))
        X = rng.normal(size=(n, 2))
        X[n // 2:] += 2.5
        pairs = list(itertools.combinations(range(n), 2))
        ml, cl = [], []
        for index in rng.choice(len(pairs), size=4, replace=False):
            (ml if rng.random() < 0.5 else cl).append(pairs[index])
        sizes = {"min_size": 1, "max_size": n - 1} if rng.random() < 0.5 and k > 1 else {}
        yield ClusteringProblem.create(X, k, ml=ml, cl=cl, require_closure=False, **sizes)


@pytest.mark.parametrize("solver", available_solvers(("highs_matrix", "appsi_highs", "glpk")))
def test_lp_duals_have_the_right_sign_on_every_row_and_give_the_lp_optimum(solver):
    # LP duality written out: with y the row duals (d objective / d rhs) and r = c - A^T y the
    # reduced costs of the [0, 1] columns, b^T y + sum(min(r, 0)) is the LP optimum; <= rows
    # have y <= 0, >= rows y >= 0, and a pairwise row with a non-zero dual is binding.
    for problem in _lp_problems():
        model = build_kmedoids_model(problem, relax=True, epsilon=0.4)
        result = solve(model, solver, require_solution=False)
        if not result.has_solution:
            continue
        columns = {id(v): t for t, v in enumerate(model.component_data_objects(pyo.Var))}
        reduced = np.zeros(len(columns))
        objective = generate_standard_repn(model.objective.expr)
        for v, a in zip(objective.linear_vars, objective.linear_coefs, strict=True):
            reduced[columns[id(v)]] += a
        dual_objective = objective.constant
        for row in model.component_data_objects(pyo.Constraint, active=True):
            y = model.dual[row]
            body = generate_standard_repn(row.body)
            for v, a in zip(body.linear_vars, body.linear_coefs, strict=True):
                reduced[columns[id(v)]] -= y * a
            if row.equality:
                rhs = pyo.value(row.upper)
            elif row.lower is None:
                rhs = pyo.value(row.upper)
                assert y <= 1e-9, row.name
                if abs(y) > 1e-7:
                    assert pyo.value(row.body) == pytest.approx(rhs, abs=1e-7), row.name
            else:
                rhs = pyo.value(row.lower)
                assert y >= -1e-9, row.name
            dual_objective += y * (rhs - body.constant)
        dual_objective += np.minimum(reduced, 0.0).sum()
        assert dual_objective == pytest.approx(result.objective, rel=1e-7, abs=1e-7)
        read_pairwise_duals(model)  # and the reader accepts them


def test_each_row_dual_is_a_subgradient_of_the_lp_optimum_in_that_rows_rhs():
    # One row at a time (not the summed score): Z(rhs) is convex, so its dual lies between
    # the left and right finite differences. eta must come from cl_rows, lam from
    # ml_rows_bwd (4'') and gamma from ml_rows_fwd (4'); a swap of lam and gamma fails here.
    problem = blobs_with_noisy_constraints(2, n=16, k=3, m=6)  # all three kinds bind
    model = build_kmedoids_model(problem, relax=True)
    base = solve(model, "highs_matrix").objective
    duals = read_pairwise_duals(model)
    h = 1e-4

    def moved(name, c, j, step):
        m = build_kmedoids_model(problem, relax=True)
        row = m.component(name)[c, j]
        row.set_value((None, row.body, pyo.value(row.upper) + step))
        return solve(m, "highs_matrix").objective

    checked = 0
    for name, values in (("cl_rows", duals.eta), ("ml_rows_bwd", duals.lam), ("ml_rows_fwd", duals.gamma)):
        rows = [tuple(t) for t in np.argwhere(values < -1e-6)][:3]
        assert rows, f"no binding {name} row in the instance"
        for c, j in rows:
            right = (moved(name, c, j, h) - base) / h
            left = (base - moved(name, c, j, -h)) / h
            assert left - 1e-6 <= values[c, j] <= right + 1e-6, (name, c, j, left, values[c, j], right)
            checked += 1
    assert checked >= 3
