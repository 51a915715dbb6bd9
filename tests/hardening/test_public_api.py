"""The public names are what the documentation says they are, whatever was imported first."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ccopt
import ccopt.exceptions
from ccopt import NotFittedError

API_MD = Path(__file__).resolve().parents[2] / "docs" / "API.md"
TWINS = ["kmeans", "cop_kmeans", "pckmeans", "bh_kmeans", "lcc", "kmeans_s", "pcs", "ml_kmeans",
         "greedy_ml_kmeans"]
SUBMODULES = ["kmeans", "cop_kmeans", "pckmeans", "bh_kmeans", "lcc", "pcs", "ml_kmeans"]


def test_function_twins_are_functions_even_after_the_private_modules_were_imported():
    for name in SUBMODULES:
        importlib.import_module(f"ccopt.cluster._{name}")
    import ccopt.cluster

    for name in TWINS:
        twin = getattr(ccopt.cluster, name)
        assert inspect.isfunction(twin), f"ccopt.cluster.{name} is {twin!r}"
        assert twin.__name__ == name
    from ccopt.cluster import kmeans, lcc

    assert inspect.isfunction(kmeans) and inspect.isfunction(lcc)


@pytest.mark.slow
def test_function_twins_in_a_fresh_process_that_imports_a_module_first():
    """Import order differs between programs; check the one that used to break."""
    code = ("import ccopt.cluster._cop_kmeans, ccopt.cluster, inspect; "
            "print(all(inspect.isfunction(getattr(ccopt.cluster, n)) for n in "
            f"{TWINS!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.strip() == "True"


def test_fitted_attributes_read_before_fit_raise_not_fitted_error():
    est = ccopt.cluster.COPKMeans(2)
    with pytest.raises(NotFittedError, match=r"This COPKMeans is not fitted yet, so it has no labels_; call fit"):
        est.labels_  # noqa: B018
    assert not hasattr(est, "cluster_centers_")  # NotFittedError is an AttributeError
    with pytest.raises(ValueError, match="not fitted"):  # and a ValueError, as in scikit-learn
        est.predict([[0.0]])
    assert getattr(est, "n_features_in_", None) is None
    with pytest.raises(AttributeError, match="no attribute 'colour'") as info:
        est.colour  # noqa: B018
    assert not isinstance(info.value, NotFittedError)


def _documented_exceptions() -> dict[str, list[str]]:
    """``{name: [base classes]}`` from the exceptions table of docs/API.md."""
    text = API_MD.read_text(encoding="utf-8")
    section = text[text.index("## Exceptions"):]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, flags=re.MULTILINE)
    return {name: re.findall(r"`(\w+)`", bases) for name, bases in rows}


def test_the_documented_exception_table_matches_ccopt_exceptions():
    documented = _documented_exceptions()
    assert set(documented) == set(ccopt.exceptions.__all__)
    for name, bases in documented.items():
        cls = getattr(ccopt.exceptions, name)
        assert [b.__name__ for b in cls.__bases__] == bases, name
        assert getattr(ccopt, name) is cls  # importable from the top level


def test_every_error_class_is_a_ccopt_error_and_every_warning_a_ccopt_warning():
    for name in ccopt.exceptions.__all__:
        cls = getattr(ccopt.exceptions, name)
        assert issubclass(cls, ccopt.CcoptError | ccopt.CcoptWarning), name


def test_every_twin_documents_its_estimator_and_what_it_returns():
    import ccopt.cluster

    estimators = {"kmeans": "KMeans", "cop_kmeans": "COPKMeans", "pckmeans": "PCKMeans",
                  "bh_kmeans": "BHKMeans", "lcc": "LCC", "kmeans_s": "KMeansS", "pcs": "PCS",
                  "ml_kmeans": "MLKMeans", "greedy_ml_kmeans": "GreedyMLKMeans"}
    for name, cls in estimators.items():
        twin = getattr(ccopt.cluster, name)
        assert f"Function twin of :class:`{cls}`" in twin.__doc__, name
        assert "Returns\n    -------" in twin.__doc__ and "info : dict" in twin.__doc__, name
        # Picklable by reference (joblib workers receive twins by name).
        assert getattr(importlib.import_module(twin.__module__), name) is twin


def test_every_public_name_resolves_is_listed_and_a_wrong_one_is_an_attribute_error():
    assert len(set(ccopt.__all__)) == len(ccopt.__all__)
    listed = dir(ccopt)
    for name in ccopt.__all__:
        assert name in listed
        assert getattr(ccopt, name) is not None
    with pytest.raises(AttributeError, match="module 'ccopt' has no attribute 'Kmeans'"):
        ccopt.Kmeans  # noqa: B018


def test_import_ccopt_stays_light_and_importing_main_does_not_run_the_cli():
    code = ("import sys; import ccopt; heavy = [m for m in ('pyomo', 'sklearn', 'joblib', 'matplotlib') "
            "if m in sys.modules]; import ccopt.__main__; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    out = subprocess.run([sys.executable, "-m", "ccopt", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("usage: ccopt"), out.stderr
