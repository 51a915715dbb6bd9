"""Lower-bounding oracles: their values are what (10) says, and proven bounds are bounds.

The references are written from the formulas, not from the code: (10) evaluated entry by
entry, the p-median relaxation enumerated, and its LP solved by ``scipy.optimize.linprog``
and ``milp`` (HiGHS) with the rows of :mod:`ccopt.models.kmedoids`, diagonal ``z[j, j] =
y[j]`` included.
"""

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans

import ccopt
from ccopt import ClusteringProblem, Constraints
from ccopt._timing import Deadline
from ccopt.lagrange._medoids import best_member
from ccopt.lagrange.driver import SubgradientConfig, run_subgradient
from ccopt.lagrange.lp_routes import KMedoidsModelOracle
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import KMedoidsLagrangianOracle, KMedoidsVoronoiOracle, MSSCLloydOracle
from ccopt.status import Status

from ._brute import constrained_optimum, kmedoids_cost, lagrangian_by_loops


def _random_multipliers(rng, cons, K, scale=1.0):
    return Multipliers(-scale * rng.random((cons.n_cl, K)), -scale * rng.random((cons.n_ml, K)),
                       -scale * rng.random((cons.n_ml, K)))


def test_mssc_oracle_without_multipliers_keeps_a_kmeans_fixed_point():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (20, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(0, 25)], n_samples=60)
    km = KMeans(3, n_init=10, random_state=0).fit(X)
    oracle = MSSCLloydOracle(X, PairwiseOperator(cons, 0.5), km.cluster_centers_)
    sol = oracle.solve(Multipliers.zeros(1, 1, 3))
    np.testing.assert_array_equal(sol.labels, km.labels_)
    assert sol.value == pytest.approx(km.inertia_ + 0.0)


@pytest.mark.parametrize("oracle_kind", ["mssc", "voronoi"])
def test_heuristic_oracle_value_is_the_lagrangian_of_its_labelling(oracle_kind):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(4, 5), (0, 6)], n_samples=30)
    op = PairwiseOperator(cons, 0.5)
    mult = _random_multipliers(rng, cons, 3, scale=2.0)
    if oracle_kind == "mssc":
        oracle = MSSCLloydOracle(X, op, X[:3].copy())
        sol = oracle.solve(mult)
        criterion = sum(((X[sol.labels == c] - X[sol.labels == c].mean(0)) ** 2).sum() for c in range(3))
        clusters = sol.labels
    else:
        d = cdist(X, X)
        oracle = KMedoidsVoronoiOracle(d, op, np.array([0, 1, 2]))
        sol = oracle.solve(mult)
        # Each object is labelled with the medoid that serves it, one of the open medoids.
        assert set(sol.labels.tolist()) == set(sol.open_clusters.tolist())
        criterion = d[np.arange(30), sol.labels].sum()
        clusters = np.argmax(sol.labels[:, None] == sol.open_clusters[None, :], axis=1)
    assert not sol.is_bound
    assert np.unique(sol.labels).size == 3  # every cluster non-empty
    assert sol.value == pytest.approx(lagrangian_by_loops(criterion, np.eye(3)[clusters], cons, mult, 0.5))


@st.composite
def tiny(draw):
    n = draw(st.integers(4, 7))
    k = draw(st.integers(2, 3))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, k, n)
    hidden[:k] = np.arange(k)
    pairs = {tuple(sorted(rng.choice(n, 2, replace=False))) for _ in range(draw(st.integers(1, 4)))}
    cons = Constraints.from_labels(hidden, np.array(sorted(pairs)), n_samples=n)
    return rng.normal(size=(n, 2)) * 2, k, cons, rng


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny())
def test_pmedian_lagrangian_is_a_lower_bound_for_any_multipliers(instance):
    """Weak duality: every value of the relaxed problem is below the constrained optimum."""
    X, k, cons, rng = instance
    n = X.shape[0]
    d = cdist(X, X)
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), n, k, cons.ml_pairs.tolist(),
                                     cons.cl_pairs.tolist())
    op = PairwiseOperator(cons, 0.5)
    oracle = KMedoidsLagrangianOracle(d, k, op, initial_mu=rng.random(n) * d.max())
    sol = oracle.solve(_random_multipliers(rng, cons, n, scale=d.max()))
    assert sol.is_bound
    assert sol.value <= optimum + 1e-9
    assert sol.open_clusters.size == k


