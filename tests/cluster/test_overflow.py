"""Numbers too large for float64 or int64 are refused with a clear message; large ones still fit.

Data, starting centres or penalties whose squared distances or products overflow float64 used
to surface as AttributeError, NaN probabilities, false dead ends, false infeasibility or NaN
objectives deep inside the algorithms; target sizes that overflow int64 wrapped round.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pytest

import ccopt.cluster
from ccopt.cluster import PCS, KMeans, KMeansS, PCKMeans, cop_kmeans_problem, ml_kmeanspp_init
from ccopt.constraints import CL, ML, Constraints
from ccopt.exceptions import (
    CcoptWarning,
    ConvergenceWarning,
    InvalidDataError,
    InvalidParameterError,
)
from ccopt.problem import ClusteringProblem

from ._estimators import ESTIMATORS
from ._references import all_labellings, pck_objective


def _make(name: str, n: int, **params):
    """``name`` with two clusters (KMeansS and PCS: sizes that split ``n`` objects in halves)."""
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


# ----------------------------------------------------------------------------- data and centres
# Data of magnitude ~1e160 is finite, but its squared distances overflow: without the check,
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
    # KMeans ignores the cannot-link it is given, and says so.
    def ignored():
        return (pytest.warns(CcoptWarning, match=r"^KMeans does not enforce cannot-links: .* ignores the 1 "
                             r"cannot-link\(s\)") if name == "KMeans" else nullcontext())

    with ignored():
        big = _make(name, 10).fit(_points(1e150), **_pairs(name))
    if name == "PCS":
        # PCS adds a unitless size term (a Jensen-Shannon divergence) to the distances, so
        # its answer depends on the data's scale; the result must still be a finite fit.
        assert np.isfinite(big.objective_) and np.isfinite(big.inertia_)
        assert np.isfinite(big.cluster_centers_).all() and set(big.labels_) <= {0, 1}
        return
    # The others are scale-free: same labels, objective times 1e300.
    with ignored():
        unit = _make(name, 10).fit(_points(1.0), **_pairs(name))
    np.testing.assert_array_equal(big.labels_, unit.labels_)
    assert big.objective_ == pytest.approx(unit.objective_ * 1e300, rel=1e-9)
    assert big.inertia_ == pytest.approx(unit.inertia_ * 1e300, rel=1e-9)
    np.testing.assert_allclose(big.cluster_centers_, unit.cluster_centers_ * 1e150, rtol=1e-9)


def test_predict_refuses_rows_whose_distances_overflow():
    est = KMeans(2, random_state=0).fit(_points(1.0))
    with pytest.raises(InvalidDataError, match=r"X row 0 .* overflows"):
        est.predict(_points(1e160, n=3))


# ----------------------------------------------------------------------------- pairwise penalties
def _overflow_case():
    """Four points on a line and three contradicting constraints of weight 2."""
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    cons = Constraints([(0, 1), (1, 2), (0, 2)], [ML, CL, ML], weights=2.0, n_samples=4)
    return X, cons


def test_pck_refuses_penalties_that_overflow_float64():
    # weight and weights are finite, their product is not: the costs became inf - inf = nan,
    # no run was ever kept, and fit died with AttributeError ('NoneType' has no 'super_index').
    X, cons = _overflow_case()
    with pytest.raises(InvalidParameterError, match=r"penalties overflow float64: weight=1e\+308"):
        PCKMeans(2, weight=1e308, random_state=0).fit(X, constraints=cons)


def test_pck_huge_but_representable_penalties_still_fit():
    # The three constraints contradict each other (the cannot-link lies inside the must-link
    # chain, which fit says), so every labelling pays at least one penalty of 1e300 * 2; the
    # distance term is lost in its rounding.
    X, cons = _overflow_case()
    with (pytest.warns(ConvergenceWarning, match=r"1 empty cluster\(s\) of n_clusters=2"),
          pytest.warns(CcoptWarning, match=r"^PCKMeans: 1 of the 1 cannot-link\(s\) lie inside must-link chains")):
        est = PCKMeans(2, weight=1e300, random_state=0).fit(X, constraints=cons)
    best = min(pck_objective(X, lab, np.array([[0.0], [0.0]]), cons, 1e300)
               for lab in all_labellings(4, 2))
    assert best == 2e300
    assert est.objective_ == pytest.approx(best, rel=1e-12)


def test_pcs_refuses_pairwise_penalties_that_overflow_float64():
    # PCS builds PCKmeans' model; with weight 1e308 and constraint weights of 2 it must refuse
    # the penalties, as PCKMeans does, not return an objective of inf.
    X, cons = _overflow_case()
    with pytest.raises(InvalidParameterError, match="penalties overflow float64"):
        PCS(2, sizes=[2, 2], weight=1e308, random_state=0, progress=False).fit(X, constraints=cons)


# ----------------------------------------------------------------------------- target sizes
X_45 = np.vstack([np.random.default_rng(0).normal(c, 0.8, (15, 2)) for c in ((0, 0), (5, 0), (0, 5))])


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
        estimator(3, sizes=sizes, progress=False).fit(X_45)
