"""The GreedyMLKMeans assignment against the input-order loop it replaced.

:func:`_greedy_assign` visits only the ML sets whose nearest centre an earlier cannot-link
partner can take. The oracle here is the loop over every ML set in a cannot-link, in input
order, kept as it was; results must agree to the last bit: labels, the first dead end and
its message, and whole fits (labels, centres, cost history, ``n_iter``, status, dead-end
errors).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from sklearn.datasets import make_blobs

from ccopt import generators
from ccopt.cluster import GreedyMLKMeans, _ml_kmeans
from ccopt.cluster._ml_kmeans import _cannot_link_sets, _greedy_assign, _SuperInstances
from ccopt.constraints import Constraints
from ccopt.exceptions import (
    ClusteringDeadEndError,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
)
from ccopt.problem import ClusteringProblem
from tests.cluster._equivalence import ODD_CYCLE, ODD_CYCLE_X, fit_outcome

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _input_order_assign(X, sup, cls, centers):
    """The assignment as one loop over every ML set in a cannot-link, in input order (the
    implementation before only the sets that can move were visited)."""
    dist = cdist(X[sup.first], centers, "sqeuclidean")
    labels = dist.argmin(axis=1)
    involved = np.flatnonzero(cls.involved)
    if involved.size == 0:
        return labels
    ranked = np.argsort(dist[involved], axis=1, kind="stable")
    placed = np.zeros(sup.n_super, dtype=bool)
    indptr, indices = cls.adjacency.indptr, cls.adjacency.indices
    for row, s in enumerate(involved):
        partners = indices[indptr[s]:indptr[s + 1]]
        taken = set(labels[partners[placed[partners]]].tolist())
        for c in ranked[row]:
            if c not in taken:
                labels[s] = c
                break
        else:
            raise ClusteringDeadEndError(
                f"Greedy assignment dead end: object {int(sup.first[s])} cannot-links objects that "
                f"already use all {centers.shape[0]} clusters. The cannot-links are not disjoint "
                "sets of at most n_clusters objects; use MLKMeans or check the constraints."
            )
        placed[s] = True
    return labels


def _outcome(assign, *args):
    try:
        labels = assign(*args)
    except ClusteringDeadEndError as error:
        return type(error), str(error)
    return labels.dtype, labels.tobytes()


def _partition(rng, items, max_size):
    """Disjoint groups of 2..max_size of ``items`` (shuffled), some items left out."""
    items = rng.permutation(items).tolist()
    groups = []
    while len(items) >= 2 and rng.random() < 0.8:
        size = int(rng.integers(2, max_size + 1))
        groups.append(items[:size])
        items = items[size:]
    return groups


@st.composite
def _instances(draw):
    """Small instances on an integer grid, so that distance ties occur.

    ML sets are disjoint; cannot-links are either disjoint sets (every pair inside each, at
    most ``k + 1`` members so that oversized sets are rejected too) or random pairs (general
    cannot-links: non-clique components and dead ends).
    """
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(1, 4))
    n = draw(st.integers(max(k, 2), 14))
    X = rng.integers(-2, 3, size=(n, 2)).astype(np.float64)
    ml_sets = _partition(rng, n, 3)
    ml = [(g[i], g[i + 1]) for g in ml_sets for i in range(len(g) - 1)]
    ml_set = np.arange(n)
    for g in ml_sets:
        ml_set[g] = g[0]
    if draw(st.booleans()):
        cl = [(a, b) for g in _partition(rng, n, k + 1) for i, a in enumerate(g) for b in g[i + 1:]]
    else:
        cl = [tuple(rng.choice(n, size=2, replace=False)) for _ in range(int(rng.integers(0, 2 * n)))]
    # A cannot-link inside an ML set is infeasible before any assignment: not drawn.
    cl = [(a, b) for a, b in cl if ml_set[a] != ml_set[b]]
    with warnings.catch_warnings():
        # Random cannot-links may repeat a pair on purpose; its merge warning is not under test.
        warnings.filterwarnings("ignore", r"\d+ duplicate constraint row\(s\) merged", DuplicateConstraintWarning)
        cons = Constraints.from_pairs(ml=np.array(ml, dtype=np.int64).reshape(-1, 2),
                                      cl=np.array(cl, dtype=np.int64).reshape(-1, 2), n_samples=n)
    return X, k, cons, rng


@SETTINGS
@given(_instances())
def test_assign_equals_input_order_assign(instance):
    X, k, cons, rng = instance
    try:
        problem = ClusteringProblem.create(X, k, cons)
        sup = _SuperInstances.from_closure(problem.X, problem.closure)
        cls = _cannot_link_sets(problem.closure, sup.first, k)
    except InfeasibleConstraintsError:
        assume(False)
    for _ in range(5):
        centers = rng.integers(-2, 3, size=(k, 2)).astype(np.float64)
        expected = _outcome(_input_order_assign, X, sup, cls, centers)
        assert _outcome(_greedy_assign, X, sup, cls, centers) == expected


def test_assign_equals_input_order_assign_on_blobs_with_dead_ends():
    """Larger passes with general cannot-links and few clusters, so that many dead-end."""
    n_dead = n_moved = 0
    for seed in range(10):
        k = 2 + seed % 3
        X, y = make_blobs(300, 4, centers=k, random_state=seed, cluster_std=3.0)
        cons = generators.noisy_constraints(y, 250, 0, random_state=seed).constraints
        problem = ClusteringProblem.create(X, k, cons)
        sup = _SuperInstances.from_closure(X, problem.closure)
        try:
            cls = _cannot_link_sets(problem.closure, sup.first, k)
        except InfeasibleConstraintsError:
            continue
        rng = np.random.default_rng(seed)
        for _ in range(20):
            centers = X[rng.choice(len(X), k, replace=False)]
            expected = _outcome(_input_order_assign, X, sup, cls, centers)
            n_dead += expected[0] is ClusteringDeadEndError
            n_moved += expected[0] is not ClusteringDeadEndError and not np.array_equal(
                np.frombuffer(expected[1], dtype=expected[0]),
                cdist(X[sup.first], centers, "sqeuclidean").argmin(axis=1))
            assert _outcome(_greedy_assign, X, sup, cls, centers) == expected
    assert n_dead > 0
    assert n_moved > 0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("n_constraints", [60, 300])
def test_fit_equals_input_order_fit(monkeypatch, seed, n_constraints):
    X, y = make_blobs(400, 4, centers=4, random_state=seed, cluster_std=2.5)
    cons = generators.noisy_constraints(y, n_constraints, 0, random_state=seed).constraints

    def make():
        return GreedyMLKMeans(4, n_init=3, random_state=seed, progress=False)

    after = fit_outcome(make, X, cons, "cost_history_")
    monkeypatch.setattr(_ml_kmeans, "_greedy_assign", _input_order_assign)
    before = fit_outcome(make, X, cons, "cost_history_")
    assert after == before


def test_dead_end_error_equals_input_order_one(monkeypatch):
    """Cannot-links on a 5-cycle with k = 2: an odd cycle, so every run dead-ends."""
    X, cons = ODD_CYCLE_X, ODD_CYCLE

    def make():
        return GreedyMLKMeans(2, n_init=3, random_state=0, progress=False)

    after = fit_outcome(make, X, cons, "cost_history_")
    monkeypatch.setattr(_ml_kmeans, "_greedy_assign", _input_order_assign)
    before = fit_outcome(make, X, cons, "cost_history_")
    assert issubclass(after[0], Exception)
    assert after == before