# ----------------------------------------------------------------------------- the p-median Lagrangian oracle against enumeration and the LP


# n = 5, k = 2: the must-link group {1, 2, 3, 4} (closure written out) cannot-linked to 0. With
# epsilon = 0.2 the diagonal rows z[j, j] = y[j] raise the LP bound from 3.264 to 3.313.
DIAGONAL_X = np.array([[-0.317, -0.422], [0.964, -0.422], [0.433, -1.911], [-0.991, -0.007], [-0.893, 0.039]])
DIAGONAL_ML = [(1, 2), (1, 4), (2, 4), (3, 4)]
DIAGONAL_CL = [(0, 1), (0, 2), (0, 3), (0, 4)]


def _instance(seed, n_range=(5, 8), k_range=(2, 4), n_pairs=5):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(*n_range)), int(rng.integers(*k_range))
    X = rng.normal(size=(n, 2))
    hidden = rng.integers(0, k, n)
    hidden[:k] = np.arange(k)
    pairs = {tuple(sorted(rng.choice(n, 2, replace=False).tolist())) for _ in range(n_pairs)}
    return X, k, Constraints.from_labels(hidden, np.array(sorted(pairs)), n_samples=n), rng


def _negative_multipliers(rng, cons, K, scale=2.0):
    return Multipliers(-scale * (0.05 + rng.random((cons.n_cl, K))), -scale * (0.05 + rng.random((cons.n_ml, K))),
                       -scale * (0.05 + rng.random((cons.n_ml, K))))


def _pmedian_rows(n, k):
    """Rows of the p-median model on (z row-major, y): assignment, diagonal, n_medoids; links."""
    nz = n * n
    eq, ub = [], []
    for i in range(n):
        row = np.zeros(nz + n)
        row[i * n:(i + 1) * n] = 1.0
        eq.append((row, 1.0))
    for i, j in itertools.product(range(n), repeat=2):
        row = np.zeros(nz + n)
        row[i * n + j], row[nz + j] = 1.0, -1.0
        (eq if i == j else ub).append((row, 0.0))
    row = np.zeros(nz + n)
    row[nz:] = 1.0
    eq.append((row, float(k)))
    return eq, ub


def _relaxed_lagrangian_by_enumeration(d, k, mu, mult, cons, eps):
    """min over |S| = k and 0/1 z with z[i, j] <= y[j], z[j, j] = y[j] of (10) with mu."""
    n = d.shape[0]
    best = np.inf
    for S in itertools.combinations(range(n), k):
        free = [(i, j) for j in S for i in range(n) if i != j]
        for bits in itertools.product((0.0, 1.0), repeat=len(free)):
            z = np.zeros((n, n))
            z[list(S), list(S)] = 1.0
            for (i, j), bit in zip(free, bits, strict=True):
                z[i, j] = bit
            criterion = (d * z).sum() + (mu * (1.0 - z.sum(axis=1))).sum()
            best = min(best, lagrangian_by_loops(criterion, z, cons, mult, eps))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_lagrangian_oracle_value_is_the_enumerated_minimum_of_its_relaxation(seed):
    X, k, cons, rng = _instance(seed, n_range=(4, 6), k_range=(2, 3), n_pairs=3)
    n = X.shape[0]
    d = cdist(X, X)
    op = PairwiseOperator(cons, float(rng.uniform(0.1, 0.9)))
    for _ in range(2):
        mult, mu = _negative_multipliers(rng, cons, n), rng.normal(size=n) * 2.0
        solution = KMedoidsLagrangianOracle(d, k, op, mu).solve(mult)
        expected = _relaxed_lagrangian_by_enumeration(d, k, mu, mult, cons, op.epsilon)
        assert solution.value == pytest.approx(expected, abs=1e-9)


