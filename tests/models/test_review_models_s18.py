"""Review of the k-medoids, MSSC and Lagrangian models and of the LP duals (session 18).

The first tests are regressions (each failed before its fix). The others check what the
existing tests left out, against references written independently of ccopt.models:
enumeration of every labelling (size bounds, ``k = 1``, ``k = n``, duplicate points,
must-link chains, cannot-link cliques, infeasible sets), enumeration of (10) over every
choice of medoids and assignment, an LP of (10) assembled in numpy and solved by
``scipy.optimize.linprog``, and the LP dual of the relaxation (signs of every row, dual
objective, one-row finite differences).
"""

from __future__ import annotations

import itertools

import numpy as np
import pyomo.environ as pyo
import pytest
from pyomo.repn import generate_standard_repn
from scipy.optimize import linprog
from scipy.spatial.distance import cdist

import ccopt.models.duals as duals_module
from ccopt import ClusteringProblem
from ccopt.exceptions import (
    InfeasibleConstraintsError,
    InvalidParameterError,
    SolverNotAvailableError,
)
from ccopt.models import (
    build_kmedoids_model,
    build_lagrangian_model,
    build_mssc_model,
    kmedoids_labels,
    mssc_labels,
    read_pairwise_duals,
    set_multipliers,
    solve_lp_duals,
)
from ccopt.solvers import available_solvers, solve
from ccopt.status import Status

from .brute import kmedoids_costs, labellings, satisfies, sizes_within, wcss_costs
from .instances import blobs_with_noisy_constraints

needs_scip = pytest.mark.skipif("scip_direct" not in available_solvers(("scip_direct",)),
                                reason="pyscipopt is not installed (pip install pyscipopt)")


# ----------------------------------------------------------------------------- regressions


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


# ----------------------------------------------------------------------------- k-medoids IP


def _kmedoids_optimum(X, k, ml, cl, min_size=None, max_size=None):
    L = labellings(X.shape[0], k)
    ok = satisfies(L, ml, cl) & sizes_within(L, k, min_size, max_size)
    return float(np.where(ok, kmedoids_costs(cdist(X, X), L, k), np.inf).min())


_LINE = np.array([[0.0], [0.4], [1.1], [5.0], [5.2], [9.0], [9.5]])
_SPECIAL = {
    "k=1": (_LINE, 1, [(0, 6)], [], None, None),
    "k=n": (_LINE[:4], 4, [], [(0, 1), (2, 3)], None, None),
    "duplicate points": (np.array([[0.0, 0], [0, 0], [3, 3], [3, 3], [3, 3], [0, 0.1]]), 2,
                         [(0, 2)], [(1, 5)], None, None),
    "must-link chain": (_LINE, 3, [(0, 3), (3, 5), (5, 6)], [(1, 2)], None, None),
    "cannot-link clique": (_LINE, 3, [], [(0, 1), (1, 2), (0, 2)], None, None),
    "min size": (_LINE, 3, [], [(3, 4)], 2, None),
    "max size": (_LINE, 2, [(0, 1)], [], None, 4),
    "both sizes": (_LINE[:6], 3, [(0, 5)], [(1, 2)], 2, 2),
    "clique larger than k": (_LINE, 2, [], [(0, 3), (3, 5), (0, 5)], None, None),
    "cannot-link inside a chain": (_LINE, 2, [(0, 1), (1, 2)], [(0, 2)], None, None),
    "chain above max size": (_LINE, 3, [(0, 1), (1, 2), (2, 3)], [], None, 3),
}


def _built_unless_proven_infeasible(problem, **options):
    """The k-medoids model, or None when the builder refused it with a certificate of infeasibility."""
    try:
        return build_kmedoids_model(problem, **options)
    except InfeasibleConstraintsError:
        return None


