"""The Lagrangian relaxation (10): its value, its bounds, and re-solves after new multipliers.

The references are written independently of ccopt.models: (10) enumerated over every choice
of medoids and assignment (k-medoids) or every labelling (MSSC), and an LP of (10)
assembled in numpy and solved by ``scipy.optimize.linprog``.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import linprog
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

from ._dat import TINY_DAT_FILE
from ._solvers import needs_scip
from .brute import kmedoids_costs, labellings, satisfies, wcss_costs
from .instances import blobs_with_noisy_constraints, six_points_problem


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


def test_set_multipliers_stores_nothing_when_one_array_is_rejected():
    m = build_lagrangian_model(six_points_problem())
    with pytest.raises(InvalidParameterError, match=r"lam must be <= 0"):
        set_multipliers(m, eta=np.full((1, 6), -1.0), lam=np.full((1, 6), 1.0))
    assert all(v.value == 0.0 for v in m.eta.values())


def test_lagrangian_epsilon_error_does_not_point_to_a_missing_pairwise_parameter():
    # Before: "... got 0.0; use pairwise='exact' for the rows without slack", but
    # build_lagrangian_model has no pairwise parameter (it always relaxes the epsilon rows).
    problem = ClusteringProblem.create(np.eye(4), 2, cl=[(0, 1)])
    for epsilon in (0.0, 1.0):
        with pytest.raises(InvalidParameterError, match="strictly between 0 and 1") as info:
            build_lagrangian_model(problem, epsilon=epsilon)
        assert "pairwise" not in str(info.value)
    # The builders that have the parameter keep the hint.
    with pytest.raises(InvalidParameterError, match="use pairwise='exact'"):
        build_kmedoids_model(problem, epsilon=0.0)


def test_lagrangian_rejects_an_unknown_form_whatever_the_base():
    # Before: base="kmedoids" accepted any form (a typo went unnoticed).
    problem = ClusteringProblem.create(np.eye(4), 2, cl=[(0, 1)])
    for base in ("kmedoids", "mssc"):
        with pytest.raises(InvalidParameterError, match="Unknown form 'convx'; valid values"):
            build_lagrangian_model(problem, base=base, form="convx")
    build_lagrangian_model(problem, base="kmedoids", form="fractional")  # valid, ignored


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


_COMMAND_FILE = Path(__file__).resolve().parents[2] / "models" / "lagrangian.py"


@pytest.mark.parametrize("doc", [abstract_lagrangian_model.__doc__, _COMMAND_FILE.read_text()],
                         ids=["abstract_lagrangian_model", "models/lagrangian.py"])
def test_lagrangian_docstring_dat_multipliers_load(tmp_path, doc):
    lines = [line.split("#")[0].strip() for line in doc.splitlines()
             if line.strip().startswith("param ")]
    assert len(lines) == 3
    path = tmp_path / "multipliers.dat"
    path.write_text(TINY_DAT_FILE.read_text() + "\n".join(lines) + "\n")
    instance = abstract_lagrangian_model().create_instance(str(path))
    for line in lines:
        name, c, q, value = re.fullmatch(r"param (\w+) := (\d+) (\d+) (\S+) ;", line).groups()
        assert pyo.value(instance.component(name)[int(c), int(q)]) == float(value)


# ----------------------------------------------------------------------------- k-medoids (10) against enumeration and an independent LP


def _random_lagrangian_case(rng, n_max=6):
    n = int(rng.integers(2, n_max + 1))
    k = int(rng.integers(1, min(3, n) + 1))
    X = rng.normal(size=(n, 2))
    pairs = list(itertools.combinations(range(n), 2))
    ml, cl = [], []
    for index in rng.choice(len(pairs), size=min(int(rng.integers(1, 5)), len(pairs)), replace=False):
        (ml if rng.random() < 0.5 else cl).append(pairs[index])
    min_size = max_size = None
    if rng.random() < 0.5:
        min_size = int(rng.integers(1, n // k + 1))
        max_size = max(min_size, int(rng.integers(-(-n // k), n + 1)))
    problem = ClusteringProblem.create(X, k, ml=ml, cl=cl, min_size=min_size, max_size=max_size,
                                       require_closure=False)
    cons = problem.constraints

    def draw(rows):  # about a third of the multipliers stay at 0
        return -rng.exponential(1.0, (rows, n)) * (rng.random((rows, n)) < 0.7)

    mult = {"eta": draw(cons.n_cl), "lam": draw(cons.n_ml), "gamma": draw(cons.n_ml)}
    return problem, mult, float(rng.uniform(0.05, 0.95))


def _penalised(z, D, problem, mult, epsilon):
    """Formula (10) at an assignment ``z`` (n x n), term by term."""
    cons = problem.constraints
    value = float((D * z).sum())
    for c, (u, v) in enumerate(cons.cl_pairs.tolist()):
        value += float((mult["eta"][c] * (1 + epsilon - z[u] - z[v])).sum())
    for c, (u, v) in enumerate(cons.ml_pairs.tolist()):
        value += float((mult["lam"][c] * (epsilon + z[u] - z[v])).sum())
        value += float((mult["gamma"][c] * (epsilon + z[v] - z[u])).sum())
    return value


def _kmedoids_lagrangian_by_enumeration(problem, mult, epsilon):
    """min of (10) over every set of k medoids and every assignment of the other objects to
    them (the rows that stay in (10): one medoid each, medoids in their own cluster, sizes)."""
    n, k = problem.n_samples, problem.n_clusters
    D = cdist(problem.X, problem.X)
    best = np.inf
    for medoids in itertools.combinations(range(n), k):
        others = [i for i in range(n) if i not in medoids]
        for choice in itertools.product(medoids, repeat=len(others)):
            medoid_of = np.arange(n)
            medoid_of[others] = choice
            sizes = np.bincount(medoid_of, minlength=n)[list(medoids)]
            if problem.min_size is not None and sizes.min() < problem.min_size:
                continue
            if problem.max_size is not None and sizes.max() > problem.max_size:
                continue
            z = np.zeros((n, n))
            z[np.arange(n), medoid_of] = 1.0
            best = min(best, _penalised(z, D, problem, mult, epsilon))
    return best


@pytest.mark.parametrize("seed", range(3))
def test_integer_kmedoids_lagrangian_equals_enumeration_of_10(seed):
    rng = np.random.default_rng(200 + seed)
    for _ in range(8):
        problem, mult, epsilon = _random_lagrangian_case(rng)
        model = build_lagrangian_model(problem, relax=False, epsilon=epsilon)
        set_multipliers(model, **mult)
        expected = _kmedoids_lagrangian_by_enumeration(problem, mult, epsilon)
        result = solve(model, mip_gap=0.0)
        assert result.objective == pytest.approx(expected, rel=1e-9, abs=1e-9)
        # The solution found attains the value by (10) written out.
        z = np.array([[model.z[i, j].value for j in model.J] for i in model.I])
        D = cdist(problem.X, problem.X)
        assert _penalised(z, D, problem, mult, epsilon) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def _lp_of_10(problem, mult, epsilon):
    """The LP relaxation of (10) over the k-medoids rows, assembled in numpy, by linprog."""
    n, k = problem.n_samples, problem.n_clusters
    cons = problem.constraints
    n_z = n * n
    cost = np.concatenate([cdist(problem.X, problem.X).ravel(), np.zeros(n)])
    constant = 0.0
    for c, (u, v) in enumerate(cons.cl_pairs.tolist()):
        eta = mult["eta"][c]
        constant += (1 + epsilon) * eta.sum()
        cost[u * n:(u + 1) * n] -= eta
        cost[v * n:(v + 1) * n] -= eta
    for c, (u, v) in enumerate(cons.ml_pairs.tolist()):
        lam, gamma = mult["lam"][c], mult["gamma"][c]
        constant += epsilon * (lam.sum() + gamma.sum())
        cost[u * n:(u + 1) * n] += lam - gamma
        cost[v * n:(v + 1) * n] += gamma - lam
    a_eq, b_eq, a_ub, b_ub = [], [], [], []
    for i in range(n):  # each object assigned once
        row = np.zeros(n_z + n)
        row[i * n:(i + 1) * n] = 1
        a_eq.append(row)
        b_eq.append(1)
    for i in range(n):
        for j in range(n):  # z[i, j] <= y[j], equality on the diagonal
            row = np.zeros(n_z + n)
            row[i * n + j], row[n_z + j] = 1, -1
            (a_eq if i == j else a_ub).append(row)
            (b_eq if i == j else b_ub).append(0)
    row = np.zeros(n_z + n)
    row[n_z:] = 1
    a_eq.append(row)
    b_eq.append(k)
    for j in range(n):
        column = np.zeros(n_z + n)
        column[j:n_z:n] = 1
        if problem.min_size:
            row = -column
            row[n_z + j] = problem.min_size
            a_ub.append(row)
            b_ub.append(0)
        if problem.max_size is not None and problem.max_size < n:
            row = column.copy()
            row[n_z + j] = -problem.max_size
            a_ub.append(row)
            b_ub.append(0)
    result = linprog(cost, A_ub=np.array(a_ub).reshape(-1, n_z + n), b_ub=b_ub, A_eq=np.array(a_eq),
                     b_eq=b_eq, bounds=(0, 1), method="highs")
    assert result.status == 0
    return result.fun + constant


def test_relaxed_kmedoids_lagrangian_equals_an_independent_lp_of_10():
    rng = np.random.default_rng(300)
    solvers = available_solvers(("highs_matrix", "appsi_highs", "glpk"))
    for _ in range(12):
        problem, mult, epsilon = _random_lagrangian_case(rng, n_max=8)
        model = build_lagrangian_model(problem, epsilon=epsilon)
        set_multipliers(model, **mult)
        expected = _lp_of_10(problem, mult, epsilon)
        for solver in solvers:
            assert solve(model, solver).objective == pytest.approx(expected, rel=1e-7, abs=1e-7)


# ----------------------------------------------------------------------------- MSSC (10) against enumeration; every solver


def mssc_lagrangian_by_enumeration(X, k, ml, cl, mult, epsilon, symmetry_breaking):
    """min over every assignment of the n objects to k labelled, non-empty clusters of the
    WCSS plus the multiplier terms of (10), written out term by term."""
    n = X.shape[0]
    A = np.array([a for a in itertools.product(range(k), repeat=n) if len(set(a)) == k])
    if symmetry_breaking:
        A = A[(np.arange(n) >= A).all(axis=1)]
    value = wcss_costs(X, A, k)
    for q in range(k):
        x = (q == A).astype(float)
        for c, (u, v) in enumerate(cl):
            value += mult["eta"][c, q] * (1 + epsilon - x[:, u] - x[:, v])
        for c, (u, v) in enumerate(ml):
            value += mult["lam"][c, q] * (epsilon + x[:, u] - x[:, v])
            value += mult["gamma"][c, q] * (epsilon + x[:, v] - x[:, u])
    return float(value.min())


@needs_scip
@pytest.mark.parametrize("symmetry_breaking", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_mssc_lagrangian_equals_enumeration_and_bounds_the_constrained_optimum(symmetry_breaking):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(6, 2))
    X[3:] += 2.0
    k, ml, cl = 2, [(0, 5)], [(0, 1), (2, 3)]
    problem = ClusteringProblem.create(X, k, ml=ml, cl=cl)
    L = labellings(6, k)
    optimum = float(np.where(satisfies(L, ml, cl), wcss_costs(X, L, k), np.inf).min())
    for scale in (0.3, 3.0):
        mult = {"eta": -rng.exponential(scale, (2, k)), "lam": -rng.exponential(scale, (1, k)),
                "gamma": -rng.exponential(scale, (1, k))}
        m = build_lagrangian_model(problem, base="mssc", relax=False, epsilon=0.4,
                                   symmetry_breaking=symmetry_breaking)
        set_multipliers(m, **mult)
        value = solve(m, "scip_direct").objective
        expected = mssc_lagrangian_by_enumeration(X, k, ml, cl, mult, 0.4, symmetry_breaking)
        assert value == pytest.approx(expected, rel=1e-5, abs=1e-6)
        assert value <= optimum + 1e-6  # weak duality


@pytest.mark.parametrize("solver", available_solvers(("appsi_highs", "highs", "highs_matrix", "cbc",
                                                      "glpk", "appsi_cbc")))
def test_every_solver_gives_the_same_integer_lagrangian_and_lp_bound(solver):
    problem = blobs_with_noisy_constraints(2, n=7, k=2, m=4)
    cons, n = problem.constraints, problem.n_samples
    rng = np.random.default_rng(5)
    ip = solve(build_kmedoids_model(problem, pairwise="exact"), "appsi_highs").objective
    lp = solve(build_kmedoids_model(problem, pairwise="exact", relax=True), solver).objective
    assert lp <= ip + 1e-7
    model = build_lagrangian_model(problem, relax=False)
    persistent = PersistentSolver(model, solver)
    for scale in (0.5, 4.0):
        mult = {"eta": -rng.exponential(scale, (cons.n_cl, n)),
                "lam": -rng.exponential(scale, (cons.n_ml, n)),
                "gamma": -rng.exponential(scale, (cons.n_ml, n))}
        set_multipliers(model, **mult)
        fresh = build_lagrangian_model(problem, relax=False)
        set_multipliers(fresh, **mult)
        reference = solve(fresh, "appsi_highs").objective
        assert persistent.solve().objective == pytest.approx(reference, rel=1e-6, abs=1e-7)
        assert reference <= ip + 1e-7


@pytest.mark.parametrize("base", ["kmedoids", "mssc"])
def test_abstract_lagrangian_refuses_an_unknown_form_whatever_the_base(base):
    # The k-medoids base has one form and used to accept any name, as its docstring did not say.
    with pytest.raises(InvalidParameterError, match="form"):
        abstract_lagrangian_model(base=base, form="bogus")
