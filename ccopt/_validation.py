"""Validation at the public boundary. Kernels behind it assume valid input."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable

import numpy as np

from ccopt._warnings import warn_user
from ccopt.exceptions import (
    CcoptWarning,
    DataFormatError,
    InfeasibleConstraintsError,
    InvalidDataError,
    InvalidParameterError,
)

__all__ = [
    "check_bool",
    "check_bool_array",
    "check_choice",
    "check_data",
    "check_delimiter",
    "check_feature_names",
    "check_fraction",
    "check_labels",
    "check_n_clusters",
    "check_nonnegative",
    "check_not_vanishing",
    "check_positive_int",
    "check_random_state",
    "check_time_limit",
    "feature_names",
    "not_utf8_error",
    "parses_as",
    "separator_hint",
    "warn_far_from_origin",
]


def _show(value) -> str:
    """repr of a value, with numpy scalars shown as plain Python numbers (2.5, not np.float64(2.5))."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def check_data(X, *, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite, C-contiguous float64 array of shape (n_samples, n_features).

    Raises
    ------
    InvalidDataError
        If ``X`` is not numeric (the message names the non-numeric columns of a table with
        column names, else the row and column of the first non-numeric entry), not 2-D,
        empty, or holds NaN/inf or a missing value (pandas' ``pd.NA``; the message names the
        first offending row, and its column by label in a table with column names).
    """
    if X is None:
        raise InvalidDataError(f"{name} is None; expected an array of shape (n_samples, n_features).")
    if type(X).__module__.startswith("scipy.sparse"):
        raise InvalidDataError(
            f"{name} is a sparse matrix ({type(X).__name__}); the algorithms work on dense data: "
            f"pass {name}.toarray().")
    if isinstance(X, np.ma.MaskedArray) and np.ma.count_masked(X):
        # np.asarray would hand over the hidden values under the mask as if they were data.
        first = np.argwhere(np.ma.getmaskarray(X))[0].tolist()
        raise InvalidDataError(
            f"{name} is a masked array with {np.ma.count_masked(X)} masked entries (the first at "
            f"position {first}); fill them ({name}.filled(...)) or drop those rows first.")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise InvalidDataError(f"{name} could not be converted to an array: {exc}") from exc
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise InvalidDataError(_not_numeric_message(X, arr, name))
    if np.iscomplexobj(arr):
        raise InvalidDataError(f"{name} must be real-valued, got dtype {arr.dtype}.")
    if arr.ndim != 2:
        hint = " Reshape a single feature with X.reshape(-1, 1)." if arr.ndim == 1 else ""
        raise InvalidDataError(
            f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}.{hint}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InvalidDataError(f"{name} is empty: shape {arr.shape}.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        bad = arr[row, col]
        what = "NaN" if np.isnan(bad) else "inf"
        n_bad = int((~finite).sum())
        raise InvalidDataError(
            f"{name} contains {what} at {_cell(X, arr, row, col)} ({n_bad} non-finite value(s) in "
            "all); impute or drop those rows first."
        )
    return arr


def parses_as(text: str, kind: type = float) -> bool:
    """Whether ``kind(text)`` succeeds: a CSV cell or header name that reads as a number."""
    try:
        kind(text)
    except ValueError:
        return False
    return True


#: How many offending columns (or feature names) a message lists before it only counts the rest.
_LISTED = 5


def _is_number(value) -> bool:
    # numbers.Real covers Python and numpy ints, floats and bools except numpy's bool_.
    return isinstance(value, (numbers.Real, np.bool_))


def _is_pandas_na(value) -> bool:
    """Whether ``value`` is pandas' missing-value marker ``pd.NA`` (without importing pandas)."""
    kind = type(value)
    return kind.__name__ == "NAType" and kind.__module__.startswith("pandas")


def _is_missing(value) -> bool:
    """``pd.NA`` or a float NaN: what a nullable pandas column turns a gap into."""
    return _is_pandas_na(value) or (isinstance(value, float) and math.isnan(value))


