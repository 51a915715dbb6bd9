"""Tests of ccopt.constraints: construction, validation, closure, feasibility, violations."""

from __future__ import annotations

import csv
import itertools
import pickle
import re
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt.constraints import CL, ML, Constraints, as_constraints, check_feasibility
from ccopt.exceptions import (
    ConflictingConstraintError,
    DataFormatError,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- helpers
def canonical(pairs, kinds) -> set[tuple[int, int, int]]:
    return {(min(int(i), int(j)), max(int(i), int(j)), int(k)) for (i, j), k in zip(pairs, kinds, strict=True)}


def write_csv(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        if header is not None:
            writer.writerow(header)
        writer.writerows(rows)
    return path


@st.composite
def constraint_graphs(draw, max_n=12, max_edges=20):
    """A number of objects and distinct random pairs with random kinds (no conflicts)."""
    n = draw(st.integers(2, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                          .filter(lambda e: e[0] != e[1]), max_size=max_edges))
    seen, pairs = set(), []
    for i, j in edges:
        key = (min(i, j), max(i, j))
        if key not in seen:
            seen.add(key)
            pairs.append((i, j))
    kinds = draw(st.lists(st.sampled_from([ML, CL]), min_size=len(pairs), max_size=len(pairs)))
    return n, pairs, kinds


# ----------------------------------------------------------------------------- construction
def test_from_pairs_keeps_order_and_orientation():
    cons = Constraints.from_pairs(ml=[(3, 1), (0, 2)], cl=[(4, 0)], n_samples=5)
    assert cons.pairs.tolist() == [[3, 1], [0, 2], [4, 0]]
    assert cons.kinds.tolist() == [ML, ML, CL]
    assert cons.kind_names.tolist() == ["ML", "ML", "CL"]
    assert (cons.n_ml, cons.n_cl, len(cons), cons.n_given) == (2, 1, 3, 3)
    assert cons.ml_pairs.tolist() == [[3, 1], [0, 2]]
    assert cons.cl_pairs.tolist() == [[4, 0]]
    assert cons.row_name(2) == "cl[0]"
    assert not cons.pairs.flags.writeable


def test_from_pairs_weights_and_hard_per_kind():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(2, 3)], ml_weights=[0.5, 2.0], cl_hard=True)
    assert cons.weights.tolist() == [0.5, 2.0, 1.0]
    assert cons.hard.tolist() == [False, False, True]


def test_generic_constructor_accepts_kind_words():
    cons = Constraints([(0, 1), (1, 2), (2, 3), (3, 4)], ["ML", "cannot-link", 1, "-1"], n_samples=5)
    assert cons.kinds.tolist() == [ML, CL, ML, CL]


def test_empty_constraints():
    cons = Constraints.empty(4)
    assert len(cons) == 0 and cons.n_samples == 4
    assert cons.violations([0, 1, 0, 1]).total == 0
    assert cons.closure.n_super == 4
    assert len(Constraints.from_pairs(ml=[], cl=None, n_samples=3)) == 0


@given(constraint_graphs())
@SETTINGS
def test_order_preserved_for_distinct_pairs(graph):
    n, pairs, kinds = graph
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    assert cons.pairs.tolist() == [list(p) for p in pairs]
    assert cons.kinds.tolist() == list(kinds)
    assert cons.given_index.tolist() == list(range(len(pairs)))


def test_from_labels_kinds_follow_ground_truth():
    labels = np.array([0, 0, 1, 1, 2])
    cons = Constraints.from_labels(labels, [(0, 1), (1, 2), (3, 2), (4, 0)])
    assert cons.kinds.tolist() == [ML, CL, ML, CL]
    assert cons.n_samples == 5
    assert cons.is_correct(labels).all()


