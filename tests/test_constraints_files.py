"""Constraint matrices and files: ``from_matrix``, ``from_matrix_file``, ``from_csv`` and
``to_csv``, and the messages that name a bad entry by its file, line and value."""

from __future__ import annotations

import csv
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import ccopt
from ccopt.constraints import CL, ML, Constraints
from ccopt.exceptions import (
    ConflictingConstraintError,
    DataFormatError,
    DuplicateConstraintWarning,
    InvalidConstraintError,
)
from tests._constraint_matrix import matrix_text


def canonical(pairs, kinds) -> set[tuple[int, int, int]]:
    return {(min(int(i), int(j)), max(int(i), int(j)), int(k)) for (i, j), k in zip(pairs, kinds, strict=True)}


def write_csv(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        if header is not None:
            writer.writerow(header)
        writer.writerows(rows)
    return path


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


@pytest.mark.parametrize("value", [-1, 2, 0.5])
def test_a_constraint_matrix_diagonal_other_than_one_or_zero_is_refused(value):
    matrix = np.eye(3)
    matrix[1, 1] = value
    with pytest.raises(ccopt.InvalidConstraintError, match=r"diagonal .* found entry \(1, 1\)"):
        Constraints.from_matrix(matrix)
    assert len(Constraints.from_matrix(np.eye(3))) == 0


@pytest.mark.parametrize("matrix", [
    sp.csr_matrix(np.array([[0, 1], [0, 0]], dtype=bool)),
    sp.csr_matrix(np.array([[0, 1], [0, 0]], dtype=complex)),
    np.array([[0, 1], [0, 0]], dtype=complex),
    np.array([[0, 1], [0, 0]], dtype=bool),
])
def test_constraint_matrices_of_bool_or_complex_dtype_are_refused_dense_or_sparse(matrix):
    with pytest.raises(InvalidConstraintError, match=r"constraint matrix must be numeric \(1, -1, 0\), got dtype"):
        Constraints.from_matrix(matrix)


def test_a_sparse_matrix_storing_a_cell_twice_is_refused():
    # +1 (ML) and -1 (CL) on cell (0, 1) used to add up to 0: the pair vanished.
    cancelling = sp.coo_matrix(([1, -1], ([0, 0], [1, 1])), shape=(3, 3))
    with pytest.raises(ccopt.InvalidConstraintError, match=r"\(0, 1\) x2"):
        ccopt.Constraints.from_matrix(cancelling)
    mirrored = sp.csr_matrix(([1, 1, -1], ([0, 1, 2], [1, 0, 0])), shape=(3, 3))
    assert len(ccopt.Constraints.from_matrix(mirrored)) == 2


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


# ----------------------------------------------------------------------------- from_matrix_file
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


def test_a_contradiction_in_a_matrix_file_is_a_conflicting_constraint_error(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("0 1\n-1 0\n")
    with pytest.raises(ConflictingConstraintError,
                       match=r"m\.txt: Contradictory constraints: pair \(0, 1\) is must-link in entry \(0, 1\) on line 1 "
                             r"and cannot-link in entry \(1, 0\) on line 2"):
        Constraints.from_matrix_file(path)


def test_a_matrix_file_with_a_byte_order_mark_is_read(tmp_path):
    # Spreadsheets write one; the first value was '\ufeff0' and the file was refused.
    path = tmp_path / "m.csv"
    path.write_bytes("0,1,-1\n1,0,0\n-1,0,0\n".encode("utf-8-sig"))
    cons = Constraints.from_matrix_file(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 2]]


def test_a_matrix_file_is_read_with_the_delimiter_given(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(matrix_text(" | "))
    hint = "The file seems to separate its fields with '|': pass delimiter='|' (command line: --delimiter '|')."
    with pytest.raises(DataFormatError, match=r"m\.csv:1: non-numeric value '\|' in constraint matrix row") as info:
        Constraints.from_matrix_file(path)
    assert str(info.value).endswith(hint)
    cons = Constraints.from_matrix_file(path, delimiter="|")
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]
    for separator in (" ; ", ";", ", ", "\t"):  # the default rule: commas, semicolons, whitespace
        path.write_text(matrix_text(separator))
        cons = Constraints.from_matrix_file(path)
        assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]
    path.write_text(matrix_text(";").replace("-1", "x", 1))
    with pytest.raises(DataFormatError, match=r"m\.csv:1: non-numeric value 'x'"):
        Constraints.from_matrix_file(path, delimiter=";")
    with pytest.raises(ccopt.InvalidParameterError, match="delimiter must be a single character, got ';;'"):
        Constraints.from_matrix_file(path, delimiter=";;")


