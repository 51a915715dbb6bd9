"""Column names of the training data: recorded by fit, checked by predict; named in data errors
(text, missing and non-finite values).

The DataFrame tests skip without pandas (an optional dependency); the array paths run always.
Estimators are built as the shared contract tests build them (tests/cluster/test_contract.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from cluster.test_contract import ESTIMATORS, _make, _pairs

from ccopt._validation import check_data, feature_names
from ccopt.cluster import COPKMeans
from ccopt.exceptions import CcoptWarning, InvalidDataError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    centres = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])
    X = centres[np.repeat(np.arange(3), 10)] + rng.normal(0.0, 0.5, size=(30, 2))
    ml = np.array([[0, 3], [11, 15], [22, 27]])
    cl = np.array([[1, 12], [13, 24]])
    return X, ml, cl


@pytest.fixture(params=ESTIMATORS)
def name(request):
    return request.param


@pytest.fixture
def pd():
    return pytest.importorskip("pandas")


def _fit(name, X, ml, cl):
    est = _make(name)
    if name == "KMeans":  # it keeps the must-links and says that it ignores the cannot-links
        with pytest.warns(CcoptWarning, match="KMeans does not enforce cannot-links"):
            return est.fit(X, **_pairs(name, ml, cl))
    return est.fit(X, **_pairs(name, ml, cl))


# --------------------------------------------------------------------------- plain arrays
def test_fit_on_an_array_records_no_feature_names(name, data):
    est = _fit(name, *data)
    assert est.n_features_in_ == 2
    assert not hasattr(est, "feature_names_in_")
    with pytest.raises(AttributeError, match=r"fitted on X without string column names, so it has "
                                             r"no feature_names_in_"):
        est.feature_names_in_  # noqa: B018


def test_predict_on_an_array_after_an_array_does_not_warn(data):
    est = _fit("KMeans", *data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict(data[0])


def test_an_array_has_no_feature_names():
    assert feature_names(np.zeros((2, 2))) is None
    assert feature_names([[1.0, 2.0]]) is None


@pytest.mark.parametrize(
    ("X", "pattern"),
    [
        (np.array([[1.0, 2.0], [3.0, 4.0], [5.0, "a"]], dtype=object),
         r"^X must be numeric, got dtype object: the entry at row 2, column 1 is text \('a'\), "
         r"not a number\.$"),
        (np.array([[1.0, 2.0], [None, 4.0]], dtype=object),
         r"^X must be numeric, got dtype object: the entry at row 1, column 0 is None, not a number\.$"),
        ([["1", "b"]], r"^X must be numeric, got dtype <U1: the entry at row 0, column 0 is text \('1'\)"),
        (np.array([[1, 2.5]], dtype=object),
         r"got dtype object \(numbers held as Python objects\); pass np\.asarray\(X, dtype=float\)"),
        (np.array(["a", "b"]), r"^X must be numeric, got dtype <U1\.$"),  # 1-D: no cell to name
    ],
)
def test_non_numeric_array_messages_name_the_first_cell(X, pattern):
    with pytest.raises(InvalidDataError, match=pattern):
        check_data(X)


def test_an_estimator_names_the_cell_of_a_non_numeric_array(data):
    X = data[0].astype(object)
    X[4, 1] = "oops"
    with pytest.raises(InvalidDataError, match=r"row 4, column 1 is text \('oops'\)"):
        _make("KMeans").fit(X)


# --------------------------------------------------------------------------- DataFrames
def test_fit_on_a_dataframe_records_its_column_names(name, data, pd):
    X, ml, cl = data
    est = _fit(name, pd.DataFrame(X, columns=["x", "y"]), ml, cl)
    assert est.n_features_in_ == 2
    assert isinstance(est.feature_names_in_, np.ndarray)
    assert est.feature_names_in_.dtype == object
    assert est.feature_names_in_.tolist() == ["x", "y"]


def test_predict_refuses_reordered_columns(name, data, pd):
    X, ml, cl = data
    Xdf = pd.DataFrame(X, columns=["x", "y"])
    est = _fit(name, Xdf, ml, cl)
    with pytest.raises(InvalidDataError, match=(
            r"X has the feature names \['y', 'x'\], but \w+ was fitted with \['x', 'y'\] "
            r"\(same names in another order: reorder the columns")):
        est.predict(Xdf[Xdf.columns[::-1]])
    reordered = Xdf[Xdf.columns[::-1]]
    np.testing.assert_array_equal(est.predict(reordered[est.feature_names_in_]), est.predict(Xdf))


def test_predict_refuses_renamed_columns(data, pd):
    X, ml, cl = data
    est = _fit("PCKMeans", pd.DataFrame(X, columns=["x", "y"]), ml, cl)
    with pytest.raises(InvalidDataError, match=(
            r"X has the feature names \['x', 'z'\], but PCKMeans was fitted with \['x', 'y'\] "
            r"\(not seen in fit: \['z'\]; missing: \['y'\]\)")):
        est.predict(pd.DataFrame(X, columns=["x", "z"]))
    # Names are checked before the count: they say which column is extra.
    with pytest.raises(InvalidDataError, match=r"\(not seen in fit: \['w'\]\)"):
        est.predict(pd.DataFrame(np.ones((2, 3)), columns=["x", "y", "w"]))


def test_a_long_list_of_names_is_cut(pd):
    names = [f"f{i}" for i in range(12)]
    X = np.random.default_rng(0).normal(size=(6, 12))
    est = _make("KMeans", n_clusters=2).fit(pd.DataFrame(X, columns=names))
    with pytest.raises(InvalidDataError, match=r"\['f11', 'f10', 'f9', 'f8', 'f7', \.\.\.\] \(12 names\)"):
        est.predict(pd.DataFrame(X[:, ::-1], columns=names[::-1]))


def test_predict_accepts_an_array_after_a_dataframe_with_a_warning(data, pd):
    X, ml, cl = data
    est = _fit("COPKMeans", pd.DataFrame(X, columns=["x", "y"]), ml, cl)
    with pytest.warns(CcoptWarning, match=r"X has no column names, but COPKMeans was fitted with "
                                          r"the feature names \['x', 'y'\]") as record:
        labels = est.predict(X)
    assert record[0].filename == __file__
    np.testing.assert_array_equal(labels, est.predict(pd.DataFrame(X, columns=["x", "y"])))


def test_predict_accepts_a_dataframe_after_an_array(data, pd):
    X, ml, cl = data
    est = _fit("LCC", X, ml, cl)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        labels = est.predict(pd.DataFrame(X, columns=["b", "a"]))
    np.testing.assert_array_equal(labels, est.predict(X))


def test_refit_on_an_array_forgets_the_names(data, pd):
    X, ml, cl = data
    est = _fit("KMeans", pd.DataFrame(X, columns=["x", "y"]), ml, cl)
    est.fit(X)
    assert not hasattr(est, "feature_names_in_")


def test_numbered_columns_are_no_names_and_mixed_ones_are_not_recorded(data, pd):
    X = data[0]
    assert not hasattr(_make("KMeans").fit(pd.DataFrame(X)), "feature_names_in_")
    with pytest.warns(CcoptWarning, match=r"column names of mixed types \(int, str\), which are not "
                                                r"recorded"):
        est = _make("KMeans").fit(pd.DataFrame(X, columns=["x", 1]))  # it fitted before names were read
    assert not hasattr(est, "feature_names_in_")


def test_a_one_dimensional_x_after_a_dataframe_fit_is_refused_without_a_names_warning(data, pd):
    est = _make("KMeans").fit(pd.DataFrame(data[0], columns=["x", "y"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidDataError):
            est.predict(pd.DataFrame(data[0], columns=["x", "y"]).iloc[0])


def test_a_text_column_is_named(pd):
    frame = pd.DataFrame({"size": [1.0, 2.0, 3.0], "name": ["a", "b", "c"]})
    with pytest.raises(InvalidDataError, match=(
            r"^X must be numeric: column 'name' holds text \('a', \.\.\.\)\. Encode it as numbers "
            r"or drop it first\.$")):
        check_data(frame)


def test_every_non_numeric_column_is_named_by_its_first_bad_value(pd):
    frame = pd.DataFrame({"size": [1.0, 2.0], "city": ["Paris", "Oslo"],
                          "mixed": pd.Series([3.0, None], dtype=object)})
    with pytest.raises(InvalidDataError, match=(
            r"^X must be numeric: column 'city' holds text \('Paris', \.\.\.\), column 'mixed' "
            r"holds None\. Encode them as numbers or drop them first\.$")):
        check_data(frame)


def test_an_estimator_names_the_text_column(pd):
    frame = pd.DataFrame({"x": [0.0, 1.0, 5.0], "label": ["p", "q", "r"]})
    with pytest.raises(InvalidDataError, match=r"column 'label' holds text \('p', \.\.\.\)"):
        _make("BHKMeans", n_clusters=2).fit(frame)


def test_many_text_columns_are_counted_past_the_first_five(pd):
    frame = pd.DataFrame({f"t{i}": ["a", "b"] for i in range(7)})
    with pytest.raises(InvalidDataError, match=r"column 't4' holds text \('a', \.\.\.\), and 2 more "
                                               r"column\(s\)\. Encode them"):
        check_data(frame)


# --------------------------------------------------------------------------- missing and non-finite values
def _frame(pd):
    return pd.DataFrame({"a": np.arange(8.0), "b": np.arange(8.0) * 2})


@pytest.mark.parametrize(("value", "what"), [(np.nan, "NaN"), (np.inf, "inf"), (-np.inf, "inf")])
def test_non_finite_value_in_a_frame_names_its_column(value, what, pd):
    frame = _frame(pd)
    frame.loc[5, "b"] = value
    with pytest.raises(InvalidDataError, match=(
            rf"^X contains {what} at row 5, column 'b' \(1 non-finite value\(s\) in all\); impute or drop "
            r"those rows first\.$")):
        check_data(frame)


def test_row_is_the_position_whatever_the_index(pd):
    frame = _frame(pd).set_axis(list("pqrstuvw"), axis=0)
    frame.loc["u", "a"] = np.nan
    with pytest.raises(InvalidDataError, match=r"NaN at row 5, column 'a' "):
        check_data(frame)


def test_an_estimator_names_the_column_of_a_nan(pd):
    frame = _frame(pd)
    frame.loc[2, "a"] = np.nan
    with pytest.raises(InvalidDataError, match=r"X contains NaN at row 2, column 'a'"):
        COPKMeans(2, random_state=0, progress=False).fit(frame)


def test_an_array_still_gives_the_column_position():
    with pytest.raises(InvalidDataError, match=r"X contains NaN at row 1, column 1 \("):
        check_data(np.array([[1.0, 2.0], [3.0, np.nan]]))


@pytest.mark.parametrize("dtype", ["Int64", "Float64", object])
def test_pd_na_is_a_missing_value(dtype, pd):
    frame = _frame(pd)
    frame["n"] = pd.Series([1, 2, pd.NA, 4, 5, pd.NA, 7, 8], dtype=dtype)
    with pytest.raises(InvalidDataError, match=(
            r"^X contains a missing value \(<NA>\) at row 2, column 'n' \(2 missing value\(s\) in all\); "
            r"impute or drop those rows first\.$")):
        check_data(frame)


def test_nan_and_pd_na_are_counted_together_first_one_named(pd):
    frame = _frame(pd)
    frame["n"] = pd.array([1, 2, None, 4, 5, 6, 7, 8], dtype="Int64")
    frame.loc[1, "a"] = np.nan
    with pytest.raises(InvalidDataError, match=r"^X contains NaN at row 1, column 'a' \(2 missing value\(s\) in all\)"):
        check_data(frame)


def test_pd_na_beside_text_is_called_missing(pd):
    frame = _frame(pd)
    frame["n"] = pd.array([1, 2, None, 4, 5, 6, 7, 8], dtype="Int64")
    frame["c"] = ["x"] * 8
    with pytest.raises(InvalidDataError, match=(
            r"^X must be numeric: column 'n' holds a missing value \(<NA>, \.\.\.\), column 'c' holds text "
            r"\('x', \.\.\.\)\. Encode them as numbers or drop them first\.$")):
        check_data(frame)


def test_pd_na_in_an_unlabelled_object_array(pd):
    arr = np.array([[1.0, 2.0], [3.0, pd.NA]], dtype=object)
    with pytest.raises(InvalidDataError, match=r"^X contains a missing value \(<NA>\) at row 1, column 1 \("):
        check_data(arr)
