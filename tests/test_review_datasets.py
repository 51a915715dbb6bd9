"""Review of ccopt.datasets: CSV edge cases, hand-built Datasets, and the published benchmark folders.

The benchmark checks read each folder with a parser of their own (plain ``str.split``) and
compare against figures written in ``shared/datasets/SOURCES.md``, never against ccopt's
output.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from ccopt import datasets as ds
from ccopt.constraints import Constraints
from ccopt.exceptions import DataFormatError, InvalidDataError, InvalidParameterError


def write(path, content):
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


# ----------------------------------------------------------------------------- CSV edge cases
@pytest.mark.parametrize("header", ["x,x,label", "x,label,x", " x ,x,label"])
def test_a_feature_name_given_twice_is_refused(tmp_path, header):
    # Two columns of one name cannot be told apart (--predict matches columns by name).
    path = write(tmp_path / "d.csv", f"{header}\n1,2,0\n3,4,1\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:1: the header names column\(s\) \['x'\] more than once"):
        ds.load_csv(path, label_column="label")


def test_a_label_column_given_twice_keeps_its_own_message(tmp_path):
    path = write(tmp_path / "d.csv", "\nlabel,x,label\n0,1,0\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:2: the header names the label column 'label' more than once"):
        ds.load_csv(path, label_column="label")


@pytest.mark.parametrize(("text", "pattern"), [
    # what pandas.DataFrame.to_csv() writes by default: the row index as an unnamed first column
    (",x,y\n0,1.5,2\n1,3.5,4\n", r"d\.csv:1: column\(s\) \[1\] of the header have no name \(a row index written by pandas"),
    # R's write.csv: a quoted empty name
    ('"","x","y"\n"1",1.5,2\n', r"d\.csv:1: column\(s\) \[1\] of the header have no name"),
    ("x,y,\n1,2,\n", r"d\.csv:1: column\(s\) \[3\] of the header have no name; name every column"),
])
def test_an_unnamed_column_is_refused_not_read_as_a_feature(tmp_path, text, pattern):
    path = write(tmp_path / "d.csv", text)
    with pytest.raises(DataFormatError, match=pattern):
        ds.load_csv(path)


@pytest.mark.parametrize("tail", ["  \n", "\t\n", "\n \n\n", " \r\n"])
def test_lines_of_only_spaces_are_blank(tmp_path, tail):
    path = write(tmp_path / "d.csv", "x,y,label\n1,2,a\n" + tail + "3,4,b\n" + tail)
    data = ds.load_csv(path, label_column="label")
    np.testing.assert_array_equal(data.X, [[1.0, 2.0], [3.0, 4.0]])
    assert data.label_names == ("a", "b") and data.labels.tolist() == [0, 1]


def test_an_unclosed_quote_is_reported_where_it_opens(tmp_path):
    path = write(tmp_path / "d.csv", 'x,y\n1,2\n"3,4\n5,6\n7,8\n')
    with pytest.raises(DataFormatError, match=r"d\.csv:3: expected 2 fields like the header, got 1 "
                                              r"\(the row runs on to line 5: is a closing quote missing\?\)"):
        ds.load_csv(path)


def test_a_quoted_line_break_numbers_the_row_by_its_first_line(tmp_path):
    path = write(tmp_path / "d.csv", 'x,y\n1,2\n"3\n",abc\n')
    with pytest.raises(DataFormatError, match=r"d\.csv:3: non-numeric value 'abc' in column 'y'"):
        ds.load_csv(path)


@pytest.mark.parametrize(("content", "line"), [
    (b"x,label\n1,a\n2,caf\xe9\n", 3),  # Latin-1 from an old spreadsheet
    (b"x,y\n" + b"1,2\n" * 5000 + b"3,\xff\n", 5002),  # beyond the first decoded block
], ids=["latin1", "late-bad-byte"])
def test_a_file_that_is_not_utf8_names_the_line(tmp_path, content, line):
    path = write(tmp_path / "d.csv", content)
    with pytest.raises(DataFormatError, match=rf"d\.csv:{line}: not a UTF-8 text file"):
        ds.load_csv(path, label_column="label" if b"label" in content else None)


def test_a_field_beyond_the_csv_size_limit_names_the_line(tmp_path):
    path = write(tmp_path / "d.csv", "x,y\n1,2\n3," + "1" * 200_000 + "\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:3: not a readable CSV file: field larger than field limit"):
        ds.load_csv(path)


@pytest.mark.parametrize("content", [
    b'"x","y","label"\r\n"1.5","2",a\r\n3,"4",b\r\n\r\n\r\n',
    b"\xef\xbb\xbf\"x\",y,label\n1.5,2,a\n3,4,b",
    b"x,y,label\r1.5,2,a\r3,4,b\r",
])
def test_quotes_bom_and_line_endings_read_alike(tmp_path, content):
    data = ds.load_csv(write(tmp_path / "d.csv", content), label_column="label")
    assert data.feature_names == ("x", "y")
    np.testing.assert_array_equal(data.X, [[1.5, 2.0], [3.0, 4.0]])
    assert data.label_names == ("a", "b")


def test_a_header_only_file_names_the_line_after_the_header(tmp_path):
    path = write(tmp_path / "d.csv", "\nx,y\n\n\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:3: the file has a header but no data rows"):
        ds.load_csv(path)


# ----------------------------------------------------------------------------- hand-built Dataset
def test_a_constraint_set_without_n_samples_is_bound_to_the_rows():
    data = ds.Dataset(np.zeros((4, 1)), [0, 0, 1, 1], "toy", ("a",),
                      {"s": Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)])})
    cons = data.constraint_sets["s"]
    assert cons.n_samples == 4
    # Bound, the set refuses labels of the wrong length instead of silently reading them.
    with pytest.raises(InvalidParameterError, match=r"expected n_samples=4"):
        cons.is_correct(np.zeros(6, dtype=int))


def test_a_constraint_set_built_for_other_data_is_refused():
    cons = Constraints.from_pairs(ml=[(0, 1)], n_samples=10)
    with pytest.raises(InvalidDataError, match=r"constraint set 's' was built for n_samples=10, but X has 4 rows"):
        ds.Dataset(np.zeros((4, 1)), None, "toy", ("a",), {"s": cons})


@pytest.mark.parametrize("labels", [[1e20, 2e20], np.array([2**63, 1], dtype=np.uint64)])
def test_labels_beyond_int64_are_refused_not_wrapped(labels):
    # Cast to int64 both 1e20 and 2e20 become -2**63: two classes would merge.
    with pytest.raises(InvalidDataError, match=r"labels must fit in int64"):
        ds.Dataset(np.zeros((2, 1)), labels, "toy", ("a",))


# ----------------------------------------------------------------------------- published folders
def _raw_folder(folder):
    """(feature names, X, y) by plain splitting: the format SOURCES.md states, nothing more."""
    lines = (folder / "data.csv").read_text().split("\n")
    assert lines[-1] == "" and lines[0].split(",")[-1] == "label"
    cells = [line.split(",") for line in lines[1:-1]]
    X = np.array([[float(v) for v in row[:-1]] for row in cells])
    return tuple(lines[0].split(",")[:-1]), X, np.array([int(row[-1]) for row in cells])


def _raw_constraints(path):
    lines = path.read_text().split("\n")
    assert lines[0] == "i,j,kind" and lines[-1] == ""
    return [(int(i), int(j), kind) for i, j, kind in (line.split(",") for line in lines[1:-1])]


def _index(root):
    rows = (root / "index.csv").read_text().split("\n")[1:]
    return {r.split(",")[0]: r.split(",") for r in rows if r and not r.startswith("lagrangian_synthetic")}


def test_every_folder_loads_as_its_raw_file_and_index_say(datasets_dir):
    for name, (_, _, n, d, k, files) in _index(datasets_dir).items():
        names, X, y = _raw_folder(datasets_dir / name)
        data = ds.load_benchmark(name, root=datasets_dir)
        assert (X.shape, len(np.unique(y))) == ((int(n), int(d)), int(k)), name
        np.testing.assert_array_equal(data.X, X, err_msg=name)
        np.testing.assert_array_equal(data.labels, y, err_msg=name)
        assert data.feature_names == names and data.label_names is None, name
        keys = sorted(f[len("constraints_"):-len(".csv")] for f in files.split(";") if f)
        assert sorted(data.constraint_sets) == keys, name


# SOURCES.md section 1: p = ceil(f n / 100) constraints, floor(p/3) wrong once ML/CL are read swapped.
_RANDEL = {"iris": (150, 23, 30, 7, 10), "wine": (178, 27, 36, 9, 12), "glass": (214, 33, 43, 11, 14),
           "ionosphere": (351, 53, 71, 17, 23), "control": (600, 90, 120, 30, 40),
           "balance": (625, 94, 125, 31, 41), "cardiotocography": (2126, 319, 426, 106, 142),
           "optical": (3823, 574, 765, 191, 255)}


@pytest.mark.parametrize("name", sorted(_RANDEL))
def test_randel_sets_load_with_the_published_counts(datasets_dir, name):
    n, p15, p20, q15, q20 = _RANDEL[name]
    _, _, y = _raw_folder(datasets_dir / name)
    data = ds.load_benchmark(name, root=datasets_dir)
    seen = set()
    for key, p, q in (("p15", p15, q15), ("p20", p20, q20)):
        raw = _raw_constraints(datasets_dir / name / f"constraints_{key}.csv")
        assert len(raw) == p == math.ceil(int(key[1:]) * n / 100) and q == p // 3
        wrong = [(y[i] == y[j]) != (kind == "ML") for i, j, kind in raw]
        assert sum(wrong) == q  # read as named (ml.csv = ML), about 2/3 would be wrong
        cons = data.constraint_sets[key]
        assert len(cons) == p and cons.n_ml == sum(kind == "ML" for *_, kind in raw)
        np.testing.assert_array_equal(~cons.is_correct(data.labels), wrong)
        pairs = {frozenset(pair) for pair in cons.pairs.tolist()}
        assert not pairs & seen  # the p20 set shares no pair with p15
        seen |= pairs


@pytest.mark.parametrize(("name", "n", "q"), [("ionosphere", 351, 23), ("balance", 625, 41),
                                              ("cardiotocography", 2126, 142), ("optical", 3823, 255)])
def test_an_off_by_one_would_show_in_the_erroneous_counts(datasets_dir, name, n, q):
    # Where the classes interleave, the counts above pin the row order: one row off, the p20 sets
    # are far from floor(p/3). (Sets sorted by class, such as iris, barely notice a shift.)
    _, _, y = _raw_folder(datasets_dir / name)
    raw = _raw_constraints(datasets_dir / name / "constraints_p20.csv")
    for shift in (-1, 1):
        wrong = sum((y[(i + shift) % n] == y[(j + shift) % n]) != (kind == "ML") for i, j, kind in raw)
        assert wrong > q + 5


# SOURCES.md section 2: (pairs, ML, CL) of the BH-kmeans CS sets, 0 wrong in the KEEL row order.
_CS = {"iris_keel": {"CS5": (28, 6, 22), "CS10": (105, 25, 80), "CS15": (253, 57, 196), "CS20": (435, 94, 341)},
       "wine_keel": {"CS5": (36, 8, 28), "CS10": (153, 31, 122), "CS15": (351, 70, 281), "CS20": (630, 143, 487)}}


@pytest.mark.parametrize("name", sorted(_CS))
def test_cs_sets_load_with_the_published_counts(datasets_dir, name):
    _, _, y = _raw_folder(datasets_dir / name)
    data = ds.load_benchmark(name, root=datasets_dir)
    assert list(data.constraint_sets) == ["CS5", "CS10", "CS15", "CS20"]
    for key, (m, n_ml, n_cl) in _CS[name].items():
        raw = _raw_constraints(datasets_dir / name / f"constraints_{key}.csv")
        assert (len(raw), Counter(k for *_, k in raw)) == (m, Counter(ML=n_ml, CL=n_cl))
        assert not any((y[i] == y[j]) != (kind == "ML") for i, j, kind in raw)
        cons = data.constraint_sets[key]
        assert (len(cons), cons.n_ml, cons.n_cl) == (m, n_ml, n_cl) and cons.is_correct(data.labels).all()


@pytest.mark.parametrize(("name", "counts"), [
    ("breast_tissue", [21, 15, 18, 16, 14, 22]), ("half_rings", [100, 300]), ("control", [100] * 6),
    ("yeast", [463, 429, 244, 163, 51, 44, 35, 30, 20, 5]), ("soybean", [10, 10, 10, 17]),
    ("glass", [70, 76, 17, 13, 9, 29]), ("balance", [49, 288, 288]),
])
def test_documented_class_sizes(datasets_dir, name, counts):
    # breast_tissue, half_rings, control, yeast: SOURCES.md; soybean, glass, balance: the UCI pages.
    assert np.bincount(ds.load_benchmark(name, root=datasets_dir).labels).tolist() == counts
