"""Regression tests from the fidelity review of LCC (Ganji et al. 2016) and MLKMeans (Jia et al.)."""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.cluster import LCC, GreedyMLKMeans, MLKMeans


def _lloyd_fixed_point(X, centers):
    """Plain Lloyd iterations until the labels repeat (a reference, not ccopt's code)."""
    labels = None
    while True:
        new = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2).argmin(axis=1)
        if labels is not None and np.array_equal(new, labels):
            return centers
        labels = new
        centers = np.array([X[labels == j].mean(axis=0) for j in range(centers.shape[0])])


def test_lcc_does_not_return_the_callers_init_array():
    """When the initial labelling stays the best, ``cluster_centers_`` are those centres: a
    copy, not the caller's array (which they may go on to change)."""
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    init = np.array([[0.05], [5.05]])  # the means of the nearest-centre split: nothing improves
    est = LCC(2, init=init, max_iter=1).fit(X)
    assert est.best_iter_ == 0
    init[0, 0] = 99.0
    np.testing.assert_array_equal(est.cluster_centers_, [[0.05], [5.05]])


def test_lcc_single_cluster_iterations_are_not_improvements():
    """With k = 1 every iteration repeats the initial labelling and centre, so (V, O) ties
    with the initial (bestV, bestO) and line 37's strict ``<`` records no improvement."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) * 3
    ml = [(i, i + 1) for i in range(0, 60, 3)]  # weights 2: a weighted sum, as in (3.2)
    est = LCC(1, random_state=0).fit(X, ml=ml, cl=[(0, 100)])
    assert est.best_iter_ == 0
    assert not est.history_["improved"].any()
    assert est.objective_ == pytest.approx(((X - X.mean(axis=0)) ** 2).sum(), rel=1e-12)


def test_lcc_first_iteration_from_a_fixed_point_is_not_an_improvement():
    """From the centres of a Lloyd fixed point and with no cannot-link, iteration 1 assigns
    every object where the initial labelling put it: a tie with (bestV, bestO), not a new
    best (before the fix the two objectives were summed differently and this one "won")."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, size=(150, 2)), rng.normal(6, 1, size=(150, 2))])
    X += np.random.default_rng(3).normal(scale=1e-3, size=X.shape)
    start = _lloyd_fixed_point(X, X[[0, 299]].copy())
    est = LCC(2, init=start, max_iter=3).fit(X)
    assert est.best_iter_ == 0
    assert not est.history_["improved"].any()


@pytest.mark.parametrize("estimator", [MLKMeans, GreedyMLKMeans])
def test_jia_interrupt_before_a_later_restart_has_a_labelling_keeps_the_finished_run(monkeypatch, estimator):
    """Ctrl-C at the start of restart 2 propagated out of fit and lost restart 1; restart 1 is
    the n_init=1 fit (it draws first from the same stream), so that is the answer, interrupted."""
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
