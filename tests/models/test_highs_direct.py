"""The k-medoids program built directly for highspy equals the Pyomo route; its multipliers are
checked and copied, and its errors name what to change."""

from __future__ import annotations

import re

import numpy as np
import pytest
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

from ccopt import ClusteringProblem
from ccopt.exceptions import InvalidParameterError, SolverError
from ccopt.models import (
    assignment_matrix,
    build_kmedoids_model,
    build_lagrangian_model,
    kmedoids_labels,
    read_pairwise_duals,
    set_multipliers,
)
from ccopt.models.highs_direct import HighsKMedoids, kmedoids_matrices
from ccopt.solvers import solve

from .instances import blobs_with_noisy_constraints, six_points_problem


def pyomo_matrices(model, n):
    """The Pyomo model compiled by Pyomo, with rows and columns put in the direct order."""
    info = LinearStandardFormCompiler().write(model, mixed_form=True)
    columns = []
    for var in info.columns:
        index = [int(t) for t in re.findall(r"\d+", var.name)]
        columns.append(index[0] * n + index[1] if var.name.startswith("z[") else n * n + index[0])
    A = np.zeros((len(info.rows), n * n + n))
    A[:, columns] = info.A.toarray()
    cost = np.zeros(n * n + n)
    cost[columns] = info.c.toarray().ravel()
    kinds = np.array([row.bound_type for row in info.rows])
    rhs = np.asarray(info.rhs)
    return A, cost, np.where(kinds <= 0, rhs, -np.inf), np.where(kinds >= 0, rhs, np.inf), info


def test_matrices_equal_the_compiled_pyomo_model():
    X = np.random.default_rng(0).normal(size=(6, 2))
    problem = ClusteringProblem.create(X, 2, ml=[(0, 1), (2, 5)], cl=[(1, 3)], min_size=2, max_size=4)
    model = build_kmedoids_model(problem, relax=True, epsilon=0.25)
    A, cost, lower, upper, info = pyomo_matrices(model, 6)
    mats = kmedoids_matrices(problem, epsilon=0.25)
    assert mats.A.toarray() == pytest.approx(A)
    assert mats.cost == pytest.approx(cost)
    assert mats.row_lower == pytest.approx(lower) and mats.row_upper == pytest.approx(upper)
    # Row blocks carry the Pyomo component names, in the same order.
    names = [row.constraint.parent_component().name for row in info.rows]
    for name, block in mats.rows.items():
        assert set(names[block]) <= {name}
        assert names.count(name) == block.stop - block.start
    assert not mats.integrality.any()
    assert kmedoids_matrices(problem, relax=False).integrality.all()


@pytest.mark.parametrize("seed", [0, 8])
def test_lp_solution_and_duals_equal_the_pyomo_route(seed):
    problem = blobs_with_noisy_constraints(seed)
    model = build_kmedoids_model(problem, relax=True)
    pyomo_result = solve(model, "highs_matrix")
    direct = HighsKMedoids(problem)
    result = direct.solve()
    assert result.objective == pytest.approx(pyomo_result.objective, rel=1e-10)
    assert direct.assignment() == pytest.approx(assignment_matrix(model), abs=1e-9)
    theirs, ours = read_pairwise_duals(model), direct.pairwise_duals()
    for name in ("eta", "lam", "gamma"):
        assert getattr(ours, name) == pytest.approx(getattr(theirs, name), abs=1e-9)
    assert ours.scores == pytest.approx(theirs.scores, abs=1e-9)


def test_integer_program_equals_the_pyomo_route():
    problem = blobs_with_noisy_constraints(3, n=10, m=4)
    model = build_kmedoids_model(problem)
    expected = solve(model).objective
    direct = HighsKMedoids(problem, relax=False, pairwise="exact")
    assert direct.solve().objective == pytest.approx(expected, rel=1e-9)
    labels, medoids = direct.labels()
    expected_labels, expected_medoids = kmedoids_labels(model)
    assert medoids.tolist() == expected_medoids.tolist() and labels.tolist() == expected_labels.tolist()
    assert direct.medoid_indicator().sum() == pytest.approx(problem.n_clusters)