@pytest.mark.parametrize("name", list(_SPECIAL))
@pytest.mark.parametrize("pairwise", ["exact", "epsilon"])
def test_kmedoids_special_instances_equal_enumeration(name, pairwise):
    X, k, ml, cl, min_size, max_size = _SPECIAL[name]
    problem = ClusteringProblem.create(X, k, ml=ml, cl=cl, min_size=min_size, max_size=max_size,
                                       require_closure=False)
    best = _kmedoids_optimum(X, k, ml, cl, min_size, max_size)
    model = _built_unless_proven_infeasible(problem, pairwise=pairwise)
    if model is None:  # the builder's certificate: enumeration must agree
        assert np.isinf(best)
        return
    result = solve(model, mip_gap=0.0, require_solution=False)
    if np.isinf(best):
        assert result.status is Status.INFEASIBLE and not result.has_solution
        return
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(best, rel=1e-9, abs=1e-9)
    labels, medoids = kmedoids_labels(model)
    assert len(medoids) == k and (labels[medoids] == np.arange(k)).all()
    assert satisfies(labels[None], ml, cl)[0] and sizes_within(labels[None], k, min_size, max_size)[0]


@pytest.mark.parametrize("seed", range(4))
def test_kmedoids_random_instances_with_size_bounds_equal_enumeration(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(10):
        n = int(rng.integers(3, 8))
        k = int(rng.integers(1, min(3, n) + 1))
        X = rng.integers(0, 4, size=(n, 2)).astype(float)  # ties and duplicates are common
        pairs = list(itertools.combinations(range(n), 2))
        ml, cl = [], []
        for index in rng.choice(len(pairs), size=min(3, len(pairs)), replace=False):
            (ml if rng.random() < 0.5 else cl).append(pairs[index])
        min_size = int(rng.integers(0, n // k + 1))
        max_size = max(min_size, int(rng.integers(-(-n // k), n + 1)))
        problem = ClusteringProblem.create(X, k, ml=ml, cl=cl, min_size=min_size, max_size=max_size,
                                           require_closure=False)
        best = _kmedoids_optimum(X, k, ml, cl, min_size, max_size)
        model = _built_unless_proven_infeasible(problem)
        if model is None:  # the builder's certificate: enumeration must agree
            assert np.isinf(best)
            continue
        result = solve(model, "highs_matrix", mip_gap=0.0, require_solution=False)
        if np.isinf(best):
            assert result.status is Status.INFEASIBLE
        else:
            assert result.objective == pytest.approx(best, rel=1e-9, abs=1e-9)
            lp = solve(build_kmedoids_model(problem, relax=True), "highs_matrix")
            assert lp.objective <= best + 1e-9


# ----------------------------------------------------------------------------- Lagrangian (10)


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


def _lagrangian_by_enumeration(problem, mult, epsilon):
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
        expected = _lagrangian_by_enumeration(problem, mult, epsilon)
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


# ----------------------------------------------------------------------------- LP duals


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


# ----------------------------------------------------------------------------- MSSC


@needs_scip
@pytest.mark.parametrize("form", ["convex", "fractional"])
def test_mssc_size_bounds_k1_and_kn_equal_enumeration(form):
    rng = np.random.default_rng(500)
    X = rng.normal(size=(6, 2))
    X[1] = X[0]  # a duplicate point
    cases = [(1, [(0, 5)], [], None, None), (4, [], [(0, 1)], None, None),
             (2, [(0, 2)], [(2, 3)], 2, 4), (3, [], [(0, 1), (1, 2), (0, 2)], 2, 2)]
    for k, ml, cl, min_size, max_size in cases:
        data = X[:4] if k == 4 else X
        problem = ClusteringProblem.create(data, k, ml=ml, cl=cl, min_size=min_size, max_size=max_size)
        L = labellings(data.shape[0], k)
        ok = satisfies(L, ml, cl) & sizes_within(L, k, min_size, max_size)
        best = float(np.where(ok, wcss_costs(data, L, k), np.inf).min())
        model = build_mssc_model(problem, form=form)
        assert solve(model, "scip_direct", mip_gap=0.0).objective == pytest.approx(best, rel=1e-5, abs=1e-6)
        labels = mssc_labels(model)
        assert sizes_within(labels[None], k, min_size, max_size)[0] and satisfies(labels[None], ml, cl)[0]