def test_from_labels_rejects_index_beyond_labels():
    with pytest.raises(InvalidConstraintError, match=r"out of range for 3 labels in row 1 = \(0, 3\)"):
        Constraints.from_labels([0, 1, 1], [(0, 1), (0, 3)])


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"ml": [(0, 1), (1.5, 2)]}, InvalidConstraintError, r"non-integer values in ml\[1\] = \(1\.5, 2\.0\)"),
        ({"cl": [(0, np.nan)]}, InvalidConstraintError, r"non-integer values in cl\[0\]"),
        ({"cl": [(0, 1), (-1, 2)]}, InvalidConstraintError, r"negative object indices in cl\[1\] = \(-1, 2\)"),
        ({"ml": [(0, 7)], "n_samples": 5}, InvalidConstraintError,
         r"out of range for n_samples=5 \(valid 0\.\.4\) in ml\[0\] = \(0, 7\)"),
        ({"ml": [(0, 1)], "cl": [(2, 2)]}, InvalidConstraintError, r"self-pairs i == j in cl\[0\] = \(2, 2\)"),
        ({"ml": [(0, 1, 2)]}, InvalidConstraintError, r"ml must have shape \(m, 2\).*\(1, 3\)"),
        ({"ml": [("a", "b")]}, InvalidConstraintError, r"ml must hold integer object indices, got dtype <U1"),
        ({"ml": [(0, 1), (1, 2)], "ml_weights": [1.0, -2.0]}, InvalidConstraintError,
         r"weights must be finite and >= 0; bad values in ml\[1\] = -2\.0"),
        ({"ml": [(0, 1)], "ml_weights": [np.inf]}, InvalidConstraintError, r"weights must be finite"),
        ({"ml": [(0, 1), (1, 2)], "ml_weights": [1.0]}, InvalidConstraintError,
         r"ml_weights must have one value per pair \(2\), got 1"),
        ({"ml": [(0, 1)], "ml_hard": ["yes"]}, InvalidConstraintError, r"hard must be booleans"),
        ({"ml": [(0, 1)], "n_samples": 0}, InvalidParameterError, r"n_samples must be >= 1"),
    ],
)
def test_validation_errors_name_the_rows(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        Constraints.from_pairs(**kwargs)


def test_indices_beyond_int64_do_not_wrap_around():
    with pytest.raises(InvalidConstraintError, match=r"too large in magnitude to be row numbers in ml\[1\] = \(0\.0, 1e\+20\)"):
        Constraints.from_pairs(ml=[(0, 1), (0, 1e20)])
    with pytest.raises(InvalidConstraintError, match="too large in magnitude"):
        Constraints.from_pairs(cl=np.array([[0, 2**63]], dtype=np.uint64))


def test_ragged_pairs_are_an_invalid_constraint():
    with pytest.raises(InvalidConstraintError, match=r"could not be read|must have shape"):
        Constraints.from_pairs(ml=[(0, 1), (2,)])


def test_many_bad_rows_are_summarised():
    with pytest.raises(InvalidConstraintError, match=r"ml\[4\] = \(4, 4\) \(and 2 more\)"):
        Constraints.from_pairs(ml=[(i, i) for i in range(7)])


def test_unknown_kind_and_kind_count():
    with pytest.raises(InvalidConstraintError, match=r"Unknown constraint kind 'XL' in row 1"):
        Constraints([(0, 1), (1, 2)], ["ML", "XL"])
    with pytest.raises(InvalidConstraintError, match=r"kinds must have one entry per pair \(2\), got 1"):
        Constraints([(0, 1), (1, 2)], ["ML"])


@pytest.mark.parametrize("cl_pair", [(1, 2), (2, 1)])
def test_pair_both_ml_and_cl_is_a_conflict(cl_pair):
    with pytest.raises(ConflictingConstraintError,
                       match=r"pair \(1, 2\) is must-link in ml\[1\] and cannot-link in cl\[0\]"):
        Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[cl_pair])


def test_duplicates_merged_with_warning_and_mapped_back():
    with pytest.warns(DuplicateConstraintWarning, match=r"2 duplicate constraint row\(s\) merged: ml\[0\] = ml\[2\] = ml\[3\]"
                      r"\. Each pair is one constraint: violation counts and penalties count it once, the largest "
                      r"weight given holds, and the pair is hard if any row is; impact scores still give every "
                      r"row you gave its own line\."):
        cons = Constraints.from_pairs(ml=[(0, 1), (2, 3), (1, 0), (0, 1)], cl=[(1, 2)],
                                      ml_weights=[1.0, 1.0, 3.0, 0.5], ml_hard=[False, False, False, True])
    assert cons.pairs.tolist() == [[0, 1], [2, 3], [1, 2]]
    # As the warning says: a violated merged pair is counted once.
    assert cons.violations(np.array([0, 1, 1, 1])).n_ml == 1
    assert cons.n_given == 5
    assert cons.given_index.tolist() == [0, 1, 0, 0, 2]
    # the merged row keeps the largest weight and is hard if any copy was
    assert cons.weights.tolist() == [3.0, 1.0, 1.0]
    assert cons.hard.tolist() == [True, False, False]
    per_constraint = np.array([10.0, 20.0, 30.0])
    assert cons.to_given(per_constraint).tolist() == [10.0, 20.0, 10.0, 10.0, 30.0]
    with pytest.raises(InvalidParameterError, match=r"one value per constraint \(3\), got 5"):
        cons.to_given(np.zeros(5))


@given(constraint_graphs(max_n=8, max_edges=10), st.data())
@SETTINGS
def test_duplicates_keep_first_occurrence_order(graph, data):
    n, pairs, kinds = graph
    if not pairs:
        return
    repeats = data.draw(st.lists(st.integers(0, len(pairs) - 1), max_size=6))
    rows = pairs + [pairs[r][::-1] for r in repeats]
    row_kinds = list(kinds) + [kinds[r] for r in repeats]
    order = data.draw(st.permutations(range(len(rows))))
    rows = [rows[o] for o in order]
    row_kinds = [row_kinds[o] for o in order]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateConstraintWarning)
        cons = Constraints(np.array(rows).reshape(-1, 2), row_kinds, n_samples=n)
    first = {}
    for r, (i, j) in enumerate(rows):
        first.setdefault((min(i, j), max(i, j)), r)
    expected = sorted(first.values())
    assert cons.pairs.tolist() == [list(rows[r]) for r in expected]
    # every given row maps to the merged constraint with the same pair and kind
    for r, (i, j) in enumerate(rows):
        m = cons.given_index[r]
        assert sorted(cons.pairs[m].tolist()) == sorted((i, j))
        assert cons.kinds[m] == row_kinds[r]


