"""Pairwise constraints: one validated object used by every algorithm in ccopt.

A :class:`Constraints` holds must-link (ML) and cannot-link (CL) pairs with optional
per-constraint weights (confidence, used as penalties by soft algorithms) and hard flags.
It is built once at the public boundary, from index pairs, an ``n x n`` matrix, a CSV
file or ground-truth labels, and checked there: every later result (scores, violations)
comes back aligned with the order in which the user gave the constraints.

Duplicate pairs of the same kind are merged into one constraint (with a
:class:`~ccopt.exceptions.DuplicateConstraintWarning`); ``to_given`` maps any
per-constraint array back onto every row the user gave, so nothing is lost.
"""

from __future__ import annotations

import csv
import difflib
import heapq
import numbers
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from os import PathLike

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ccopt._sparse import membership
from ccopt._validation import (
    check_delimiter,
    check_labels,
    check_positive_int,
    check_random_state,
    not_utf8_error,
    parses_as,
    separator_hint,
)
from ccopt._warnings import warn_user
from ccopt.config import check_dense_memory, get_config
from ccopt.exceptions import (
    CcoptWarning,
    ConflictingConstraintError,
    DataFormatError,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    MemoryBudgetError,
)

__all__ = [
    "CL",
    "ML",
    "Constraints",
    "FeasibilityReport",
    "MustLinkClosure",
    "ViolationReport",
    "as_constraints",
    "check_feasibility",
]

ML = 1
CL = -1
_KIND_WORDS = {"ml": ML, "must-link": ML, "must_link": ML, "mustlink": ML, "1": ML, "+1": ML,
               "cl": CL, "cannot-link": CL, "cannot_link": CL, "cannotlink": CL, "-1": CL}
_MAX_LISTED = 5
# int() alone would also take "1_0" or non-ASCII digits. "3.0" is an index too: pandas writes a
# column of integers so once it holds a missing value, and the Python API takes 3.0.
_CSV_INDEX = re.compile(r"\s*([+-]?[0-9]+)(?:\.0*)?\s*")


def _listing(items: Sequence[str], total: int | None = None) -> str:
    """Name at most a few offending rows, then say how many more there are.

    ``total`` counts them all when only the first few were put into words (``items``), so that
    a message about a million rows does not build a million strings first.
    """
    shown = ", ".join(items[:_MAX_LISTED])
    more = (len(items) if total is None else total) - _MAX_LISTED
    return f"{shown} (and {more} more)" if more > 0 else shown


# A certificate (a must-link chain, an odd cycle) may run through every object and one pair may
# be given a million times: a message names the first and last few (the exception's certificate
# keeps them all). A cannot-link closing a 100,000-object must-link chain made a message of
# 789,050 characters.
_MAX_SPELT = 10
_SHOWN_AT_EACH_END = 4


def _chain_text(objects: Sequence[int]) -> str:
    """``0 - 1 - 2``; a long chain as its first and last few, ``... (N objects in all)``."""
    if len(objects) <= _MAX_SPELT:
        return " - ".join(map(str, objects))
    ends = [*map(str, objects[:_SHOWN_AT_EACH_END]), "...", *map(str, objects[-_SHOWN_AT_EACH_END:])]
    return f"{' - '.join(ends)} ({len(objects)} objects in all)"


def _rows_text(rows: np.ndarray, row_name: Callable[[int], str]) -> str:
    """``ml[0] = ml[2]``: the rows that give one pair; a long run as its first and last few."""
    if rows.size <= _MAX_SPELT:
        return " = ".join(row_name(r) for r in rows.tolist())
    ends = [*map(row_name, rows[:_SHOWN_AT_EACH_END].tolist()), "...",
            *map(row_name, rows[-_SHOWN_AT_EACH_END:].tolist())]
    return f"{' = '.join(ends)} ({rows.size} rows in all)"


def _objects_text(objects: Sequence[int]) -> str:
    """``[0, 1, 2]`` as ``str(list)`` writes it; a long list as its first and last few (the
    messages that use it give the count)."""
    if len(objects) <= _MAX_SPELT:
        return str(list(objects))
    ends = [*map(str, objects[:_SHOWN_AT_EACH_END]), "...", *map(str, objects[-_SHOWN_AT_EACH_END:])]
    return f"[{', '.join(ends)}]"


def _check_unknown_columns(names: list[str], known: tuple[str, ...], path: str) -> None:
    """Refuse a misspelt column of a constraints CSV header; warn of the others it does not read.

    A misspelt ``weight`` or ``hard`` would otherwise leave every weight at 1 or every pair
    soft without a word; a column of notes (a source, the ground truth) is only not read.
    """
    unknown = [name for name in names if name not in known]
    absent = [name for name in known if name not in names]  # i, j and kind are present by now
    misspelt = {name: difflib.get_close_matches(name, absent, n=1, cutoff=0.6) for name in unknown}
    misspelt = {name: close[0] for name, close in misspelt.items() if close}
    accepted = "i, j, kind and optionally weight, hard"
    if misspelt:
        guesses = ", ".join(f"{name!r} (did you mean {close!r}?)" for name, close in misspelt.items())
        raise DataFormatError(f"the header names column(s) ccopt does not know: {guesses}; the columns "
                              f"are {accepted}.", path=path, line=1)
    named = [name for name in unknown if name]  # an unnamed one is the index pandas writes
    if named:
        warn_user(f"{path}: column(s) {named} are not read (the columns are {accepted}).",
                  CcoptWarning)


_MATRIX_SEPARATORS = re.compile(r"\s*[,;]\s*|\s+")  # a comma or semicolon each, a run of blanks once
_BLANK = re.compile(r"\s")
_COMMA_OR_SEMICOLON = re.compile(r"[,;]")
# Bytes kept per nonzero entry of a constraint-matrix file: its row, column and value.
_MATRIX_ENTRY_BYTES = 24


def _matrix_fields(text: str, delimiter: str | None) -> list[str]:
    """The values of one constraint-matrix row (``text`` stripped, not empty)."""
    if delimiter is not None and delimiter.isspace():
        return text.split()
    if delimiter is None or delimiter not in text:
        # The rule below, without the regular expression on the rows that need none (nearly
        # all): it took 2.6 ms of the 3 ms a 10,000-value row costs.
        if not _BLANK.search(text):
            # One separator closing the row (a writer's loop of f"{v},") only ends it.
            body = text[:-1] if text[-1] in ",;" else text
            if ";" not in body:
                return body.split(",")
            return body.split(";") if "," not in body else _COMMA_OR_SEMICOLON.split(body)
        if "," not in text and ";" not in text:
            return text.split()
        return _MATRIX_SEPARATORS.split(re.sub(r"\s*[,;]$", "", text))
    return [field.strip() for field in text.removesuffix(delimiter).split(delimiter)]


def _refuse_matrix_entries(path: str, n_kept: int, width: int, line_no: int) -> None:
    """Raise :class:`MemoryBudgetError` for the nonzero entries of a constraint-matrix file."""
    try:
        check_dense_memory((n_kept, 3), itemsize=_MATRIX_ENTRY_BYTES // 3,
                           what=f"list of nonzero entries (row, column, value) read from the {width}-column "
                                f"constraint matrix {path} by line {line_no}")
    except MemoryBudgetError as exc:
        raise MemoryBudgetError(
            f"{exc.summary} Give the constraints as i,j,kind rows (Constraints.from_csv), or raise the "
            "bound with ccopt.set_config(max_dense_bytes=...).", summary=exc.summary) from None


def _default_row_name(r: int) -> str:
    return f"row {r}"


def _split_row_name(n_ml: int, r: int) -> str:
    return f"ml[{r}]" if r < n_ml else f"cl[{r - n_ml}]"


def _cell_name(prefix: str, row: int, col: int, line_of_row: Sequence[int] | None, value=None) -> str:
    """``entry (2, 5)`` (``= -1.0`` with a value), ``... on line 4`` for a matrix read from a file."""
    shown = "" if value is None else f" = {value!r}"
    return f"{prefix} ({row}, {col}){shown}" + ("" if line_of_row is None else f" on line {line_of_row[row]}")


def _cell_row_name(prefix: str, rows: np.ndarray, cols: np.ndarray, line_of_row: Sequence[int] | None,
                   r: int) -> str:
    return _cell_name(prefix, rows[r], cols[r], line_of_row)


def _line_row_name(path: str, lines: list, r: int) -> str:
    return f"{path} line {lines[r]}"