def _cell(X, arr: np.ndarray, row: int, column: int) -> str:
    """Where an entry sits: ``row 5, column 'b'`` in a table with column names, else by position."""
    labels = _column_labels(X, arr.shape[1])
    where = column if labels is None else repr(labels[column])
    return f"row {row}, column {where}"


def _describe_entry(value) -> tuple[str, str]:
    """What a non-numeric entry is, in words, and its value as shown: ``("text", "'a'")``."""
    shown = _show(value)
    if len(shown) > 40:  # a long text would drown the message
        shown = shown[:37] + "..."
    if isinstance(value, (str, bytes)):
        return "text", shown
    if _is_pandas_na(value):
        return "a missing value", shown
    if value is None:
        return "None", ""
    return f"a value of type {type(value).__name__}", shown


def _non_numeric_mask(arr: np.ndarray) -> np.ndarray:
    """Which entries of a 2-D array that failed the dtype test are not numbers."""
    if arr.dtype != object:  # a text or date dtype: every entry is non-numeric
        return np.ones(arr.shape, dtype=bool)
    return ~np.frompyfunc(_is_number, 1, 1)(arr).astype(bool)


def _column_labels(X, n_columns: int | None = None) -> list | None:
    """The column labels of a table (a DataFrame's ``columns``), or None for a plain array.

    None too when ``n_columns`` is given and the table has another number of labels.
    """
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray):
        return None
    labels = [str(label) if isinstance(label, str) else label for label in columns]
    return labels if n_columns is None or len(labels) == n_columns else None


def _not_numeric_message(X, arr: np.ndarray, name: str) -> str:
    """Why ``arr`` (``X`` as an array) is not numeric: the columns by label, else the first cell.

    A table's columns are named because a DataFrame with one text column turns into an
    object array whose dtype says nothing of where the text sits.
    """
    if arr.ndim != 2 or not arr.size:
        return f"{name} must be numeric, got dtype {arr.dtype}."
    bad = _non_numeric_mask(arr)
    if not bad.any():
        return (f"{name} must be numeric, got dtype object (numbers held as Python objects); "
                f"pass np.asarray({name}, dtype=float).")
    if all(_is_pandas_na(value) for value in arr[bad]):
        # Numbers with gaps (a nullable Int64 / Float64 column): missing data, as NaN is.
        missing = np.frompyfunc(_is_missing, 1, 1)(arr).astype(bool)
        row, column = np.argwhere(missing)[0]
        first = arr[row, column]
        what = "NaN" if isinstance(first, float) else f"a missing value ({_show(first)})"
        return (f"{name} contains {what} at {_cell(X, arr, row, column)} ({int(missing.sum())} missing "
                "value(s) in all); impute or drop those rows first.")
    labels = _column_labels(X, arr.shape[1])
    if labels is None:
        return _first_cell_message(arr, bad, name)
    return _columns_message(arr, bad, labels, name)


def _first_cell_message(arr: np.ndarray, bad: np.ndarray, name: str) -> str:
    """The message for an unlabelled array: the first non-numeric entry, row by row."""
    row, column = np.argwhere(bad)[0]
    kind, shown = _describe_entry(arr[row, column])
    value = f" ({shown})" if shown else ""
    return (f"{name} must be numeric, got dtype {arr.dtype}: the entry at row {row}, column "
            f"{column} is {kind}{value}, not a number.")


def _columns_message(arr: np.ndarray, bad: np.ndarray, labels: list, name: str) -> str:
    """The message for a table: each non-numeric column by label, with its first bad value."""
    columns = np.flatnonzero(bad.any(axis=0))
    more = ", ..." if arr.shape[0] > 1 else ""
    parts = []
    for column in columns[:_LISTED]:
        kind, shown = _describe_entry(arr[bad[:, column].argmax(), column])
        value = f" ({shown}{more})" if shown else ""
        parts.append(f"column {labels[column]!r} holds {kind}{value}")
    if len(columns) > _LISTED:
        parts.append(f"and {len(columns) - _LISTED} more column(s)")
    them = "it" if len(columns) == 1 else "them"
    return f"{name} must be numeric: {', '.join(parts)}. Encode {them} as numbers or drop {them} first."