# ----------------------------------------------------------------------------- from_matrix
def test_from_matrix_reads_both_triangles():
    mat = np.eye(5)
    mat[0, 1] = mat[1, 0] = 1      # ML stored symmetrically
    mat[3, 2] = -1                  # CL only below the diagonal
    mat[1, 4] = -1                  # CL only above the diagonal
    cons = Constraints.from_matrix(mat)
    assert cons.pairs.tolist() == [[0, 1], [1, 4], [2, 3]]
    assert cons.kinds.tolist() == [ML, CL, CL]
    assert cons.n_samples == 5
    sparse = Constraints.from_matrix(sp.csr_matrix(mat))
    assert sparse.pairs.tolist() == cons.pairs.tolist() and sparse.kinds.tolist() == cons.kinds.tolist()


def test_a_pair_stored_in_both_triangles_is_one_given_constraint():
    # Two pairs, one symmetric: two scores to report, not three (n_given counted the mirror).
    mat = np.zeros((4, 4))
    mat[3, 1] = mat[1, 3] = 1
    mat[2, 0] = -1
    for matrix in (mat, sp.csr_matrix(mat), sp.csc_matrix(mat)):
        cons = Constraints.from_matrix(matrix)
        assert cons.n_given == 2 and len(cons) == 2
        assert [cons.row_name(r) for r in range(2)] == ["entry (2, 0)", "entry (1, 3)"]


def test_from_matrix_errors():
    with pytest.raises(InvalidConstraintError, match=r"must be square \(n x n\), got shape \(2, 3\)"):
        Constraints.from_matrix(np.zeros((2, 3)))
    bad = np.zeros((3, 3))
    bad[0, 2] = 2
    with pytest.raises(InvalidConstraintError, match=r"values must be 1 \(ML\), -1 \(CL\) or 0; found entry \(0, 2\) = 2\.0"):
        Constraints.from_matrix(bad)
    clash = np.zeros((3, 3))
    clash[0, 1], clash[1, 0] = 1, -1
    with pytest.raises(ConflictingConstraintError, match=r"pair \(0, 1\) is must-link in entry \(0, 1\) and cannot-link in entry \(1, 0\)"):
        Constraints.from_matrix(clash)


@pytest.mark.parametrize("name", ["CS5", "CS10", "CS15", "CS20"])
def test_from_matrix_loses_nothing_on_published_cs_sets(datasets_dir, name):
    """Rebuild the BH-kmeans matrix layout (ML both triangles, CL lower only, 1 on the diagonal)."""
    path = datasets_dir / "iris_keel" / f"constraints_{name}.csv"
    published = Constraints.from_csv(path, n_samples=150)
    mat = np.eye(150)
    for (i, j), kind in zip(published.pairs, published.kinds, strict=True):
        lo, hi = min(i, j), max(i, j)
        if kind == ML:
            mat[lo, hi] = mat[hi, lo] = 1
        else:
            mat[hi, lo] = -1
    assert np.count_nonzero(np.triu(mat, 1) == -1) == 0  # a one-triangle reader would see no CL
    cons = Constraints.from_matrix(mat)
    assert canonical(cons.pairs, cons.kinds) == canonical(published.pairs, published.kinds)
    assert (cons.n_ml, cons.n_cl) == (published.n_ml, published.n_cl)
    assert cons.n_cl > 0


def test_from_matrix_file(tmp_path):
    mat = np.eye(4)
    mat[0, 3] = mat[3, 0] = 1
    mat[2, 1] = -1
    path = tmp_path / "cs.txt"
    np.savetxt(path, mat, fmt="%d")
    cons = Constraints.from_matrix_file(path)
    assert canonical(cons.pairs, cons.kinds) == {(0, 3, ML), (1, 2, CL)}
    path.write_text("1 0 0\n0 1\n0 0 1\n")
    with pytest.raises(DataFormatError, match=r"cs\.txt:2: expected 3 values like the first row, got 2"):
        Constraints.from_matrix_file(path)
    path.write_text("1 0 x\n")
    with pytest.raises(DataFormatError, match=r"cs\.txt:1: non-numeric value"):
        Constraints.from_matrix_file(path)
    path.write_text("")
    with pytest.raises(DataFormatError, match="constraint matrix file is empty"):
        Constraints.from_matrix_file(path)
    with pytest.raises(DataFormatError, match="cannot read file"):
        Constraints.from_matrix_file(tmp_path / "missing.txt")


