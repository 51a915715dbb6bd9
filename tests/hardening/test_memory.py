"""Dense ``n x n`` allocations: announced, bounded by ``max_dense_bytes``, and only where needed.

Every k-medoids route needs the ``n x n`` distances and must refuse, before allocating,
when they exceed :func:`ccopt.set_config`'s bound, saying how much they need and how to
raise the bound. The other routes (MSSC impact score, the k-means family) must not need
it: they run under a bound smaller than one ``n x n`` matrix, and at a larger ``n`` the
peak of their allocations (``tracemalloc``) stays far below ``8 n^2`` bytes.
"""

from __future__ import annotations

import logging
import tracemalloc

import numpy as np
import pytest

import ccopt
from ccopt import ClusteringProblem, MemoryBudgetError, config_context
from ccopt.config import check_dense_memory
from ccopt.generators import correct_constraints, make_gaussian_clusters
from ccopt.lagrange import baselines
from ccopt.metrics import kmedoids_objective
from ccopt.models import (
    build_kmedoids_model,
    build_lagrangian_model,
    build_mssc_model,
    solve_lp_duals,
)
from tests.hardening._api import assert_same, cannot_links_ignored

N = 60


@pytest.fixture(scope="module")
def small():
    X, y = make_gaussian_clusters(N, 3, cluster_std=1.0, random_state=0)
    return X, y, correct_constraints(y, 10, random_state=0)


def _just_below(n: int) -> int:
    """A bound one byte smaller than an ``n x n`` float64 matrix."""
    return 8 * n * n - 1


DENSE = {
    "impact_scores[voronoi]": lambda X, k, c: ccopt.impact_scores(X, k, constraints=c, progress=False),
    "impact_scores[lagrangian]": lambda X, k, c: ccopt.impact_scores(X, k, constraints=c, method="lagrangian",
                                                                     progress=False),
    "impact_scores[lp]": lambda X, k, c: ccopt.impact_scores(X, k, constraints=c, method="lp", progress=False),
    "impact_scores[exact]": lambda X, k, c: ccopt.impact_scores(X, k, constraints=c, method="exact",
                                                                progress=False),
    "impact_scores[lp-dual]": lambda X, k, c: ccopt.impact_scores(X, k, constraints=c, method="lp-dual",
                                                                  progress=False),
    "naive_baseline": lambda X, k, c: baselines.naive_baseline(X, k, constraints=c),
    "informativeness": lambda X, k, c: baselines.informativeness(X, k, constraints=c),
    "optimistic_baseline": lambda X, k, c: baselines.optimistic_baseline(X, k, constraints=c, progress=False),
    "pessimistic_baseline": lambda X, k, c: baselines.pessimistic_baseline(X, k, constraints=c,
                                                                           solver_mode="heuristic",
                                                                           progress=False),
    "erroneous_fraction_by_k": lambda X, k, c: baselines.erroneous_fraction_by_k(X, [k], constraints=c,
                                                                                 progress=False),
    "build_kmedoids_model": lambda X, k, c: build_kmedoids_model(ClusteringProblem.create(X, k, c)),
    "build_lagrangian_model": lambda X, k, c: build_lagrangian_model(ClusteringProblem.create(X, k, c)),
    "solve_lp_duals": lambda X, k, c: solve_lp_duals(ClusteringProblem.create(X, k, c)),
    "HighsKMedoids": lambda X, k, c: ccopt.models.HighsKMedoids(ClusteringProblem.create(X, k, c)),
    "build_mssc_model[fractional]": lambda X, k, c: build_mssc_model(ClusteringProblem.create(X, k, c),
                                                                     form="fractional"),
    "kmedoids_objective": lambda X, k, c: kmedoids_objective(X, np.zeros(X.shape[0], dtype=int)),
}


@pytest.mark.parametrize("name", list(DENSE))
def test_dense_routes_refuse_past_the_bound_and_say_what_they_need(small, name):
    X, _, cons = small
    with config_context(max_dense_bytes=_just_below(N)), pytest.raises(MemoryBudgetError) as info:
        DENSE[name](X, 3, cons)
    message = str(info.value)
    assert f"({N} x {N})" in message
    assert "more than the configured bound" in message and "set_config(max_dense_bytes=...)" in message
    assert isinstance(info.value, MemoryError) and isinstance(info.value, ccopt.CcoptError)