def test_lagrangian_costs_equal_the_pyomo_lagrangian():
    rng = np.random.default_rng(4)
    problem = blobs_with_noisy_constraints(5)
    cons, n = problem.constraints, problem.n_samples
    direct = HighsKMedoids(problem, lagrangian=True)
    model = build_lagrangian_model(problem)
    assert direct.solve().objective == pytest.approx(solve(model).objective, rel=1e-9)
    for _ in range(2):
        mult = {"eta": -rng.exponential(0.5, (cons.n_cl, n)),
                "lam": -rng.exponential(0.5, (cons.n_ml, n)),
                "gamma": -rng.exponential(0.5, (cons.n_ml, n))}
        direct.set_multipliers(**mult)
        set_multipliers(model, **mult)
        assert direct.solve().objective == pytest.approx(solve(model).objective, rel=1e-9)
    # With the LP duals as multipliers the LP-relaxed Lagrangian reaches the LP optimum.
    lp = HighsKMedoids(problem)
    optimum = lp.solve().objective
    direct.set_multipliers(**lp.pairwise_duals().multipliers())
    assert direct.solve().objective == pytest.approx(optimum, rel=1e-8)


def test_errors():
    problem = blobs_with_noisy_constraints(3, n=6, m=3)
    plain = HighsKMedoids(problem)
    with pytest.raises(InvalidParameterError, match="lagrangian=True"):
        plain.set_multipliers(eta=np.zeros((problem.constraints.n_cl, 6)))
    with pytest.raises(SolverError, match="No solution is loaded"):
        plain.assignment()
    lagrangian = HighsKMedoids(problem, lagrangian=True)
    lagrangian.solve()
    with pytest.raises(InvalidParameterError, match="no pairwise rows"):
        lagrangian.pairwise_duals()
    with pytest.raises(InvalidParameterError, match=r"eta must have shape"):
        lagrangian.set_multipliers(eta=np.zeros((9, 9)))
    integer = HighsKMedoids(problem, relax=False)
    integer.solve()
    with pytest.raises(SolverError, match="no row duals"):
        integer.pairwise_duals()


# ----------------------------------------------------------------------------- multipliers and the Lagrangian's epsilon


def test_highs_set_multipliers_keeps_the_costs_highs_has_after_an_error():
    program = HighsKMedoids(six_points_problem(), lagrangian=True)
    reference = program.solve().objective
    with pytest.raises(InvalidParameterError, match=r"lam must be <= 0"):
        program.set_multipliers(eta=np.full((1, 6), -1.0), lam=np.full((1, 6), 1.0))
    # Before: the rejected eta was kept and pushed by this call.
    program.set_multipliers(lam=np.zeros((1, 6)))
    assert program.solve().objective == pytest.approx(reference)


def test_highs_lagrangian_epsilon_error_hints_at_lagrangian_false():
    with pytest.raises(InvalidParameterError, match=r"got 0\.0; lagrangian=True relaxes") as info:
        HighsKMedoids(six_points_problem(), lagrangian=True, epsilon=0)
    assert "lagrangian=False, pairwise='exact'" in str(info.value)


def test_highs_kmedoids_keeps_its_own_copy_of_the_multipliers():
    # Before: the caller's array was kept, so after an in-place change (here to a positive,
    # invalid value) "None keeps the current values" used the changed, unchecked values.
    problem = blobs_with_noisy_constraints(5, n=8, k=2, m=4)
    cons, n = problem.constraints, problem.n_samples
    rng = np.random.default_rng(0)
    eta = -rng.exponential(1.0, (cons.n_cl, n))
    lam, gamma = -rng.exponential(1.0, (2, cons.n_ml, n))
    direct = HighsKMedoids(problem, lagrangian=True)
    direct.set_multipliers(eta=eta)
    model = build_lagrangian_model(problem)
    set_multipliers(model, eta=eta, lam=lam, gamma=gamma)
    expected = solve(model, "highs_matrix").objective
    eta[:] = 5.0
    direct.set_multipliers(lam=lam, gamma=gamma)
    assert direct.solve().objective == pytest.approx(expected, rel=1e-9)