# Blank lines are skipped, so matrix row r need not be line r + 1; the messages named the entry
# alone and left the user to count rows.
@pytest.mark.parametrize(("text", "error", "message"), [
    ("1,0,0\n\n0,-1,0\n0,0,1\n", DataFormatError,
     r"cs\.txt: .*diagonal.* found entry \(1, 1\) = -1\.0 on line 3\.$"),
    ("1,2,0\n\n\n2,1,0\n0,0,1\n", DataFormatError,
     r"found entry \(0, 1\) = 2\.0 on line 1, entry \(1, 0\) = 2\.0 on line 4\."),
    ("1,1,-1\n\n1,1,0\n1,0,1\n", ConflictingConstraintError,
     r"must-link in entry \(2, 0\) on line 4 and cannot-link in entry \(0, 2\) on line 1"),
])
def test_matrix_file_errors_name_the_line_of_each_entry(tmp_path, text, error, message):
    path = tmp_path / "cs.txt"
    path.write_text(text)
    with pytest.raises(error, match=message):
        Constraints.from_matrix_file(path)


def test_matrix_file_row_names_give_lines(tmp_path):
    path = tmp_path / "cs.txt"
    path.write_text("1,1,-1\n1,1,1\n\n-1,1,1\n")
    cons = Constraints.from_matrix_file(path)
    assert [cons.row_name(r) for r in range(len(cons))] == [
        "entry (0, 1) on line 1", "entry (0, 2) on line 1", "entry (1, 2) on line 2"]
    # An array in memory has no lines.
    assert Constraints.from_matrix(np.loadtxt(path, delimiter=",")).row_name(0) == "entry (0, 1)"


# ----------------------------------------------------------------------------- CSV
def test_csv_round_trip(tmp_path):
    cons = Constraints.from_pairs(ml=[(0, 1), (4, 2)], cl=[(1, 3)], ml_weights=[0.25, 2.0], cl_hard=True,
                                  n_samples=5)
    path = tmp_path / "cons.csv"
    cons.to_csv(path)
    back = Constraints.from_csv(path, n_samples=5)
    assert back.pairs.tolist() == cons.pairs.tolist()
    assert back.kinds.tolist() == cons.kinds.tolist()
    assert back.weights.tolist() == cons.weights.tolist()
    assert back.hard.tolist() == cons.hard.tolist()
    assert back.row_name(1).endswith("cons.csv line 3")


@pytest.mark.parametrize(
    ("header", "rows", "pattern"),
    [
        (None, [], r"x\.csv:1: the file is empty"),
        (["a", "b", "kind"], [], r"x\.csv:1: header .* lacks column\(s\) \['i', 'j'\]"),
        (["i", "j", "kind"], [[0, 1, "ML"], [1, 2]], r"x\.csv:3: expected 3 fields, got 2"),
        (["i", "j", "kind"], [[0, "one", "ML"]], r"x\.csv:2: indices must be integers, got i='0', j='one'"),
        (["i", "j", "kind"], [[0, 1, "ML"], [1, 2, "maybe"]], r"x\.csv:3: Unknown constraint kind 'maybe'"),
        (["i", "j", "kind", "weight"], [[0, 1, "ML", "heavy"]], r"x\.csv:2: weight must be a number, got 'heavy'"),
        (["i", "j", "kind", "hard"], [[0, 1, "ML", "perhaps"]], r"x\.csv:2: hard must be true/false or 1/0"),
        (["i", "j", "kind"], [[0, 1, "ML"], [3, 3, "CL"]], r"x\.csv:3: .*self-pairs i == j: \(3, 3\)\.$"),
        (["i", "j", "kind"], [[0, 9, "ML"]], r"x\.csv:2: .*out of range for n_samples=5 \(valid 0\.\.4\): \(0, 9\)"),
        (["i", "j", "kind"], [[0, 1, "ML"], [-1, 2, "CL"]], r"x\.csv:3: negative object indices: \(-1, 2\); indices are 0-based\."),
        (["i", "j", "kind", "weight"], [[0, 1, "ML", 1], [0, 2, "CL", -1]], r"x\.csv:3: weights must be finite"),
    ],
)
def test_csv_errors_name_file_and_line(tmp_path, header, rows, pattern):
    path = write_csv(tmp_path / "x.csv", header, rows)
    with pytest.raises(DataFormatError, match=pattern) as caught:
        Constraints.from_csv(path, n_samples=5)
    # The line is an attribute as well as part of the message (it was None for the checks that
    # run on the whole set: range, self-pairs, weights).
    assert caught.value.line == int(re.search(r"x\.csv:(\d+):", str(caught.value)).group(1))


def test_csv_conflict_stays_a_conflict(tmp_path):
    path = write_csv(tmp_path / "x.csv", ["i", "j", "kind"], [[0, 1, "ML"], [1, 0, "CL"]])
    with pytest.raises(ConflictingConstraintError, match=r"must-link in .*x\.csv line 2 and cannot-link in .*x\.csv line 3"):
        Constraints.from_csv(path)


