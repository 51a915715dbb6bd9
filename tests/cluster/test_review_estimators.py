"""Regression tests for defects found in a review of the estimators and the metrics.

Each test names the defect it guards against; the instances are tiny (no solver is reached
where BH-kmeans appears, the error comes first).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ccopt.cluster
from ccopt.cluster import GreedyMLKMeans, KMeans, MLKMeans, cop_kmeans_problem, ml_kmeanspp_init
from ccopt.exceptions import ConvergenceWarning, InvalidDataError, InvalidParameterError
from ccopt.metrics import alignment_score, detection_scores
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

ESTIMATORS = ["KMeans", "COPKMeans", "PCKMeans", "BHKMeans", "LCC", "KMeansS", "PCS", "MLKMeans",
              "GreedyMLKMeans"]


def _make(name: str, n: int, **params):
    cls = getattr(ccopt.cluster, name)
    est = cls(2, random_state=0)
    if "progress" in est.get_params():
        params.setdefault("progress", False)
    if name in ("KMeansS", "PCS"):
        params["sizes"] = [n // 2, n - n // 2]
    return est.set_params(**params)


def _pairs(name: str) -> dict:
    return {} if name == "KMeansS" else {"ml": [(0, 1)], "cl": [(2, 3)]}


def _points(scale: float, n: int = 10) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, 2)) * scale


# Data of magnitude ~1e160 is finite, but its squared distances overflow: before the check,
# KMeans and COP-kmeans failed with AttributeError ('NoneType' has no 'status'/'super_index'),
# MLKMeans with numpy's "Probabilities contain NaN", PCKMeans/PCS/BH-kmeans reported false dead
# ends or infeasibility, LCC and KMeansS returned nan objectives.
@pytest.mark.parametrize("name", ESTIMATORS)
def test_data_whose_squared_distances_overflow_is_refused_clearly(name):
    est = _make(name, 10)
    with pytest.raises(InvalidDataError, match="X is too large for squared Euclidean distances"):
        est.fit(_points(1e160), **_pairs(name))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_starting_centres_whose_distances_overflow_are_refused_clearly(name):
    init = np.array([[1e200, 0.0], [0.0, 0.0]])
    est = _make(name, 10, init=init)
    with pytest.raises(InvalidDataError, match="init is too large for squared Euclidean distances"):
        est.fit(_points(1.0), **_pairs(name))


def test_problem_level_entry_points_refuse_overflowing_data():
    X = _points(1e160)
    with pytest.raises(InvalidDataError, match="too large"):
        ml_kmeanspp_init(X, 2, ml=[(0, 1)], random_state=0)
    # Every problem-level entry point (cop_kmeans_problem, impact_scores, ...) takes a
    # ClusteringProblem, so building one is where such data is refused.
    with pytest.raises(InvalidDataError, match="too large"):
        cop_kmeans_problem(ClusteringProblem.create(X, 2, cl=[(0, 1)]), 0)


@pytest.mark.parametrize("name", ["KMeans", "COPKMeans", "LCC", "MLKMeans", "PCS"])
def test_large_but_representable_data_still_fits(name):
    # 1e150: squares near 1e300, sums still finite; the check must not refuse such data.
    big = _make(name, 10).fit(_points(1e150), **_pairs(name))
    if name == "PCS":
        # PCS adds a unitless size term (a Jensen-Shannon divergence) to the distances, so
        # its answer depends on the data's scale; the result must still be a finite fit.
        assert np.isfinite(big.objective_) and np.isfinite(big.inertia_)
        assert np.isfinite(big.cluster_centers_).all() and set(big.labels_) <= {0, 1}
        return
    # The others are scale-free: same labels, objective times 1e300.
    unit = _make(name, 10).fit(_points(1.0), **_pairs(name))
    np.testing.assert_array_equal(big.labels_, unit.labels_)
    assert big.objective_ == pytest.approx(unit.objective_ * 1e300, rel=1e-9)
    assert big.inertia_ == pytest.approx(unit.inertia_ * 1e300, rel=1e-9)
    np.testing.assert_allclose(big.cluster_centers_, unit.cluster_centers_ * 1e150, rtol=1e-9)


def test_predict_refuses_rows_whose_distances_overflow():
    est = KMeans(2, random_state=0).fit(_points(1.0))
    with pytest.raises(InvalidDataError, match=r"X row 0 .* overflows"):
        est.predict(_points(1e160, n=3))


def test_greedy_stops_when_the_clusters_only_swap_numbers():
    # Must-link sets A = {0, 1} (mean 5) and B = {2, 3} (mean -3), cannot-linked. A's first
    # object (0) is nearer B's mean and B's first object (4) nearer A's: the greedy pass
    # swaps the two cluster numbers at every step while the clusters stay the same. Before
    # the fix the run went on to max_iter and warned that it had not converged.
    X = np.array([[0.0], [10.0], [4.0], [-10.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = GreedyMLKMeans(2, init=np.array([[5.0], [-3.0]]), progress=False).fit(
            X, ml=[(0, 1), (2, 3)], cl=[(0, 2)])
    assert est.status_ is Status.CONVERGED
    assert est.n_iter_ == 1
    assert est.labels_[0] == est.labels_[1] != est.labels_[2] == est.labels_[3]
    # The cost of these labels against the swapped centres (5 and -3), as the greedy pass
    # measures it: objects 0, 1 at -3, objects 2, 3 at 5.
    swapped = (0 + 3) ** 2 + (10 + 3) ** 2 + (4 - 5) ** 2 + (-10 - 5) ** 2
    assert est.cost_history_ == [pytest.approx(swapped)] * 2


def test_ml_kmeans_stop_rule_is_unchanged_by_renumbered_clusters():
    X = np.array([[0.0], [10.0], [4.0], [-10.0]])
    est = MLKMeans(2, init=np.array([[5.0], [-3.0]]), progress=False).fit(
        X, ml=[(0, 1), (2, 3)], cl=[(0, 2)])
    assert est.status_ is Status.CONVERGED
    assert np.diff(est.cost_history_).max() <= 0


@pytest.mark.parametrize("zero_division", [np.float32(1.0), np.int64(1), np.float64(np.nan)])
def test_detection_scores_accept_numpy_scalars_for_zero_division(zero_division):
    scores = detection_scores([False, False], [False, False], zero_division=zero_division)
    assert scores.recall == pytest.approx(float(zero_division), nan_ok=True)


@pytest.mark.parametrize("sizes", [[np.nan, 1.0], [np.inf, 1.0]])
def test_alignment_score_refuses_non_finite_sizes(sizes):
    # Before: a nan or inf target size gave a nan score without a word.
    with pytest.raises(InvalidParameterError, match="finite sizes"):
        alignment_score([0, 0, 1], [0, 0, 1], sizes)
