"""Missing and non-finite values in a DataFrame are located by column name, as text is.

A NaN or inf in a pandas DataFrame was reported by position ("row 5, column 1") while a text
column was named ('c'); and ``pd.NA`` in a nullable column was "a value of type NAType" to be
encoded as numbers, where it is a missing value to impute or drop.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt._validation import check_data
from ccopt.cluster import COPKMeans
from ccopt.exceptions import InvalidDataError

pd = pytest.importorskip("pandas")


def _frame():
    return pd.DataFrame({"a": np.arange(8.0), "b": np.arange(8.0) * 2})


@pytest.mark.parametrize(("value", "what"), [(np.nan, "NaN"), (np.inf, "inf"), (-np.inf, "inf")])
def test_non_finite_value_in_a_frame_names_its_column(value, what):
    frame = _frame()
    frame.loc[5, "b"] = value
    with pytest.raises(InvalidDataError, match=(
            rf"^X contains {what} at row 5, column 'b' \(1 non-finite value\(s\) in all\); impute or drop "
            r"those rows first\.$")):
        check_data(frame)


def test_row_is_the_position_whatever_the_index():
    frame = _frame().set_axis(list("pqrstuvw"), axis=0)
    frame.loc["u", "a"] = np.nan
    with pytest.raises(InvalidDataError, match=r"NaN at row 5, column 'a' "):
        check_data(frame)


def test_an_estimator_names_the_column_of_a_nan():
    frame = _frame()
    frame.loc[2, "a"] = np.nan
    with pytest.raises(InvalidDataError, match=r"X contains NaN at row 2, column 'a'"):
        COPKMeans(2, random_state=0, progress=False).fit(frame)


def test_an_array_still_gives_the_column_position():
    with pytest.raises(InvalidDataError, match=r"X contains NaN at row 1, column 1 \("):
        check_data(np.array([[1.0, 2.0], [3.0, np.nan]]))


@pytest.mark.parametrize("dtype", ["Int64", "Float64", object])
def test_pd_na_is_a_missing_value(dtype):
    frame = _frame()
    frame["n"] = pd.Series([1, 2, pd.NA, 4, 5, pd.NA, 7, 8], dtype=dtype)
    with pytest.raises(InvalidDataError, match=(
            r"^X contains a missing value \(<NA>\) at row 2, column 'n' \(2 missing value\(s\) in all\); "
            r"impute or drop those rows first\.$")):
        check_data(frame)


def test_nan_and_pd_na_are_counted_together_first_one_named():
    frame = _frame()
    frame["n"] = pd.array([1, 2, None, 4, 5, 6, 7, 8], dtype="Int64")
    frame.loc[1, "a"] = np.nan
    with pytest.raises(InvalidDataError, match=r"^X contains NaN at row 1, column 'a' \(2 missing value\(s\) in all\)"):
        check_data(frame)


def test_pd_na_beside_text_is_called_missing():
    frame = _frame()
    frame["n"] = pd.array([1, 2, None, 4, 5, 6, 7, 8], dtype="Int64")
    frame["c"] = ["x"] * 8
    with pytest.raises(InvalidDataError, match=(
            r"^X must be numeric: column 'n' holds a missing value \(<NA>, \.\.\.\), column 'c' holds text "
            r"\('x', \.\.\.\)\. Encode them as numbers or drop them first\.$")):
        check_data(frame)


def test_pd_na_in_an_unlabelled_object_array():
    arr = np.array([[1.0, 2.0], [3.0, pd.NA]], dtype=object)
    with pytest.raises(InvalidDataError, match=r"^X contains a missing value \(<NA>\) at row 1, column 1 \("):
        check_data(arr)
