"""Shared fixtures: tiny seeded data, the benchmark data sets and the benchmark scripts."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from ccopt.generators import make_gaussian_clusters

_BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
_DATASETS = Path(os.environ.get("CCOPT_DATASETS") or Path(__file__).resolve().parents[2] / "shared" / "datasets")


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh seeded generator per test."""
    return np.random.default_rng(12345)


@pytest.fixture
def blobs() -> tuple[np.ndarray, np.ndarray]:
    """30 points in 3 well-separated 2-D clusters of 10 (X, labels), seeded."""
    return make_gaussian_clusters(30, 3, center_std=5.0, cluster_std=0.3, random_state=7)


@pytest.fixture
def tiny_blobs() -> tuple[np.ndarray, np.ndarray]:
    """8 points in 2 clusters of 4 (small enough for brute-force enumeration)."""
    return make_gaussian_clusters(8, 2, center_std=5.0, cluster_std=0.3, random_state=3)


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """The shared benchmark folder (``$CCOPT_DATASETS`` or ../shared/datasets); skip if absent."""
    if not (_DATASETS / "index.csv").is_file():
        pytest.skip(f"benchmark data sets not found at {_DATASETS} (set CCOPT_DATASETS)")
    return _DATASETS


@pytest.fixture(scope="session")
def benchmark_script():
    """Load ``benchmarks/<name>.py`` as a module (benchmarks/ is a folder of scripts, not installed)."""
    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, _BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load


@pytest.fixture
def ten_point_files(tmp_path):
    """10 seeded 2-D points in 2 groups, written as ``data.csv`` (header ``x,y``) and as
    ``noheader.csv``, and ``cons.csv`` (0-1 ML, 0-9 CL): ``(X, with_header, without_header,
    constraints)``."""
    X, _ = make_gaussian_clusters(10, 2, cluster_std=0.3, random_state=3)
    rows = "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X)
    with_header = tmp_path / "data.csv"
    with_header.write_text("x,y\n" + rows)
    without = tmp_path / "noheader.csv"
    without.write_text(rows)
    cons = tmp_path / "cons.csv"
    cons.write_text("i,j,kind\n0,1,ML\n0,9,CL\n")
    return X, with_header, without, cons
