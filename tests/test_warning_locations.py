"""Every ccopt warning names the user's line, whichever entry point led to it.

A fixed ``stacklevel`` was right for one call path only, so the same warning pointed into
ccopt when reached through ``fit_predict``, a function twin or a loader helper.
"""

import warnings

import numpy as np
import pytest

import ccopt
from ccopt import datasets
from ccopt.cluster import LCC, KMeans, kmeans, lcc
from ccopt.constraints import Constraints
from ccopt.exceptions import CcoptWarning, ConvergenceWarning, DuplicateConstraintWarning


def _blobs(seed=0, n_per=10):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]])
    return np.vstack([c + rng.normal(scale=0.5, size=(n_per, 2)) for c in centres])


def _caught(call, category, match):
    """Run ``call`` and return the one warning of ``category`` whose text holds ``match``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    hits = [w for w in caught if issubclass(w.category, category) and match in str(w.message)]
    assert len(hits) == 1, [str(w.message) for w in caught]
    return hits[0]


def _weighted(n):
    # A weight other than 1 and a hard cannot-link: settings KMeans and LCC do not read.
    return Constraints.from_pairs(ml=[(0, 1)], cl=[(0, 15)], n_samples=n,
                                  ml_weights=[3.0], cl_hard=[True])


_ESTIMATOR_ROUTES = {
    "fit": lambda cls, X, cons: cls(3, random_state=0).fit(X, constraints=cons),
    "fit_predict": lambda cls, X, cons: cls(3, random_state=0).fit_predict(X, constraints=cons),
}


@pytest.mark.parametrize("cls", [KMeans, LCC])
@pytest.mark.parametrize("route", sorted(_ESTIMATOR_ROUTES))
def test_ignored_hard_flags_and_weights_warning_names_the_callers_line(cls, route):
    X = _blobs()
    w = _caught(lambda: _ESTIMATOR_ROUTES[route](cls, X, _weighted(len(X))), CcoptWarning,
                "does not honour hard flags")
    assert w.filename == __file__


@pytest.mark.parametrize("twin", [kmeans, lcc])
def test_ignored_hard_flags_and_weights_warning_from_a_function_twin_names_the_callers_line(twin):
    X = _blobs()
    w = _caught(lambda: twin(X, 3, constraints=_weighted(len(X)), random_state=0), CcoptWarning,
                "does not honour hard flags")
    assert w.filename == __file__


@pytest.mark.parametrize("route", ["fit", "twin"])
def test_convergence_warning_names_the_callers_line(route):
    X = np.random.default_rng(0).normal(size=(60, 2))
    if route == "fit":
        def call():
            KMeans(3, max_iter=1, n_init=1, random_state=0).fit(X)
    else:
        def call():
            kmeans(X, 3, max_iter=1, n_init=1, random_state=0)
    w = _caught(call, ConvergenceWarning, "KMeans stopped after max_iter=1")
    assert w.filename == __file__


@pytest.mark.parametrize("route", ["fit_predict", "twin"])
def test_empty_cluster_warning_names_the_callers_line(route):
    X = np.ones((5, 2))
    calls = {
        "fit_predict": lambda: KMeans(3, random_state=0).fit_predict(X),
        "twin": lambda: kmeans(X, 3, random_state=0),
    }
    w = _caught(calls[route], ConvergenceWarning, "empty cluster(s)")
    assert w.filename == __file__


def test_impact_score_unit_penalty_warning_names_the_callers_line():
    X = _blobs()
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(0, 15)], n_samples=len(X), ml_weights=[2.0])
    w = _caught(lambda: ccopt.impact_scores(X, 3, constraints=cons, criterion="mssc",
                                            random_state=0, progress=False),
                CcoptWarning, "impact_scores does not use per-constraint weights")
    assert w.filename == __file__


@pytest.mark.parametrize("loader", ["load_csv", "load_folder"])
def test_numeric_header_warning_names_the_callers_line(tmp_path, loader):
    (tmp_path / "data.csv").write_text("15,25,0\n3.5,4.5,1\n5.5,6.5,0\n")  # integers: maybe years
    calls = {
        "load_csv": lambda: datasets.load_csv(tmp_path / "data.csv"),
        "load_folder": lambda: datasets.load_folder(tmp_path, label_column="0"),
    }
    w = _caught(calls[loader], CcoptWarning, "holds only numbers")
    assert w.filename == __file__


@pytest.mark.parametrize("route", ["constructor", "fit"])
def test_duplicate_constraint_warning_names_the_callers_line(route):
    X = _blobs()
    if route == "constructor":
        def call():
            Constraints.from_pairs(ml=[(0, 1), (1, 0)], n_samples=len(X))
    else:
        def call():
            KMeans(3, random_state=0).fit(X, ml=[(0, 1), (1, 0)])
    w = _caught(call, DuplicateConstraintWarning, "duplicate constraint row(s) merged")
    assert w.filename == __file__


@pytest.mark.parametrize("route", ["fit", "fit_predict", "twin"])
def test_far_from_origin_warning_names_the_callers_line(route):
    X = _blobs() + 1e6
    calls = {
        "fit": lambda: KMeans(3, random_state=0).fit(X),
        "fit_predict": lambda: KMeans(3, random_state=0).fit_predict(X),
        "twin": lambda: kmeans(X, 3, random_state=0),
    }
    w = _caught(calls[route], CcoptWarning, "sits far from the origin")
    assert w.filename == __file__


def test_ccopt_frames_are_known_by_module_name_not_file_name():
    # A .pyc-only install compiles its code objects with the build machine's file names, so
    # a file-name test took ccopt's own frames for the user's.
    from ccopt._warnings import warn_user

    namespace = {"__name__": "ccopt.compiled_elsewhere", "warn_user": warn_user, "CcoptWarning": CcoptWarning}
    exec(compile("def check():\n    warn_user('from a compiled module', CcoptWarning)\n",
                 "/build/site-packages/ccopt/compiled_elsewhere.py", "exec"), namespace)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace["check"]()
    assert [w.filename for w in caught] == [__file__]
