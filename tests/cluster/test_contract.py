"""The estimator contract, checked on every estimator that ccopt.cluster exports.

Every estimator is built as ``cls(n_clusters=3, random_state=0)`` (plus ``progress=False``
where it has that parameter, and the parameters in ``NEEDED``) and fitted on 30 points in
three well-separated groups of 10 with a few must-links and cannot-links that agree with
the groups. KMeansS uses size constraints only and refuses pairwise ones (with a clear
error), so it is fitted without them; KMeans ignores the cannot-links and says so, a warning
these tests expect. Bad input raises the specific error whichever estimator reads it.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pytest
from sklearn.base import clone

import ccopt.cluster
from ccopt.cluster import COPKMeans, PCKMeans
from ccopt.constraints import CL, Constraints
from ccopt.exceptions import (
    CcoptWarning,
    ConflictingConstraintError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
)
from ccopt.metrics import wcss
from ccopt.status import Status

from ._estimators import ESTIMATORS

NEEDED = {"KMeansS": {"sizes": [10, 10, 10]}, "PCS": {"sizes": [10, 10, 10]}}
NO_PAIRWISE = {"KMeansS"}
COMMON = ("labels_", "cluster_centers_", "objective_", "inertia_", "n_violations_", "n_iter_",
          "status_")


def _make(name: str, **params):
    cls = getattr(ccopt.cluster, name)
    est = cls(n_clusters=params.pop("n_clusters", 3), random_state=0)
    if "progress" in est.get_params():
        params.setdefault("progress", False)
    return est.set_params(**{**NEEDED.get(name, {}), **params})


def _pairs(name, ml, cl):
    return {} if name in NO_PAIRWISE else {"ml": ml, "cl": cl}


def _fitting(name):
    """What fitting ``name`` on this data says: KMeans, that it ignores the 3 cannot-links."""
    if name == "KMeans":
        return pytest.warns(CcoptWarning, match=r"^KMeans does not enforce cannot-links: .* ignores the 3 "
                            r"cannot-link\(s\) given")
    return nullcontext()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2024)
    centres = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])
    hidden = np.repeat(np.arange(3), 10)
    X = centres[hidden] + rng.normal(0.0, 0.5, size=(30, 2))
    ml = np.array([[0, 3], [11, 15], [22, 27], [4, 8]])
    cl = np.array([[1, 12], [13, 24], [5, 25]])
    assert (hidden[ml[:, 0]] == hidden[ml[:, 1]]).all()
    assert (hidden[cl[:, 0]] != hidden[cl[:, 1]]).all()
    return X, ml, cl


@pytest.fixture(params=ESTIMATORS)
def name(request):
    return request.param


def test_fit_returns_self_and_sets_common_attributes(name, data):
    X, ml, cl = data
    est = _make(name)
    with _fitting(name):
        assert est.fit(X, **_pairs(name, ml, cl)) is est
    for attr in COMMON:
        assert hasattr(est, attr), f"{name} lacks {attr}"
    labels = est.labels_
    assert labels.shape == (30,)
    assert np.issubdtype(labels.dtype, np.integer)
    assert labels.min() >= 0 and labels.max() <= 2
    assert est.cluster_centers_.shape == (3, 2)
    assert np.isfinite(est.cluster_centers_).all()
    assert isinstance(est.objective_, float) and np.isfinite(est.objective_)
    assert est.inertia_ == pytest.approx(wcss(X, labels))
    cons = Constraints.from_pairs(**_pairs(name, ml, cl), n_samples=30)
    report = cons.violations(labels)
    assert est.n_violations_ == {"ml": report.n_ml, "cl": report.n_cl, "total": report.total}
    assert isinstance(est.n_iter_, int) and est.n_iter_ >= 0
    assert isinstance(est.status_, Status)


def test_same_seed_gives_same_labels(name, data):
    X, ml, cl = data
    with _fitting(name):
        first = _make(name).fit(X, **_pairs(name, ml, cl)).labels_
    with _fitting(name):
        second = _make(name).fit(X, **_pairs(name, ml, cl)).labels_
    np.testing.assert_array_equal(first, second)


def test_fit_predict_equals_labels(name, data):
    X, ml, cl = data
    est = _make(name)
    with _fitting(name):
        predicted = est.fit_predict(X, **_pairs(name, ml, cl))
    np.testing.assert_array_equal(predicted, est.labels_)
    with _fitting(name):
        refitted = _make(name).fit(X, **_pairs(name, ml, cl))
    np.testing.assert_array_equal(predicted, refitted.labels_)


def test_predict_sends_new_points_to_the_group_they_were_drawn_from(name, data):
    """Points drawn near each group's centre get that group's label; so do the training
    points, whose constraints agree with the groups (no object is held away from its group)."""
    X, ml, cl = data
    with _fitting(name):
        est = _make(name).fit(X, **_pairs(name, ml, cl))
    new = np.array([[0.3, -0.2], [7.6, 0.4], [-0.1, 8.3], [8.2, -0.3]])
    group_label = est.labels_[[0, 10, 20, 10]]
    np.testing.assert_array_equal(est.predict(new), group_label)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.predict(new).dtype == np.int64


def test_predict_is_the_nearest_centre(name, data):
    """Against a direct loop over the centres, on points between the groups as well."""
    X, ml, cl = data
    with _fitting(name):
        est = _make(name).fit(X, **_pairs(name, ml, cl))
    new = np.random.default_rng(7).uniform(-2.0, 10.0, size=(40, 2))
    expected = [min(range(3), key=lambda c: float(np.sum((p - est.cluster_centers_[c]) ** 2))) for p in new]
    np.testing.assert_array_equal(est.predict(new), expected)


def test_predict_refuses_unfitted_estimators_and_other_features(name, data):
    X, ml, cl = data
    with pytest.raises(NotFittedError, match=r"not fitted yet; call fit first"):
        _make(name).predict(X)
    with _fitting(name):
        est = _make(name).fit(X, **_pairs(name, ml, cl))
    with pytest.raises(InvalidDataError, match=r"X has 3 features, but .* was fitted on 2"):
        est.predict(np.ones((2, 3)))
    with pytest.raises(InvalidDataError, match=r"NaN at row 1, column 0"):
        est.predict(np.array([[0.0, 0.0], [np.nan, 1.0]]))


def test_reported_measures_do_not_depend_on_cluster_names(name, data):
    """WCSS and violations are functions of the partition: renaming clusters keeps them."""
    X, ml, cl = data
    with _fitting(name):
        est = _make(name).fit(X, **_pairs(name, ml, cl))
    cons = Constraints.from_pairs(**_pairs(name, ml, cl), n_samples=30)
    for perm in ([1, 2, 0], [2, 1, 0]):
        renamed = np.asarray(perm)[est.labels_]
        assert wcss(X, renamed) == pytest.approx(est.inertia_)
        assert cons.violations(renamed).total == est.n_violations_["total"]


def test_nan_in_data_is_rejected(name, data):
    X, ml, cl = data
    bad = X.copy()
    bad[4, 1] = np.nan
    with pytest.raises(InvalidDataError, match=r"NaN at row 4, column 1"):
        _make(name).fit(bad, ml=ml, cl=cl)


def test_more_clusters_than_objects_is_rejected(name, data):
    X, ml, cl = data
    with pytest.raises(InvalidParameterError, match=r"n_samples=30 should be >= n_clusters=31"):
        _make(name, n_clusters=31).fit(X, **_pairs(name, ml, cl))


def test_out_of_range_pair_is_rejected(name, data):
    X, ml, _ = data
    with pytest.raises(InvalidConstraintError, match=r"out of range.*cl\[1\] = \(13, 30\)"):
        _make(name).fit(X, ml=ml, cl=np.array([[1, 12], [13, 30]]))


def test_inputs_are_not_mutated(name, data):
    X, ml, cl = data
    X_in, ml_in, cl_in = X.copy(), ml.copy(), cl.copy()
    with _fitting(name):
        _make(name).fit(X_in, **_pairs(name, ml_in, cl_in))
    np.testing.assert_array_equal(X_in, X)
    np.testing.assert_array_equal(ml_in, ml)
    np.testing.assert_array_equal(cl_in, cl)
    assert X_in.flags.writeable


def test_clone_gives_an_unfitted_copy_with_the_same_parameters(name, data):
    X, ml, cl = data
    with _fitting(name):
        est = _make(name).fit(X, **_pairs(name, ml, cl))
    copy = clone(est)
    assert type(copy) is type(est)
    assert copy.get_params() == est.get_params()
    assert not hasattr(copy, "labels_")
    with _fitting(name):
        copy.fit(X, **_pairs(name, ml, cl))
    np.testing.assert_array_equal(copy.labels_, est.labels_)


def test_vectorised_kernels_run_with_one_blas_thread(monkeypatch):
    """The base ``fit`` limits BLAS to one thread for classes that declare it, and only there."""
    from threadpoolctl import threadpool_info

    from ccopt.cluster import BHKMeans, KMeans

    seen = {}

    def recording(name, original):
        def _fit(self, problem, rng, deadline):
            seen[name] = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
            return original(self, problem, rng, deadline)
        return _fit

    monkeypatch.setattr(KMeans, "_fit", recording("KMeans", KMeans._fit))
    X = np.random.default_rng(0).normal(size=(30, 2))
    KMeans(2, n_init=1, random_state=0).fit(X)
    if not seen["KMeans"]:
        pytest.skip("no BLAS library visible to threadpoolctl")
    assert seen["KMeans"] == {1}
    assert KMeans._single_blas_thread and not BHKMeans._single_blas_thread


# --------------------------------------------------------------------------- bad input: the specific error
X_BAD = np.arange(12.0).reshape(6, 2)


@pytest.mark.parametrize("cls", [COPKMeans, PCKMeans])
@pytest.mark.parametrize(("k", "X", "fit_kw", "error", "match"), [
    (2, X_BAD, {"ml": [(0, 6)]}, InvalidConstraintError,
     r"out of range for n_samples=6 .*\(0, 6\)"),
    (2, X_BAD, {"cl": [(-1, 2)]}, InvalidConstraintError, r"negative object indices"),
    (2, X_BAD, {"cl": [(3, 3)]}, InvalidConstraintError,
     r"self-pairs i == j in cl\[0\] = \(3, 3\)"),
    (2, np.where(X_BAD == 5.0, np.nan, X_BAD), {}, InvalidDataError,
     r"X contains NaN at row 2, column 1"),
    (7, X_BAD, {}, InvalidParameterError, r"n_samples=6 should be >= n_clusters=7"),
    (2, X_BAD, {"ml": [(0, 1)], "cl": [(1, 0)]}, ConflictingConstraintError,
     r"must-link in ml\[0\] and cannot-link"),
])
def test_bad_input_raises_the_specific_error(cls, k, X, fit_kw, error, match):
    with pytest.raises(error, match=match):
        cls(k, random_state=0).fit(X, **fit_kw)


def test_a_negative_constraint_weight_is_refused_before_any_estimator_sees_it():
    with pytest.raises(InvalidConstraintError,
                       match=r"weights must be finite and >= 0; bad values in row 0 = -1.0"):
        Constraints([(0, 1)], [CL], weights=[-1.0], n_samples=6)
