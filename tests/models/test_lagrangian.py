"""The Lagrangian relaxation (10): its value, its bounds, and re-solves after new multipliers."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.spatial.distance import cdist

from ccopt import ClusteringProblem
from ccopt.exceptions import InvalidParameterError
from ccopt.models import (
    abstract_lagrangian_model,
    assignment_matrix,
    build_kmedoids_model,
    build_lagrangian_model,
    build_mssc_model,
    lagrangian_subgradients,
    read_pairwise_duals,
    set_multipliers,
)
from ccopt.solvers import PersistentSolver, available_solvers, solve

from .brute import kmedoids_costs, labellings
from .instances import blobs_with_noisy_constraints


def random_multipliers(problem, n_clusters, rng):
    cons = problem.constraints
    return {"eta": -rng.exponential(0.3, (cons.n_cl, n_clusters)),
            "lam": -rng.exponential(0.3, (cons.n_ml, n_clusters)),
            "gamma": -rng.exponential(0.3, (cons.n_ml, n_clusters))}


def test_objective_is_formula_10_at_any_point():
    # The penalty written out by hand, at a random fractional x and random multipliers.
    rng = np.random.default_rng(0)
    problem = blobs_with_noisy_constraints(3, n=9, m=5)
    for base, kwargs in (("kmedoids", {}), ("mssc", {"form": "fractional", "symmetry_breaking": False})):
        m = build_lagrangian_model(problem, base=base, epsilon=0.3, **kwargs)
        var = m.z if base == "kmedoids" else m.x
        n_clusters = 9 if base == "kmedoids" else 3
        x = rng.random((9, n_clusters))
        for (i, q), v in var.items():
            v.set_value(float(x[i, q]))
        mult = random_multipliers(problem, n_clusters, rng)
        set_multipliers(m, **mult)
        cl, ml = problem.constraints.cl_pairs, problem.constraints.ml_pairs
        expected = pyo.value(m.cost) + (
            (mult["eta"] * (1.3 - x[cl[:, 0]] - x[cl[:, 1]])).sum()
            + (mult["lam"] * (0.3 + x[ml[:, 0]] - x[ml[:, 1]])).sum()
            + (mult["gamma"] * (0.3 + x[ml[:, 1]] - x[ml[:, 0]])).sum())
        assert pyo.value(m.objective) == pytest.approx(expected)
        g_eta, g_lam, g_gamma = lagrangian_subgradients(m, x)
        assert g_eta == pytest.approx(1.3 - x[cl[:, 0]] - x[cl[:, 1]])
        assert g_lam == pytest.approx(0.3 + x[ml[:, 0]] - x[ml[:, 1]])
        assert g_gamma == pytest.approx(0.3 + x[ml[:, 1]] - x[ml[:, 0]])


def test_components_and_no_pairwise_rows():
    problem = blobs_with_noisy_constraints(3, n=6, m=3)
    m = build_lagrangian_model(problem)
    cons = problem.constraints
    assert m.component("cl_rows") is None and m.component("dual") is None
    assert len(m.eta) == cons.n_cl * 6 and len(m.lam) == cons.n_ml * 6 and len(m.gamma) == cons.n_ml * 6
    assert m.eta.mutable and pyo.value(m.epsilon) == 0.5
    assert not m.z[0, 0].is_integer()
    assert build_lagrangian_model(problem, relax=False).z[0, 0].is_binary()


@pytest.mark.parametrize("relax", [True, False])
def test_zero_multipliers_give_the_unconstrained_optimum(relax):
    problem = blobs_with_noisy_constraints(3, n=8, k=2, m=4)
    lagrangian = solve(build_lagrangian_model(problem, relax=relax)).objective
    unconstrained = solve(build_kmedoids_model(problem, pairwise="none", relax=relax)).objective
    assert lagrangian == pytest.approx(unconstrained, rel=1e-9)
    if not relax:  # and that is the enumerated optimum without constraints
        L = labellings(8, 2)
        best = kmedoids_costs(cdist(problem.X, problem.X), L, 2).min()
        assert lagrangian == pytest.approx(best)


@pytest.mark.parametrize("seed", [5, 8])
def test_lp_duals_as_multipliers_close_the_lp_duality_gap(seed):
    # Strong LP duality: the LP-relaxed Lagrangian dual (11) equals the LP relaxation of
    # (2)-(5) with the epsilon rows, and the row duals attain it (degenerate seeds included:
    # any optimal dual solution does).
    problem = blobs_with_noisy_constraints(seed)
    lp = build_kmedoids_model(problem, relax=True)
    optimum = solve(lp, "highs_matrix").objective
    m = build_lagrangian_model(problem)
    set_multipliers(m, **read_pairwise_duals(lp).multipliers())
    assert solve(m, "highs_matrix").objective == pytest.approx(optimum, rel=1e-8)


def test_any_non_positive_multipliers_give_lower_bounds():
    rng = np.random.default_rng(1)
    problem = blobs_with_noisy_constraints(5, n=8, k=2, m=4)
    lp_optimum = solve(build_kmedoids_model(problem, relax=True)).objective
    ip_optimum = solve(build_kmedoids_model(problem)).objective
    relaxed, integer = build_lagrangian_model(problem), build_lagrangian_model(problem, relax=False)
    for _ in range(5):
        mult = random_multipliers(problem, 8, rng)
        set_multipliers(relaxed, **mult)
        set_multipliers(integer, **mult)
        assert solve(relaxed).objective <= lp_optimum + 1e-8
        assert solve(integer).objective <= ip_optimum + 1e-8


@pytest.mark.parametrize("solver", available_solvers(("highs_matrix", "appsi_highs")))
def test_persistent_resolve_after_set_multipliers_equals_a_fresh_solve(solver):
    rng = np.random.default_rng(2)
    problem = blobs_with_noisy_constraints(7)
    m = build_lagrangian_model(problem)
    persistent = PersistentSolver(m, solver)
    persistent.solve()
    for _ in range(2):
        mult = random_multipliers(problem, problem.n_samples, rng)
        set_multipliers(m, **mult)
        again = persistent.solve()
        fresh = build_lagrangian_model(problem)
        set_multipliers(fresh, **mult)
        assert again.objective == pytest.approx(solve(fresh, solver).objective, rel=1e-9)
        assert assignment_matrix(m).sum(axis=1) == pytest.approx(np.ones(problem.n_samples))


def test_set_multipliers_rejects_bad_arrays():
    problem = blobs_with_noisy_constraints(3, n=6, m=3)
    cons = problem.constraints
    m = build_lagrangian_model(problem)
    with pytest.raises(InvalidParameterError, match=rf"eta must have shape \({cons.n_cl}, 6\)"):
        set_multipliers(m, eta=np.zeros((cons.n_cl + 1, 6)))
    positive = np.zeros((cons.n_ml, 6))
    positive[0, 2] = 0.1
    with pytest.raises(InvalidParameterError, match=r"lam must be <= 0 .*lam\[0, 2\] = 0\.1"):
        set_multipliers(m, lam=positive)
    with pytest.raises(InvalidParameterError, match="gamma contains NaN or inf"):
        set_multipliers(m, gamma=np.full((cons.n_ml, 6), np.nan))
    with pytest.raises(InvalidParameterError, match="no multipliers"):
        set_multipliers(build_kmedoids_model(problem), eta=np.zeros((cons.n_cl, 6)))
    with pytest.raises(InvalidParameterError, match="Unknown base 'kmeans'"):
        build_lagrangian_model(problem, base="kmeans")
    with pytest.raises(InvalidParameterError, match="distances apply to base='kmedoids' only"):
        build_lagrangian_model(problem, base="mssc", distances=np.ones((6, 6)))
    with pytest.raises(InvalidParameterError, match="not a ccopt clustering model"):
        assignment_matrix(pyo.ConcreteModel())


def test_mssc_base_has_one_multiplier_per_constraint_and_cluster():
    problem = blobs_with_noisy_constraints(3, n=6, k=2, m=3)
    m = build_lagrangian_model(problem, base="mssc", relax=False)
    assert len(m.eta) == problem.constraints.n_cl * 2 and m.component("bigm_rows") is not None
    assert m.component("cl_rows") is None and len(m.x) == 12
    assert len(build_mssc_model(problem).cl_rows) == problem.constraints.n_cl * 2


def test_abstract_model_reads_multipliers_from_dat(tmp_path):
    path = tmp_path / "lagrangian.dat"
    path.write_text(
        "param n := 4;\nparam k := 2;\nset F := 0;\nparam X : 0 := 0 0.0 1 0.2 2 5.0 3 5.3 ;\n"
        "param : CL : cl_u cl_v := 0 0 1 ;\nparam eta := 0 0 -1.5  0 1 -2.0 ;\n"
    )
    instance = abstract_lagrangian_model().create_instance(str(path))
    assert pyo.value(instance.eta[0, 1]) == -2.0 and pyo.value(instance.eta[0, 3]) == 0.0
    problem = ClusteringProblem.create(np.array([[0.0], [0.2], [5.0], [5.3]]), 2, cl=[(0, 1)])
    concrete = build_lagrangian_model(problem)
    set_multipliers(concrete, eta=np.array([[-1.5, -2.0, 0.0, 0.0]]))
    assert solve(instance).objective == pytest.approx(solve(concrete).objective)
