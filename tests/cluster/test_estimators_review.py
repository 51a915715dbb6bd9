"""Regression tests for defects found in a review of the clustering estimators.

Each test names the defect it guards against; the instances are tiny.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import ccopt.cluster

ESTIMATORS = ["KMeans", "COPKMeans", "PCKMeans", "BHKMeans", "LCC", "KMeansS", "PCS", "MLKMeans",
              "GreedyMLKMeans"]


def _make(name: str, n_clusters: int = 3, **params):
    cls = getattr(ccopt.cluster, name)
    est = cls(n_clusters, random_state=0)
    if "progress" in est.get_params():
        params.setdefault("progress", False)
    return est.set_params(**params)


@pytest.fixture(scope="module")
def groups():
    """12 points in three groups of four, with pairs that agree with the groups."""
    rng = np.random.default_rng(0)
    X = np.repeat([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]], 4, axis=0) + rng.normal(0.0, 0.3, size=(12, 2))
    return X, [(0, 1), (4, 5)], [(0, 4), (5, 8)]


# ----------------------------------------------------------------------------- pickling
@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_estimator_survives_a_pickle_round_trip(name, groups):
    # PCS kept its PCKmeans model (holding a lambda and the training problem) after fit.
    X, ml, cl = groups
    est = _make(name)
    if name in ("KMeansS", "PCS"):
        est.set_params(sizes=[4, 4, 4])
    pairs = {} if name == "KMeansS" else {"ml": ml, "cl": cl}
    est.fit(X, **pairs)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.labels_, est.labels_)
    new = X[::2] + 0.1
    np.testing.assert_array_equal(copy.predict(new), est.predict(new))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_estimator_does_not_carry_the_training_data(name):
    # PCS kept its model, and with it the training problem, on the estimator after fit.
    X = np.random.default_rng(1).normal(size=(60, 20))
    est = _make(name)
    if name in ("KMeansS", "PCS"):
        est.set_params(sizes=[20, 20, 20])
    est.fit(X, **({} if name == "KMeansS" else {"ml": [(0, 1)], "cl": [(2, 3)]}))
    assert len(pickle.dumps(est)) < X.nbytes


def test_a_pcs_fitted_with_hard_constraints_pickles(groups):
    X, ml, cl = groups
    cons = ccopt.Constraints.from_pairs(ml=ml, cl=cl, ml_hard=True, cl_hard=[True, False], n_samples=12)
    est = _make("PCS", sizes=[4, 4, 4]).fit(X, constraints=cons)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.labels_, est.labels_)
