"""Tests of ccopt._validation: the checks behind every public boundary."""

from __future__ import annotations

import numpy as np
import pytest

from ccopt._validation import (
    check_choice,
    check_data,
    check_n_clusters,
    check_nonnegative,
    check_positive_int,
    check_random_state,
    check_time_limit,
)
from ccopt.exceptions import InfeasibleConstraintsError, InvalidDataError, InvalidParameterError


def test_check_data_returns_contiguous_float64():
    X = np.arange(6, dtype=np.int32).reshape(3, 2)[:, ::-1]
    out = check_data(X)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, X)
    assert check_data([[True, False]]).tolist() == [[1.0, 0.0]]


@pytest.mark.parametrize(
    ("X", "pattern"),
    [
        (None, r"X is None; expected an array of shape \(n_samples, n_features\)"),
        ([1.0, 2.0], r"X must be 2-D \(n_samples, n_features\), got shape \(2,\)\. Reshape a single feature"),
        (np.zeros((2, 2, 2)), r"must be 2-D .* got shape \(2, 2, 2\)\.$"),
        (np.zeros((0, 3)), r"X is empty: shape \(0, 3\)"),
        (np.zeros((3, 0)), r"X is empty: shape \(3, 0\)"),
        ([["a", "b"]], r"X must be numeric, got dtype <U1: the entry at row 0, column 0 is text \('a'\)"),
        (np.array([[1, None]], dtype=object),
         r"X must be numeric, got dtype object: the entry at row 0, column 1 is None, not a number"),
        (np.array([[1 + 2j]]), r"X must be real-valued, got dtype complex128"),
        ([[1.0, 2.0], [3.0, np.nan]], r"X contains NaN at row 1, column 1 \(1 non-finite value\(s\) in all\)"),
        ([[np.inf, 2.0], [3.0, np.nan]], r"X contains inf at row 0, column 0 \(2 non-finite value\(s\) in all\)"),
    ],
)
def test_check_data_errors(X, pattern):
    with pytest.raises(InvalidDataError, match=pattern):
        check_data(X)


def test_check_data_ragged_and_name():
    with pytest.raises(InvalidDataError, match=r"could not be converted|must be numeric"):
        check_data([[1.0, 2.0], [3.0]])
    with pytest.raises(InvalidDataError, match="centers contains NaN"):
        check_data([[np.nan]], name="centers")


def test_check_positive_int():
    assert check_positive_int(3, "k") == 3
    assert check_positive_int(np.int64(2), "k") == 2
    assert check_positive_int(0, "n", minimum=0) == 0
    with pytest.raises(InvalidParameterError, match="k must be an integer, got True"):
        check_positive_int(True, "k")
    with pytest.raises(InvalidParameterError, match=r"k must be an integer, got 2\.5"):
        check_positive_int(np.float64(2.5), "k")
    with pytest.raises(InvalidParameterError, match="k must be >= 1, got 0"):
        check_positive_int(0, "k")


def test_check_n_clusters():
    assert check_n_clusters(3, 5) == 3
    with pytest.raises(InvalidParameterError, match="n_samples=4 should be >= n_clusters=5"):
        check_n_clusters(5, 4)
    with pytest.raises(InvalidParameterError, match="n_clusters must be >= 1, got 0"):
        check_n_clusters(0, 4)
    with pytest.raises(InfeasibleConstraintsError, match="merge the 6 objects into 2 groups, fewer than n_clusters=3"):
        check_n_clusters(3, 6, n_super_instances=2)


def test_check_random_state_reproducible():
    a = check_random_state(5).integers(0, 10**9, size=4)
    b = check_random_state(np.int64(5)).integers(0, 10**9, size=4)
    assert a.tolist() == b.tolist()
    gen = np.random.default_rng(1)
    assert check_random_state(gen) is gen
    assert isinstance(check_random_state(None), np.random.Generator)
    legacy = check_random_state(np.random.RandomState(3)).integers(0, 10**9)
    assert legacy == check_random_state(np.random.RandomState(3)).integers(0, 10**9)
    with pytest.raises(InvalidParameterError, match="random_state must be >= 0, got -1"):
        check_random_state(-1)
    with pytest.raises(InvalidParameterError, match="random_state must be None, a non-negative int or a numpy Generator, got 'x'"):
        check_random_state("x")
    with pytest.raises(InvalidParameterError, match=r"got 1\.5"):
        check_random_state(1.5)


def test_check_time_limit():
    assert check_time_limit(None) is None
    assert check_time_limit(2) == 2.0
    with pytest.raises(InvalidParameterError, match=r"time_limit must be > 0 seconds, got -1"):
        check_time_limit(-1)
    with pytest.raises(InvalidParameterError, match=r"must be > 0 seconds, got nan"):
        check_time_limit(float("nan"))
    with pytest.raises(InvalidParameterError, match="budget must be a number of seconds or None, got '10s'"):
        check_time_limit("10s", "budget")


def test_check_nonnegative_and_choice():
    assert check_nonnegative(0, "p") == 0.0
    with pytest.raises(InvalidParameterError, match=r"p must be finite and >= 0, got -0\.5"):
        check_nonnegative(-0.5, "p")
    with pytest.raises(InvalidParameterError, match="p must be finite and >= 0, got inf"):
        check_nonnegative(float("inf"), "p")
    with pytest.raises(InvalidParameterError, match="p must be a real number, got None"):
        check_nonnegative(None, "p")
    assert check_choice("lp", "oracle", ["lp", "kmeans"]) == "lp"
    with pytest.raises(InvalidParameterError, match="Unknown oracle 'ip'; valid values are 'lp', 'kmeans'"):
        check_choice("ip", "oracle", ["lp", "kmeans"])


@pytest.mark.parametrize(("offset", "warns"), [(0.0, False), (1e3, False), (1e6, True)])
def test_data_far_from_the_origin_for_their_spread_warn(offset, warns):
    import warnings

    from ccopt import CcoptWarning
    from ccopt.cluster import KMeans

    X = np.random.default_rng(0).normal(size=(50, 2)) + offset
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        KMeans(2, random_state=0).fit(X)
    far = [w for w in caught if issubclass(w.category, CcoptWarning) and "far from the origin" in str(w.message)]
    assert bool(far) == warns
    if warns:
        assert "Centre the data" in str(far[0].message)


def test_constant_or_single_point_data_do_not_warn_about_the_origin():
    import warnings

    from ccopt._validation import warn_far_from_origin

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_far_from_origin(np.full((5, 2), 1e9))  # no spread: every distance is 0 anyway
        warn_far_from_origin(np.array([[1e9, 1e9]]))


def test_a_masked_array_with_masked_entries_is_refused_and_one_without_is_data():
    # The values under the mask were clustered as data, while NaN is refused.
    X = np.ma.masked_array(np.arange(12.0).reshape(6, 2), mask=np.zeros((6, 2), dtype=bool))
    assert check_data(X).tolist() == np.arange(12.0).reshape(6, 2).tolist()
    X.mask[3, 1] = True
    with pytest.raises(InvalidDataError, match=r"X is a masked array with 1 masked entries \(the first at position \[3, 1\]\)"):
        check_data(X)