def test_csv_byte_order_mark_and_bad_encoding(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("i,j,kind\r\n0,1,ML\r\n".encode("utf-8-sig"))
    assert Constraints.from_csv(path).pairs.tolist() == [[0, 1]]
    path.write_bytes(b"i,j,kind\n0,1,\xff\n")
    with pytest.raises(DataFormatError, match=r"excel\.csv:2: not a UTF-8 text file"):
        Constraints.from_csv(path)


def test_csv_missing_file(tmp_path):
    with pytest.raises(DataFormatError, match="cannot read file"):
        Constraints.from_csv(tmp_path / "absent.csv")


def test_csv_duplicates_warn(tmp_path):
    path = write_csv(tmp_path / "x.csv", ["i", "j", "kind"], [[0, 1, "ML"], [2, 3, "CL"], [1, 0, "ML"]])
    with pytest.warns(DuplicateConstraintWarning, match=r"x\.csv line 2 = .*x\.csv line 4"):
        cons = Constraints.from_csv(path)
    assert len(cons) == 2 and cons.n_given == 3


# ----------------------------------------------------------------------------- n_samples, subset
def test_with_n_samples_and_as_constraints():
    cons = Constraints.from_pairs(ml=[(0, 4)])
    assert cons.n_samples is None
    bound = cons.with_n_samples(5)
    assert bound.n_samples == 5 and bound.pairs.tolist() == [[0, 4]]
    assert bound.with_n_samples(5) is bound
    with pytest.raises(InvalidConstraintError, match=r"out of range for n_samples=4 .* ml\[0\] = \(0, 4\)"):
        cons.with_n_samples(4)
    with pytest.raises(InvalidConstraintError, match="built for n_samples=5, but the data has 6 rows"):
        bound.with_n_samples(6)
    with pytest.raises(InvalidParameterError, match=r"closure needs n_samples; build the constraints with n_samples=\.\.\."):
        _ = cons.closure
    assert as_constraints(ml=[(0, 1)], cl=[(1, 2)], n_samples=3).n_cl == 1
    assert as_constraints(None, n_samples=3).n_samples == 3
    with pytest.raises(InvalidParameterError, match="not both"):
        as_constraints(bound, ml=[(0, 1)], n_samples=5)
    with pytest.raises(InvalidParameterError, match=r"must be a ccopt\.Constraints object, got list"):
        as_constraints([(0, 1)], n_samples=5)


def test_subset():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(2, 3)], n_samples=4)
    sub = cons.subset([2, 0])
    assert sub.pairs.tolist() == [[2, 3], [0, 1]]
    assert sub.kinds.tolist() == [CL, ML]
    assert sub.row_name(0) == "cl[0]"
    assert cons.subset(cons.cl_mask).pairs.tolist() == [[2, 3]]
    with pytest.raises(InvalidParameterError, match=r"indices must be positions in 0\.\.2"):
        cons.subset([0, 3])


# ----------------------------------------------------------------------------- violations
@given(constraint_graphs(), st.data())
@SETTINGS
def test_violations_against_a_loop(graph, data):
    n, pairs, kinds = graph
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    labels = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).integers(0, 4, size=n)
    report = cons.violations(labels)
    expected = [(labels[i] == labels[j]) != (k == ML) for (i, j), k in zip(pairs, kinds, strict=True)]
    assert report.violated.tolist() == expected
    assert report.n_ml == sum(v for v, k in zip(expected, kinds, strict=True) if k == ML)
    assert report.n_cl == sum(v for v, k in zip(expected, kinds, strict=True) if k == CL)
    assert report.total == sum(expected)
    assert report.ml_violated.tolist() == [p for p, (v, k) in enumerate(zip(expected, kinds, strict=True)) if v and k == ML]
    assert report.cl_violated.tolist() == [p for p, (v, k) in enumerate(zip(expected, kinds, strict=True)) if v and k == CL]
    assert (cons.satisfied(labels) == ~np.array(expected, dtype=bool)).all()


def test_violations_label_length_checked():
    cons = Constraints.from_pairs(ml=[(0, 4)])
    with pytest.raises(InvalidParameterError, match="labels has 3 entries but a constraint refers to object 4"):
        cons.violations([0, 0, 1])
    with pytest.raises(InvalidParameterError, match="labels has 6 entries, expected n_samples=5"):
        cons.with_n_samples(5).violations(np.zeros(6))