def test_lagrangian_oracle_subgradients_are_the_difference_quotients_of_its_value():
    X, k, cons, rng = _instance(11, n_range=(7, 8), k_range=(3, 4), n_pairs=5)
    n = X.shape[0]
    d = cdist(X, X)
    op = PairwiseOperator(cons, 0.5)
    mult, mu = _negative_multipliers(rng, cons, n), rng.normal(size=n)
    solution = KMedoidsLagrangianOracle(d, k, op, mu).solve(mult)
    h = 1e-6

    def value(m, u):
        return KMedoidsLagrangianOracle(d, k, op, u).solve(m).value

    for name in ("eta", "lam", "gamma"):
        grad = np.asarray(getattr(solution.subgradient, name))  # given column by column
        for idx in np.ndindex(grad.shape):
            plus, minus = mult.copy(), mult.copy()
            getattr(plus, name)[idx] += h
            getattr(minus, name)[idx] -= h
            assert (value(plus, mu) - value(minus, mu)) / (2 * h) == pytest.approx(grad[idx], abs=1e-6)
    for i in range(n):
        step = np.zeros(n)
        step[i] = h
        quotient = (value(mult, mu + step) - value(mult, mu - step)) / (2 * h)
        assert quotient == pytest.approx(solution.extra_subgradients["mu"][i], abs=1e-6)


def _lp_with_duals(d, k, cons, eps):
    """The LP relaxation of (2)-(5) with the epsilon rows, and its row duals as (10)'s multipliers."""
    n = d.shape[0]
    eq, ub = _pmedian_rows(n, k)
    families = {"eta": [], "lam": [], "gamma": []}
    for u, v in cons.cl_pairs:
        for j in range(n):
            row = np.zeros(n * n + n)
            row[u * n + j] = row[v * n + j] = 1.0
            families["eta"].append(len(ub))
            ub.append((row, 1.0 + eps))
    for u, v in cons.ml_pairs:
        for j in range(n):
            row = np.zeros(n * n + n)
            row[v * n + j], row[u * n + j] = 1.0, -1.0  # slack eps + z_u - z_v: lambda's row (4'')
            families["lam"].append(len(ub))
            ub.append((row, eps))
            families["gamma"].append(len(ub))
            ub.append((-row, eps))
    res = linprog(np.concatenate([d.ravel(), np.zeros(n)]), A_ub=np.array([r for r, _ in ub]),
                  b_ub=[b for _, b in ub], A_eq=np.array([r for r, _ in eq]), b_eq=[b for _, b in eq],
                  bounds=(0, 1), method="highs")
    assert res.status == 0
    duals = res.ineqlin.marginals
    mult = Multipliers(*(duals[families[name]].reshape(-1, n) for name in ("eta", "lam", "gamma")))
    return res.fun, mult, res.eqlin.marginals[:n]


@pytest.mark.parametrize("epsilon", [0.2, 0.5])
def test_lagrangian_oracle_at_the_lp_duals_reaches_the_lp_bound_with_the_medoid_diagonal(epsilon):
    # The oracle left out z[j, j] = y[j]: at epsilon = 0.2 its value at the LP's optimal
    # duals was 3.068 against the LP bound 3.313, and no multipliers could lift it above 3.264.
    cons = Constraints.from_pairs(ml=DIAGONAL_ML, cl=DIAGONAL_CL, n_samples=5)
    d = cdist(DIAGONAL_X, DIAGONAL_X)
    optimum, mult, mu = _lp_with_duals(d, 2, cons, epsilon)
    assert max(mult.eta.max(), mult.lam.max(), mult.gamma.max()) <= 1e-12
    assert KMedoidsLagrangianOracle(d, 2, PairwiseOperator(cons, epsilon), mu).solve(mult).value == \
        pytest.approx(optimum, abs=1e-9)
    lp_dual = ccopt.models.solve_lp_duals(ClusteringProblem.create(DIAGONAL_X, 2, constraints=cons),
                                          epsilon=epsilon, distances=d)
    assert lp_dual.objective == pytest.approx(optimum, abs=1e-9)


def test_lagrangian_route_approaches_the_lp_dual_bound_from_below():
    kw = dict(ml=DIAGONAL_ML, cl=DIAGONAL_CL, criterion="kmedoids", epsilon=0.2, random_state=0, progress=False,
              stagnation_iter=None, gap_tol=0.0)
    bound = ccopt.impact_scores(DIAGONAL_X, 2, method="lp-dual", **kw).lower_bound
    result = ccopt.impact_scores(DIAGONAL_X, 2, method="lagrangian", max_iter=1500, **kw)
    cons = Constraints.from_pairs(ml=DIAGONAL_ML, cl=DIAGONAL_CL, n_samples=5)
    assert bound == pytest.approx(_lp_with_duals(cdist(DIAGONAL_X, DIAGONAL_X), 2, cons, 0.2)[0], abs=1e-9)
    assert result.lower_is_bound
    # Without the diagonal no multipliers gave more than 3.26397 (the LP without it); 3.284 now.
    assert 3.27 <= result.lower_bound <= bound + 1e-9


