"""Tests of ccopt.datasets: the Dataset record, the loaders and their error messages."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from ccopt import datasets as ds
from ccopt.constraints import ML
from ccopt.exceptions import DataFormatError, InvalidDataError, InvalidParameterError


def write(path, text: str):
    path.write_text(text)
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


# ----------------------------------------------------------------------------- published data
@pytest.mark.parametrize(("name", "n", "d", "k"), [("iris", 150, 4, 3), ("wine", 178, 13, 3), ("glass", 214, 9, 6)])
def test_randel_sets_have_floor_p_over_3_erroneous(datasets_dir, name, n, d, k):
    data = ds.load_benchmark(name, root=datasets_dir)
    assert (data.n_samples, data.n_features, data.n_clusters) == (n, d, k)
    for key, f in (("p15", 15), ("p20", 20)):
        cons = data.constraint_sets[key]
        p = math.ceil(f * n / 100)
        assert len(cons) == p
        assert (~cons.is_correct(data.labels)).sum() == p // 3


def test_published_synthetic_instances(datasets_dir):
    first = ds.load_lagrangian_synthetic(0, root=datasets_dir)
    cons = first.constraint_sets["constraints"]
    assert (first.n_samples, first.n_clusters, cons.n_ml, cons.n_cl) == (200, 5, 10, 10)
    assert (~cons.is_correct(first.labels)).sum() == 4
    assert dict(ds.load_lagrangian_synthetic(141, root=datasets_dir).constraint_sets) == {}