# ----------------------------------------------------------------------------- closure
@given(constraint_graphs(max_n=15, max_edges=25))
@SETTINGS
def test_closure_matches_networkx(graph):
    n, pairs, _ = graph
    cons = Constraints.from_pairs(ml=np.array(pairs, dtype=np.int64).reshape(-1, 2), n_samples=n)
    closure = cons.closure
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(pairs)
    expected = {frozenset(c) for c in nx.connected_components(g)}
    got = {frozenset(closure.members(s).tolist()) for s in range(closure.n_super)}
    assert got == expected
    assert closure.n_super == len(expected)
    assert closure.sizes.tolist() == [len(closure.members(s)) for s in range(closure.n_super)]
    # canonical numbering: super-instances in order of their smallest member
    smallest = [int(closure.members(s).min()) for s in range(closure.n_super)]
    assert smallest == sorted(smallest)
    # idempotent: the ML pairs implied by the closure (a star per component) give the same partition
    implied = [(int(m[0]), int(o)) for s in range(closure.n_super) for m in [closure.members(s)] for o in m[1:]]
    again = Constraints.from_pairs(ml=np.array(implied, dtype=np.int64).reshape(-1, 2), n_samples=n).closure
    assert again.component.tolist() == closure.component.tolist()
    assert closure.expand(np.arange(closure.n_super)).tolist() == closure.component.tolist()


@given(constraint_graphs(max_n=12, max_edges=12), st.integers(0, 2**32 - 1))
@SETTINGS
def test_super_instances_against_a_loop(graph, seed):
    n, pairs, _ = graph
    cons = Constraints.from_pairs(ml=np.array(pairs, dtype=np.int64).reshape(-1, 2), n_samples=n)
    closure = cons.closure
    gen = np.random.default_rng(seed)
    X = gen.normal(0, 50, size=(n, 2))
    w = gen.uniform(0.1, 10, size=n)
    centers, weights = closure.super_instances(X, w)
    plain_centers, plain_weights = closure.super_instances(X)
    for s in range(closure.n_super):
        members = [i for i in range(n) if closure.component[i] == s]
        total = sum(w[i] for i in members)
        mean = sum(w[i] * X[i] for i in members) / total
        assert weights[s] == pytest.approx(total)
        np.testing.assert_allclose(centers[s], mean, rtol=1e-9, atol=1e-9)
        assert plain_weights[s] == len(members)
        np.testing.assert_allclose(plain_centers[s], X[members].mean(axis=0), rtol=1e-9, atol=1e-9)


def test_super_instances_shape_checked():
    closure = Constraints.from_pairs(ml=[(0, 1)], n_samples=3).closure
    with pytest.raises(InvalidDataError, match="X has 4 rows, expected n_samples=3"):
        closure.super_instances(np.zeros((4, 2)))
    with pytest.raises(InvalidDataError, match=r"sample_weight must have shape \(3,\)"):
        closure.super_instances(np.zeros((3, 2)), np.ones(2))


def test_closure_maps_cannot_links_onto_super_instances():
    cons = Constraints.from_pairs(ml=[(0, 1), (3, 4)], cl=[(1, 4), (2, 0)], n_samples=5)
    closure = cons.closure
    assert closure.component.tolist() == [0, 0, 1, 2, 2]
    assert closure.cl_pairs.tolist() == [[0, 2], [1, 0]]


def test_cannot_link_inside_must_link_chain_is_infeasible():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (2, 3), (5, 6)], cl=[(4, 5), (3, 0)], n_samples=7)
    with pytest.raises(InfeasibleConstraintsError,
                       match=r"Cannot-link \(3, 0\) \[cl\[1\]\] .* chain 3 - 2 - 1 - 0") as info:
        _ = cons.closure
    assert info.value.certificate == [3, 2, 1, 0]


@given(constraint_graphs(max_n=10, max_edges=20))
@SETTINGS
def test_chain_certificate_is_a_must_link_path(graph):
    n, pairs, kinds = graph
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    ml_edges = {frozenset(p) for p, k in zip(pairs, kinds, strict=True) if k == ML}
    cl_edges = {frozenset(p) for p, k in zip(pairs, kinds, strict=True) if k == CL}
    try:
        _ = cons.closure
    except InfeasibleConstraintsError as exc:
        chain = exc.certificate
        assert frozenset((chain[0], chain[-1])) in cl_edges
        assert all(frozenset(e) in ml_edges for e in itertools.pairwise(chain))
    else:
        g = nx.Graph(list(ml_edges))
        for e in cl_edges:
            i, j = tuple(e)
            assert not (g.has_node(i) and g.has_node(j) and nx.has_path(g, i, j))


# ----------------------------------------------------------------------------- feasibility
def brute_force_feasible(n, pairs, kinds, k, max_size=None) -> bool:
    """Is there a labelling into exactly k non-empty clusters that satisfies every pair?"""
    labels = np.array(list(itertools.product(range(k), repeat=n)))
    ok = np.ones(labels.shape[0], dtype=bool)
    for (i, j), kind in zip(pairs, kinds, strict=True):
        same = labels[:, i] == labels[:, j]
        ok &= same if kind == ML else ~same
    counts = np.stack([(labels == c).sum(axis=1) for c in range(k)], axis=1)
    ok &= (counts > 0).all(axis=1)
    if max_size is not None:
        ok &= (counts <= max_size).all(axis=1)
    return bool(ok.any())


