"""Every public entry point of ccopt that takes data, ``k`` and constraints, called one way.

The hardening tests (bad input, infeasibility, no mutation, determinism) run the same list,
so an entry point added here is covered by all of them. Each entry is called as
``entry.call(X, k, ml=..., cl=...)`` with settings small enough that a call that should have
failed but did not still returns within a second or so.

Flags, each checked by the tests that rely on it:

* ``takes_k``: the entry has a number of clusters (``coherence`` has none);
* ``takes_pairs``: the entry takes pairwise constraints (``KMeansS`` takes sizes only);
* ``contracts_ml``: must-links are hard, so fewer must-link groups than ``k`` is an
  infeasibility (:class:`~ccopt.exceptions.InfeasibleConstraintsError`);
* ``hard``: every constraint is hard, so a cannot-link clique of ``k + 1`` objects is an
  infeasibility reported with its certificate;
* ``ignores_cl``: cannot-links are not enforced, and a call given some says so in a
  :class:`~ccopt.CcoptWarning` (``KMeans``), expected with :func:`cannot_links_ignored`.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
import pytest

import ccopt
import ccopt.cluster as cluster
from ccopt.lagrange import baselines

SEED = 0


# Two pairs of close points far apart (1-D): the smallest data two clusters fit.
TWO_PAIRS = np.array([[0.0], [0.1], [5.0], [5.1]])


def blobs(n: int = 12, d: int = 2, k: int = 3, seed: int = SEED) -> np.ndarray:
    """``n`` points in ``k`` well-separated Gaussian groups (rows in group order)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=6.0, size=(k, d))
    return centres[np.arange(n) % k] + rng.normal(scale=0.3, size=(n, d))