def test_an_empty_matrix_value_is_named_and_a_whitespace_separator_counts_once(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("0;1;\n1;0;\n")  # a separator closing a row only ends it
    assert Constraints.from_matrix_file(path, delimiter=";").ml_pairs.tolist() == [[0, 1]]
    path.write_text("0;;1\n1;0;0\n0;0;0\n")
    with pytest.raises(DataFormatError, match=r"m\.csv:1: empty value in constraint matrix row '0;;1': two "
                                              r"separators \(';'\) in a row, or one at the start"):
        Constraints.from_matrix_file(path, delimiter=";")
    path.write_text("0  1   -1\n1  0    0\n-1 0    0\n")
    for separator in (" ", "\t"):
        cons = Constraints.from_matrix_file(path, delimiter=separator)
        assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 2]]


def test_an_empty_value_between_commas_is_named_not_merged(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("0,,1\n1,0,0\n")
    with pytest.raises(DataFormatError, match=r"m\.csv:1: empty value in constraint matrix row '0,,1': two "
                                              r"separators \(commas or semicolons\) in a row"):
        Constraints.from_matrix_file(path)
    path.write_text("0,1,-1,\n1 0 0 ,\n-1;0;0;\n")  # a closing separator, as rows written by a loop end
    cons = Constraints.from_matrix_file(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 2]]


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


