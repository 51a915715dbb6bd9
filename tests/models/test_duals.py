"""Row duals of the pairwise rows: signs, alignment, and the derivation (12)-(16).

The impact score of a constraint is the derivative of the LP optimum when all its rows are
relaxed by ``b`` (one value of ``b`` for every cluster). The finite difference
``(Z(b) - Z(0)) / b`` is computed here by re-solving the LP with the right-hand sides moved,
independently of any dual.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt import ClusteringProblem, Constraints
from ccopt.exceptions import InvalidParameterError, SolverError
from ccopt.models import build_kmedoids_model, read_pairwise_duals, solve_lp_duals
from ccopt.models.duals import PairwiseDuals
from ccopt.solvers import available_solvers, solve

from .instances import blobs_with_noisy_constraints

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


def test_round_off_above_zero_is_clipped():
    duals = PairwiseDuals.from_row_duals(np.array([[1e-12, -2.0]]), np.zeros((0, 2)),
                                         np.zeros((0, 2)), np.zeros(0, dtype=int), np.array([0]))
    assert duals.eta.tolist() == [[0.0, -2.0]] and duals.scores.tolist() == [-2.0]