def _as_index_pairs(pairs, what: str, row_name: Callable[[int], str]) -> np.ndarray:
    """Return ``pairs`` as an int64 array of shape (m, 2) or raise naming the bad rows."""
    if pairs is None:
        return np.empty((0, 2), dtype=np.int64)
    if isinstance(pairs, (set, frozenset, dict)):
        raise InvalidConstraintError(
            f"{what} is a {type(pairs).__name__}, which has no order; pass a list or array of "
            "pairs (results come back in the order given).")
    if isinstance(pairs, Iterator):  # a generator of pairs: read it once
        pairs = list(pairs)
    try:
        arr = np.asarray(pairs)
    except Exception as exc:
        raise InvalidConstraintError(f"{what} could not be read as an (m, 2) array: {exc}") from exc
    # Only "no pairs" is empty: a (3, 0) or (0, 3) array is a mistake, not an empty set.
    if arr.shape in ((0,), (0, 2)):
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidConstraintError(
            f"{what} must have shape (m, 2): one row (i, j) per pair, got shape {arr.shape}."
        )
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise InvalidConstraintError(f"{what} must hold integer object indices, got dtype {arr.dtype}.")
    if not isinstance(pairs, np.ndarray):
        # np.asarray([(0, True)]) is an integer array: the bool would silently become object 1.
        cells = np.asarray(pairs, dtype=object)
        if cells.shape == arr.shape:
            flags = np.frompyfunc(lambda v: isinstance(v, (bool, np.bool_)), 1, 1)(cells).astype(bool)
            bad = np.flatnonzero(flags.any(axis=1))
            if bad.size:
                rows = [f"{row_name(r)} = ({cells[r, 0]!r}, {cells[r, 1]!r})" for r in bad]
                raise InvalidConstraintError(
                    f"{what} must hold integer object indices; booleans in {_listing(rows)}."
                )
    if not np.issubdtype(arr.dtype, np.integer):
        integral = np.isfinite(arr) & (np.round(arr) == arr)
        bad = np.flatnonzero(~integral.all(axis=1))
        if bad.size:
            rows = [f"{row_name(r)} = ({arr[r, 0].item()!r}, {arr[r, 1].item()!r})" for r in bad]
            raise InvalidConstraintError(
                f"{what} must hold integer object indices; non-integer values in {_listing(rows)}."
            )
    # Beyond int64 the cast below would wrap around into unrelated (even negative) indices.
    # In float64: 2**63 cast to float16 overflows (a RuntimeWarning on every float16 array).
    huge = (np.flatnonzero((np.abs(arr.astype(np.float64)) >= 2.0**63).any(axis=1)) if arr.dtype.kind in "uf"
            else np.empty(0, int))
    if huge.size:
        rows = [f"{row_name(r)} = ({arr[r, 0].item()!r}, {arr[r, 1].item()!r})" for r in huge]
        raise InvalidConstraintError(f"{what} has object indices too large in magnitude to be row numbers in {_listing(rows)}.")
    arr = arr.astype(np.int64)
    negative = np.flatnonzero((arr < 0).any(axis=1))
    if negative.size:
        rows = [f"{row_name(r)} = ({arr[r, 0]}, {arr[r, 1]})" for r in negative]
        raise InvalidConstraintError(
            f"{what} has negative object indices in {_listing(rows)}; indices are 0-based.", rows=negative
        )
    return arr


def _check_matrix_dtype(dtype: np.dtype) -> None:
    """Refuse booleans (True is no kind) and complex or non-numeric entries, dense or sparse alike."""
    if dtype == np.bool_ or not np.issubdtype(dtype, np.number) or np.issubdtype(dtype, np.complexfloating):
        raise InvalidConstraintError(f"A constraint matrix must be numeric (1, -1, 0), got dtype {dtype}.")


def _parse_kind(value, row: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) in (ML, CL):
        return int(value)
    if isinstance(value, str) and value.strip().lower() in _KIND_WORDS:
        return _KIND_WORDS[value.strip().lower()]
    raise InvalidConstraintError(
        f"Unknown constraint kind {value!r} in {row}; use 'ML'/'CL' (or +1/-1)."
    )


def _kind_array(kinds, m: int, row_name: Callable[[int], str]) -> np.ndarray:
    """One ``ML``/``CL`` code per pair; integer arrays are checked without a Python loop."""
    given = np.asarray(kinds if kinds is not None else []).reshape(-1)
    count = given.shape[0]
    if count != m:
        raise InvalidConstraintError(f"kinds must have one entry per pair ({m}), got {count}.")
    # Integral floats (1.0, -1.0, as a matrix file gives them) are the codes, as integral
    # floats are indices in the pairs.
    if m and given.dtype.kind in "iuf":
        bad = np.flatnonzero((given != ML) & (given != CL))
        if bad.size:
            _parse_kind(given[bad[0]].item(), row_name(int(bad[0])))  # raises, naming the row
        return given.astype(np.int8)
    values = np.asarray(kinds if kinds is not None else [], dtype=object).reshape(-1)
    return np.fromiter((_parse_kind(v, row_name(r)) for r, v in enumerate(values)), dtype=np.int8, count=m)


def _is_flag(arr: np.ndarray) -> np.ndarray:
    """Which entries of a non-boolean array are a hard flag: 0 or 1 as integers, or Python/numpy bools.

    Floats (1.0) and strings ("true") are not, as before: only a CSV file spells flags as text.
    """
    if np.issubdtype(arr.dtype, np.integer):
        return np.isin(arr, (0, 1))
    if arr.dtype == object:
        return np.fromiter((isinstance(v, (bool, np.bool_)) or (isinstance(v, numbers.Integral) and v in (0, 1))
                            for v in arr), dtype=bool, count=arr.size)
    return np.zeros(arr.shape, dtype=bool)