def test_lagrangian_oracle_leaves_its_inputs_alone_and_repeats_itself():
    X, k, cons, rng = _instance(3)
    n = X.shape[0]
    d = cdist(X, X)
    d_before = d.copy()
    oracle = KMedoidsLagrangianOracle(d, k, PairwiseOperator(cons, 0.5), rng.normal(size=n))
    mu_before = oracle.extra["mu"].copy()
    mult = _negative_multipliers(rng, cons, n)
    first, second = oracle.solve(mult), oracle.solve(mult)
    np.testing.assert_array_equal(d, d_before)
    np.testing.assert_array_equal(oracle.extra["mu"], mu_before)
    assert first.value == second.value
    np.testing.assert_array_equal(first.labels, second.labels)
    np.testing.assert_array_equal(first.subgradient.eta, second.subgradient.eta)
    assert set(first.labels.tolist()) == set(first.open_clusters.tolist())
    np.testing.assert_array_equal(first.labels[first.open_clusters], first.open_clusters)


# ----------------------------------------------------------------------------- heuristic oracles


@pytest.mark.parametrize("seed", range(6))
def test_heuristic_values_are_10_at_their_labelling_and_refitted_representatives(seed):
    X, k, cons, rng = _instance(seed, n_range=(8, 25), k_range=(2, 5), n_pairs=8)
    n = X.shape[0]
    eps = float(rng.uniform(0.05, 0.95))
    op = PairwiseOperator(cons, eps)
    d = cdist(X, X)
    start = rng.choice(n, k, replace=False)
    for scale in (0.01, 1.0, 100.0):
        mult = _negative_multipliers(rng, cons, k, scale)
        mssc = MSSCLloydOracle(X, op, X[start].copy())
        sol = mssc.solve(mult)
        assert not sol.is_bound and np.unique(sol.labels).size == k
        np.testing.assert_allclose(mssc.centers, [X[sol.labels == c].mean(axis=0) for c in range(k)])
        x = np.eye(k)[sol.labels]
        criterion = ((X - mssc.centers[sol.labels]) ** 2).sum()
        assert sol.value == pytest.approx(lagrangian_by_loops(criterion, x, cons, mult, eps))
        again = MSSCLloydOracle(X, op, X[start].copy()).solve(mult)
        assert again.value == sol.value and np.array_equal(again.labels, sol.labels)

        voronoi = KMedoidsVoronoiOracle(d, op, start.copy())
        sol = voronoi.solve(mult)
        assert not sol.is_bound and np.unique(sol.labels).size == k
        np.testing.assert_array_equal(sol.open_clusters, voronoi.medoids)
        clusters = np.argmax(sol.labels[:, None] == voronoi.medoids[None, :], axis=1)
        np.testing.assert_array_equal(voronoi.medoids[clusters], sol.labels)  # labelled by its medoid
        for c in range(k):
            assert voronoi.medoids[c] == best_member(d, np.flatnonzero(clusters == c))[0]
        x = np.eye(k)[clusters]
        criterion = d[np.arange(n), sol.labels].sum()
        assert sol.value == pytest.approx(lagrangian_by_loops(criterion, x, cons, mult, eps))


@pytest.mark.parametrize("seed", range(4))
def test_restart_matches_clusters_to_indices_at_least_total_cost(seed):
    X, k, cons, rng = _instance(seed, n_range=(10, 20), k_range=(3, 5))
    n = X.shape[0]
    d = cdist(X, X)
    op = PairwiseOperator(cons, 0.5)
    labels = rng.integers(0, k, n)
    labels[:k] = np.arange(k)
    start = rng.choice(n, k, replace=False)
    for oracle in (MSSCLloydOracle(X, op, X[start].copy()), KMedoidsVoronoiOracle(d, op, start.copy())):
        cost = oracle.cost()
        total = np.array([[cost[labels == a, c].sum() for c in range(k)] for a in range(k)])
        best = min(sum(total[a, p[a]] for a in range(k)) for p in itertools.permutations(range(k)))
        oracle.restart_from(labels)
        if isinstance(oracle, MSSCLloydOracle):
            index = [int(np.flatnonzero((oracle.centers == X[labels == a].mean(axis=0)).all(axis=1))[0])
                     for a in range(k)]
        else:
            index = [int(np.flatnonzero(oracle.medoids == best_member(d, np.flatnonzero(labels == a))[0])[0])
                     for a in range(k)]
        assert sorted(index) == list(range(k))
        assert sum(total[a, index[a]] for a in range(k)) == pytest.approx(best)