def check_clique_certificate(cons, certificate, k):
    closure = cons.closure
    comps = [int(closure.component[o]) for o in certificate]
    assert len(certificate) == k + 1 and len(set(comps)) == k + 1
    links = {frozenset(map(int, p)) for p in closure.cl_pairs}
    for a, b in itertools.combinations(comps, 2):
        assert frozenset((a, b)) in links


@given(constraint_graphs(max_n=7, max_edges=14), st.integers(1, 3), st.booleans())
@SETTINGS
def test_feasibility_reports_are_sound(graph, k, bounded):
    n, pairs, kinds = graph
    if k > n:
        return
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    max_size = -(-n // k) + 1 if bounded else None
    report = check_feasibility(cons, k, max_cluster_size=max_size)
    truth = brute_force_feasible(n, pairs, kinds, k, max_size)
    assert report.status in ("feasible", "infeasible", "unknown")
    if report.status == "feasible":
        assert report.feasible is True
        labels = report.labels
        assert cons.violations(labels).total == 0
        counts = np.bincount(labels, minlength=k)
        assert labels.min() >= 0 and labels.max() < k and (counts > 0).all()
        if max_size is not None:
            assert counts.max() <= max_size
    elif report.status == "infeasible":
        assert report.feasible is False
        assert not truth
        if report.certificate is not None and len(report.certificate) == k + 1 and "cannot-link each other" in report.reason:
            check_clique_certificate(cons, report.certificate, k)
        with pytest.raises(InfeasibleConstraintsError):
            report.raise_if_infeasible()
    else:
        assert report.feasible is None
    if truth:
        assert report.status != "infeasible"
    if truth and not bounded and _cannot_link_degeneracy(n, pairs, kinds) < k:
        # A smallest-last order colours a graph of degeneracy < k with at most k colours, so
        # "unknown" here would mean the greedy colourings were not tried (forests included).
        assert report.status == "feasible"


def _cannot_link_degeneracy(n, pairs, kinds) -> int:
    """Degeneracy of the cannot-link graph between must-link components (0 without edges)."""
    ml = nx.Graph()
    ml.add_nodes_from(range(n))
    ml.add_edges_from(p for p, kind in zip(pairs, kinds, strict=True) if kind == ML)
    component = {o: c for c, members in enumerate(nx.connected_components(ml)) for o in members}
    cl = nx.Graph()
    cl.add_edges_from((component[i], component[j]) for (i, j), kind in zip(pairs, kinds, strict=True)
                      if kind != ML and component[i] != component[j])
    return max(nx.core_number(cl).values(), default=0)


def test_clique_certificate_through_must_link_groups():
    # super-instances {0,1}, {2}, {3,4}, {5}: every pair of them cannot-linked, once each
    cons = Constraints.from_pairs(ml=[(0, 1), (3, 4)],
                                  cl=[(0, 2), (1, 3), (0, 5), (2, 4), (2, 5), (4, 5)], n_samples=6)
    report = check_feasibility(cons, 3)
    assert report.status == "infeasible"
    assert "4 objects need 4 clusters, only 3 allowed" in report.reason
    check_clique_certificate(cons, report.certificate, 3)
    assert not brute_force_feasible(6, [(0, 1), (3, 4), (0, 2), (1, 3), (0, 5), (2, 4), (2, 5), (4, 5)],
                                    [ML, ML] + [CL] * 6, 3)
    assert check_feasibility(cons, 4).status == "feasible"


def test_a_triangle_free_graph_needing_four_clusters_is_unknown_not_guessed():
    # The Groetzsch graph needs 4 colours but has no triangle: with k = 3 no cheap certificate
    # exists either way. (An odd cycle with k = 2, the earlier example, is now decided exactly.)
    edges = [tuple(sorted(e)) for e in nx.mycielski_graph(4).edges]
    cons = Constraints.from_pairs(cl=edges, n_samples=11)
    report = check_feasibility(cons, 3)
    assert not brute_force_feasible(11, edges, [CL] * len(edges), 3)
    assert report.status == "unknown" and report.feasible is None and report.labels is None
    report.raise_if_infeasible()  # unknown does not raise


def test_feasibility_other_certificates():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (3, 4)], n_samples=5)
    assert "into 2 groups; 3 non-empty clusters are impossible" in check_feasibility(cons, 3).reason
    big = check_feasibility(cons, 2, max_cluster_size=2)
    assert big.status == "infeasible" and big.certificate == [0, 1, 2]
    assert "exceeds the maximum cluster size 2" in big.reason
    assert check_feasibility(Constraints.empty(5), 2, max_cluster_size=2).status == "infeasible"
    inside = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(0, 2)], n_samples=4)
    report = check_feasibility(inside, 2)
    assert report.status == "infeasible" and report.certificate == [0, 1, 2]
    with pytest.raises(InvalidParameterError, match="needs constraints built with n_samples"):
        check_feasibility(Constraints.from_pairs(ml=[(0, 1)]), 2)
    with pytest.raises(InvalidParameterError, match="n_clusters must be >= 1"):
        check_feasibility(Constraints.empty(3), 0)