SPARSE = {
    "impact_scores[mssc]": lambda X, k, c: ccopt.impact_scores(X, k, constraints=c, criterion="mssc",
                                                               max_iter=20, random_state=0, progress=False),
    "naive_baseline[mssc]": lambda X, k, c: baselines.naive_baseline(X, k, constraints=c, criterion="mssc",
                                                                     n_init=2, random_state=0),
    "coherence": lambda X, k, c: baselines.coherence(X, constraints=c),
    "KMeans": lambda X, k, c: ccopt.cluster.KMeans(k, n_init=2, random_state=0).fit(X, constraints=c),
    "COPKMeans": lambda X, k, c: ccopt.cluster.COPKMeans(k, n_init=2, random_state=0).fit(X, constraints=c),
    "PCKMeans": lambda X, k, c: ccopt.cluster.PCKMeans(k, random_state=0).fit(X, constraints=c),
    "LCC": lambda X, k, c: ccopt.cluster.LCC(k, random_state=0).fit(X, constraints=c),
    "BHKMeans": lambda X, k, c: ccopt.cluster.BHKMeans(k, max_iter=10, random_state=0).fit(X, constraints=c),
    "PCS": lambda X, k, c: ccopt.cluster.PCS(k, sizes=_sizes(X.shape[0], k), random_state=0,
                                             progress=False).fit(X, constraints=c),
    "KMeansS[exact]": lambda X, k, c: ccopt.cluster.KMeansS(k, sizes=_sizes(X.shape[0], k), size_assignment="exact",
                                                            random_state=0, progress=False).fit(X),
    "MLKMeans": lambda X, k, c: ccopt.cluster.MLKMeans(k, random_state=0).fit(X, constraints=c.subset(c.ml_mask)),
    "build_mssc_model[convex]": lambda X, k, c: build_mssc_model(ClusteringProblem.create(X, k, c)),
}


def _sizes(n: int, k: int) -> list[int]:
    return [n // k + (c < n % k) for c in range(k)]


@pytest.mark.parametrize("name", list(SPARSE))
def test_routes_without_a_dense_matrix_run_under_a_bound_below_one(small, name):
    X, _, cons = small
    with cannot_links_ignored(name == "KMeans"):
        unbounded = SPARSE[name](X, 3, cons)
    with config_context(max_dense_bytes=_just_below(N)), cannot_links_ignored(name == "KMeans"):
        bounded = SPARSE[name](X, 3, cons)
    # The bound changes nothing but the refusal: a route that switched to another
    # computation under it would give another result.
    assert_same(bounded, unbounded)


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name in SPARSE if not name.startswith("build_")])
def test_peak_allocation_stays_far_below_one_dense_matrix(name):
    """At n = 4000 a dense float64 n x n matrix is 128 MB; the fits allocate a small part of it.

    (Pyomo models are left out: their components cost about a kilobyte each, which says
    nothing about dense arrays.)
    """
    n = 4000
    X, y = make_gaussian_clusters(n, 3, n_features=4, cluster_std=1.0, random_state=0)
    cons = correct_constraints(y, 400, random_state=0)
    _ = cons.closure
    with cannot_links_ignored(name == "KMeans"):
        tracemalloc.start()
        try:
            SPARSE[name](X, 3, cons)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 8 * n * n / 4, f"{name}: peak {peak / 2**20:.1f} MiB"


def test_a_large_dense_allocation_is_announced_before_it_is_made(caplog):
    with caplog.at_level(logging.INFO, logger="ccopt.config"):
        check_dense_memory((4000, 4000), what="k-medoids distance matrix")
    [record] = [r for r in caplog.records if r.name == "ccopt.config"]
    assert record.levelno == logging.INFO
    assert "k-medoids distance matrix (4000 x 4000) takes 122.07 MiB" in record.getMessage()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ccopt.config"):
        check_dense_memory((100, 100), what="small matrix")
    assert not [r for r in caplog.records if r.name == "ccopt.config"]  # small ones only at DEBUG


def test_the_bound_is_restored_after_a_config_context():
    before = ccopt.get_config()["max_dense_bytes"]
    with config_context(max_dense_bytes=10):
        assert ccopt.get_config()["max_dense_bytes"] == 10
    assert ccopt.get_config()["max_dense_bytes"] == before
    with pytest.raises(ValueError), config_context(max_dense_bytes=10):
        raise ValueError("inside")
    assert ccopt.get_config()["max_dense_bytes"] == before
