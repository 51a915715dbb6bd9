"""The k-medoids program: structure (no solver), exactness against enumeration (special
instances, size bounds, sets proven infeasible), errors."""

from __future__ import annotations

import itertools

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.spatial.distance import cdist

from ccopt import ClusteringProblem, config_context
from ccopt.exceptions import (
    InfeasibleConstraintsError,
    InvalidDataError,
    InvalidParameterError,
    MemoryBudgetError,
    SolverError,
)
from ccopt.models import abstract_kmedoids_model, build_kmedoids_model, kmedoids_labels
from ccopt.solvers import solve
from ccopt.status import Status

from .brute import kmedoids_costs, labellings, same_partition, satisfies, sizes_within


def random_instance(seed: int, *, erroneous: bool = False):
    """n <= 8 objects, k <= 3; constraints drawn from a hidden labelling (always feasible),
    or from coin flips (possibly infeasible) with ``erroneous=True``."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 9)), int(rng.integers(2, 4))
    X = rng.normal(size=(n, 2)) * 2
    truth = rng.integers(0, k, n)
    truth[:k] = np.arange(k)
    ml, cl, seen = [], [], set()
    for _ in range(int(rng.integers(1, 5))):
        u, v = sorted(int(t) for t in rng.choice(n, 2, replace=False))
        if (u, v) in seen:
            continue
        seen.add((u, v))
        together = truth[u] == truth[v] if not erroneous else rng.random() < 0.5
        (ml if together else cl).append((u, v))
    return X, k, ml, cl


def enumerate_optimum(X, k, ml, cl, D=None, min_size=None, max_size=None):
    D = cdist(X, X) if D is None else D
    L = labellings(X.shape[0], k)
    ok = satisfies(L, ml, cl) & sizes_within(L, k, min_size, max_size)
    costs = np.where(ok, kmedoids_costs(D, L, k), np.inf)
    return costs, L


# ----------------------------------------------------------------------------- structure


def test_components_and_row_counts_follow_the_formulation():
    X = np.arange(10, dtype=float).reshape(5, 2)
    problem = ClusteringProblem.create(X, 2, ml=[(0, 1), (2, 3)], cl=[(1, 4)])
    m = build_kmedoids_model(problem)
    n = 5
    assert len(m.z) == n * n and len(m.y) == n
    assert len(m.assign) == n and len(m.link) == n * n and len(m.n_medoids) == 1
    assert len(m.cl_rows) == 1 * n and len(m.ml_rows_fwd) == 2 * n and len(m.ml_rows_bwd) == 2 * n
    assert len(m.size_min) == 0 and len(m.size_max) == 0
    assert m.z[0, 1].is_binary() and m.component("dual") is None
    # The diagonal of (8) is an equality, the rest are <= rows.
    assert m.link[2, 2].equality and not m.link[2, 3].equality
    # Rows of one constraint are found by its position: ml_rows_fwd[c, j] is (4') of ml c.
    u, v = m.ml_u[1], m.ml_v[1]
    assert (u, v) == (2, 3)
    assert str(m.ml_rows_fwd[1, 4].body) == "z[2,4] - z[3,4]"
    assert pyo.value(m.ml_rows_fwd[1, 4].upper) == pytest.approx(0.5)
    assert pyo.value(m.cl_rows[0, 0].upper) == pytest.approx(1.5)
    # Positions in the Constraints order: ML first (0, 1), then CL (2).
    assert [m.ml_index[c] for c in m.ML] == [0, 1] and [m.cl_index[c] for c in m.CL] == [2]
    assert pyo.value(m.d[0, 1]) == pytest.approx(np.sqrt(8))


def test_exact_rows_relaxation_and_none():
    problem = ClusteringProblem.create(np.eye(4), 2, ml=[(0, 1)], cl=[(2, 3)])
    exact = build_kmedoids_model(problem, pairwise="exact")
    assert pyo.value(exact.cl_rows[0, 1].upper) == 1 and pyo.value(exact.ml_rows_bwd[0, 1].upper) == 0
    relaxed = build_kmedoids_model(problem, relax=True)
    assert not relaxed.z[0, 0].is_integer() and relaxed.z[0, 0].bounds == (0, 1)
    assert isinstance(relaxed.dual, pyo.Suffix)
    none = build_kmedoids_model(problem, pairwise="none")
    assert none.component("cl_rows") is None and len(none.ML) == 1


def test_size_rows_scale_with_the_medoid():
    problem = ClusteringProblem.create(np.eye(6), 2, min_size=2, max_size=4)
    m = build_kmedoids_model(problem)
    assert len(m.size_min) == 6 and len(m.size_max) == 6
    assert "y[3]" in str(m.size_min[3].body) and "y[3]" in str(m.size_max[3].body)


def test_errors_name_what_is_wrong():
    problem = ClusteringProblem.create(np.eye(4), 2, cl=[(0, 1)])
    with pytest.raises(InvalidParameterError, match="Unknown pairwise 'soft'"):
        build_kmedoids_model(problem, pairwise="soft")
    with pytest.raises(InvalidParameterError, match=r"strictly between 0 and 1, got 1\.0"):
        build_kmedoids_model(problem, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match=r"Expected a ccopt\.ClusteringProblem"):
        build_kmedoids_model(np.eye(4))
    with pytest.raises(InvalidDataError, match=r"shape \(n_samples, n_samples\) = \(4, 4\)"):
        build_kmedoids_model(problem, distances=np.ones((3, 3)))
    bad = np.ones((4, 4))
    bad[1, 2] = -1.0
    with pytest.raises(InvalidDataError, match=r"distances\[1, 2\] = -1.0"):
        build_kmedoids_model(problem, distances=bad)
    with config_context(max_dense_bytes=1000), pytest.raises(MemoryBudgetError, match="k-medoids Pyomo model"):
        build_kmedoids_model(problem)
    with pytest.raises(SolverError, match="holds no solution"):
        kmedoids_labels(build_kmedoids_model(problem))


# ----------------------------------------------------------------------------- exactness


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("pairwise", ["epsilon", "exact"])
def test_integer_optimum_equals_enumeration(seed, pairwise):
    X, k, ml, cl = random_instance(seed)
    costs, L = enumerate_optimum(X, k, ml, cl)
    problem = ClusteringProblem.create(X, k, ml=ml, cl=cl)
    m = build_kmedoids_model(problem, pairwise=pairwise)
    result = solve(m)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(costs.min(), rel=1e-7, abs=1e-9)
    labels, medoids = kmedoids_labels(m)
    # The model's labelling is itself optimal and feasible, with k clusters and in-cluster medoids.
    assert len(medoids) == k and (labels[medoids] == np.arange(k)).all()
    assert satisfies(labels[None, :], ml, cl)[0]
    assert kmedoids_costs(cdist(X, X), labels[None, :], k)[0] == pytest.approx(costs.min())
    best = np.flatnonzero(costs <= costs.min() + 1e-9)
    if best.size == 1:
        assert same_partition(labels, L[best[0]])


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_possibly_contradictory_constraints_agree_with_enumeration(seed):
    X, k, ml, cl = random_instance(seed, erroneous=True)
    costs, _ = enumerate_optimum(X, k, ml, cl)
    problem = ClusteringProblem.create(X, k, ml=ml, cl=cl, require_closure=False)
    result = solve(build_kmedoids_model(problem), require_solution=False)
    if np.isinf(costs.min()):
        assert result.status is Status.INFEASIBLE and not result.has_solution
    else:
        assert result.objective == pytest.approx(costs.min(), rel=1e-7)


def test_size_bounds_and_given_dissimilarities_agree_with_enumeration():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(7, 2))
    D = cdist(X, X, "cityblock")
    costs, _ = enumerate_optimum(X, 3, [(0, 1)], [(2, 3)], D=D, min_size=2, max_size=3)
    problem = ClusteringProblem.create(X, 3, ml=[(0, 1)], cl=[(2, 3)], min_size=2, max_size=3)
    result = solve(build_kmedoids_model(problem, distances=D))
    assert result.objective == pytest.approx(costs.min(), rel=1e-7)


def test_medoid_stays_in_its_cluster_under_cannot_links():
    # Object 1 is the best centre of {0, 2} but a cannot-link keeps it out of that cluster:
    # a p-median model without z[j, j] = y[j] would let 1 serve {0, 2} from outside.
    X = np.array([[0.0], [1.0], [2.0], [10.0]])
    problem = ClusteringProblem.create(X, 2, cl=[(0, 1), (1, 2)])
    costs, _ = enumerate_optimum(X, 2, [], [(0, 1), (1, 2)])
    assert solve(build_kmedoids_model(problem)).objective == pytest.approx(costs.min())


def test_abstract_model_with_the_same_data_gives_the_same_program():
    X = np.array([[0.0, 0.18], [-0.16, -0.53], [-0.27, -0.59], [0.04, 0.80],
                  [2.70, 0.63], [3.29, 1.21], [3.06, 0.44], [2.98, 1.42]])
    ml, cl = [(0, 3), (2, 6)], [(1, 2), (3, 7)]
    data = {None: {
        "n": {None: 8}, "k": {None: 2}, "F": {None: [0, 1]},
        "X": {(i, f): float(X[i, f]) for i in range(8) for f in range(2)},
        "ML": {None: [0, 1]}, "ml_u": {0: 0, 1: 2}, "ml_v": {0: 3, 1: 6},
        "CL": {None: [0, 1]}, "cl_u": {0: 1, 1: 3}, "cl_v": {0: 2, 1: 7},
    }}
    instance = abstract_kmedoids_model().create_instance(data)
    concrete = build_kmedoids_model(ClusteringProblem.create(X, 2, ml=ml, cl=cl))
    for name in ("assign", "link", "n_medoids", "cl_rows", "ml_rows_fwd", "ml_rows_bwd"):
        assert len(instance.component(name)) == len(concrete.component(name))
    costs, _ = enumerate_optimum(X, 2, ml, cl)
    assert solve(instance).objective == pytest.approx(costs.min())
    assert solve(concrete).objective == pytest.approx(costs.min())


@pytest.mark.parametrize("seed", range(6))
def test_epsilon_half_relaxation_has_a_point_that_satisfies_every_pairwise_row(seed):
    # Why the paper's LP route (epsilon = 0.5) bounds weakly (benchmarks/bench_impact_gap_floor.py):
    # 2k medoids at y = 1/2, every object split 1/2-1/2 between two of them, satisfies every
    # epsilon row of ANY constraint set (CL: at most 1 <= 1.5; ML: at most 1/2 <= 1/2).
    X, k, ml, cl = random_instance(seed, erroneous=True)
    X = np.vstack([X, X[: 2 * k] + 0.1])  # at least 2k objects
    model = build_kmedoids_model(ClusteringProblem.create(X, k, ml=ml, cl=cl), pairwise="epsilon",
                                 epsilon=0.5, relax=True)
    n, medoids = X.shape[0], list(range(2 * k))
    for j in model.J:
        model.y[j].value = 0.5 if j in medoids else 0.0
    for i in model.I:
        first = i if i in medoids else medoids[0]
        second = next(m for m in medoids if m != first)
        for j in model.J:
            model.z[i, j].value = 0.5 if j in (first, second) else 0.0
    rows = list(model.component_data_objects(pyo.Constraint, active=True))
    assert len(rows) > n  # the pairwise rows are there
    for row in rows:
        body = pyo.value(row.body)
        assert row.lower is None or body >= pyo.value(row.lower) - 1e-9, row.name
        assert row.upper is None or body <= pyo.value(row.upper) + 1e-9, row.name


# ----------------------------------------------------------------------------- special instances and size bounds against enumeration


def _kmedoids_optimum(X, k, ml, cl, min_size=None, max_size=None):
    return float(enumerate_optimum(X, k, ml, cl, min_size=min_size, max_size=max_size)[0].min())


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
