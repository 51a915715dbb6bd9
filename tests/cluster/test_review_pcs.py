"""Review regressions for KMeansS and PCS (Zhang, Wong, Xie): Ctrl-C handling, size checks.

The interrupts are raised from inside the algorithm (the n-th distance computation of a
module), as a signal handler would raise them between two iterations.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.cluster import _kmeans, _pckmeans, _pcs
from ccopt.cluster._pcs import PCS, KMeansS
from ccopt.exceptions import InvalidParameterError
from ccopt.status import Status

from ._interrupts import interrupt_at

X = np.vstack([np.random.default_rng(0).normal(c, 0.8, (15, 2)) for c in ((0, 0), (5, 0), (0, 5))])
SIZES = [20, 15, 10]
ML, CL = [(0, 1), (15, 16)], [(0, 15), (2, 40)]


def _nearest(points, centers):
    return ((points[:, None, :] - centers[None]) ** 2).sum(axis=2).argmin(axis=1)


def _means(points, labels, k):
    return np.array([points[labels == h].mean(axis=0) for h in range(k)])


def test_kmeans_s_interrupt_in_the_filter_returns_at_once(monkeypatch):
    """Ctrl-C in the second k-means step of the filter: the filter keeps its first labelling
    L1 and centroids mean(L1); KMeansS then assigns once to them and stops, interrupted."""
    init = X[[0, 15, 30]] + 0.5
    calls = interrupt_at(monkeypatch, _kmeans, 2)
    est = KMeansS(3, sizes=SIZES, init=init, progress=False).fit(X)
    assert est.status_ is Status.INTERRUPTED
    assert len(calls) == 2  # the filter did no further step
    expected_centers = _means(X, _nearest(X, init), 3)
    np.testing.assert_allclose(est.cluster_centers_, expected_centers)
    np.testing.assert_array_equal(est.labels_, _nearest(X, expected_centers))
    assert est.n_iter_ == 0


@pytest.mark.parametrize(("make", "module", "fit_kw"), [
    (lambda: KMeansS(3, sizes=SIZES, n_init=3, random_state=0, progress=False), _kmeans, {}),
    (lambda: PCS(3, sizes=SIZES, n_init=3, random_state=0, progress=False), _pckmeans,
     {"ml": ML, "cl": CL}),
], ids=["KMeansS", "PCS"])
def test_interrupt_in_the_filter_stops_the_restarts(monkeypatch, make, module, fit_kw):
    """The filter's second assignment is interrupted: no further restart may run."""
    calls = interrupt_at(monkeypatch, module, 2)
    est = make().fit(X, **fit_kw)
    assert est.status_ is Status.INTERRUPTED
    # KMeansS's refinement assigns in _pcs; PCS's one pass assigns in _pckmeans (call 3).
    assert len(calls) == (2 if module is _kmeans else 3)
    assert est.labels_.shape == (X.shape[0],)


@pytest.mark.parametrize(("make", "fit_kw"), [
    (lambda n_init: KMeansS(3, sizes=SIZES, n_init=n_init, filter_refinement=False, random_state=0,
                            progress=False), {}),
    (lambda n_init: PCS(3, sizes=SIZES, n_init=n_init, filter_refinement=False, random_state=0,
                        progress=False), {"ml": ML, "cl": CL}),
], ids=["KMeansS", "PCS"])
def test_interrupt_early_in_a_later_restart_keeps_the_finished_run(monkeypatch, make, fit_kw):
    """Ctrl-C before restart 2 has any labelling: restart 1 (the same run as with n_init=1,
    it draws first from the same stream) is the answer, marked interrupted."""
    alone = make(1).fit(X, **fit_kw)
    calls = interrupt_at(monkeypatch, _pcs, 10**9)
    make(1).fit(X, **fit_kw)
    per_run = len(calls)
    calls = interrupt_at(monkeypatch, _pcs, per_run + 1)  # restart 2's first computation
    try:
        est = make(3).fit(X, **fit_kw)
    except KeyboardInterrupt:  # would abort the whole test session
        pytest.fail("the interrupt propagated although restart 1 had finished")
    assert est.status_ is Status.INTERRUPTED
    np.testing.assert_array_equal(est.labels_, alone.labels_)
    assert est.objective_ == alone.objective_


def test_interrupt_before_any_labelling_still_propagates(monkeypatch):
    interrupt_at(monkeypatch, _pcs, 1)
    with pytest.raises(KeyboardInterrupt):
        KMeansS(3, sizes=SIZES, n_init=3, filter_refinement=False, random_state=0,
                progress=False).fit(X)


@pytest.mark.parametrize(("sizes", "message"), [
    # 2**64 - 1 + 3 and 2**62 + 2**62 = 2**63 by hand; int64 arithmetic wraps both round.
    (np.array([2**64 - 1, 3, 1], dtype=np.uint64), "add up to 18446744073709551619, but X has"),
    (np.array([2**62, 2**62, 1], dtype=np.int64), "add up to 9223372036854775809, but X has"),
    ([1e20, 3.0, 1.0], "add up to 100000000000000000004, but X has"),
    (np.array([2**64 - 1, 0, 1], dtype=np.uint64), r"must be positive .*sizes\[1\] = 0\."),
])
@pytest.mark.parametrize("estimator", [KMeansS, PCS])
def test_huge_sizes_are_reported_as_given(estimator, sizes, message):
    with pytest.raises(InvalidParameterError, match=message):
        estimator(3, sizes=sizes, progress=False).fit(X)


def test_pcs_refuses_pairwise_penalties_that_overflow_float64():
    # PCS builds PCKmeans' model; with weight 1e308 and constraint weights of 2 it returned
    # an objective of inf instead of refusing the penalties, as PCKMeans does.
    from .test_review_cop_pck import _overflow_case

    X, cons = _overflow_case()
    with pytest.raises(InvalidParameterError, match="penalties overflow float64"):
        PCS(2, sizes=[2, 2], weight=1e308, random_state=0, progress=False).fit(X, constraints=cons)
