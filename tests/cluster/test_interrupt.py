"""Ctrl-C during a fit returns the best labelling so far, and stops the restarts.

The interrupt is raised from inside the algorithm (the n-th distance computation of its
module, or the n-th run), as a signal handler would raise it between two iterations. Only an
interrupt before any labelling exists propagates.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pytest

from ccopt.cluster import (
    LCC,
    PCS,
    COPKMeans,
    GreedyMLKMeans,
    KMeans,
    KMeansS,
    MLKMeans,
    PCKMeans,
    _cop_kmeans,
    _kmeans,
    _lcc,
    _pckmeans,
    _pcs,
)
from ccopt.exceptions import CcoptWarning
from ccopt.status import Status

from ._interrupts import interrupt_at

X = np.vstack([np.random.default_rng(0).normal(c, 0.8, (15, 2)) for c in ((0, 0), (5, 0), (0, 5))])
ML = [(0, 1), (15, 16), (30, 31)]
CL = [(0, 15), (15, 30), (2, 40)]

ESTIMATORS = {
    "KMeans": (_kmeans, lambda: KMeans(3, n_init=4, random_state=0)),
    "COPKMeans": (_cop_kmeans, lambda: COPKMeans(3, n_init=4, random_state=0)),
    "PCKMeans": (_pckmeans, lambda: PCKMeans(3, n_init=4, random_state=0)),
    "LCC": (_lcc, lambda: LCC(3, n_init=4, random_state=0)),
}

# The size-constrained estimators (KMeansS, PCS): target sizes of X's 45 objects, and the
# fewer pairs PCS is fitted with.
SIZES = [20, 15, 10]
PCS_ML, PCS_CL = [(0, 1), (15, 16)], [(0, 15), (2, 40)]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_interrupt_returns_the_best_so_far_and_stops_the_restarts(monkeypatch, name):
    module, make = ESTIMATORS[name]
    calls = interrupt_at(monkeypatch, module, 3)
    # KMeans ignores the cannot-links, and says so, interrupted or not.
    ignored = (pytest.warns(CcoptWarning, match=r"^KMeans does not enforce cannot-links: .* ignores the 3 "
                            r"cannot-link\(s\)") if name == "KMeans" else nullcontext())
    with ignored:
        est = make().fit(X, ml=ML, cl=CL)
    assert est.status_ is Status.INTERRUPTED
    assert len(calls) == 3  # nothing ran after the interrupt: no further iteration or restart
    assert est.labels_.shape == (X.shape[0],)
    assert all(est.labels_[i] == est.labels_[j] for i, j in ML) or name == "PCKMeans"
    if name == "COPKMeans":  # a hard algorithm hands back no violation even when interrupted
        assert est.n_violations_["total"] == 0
    if name in ("KMeans", "COPKMeans"):  # Lloyd family: centres are the means of the labels
        for h in np.unique(est.labels_):
            np.testing.assert_allclose(est.cluster_centers_[h], X[est.labels_ == h].mean(axis=0))


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_interrupt_before_any_labelling_propagates(monkeypatch, name):
    module, make = ESTIMATORS[name]
    interrupt_at(monkeypatch, module, 1)
    with pytest.raises(KeyboardInterrupt):
        make().fit(X, ml=ML, cl=CL)


# --------------------------------------------------------------------------- KMeansS and PCS (size constraints)
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
     {"ml": PCS_ML, "cl": PCS_CL}),
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
                        progress=False), {"ml": PCS_ML, "cl": PCS_CL}),
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


# --------------------------------------------------------------------------- MLKMeans and GreedyMLKMeans
@pytest.mark.parametrize("estimator", [MLKMeans, GreedyMLKMeans])
def test_jia_interrupt_before_a_later_restart_has_a_labelling_keeps_the_finished_run(monkeypatch, estimator):
    """Ctrl-C at the start of restart 2 must not propagate out of fit and lose restart 1;
    restart 1 is the n_init=1 fit (it draws first from the same stream), so that is the
    answer, interrupted."""
    X = np.vstack([np.random.default_rng(1).normal(c, 0.5, (10, 2)) for c in ((0, 0), (4, 0), (0, 4))])
    ml, cl = [(0, 1), (10, 11)], [(0, 10), (11, 20)]
    alone = estimator(3, n_init=1, random_state=0, progress=False).fit(X, ml=ml, cl=cl)
    real, calls = estimator._run, []

    def interrupted_second_run(self, *args, **kwargs):
        calls.append(None)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(estimator, "_run", interrupted_second_run)
    try:
        est = estimator(3, n_init=3, random_state=0, progress=False).fit(X, ml=ml, cl=cl)
    except KeyboardInterrupt:  # would abort the whole test session
        pytest.fail("the interrupt propagated although restart 1 had finished")
    assert est.status_ == "interrupted" and len(calls) == 2
    np.testing.assert_array_equal(est.labels_, alone.labels_)
    assert est.objective_ == alone.objective_