def test_empty_clusters_take_the_cheapest_movable_objects():
    from ccopt.lagrange.oracles import _fill_empty_clusters

    cost = np.array([[0.0, 5, 9], [0.1, 4, 3], [0.2, 1, 9], [0.3, 9, 8]])
    # Cluster 1 takes object 2 (regret 0.8); cluster 2 then object 1 (2.9), not object 2 (alone now).
    np.testing.assert_array_equal(_fill_empty_clusters(np.zeros(4, dtype=int), cost, 3), [0, 2, 1, 0])


def test_voronoi_oracle_reports_its_medoids_as_the_open_clusters():
    # The upper-bounding step repairs around ``open_clusters``; cluster indices 0..k-1 there
    # meant a repair around objects 0..k-1 (here all in the first blob).
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (10, 2)) for c in ([0, 0], [6, 0], [0, 6])])
    cons = Constraints.from_pairs(ml=[(0, 15)], cl=[(1, 2)], n_samples=30)
    oracle = KMedoidsVoronoiOracle(cdist(X, X), PairwiseOperator(cons, 0.5), [3, 13, 23])
    sol = oracle.solve(Multipliers.zeros(1, 1, 3))
    np.testing.assert_array_equal(sol.open_clusters, oracle.medoids)
    np.testing.assert_array_equal(sol.labels[sol.open_clusters], sol.open_clusters)  # each medoid serves itself


# ----------------------------------------------------------------------------- Pyomo and matrix oracles (lp_routes)


def _lagrangian_program(d, k, op, mult):
    n = d.shape[0]
    eq, ub = _pmedian_rows(n, k)
    cost = np.concatenate([(d + op.penalty(mult)).ravel(), np.zeros(n)])
    return cost, eq, ub, op.constant(mult)


def _lagrangian_lp(d, k, op, mult):
    cost, eq, ub, constant = _lagrangian_program(d, k, op, mult)
    res = linprog(cost, A_ub=np.array([r for r, _ in ub]), b_ub=[b for _, b in ub],
                  A_eq=np.array([r for r, _ in eq]), b_eq=[b for _, b in eq], bounds=(0, 1), method="highs")
    return res.fun + constant


def _lagrangian_ip(d, k, op, mult):
    cost, eq, ub, constant = _lagrangian_program(d, k, op, mult)
    rows = [LinearConstraint(np.array([r for r, _ in eq]), [b for _, b in eq], [b for _, b in eq]),
            LinearConstraint(np.array([r for r, _ in ub]), -np.inf, [b for _, b in ub])]
    res = milp(cost, constraints=rows, integrality=np.ones(cost.size), bounds=Bounds(0, 1),
               options={"mip_rel_gap": 0.0})
    return res.fun + constant


@pytest.mark.parametrize("solver", ["highs_matrix", "appsi_highs"])
@pytest.mark.parametrize("integer", [False, True])
def test_model_oracle_values_match_an_independent_solve_and_a_fresh_model(solver, integer):
    X, k, cons, rng = _instance(7, n_range=(6, 7), k_range=(2, 3), n_pairs=4)
    n = X.shape[0]
    d = cdist(X, X)
    problem = ClusteringProblem.create(X, k, constraints=cons)
    op = PairwiseOperator(cons, 0.3)
    oracle = KMedoidsModelOracle(problem, op, d, integer=integer, solver=solver, deadline=Deadline(None))
    reference = _lagrangian_ip if integer else _lagrangian_lp
    for _ in range(3):  # re-solves after the multipliers change
        mult = _negative_multipliers(rng, cons, n)
        solution = oracle.solve(mult)
        expected = reference(d, k, op, mult)
        tol = 1e-4 * max(1.0, abs(expected)) if integer else 1e-8 * max(1.0, abs(expected))
        assert solution.is_bound and solution.value <= expected + 1e-9
        assert solution.value == pytest.approx(expected, abs=tol)
        fresh = KMedoidsModelOracle(problem, op, d, integer=integer, solver=solver, deadline=Deadline(None))
        assert fresh.solve(mult).value == pytest.approx(solution.value, abs=tol)