def even_sizes(n, k) -> list[int]:
    """Target sizes adding up to ``n`` when ``k`` is a usable number of clusters.

    For a malformed ``k`` the sizes do not matter (``k`` is rejected first) but must still
    be a plausible list, so ``[n]`` is returned.
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= n:
        return [n]
    base, extra = divmod(n, int(k))
    return [base + (c < extra) for c in range(int(k))]


@dataclass(frozen=True)
class Entry:
    """One public entry point and what it promises."""

    name: str
    call: Callable
    takes_k: bool = True
    takes_pairs: bool = True
    contracts_ml: bool = False
    hard: bool = False
    ignores_cl: bool = False

    def __repr__(self) -> str:  # readable pytest ids
        return self.name


def _n(X) -> int:
    """Number of rows of a possibly malformed ``X`` (for the sizes of KMeansS/PCS)."""
    try:
        arr = np.asarray(X)
        return int(arr.shape[0]) if arr.ndim >= 1 else 1
    except Exception:
        return 1


def _fit(cls, **params):
    def call(X, k, ml=None, cl=None):
        return cls(k, random_state=SEED, **params).fit(X, ml=ml, cl=cl)
    return call


def _twin(function, **params):
    def call(X, k, ml=None, cl=None):
        return function(X, k, ml=ml, cl=cl, random_state=SEED, **params)
    return call


def _sized_fit(cls, **params):
    def call(X, k, ml=None, cl=None):
        pairs = {} if cls is cluster.KMeansS else {"ml": ml, "cl": cl}
        est = cls(k, sizes=even_sizes(_n(X), k), random_state=SEED, progress=False, **params)
        return est.fit(X, **pairs)
    return call


def _sized_twin(function, pairs: bool, **params):
    def call(X, k, ml=None, cl=None):
        extra = {"ml": ml, "cl": cl} if pairs else {}
        return function(X, k, sizes=even_sizes(_n(X), k), random_state=SEED, progress=False,
                        **extra, **params)
    return call


def _impact(criterion: str):
    def call(X, k, ml=None, cl=None):
        return ccopt.impact_scores(X, k, ml=ml, cl=cl, criterion=criterion, max_iter=5,
                                   random_state=SEED, progress=False)
    return call


def _one_at_a_time(function):
    def call(X, k, ml=None, cl=None):
        return function(X, k, ml=ml, cl=cl, criterion="mssc", solver_mode="heuristic", n_init=1,
                        random_state=SEED, progress=False)
    return call


def _naive(X, k, ml=None, cl=None):
    return baselines.naive_baseline(X, k, ml=ml, cl=cl, n_init=1, random_state=SEED)


def _informativeness(X, k, ml=None, cl=None):
    return baselines.informativeness(X, k, ml=ml, cl=cl, n_init=1, random_state=SEED)


def _coherence(X, k, ml=None, cl=None):
    return baselines.coherence(X, ml=ml, cl=cl)


def _k_sweep(X, k, ml=None, cl=None):
    return baselines.erroneous_fraction_by_k(X, [k], ml=ml, cl=cl, criterion="mssc", max_iter=5,
                                             random_state=SEED, progress=False)


def _problem(X, k, ml=None, cl=None):
    return ccopt.ClusteringProblem.create(X, k, ml=ml, cl=cl)


ENTRIES = [
    Entry("KMeans", _fit(cluster.KMeans, n_init=1, max_iter=20), contracts_ml=True, ignores_cl=True),
    Entry("kmeans", _twin(cluster.kmeans, n_init=1, max_iter=20), contracts_ml=True, ignores_cl=True),
    Entry("COPKMeans", _fit(cluster.COPKMeans, n_init=2, max_iter=20), contracts_ml=True, hard=True),
    Entry("cop_kmeans", _twin(cluster.cop_kmeans, n_init=2, max_iter=20), contracts_ml=True, hard=True),
    Entry("PCKMeans", _fit(cluster.PCKMeans, max_iter=20)),
    Entry("pckmeans", _twin(cluster.pckmeans, max_iter=20)),
    Entry("BHKMeans", _fit(cluster.BHKMeans, max_iter=5)),
    Entry("bh_kmeans", _twin(cluster.bh_kmeans, max_iter=5)),
    Entry("LCC", _fit(cluster.LCC, max_iter=10), contracts_ml=True),
    Entry("lcc", _twin(cluster.lcc, max_iter=10), contracts_ml=True),
    Entry("KMeansS", _sized_fit(cluster.KMeansS, max_iter=20), takes_pairs=False),
    Entry("kmeans_s", _sized_twin(cluster.kmeans_s, False, max_iter=20), takes_pairs=False),
    Entry("PCS", _sized_fit(cluster.PCS, max_iter=20)),
    Entry("pcs", _sized_twin(cluster.pcs, True, max_iter=20)),
    Entry("MLKMeans", _fit(cluster.MLKMeans, max_iter=20), contracts_ml=True, hard=True),
    Entry("ml_kmeans", _twin(cluster.ml_kmeans, max_iter=20), contracts_ml=True, hard=True),
    Entry("GreedyMLKMeans", _fit(cluster.GreedyMLKMeans, max_iter=20), contracts_ml=True, hard=True),
    Entry("greedy_ml_kmeans", _twin(cluster.greedy_ml_kmeans, max_iter=20), contracts_ml=True, hard=True),
    Entry("impact_scores[mssc]", _impact("mssc"), contracts_ml=True, hard=True),
    Entry("impact_scores[kmedoids]", _impact("kmedoids"), contracts_ml=True, hard=True),
    Entry("naive_baseline", _naive),
    Entry("optimistic_baseline", _one_at_a_time(baselines.optimistic_baseline), contracts_ml=True),
    Entry("pessimistic_baseline", _one_at_a_time(baselines.pessimistic_baseline)),
    Entry("informativeness", _informativeness),
    Entry("coherence", _coherence, takes_k=False),
    Entry("erroneous_fraction_by_k", _k_sweep),
    Entry("ClusteringProblem.create", _problem, contracts_ml=True),
]

BY_NAME = {entry.name: entry for entry in ENTRIES}
WITH_K = [e for e in ENTRIES if e.takes_k]
WITH_PAIRS = [e for e in ENTRIES if e.takes_pairs]
CONTRACTING = [e for e in ENTRIES if e.contracts_ml]
HARD = [e for e in ENTRIES if e.hard]

def cannot_links_ignored(expected: bool):
    """``pytest.warns`` for KMeans's warning that it ignores the cannot-links it was given when
    ``expected``; otherwise a context that expects nothing."""
    if expected:
        return pytest.warns(ccopt.CcoptWarning, match="KMeans does not enforce cannot-links")
    return contextlib.nullcontext()


@contextlib.contextmanager
def warns(*expected: tuple[type[Warning], str]):
    """Expect every ``(category, pattern)`` warning, as nested ``pytest.warns`` (each passes on
    the warnings it does not match); no pair expects nothing."""
    with contextlib.ExitStack() as stack:
        for category, pattern in expected:
            stack.enter_context(pytest.warns(category, match=pattern))
        yield


# Estimators (class, twin) for the tests that read fitted attributes.
ESTIMATORS = ["KMeans", "COPKMeans", "PCKMeans", "BHKMeans", "LCC", "KMeansS", "PCS", "MLKMeans",
              "GreedyMLKMeans"]


def fingerprint(result) -> list:
    """The numbers a result consists of, as plain arrays (labels, centres, scores, bounds...)."""
    if isinstance(result, tuple):  # function twins: (labels, centers, info)
        labels, centers, info = result
        return [labels, centers, info["objective"], info["n_iter"], str(info["status"])]
    if isinstance(result, ccopt.ClusteringProblem):
        return [result.X, result.constraints.pairs]
    if isinstance(result, pyo.Block):  # a model builder: its size
        return [sum(1 for _ in result.component_data_objects(ctype))
                for ctype in (pyo.Var, pyo.Constraint, pyo.Param)]
    names = ("labels_", "cluster_centers_", "objective_", "n_iter_", "scores", "lower_bound",
             "upper_bound", "labels", "base_cost", "costs", "predicted_erroneous", "value",
             "per_constraint", "fraction_erroneous")
    found = [np.asarray(getattr(result, name), dtype=object) for name in names if hasattr(result, name)]
    assert found, f"nothing to compare on {type(result).__name__}"
    return found


def assert_same(a, b):
    fa, fb = fingerprint(a), fingerprint(b)
    assert len(fa) == len(fb)
    for x, y in zip(fa, fb, strict=True):
        np.testing.assert_array_equal(np.asarray(x, dtype=object), np.asarray(y, dtype=object))
