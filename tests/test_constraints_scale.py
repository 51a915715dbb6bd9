"""Constraints at scale, shown at small size: merging duplicates without a scan per repeated pair
(checked against the plain loop it replaced), messages that stay short when a certificate or a
repeated pair runs through thousands of objects, and a constraint-matrix file read without
holding the matrix."""

from __future__ import annotations

import re
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ccopt
from ccopt.constraints import (
    _MATRIX_SEPARATORS,
    _MAX_LISTED,
    CL,
    ML,
    Constraints,
    _listing,
    _matrix_fields,
    _rows_text,
    check_feasibility,
)
from ccopt.exceptions import (
    ConflictingConstraintError,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
    InvalidParameterError,
    MemoryBudgetError,
)

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- merging duplicates
def _reference_merge(arr, kinds, row_name, warn):
    """The loop ``Constraints._merge_duplicates`` ran before it was vectorised: for every
    repeated pair, a scan of all rows (quadratic when every pair is given twice). Only the
    words for one pair's rows go through ``_rows_text``, which spells ten rows or fewer as the
    loop did (``test_rows_text``)."""
    m = arr.shape[0]
    if m == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), None
    canon = np.sort(arr, axis=1)
    _, first_pos, inverse = np.unique(canon, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first_pos, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    given_index = rank[inverse.reshape(-1)].astype(np.int64)
    first = np.sort(first_pos).astype(np.int64)
    if first.size == m:
        return first, given_index, None
    conflicts, duplicates = [], []
    for r in np.flatnonzero(np.bincount(given_index) > 1):
        rows = np.flatnonzero(given_index == r)
        if np.unique(kinds[rows]).size > 1:
            ml_row = rows[kinds[rows] == ML][0]
            cl_row = rows[kinds[rows] == CL][0]
            conflicts.append(f"pair ({canon[rows[0], 0]}, {canon[rows[0], 1]}) is must-link in "
                             f"{row_name(ml_row)} and cannot-link in {row_name(cl_row)}")
        else:
            duplicates.append(_rows_text(rows, row_name))
    if conflicts:
        raise ConflictingConstraintError(
            "Contradictory constraints: " + _listing(conflicts) + ". Remove one of each pair.")
    message = None
    if warn and duplicates:
        message = (f"{m - first.size} duplicate constraint row(s) merged: {_listing(duplicates)}. "
                   "Each pair is one constraint: violation counts and penalties count it once, "
                   "the largest weight given holds, and the pair is hard if any row is; impact "
                   "scores still give every row you gave its own line.")
    return first, given_index, message


def _merged(function, arr, kinds, warn):
    """``(first, given_index, warning text)`` or ``(type, message)`` of an error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = function(arr, kinds, lambda r: f"row {r}", warn)
        except ConflictingConstraintError as exc:
            return type(exc), str(exc)
    if function is _reference_merge:
        first, given_index, message = result
    else:
        (first, given_index), message = result, None
        texts = [str(w.message) for w in caught if w.category is DuplicateConstraintWarning]
        assert len(texts) <= 1 and len(caught) == len(texts)
        message = texts[0] if texts else None
    return first.tolist(), given_index.tolist(), message


@st.composite
def repeated_rows(draw):
    """Rows over few objects, so that pairs repeat, in both orientations, often with both kinds."""
    n = draw(st.integers(2, 7))
    m = draw(st.integers(0, 40))
    pairs, kinds = [], []
    mixed = draw(st.booleans())  # else one kind per pair: duplicates, never a conflict
    kind_of: dict = {}
    for _ in range(m):
        i = draw(st.integers(0, n - 1))
        j = draw(st.integers(0, n - 1).filter(lambda v, i=i: v != i))
        kind = draw(st.sampled_from([ML, CL]))
        if not mixed:
            kind = kind_of.setdefault(frozenset((i, j)), kind)
        pairs.append((i, j))
        kinds.append(kind)
    return np.array(pairs, dtype=np.int64).reshape(-1, 2), np.array(kinds, dtype=np.int8)


@given(repeated_rows(), st.booleans())
@SETTINGS
def test_merging_matches_the_loop_it_replaced(rows, warn):
    arr, kinds = rows
    new = _merged(Constraints._merge_duplicates, arr, kinds, warn)
    assert new == _merged(_reference_merge, arr, kinds, warn)


def test_merging_names_only_the_rows_it_shows():
    # Every pair given twice, as (i, j) and (j, i): the loop scanned all rows once per pair and
    # put every row into words, of which the warning shows five pairs.
    m = 2000
    pairs = np.column_stack([np.arange(m), np.arange(m) + m])
    arr = np.vstack([pairs, pairs[:, ::-1]])
    named = []

    def row_name(r):
        named.append(r)
        return f"row {r}"

    with pytest.warns(DuplicateConstraintWarning,
                      match=rf"^{m} duplicate constraint row\(s\) merged: row 0 = row {m}, row 1 = row {m + 1}, .* "
                            rf"\(and {m - _MAX_LISTED} more\)\. Each pair"):
        first, given_index = Constraints._merge_duplicates(arr, np.full(2 * m, ML, dtype=np.int8), row_name, True)
    assert first.tolist() == list(range(m)) and given_index.tolist() == list(range(m)) * 2
    assert len(named) == 2 * _MAX_LISTED
    named.clear()
    kinds = np.repeat(np.array([ML, CL], dtype=np.int8), m)
    with pytest.raises(ConflictingConstraintError,
                       match=rf"pair \(0, {m}\) is must-link in row 0 and cannot-link in row {m}, .* "
                             rf"\(and {m - _MAX_LISTED} more\)\. Remove one of each pair\.$"):
        Constraints._merge_duplicates(arr, kinds, row_name, True)
    assert len(named) == 2 * _MAX_LISTED


def test_rows_text():
    def name(r):
        return f"ml[{r}]"

    for count in range(1, 11):
        rows = np.arange(0, 3 * count, 3)
        assert _rows_text(rows, name) == " = ".join(name(r) for r in rows.tolist())
    assert _rows_text(np.arange(30), name) == (
        "ml[0] = ml[1] = ml[2] = ml[3] = ... = ml[26] = ml[27] = ml[28] = ml[29] (30 rows in all)")


def test_a_pair_given_many_times_is_named_by_its_first_and_last_rows():
    with pytest.warns(DuplicateConstraintWarning,
                      match=r"^1000 duplicate constraint row\(s\) merged: ml\[0\] = ml\[1\] = ml\[2\] = ml\[3\] = \.\.\. = "
                            r"ml\[997\] = ml\[998\] = ml\[999\] = ml\[1000\] \(1001 rows in all\)\. Each pair") as info:
        cons = Constraints.from_pairs(ml=[(0, 1)] * 1001, n_samples=2)
    assert len(str(info[0].message)) < 400
    assert len(cons) == 1 and cons.n_given == 1001


# ----------------------------------------------------------------------------- short messages
def test_a_cannot_link_closing_a_long_chain_names_its_ends_and_keeps_the_whole_chain():
    n = 1000
    ml = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    cons = Constraints.from_pairs(ml, [(0, n - 1)], n_samples=n)
    with pytest.raises(InfeasibleConstraintsError,
                       match=r"^Cannot-link \(0, 999\) \[cl\[0\]\] joins .* through the chain 0 - 1 - 2 - 3 - \.\.\. - "
                             r"996 - 997 - 998 - 999 \(1000 objects in all\)\. Remove the cannot-link") as info:
        _ = cons.closure
    assert len(str(info.value)) < 300
    assert info.value.certificate == list(range(n))
    report = check_feasibility(cons, 2)
    assert report.status == "infeasible" and report.certificate == list(range(n)) and len(report.reason) < 300


def test_a_short_chain_is_still_spelt_out():
    ml = np.column_stack([np.arange(9), np.arange(1, 10)])
    with pytest.raises(InfeasibleConstraintsError, match=r"chain 0 - 1 - 2 - 3 - 4 - 5 - 6 - 7 - 8 - 9\. Remove"):
        _ = Constraints.from_pairs(ml, [(0, 9)], n_samples=10).closure


def test_a_long_odd_cycle_is_named_by_its_first_and_last_objects():
    n = 101
    cl = np.column_stack([np.arange(n), (np.arange(n) + 1) % n])
    report = check_feasibility(Constraints.from_pairs(cl=cl, n_samples=n), 2)
    assert report.status == "infeasible" and len(report.certificate) == n
    assert sorted(report.certificate) == list(range(n))
    assert re.fullmatch(r"Objects \[(\d+, ){4}\.\.\., (\d+, ){3}\d+\] form a cycle of 101 cannot-links .*", report.reason)
    assert len(report.reason) < 300


def test_subset_names_a_few_of_many_bad_indices():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], n_samples=3)
    with pytest.raises(InvalidParameterError,
                       match=r"indices must be positions in 0\.\.1 \(or a boolean mask\), got "
                             r"\[0, 1, 2, 3, \.\.\., 9996, 9997, 9998, 9999\] \(10000 values\)\.$"):
        cons.subset(np.arange(10_000))
    with pytest.raises(InvalidParameterError, match=r"got \[0, 5\]\.$"):
        cons.subset([0, 5])


# ----------------------------------------------------------------------------- matrix files
def _old_matrix_fields(text, delimiter):
    """The row splitting before the regular expression was spared on plain rows."""
    if delimiter is not None and delimiter.isspace():
        return text.split()
    if delimiter is None or delimiter not in text:
        return _MATRIX_SEPARATORS.split(re.sub(r"\s*[,;]$", "", text))
    return [field.strip() for field in text.removesuffix(delimiter).split(delimiter)]


@given(st.text(alphabet="01-,; \t\u00a0.x", min_size=1, max_size=24).map(str.strip).filter(bool),
       st.sampled_from([None, ",", ";", " ", "|"]))
@SETTINGS
def test_matrix_rows_split_as_before(text, delimiter):
    assert _matrix_fields(text, delimiter) == _old_matrix_fields(text, delimiter)


def _sparse_matrix_file(path, n):
    matrix = np.zeros((n, n), dtype=int)
    matrix[0, 1] = matrix[1, 0] = 1
    matrix[2, 5] = -1
    np.savetxt(path, matrix, fmt="%d", delimiter=",")
    return path


def test_a_matrix_file_is_read_without_holding_the_matrix(tmp_path):
    # Python lists of floats took about 46 bytes an entry (4.6 GiB for 10,000 x 10,000); only
    # the nonzero entries are kept now, so the peak is a few rows' worth.
    n = 300
    path = _sparse_matrix_file(tmp_path / "m.csv", n)
    tracemalloc.start()
    try:
        cons = Constraints.from_matrix_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[2, 5]] and cons.n_samples == n
    assert peak < 8 * n * n  # less than the matrix as float64


def test_a_matrix_file_within_the_budget_as_entries_is_read_whatever_its_size(tmp_path):
    n = 300
    path = _sparse_matrix_file(tmp_path / "m.csv", n)
    with ccopt.config_context(max_dense_bytes=n * n // 2):  # less than the matrix as int8
        cons = Constraints.from_matrix_file(path)
    assert len(cons) == 2 and cons.n_samples == n


def test_a_matrix_file_with_more_entries_than_the_budget_is_refused(tmp_path):
    path = tmp_path / "full.txt"
    np.savetxt(path, -np.ones((40, 40)) + 2 * np.eye(40), fmt="%d")
    with ccopt.config_context(max_dense_bytes=10_000), pytest.raises(
            MemoryBudgetError,
            match=r"^The list of nonzero entries \(row, column, value\) read from the 40-column constraint matrix "
                  rf"{re.escape(str(path))} by line 11 \(440 x 3\) needs 10\.31 KiB, more than the configured "
                  r"bound of 9\.77 KiB\. Give the constraints as i,j,kind rows") as info:
        Constraints.from_matrix_file(path)
    assert str(path) in info.value.summary and "set_config" not in info.value.summary
    assert len(Constraints.from_matrix_file(path)) == 40 * 39 // 2


def test_a_matrix_file_that_is_not_square_is_named(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("0 1 0\n1 0 0\n")
    with pytest.raises(ccopt.DataFormatError,
                       match=r"m\.txt: A constraint matrix must be square \(n x n\), got shape \(2, 3\)\.$"):
        Constraints.from_matrix_file(path)


def test_many_bad_matrix_values_are_counted_not_all_named(tmp_path):
    path = tmp_path / "m.txt"
    np.savetxt(path, np.full((30, 30), 2) - np.eye(30, dtype=int), fmt="%d")
    with pytest.raises(ccopt.DataFormatError,
                       match=r"found entry \(0, 1\) = 2\.0 on line 1, .*, entry \(0, 5\) = 2\.0 on line 1 "
                             r"\(and 865 more\)\.$"):
        Constraints.from_matrix_file(path)
