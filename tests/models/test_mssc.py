"""The MSSC program in both forms: structure (no solver), big-M values, and SCIP against
enumeration."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pyomo.environ as pyo
import pytest

import ccopt
from ccopt import ClusteringProblem
from ccopt.exceptions import InvalidParameterError, SolverError
from ccopt.models import abstract_mssc_model, build_mssc_model, mssc_labels
from ccopt.models.mssc import _big_m
from ccopt.solvers import solve
from ccopt.status import Status

from ._solvers import needs_scip
from .brute import labellings, same_partition, satisfies, sizes_within, wcss_costs


def instance(seed: int, n: int = 6, k: int = 2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[n // 2:] += 2.0
    return X, k, [(0, n - 1)], [(0, 1)]


def enumerate_wcss(X, k, ml, cl):
    L = labellings(X.shape[0], k)
    return np.where(satisfies(L, ml, cl), wcss_costs(X, L, k), np.inf), L


def test_convex_form_components():
    X, k, ml, cl = instance(0)
    m = build_mssc_model(ClusteringProblem.create(X, k, ml=ml, cl=cl))
    n = X.shape[0]
    assert len(m.x) == n * k and len(m.mu) == k * 2 and len(m.delta) == n
    assert len(m.bigm_rows) == n * k and len(m.assign) == n and len(m.nonempty) == k
    assert len(m.cl_rows) == k and len(m.ml_rows_fwd) == k
    # Symmetry breaking: object i may only open clusters 0..i.
    assert m.x[0, 1].ub == 0 and m.x[1, 1].ub == 1
    # Big-M: the largest squared distance from the object to any other object.
    expected = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2).max(axis=1)
    assert [pyo.value(m.bigM[i]) for i in range(n)] == pytest.approx(expected.tolist())
    # Centroids are boxed by the data.
    assert m.mu[1, 0].bounds == pytest.approx((X[:, 0].min(), X[:, 0].max()))
    assert m.bigm_rows[2, 1].body.polynomial_degree() == 2


def test_fractional_objective_is_the_wcss_of_any_labelling():
    X, k, ml, cl = instance(1)
    m = build_mssc_model(ClusteringProblem.create(X, k, ml=ml, cl=cl), form="fractional",
                         symmetry_breaking=False)
    labels = np.array([0, 1, 1, 0, 1, 0])
    for (i, c), var in m.x.items():
        var.set_value(float(labels[i] == c))
    assert pyo.value(m.objective) == pytest.approx(wcss_costs(X, labels[None, :], k)[0])


def test_errors():
    problem = ClusteringProblem.create(np.eye(3), 2)
    with pytest.raises(InvalidParameterError, match="Unknown form 'quadratic'"):
        build_mssc_model(problem, form="quadratic")
    with pytest.raises(InvalidParameterError, match="Unknown pairwise"):
        build_mssc_model(problem, pairwise="hard")
    with pytest.raises(SolverError, match="holds no solution"):
        mssc_labels(build_mssc_model(problem))


def test_highs_rejects_the_quadratic_rows_with_a_solver_error():
    X, k, ml, cl = instance(0)
    m = build_mssc_model(ClusteringProblem.create(X, k, ml=ml, cl=cl))
    with pytest.raises(SolverError, match="appsi_highs"):
        solve(m, "appsi_highs")


@needs_scip
@pytest.mark.parametrize("form", ["convex", "fractional"])
def test_scip_optimum_equals_enumeration(form):
    X, k, ml, cl = instance(2)
    costs, L = enumerate_wcss(X, k, ml, cl)
    m = build_mssc_model(ClusteringProblem.create(X, k, ml=ml, cl=cl), form=form)
    result = solve(m, "scip_direct")
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(costs.min(), rel=1e-5)
    labels = mssc_labels(m)
    assert satisfies(labels[None, :], ml, cl)[0]
    best = np.flatnonzero(costs <= costs.min() + 1e-9)
    assert any(same_partition(labels, L[b]) for b in best)


@needs_scip
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 7))
@pytest.mark.parametrize("form", ["convex", "fractional"])
def test_scip_optimum_equals_enumeration_more_instances(seed, form):
    X, k, ml, cl = instance(seed, n=7, k=3)
    costs, _ = enumerate_wcss(X, k, ml, cl)
    m = build_mssc_model(ClusteringProblem.create(X, k, ml=ml, cl=cl), form=form, pairwise="epsilon")
    assert solve(m, "scip_direct").objective == pytest.approx(costs.min(), rel=1e-5)


@needs_scip
def test_abstract_model_reads_dat_data(tmp_path):
    X, k, ml, cl = instance(2)
    rows = "\n".join(f"{i} {float(X[i, 0])!r} {float(X[i, 1])!r}" for i in range(X.shape[0]))
    path = tmp_path / "mssc.dat"
    path.write_text(
        f"param n := {X.shape[0]};\nparam k := {k};\nset F := 0 1;\nparam X : 0 1 :=\n{rows} ;\n"
        "param : ML : ml_u ml_v := 0 0 5 ;\nparam : CL : cl_u cl_v := 0 0 1 ;\nparam epsilon := 0;\n"
    )
    instance_ = abstract_mssc_model().create_instance(str(path))
    costs, _ = enumerate_wcss(X, k, ml, cl)
    assert solve(instance_, "scip_direct").objective == pytest.approx(costs.min(), rel=1e-5)


# ----------------------------------------------------------------------------- big-M values and more instances against enumeration


def test_mssc_big_m_takes_no_memory_per_feature():
    # Before: a block held rows x n x n_features differences (2^22 // n rows at a time), so
    # with many features it took n^2 d floats: 134 MB here, 8 GB at n = d = 1000.
    X = np.random.default_rng(1).normal(size=(128, 512))
    tracemalloc.start()
    try:
        values = _big_m(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    expected = [float(((X[i] - X) ** 2).sum(axis=1).max()) for i in range(X.shape[0])]
    assert values == pytest.approx(expected, rel=1e-12)
    assert peak < 8 * 2**20


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


def test_fractional_form_budgets_its_pyomo_model_not_only_the_distance_matrix():
    # The Pyomo model takes hundreds of bytes per pair of objects (a Param entry and a term
    # per cluster), not the 8 of the numpy matrix: n = 300 built 52 MiB where 0.7 were counted.
    X = np.random.default_rng(0).normal(size=(40, 2))
    problem = ClusteringProblem.create(X, 3)
    pairs_and_clusters = 40 * 40 * (3 + 1)
    with ccopt.config_context(max_dense_bytes=100 * pairs_and_clusters):
        with pytest.raises(ccopt.MemoryBudgetError, match="fractional MSSC Pyomo model"):
            build_mssc_model(problem, form="fractional")
        build_mssc_model(problem, form="convex")  # no n x n data
    with ccopt.config_context(max_dense_bytes=128 * pairs_and_clusters):
        build_mssc_model(problem, form="fractional")