def test_the_exact_route_takes_the_proven_mip_bound_not_the_incumbent():
    X = np.random.default_rng(0).normal(size=(6, 2))
    problem = ClusteringProblem.create(X, 2, ml=[(0, 1)], cl=[(2, 3)])
    oracle = KMedoidsModelOracle(problem, PairwiseOperator(problem.constraints, 0.5), cdist(X, X), integer=True,
                                 solver=None, deadline=Deadline(None))
    solve = oracle.solver.solve

    def within_the_mip_gap(**kwargs):  # "optimal" with an incumbent above the dual bound
        result = solve(**kwargs)
        return dataclasses.replace(result, objective=result.bound + 1.0)

    oracle.solver.solve = within_the_mip_gap
    reference = solve(load=False).bound
    solution = oracle.solve(Multipliers.zeros(1, 1, 6))
    assert solution.is_bound and solution.value == pytest.approx(reference)


def _cut_short(oracle, at_call, changes):
    """Make the ``at_call``-th solve of the oracle's solver report ``changes`` (e.g. a time limit)."""
    solve, calls = oracle.solver.solve, []

    def patched(**kwargs):
        result = solve(**kwargs)
        calls.append(1)
        return dataclasses.replace(result, **changes(result)) if len(calls) == at_call else result

    oracle.solver.solve = patched


@pytest.mark.parametrize("integer", [False, True])
def test_a_solve_without_a_proven_value_is_a_trivial_bound_and_keeps_the_proven_ones(integer):
    # An LP stopped by the time limit reported its primal objective, above the minimum of (10),
    # as the oracle's value (is_bound=False): the driver kept it as the best lower bound and the
    # run's proven bounds were reported as heuristic (Iris, method="lp", time_limit=3: 98.7039
    # "heuristic" instead of the proven 98.6945). A MIP without a bound was marked the same way.
    X, k, cons, _ = _instance(7, n_range=(6, 7), k_range=(2, 3), n_pairs=4)
    problem = ClusteringProblem.create(X, k, constraints=cons)
    op = PairwiseOperator(cons, 0.5)
    oracle = KMedoidsModelOracle(problem, op, cdist(X, X), integer=integer, solver="highs_matrix",
                                 deadline=Deadline(None))
    if integer:
        _cut_short(oracle, 3, lambda r: {"status": Status.TIME_LIMIT, "bound": None})
    else:
        _cut_short(oracle, 3, lambda r: {"status": Status.TIME_LIMIT, "objective": r.objective + 1e3,
                                         "bound": r.objective + 1e3})
    out = run_subgradient(oracle, Multipliers.zeros(cons.n_cl, cons.n_ml, X.shape[0]),
                          config=SubgradientConfig(max_iter=3, stagnation_iter=None, gap_tol=0.0),
                          initial_upper=1e6, initial_labels=None)
    values = out.history["lower_bound"]
    assert values[2] == -np.inf and out.history["step"][2] == 0.0
    assert out.lower_is_bound and out.lower_bound == max(values[:2])


def test_an_lp_really_cut_by_the_time_limit_never_reports_more_than_the_minimum():
    X, k, cons, rng = _instance(0, n_range=(60, 61), k_range=(4, 5), n_pairs=20)
    n = X.shape[0]
    d = cdist(X, X)
    problem = ClusteringProblem.create(X, k, constraints=cons)
    op = PairwiseOperator(cons, 0.5)
    oracle = KMedoidsModelOracle(problem, op, d, integer=False, solver="highs_matrix", deadline=Deadline(None))
    oracle.solve(_negative_multipliers(rng, cons, n, 1.0))
    mult = _negative_multipliers(rng, cons, n, 3.0)
    minimum = KMedoidsModelOracle(problem, op, d, integer=False, solver="highs_matrix",
                                  deadline=Deadline(None)).solve(mult).value
    oracle.deadline = Deadline(0.0)  # the next solve gets the token millisecond
    solution = oracle.solve(mult)
    assert solution.is_bound
    assert solution.value == -np.inf or solution.value == pytest.approx(minimum, rel=1e-9)


@pytest.mark.parametrize("method", ["lp", "exact", "lp-dual"])
def test_a_missing_solver_is_named_before_any_model_is_built(method):
    X = DIAGONAL_X
    with pytest.raises(ccopt.SolverNotAvailableError, match="cplex"):
        ccopt.impact_scores(X, 2, ml=DIAGONAL_ML, cl=DIAGONAL_CL, method=method, solver="cplex", progress=False,
                            max_iter=2)
