"""Edge cases of the estimators' input, one pinned case each: identical points that leave a
cluster empty, values whose squared distances underflow, constraints passed as ``y``, use
before ``fit``, switches and sizes of the wrong type, sparse data.

Each case was a silent wrong answer, a lost input or a raw Python error where a ccopt
exception or warning with a clear message belongs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

import ccopt
from tests.hardening._api import TWO_PAIRS


# ----------------------------------------------------------------------------- empty clusters
def _empty_cluster_warnings(fit) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, ccopt.ConvergenceWarning)
            and "empty cluster" in str(w.message)]


@pytest.mark.parametrize("make", [
    lambda: ccopt.COPKMeans(2, random_state=0),
    lambda: ccopt.PCKMeans(2, random_state=0),
    lambda: ccopt.MLKMeans(2, random_state=0),
    lambda: ccopt.GreedyMLKMeans(2, random_state=0),
    lambda: ccopt.KMeansS(2, sizes=[3, 3], random_state=0),
    lambda: ccopt.KMeans(2, random_state=0),
])
def test_a_fit_with_an_empty_cluster_warns_once(make):
    # Six identical points: every algorithm puts them in one cluster and used to say
    # nothing but "converged" (only KMeans warned).
    est = make()
    messages = _empty_cluster_warnings(lambda: est.fit(np.ones((6, 2))))
    assert np.unique(est.labels_).size == 1
    assert len(messages) == 1
    assert "only 1 distinct point" in messages[0] and "cluster(s) [1]" in messages[0]


def test_lcc_warns_when_its_final_labelling_leaves_a_cluster_empty():
    # LCC starts from a random labelling, and a cluster it empties keeps its centre (the
    # paper's algorithm); seven distinct points, k = 5: cluster 0 ends empty.
    X = np.random.default_rng(1).normal(size=(7, 1))
    est = ccopt.LCC(5, random_state=0)
    messages = _empty_cluster_warnings(lambda: est.fit(X, ml=[(3, 6)]))
    assert np.bincount(est.labels_, minlength=5)[0] == 0
    assert len(messages) == 1 and "try another random_state" in messages[0]


def test_no_empty_cluster_warning_when_every_cluster_is_used():
    assert _empty_cluster_warnings(lambda: ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS)) == []


# ----------------------------------------------------------------------------- data
@pytest.mark.parametrize("scale", [1e-150, 1e-165, 1e-200])
def test_data_whose_squared_distances_underflow_are_refused(scale):
    # At 1e-165 every squared distance is 0 and COP-kmeans put all four points together.
    with pytest.raises(ccopt.InvalidDataError, match="too small"):
        ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS * scale)
    with pytest.raises(ccopt.InvalidDataError, match="too small"):
        ccopt.impact_scores(TWO_PAIRS * scale, 2, ml=[(0, 1)], cl=[(0, 2)], criterion="mssc", progress=False)


def test_small_but_representable_and_all_zero_data_are_accepted():
    labels = ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS * 1e-140).labels_
    assert labels[0] == labels[1] != labels[2] == labels[3]
    ccopt.ClusteringProblem.create(np.zeros((4, 2)), 1)


def test_sparse_data_are_refused_with_a_pointer_to_toarray():
    with pytest.raises(ccopt.InvalidDataError, match=r"sparse matrix .*toarray"):
        ccopt.KMeans(2).fit(sp.csr_matrix(np.eye(3)))


# ----------------------------------------------------------------------------- parameters and calls
def test_pairs_passed_as_y_are_refused_and_labels_as_y_are_ignored():
    with pytest.raises(ccopt.InvalidParameterError, match="pass constraints by keyword"):
        ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS, [(0, 2)])
    with pytest.raises(ccopt.InvalidParameterError, match="shape"):
        ccopt.LCC(2, random_state=0).fit_predict(TWO_PAIRS, [(0, 2), (1, 3)])
    with pytest.raises(ccopt.InvalidParameterError, match="ragged"):
        ccopt.LCC(2, random_state=0).fit(TWO_PAIRS, [(0, 2), (1,)])
    plain = ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS).labels_
    np.testing.assert_array_equal(ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS, [0, 0, 1, 1]).labels_, plain)


def test_an_unfitted_estimator_is_caught_as_scikit_learns_not_fitted_error():
    with pytest.raises(SklearnNotFittedError):
        ccopt.KMeans(2).predict(np.zeros((2, 2)))
    with pytest.raises(ccopt.NotFittedError):
        ccopt.BHKMeans(2).predict(np.zeros((2, 2)))
    assert not hasattr(ccopt.LCC(2), "labels_")


@pytest.mark.parametrize("param", ["decompose", "tee"])
def test_bh_kmeans_switches_must_be_booleans(param):
    with pytest.raises(ccopt.InvalidParameterError, match=f"{param} must be True or False"):
        ccopt.BHKMeans(2, **{param: "no"}).fit(TWO_PAIRS)


def test_kmeans_s_refuses_a_boolean_among_the_sizes():
    X = np.random.default_rng(0).normal(size=(12, 2))
    with pytest.raises(ccopt.InvalidParameterError, match="sizes must hold integers"):
        ccopt.KMeansS(2, sizes=[True, 11], random_state=0).fit(X)