def test_a_constraints_header_with_a_misspelt_column_is_refused_and_notes_are_not_read(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind,weigth\n0,1,ML,5\n0,3,CL,2\n")
    with pytest.raises(DataFormatError, match=r"c\.csv:1: the header names column\(s\) ccopt does not know: "
                                              r"'weigth' \(did you mean 'weight'\?\)"):
        Constraints.from_csv(path)
    path.write_text("id,i,j,kind,source\n0,0,1,ML,expert\n1,0,3,CL,expert\n")
    with pytest.warns(ccopt.CcoptWarning, match=r"column\(s\) \['id', 'source'\] are not read"):
        cons = Constraints.from_csv(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]
    path.write_text(",i,j,kind\n0,0,1,ML\n1,0,3,CL\n")  # pandas' to_csv writes its index unnamed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cons = Constraints.from_csv(path)
    assert cons.ml_pairs.tolist() == [[0, 1]] and cons.cl_pairs.tolist() == [[0, 3]]


@pytest.mark.parametrize("header", ["i,j,kind,i", "i,j,kind,weight,WEIGHT"])
def test_from_csv_refuses_a_column_named_twice(tmp_path, header):
    path = tmp_path / "c.csv"
    path.write_text(header + "\n" + "0,1,ML," + ",".join(["3"] * (header.count(",") - 2)) + "\n")
    with pytest.raises(DataFormatError, match=r"c\.csv:1: header .* names column\(s\) \['(i|weight)'\] more than once"):
        Constraints.from_csv(path)


# ----------------------------------------------------------------------------- CSV indices
@pytest.mark.parametrize("field", ["1_0", "\u0663", "0x1", "1e1", "2.5", "True", ""])
def test_a_csv_index_must_be_plain_decimal_digits(tmp_path, field):
    path = tmp_path / "c.csv"
    path.write_text(f"i,j,kind\n0,1,ML\n0,{field},CL\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"c\.csv:3: indices must be integers"):
        Constraints.from_csv(path)


def test_a_csv_index_may_carry_spaces_and_a_sign(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind\n 0 ,+1,ML\n")
    assert Constraints.from_csv(path).pairs.tolist() == [[0, 1]]


def test_a_csv_index_written_as_a_whole_float_is_read_as_the_api_reads_it(tmp_path):
    # pandas writes an integer column that holds a missing value as 3.0; ml=[(1.0, 2.0)] is accepted.
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind\n1.0,2.00,ML\n 0 ,3.,CL\n")
    cons = ccopt.Constraints.from_csv(path)
    assert cons.ml_pairs.tolist() == [[1, 2]] and cons.cl_pairs.tolist() == [[0, 3]]
    path.write_text("i,j,kind\n1.5,2,ML\n")
    with pytest.raises(ccopt.DataFormatError, match=r"c\.csv:2: indices must be integers, got i='1.5'"):
        ccopt.Constraints.from_csv(path)


def test_from_csv_index_beyond_int64_names_the_line(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind\n0,1,ML\n0,99999999999999999999999,CL\n")
    for n_samples in (None, 5):
        with pytest.raises(DataFormatError, match=r"c\.csv:3: index too large to be a row number"):
            Constraints.from_csv(path, n_samples=n_samples)


# ----------------------------------------------------------------------------- CSV hard and weight cells
@pytest.mark.parametrize("cell", ["", " ", "  "])
def test_an_empty_hard_cell_is_an_error_naming_file_and_line(tmp_path, cell):
    path = tmp_path / "cons.csv"
    path.write_text(f"i,j,kind,hard\n0,1,ML,1\n1,2,CL,{cell}\n")
    with pytest.raises(DataFormatError, match=r"cons\.csv:3: hard must be true/false or 1/0, got '\s*' "
                       r"\(an empty cell is not read as false; write 0 or false\)") as info:
        Constraints.from_csv(path)
    assert info.value.line == 3 and info.value.path == str(path)


def test_an_empty_hard_cell_is_refused_as_an_empty_weight_cell_is(tmp_path):
    path = tmp_path / "both.csv"
    path.write_text("i,j,kind,weight,hard\n0,1,ML,,1\n")
    with pytest.raises(DataFormatError, match=r"both\.csv:2: weight must be a number, got ''"):
        Constraints.from_csv(path)
    path.write_text("i,j,kind,weight,hard\n0,1,ML,2,\n")
    with pytest.raises(DataFormatError, match=r"both\.csv:2: hard must be true/false or 1/0, got ''"):
        Constraints.from_csv(path)


def test_filled_hard_cells_and_a_missing_hard_column_still_read(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text("i,j,kind,hard\n0,1,ML,1\n1,2,CL,false\n2,3,CL, TRUE \n3,4,ML,0\n")
    assert Constraints.from_csv(path).hard.tolist() == [True, False, True, False]
    path.write_text("i,j,kind\n0,1,ML\n")
    assert Constraints.from_csv(path).hard.tolist() == [False]


def test_a_written_file_reads_back(tmp_path):
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], cl_hard=[True], ml_weights=[0.5])
    cons.to_csv(tmp_path / "round.csv")
    back = Constraints.from_csv(tmp_path / "round.csv")
    assert back.hard.tolist() == [False, True] and back.weights.tolist() == [0.5, 1.0]


def test_the_docstring_says_an_empty_cell_is_an_error():
    doc = " ".join(Constraints.from_csv.__doc__.split())
    assert "an empty ``weight`` or ``hard`` cell is an error" in doc
    assert "or empty for false" not in doc


# ----------------------------------------------------------------------------- every reader
@pytest.mark.parametrize("reader", [
    lambda p: Constraints.from_csv(p),
    lambda p: Constraints.from_matrix_file(p),
    lambda p: ccopt.datasets.load_csv(p),
])
def test_a_file_that_is_not_utf8_names_the_line_of_its_first_bad_byte(tmp_path, reader):
    path = tmp_path / "latin.csv"
    path.write_bytes("i,j,kind\n0,1,ML\n1,2,CL # caf\xe9\n".encode("latin-1"))
    with pytest.raises(ccopt.DataFormatError, match=r"latin\.csv:3: not a UTF-8 text file: .*byte 0xe9.*"
                                                    r"save it as UTF-8") as info:
        reader(path)
    assert info.value.line == 3
