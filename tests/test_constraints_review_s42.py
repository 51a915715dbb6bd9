"""Review of ccopt.constraints (session 42): regression tests for the defects fixed.

* An empty list of hard flags for an empty list of pairs was refused ("got dtype float64"),
  and a bad flag was named by the array's dtype, not by its value and row.
* An empty ``hard`` cell of a constraints CSV silently meant soft, where an empty
  ``weight`` cell is an error.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.constraints import Constraints
from ccopt.exceptions import DataFormatError, InvalidConstraintError


# ----------------------------------------------------------------------------- 4. hard flags
def test_empty_flag_lists_for_empty_pair_lists_are_accepted():
    cons = Constraints.from_pairs(ml=[], cl=[(0, 1)], ml_hard=[], cl_hard=[True])
    assert cons.hard.tolist() == [True] and cons.hard.dtype == np.bool_
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[], ml_hard=[True], cl_hard=[], ml_weights=[2.0], cl_weights=[])
    assert cons.hard.tolist() == [True] and cons.weights.tolist() == [2.0]
    assert Constraints(np.empty((0, 2), dtype=int), [], hard=[]).hard.shape == (0,)


@pytest.mark.parametrize("flags", [[1], [0], [True], [False], np.array([1]), np.array([True]), [np.True_]])
def test_flags_that_are_booleans_or_0_1_integers_are_accepted(flags):
    cons = Constraints.from_pairs(ml=[(0, 1)], ml_hard=flags)
    assert cons.hard.tolist() == [bool(flags[0])]


@pytest.mark.parametrize(("kwargs", "message", "rows"), [
    ({"ml": [(0, 1)], "ml_hard": [2]}, r"ml_hard must be booleans \(True/False or 1/0\); bad values in ml\[0\] = 2\.",
     [0]),
    ({"ml": [(0, 1)], "cl": [(2, 3), (4, 5)], "cl_hard": [0, 2]}, r"cl_hard .* bad values in cl\[1\] = 2\.", [1]),
    ({"ml": [(0, 1), (2, 3)], "ml_hard": [True, None]}, r"ml_hard .* bad values in ml\[1\] = None\.", [1]),
    ({"ml": [(0, 1)], "ml_hard": ["yes"]}, r"ml_hard .* bad values in ml\[0\] = 'yes'\.", [0]),
    ({"ml": [(0, 1)], "ml_hard": "no"}, r"ml_hard .* bad values in ml\[0\] = 'no'\.", [0]),
    ({"ml": [(0, 1)], "ml_hard": [0.5]}, r"ml_hard .* bad values in ml\[0\] = 0\.5\.", [0]),
    ({"ml": [(0, 1), (2, 3)], "ml_hard": [-1, 3]}, r"ml\[0\] = -1, ml\[1\] = 3\.", [0, 1]),
])
def test_a_bad_flag_is_named_by_its_value_and_row_not_the_dtype(kwargs, message, rows):
    with pytest.raises(InvalidConstraintError, match=message) as info:
        Constraints.from_pairs(**kwargs)
    assert "dtype" not in str(info.value)
    assert list(info.value.rows) == rows


def test_the_plain_constructor_names_a_bad_flag_by_row():
    with pytest.raises(InvalidConstraintError, match=r"hard must be booleans .* bad values in row 1 = 2\.$"):
        Constraints([(0, 1), (2, 3)], ["ML", "CL"], hard=[1, 2])


def test_a_wrong_number_of_flags_is_still_refused():
    with pytest.raises(InvalidConstraintError, match=r"ml_hard must have one value per pair \(0\), got 1"):
        Constraints.from_pairs(ml=[], cl=[(0, 1)], ml_hard=[True])


# ----------------------------------------------------------------------------- 5. empty hard cells
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


@pytest.mark.parametrize("flags", [np.array([True, 1], dtype=object), np.array([np.True_, 0], dtype=object)])
def test_flags_of_an_object_array_are_read_one_by_one(flags):
    # A column with a missing value turned into object dtype: each entry is a bool or 0/1.
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], ml_hard=flags)
    assert cons.hard.tolist() == [bool(f) for f in flags]
