"""Tests of ccopt.datasets: the Dataset record, the loaders and their error messages."""

from __future__ import annotations

import dataclasses
import re
import warnings

import numpy as np
import pytest

from ccopt import datasets as ds
from ccopt.constraints import ML, Constraints
from ccopt.exceptions import CcoptWarning, DataFormatError, InvalidDataError, InvalidParameterError


def write(path, text: str):
    path.write_text(text)
    return path


def write_raw(path, content):
    """Write bytes as given, text as UTF-8 (line endings untouched)."""
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def write_into(tmp_path, text, name="d.csv"):
    """Write ``text`` as UTF-8 to ``name`` in the folder ``tmp_path``."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize(
    ("loader", "shape", "k"),
    [(ds.load_iris, (150, 4), 3), (ds.load_wine, (178, 13), 3),
     (ds.load_breast_cancer, (569, 30), 2), (ds.load_digits, (1797, 64), 10)],
)
def test_sklearn_loaders(loader, shape, k):
    data = loader()
    assert data.X.shape == shape and (data.n_samples, data.n_features) == shape
    assert data.n_clusters == k and data.labels.dtype == np.int64
    assert sorted(np.unique(data.labels).tolist()) == list(range(k))
    assert len(data.feature_names) == shape[1] and len(data.label_names) == k
    assert dict(data.constraint_sets) == {}
    assert not data.X.flags.writeable and not data.labels.flags.writeable


def test_sklearn_unknown_name():
    with pytest.raises(InvalidParameterError, match="Unknown scikit-learn data set 'mnist'; valid values are 'iris'"):
        ds.load_sklearn("mnist")


def test_dataset_is_frozen():
    data = ds.Dataset(np.zeros((2, 1)), [0, 1], "toy", ("a",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.name = "other"
    with pytest.raises(TypeError):
        data.constraint_sets["x"] = None
    assert repr(data) == "Dataset(name='toy', n_samples=2, n_features=1, n_clusters=2, constraint_sets=[])"
    assert ds.Dataset(np.zeros((2, 1)), None, "toy", ("a",)).n_clusters is None


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


def test_hand_built_dataset_refuses_constraint_sets_that_do_not_fit_its_data():
    from ccopt.datasets import Dataset

    X = np.zeros((4, 2))
    with pytest.raises(InvalidDataError, match="names object 7"):
        Dataset(X=X, labels=None, name="toy", feature_names=("a", "b"), constraint_sets={"p": Constraints.from_pairs(ml=[(0, 7)])})
    with pytest.raises(InvalidDataError, match="is a list, not Constraints"):
        Dataset(X=X, labels=None, name="toy", feature_names=("a", "b"), constraint_sets={"p": [(0, 1)]})
    ok = Dataset(X=X, labels=None, name="toy", feature_names=("a", "b"), constraint_sets={"p": Constraints.from_pairs(ml=[(0, 3)])})
    assert len(ok.constraint_sets["p"]) == 1


@pytest.mark.parametrize("labels", [[1e20, 2e20], np.array([2**63, 1], dtype=np.uint64)])
def test_labels_beyond_int64_are_refused_not_wrapped(labels):
    # Cast to int64 both 1e20 and 2e20 become -2**63: two classes would merge.
    with pytest.raises(InvalidDataError, match=r"labels must fit in int64"):
        ds.Dataset(np.zeros((2, 1)), labels, "toy", ("a",))


@pytest.mark.parametrize(("kwargs", "exc", "pattern"), [
    ({"X": np.arange(3.0)}, InvalidDataError, r"X must be 2-D"),
    ({"X": [[1.0, np.nan]] * 2}, InvalidDataError, r"X contains NaN at row 0, column 1"),
    ({"labels": [0, 1, 1]}, InvalidDataError, r"labels has 3 entries, X has 2 rows"),
    ({"labels": [0.5, 1.5]}, InvalidDataError, r"labels must be integer class codes, got dtype float64"),
    ({"labels": ["a", "b"]}, InvalidDataError, r"labels must be integer class codes, got dtype <U1"),
    ({"feature_names": ("a",)}, InvalidDataError, r"feature_names has 1 names, X has 2 columns"),
])
def test_a_dataset_built_by_hand_is_checked(kwargs, exc, pattern):
    args = {"X": np.zeros((2, 2)), "labels": [0, 1], "name": "toy", "feature_names": ("a", "b"), **kwargs}
    with pytest.raises(exc, match=pattern):
        ds.Dataset(**args)


def test_a_dataset_keeps_integral_float_labels_and_copies_x():
    X = np.zeros((2, 1))
    data = ds.Dataset(X, np.array([0.0, 2.0]), "toy", ("a",))
    X[0, 0] = 5.0
    assert data.labels.tolist() == [0, 2] and data.labels.dtype == np.int64 and data.X[0, 0] == 0.0


# ----------------------------------------------------------------------------- CSV loader
def test_load_csv_with_string_labels(tmp_path):
    path = write(tmp_path / "flowers.csv", "a,b,species\n1.0,2,setosa\n3,.5,virginica\n\n5,6e-1,setosa\n")
    data = ds.load_csv(path, label_column="species")
    np.testing.assert_array_equal(data.X, [[1.0, 2.0], [3.0, 0.5], [5.0, 0.6]])
    assert data.labels.tolist() == [0, 1, 0]
    assert data.label_names == ("setosa", "virginica")
    assert data.feature_names == ("a", "b") and data.name == "flowers"


def test_load_csv_integer_labels_and_no_labels(tmp_path):
    path = write(tmp_path / "d.csv", "label;x\n3;1.5\n1;2.5\n")
    data = ds.load_csv(path, label_column="label", delimiter=";", name="mine")
    assert data.labels.tolist() == [3, 1] and data.label_names is None and data.name == "mine"
    plain = ds.load_csv(path, delimiter=";")
    assert plain.labels is None and plain.X.shape == (2, 2)


@pytest.mark.parametrize(
    ("text", "kwargs", "pattern"),
    [
        ("", {}, r"d\.csv:1: the file is empty"),
        ("x,y\n", {}, r"d\.csv:2: the file has a header but no data rows"),
        ("x,y\n1,2\n3\n", {}, r"d\.csv:3: expected 2 fields like the header, got 1"),
        ("x,y\n1,2\n3,abc\n", {}, r"d\.csv:3: non-numeric value 'abc' in column 'y'"),
        ("x,y\n1,2\n", {"label_column": "label"}, r"d\.csv:1: no label column 'label' in header \['x', 'y'\]"),
        ("x,label\n1,0\n2,\n", {"label_column": "label"}, r"d\.csv:3: empty value in label column 'label'"),
        ("label\n0\n1\n", {"label_column": "label"}, r"d\.csv:1: the file has no feature columns"),
        # Header errors name the header's own line, also when blank lines come first.
        ("\n  \nx,y\n1,2\n", {"label_column": "label"}, r"d\.csv:3: no label column 'label'"),
        ("\n\nlabel\n0\n", {"label_column": "label"}, r"d\.csv:3: the file has no feature columns"),
    ],
)
def test_load_csv_format_errors(tmp_path, text, kwargs, pattern):
    path = write(tmp_path / "d.csv", text)
    with pytest.raises(DataFormatError, match=pattern) as info:
        ds.load_csv(path, **kwargs)
    assert info.value.path == str(path)


@pytest.mark.parametrize(
    ("cell", "what"),
    [("", "a missing value"), ("NaN", "a missing value"), ("?", "a missing value"), ("inf", "an infinite value")],
)
def test_load_csv_non_finite_values(tmp_path, cell, what):
    path = write(tmp_path / "d.csv", f"x,y,label\n1,2,0\n3,4,1\n5,{cell},1\n")
    with pytest.raises(InvalidDataError, match=rf"{what}.* at data row 2 \(line 4\), column 'y'") as info:
        ds.load_csv(path, label_column="label")
    assert not isinstance(info.value, DataFormatError)


def test_load_csv_byte_order_mark(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("x,label\r\n1.5,a\r\n".encode("utf-8-sig"))
    data = ds.load_csv(path, label_column="label")
    assert data.feature_names == ("x",) and data.label_names == ("a",)


def test_load_csv_missing_file(tmp_path):
    with pytest.raises(DataFormatError, match=r"nothing\.csv: cannot read file"):
        ds.load_csv(tmp_path / "nothing.csv")


@pytest.mark.parametrize(("text", "line"), [
    ("x , label\n1,2\n", 1),
    ("\ufeffx,label\n1,2\n", 1),
    ("\n  \n,\nx,label\n1,2\n", 4),       # blank lines and a row of empty fields before the header
    ('"x\nwide",label\n1,2\n', 1),       # a quoted line break inside a name
])
def test_read_header_reads_the_header_load_csv_reads(tmp_path, text, line):
    # The command line reads a --predict file's header alone to see whether its label column is there.
    path = tmp_path / "rows.csv"
    path.write_bytes(text.encode())
    header, header_line = ds._read_header(path)
    data = ds.load_csv(path, label_column="label")
    assert header == [*data.feature_names, "label"]
    assert header_line == line


def test_read_header_of_an_empty_file(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("\n\n")
    with pytest.raises(DataFormatError, match=r"empty\.csv:1: the file is empty"):
        ds._read_header(path)


# ----------------------------------------------------------------------------- CSV header rows
@pytest.mark.parametrize("header", ["x,x,label", "x,label,x", " x ,x,label"])
def test_a_feature_name_given_twice_is_refused(tmp_path, header):
    # Two columns of one name cannot be told apart (--predict matches columns by name).
    path = write_raw(tmp_path / "d.csv", f"{header}\n1,2,0\n3,4,1\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:1: the header names column\(s\) \['x'\] more than once"):
        ds.load_csv(path, label_column="label")


def test_a_label_column_given_twice_keeps_its_own_message(tmp_path):
    path = write_raw(tmp_path / "d.csv", "\nlabel,x,label\n0,1,0\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:2: the header names the label column 'label' more than once"):
        ds.load_csv(path, label_column="label")


def test_a_label_column_named_twice_is_refused(tmp_path):
    path = write_into(tmp_path, "c,x,c\n0,3,1\n1,4,0\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:1: the header names the label column 'c' more than once"):
        ds.load_csv(path, label_column="c")


@pytest.mark.parametrize(("text", "pattern"), [
    # what pandas.DataFrame.to_csv() writes by default: the row index as an unnamed first column
    (",x,y\n0,1.5,2\n1,3.5,4\n", r"d\.csv:1: column\(s\) \[1\] of the header have no name \(a row index written by pandas"),
    # R's write.csv: a quoted empty name
    ('"","x","y"\n"1",1.5,2\n', r"d\.csv:1: column\(s\) \[1\] of the header have no name"),
    ("x,y,\n1,2,\n", r"d\.csv:1: column\(s\) \[3\] of the header have no name; name every column"),
])
def test_an_unnamed_column_is_refused_not_read_as_a_feature(tmp_path, text, pattern):
    path = write_raw(tmp_path / "d.csv", text)
    with pytest.raises(DataFormatError, match=pattern):
        ds.load_csv(path)


def test_a_header_of_numbers_with_a_fraction_is_refused_as_a_first_object(tmp_path):
    # It was only warned about, and the first object was lost (the command line refused it).
    path = write_into(tmp_path, "\n0.5,-1.25\n3,4\n5,6\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:2: the header row \['0.5', '-1.25'\] holds only "
                                              r"numbers: the file seems to have no header.*Add a header row"
                                              r".*numeric_header=True"):
        ds.load_csv(path)
    with warnings.catch_warnings():  # numbers that name the columns (wavelengths): said so, read so
        warnings.simplefilter("error")
        data = ds.load_csv(path, numeric_header=True)
    assert data.feature_names == ("0.5", "-1.25") and data.n_samples == 2


def test_a_header_of_integers_other_than_pandas_column_numbers_warns(tmp_path):
    # A headerless file of counts lost its first object without a word: every integer header
    # was taken for pandas' unnamed columns, which are exactly 0..d-1.
    path = write_into(tmp_path, "5,30\n4,31\n6,29\n")
    with pytest.warns(CcoptWarning, match=r"header row \['5', '30'\] holds only numbers.*Add a header row"):
        data = ds.load_csv(path)
    assert data.n_samples == 2


@pytest.mark.parametrize("header", ["0,1", "x,1.5", "a,b"])
def test_integer_or_named_headers_do_not_warn(tmp_path, header):
    path = write_into(tmp_path, header + "\n3,4\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ds.load_csv(path).feature_names == tuple(header.split(","))


def test_a_header_only_file_names_the_line_after_the_header(tmp_path):
    path = write_raw(tmp_path / "d.csv", "\nx,y\n\n\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:3: the file has a header but no data rows"):
        ds.load_csv(path)


# ----------------------------------------------------------------------------- CSV lines, quotes and encodings
@pytest.mark.parametrize("tail", ["  \n", "\t\n", "\n \n\n", " \r\n"])
def test_lines_of_only_spaces_are_blank(tmp_path, tail):
    path = write_raw(tmp_path / "d.csv", "x,y,label\n1,2,a\n" + tail + "3,4,b\n" + tail)
    data = ds.load_csv(path, label_column="label")
    np.testing.assert_array_equal(data.X, [[1.0, 2.0], [3.0, 4.0]])
    assert data.label_names == ("a", "b") and data.labels.tolist() == [0, 1]


def test_an_unclosed_quote_is_reported_where_it_opens(tmp_path):
    path = write_raw(tmp_path / "d.csv", 'x,y\n1,2\n"3,4\n5,6\n7,8\n')
    with pytest.raises(DataFormatError, match=r"d\.csv:3: expected 2 fields like the header, got 1 "
                                              r"\(the row runs on to line 5: is a closing quote missing\?\)"):
        ds.load_csv(path)


def test_a_quoted_line_break_numbers_the_row_by_its_first_line(tmp_path):
    path = write_raw(tmp_path / "d.csv", 'x,y\n1,2\n"3\n",abc\n')
    with pytest.raises(DataFormatError, match=r"d\.csv:3: non-numeric value 'abc' in column 'y'"):
        ds.load_csv(path)


@pytest.mark.parametrize(("content", "line"), [
    (b"x,label\n1,a\n2,caf\xe9\n", 3),  # Latin-1 from an old spreadsheet
    (b"x,y\n" + b"1,2\n" * 5000 + b"3,\xff\n", 5002),  # beyond the first decoded block
], ids=["latin1", "late-bad-byte"])
def test_a_file_that_is_not_utf8_names_the_line(tmp_path, content, line):
    path = write_raw(tmp_path / "d.csv", content)
    with pytest.raises(DataFormatError, match=rf"d\.csv:{line}: not a UTF-8 text file"):
        ds.load_csv(path, label_column="label" if b"label" in content else None)


def test_a_field_beyond_the_csv_size_limit_names_the_line(tmp_path):
    path = write_raw(tmp_path / "d.csv", "x,y\n1,2\n3," + "1" * 200_000 + "\n")
    with pytest.raises(DataFormatError, match=r"d\.csv:3: not a readable CSV file: field larger than field limit"):
        ds.load_csv(path)


@pytest.mark.parametrize("content", [
    b'"x","y","label"\r\n"1.5","2",a\r\n3,"4",b\r\n\r\n\r\n',
    b"\xef\xbb\xbf\"x\",y,label\n1.5,2,a\n3,4,b",
    b"x,y,label\r1.5,2,a\r3,4,b\r",
])
def test_quotes_bom_and_line_endings_read_alike(tmp_path, content):
    data = ds.load_csv(write_raw(tmp_path / "d.csv", content), label_column="label")
    assert data.feature_names == ("x", "y")
    np.testing.assert_array_equal(data.X, [[1.5, 2.0], [3.0, 4.0]])
    assert data.label_names == ("a", "b")


# ----------------------------------------------------------------------------- CSV values and labels
def test_a_text_column_of_classes_is_pointed_at_the_label_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x,y,name\n0,0,a\n0.1,0,a\n5,5,b\n")
    with pytest.raises(DataFormatError,
                       match=r"d\.csv:2: non-numeric value 'a' in column 'name'\. If 'name' holds the classes, "
                             r"name it as the label column \(label_column='name'; command line: "
                             r"--label-column name\)\."):
        ds.load_csv(path)
    path.write_text("x,y\n0,0\n0.1,a\n5,5\n")  # one stray word in a numeric column: no such advice
    with pytest.raises(DataFormatError, match=r"in column 'y'\.$"):
        ds.load_csv(path)


def test_a_csv_number_beyond_the_float64_range_is_named_as_such(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("x,y\n1,2\n3,1e400\n5,6\n")
    with pytest.raises(InvalidDataError,
                       match=r"the value '1e400', beyond the float64 range .* data row 1 \(line 3\), column 'y'"):
        ds.load_csv(path)


@pytest.mark.parametrize("marker", ["NA", "nan", "?"])
def test_a_missing_label_is_refused_not_made_a_class(tmp_path, marker):
    path = tmp_path / "d.csv"
    path.write_text(f"x,species\n1.0,a\n2.0,{marker}\n3.0,b\n")
    with pytest.raises(DataFormatError, match=rf"d\.csv:3: missing value '{re.escape(marker)}' in label "
                                                    r"column 'species': every object needs its class"):
        ds.load_csv(path, label_column="species")


def test_integer_labels_beyond_int64_are_recoded_not_an_overflow(tmp_path):
    path = write_into(tmp_path, "x,c\n1,99999999999999999999\n2,1\n3,1\n")
    data = ds.load_csv(path, label_column="c")
    assert data.label_names == ("1", "99999999999999999999")
    assert data.labels.tolist() == [1, 0, 0]


def test_labels_are_compared_as_numbers_when_they_all_are(tmp_path):
    # "2" and "2.0" were two classes, and integers written as floats (pandas, with a missing
    # value) were coded as names in string order: 1.0 < 10.0 < 2.
    data = ds.load_csv(write_into(tmp_path, "x,c\n1,1.0\n2,2.0\n3,10.0\n4,2\n"), label_column="c")
    assert data.labels.tolist() == [1, 2, 10, 2] and data.label_names is None
    data = ds.load_csv(write_into(tmp_path, "x,c\n1,0.5\n2,2.0\n3,10\n4,2\n"), label_column="c")
    assert data.labels.tolist() == [0, 1, 2, 1] and data.label_names == ("0.5", "2.0", "10.0")
    data = ds.load_csv(write_into(tmp_path, "x,c\n1,b\n2,a\n3,b\n"), label_column="c")
    assert data.labels.tolist() == [1, 0, 1] and data.label_names == ("a", "b")


# ----------------------------------------------------------------------------- folders
def make_folder(root, name="toy", constraints=None):
    folder = root / name
    folder.mkdir(parents=True)
    write(folder / "data.csv", "x0,x1,label\n0,0,0\n0,1,0\n5,5,1\n5,6,1\n")
    for key, text in (constraints or {}).items():
        write(folder / f"{key}.csv", text)
    return folder


def test_load_folder(tmp_path):
    folder = make_folder(tmp_path, constraints={
        "constraints_CS10": "i,j,kind\n0,1,ML\n",
        "constraints_CS5": "i,j,kind\n0,2,CL\n1,3,CL\n",
        "constraints": "i,j,kind\n2,3,ML\n",
        "notes": "ignored,file\n",
    })
    data = ds.load_folder(folder)
    assert data.name == "toy" and data.n_samples == 4 and data.n_clusters == 2
    assert list(data.constraint_sets) == ["constraints", "CS5", "CS10"]
    assert data.constraint_sets["CS5"].n_cl == 2 and data.constraint_sets["CS5"].n_samples == 4
    assert data.constraint_sets["constraints"].kinds.tolist() == [ML]
    bare = ds.load_folder(make_folder(tmp_path, "bare"))
    assert dict(bare.constraint_sets) == {}


def test_load_folder_errors(tmp_path):
    with pytest.raises(InvalidParameterError, match="is not a folder"):
        ds.load_folder(tmp_path / "absent")
    folder = make_folder(tmp_path, constraints={"constraints_bad": "i,j,kind\n0,9,ML\n"})
    with pytest.raises(DataFormatError, match=r"constraints_bad\.csv:2: Object index out of range for n_samples=4 \(valid 0\.\.3\): \(0, 9\)"):
        ds.load_folder(folder)


def test_datasets_root(tmp_path, monkeypatch):
    make_folder(tmp_path)
    assert ds.datasets_root(tmp_path) == tmp_path
    monkeypatch.setenv("CCOPT_DATASETS", str(tmp_path))
    assert ds.datasets_root() == tmp_path
    assert ds.load_benchmark("toy").n_samples == 4
    with pytest.raises(InvalidParameterError, match=r"No data set 'iris' in .*; available: toy"):
        ds.load_benchmark("iris")
    monkeypatch.setenv("CCOPT_DATASETS", str(tmp_path / "nowhere"))
    with pytest.raises(InvalidParameterError, match=r"No data set folder at .*nowhere.* \(from \$CCOPT_DATASETS\)"):
        ds.datasets_root()


def test_iter_lagrangian_synthetic_on_a_small_copy(tmp_path):
    base = tmp_path / "lagrangian_synthetic"
    make_folder(base, "000", {"constraints": "i,j,kind\n0,1,ML\n0,2,ML\n"})
    make_folder(base, "001")
    found = list(ds.iter_lagrangian_synthetic(root=tmp_path))
    assert [d.name for d in found] == ["lagrangian_synthetic/000", "lagrangian_synthetic/001"]
    assert (~found[0].constraint_sets["constraints"].is_correct(found[0].labels)).sum() == 1
    assert dict(found[1].constraint_sets) == {}
    with pytest.raises(InvalidParameterError, match="No synthetic instance 7"):
        ds.load_lagrangian_synthetic(7, root=tmp_path)
    with pytest.raises(InvalidParameterError, match="instance must be a non-negative int, got -1"):
        ds.load_lagrangian_synthetic(-1, root=tmp_path)


# ----------------------------------------------------------------------------- CSV loader at scale
def test_load_csv_holds_one_chunk_of_strings_not_the_whole_file(tmp_path, monkeypatch):
    # The whole file as lists of strings, then as a fixed-width string array, took about 370
    # bytes a value (1.9 GiB for 100,000 x 50); a chunk's strings and the float64 result now.
    import tracemalloc

    monkeypatch.setattr(ds, "_CHUNK_CELLS", 1024)
    rng = np.random.default_rng(0)
    n, d = 2000, 20
    X = rng.normal(size=(n, d))
    path = tmp_path / "big.csv"
    with open(path, "w") as handle:
        handle.write(",".join([f"x{c}" for c in range(d)] + ["label"]) + "\n")
        np.savetxt(handle, np.column_stack([X, rng.integers(0, 3, n)]), fmt=["%.17g"] * d + ["%d"], delimiter=",")
    tracemalloc.start()
    try:
        data = ds.load_csv(path, label_column="label")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(data.X, X)
    assert peak < 40 * n * d  # the result, its copy into the Dataset and one chunk


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 16])
@pytest.mark.parametrize(("text", "kwargs", "error", "pattern"), [
    # As when the file was read whole before any value was converted: a wrong field count
    # anywhere comes first, then a header of numbers, then a missing label, then a word
    # among the values, then a missing or infinite value.
    ("x,y\n1,a\n2,3\n4,5\n6\n", {}, DataFormatError, r"d\.csv:5: expected 2 fields like the header, got 1"),
    ("0.5,1\n1,a\n2,3\n4\n", {}, DataFormatError, r"d\.csv:4: expected 2 fields"),
    ("0.5,1\n1,a\n2,3\n", {}, DataFormatError, r"d\.csv:1: the header row .* holds only numbers"),
    ("x,c\na,0\n2,1\n4,\n", {"label_column": "c"}, DataFormatError, r"d\.csv:4: empty value in label column 'c'"),
    ("x,y\n1,inf\n2,b\n", {}, DataFormatError, r"d\.csv:3: non-numeric value 'b' in column 'y'\.$"),
    ("x,y\n1,2\n3,4\n5,b\n6,c\n", {}, DataFormatError, r"d\.csv:4: non-numeric value 'b' in column 'y'\.$"),
    ("x,y\n1,a\n2,b\n3,c\n", {}, DataFormatError, r"d\.csv:2: non-numeric value 'a' in column 'y'\. If 'y' holds"),
    ("x,y\n1,a\n2,b\n3,NaN\n", {}, DataFormatError, r"d\.csv:2: non-numeric value 'a' in column 'y'\.$"),
    ("x,y\n1,2\n3,NA\n5,6\n7,inf\n9,?\n", {}, InvalidDataError,
     r"a missing value \(NaN\) at data row 1 \(line 3\), column 'y'; 3 non-finite value\(s\) in all"),
    ("x,y\n1,2\n3,4\n5,1e400\n7,-inf\n", {}, InvalidDataError,
     r"the value '1e400', beyond the float64 range .* data row 2 \(line 4\), column 'y'; 2 non-finite"),
])
def test_load_csv_reports_the_same_error_whatever_the_chunk_size(tmp_path, monkeypatch, chunk, text, kwargs,
                                                                  error, pattern):
    monkeypatch.setattr(ds, "_CHUNK_CELLS", chunk)
    path = write_into(tmp_path, text)
    with pytest.raises(error, match=pattern):
        ds.load_csv(path, **kwargs)


@pytest.mark.parametrize("chunk", [1, 3, 1 << 16])
def test_load_csv_reads_the_same_values_whatever_the_chunk_size(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(ds, "_CHUNK_CELLS", chunk)
    path = write_into(tmp_path, "a,b,species\n1.0, 2 ,setosa\n\n3,.5,virginica\n5,6e-1,setosa\n-1,1e3,x\n")
    data = ds.load_csv(path, label_column="species")
    np.testing.assert_array_equal(data.X, [[1.0, 2.0], [3.0, 0.5], [5.0, 0.6], [-1.0, 1000.0]])
    assert data.labels.tolist() == [0, 1, 0, 2] and data.label_names == ("setosa", "virginica", "x")