def feature_names(X) -> np.ndarray | None:
    """The column names of ``X`` when they are all strings (a DataFrame's), as scikit-learn reads them.

    Parameters
    ----------
    X : object
        The data as given: a table with a ``columns`` attribute (a pandas DataFrame) or
        anything else. pandas is not imported.

    Returns
    -------
    names : ndarray of object, shape (n_features,), or None
        The names, or None when ``X`` has no ``columns`` or none of them is a string (a
        DataFrame built from an array is numbered 0, 1, ...).

    Warns
    -----
    CcoptWarning
        If the column names mix strings and other types (then None: which of them to
        compare by name would be a guess; scikit-learn refuses such names).
    """
    labels = _column_labels(X)
    if not labels:
        return None
    is_text = [isinstance(label, str) for label in labels]
    if not any(is_text):
        return None
    if not all(is_text):
        kinds = sorted({type(label).__name__ for label in labels})
        warn_user(
            f"X has column names of mixed types ({', '.join(kinds)}), which are not recorded: later "
            "data cannot be checked against them. Make them all strings (X.columns = "
            "X.columns.astype(str)) to have them checked.", CcoptWarning)
        return None
    names = np.empty(len(labels), dtype=object)
    names[:] = labels
    return names


def _show_names(names) -> str:
    """A list of names as in a message; a long one cut after the first few."""
    names = [str(n) for n in names]
    if len(names) <= 2 * _LISTED:
        return repr(names)
    head = ", ".join(repr(n) for n in names[:_LISTED])
    return f"[{head}, ...] ({len(names)} names)"


def _names_mismatch(given: list, fitted: list) -> str:
    """How the names given differ from the names of the fit: order, or which are new or missing."""
    if sorted(given) == sorted(fitted):
        return ("same names in another order: reorder the columns, e.g. "
                "X[estimator.feature_names_in_]")
    fitted_set, given_set = set(fitted), set(given)
    unseen = [n for n in given if n not in fitted_set]
    missing = [n for n in fitted if n not in given_set]
    parts = [f"not seen in fit: {_show_names(unseen)}"] if unseen else []
    parts += [f"missing: {_show_names(missing)}"] if missing else []
    return "; ".join(parts) or "the same names, repeated a different number of times"


def check_feature_names(X, fitted_names, *, fitted_by: str) -> None:
    """Check that new data have the column names, in the order, that the fit had.

    Follows scikit-learn's rule: names are compared only when both the fit and ``X`` have
    them. Without the check, columns reordered in a DataFrame would be read silently as
    other features.

    Parameters
    ----------
    X : object
        The new data as given (see :func:`feature_names`).
    fitted_names : ndarray of object or None
        The estimator's ``feature_names_in_``, None when it was fitted without names.
    fitted_by : str
        The estimator's class name, for the messages.

    Raises
    ------
    InvalidDataError
        If ``X`` has column names that differ from ``fitted_names`` in names or order (the
        message lists both), or names of mixed types.

    Warns
    -----
    CcoptWarning
        If the fit had names and ``X`` has none (a plain array): its columns are taken to
        be in the fitted order, which nothing can check.
    """
    if fitted_names is None:
        return  # nothing to check against; names given now are simply not used
    names = feature_names(X)
    fitted = [str(n) for n in fitted_names]
    if names is None:
        warn_user(
            f"X has no column names, but {fitted_by} was fitted with the feature names "
            f"{_show_names(fitted)}; its columns are taken to be in that order.", CcoptWarning)
        return
    given = [str(n) for n in names]
    if given != fitted:
        raise InvalidDataError(
            f"X has the feature names {_show_names(given)}, but {fitted_by} was fitted with "
            f"{_show_names(fitted)} ({_names_mismatch(given, fitted)}).")


