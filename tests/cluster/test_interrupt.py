"""Ctrl-C during KMeans, COP-kmeans, PCKmeans and LCC returns the best labelling so far.

The interrupt is raised from inside the algorithm (the n-th distance computation of its
module), as a signal handler would raise it between two iterations.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.cluster import LCC, COPKMeans, KMeans, PCKMeans, _cop_kmeans, _kmeans, _lcc, _pckmeans
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


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_interrupt_returns_the_best_so_far_and_stops_the_restarts(monkeypatch, name):
    module, make = ESTIMATORS[name]
    calls = interrupt_at(monkeypatch, module, 3)
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