def test_float16_pairs_are_read_without_an_overflow_warning():
    # The check for indices beyond int64 cast 2**63 to float16, which overflows.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cons = Constraints.from_pairs(ml=np.array([(0, 1)], dtype=np.float16))
    assert cons.pairs.tolist() == [[0, 1]]


def test_complex_weights_are_refused_not_cut_to_their_real_part():
    with pytest.raises(InvalidConstraintError, match="weights must be real numbers, got dtype complex128"):
        Constraints.from_pairs(ml=[(0, 1)], ml_weights=1 + 2j)


@pytest.mark.parametrize(("given", "message"), [
    ({"ml_weights": "2"}, r"ml_weights must be real numbers, got dtype <U1"),
    ({"ml_hard": "no"}, r"ml_hard must be booleans"),
    ({"cl_weights": [1, -1]}, r"cl_weights must be finite and >= 0; bad values in cl\[1\] = -1\.0"),
    ({"cl_hard": [0, 2]}, r"cl_hard must be booleans"),
])
def test_from_pairs_names_the_per_kind_argument_that_is_wrong(given, message):
    # The messages said "weights" or "hard", names from_pairs does not take.
    with pytest.raises(InvalidConstraintError, match=message):
        Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2), (2, 3)], **given)


def test_kinds_given_as_integral_floats_are_the_codes():
    # Integral floats were accepted as indices but refused as kinds ("Unknown constraint kind 1.0").
    assert Constraints([(0, 1), (1, 2)], [1.0, -1.0]).kinds.tolist() == [ML, CL]
    with pytest.raises(InvalidConstraintError, match=r"Unknown constraint kind 0\.5 in row 1"):
        Constraints([(0, 1), (1, 2)], [1.0, 0.5])


def test_two_clusters_are_decided_exactly_with_an_odd_cycle_as_the_certificate():
    # An odd cannot-link cycle with k = 2 was "unknown" (no 3-clique), so COP-kmeans reported a
    # dead end where the impact score proved infeasibility.
    cycle = Constraints.from_pairs(cl=[(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)], n_samples=6)
    report = check_feasibility(cycle, 2)
    assert report.status == "infeasible" and sorted(report.certificate) == [0, 1, 2, 3, 4]
    certificate = report.certificate
    closing = set(map(frozenset, zip(certificate, certificate[1:] + certificate[:1], strict=True)))
    assert closing == {frozenset(p) for p in [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]}
    even = Constraints.from_pairs(cl=[(0, 1), (1, 2), (2, 3), (0, 3)], ml=[(4, 5)], n_samples=6)
    report = check_feasibility(even, 2)
    assert report.status == "feasible" and even.satisfied(report.labels).all()


def test_feasibility_verdicts_agree_with_enumeration_on_tiny_instances():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, k = int(rng.integers(2, 7)), int(rng.integers(1, 4))
        pairs = list(itertools.combinations(range(n), 2))
        chosen = [pairs[i] for i in rng.choice(len(pairs), size=int(rng.integers(0, min(7, len(pairs)) + 1)),
                                               replace=False)]
        kinds = np.where(rng.random(len(chosen)) < 0.3, ML, CL)
        try:
            cons = Constraints(np.array(chosen, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
        except InvalidConstraintError:
            continue
        labellings = np.array(list(itertools.product(range(k), repeat=n)))
        full = np.array([len(set(row)) == k for row in labellings])
        same = labellings[:, cons.pairs[:, 0]] == labellings[:, cons.pairs[:, 1]]
        holds = np.where(cons.kinds == ML, same, ~same).all(axis=1)
        exists = bool((full & holds).any())
        report = check_feasibility(cons, k)
        assert report.status != ("infeasible" if exists else "feasible")
        if k <= 2:
            assert report.status == ("feasible" if exists else "infeasible")


def test_given_pairs_keep_each_rows_orientation_through_copies_and_pickles():
    with pytest.warns(DuplicateConstraintWarning):
        cons = Constraints.from_pairs(ml=[(3, 5), (5, 3), (1, 2)], cl=[(0, 7), (7, 0)])
    given = [[3, 5], [5, 3], [1, 2], [0, 7], [7, 0]]
    assert cons.pairs.tolist() == [[3, 5], [1, 2], [0, 7]]
    assert cons.given_pairs.tolist() == given
    assert cons.with_n_samples(8).given_pairs.tolist() == given
    assert pickle.loads(pickle.dumps(cons)).given_pairs.tolist() == given
    # A subset is its own given rows, in the merged pairs' orientation.
    assert cons.subset([2, 0]).given_pairs.tolist() == [[0, 7], [3, 5]]