def check_distance_range(X: np.ndarray, name: str = "X", *, n_samples: int | None = None) -> None:
    """Refuse points whose sums of squared distances would overflow float64.

    The kernels evaluate ``|x|^2 - 2 x.c + |c|^2`` and add such terms over the objects. Each
    term is at most ``4 max(|x|^2, |c|^2)``, so with the data and the centres each passing
    this check (``4 n max |row|^2`` finite) the sums stay finite. Past that the distances
    become ``inf`` or ``nan`` and every algorithm goes astray in its own way (no best run,
    false dead ends, ``nan`` objectives), hence one clear error before any of them starts.

    Parameters
    ----------
    X : ndarray of float64, shape (n_points, n_features)
        Finite data or centres (as :func:`check_data` returns them).
    name : str, default="X"
        How the points are named in the message.
    n_samples : int, optional
        Number of distance terms summed (the number of objects); default ``n_points``.

    Raises
    ------
    InvalidDataError
        If ``4 n_samples max_i |x_i|^2`` is not a finite float64.
    """
    n_terms = X.shape[0] if n_samples is None else n_samples
    with np.errstate(over="ignore"):
        largest = float(np.einsum("ij,ij->i", X, X).max())
        bound = 4.0 * n_terms * largest
    if not np.isfinite(bound):
        raise InvalidDataError(
            f"{name} is too large for squared Euclidean distances in float64 (largest absolute "
            f"value {float(np.abs(X).max()):.3g}): sums of squared distances over {n_terms} "
            "objects overflow. Rescale the features (e.g. standardise them) first."
        )


def check_not_vanishing(X: np.ndarray, name: str = "X") -> None:
    """Refuse data so close to zero that squared distances underflow float64.

    Below about 1e-146 in absolute value a squared coordinate falls under the smallest
    normal float64 (about 2.2e-308) times its precision, so squared distances lose their
    digits or become 0 and every algorithm would cluster noise (at 1e-165 they are all 0).
    Data that are all zero are fine: there is nothing to lose.

    Raises
    ------
    InvalidDataError
        If the largest absolute value is positive but below that limit.
    """
    largest = float(np.abs(X).max()) if X.size else 0.0
    info = np.finfo(np.float64)
    if largest > 0.0 and largest * largest < info.tiny / info.eps:
        raise InvalidDataError(
            f"{name} is too small for squared Euclidean distances in float64 (largest absolute "
            f"value {largest:.3g}): they underflow to 0. Rescale the features (e.g. standardise "
            "them) first."
        )


#: Warn when |mean|^2 exceeds this multiple of the total variance: the kernels' relative error,
#: about 1e-16 |mean|^2 / variance, then passes 1e-8.
_FAR_FROM_ORIGIN = 1e8


def origin_offset(X: np.ndarray) -> tuple[float, float] | None:
    """``(|mean|^2, total variance)`` of ``X`` when it sits far enough from the origin, for its
    spread, to blur squared distances (see :func:`warn_far_from_origin`); None otherwise."""
    if X.shape[0] < 2:
        return None
    mean = X.mean(axis=0)
    variance = float(X.var(axis=0).sum())
    offset = float(mean @ mean)
    return (offset, variance) if variance > 0 and offset > _FAR_FROM_ORIGIN * variance else None


def warn_far_from_origin(X: np.ndarray, name: str = "X") -> None:
    """Warn when the points sit so far from the origin, for their spread, that distances blur.

    The kernels evaluate ``|x|^2 - 2 x.c + |c|^2`` (as scikit-learn does), which cancels
    most digits when every point lies far from the origin relative to the distances
    between points: data offset by 1e6 with unit spread get relative errors near 1e-2.
    scikit-learn's KMeans centres the data first; every criterion here is shift-invariant,
    so centring (or standardising) changes no clustering, only the rounding.

    Parameters
    ----------
    X : ndarray of float64, shape (n_points, n_features)
        Finite data (as :func:`check_data` returns them).
    name : str, default="X"
    """
    far = origin_offset(X)
    if far is not None:
        offset, variance = far
        warn_user(
            f"{name} sits far from the origin for its spread (|mean| {offset ** 0.5:.3g}, standard "
            f"deviation {variance ** 0.5:.3g}): squared distances lose about "
            f"{np.log10(offset / variance):.0f} of their 16 digits. Centre the data "
            "(X - X.mean(axis=0)) or standardise it first; no clustering changes under a shift.",
            CcoptWarning)


