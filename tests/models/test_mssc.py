"""The MSSC program in both forms: structure (no solver) and SCIP against enumeration."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt import ClusteringProblem
from ccopt.exceptions import InvalidParameterError, SolverError
from ccopt.models import abstract_mssc_model, build_mssc_model, mssc_labels
from ccopt.solvers import available_solvers, solve
from ccopt.status import Status

from .brute import labellings, same_partition, satisfies, wcss_costs

needs_scip = pytest.mark.skipif("scip_direct" not in available_solvers(("scip_direct",)),
                                reason="pyscipopt is not installed (pip install pyscipopt)")


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
