"""The published benchmark folders (shared/datasets): loaded as their raw files, index and
SOURCES.md say.

The checks read each folder with a parser of their own (plain ``str.split``) and compare
against figures written in ``shared/datasets/SOURCES.md``, never against ccopt's output.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from ccopt import datasets as ds


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


@pytest.mark.parametrize(("name", "n", "d", "k"), [("iris", 150, 4, 3), ("wine", 178, 13, 3), ("glass", 214, 9, 6)])
def test_randel_sets_have_floor_p_over_3_erroneous(datasets_dir, name, n, d, k):
    data = ds.load_benchmark(name, root=datasets_dir)
    assert (data.n_samples, data.n_features, data.n_clusters) == (n, d, k)
    for key, f in (("p15", 15), ("p20", 20)):
        cons = data.constraint_sets[key]
        p = math.ceil(f * n / 100)
        assert len(cons) == p
        assert (~cons.is_correct(data.labels)).sum() == p // 3


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


def test_published_synthetic_instances(datasets_dir):
    first = ds.load_lagrangian_synthetic(0, root=datasets_dir)
    cons = first.constraint_sets["constraints"]
    assert (first.n_samples, first.n_clusters, cons.n_ml, cons.n_cl) == (200, 5, 10, 10)
    assert (~cons.is_correct(first.labels)).sum() == 4
    assert dict(ds.load_lagrangian_synthetic(141, root=datasets_dir).constraint_sets) == {}