def check_labels(labels, name: str = "labels", n_samples: int | None = None, *,
                 allow_empty: bool = False) -> np.ndarray:
    """Return ``labels`` as a 1-D array of comparable values (one cluster or class per object).

    Any values that can be sorted are accepted (integers, strings, finite floats); labels
    are identifiers, so their dtype is kept.

    Raises
    ------
    InvalidParameterError
        If ``labels`` is not 1-D, is empty (unless ``allow_empty``), has not ``n_samples``
        entries, holds NaN/inf (NaN would never equal itself, so every pair would look
        split), or mixes values that cannot be compared (e.g. numbers and ``None``).
    """
    try:
        arr = np.asarray(labels)
    except Exception as exc:  # ragged lists and the like
        raise InvalidParameterError(f"{name} could not be read as a 1-D array: {exc}") from exc
    if arr.ndim != 1:
        raise InvalidParameterError(f"{name} must be 1-D (n_samples,), got shape {arr.shape}.")
    if arr.shape[0] == 0 and not allow_empty:
        raise InvalidParameterError(f"{name} is empty.")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise InvalidParameterError(f"{name} has {arr.shape[0]} entries, expected {n_samples}.")
    if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
        raise InvalidParameterError(
            f"{name} contains a non-finite value at position {int(np.flatnonzero(~np.isfinite(arr))[0])}.")
    if arr.dtype == object:
        # Object arrays only: a Python loop over them is the price of their generality.
        for position, value in enumerate(arr.tolist()):
            if isinstance(value, numbers.Real) and not math.isfinite(value):
                raise InvalidParameterError(f"{name} contains a non-finite value at position {position}.")
        try:
            np.unique(arr)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in arr.tolist()})
            raise InvalidParameterError(
                f"{name} mixes values that cannot be compared ({', '.join(kinds)}); use integer or "
                "string labels.") from None
    return arr


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int ``>= minimum``; bools and non-integers are rejected."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(f"{name} must be an integer, got {_show(value)}.")
    value = int(value)
    if value < minimum:
        raise InvalidParameterError(f"{name} must be >= {minimum}, got {value}.")
    return value


def check_n_clusters(n_clusters, n_samples: int, *, n_super_instances: int | None = None) -> int:
    """Check ``1 <= n_clusters <= n_samples`` (and ``<=`` the number of must-link components).

    Raises
    ------
    InvalidParameterError
        If ``n_clusters`` is not an integer in ``1..n_samples``.
    InfeasibleConstraintsError
        If the must-links leave fewer than ``n_clusters`` components: that is an
        infeasibility of the constraints, as :mod:`ccopt.exceptions` documents, not a bad
        parameter.
    """
    k = check_positive_int(n_clusters, "n_clusters")
    if k > n_samples:
        raise InvalidParameterError(f"n_samples={n_samples} should be >= n_clusters={k}.")
    if n_super_instances is not None and k > n_super_instances:
        raise InfeasibleConstraintsError(
            f"The must-link constraints merge the {n_samples} objects into {n_super_instances} "
            f"groups, fewer than n_clusters={k}: every cluster must be non-empty.",
            certificate=f"{n_super_instances} must-link components < n_clusters={k}",
        )
    return k


def check_random_state(random_state) -> np.random.Generator:
    """Turn ``None``, an int or a :class:`numpy.random.Generator` into a Generator."""
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise InvalidParameterError(f"random_state must be >= 0, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise InvalidParameterError(
        f"random_state must be None, a non-negative int or a numpy Generator, got {_show(random_state)}."
    )


def check_time_limit(time_limit, name: str = "time_limit") -> float | None:
    """Return ``None`` or a positive float number of seconds."""
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
        raise InvalidParameterError(f"{name} must be a number of seconds or None, got {_show(time_limit)}.")
    value = float(time_limit)
    if not value > 0 or np.isnan(value):
        raise InvalidParameterError(f"{name} must be > 0 seconds, got {_show(time_limit)}.")
    return value