def _per_row(values, m: int, name: str, default, dtype, row_name: Callable[[int], str]) -> np.ndarray:
    if values is None:
        return np.full(m, default, dtype=dtype)
    arr = np.full(m, values) if np.isscalar(values) else np.asarray(values)
    if arr.shape != (m,):
        raise InvalidConstraintError(f"{name} must have one value per constraint ({m}), got shape {arr.shape}.")
    if dtype is np.bool_:
        # An empty list (no pairs of this kind) has numpy's default dtype float64: nothing to check.
        if arr.dtype != np.bool_ and arr.size:
            bad = np.flatnonzero(~_is_flag(arr))
            if bad.size:
                given = arr.tolist()  # Python values, whatever the dtype (object arrays too)
                rows = [f"{row_name(r)} = {given[r]!r}" for r in bad]
                raise InvalidConstraintError(
                    f"{name} must be booleans (True/False or 1/0); bad values in {_listing(rows)}.", rows=bad)
        return arr.astype(np.bool_)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise InvalidConstraintError(f"{name} must be real numbers, got dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        rows = [f"{row_name(r)} = {arr[r].item()!r}" for r in bad]
        raise InvalidConstraintError(f"{name} must be finite and >= 0; bad values in {_listing(rows)}.", rows=bad)
    return arr


@dataclass(frozen=True)
class ViolationReport:
    """Which constraints a labelling violates.

    Attributes
    ----------
    n_ml, n_cl : int
        Number of violated must-link and cannot-link constraints.
    violated : ndarray of bool, shape (n_constraints,)
        Per constraint, in the constraint object's order.
    ml_violated, cl_violated : ndarray of int
        Positions (in the constraint object's order) of the violated ML and CL constraints.
    """

    n_ml: int
    n_cl: int
    violated: np.ndarray
    ml_violated: np.ndarray
    cl_violated: np.ndarray

    @property
    def total(self) -> int:
        """Total number of violated constraints."""
        return self.n_ml + self.n_cl



def _check_in_range(pairs: np.ndarray, n_samples: int, row_name) -> None:
    """Refuse pairs with an index >= n_samples, naming the rows; hint at 1-based files."""
    out = np.flatnonzero((pairs >= n_samples).any(axis=1))
    if not out.size:
        return
    rows = [f"{row_name(r)} = ({pairs[r, 0]}, {pairs[r, 1]})" for r in out]
    hint = ""
    if pairs.max() == n_samples and pairs.min() >= 1:
        # The usual cause: indices counted from 1, which fit until the last object is used.
        hint = (f" The largest index is {n_samples} and none is 0: if the indices count from 1, "
                "subtract 1 from each (ccopt counts from 0).")
    raise InvalidConstraintError(
        f"Object index out of range for n_samples={n_samples} (valid 0..{n_samples - 1}) in {_listing(rows)}.{hint}",
        rows=out)

class Constraints:
    """A validated set of must-link and cannot-link constraints.

    Build it with one of the constructors (:meth:`from_pairs`, :meth:`from_matrix`,
    :meth:`from_csv`, :meth:`from_labels`) or directly from pairs and kinds.
    The constructor's parameters that start with an underscore are internal (used by those
    constructors) and not part of the API.

    Parameters
    ----------
    pairs : array-like of int, shape (m, 2)
        Object indices (0-based) of each constrained pair, in the user's order.
    kinds : array-like, shape (m,)
        ``+1``/``"ML"`` for must-link, ``-1``/``"CL"`` for cannot-link.
    weights : array-like of float, shape (m,), optional
        Confidence of each constraint (penalty weight in soft algorithms); default 1.
    hard : array-like of bool, shape (m,), optional
        Constraints that soft algorithms must still respect; default all False.
    n_samples : int, optional
        Number of objects; when given, indices are checked to be ``< n_samples``.

    Attributes
    ----------
    pairs : ndarray of int64, shape (n_constraints, 2)
        The distinct constraints, in the order of their first occurrence.
    kinds : ndarray of int8, shape (n_constraints,)
        ``ML`` (+1) or ``CL`` (-1).
    weights : ndarray of float64, shape (n_constraints,)
    hard : ndarray of bool, shape (n_constraints,)
    n_samples : int or None
    given_index : ndarray of int64, shape (n_given,)
        For every row the user gave, the position of its (merged) constraint.
    given_pairs : ndarray of int64, shape (n_given, 2)
        Every row the user gave, as given (a duplicate written ``(j, i)`` keeps its order).

    Raises
    ------
    InvalidConstraintError
        Non-integer, negative or out-of-range indices, ``i == j``, unknown kinds, bad
        weights; the message names the offending rows.
    ConflictingConstraintError
        A pair given both as must-link and as cannot-link.

    Warns
    -----
    DuplicateConstraintWarning
        When the same pair is given more than once with the same kind; the rows are merged
        (largest weight, hard if any copy is hard).

    Examples
    --------
    >>> from ccopt import Constraints
    >>> cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(1, 2)], n_samples=5)
    >>> cons.n_ml, cons.n_cl
    (2, 1)
    >>> cons.violations([0, 0, 0, 1, 1]).total
    2
    """

    def __init__(self, pairs, kinds, *, weights=None, hard=None, n_samples=None,
                 _row_name: Callable[[int], str] | None = None, _warn_duplicates: bool = True):
        row_name = _row_name or _default_row_name
        arr = _as_index_pairs(pairs, "pairs", row_name)
        m_given = arr.shape[0]
        kind_arr = _kind_array(kinds, m_given, row_name)
        weight_arr = _per_row(weights, m_given, "weights", 1.0, np.float64, row_name)
        hard_arr = _per_row(hard, m_given, "hard", False, np.bool_, row_name)

        if n_samples is not None:
            n_samples = check_positive_int(n_samples, "n_samples")
            _check_in_range(arr, n_samples, row_name)
        self_pairs = np.flatnonzero(arr[:, 0] == arr[:, 1])
        if self_pairs.size:
            rows = [f"{row_name(r)} = ({arr[r, 0]}, {arr[r, 1]})" for r in self_pairs]
            raise InvalidConstraintError(
                f"A constraint must join two different objects; self-pairs i == j in {_listing(rows)}.",
                rows=self_pairs,
            )

        first, given_index = self._merge_duplicates(arr, kind_arr, row_name, _warn_duplicates)
        n_unique = first.shape[0]
        merged_weight = np.zeros(n_unique)
        np.maximum.at(merged_weight, given_index, weight_arr)
        merged_hard = np.zeros(n_unique, dtype=np.bool_)
        np.logical_or.at(merged_hard, given_index, hard_arr)

        self.pairs = arr[first]
        self.kinds = kind_arr[first]
        self.weights = merged_weight
        self.hard = merged_hard
        self.n_samples = n_samples
        self.given_index = given_index
        # A duplicate row may name its pair the other way round; given_pairs echoes it as written.
        self._given_reversed = arr[:, 0] != self.pairs[given_index, 0]
        # Row names are built on demand: a list of millions of strings would dominate the
        # construction of large (CS-style) constraint sets.
        self._name_of = row_name
        self._name_rows = first
        for a in (self.pairs, self.kinds, self.weights, self.hard, self.given_index, self._given_reversed):
            a.setflags(write=False)

    @staticmethod
    def _merge_duplicates(arr, kinds, row_name, warn) -> tuple[np.ndarray, np.ndarray]:
        """Return the first row of each distinct pair and, per given row, its distinct index.

        A pair given with both kinds raises :class:`ConflictingConstraintError` naming its
        first must-link and first cannot-link row; a pair given more than once with one kind
        is merged, with a :class:`DuplicateConstraintWarning` naming the rows of the first
        few such pairs (in the order of their first row) when ``warn``.
        """
        m = arr.shape[0]
        if m == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        canon = np.sort(arr, axis=1)
        base = int(canon.max()) + 1
        # One int64 code per unordered pair: np.unique on a 1-D array is far faster than the
        # row-wise unique of axis=0 (large CS-style sets have millions of rows).
        keys = canon[:, 0] * base + canon[:, 1] if base < 2**31 else canon
        _, first_pos, inverse = np.unique(keys, axis=0 if keys.ndim == 2 else None,
                                          return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        # np.unique sorts the pairs; renumber them by first occurrence to keep the user's order.
        order = np.argsort(first_pos, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        given_index = rank[inverse].astype(np.int64)
        first = np.sort(first_pos).astype(np.int64)
        if first.size == m:
            return first, given_index
        # The rows of each distinct pair side by side, pairs by first occurrence and rows in the
        # order given (a stable sort): every group is then a slice, and one reduction per
        # slice replaces a scan of all rows per repeated pair (quadratic with every pair
        # given twice).
        grouped = np.argsort(given_index, kind="stable")
        counts = np.bincount(given_index)
        starts = np.concatenate(([0], np.cumsum(counts[:-1])))
        grouped_kinds = kinds[grouped]
        first_ml = np.minimum.reduceat(np.where(grouped_kinds == ML, grouped, m), starts)
        first_cl = np.minimum.reduceat(np.where(grouped_kinds == CL, grouped, m), starts)
        mixed = (first_ml < m) & (first_cl < m)
        conflicts = np.flatnonzero(mixed)
        if conflicts.size:
            words = [f"pair ({canon[first[r], 0]}, {canon[first[r], 1]}) is must-link in "
                     f"{row_name(first_ml[r])} and cannot-link in {row_name(first_cl[r])}"
                     for r in conflicts[:_MAX_LISTED].tolist()]
            raise ConflictingConstraintError(
                "Contradictory constraints: " + _listing(words, conflicts.size) + ". Remove one of each pair."
            )
        if warn:
            repeated = np.flatnonzero(counts > 1)
            words = [_rows_text(grouped[starts[r]:starts[r] + counts[r]], row_name)
                     for r in repeated[:_MAX_LISTED].tolist()]
            warn_user(
                f"{m - first.size} duplicate constraint row(s) merged: {_listing(words, repeated.size)}. "
                "Each pair is one constraint: violation counts and penalties count it once, "
                "the largest weight given holds, and the pair is hard if any row is; impact "
                "scores still give every row you gave its own line.",
                DuplicateConstraintWarning,
            )
        return first, given_index

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_pairs(cls, ml=None, cl=None, *, n_samples=None, ml_weights=None, cl_weights=None,
                   ml_hard=None, cl_hard=None) -> Constraints:
        """Build from separate must-link and cannot-link pair arrays.

        The constraint order is the ML pairs in their order, then the CL pairs.

        Parameters
        ----------
        ml, cl : array-like of int, shape (m_ml, 2) and (m_cl, 2), optional
        n_samples : int, optional
        ml_weights, cl_weights : array-like of float or float, optional
        ml_hard, cl_hard : array-like of bool or bool, optional
            ``True``/``False`` or the integers 1/0, one per pair (an empty list for no pairs).

        Raises
        ------
        InvalidConstraintError
            A malformed pair, or a weight or hard flag of the wrong count or value (the
            message names the offending values and their rows, e.g. ``ml[0] = 2``).
        """
        ml_arr = _as_index_pairs(ml, "ml", lambda r: f"ml[{r}]")
        cl_arr = _as_index_pairs(cl, "cl", lambda r: f"cl[{r}]")
        n_ml, n_cl = ml_arr.shape[0], cl_arr.shape[0]

        name = partial(_split_row_name, n_ml)

        def join(ml_values, cl_values, default, what, dtype):
            if ml_values is None and cl_values is None:
                return None
            # Checked per kind, so that a message names ml_weights or cl_hard, not "weights".
            return np.concatenate([
                _per_row(_fill(ml_values, n_ml, default, f"ml_{what}"), n_ml, f"ml_{what}", default, dtype, name),
                _per_row(_fill(cl_values, n_cl, default, f"cl_{what}"), n_cl, f"cl_{what}", default, dtype,
                         lambda r: name(n_ml + r)),
            ])

        return cls(
            np.vstack([ml_arr, cl_arr]),
            np.concatenate([np.full(n_ml, ML), np.full(n_cl, CL)]).astype(np.int8),
            weights=join(ml_weights, cl_weights, 1.0, "weights", np.float64),
            hard=join(ml_hard, cl_hard, False, "hard", np.bool_),
            n_samples=n_samples,
            _row_name=name,
        )

    @classmethod
    def from_matrix(cls, matrix, *, row_name_prefix: str = "entry",
                    _line_of_row: Sequence[int] | None = None) -> Constraints:
        """Build from an ``n x n`` matrix with 1 = must-link, -1 = cannot-link, 0 = none.

        Both triangles are read: the published BH-kmeans/DILS files keep cannot-links only
        in the lower triangle. The diagonal may hold 1 or 0 (the published files write 1)
        and is otherwise ignored. A pair stored in both triangles
        counts once, as one given constraint named after its upper-triangle entry; opposite
        signs in the two triangles raise
        :class:`~ccopt.exceptions.ConflictingConstraintError`. Constraints come in the order
        of their canonical pair ``(i, j)``, ``i < j``, row by row.

        Parameters
        ----------
        matrix : array-like or scipy.sparse matrix of shape (n, n)
            Numeric entries 1, -1 or 0 (booleans and complex numbers are refused). A sparse
            matrix must store each cell at most once.
        row_name_prefix : str, default="entry"
            How error messages and :meth:`row_name` name a matrix entry, e.g.
            ``"entry (2, 5)"``.

        Returns
        -------
        Constraints
            Bound to ``n_samples=n``.

        Raises
        ------
        InvalidConstraintError
            A matrix that is not square or not numeric, a value other than 1, -1 or 0 (the
            message names the entries), a diagonal value other than 1 or 0, or a sparse cell
            stored more than once.
        ConflictingConstraintError
            A pair with opposite signs in the two triangles.
        """
        mat = sp.coo_matrix(matrix) if sp.issparse(matrix) else None
        if mat is None:
            dense = np.asarray(matrix)
            if dense.ndim != 2 or dense.shape[0] != dense.shape[1]:
                raise InvalidConstraintError(f"A constraint matrix must be square (n x n), got shape {dense.shape}.")
            _check_matrix_dtype(dense.dtype)
            rows, cols = np.nonzero(dense)
            vals = dense[rows, cols]
            n = dense.shape[0]
        else:
            if mat.shape[0] != mat.shape[1]:
                raise InvalidConstraintError(f"A constraint matrix must be square (n x n), got shape {mat.shape}.")
            _check_matrix_dtype(mat.dtype)
            # Summing repeated cells would hide them: ML + CL on one cell adds up to "none".
            # (Stored zeros mean nothing and may repeat.)
            stored = np.flatnonzero(mat.data != 0)
            cell = mat.row[stored].astype(np.int64) * mat.shape[1] + mat.col[stored]
            _, first, count = np.unique(cell, return_index=True, return_counts=True)
            if (count > 1).any():
                first = stored[first]
                repeated = [f"({mat.row[f]}, {mat.col[f]}) x{c}" for f, c in
                            zip(first[count > 1][:5].tolist(), count[count > 1][:5].tolist(), strict=True)]
                raise InvalidConstraintError(
                    "The sparse constraint matrix stores a cell more than once (a cell holds one "
                    f"value; call sum_duplicates() first if the sum is meant): {', '.join(repeated)}.")
            mat.sum_duplicates()
            keep = mat.data != 0
            rows, cols, vals = mat.row[keep], mat.col[keep], mat.data[keep]
            n = mat.shape[0]
        return cls._from_entries(rows, cols, vals, n, row_name_prefix, _line_of_row)

    @classmethod
    def _from_entries(cls, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, n: int, row_name_prefix: str,
                      line_of_row: Sequence[int] | None) -> Constraints:
        """:meth:`from_matrix` on the nonzero entries of a square matrix, in row-major order.

        Raises
        ------
        InvalidConstraintError
            A diagonal value other than 1, or another value than 1 or -1.
        ConflictingConstraintError
            A pair with opposite signs in the two triangles.
        """
        off = rows != cols
        # An object is always with itself (the published files write 1 there); any other
        # value would be a cannot-link of an object with itself, or a typo, not a pair.
        odd_diagonal = np.flatnonzero(~off & (vals != 1))
        if odd_diagonal.size:
            cells = [_cell_name(row_name_prefix, rows[b], cols[b], line_of_row, vals[b].item())
                     for b in odd_diagonal[:_MAX_LISTED]]
            raise InvalidConstraintError(
                f"The diagonal of a constraint matrix may hold 1 or 0 only (an object is with "
                f"itself; -1 would keep it from itself); found {_listing(cells, odd_diagonal.size)}.")
        rows, cols, vals = rows[off].astype(np.int64), cols[off].astype(np.int64), vals[off]
        bad = np.flatnonzero((vals != 1) & (vals != -1))
        if bad.size:
            cells = [_cell_name(row_name_prefix, rows[b], cols[b], line_of_row, vals[b].item())
                     for b in bad[:_MAX_LISTED]]
            raise InvalidConstraintError(
                f"Constraint matrix values must be 1 (ML), -1 (CL) or 0; found {_listing(cells, bad.size)}."
            )
        lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
        order = np.lexsort((hi, lo))
        rows, cols, vals, lo, hi = rows[order], cols[order], vals[order], lo[order], hi[order]
        # A symmetric matrix stores each pair twice: one given row per pair, the upper entry
        # (the first of the two in this order). Opposite signs stay two rows, to conflict.
        mirrored = np.zeros(rows.size, dtype=bool)
        mirrored[1:] = (lo[1:] == lo[:-1]) & (hi[1:] == hi[:-1]) & (vals[1:] == vals[:-1])
        rows, cols, vals = rows[~mirrored], cols[~mirrored], vals[~mirrored]
        pairs = np.column_stack([np.minimum(rows, cols), np.maximum(rows, cols)])
        return cls(pairs, vals.astype(np.int8), n_samples=n,
                   _row_name=partial(_cell_row_name, row_name_prefix, rows, cols, line_of_row),
                   _warn_duplicates=False)

    @classmethod
    def from_matrix_file(cls, path: str | PathLike, *, delimiter: str | None = None) -> Constraints:
        """Read an ``n x n`` constraint matrix from a text file (commas, semicolons or whitespace).

        The matrix is read as by :meth:`from_matrix`: 1 = must-link, -1 = cannot-link,
        0 = none, both triangles, the diagonal ignored. It is read a row at a time and only
        its nonzero entries are kept (24 bytes each), so memory grows with the constraints,
        not with ``n * n``.

        Parameters
        ----------
        path : str or path-like
            Text file with one matrix row per line; blank lines are skipped.
        delimiter : str, optional
            The field separator (one character, e.g. ``"|"``); spaces around values are
            ignored, and a whitespace separator counts a run of it once. A row without the
            separator is read by the default rule, so that one ``delimiter`` serves a data
            file and a matrix written by another tool (``numpy.savetxt``). By default a comma
            or a semicolon separates values, and so does a run of whitespace.

        Returns
        -------
        Constraints
            Bound to ``n_samples=n``.

        Raises
        ------
        DataFormatError
            An unreadable or empty file, a non-numeric value or a row whose length differs
            from the first (with the line), or a matrix :meth:`from_matrix` refuses.
        ConflictingConstraintError
            A pair with opposite signs in the two triangles; the message starts with the path.
        MemoryBudgetError
            The nonzero entries would take more than ``max_dense_bytes``
            (:func:`ccopt.set_config`); the message names the file, the line reached and the
            row width.
        """
        path = str(path)
        if delimiter is not None:
            delimiter = check_delimiter(delimiter)
        # Only the nonzero entries are kept, row by row: the whole matrix as Python lists of
        # floats took 46 bytes an entry, 4.6 GiB for a 10,000 x 10,000 file of 5,000 constraints.
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        counts: list[int] = []  # nonzero entries of each row
        line_of_row: list[int] = []  # blank lines are skipped, so matrix row r is not line r + 1
        width = n_kept = 0
        most = int(get_config()["max_dense_bytes"]) // _MATRIX_ENTRY_BYTES
        try:
            # utf-8-sig: a byte-order mark (spreadsheets write one) is not part of the first value.
            with open(path, newline="", encoding="utf-8-sig") as handle:
                for line_no, line in enumerate(handle, start=1):
                    text = line.strip()
                    if not text:
                        continue
                    fields = _matrix_fields(text, delimiter)
                    if "" in fields:
                        raise DataFormatError(
                            f"empty value in constraint matrix row {text[:60]!r}: two separators "
                            f"({'commas or semicolons' if delimiter is None else repr(delimiter)}) in a "
                            "row, or one at the start of the line.",
                            path=path, line=line_no)
                    line_of_row.append(line_no)
                    try:
                        # numpy reads each str with float() (PyNumber_Float), so what a number is
                        # stays as it was, 40% faster than a Python loop over float().
                        values = np.array(fields, dtype=np.float64)
                    except ValueError:
                        bad = next(f for f in fields if not parses_as(f))
                        raise DataFormatError(
                            f"non-numeric value {bad!r} in constraint matrix row: {text[:60]!r}."
                            + separator_hint(bad, delimiter or ","), path=path, line=line_no) from None
                    if len(line_of_row) == 1:
                        width = values.size
                    elif values.size != width:
                        raise DataFormatError(f"expected {width} values like the first row, got {values.size}",
                                              path=path, line=line_no)
                    nonzero = np.flatnonzero(values)
                    n_kept += nonzero.size
                    if n_kept > most:
                        _refuse_matrix_entries(path, n_kept, width, line_no)
                    counts.append(nonzero.size)
                    if nonzero.size:  # an empty row costs no array objects
                        cols.append(nonzero)
                        vals.append(values[nonzero])
        except OSError as exc:
            raise DataFormatError(f"cannot read file: {exc.strerror}", path=path) from None
        except UnicodeDecodeError as exc:
            raise not_utf8_error(path, exc) from None
        if not line_of_row:
            raise DataFormatError("the constraint matrix file is empty", path=path)
        if len(line_of_row) != width:
            raise DataFormatError(f"A constraint matrix must be square (n x n), got shape {(len(line_of_row), width)}.",
                                  path=path)
        rows = np.repeat(np.arange(width, dtype=np.int64), counts)
        cols_all = np.concatenate(cols) if cols else np.empty(0, dtype=np.int64)
        vals_all = np.concatenate(vals) if vals else np.empty(0)
        try:
            return cls._from_entries(rows, cols_all, vals_all, width, "entry", line_of_row)
        except ConflictingConstraintError as exc:
            # Well-formed entries that contradict each other, as from_matrix and from_csv raise.
            raise ConflictingConstraintError(f"{path}: {exc}") from None
        except InvalidConstraintError as exc:
            raise DataFormatError(str(exc), path=path) from None

    @classmethod
    def from_csv(cls, path: str | PathLike, *, n_samples: int | None = None, delimiter: str = ",") -> Constraints:
        """Read constraints from a CSV file with a header ``i,j,kind`` (optional ``weight``, ``hard``).

        Indices are 0-based; ``kind`` is ``ML`` or ``CL``. Malformed rows raise
        :class:`~ccopt.exceptions.DataFormatError` naming the file and line.

        Parameters
        ----------
        path : str or path-like
            UTF-8 CSV file (a byte-order mark is accepted). The header names the columns,
            in any order and any case: ``i``, ``j`` and ``kind`` are required, ``weight``
            (a number, default 1.0) and ``hard`` (``true``/``false`` or ``1``/``0``, default
            false) optional; when a column is there, every row must fill it (an empty
            ``weight`` or ``hard`` cell is an error, not the default). ``kind`` also accepts ``must-link``/``cannot-link`` and
            ``+1``/``-1``. Blank lines are skipped.
        n_samples : int, optional
            Number of objects; when given, indices are checked to be ``< n_samples``.
        delimiter : str, default=","
            The field separator (one character, e.g. ``";"`` or ``"\\t"``).

        Returns
        -------
        Constraints
            One given row per data line; :meth:`row_name` gives ``"<path> line <n>"``.

        Raises
        ------
        DataFormatError
            An unreadable or empty file, a header without ``i``, ``j``, ``kind``, with a
            repeated column or with a column that seems a misspelt ``weight`` or ``hard``
            (``weigth``), or a bad row (wrong number of fields, non-integer index,
            unknown kind, non-numeric, empty or negative weight, bad or empty ``hard`` flag, negative or
            out-of-range index, ``i == j``); ``line`` is set when one row is at fault.
        ConflictingConstraintError
            A pair given both as must-link and as cannot-link; the message names the lines.
        InvalidParameterError
            ``delimiter`` not a single character.

        Warns
        -----
        DuplicateConstraintWarning
            When a pair is given more than once with the same kind (the rows are merged).
        CcoptWarning
            When the header names other columns (notes, a source): they are not read.
        """
        delimiter = check_delimiter(delimiter)
        path = str(path)
        pairs, kinds, weights, hard, lines = [], [], [], [], []
        try:
            with open(path, newline="", encoding="utf-8-sig") as handle:
                reader = csv.reader(handle, delimiter=delimiter)
                header = next(reader, None)
                if header is None:
                    raise DataFormatError("the file is empty; expected a header i,j,kind", path=path, line=1)
                names = [h.strip().lower() for h in header]
                missing = [c for c in ("i", "j", "kind") if c not in names]
                if missing:
                    raise DataFormatError(
                        f"header {header!r} lacks column(s) {missing}; expected i,j,kind[,weight][,hard]."
                        + separator_hint("".join(header), delimiter), path=path, line=1)
                known = ("i", "j", "kind", "weight", "hard")
                twice = [c for c in known if names.count(c) > 1]
                if twice:
                    raise DataFormatError(f"header {header!r} names column(s) {twice} more than once",
                                          path=path, line=1)
                _check_unknown_columns(names, known, path)
                col = {name: names.index(name) for name in known if name in names}
                for fields in reader:
                    line_no = reader.line_num
                    if not fields or all(not f.strip() for f in fields):
                        continue
                    if len(fields) != len(names):
                        raise DataFormatError(f"expected {len(names)} fields, got {len(fields)}",
                                              path=path, line=line_no)
                    index_i, index_j = _CSV_INDEX.fullmatch(fields[col["i"]]), _CSV_INDEX.fullmatch(fields[col["j"]])
                    if not (index_i and index_j):
                        raise DataFormatError(
                            f"indices must be integers, got i={fields[col['i']]!r}, j={fields[col['j']]!r}",
                            path=path, line=line_no)
                    i, j = int(index_i.group(1)), int(index_j.group(1))
                    if max(abs(i), abs(j)) >= 2**63:
                        # An int64 array could not hold it: say where, instead of an OverflowError.
                        raise DataFormatError(f"index too large to be a row number: i={i}, j={j}",
                                              path=path, line=line_no)
                    try:
                        kind = _parse_kind(fields[col["kind"]], f"line {line_no}")
                    except InvalidConstraintError as exc:
                        raise DataFormatError(str(exc), path=path, line=line_no) from None
                    weight = 1.0
                    if "weight" in col:
                        try:
                            weight = float(fields[col["weight"]])
                        except ValueError:
                            raise DataFormatError(f"weight must be a number, got {fields[col['weight']]!r}",
                                                  path=path, line=line_no) from None
                    flag = False
                    if "hard" in col:
                        text = fields[col["hard"]].strip().lower()
                        if text not in ("0", "1", "true", "false"):
                            # An empty cell is refused as an empty weight is: a flag left out
                            # by mistake must not turn a hard constraint into a soft one.
                            hint = "" if text else " (an empty cell is not read as false; write 0 or false)"
                            raise DataFormatError(
                                f"hard must be true/false or 1/0, got {fields[col['hard']]!r}{hint}",
                                path=path, line=line_no)
                        flag = text in ("1", "true")
                    pairs.append((i, j))
                    kinds.append(kind)
                    weights.append(weight)
                    hard.append(flag)
                    lines.append(line_no)
        except OSError as exc:
            raise DataFormatError(f"cannot read file: {exc.strerror}", path=path) from None
        except csv.Error as exc:
            raise DataFormatError(f"not a readable CSV file: {exc}", path=path) from None
        except UnicodeDecodeError as exc:
            raise not_utf8_error(path, exc) from None
        try:
            return cls(np.array(pairs, dtype=np.int64).reshape(-1, 2), np.array(kinds, dtype=np.int8),
                       weights=np.array(weights), hard=np.array(hard, dtype=bool), n_samples=n_samples,
                       _row_name=partial(_line_row_name, path, lines))
        except ConflictingConstraintError:
            # Well-formed rows that contradict each other are not a format error; the message
            # already names the file lines.
            raise
        except InvalidConstraintError as exc:
            if not exc.rows:
                raise DataFormatError(str(exc), path=path) from None
            # "pairs" is the constructor's argument, which a file's reader never saw.
            message = str(exc).removeprefix("pairs has ")
            if len(exc.rows) == 1:  # the prefix "path:line:" says where; the row's name said it again
                message = message.replace(f" in {_line_row_name(path, lines, exc.rows[0])} = ", ": ")
            raise DataFormatError(message, path=path, line=lines[exc.rows[0]]) from None

    @classmethod
    def from_labels(cls, labels, pairs, *, n_samples: int | None = None) -> Constraints:
        """Label each pair from ground truth: ML when both objects share a label, CL otherwise.

        Parameters
        ----------
        labels : array-like of shape (n_samples,)
            Ground-truth class of every object (integers, strings or finite floats).
        pairs : array-like of int, shape (m, 2)
        n_samples : int, optional
            Defaults to ``len(labels)``.

        Raises
        ------
        InvalidParameterError
            ``labels`` not 1-D, empty, with NaN/inf or with values that cannot be compared.
        InvalidConstraintError
            A malformed pair or an index beyond the labels.
        """
        labels = check_labels(labels, "labels")
        arr = _as_index_pairs(pairs, "pairs", lambda r: f"row {r}")
        n = labels.shape[0] if n_samples is None else n_samples
        if arr.size and arr.max() >= labels.shape[0]:
            bad = np.flatnonzero((arr >= labels.shape[0]).any(axis=1))
            rows = [f"row {r} = ({arr[r, 0]}, {arr[r, 1]})" for r in bad]
            raise InvalidConstraintError(
                f"Object index out of range for {labels.shape[0]} labels in {_listing(rows)}."
            )
        kinds = np.where(labels[arr[:, 0]] == labels[arr[:, 1]], ML, CL).astype(np.int8)
        return cls(arr, kinds, n_samples=n)

    @classmethod
    def empty(cls, n_samples: int | None = None) -> Constraints:
        """No constraints (unconstrained clustering).

        Parameters
        ----------
        n_samples : int, optional
            Number of objects to bind the (empty) constraints to.

        Returns
        -------
        Constraints

        Raises
        ------
        InvalidParameterError
            ``n_samples`` given but not a positive integer.
        """
        return cls(np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=np.int8), n_samples=n_samples)

    def __setstate__(self, state) -> None:
        # Unpickled arrays come back writeable; keep them read-only as when built.
        self.__dict__.update(state)
        for a in (self.pairs, self.kinds, self.weights, self.hard, self.given_index,
                  getattr(self, "_given_reversed", None)):
            if a is not None:
                a.setflags(write=False)

    # ------------------------------------------------------------------ views
    def __len__(self) -> int:
        return int(self.pairs.shape[0])

    def __repr__(self) -> str:
        n = "" if self.n_samples is None else f", n_samples={self.n_samples}"
        return f"Constraints(n_ml={self.n_ml}, n_cl={self.n_cl}{n})"

    @property
    def given_pairs(self) -> np.ndarray:
        """Every row the user gave, as given, aligned with :meth:`to_given`'s output."""
        pairs = self.pairs[self.given_index]
        reversed_rows = getattr(self, "_given_reversed", None)  # absent from pickles of older versions
        if reversed_rows is not None and reversed_rows.any():
            pairs[reversed_rows] = pairs[reversed_rows, ::-1]
        return pairs

    @property
    def n_given(self) -> int:
        """Number of rows the user gave (before merging duplicates)."""
        return int(self.given_index.shape[0])

    @cached_property
    def ml_mask(self) -> np.ndarray:
        """Boolean mask of the must-link constraints."""
        return self.kinds == ML

    @cached_property
    def cl_mask(self) -> np.ndarray:
        """Boolean mask of the cannot-link constraints."""
        return self.kinds == CL

    @cached_property
    def ml_indices(self) -> np.ndarray:
        """Positions of the must-link constraints in this object's order."""
        return np.flatnonzero(self.ml_mask)

    @cached_property
    def cl_indices(self) -> np.ndarray:
        """Positions of the cannot-link constraints in this object's order."""
        return np.flatnonzero(self.cl_mask)

    @property
    def ml_pairs(self) -> np.ndarray:
        """Must-link pairs, shape (n_ml, 2)."""
        return self.pairs[self.ml_mask]

    @property
    def cl_pairs(self) -> np.ndarray:
        """Cannot-link pairs, shape (n_cl, 2)."""
        return self.pairs[self.cl_mask]

    @property
    def n_ml(self) -> int:
        """Number of must-link constraints."""
        return int(self.ml_mask.sum())

    @property
    def n_cl(self) -> int:
        """Number of cannot-link constraints."""
        return int(self.cl_mask.sum())

    @property
    def kind_names(self) -> np.ndarray:
        """``"ML"``/``"CL"`` per constraint."""
        return np.where(self.ml_mask, "ML", "CL")

    def row_name(self, index: int) -> str:
        """Where constraint ``index`` came from (``"ml[3]"``, ``"data.csv line 5"``, ...).

        Parameters
        ----------
        index : int
            Position of the constraint in this object's order.

        Returns
        -------
        str
        """
        return self._name_of(int(self._name_rows[index]))

    def to_given(self, values) -> np.ndarray:
        """Map per-constraint values (this object's order) onto every row the user gave.

        Parameters
        ----------
        values : array-like of shape (n_constraints, ...)
            One value (or row) per distinct constraint, in this object's order.

        Returns
        -------
        ndarray of shape (n_given, ...)
            ``values[given_index]``: merged duplicate rows each get their constraint's value.

        Raises
        ------
        InvalidParameterError
            A scalar, or a first axis whose length is not ``len(self)``.
        """
        values = np.asarray(values)
        if values.ndim == 0 or values.shape[0] != len(self):
            got = "a scalar" if values.ndim == 0 else values.shape[0]
            raise InvalidParameterError(f"Expected one value per constraint ({len(self)}), got {got}.")
        return values[self.given_index]

    def with_n_samples(self, n_samples: int) -> Constraints:
        """Return these constraints checked against ``n_samples`` objects.

        Parameters
        ----------
        n_samples : int
            Number of objects (positive).

        Returns
        -------
        Constraints
            ``self`` when already bound to ``n_samples``, otherwise a copy bound to it.

        Raises
        ------
        InvalidParameterError
            ``n_samples`` is not a positive integer.
        InvalidConstraintError
            The constraints were built for another ``n_samples``, or an index is
            ``>= n_samples`` (the message names the rows).
        """
        n_samples = check_positive_int(n_samples, "n_samples")
        if self.n_samples == n_samples:
            return self
        if self.n_samples is not None and self.n_samples != n_samples:
            raise InvalidConstraintError(
                f"These constraints were built for n_samples={self.n_samples}, "
                f"but the data has {n_samples} rows."
            )
        _check_in_range(self.pairs, n_samples, self.row_name)
        clone = self._copy_with(slice(None))
        clone.n_samples = n_samples
        return clone

    def subset(self, indices) -> Constraints:
        """The constraints at ``indices`` (positions or a boolean mask), as a new object.

        Parameters
        ----------
        indices : array-like of int or bool
            Positions in this object's order (negative ones count from the end; each at
            most once), in the order wanted, or a boolean mask of shape (n_constraints,).

        Returns
        -------
        Constraints
            The selected constraints, with the same ``n_samples`` and row names; each is
            its own given row (``given_index`` is ``0 .. len - 1``).

        Raises
        ------
        InvalidParameterError
            A mask of the wrong shape, positions that are not integers or out of range, or
            a position selected twice.
        """
        sel = np.asarray(indices)
        m = len(self)
        if sel.dtype == np.bool_:
            if sel.shape != (m,):
                raise InvalidParameterError(
                    f"A boolean mask must have one entry per constraint ({m}), got shape {sel.shape}.")
            idx = np.flatnonzero(sel)
        else:
            if sel.size and (not np.issubdtype(sel.dtype, np.integer) or sel.min() < -m or sel.max() >= m):
                given = (sel.tolist() if sel.size <= _MAX_SPELT
                         else f"{_objects_text(sel.reshape(-1).tolist())} ({sel.size} values)")
                raise InvalidParameterError(
                    f"indices must be positions in 0..{m - 1} (or a boolean mask), got {given}.")
            idx = np.arange(m)[sel.astype(np.int64)] if sel.size else np.empty(0, dtype=np.int64)
            positions, counts = np.unique(idx, return_counts=True)
            if (counts > 1).any():
                raise InvalidParameterError(
                    f"indices repeat position(s) {_listing([str(p) for p in positions[counts > 1].tolist()])}; "
                    "each constraint can be selected once (a repeated one would be counted twice).")
        return self._copy_with(np.asarray(idx, dtype=np.int64).reshape(-1))

    def _copy_with(self, index) -> Constraints:
        clone = object.__new__(Constraints)
        clone.pairs = self.pairs[index]
        clone.kinds = self.kinds[index]
        clone.weights = self.weights[index]
        clone.hard = self.hard[index]
        clone.n_samples = self.n_samples
        clone._name_of = self._name_of
        if isinstance(index, slice):
            clone.given_index = self.given_index
            clone._given_reversed = getattr(self, "_given_reversed", None)
            clone._name_rows = self._name_rows
        else:
            clone.given_index = np.arange(clone.pairs.shape[0], dtype=np.int64)
            clone._given_reversed = None
            clone._name_rows = self._name_rows[index]
        for a in (clone.pairs, clone.kinds, clone.weights, clone.hard, clone.given_index):
            a.setflags(write=False)
        return clone

    def to_csv(self, path: str | PathLike) -> None:
        """Write ``i,j,kind,weight,hard`` rows (the distinct constraints, in order).

        ``kind`` is ``ML``/``CL`` and ``hard`` is 1/0; :meth:`from_csv` reads the file back.

        Parameters
        ----------
        path : str or path-like
            File to write (overwritten).
        """
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["i", "j", "kind", "weight", "hard"])
            for (i, j), kind, w, h in zip(self.pairs, self.kind_names, self.weights, self.hard, strict=True):
                writer.writerow([int(i), int(j), kind, repr(float(w)), int(h)])

    # ------------------------------------------------------------------ labellings
    def _check_labels(self, labels) -> np.ndarray:
        labels = check_labels(labels, "labels", allow_empty=True)
        if len(self) and (self.pairs.max() >= labels.shape[0]):
            raise InvalidParameterError(
                f"labels has {labels.shape[0]} entries but a constraint refers to object "
                f"{int(self.pairs.max())}."
            )
        if self.n_samples is not None and labels.shape[0] != self.n_samples:
            raise InvalidParameterError(
                f"labels has {labels.shape[0]} entries, expected n_samples={self.n_samples}."
            )
        return labels

    def satisfied(self, labels) -> np.ndarray:
        """Boolean mask: is each constraint satisfied by ``labels``?

        Parameters
        ----------
        labels : array-like of shape (n_samples,)
            Cluster of every object (integers, strings or finite floats).

        Returns
        -------
        ndarray of bool, shape (n_constraints,)
            True where a must-link pair shares a label or a cannot-link pair does not.

        Raises
        ------
        InvalidParameterError
            ``labels`` not 1-D or with NaN/inf, fewer entries than a constrained object
            needs, or a length other than ``n_samples`` when that is known.
        """
        labels = self._check_labels(labels)
        same = labels[self.pairs[:, 0]] == labels[self.pairs[:, 1]]
        return np.where(self.ml_mask, same, ~same)

    def is_correct(self, labels_true) -> np.ndarray:
        """Boolean mask: does each constraint agree with the ground-truth labelling?

        Parameters
        ----------
        labels_true : array-like of shape (n_samples,)
            Ground-truth class of every object.

        Returns
        -------
        ndarray of bool, shape (n_constraints,)
            True for a correct constraint (as :meth:`satisfied` on ``labels_true``).

        Raises
        ------
        InvalidParameterError
            As :meth:`satisfied`.
        """
        return self.satisfied(labels_true)

    def violations(self, labels) -> ViolationReport:
        """Count and locate the constraints that ``labels`` violates.

        Parameters
        ----------
        labels : array-like of shape (n_samples,)
            Cluster of every object.

        Returns
        -------
        ViolationReport

        Raises
        ------
        InvalidParameterError
            As :meth:`satisfied`.
        """
        violated = ~self.satisfied(labels)
        ml_v = np.flatnonzero(violated & self.ml_mask)
        cl_v = np.flatnonzero(violated & self.cl_mask)
        return ViolationReport(int(ml_v.size), int(cl_v.size), violated, ml_v, cl_v)

    # ------------------------------------------------------------------ closure
    @cached_property
    def closure(self) -> MustLinkClosure:
        """The must-link closure (super-instances); needs ``n_samples``.

        Raises
        ------
        InfeasibleConstraintsError
            If a cannot-link joins two objects of one must-link component; the message and
            ``certificate`` give the must-link chain.
        """
        if self.n_samples is None:
            raise InvalidParameterError(
                "The must-link closure needs n_samples; build the constraints with n_samples=... "
                "or call .with_n_samples(n)."
            )
        return MustLinkClosure.from_constraints(self)


def _fill(values, m: int, default, what: str) -> np.ndarray:
    """One value per pair: a scalar is broadcast, ``None`` means the default."""
    if values is None:
        values = default
    if np.isscalar(values):
        return np.full(m, values)
    arr = np.asarray(values).reshape(-1)
    if arr.size != m:
        raise InvalidConstraintError(f"{what} must have one value per pair ({m}), got {arr.size}.")
    return arr


@dataclass(frozen=True, eq=False)
class MustLinkClosure:
    """Connected components of the must-link graph (super-instances).

    Attributes
    ----------
    component : ndarray of int64, shape (n_samples,)
        Super-instance of each object; super-instances are numbered by their smallest object.
    sizes : ndarray of int64, shape (n_super,)
        Number of objects in each super-instance.
    cl_pairs : ndarray of int64, shape (n_cl, 2)
        Each cannot-link constraint mapped onto super-instances, in the constraints' CL order.
    """

    component: np.ndarray
    sizes: np.ndarray
    cl_pairs: np.ndarray

    @classmethod
    def from_constraints(cls, constraints: Constraints) -> MustLinkClosure:
        """Compute the must-link closure of ``constraints``.

        Parameters
        ----------
        constraints : Constraints
            Bound to ``n_samples`` (not checked here; :attr:`Constraints.closure` checks it).

        Returns
        -------
        MustLinkClosure

        Raises
        ------
        InfeasibleConstraintsError
            If a cannot-link joins two objects of one must-link component; ``certificate``
            is the must-link chain between them.
        """
        n = constraints.n_samples
        graph, raw = _must_link_components(constraints)
        # Renumber components by their smallest member so the numbering is canonical.
        first_member = np.full(raw.max() + 1 if n else 0, n, dtype=np.int64)
        np.minimum.at(first_member, raw, np.arange(n))
        order = np.argsort(first_member, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        component = rank[raw].astype(np.int64)
        inside = _inside_chains(constraints, raw)
        if inside.size:
            position = inside[0]
            i, j = (int(v) for v in constraints.pairs[position])
            chain = _ml_chain(graph, i, j)
            raise InfeasibleConstraintsError(
                f"Cannot-link ({i}, {j}) [{constraints.row_name(position)}] joins two objects that the "
                f"must-links already tie together through the chain {_chain_text(chain)}"
                + (f" ({inside.size} such cannot-links in all)" if inside.size > 1 else "")
                + ". Remove the cannot-link or one must-link of the chain.",
                certificate=chain,
            )
        cl_super = component[constraints.cl_pairs] if constraints.n_cl else np.empty((0, 2), dtype=np.int64)
        sizes = np.bincount(component, minlength=int(component.max()) + 1 if n else 0).astype(np.int64)
        for a in (component, sizes, cl_super):
            a.setflags(write=False)
        return cls(component=component, sizes=sizes, cl_pairs=cl_super)

    @property
    def n_super(self) -> int:
        """Number of super-instances."""
        return int(self.sizes.shape[0])

    @cached_property
    def indicator(self) -> sp.csr_matrix:
        """Sparse (n_super, n_samples) 0/1 membership matrix."""
        return membership(self.component, self.n_super)

    def super_instances(self, X, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
        """Weighted mean position and total weight of every super-instance.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        sample_weight : ndarray of shape (n_samples,), optional

        Returns
        -------
        centers : ndarray of shape (n_super, n_features)
        weights : ndarray of shape (n_super,)
        """
        X = np.asarray(X, dtype=np.float64)
        n = self.component.shape[0]
        if X.ndim != 2 or X.shape[0] != n:
            raise InvalidDataError(f"X has {X.shape[0] if X.ndim else 0} rows, expected n_samples={n} "
                                   f"(shape {X.shape}).")
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (n,):
            raise InvalidDataError(f"sample_weight must have shape ({n},), got {w.shape}.")
        weighted = self.indicator.multiply(w[None, :]).tocsr()
        weights = np.asarray(weighted.sum(axis=1)).reshape(-1)
        centers = np.asarray(weighted @ X) / weights[:, None]
        return centers, weights

    def expand(self, super_labels) -> np.ndarray:
        """Labels per object from labels per super-instance.

        Parameters
        ----------
        super_labels : array-like of shape (n_super,)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        super_labels = check_labels(super_labels, "super_labels", self.n_super)
        return super_labels[self.component]

    def members(self, super_index: int) -> np.ndarray:
        """Objects of one super-instance.

        Parameters
        ----------
        super_index : int
            Index of the super-instance, ``0 .. n_super - 1``.

        Returns
        -------
        ndarray of int
            Its object indices, increasing.
        """
        return np.flatnonzero(self.component == super_index)


def _must_link_components(constraints: Constraints) -> tuple[sp.csr_matrix, np.ndarray]:
    """The must-link graph of ``constraints`` (bound to ``n_samples``) and each object's component."""
    n = constraints.n_samples
    ml = constraints.ml_pairs
    graph = sp.coo_matrix((np.ones(ml.shape[0]), (ml[:, 0], ml[:, 1])), shape=(n, n)).tocsr()
    return graph, csgraph.connected_components(graph, directed=False)[1]


def _inside_chains(constraints: Constraints, component: np.ndarray) -> np.ndarray:
    """Positions (in ``constraints``, increasing) of the cannot-links both of whose objects lie in
    one must-link component."""
    ends = component[constraints.cl_pairs]
    return constraints.cl_indices[ends[:, 0] == ends[:, 1]].astype(np.int64)


def _cannot_links_in_chains(constraints: Constraints) -> np.ndarray:
    """Positions (in ``constraints``) of the cannot-links whose two ends the must-links tie together.

    What :meth:`MustLinkClosure.from_constraints` refuses, found without raising, for the
    soft algorithms that run on such sets; every must-link counts, hard or not.

    Parameters
    ----------
    constraints : Constraints
        Bound to ``n_samples``.

    Returns
    -------
    ndarray of int64
        Increasing positions of such cannot-links; empty when there is none.
    """
    if not (constraints.n_ml and constraints.n_cl):
        return np.empty(0, dtype=np.int64)
    return _inside_chains(constraints, _must_link_components(constraints)[1])


def _ml_chain(graph: sp.csr_matrix, source: int, target: int) -> list[int]:
    """Shortest must-link path from ``source`` to ``target`` (both in one component)."""
    _, predecessors = csgraph.breadth_first_order(graph, source, directed=False, return_predecessors=True)
    chain = [target]
    while chain[-1] != source:
        chain.append(int(predecessors[chain[-1]]))
    return chain[::-1]


@dataclass(frozen=True)
class FeasibilityReport:
    """Can the hard constraints be satisfied with ``k`` non-empty clusters?

    Attributes
    ----------
    status : {"feasible", "infeasible", "unknown"}
    reason : str
        One sentence saying why.
    certificate : list of int or None
        For "infeasible": the must-link chain or the cannot-link clique (object indices).
    labels : ndarray of shape (n_samples,) or None
        For "feasible": a labelling into ``k`` non-empty clusters that satisfies every
        constraint (and the maximum cluster size, when one was given).
    """

    status: str
    reason: str
    certificate: list | None = None
    labels: np.ndarray | None = None

    @property
    def feasible(self) -> bool | None:
        """True, False, or None when unknown."""
        return {"feasible": True, "infeasible": False}.get(self.status)

    def raise_if_infeasible(self) -> None:
        """Raise :class:`InfeasibleConstraintsError` with the certificate when infeasible."""
        if self.status == "infeasible":
            raise InfeasibleConstraintsError(self.reason, certificate=self.certificate)


def _unread_settings(constraints: Constraints, *, hard: str = "marked hard", hard_mask=None) -> str:
    """Count the weights and hard flags a method does not read, for its warning.

    Parameters
    ----------
    constraints : Constraints
    hard : str, default="marked hard"
        How the hard rows are named, e.g. "cannot-link(s) marked hard".
    hard_mask : ndarray of bool, optional
        Which rows' hard flags go unread (default: every row's).

    Returns
    -------
    str
        E.g. "2 with a weight other than 1 and 1 marked hard"; empty when there is neither.
    """
    flags = constraints.hard if hard_mask is None else constraints.hard & hard_mask
    n_weighted, n_hard = int((~np.isclose(constraints.weights, 1.0)).sum()), int(flags.sum())
    parts = [f"{n_weighted} with a weight other than 1"] if n_weighted else []
    parts += [f"{n_hard} {hard}"] if n_hard else []
    return " and ".join(parts)


def check_feasibility(constraints: Constraints, n_clusters: int, *, max_cluster_size: int | None = None,
                      clique_search_limit: int = 2000, random_state=0) -> FeasibilityReport:
    """Decide, where it is cheap, whether ``k`` clusters can satisfy the constraints.

    Feasibility is NP-complete for cannot-links (graph colouring), so this returns
    "feasible" only with a labelling that proves it, "infeasible" only with a certificate,
    and "unknown" otherwise.

    Checks, in order: a cannot-link inside a must-link component (certificate: the chain);
    fewer must-link components than ``k``; a component larger than ``max_cluster_size``;
    greedy colourings of the cannot-link graph on super-instances (smallest-last,
    largest-first, a few random orders, then DSATUR) with at most ``k`` colours; a (k+1)-clique inside the k-core of
    that graph (searched while the core has at most ``clique_search_limit`` vertices).

    Parameters
    ----------
    constraints : Constraints
        Must have ``n_samples``.
    n_clusters : int
    max_cluster_size : int, optional
    clique_search_limit : int, default=2000
    random_state : int, numpy.random.Generator or None, default=0
        Seed of the random colouring orders.

    Returns
    -------
    FeasibilityReport

    Raises
    ------
    InvalidParameterError
        ``constraints`` without ``n_samples`` or not a :class:`Constraints`, or a parameter
        that is not a (positive, for ``n_clusters`` and ``max_cluster_size``) integer.
    """
    import networkx as nx

    k = check_positive_int(n_clusters, "n_clusters")
    if not isinstance(constraints, Constraints):
        raise InvalidParameterError(
            f"constraints must be a ccopt.Constraints object, got {type(constraints).__name__}.")
    if max_cluster_size is not None:
        max_cluster_size = check_positive_int(max_cluster_size, "max_cluster_size")
    clique_search_limit = check_positive_int(clique_search_limit, "clique_search_limit", minimum=0)
    rng = check_random_state(random_state)
    n = constraints.n_samples
    if n is None:
        raise InvalidParameterError("check_feasibility needs constraints built with n_samples.")
    try:
        closure = constraints.closure
    except InfeasibleConstraintsError as exc:
        return FeasibilityReport("infeasible", str(exc), certificate=exc.certificate)
    if n < k:
        return FeasibilityReport("infeasible", f"{k} non-empty clusters need at least {k} objects; there are {n}.")
    if closure.n_super < k:
        return FeasibilityReport(
            "infeasible",
            f"The must-links merge the {n} objects into {closure.n_super} groups; "
            f"{k} non-empty clusters are impossible.",
            certificate=None,
        )
    if max_cluster_size is not None:
        big = np.flatnonzero(closure.sizes > max_cluster_size)
        if big.size:
            members = closure.members(int(big[0])).tolist()
            return FeasibilityReport(
                "infeasible",
                f"A must-link component of {int(closure.sizes[big[0]])} objects exceeds the maximum "
                f"cluster size {max_cluster_size}: objects {members[:10]}{' ...' if len(members) > 10 else ''}.",
                certificate=members,
            )
        if k * max_cluster_size < n:
            return FeasibilityReport(
                "infeasible",
                f"{k} clusters of at most {max_cluster_size} objects cannot hold {n} objects.",
            )

    # Only super-instances with a cannot-link enter the graph: the others take colour 0, as any
    # greedy colouring gives them, and colouring all of them made this quadratic in n.
    graph = nx.Graph()
    graph.add_edges_from(map(tuple, closure.cl_pairs.tolist()))
    linked = np.fromiter(graph.nodes, dtype=np.int64, count=graph.number_of_nodes())
    # Smallest object of each super-instance (fancy assignment with repeated indices has no
    # guaranteed winner, so take the minimum explicitly).
    representative = np.full(closure.n_super, n, dtype=np.int64)
    np.minimum.at(representative, closure.component, np.arange(n))

    if k == 2:
        # Two clusters are a 2-colouring: decided exactly, in linear time, by breadth-first
        # search (the greedy orders below may fail on a bipartite graph, and no 3-clique
        # proves an odd cycle infeasible).
        cycle, sides = _odd_cycle(graph)
        triangle = None if cycle is None else _triangle(graph)
        if triangle is not None:  # the shortest certificate, in the form of the clique below
            return _clique_report(sorted(int(representative[v]) for v in triangle), k)
        if cycle is not None:
            objects = [int(representative[v]) for v in cycle]
            return FeasibilityReport(
                "infeasible",
                f"Objects {_objects_text(objects)} form a cycle of {len(objects)} cannot-links (directly or "
                "through their must-link groups), an odd number: 2 clusters cannot separate them all.",
                certificate=objects,
            )
        colours = np.zeros(closure.n_super, dtype=np.int64)
        colours[list(sides)] = list(sides.values())
        labels = _spread_to_k(colours, k, closure.sizes, max_cluster_size)
        if labels is not None:
            return FeasibilityReport("feasible", "A labelling into 2 non-empty clusters satisfies every constraint.",
                                     labels=closure.expand(labels))

    # Linear-time orders first, DSATUR (O((V + E) log V), see _dsatur_colouring) only when they
    # all fail. The verdict does not depend on the order, only which colouring proves feasibility.
    strategies: list = ["smallest_last", "largest_first"]
    strategies += [_random_order(rng) for _ in range(5)]
    strategies.append("DSATUR")
    coloured = False  # a colouring with k colours was found, but not within max_cluster_size
    for strategy in strategies:
        colouring = (_dsatur_colouring(graph) if strategy == "DSATUR"
                     else nx.greedy_color(graph, strategy=strategy))
        colours = np.zeros(closure.n_super, dtype=np.int64)
        colours[linked] = np.fromiter((colouring[v] for v in linked.tolist()), dtype=np.int64, count=linked.size)
        if colours.max(initial=-1) + 1 <= k:
            coloured = True
            labels = _spread_to_k(colours, k, closure.sizes, max_cluster_size)
            if labels is not None:
                return FeasibilityReport(
                    "feasible",
                    f"A labelling into {k} non-empty clusters satisfies every constraint.",
                    labels=closure.expand(labels),
                )

    core = nx.k_core(graph, k)
    if core.number_of_nodes() <= clique_search_limit:
        for clique in nx.find_cliques(core):
            if len(clique) > k:
                return _clique_report(sorted(int(representative[v]) for v in clique[: k + 1]), k)
    found = (f"The colourings found with {k} clusters all exceed max_cluster_size={max_cluster_size}"
             if coloured else f"No colouring with {k} clusters was found")
    return FeasibilityReport(
        "unknown",
        f"{found} and no ({k + 1})-clique proves infeasibility; the constraints may or may not be "
        "satisfiable.",
    )


def _clique_report(objects: list, k: int) -> FeasibilityReport:
    return FeasibilityReport(
        "infeasible",
        f"Objects {_objects_text(objects)} pairwise cannot-link each other (directly or through their "
        f"must-link groups): {k + 1} objects need {k + 1} clusters, only {k} allowed.",
        certificate=objects,
    )


def _triangle(graph) -> tuple | None:
    """Three mutually adjacent vertices of ``graph``, or None."""
    for u, v in graph.edges:
        common = graph[u].keys() & graph[v].keys()
        if common:
            return u, v, next(iter(common))
    return None


def _odd_cycle(graph) -> tuple[list | None, dict]:
    """An odd cycle of ``graph`` and None, or None and a 2-colouring ``{vertex: 0 or 1}``.

    Breadth-first search puts every edge between two levels or within one; an edge within a
    level closes an odd cycle through the two vertices' common ancestor, and without such an
    edge the parity of the level is a 2-colouring.
    """
    depth: dict = {}
    parent: dict = {}
    for root in graph:
        if root in depth:
            continue
        depth[root], parent[root] = 0, None
        queue = deque([root])
        while queue:
            u = queue.popleft()
            for v in graph[u]:
                if v not in depth:
                    depth[v], parent[v] = depth[u] + 1, u
                    queue.append(v)
                elif depth[v] == depth[u]:
                    up, other = [u], [v]
                    while up[-1] != other[-1]:
                        up.append(parent[up[-1]])
                        other.append(parent[other[-1]])
                    return up + other[-2::-1], {}
    return None, {v: d % 2 for v, d in depth.items()}


def _dsatur_colouring(graph) -> dict:
    """The colouring ``nx.greedy_color(graph, strategy="DSATUR")`` returns, in O((V + E) log V).

    networkx recomputes every vertex's saturation from all coloured vertices at each step,
    O(V * E): nearly all of the 96 s ``check_feasibility`` took on the 7,183 linked
    super-instances of 50,000 objects with 100,000 constraints and ``k=3`` (0.65 s with this
    function, the same report). Here each uncoloured vertex keeps the set of its neighbours'
    colours, and a lazy heap, whose stale entries are skipped when popped, yields the next
    vertex. It reproduces networkx's choice exactly, so that verdicts and witness labellings
    do not change: the uncoloured vertex with the most distinct neighbour colours, ties
    broken by the larger degree (``graph.degree``, a self-loop counting twice), then by the
    earlier position in the graph's node order (``max`` keeps the first maximum); it takes
    the smallest colour no neighbour has.

    Parameters
    ----------
    graph : networkx.Graph
        Any hashable vertices; they are never compared.

    Returns
    -------
    dict
        ``{vertex: colour}``, colours ``0, 1, ...``, in colouring order as networkx gives it.
    """
    degree = dict(graph.degree)
    position = {v: i for i, v in enumerate(graph)}
    neighbour_colours: dict = {v: set() for v in graph}
    # (-saturation, -degree, position, vertex): the position is unique, so vertices are never compared.
    heap = [(0, -degree[v], position[v], v) for v in graph]
    heapq.heapify(heap)
    colours: dict = {}
    while heap:
        minus_saturation, _, _, u = heapq.heappop(heap)
        if u in colours or -minus_saturation != len(neighbour_colours[u]):
            continue  # stale: u was coloured, or its saturation rose and a newer entry exists
        taken = neighbour_colours.pop(u)
        colour = 0
        while colour in taken:
            colour += 1
        colours[u] = colour
        for w in graph[u]:
            if w not in colours and colour not in neighbour_colours[w]:
                neighbour_colours[w].add(colour)
                heapq.heappush(heap, (-len(neighbour_colours[w]), -degree[w], position[w], w))
    return colours


def _random_order(rng: np.random.Generator):
    def strategy(graph, colors):
        nodes = list(graph)
        return [nodes[i] for i in rng.permutation(len(nodes))]
    return strategy


def _spread_to_k(colours: np.ndarray, k: int, sizes: np.ndarray, max_size: int | None) -> np.ndarray | None:
    """Turn a colouring with at most ``k`` colours into ``k`` non-empty clusters.

    A super-instance moved alone into an unused colour violates no cannot-link, so empty
    clusters are filled from the largest classes. Returns None if the size bound fails.
    """
    colours = colours.copy()
    for empty in range(k):
        if np.any(colours == empty):
            continue
        counts = np.bincount(colours, minlength=k)
        donor = int(np.argmax(counts))
        colours[np.flatnonzero(colours == donor)[0]] = empty
    if max_size is not None:
        load = np.bincount(colours, weights=sizes, minlength=k)
        if load.max() > max_size:
            return None
    return colours


def as_constraints(constraints=None, *, ml=None, cl=None, n_samples: int) -> Constraints:
    """Normalise the two ways of passing constraints into one :class:`Constraints`.

    Either a :class:`Constraints` object (or ``None``) as ``constraints``, or ``ml=`` and
    ``cl=`` index pairs. The result is bound to ``n_samples`` (indices are range-checked).

    Parameters
    ----------
    constraints : Constraints, optional
        Constraints built beforehand; not together with ``ml``/``cl``.
    ml, cl : array-like of int, shape (m_ml, 2) and (m_cl, 2), optional
        Must-link and cannot-link index pairs, read as by :meth:`Constraints.from_pairs`
        (ML pairs first, then CL). With neither these nor ``constraints``, no constraints.
    n_samples : int
        Number of objects.

    Returns
    -------
    Constraints
        Bound to ``n_samples``; a given object already bound to it is returned as is.

    Raises
    ------
    InvalidParameterError
        Both ``constraints`` and ``ml``/``cl``, a ``constraints`` that is not a
        :class:`Constraints`, or ``n_samples`` not a positive integer.
    InvalidConstraintError
        Malformed pairs, indices ``>= n_samples``, or constraints built for another
        ``n_samples``.
    """
    if constraints is not None and (ml is not None or cl is not None):
        raise InvalidParameterError("Pass either a Constraints object or ml=/cl= pairs, not both.")
    if constraints is None:
        constraints = Constraints.from_pairs(ml=ml, cl=cl, n_samples=n_samples)
    elif not isinstance(constraints, Constraints):
        raise InvalidParameterError(
            f"constraints must be a ccopt.Constraints object, got {type(constraints).__name__}; "
            "pass index pairs with ml= and cl= instead."
        )
    return constraints.with_n_samples(n_samples)