def check_nonnegative(value, name: str) -> float:
    """Return ``value`` as a finite float ``>= 0``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {_show(value)}.")
    value = float(value)
    if not np.isfinite(value) or value < 0:
        raise InvalidParameterError(f"{name} must be finite and >= 0, got {value}.")
    return value


def check_fraction(value, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float in ``(0, 1]`` (``[0, 1]`` with ``allow_zero``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a number, got {_show(value)}.")
    value = float(value)
    low_ok = value >= 0 if allow_zero else value > 0
    if not (low_ok and value <= 1):
        bound = "[0, 1]" if allow_zero else "(0, 1]"
        raise InvalidParameterError(f"{name} must lie in {bound}, got {value}.")
    return value


def check_bool(value, name: str) -> bool:
    """Return ``value`` as a bool; refuse anything but True and False (``"no"`` is truthy)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be True or False, got {_show(value)}.")
    return bool(value)


def check_bool_array(values, name: str, n: int | None = None) -> np.ndarray:
    """Return ``values`` as a 1-D bool array (0/1 numbers read as False/True), ``n`` entries if given."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged lists and the like
        raise InvalidParameterError(f"{name} could not be read as a 1-D array: {exc}") from exc
    if arr.ndim != 1:
        raise InvalidParameterError(f"{name} must be 1-D, got shape {arr.shape}.")
    if n is not None and arr.shape[0] != n:
        raise InvalidParameterError(f"{name} has {arr.shape[0]} entries, expected {n}.")
    if arr.dtype != np.bool_:
        if arr.size and not (np.issubdtype(arr.dtype, np.number) and np.isin(arr, (0, 1)).all()):
            raise InvalidParameterError(f"{name} must be booleans (or 0/1), got dtype {arr.dtype}.")
        arr = arr.astype(bool)
    return arr


def check_choice(value, name: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise list the valid ones."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise InvalidParameterError(f"Unknown {name} {_show(value)}; valid values are {valid}.")
    return value


def separator_hint(text: str, delimiter: str = ",") -> str:
    """A hint to append to a parse error when ``text`` seems split by another separator.

    A semicolon- or tab-separated file read with commas gives one field such as
    ``'0.06;-0.07'``; the bare error ("non-numeric value") did not say why.

    Parameters
    ----------
    text : str
        The offending field (or header).
    delimiter : str, default=","
        The separator the file was read with.

    Returns
    -------
    str
        ``""`` or a sentence starting with a space.
    """
    if delimiter != "," and re.fullmatch(r"[-+]?\d+,\d+", text.strip()):
        # A spreadsheet's decimal comma (1,5 for 1.5), not a separator.
        return " The file seems to write decimal commas (1,5 for 1.5); save it with decimal points."
    for other, shown in ((";", "';'"), ("\t", "a tab"), (",", "','"), ("|", "'|'")):
        if other != delimiter and other in text and delimiter not in text:
            return (f" The file seems to separate its fields with {shown}: pass "
                    f"delimiter={other!r} (command line: --delimiter {other!r}).")
    return ""


def check_delimiter(delimiter) -> str:
    """A field separator: one character."""
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise InvalidParameterError(f"delimiter must be a single character, got {delimiter!r}.")
    return delimiter


def not_utf8_error(path: str, exc: UnicodeDecodeError) -> DataFormatError:
    """The error for a text file that is not UTF-8, with the line of its first bad byte."""
    return DataFormatError(f"not a UTF-8 text file: {exc.reason} (byte 0x{exc.object[exc.start]:02x}); "
                           "save it as UTF-8 (CSV UTF-8 in a spreadsheet)", path=path, line=_line_of_bad_byte(path))


def _line_of_bad_byte(path: str) -> int | None:
    """1-based line of the first byte that is not UTF-8 (the text reader decodes in blocks, so its
    own line count is no guide)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return raw.count(b"\n", 0, exc.start) + 1
    except OSError:
        return None
    return None  # pragma: no cover - the text reader and bytes.decode disagree

