"""The COP-kmeans greedy pass against the plain sequential loop it replaced.

:func:`_greedy_pass` first chooses for every cannot-linked super-instance at once from a
guess (the last pass's labels, or the nearest centres), then revisits in visiting order only
those whose choice can differ from the sequential one. The oracle here is the sequential
loop itself (each super-instance sees the labels already given in this pass), kept as it
was; results must agree to the last bit: labels, dead ends and their blocking constraints,
whole fits (labels, centres, objective, ``n_iter``, status, dead-end messages) and the impact
scores, whose starting upper bound comes from COP-kmeans.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs

import ccopt
from ccopt import generators
from ccopt.cluster import COPKMeans, _cop_kmeans
from ccopt.cluster._cop_kmeans import _CopGraph, _DeadEnd, _greedy_pass
from ccopt.cluster._init_centers import squared_distances
from ccopt.constraints import CL, ML, Constraints
from ccopt.exceptions import InfeasibleConstraintsError, InvalidParameterError
from ccopt.problem import ClusteringProblem
from tests.cluster._equivalence import ODD_CYCLE, ODD_CYCLE_X, assert_same_pass, fit_outcome

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sequential_pass(dist: np.ndarray, graph: _CopGraph, order: np.ndarray, previous=None):
    """The greedy pass as one loop in visiting order (the implementation before the
    vectorised first sweep): labels of the super-instances, or the first :class:`_DeadEnd`.
    ``previous`` is accepted and ignored, as the loop did."""
    labels = np.argmin(dist, axis=1)
    if graph.m == 0:
        return labels
    visit = graph.nodes[order]
    nearest = labels[visit].tolist()
    lab = [-1] * graph.m
    neighbours, edges = graph.neighbours, graph.edges
    for row, (s, choice) in enumerate(zip(order.tolist(), nearest, strict=True)):
        blocked = {lab[t] for t in neighbours[s]}
        if choice in blocked:
            pref = np.argsort(dist[visit[row]], kind="stable").tolist()
            choice = next((h for h in pref if h not in blocked), None)
            if choice is None:
                blockers: dict[int, int] = {}
                for t, pos in zip(neighbours[s], edges[s], strict=True):
                    if lab[t] >= 0:
                        blockers.setdefault(lab[t], pos)
                return _DeadEnd(int(graph.nodes[s]), blockers)
        lab[s] = choice
    labels[graph.nodes] = lab
    return labels


def _graph(X, k, cons):
    problem = ClusteringProblem.create(X, k, cons)
    closure = problem.closure
    points, _ = closure.super_instances(X)
    return _CopGraph(closure, problem.constraints.cl_indices), points, closure.n_super


@st.composite
def _instances(draw):
    """Small instances on an integer grid, so that distance ties occur; must-links merge objects
    into super-instances, repeated cannot-links are kept."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, 16))
    k = draw(st.integers(1, 4))
    X = rng.integers(-2, 3, size=(n, 2)).astype(np.float64)
    n_pairs = draw(st.integers(0, 3 * n))
    pairs = np.array([rng.choice(n, size=2, replace=False) for _ in range(n_pairs)],
                     dtype=np.int64).reshape(-1, 2)
    ml_share = draw(st.sampled_from([0.0, 0.2, 0.5]))
    is_ml = rng.random((n, n)) < ml_share
    kinds = np.where(is_ml[pairs.min(axis=1), pairs.max(axis=1)], ML, CL).astype(np.int8)
    cons = Constraints(pairs, kinds, n_samples=n, _warn_duplicates=False)
    return X, k, cons, rng


@SETTINGS
@given(_instances(), st.sampled_from(["none", "labels", "partial"]))
def test_pass_equals_sequential_pass(instance, previous_kind):
    X, k, cons, rng = instance
    try:
        graph, points, n_super = _graph(X, k, cons)
    except (InfeasibleConstraintsError, InvalidParameterError):
        assume(False)
    for _ in range(5):
        centers = rng.integers(-2, 3, size=(k, 2)).astype(np.float64)
        dist = squared_distances(points, centers)
        order = rng.permutation(graph.m)
        if previous_kind == "none":
            previous = None
        elif previous_kind == "labels":
            previous = rng.integers(0, k, size=n_super)  # any labelling, feasible or not
        else:
            previous = rng.integers(-1, k, size=n_super)  # -1: no label yet
        expected = _sequential_pass(dist, graph, order)
        assert_same_pass(_greedy_pass(dist, graph, order, previous), expected)


def test_pass_equals_sequential_pass_on_blobs_with_dead_ends():
    """Larger passes with dense cannot-links and k = 3, so that many passes are dead ends."""
    n_dead = n_passes = 0
    for seed in range(10):
        X, y = make_blobs(300, 5, centers=3, random_state=seed, cluster_std=3.0)
        cons = generators.noisy_constraints(y, 450, 0, random_state=seed).constraints
        graph, points, n_super = _graph(X, 3, cons)
        rng = np.random.default_rng(seed)
        for _ in range(20):
            dist = squared_distances(points, points[rng.choice(n_super, 3, replace=False)])
            order = rng.permutation(graph.m)
            previous = None if rng.random() < 0.3 else rng.integers(0, 3, n_super)
            expected = _sequential_pass(dist, graph, order)
            n_dead += isinstance(expected, _DeadEnd)
            n_passes += 1
            assert_same_pass(_greedy_pass(dist, graph, order, previous), expected)
            if not isinstance(expected, _DeadEnd):
                # The fit's case: the guess is the last pass's own result.
                again = squared_distances(points, points[rng.choice(n_super, 3, replace=False)])
                assert_same_pass(_greedy_pass(again, graph, order, expected),
                                  _sequential_pass(again, graph, order))
    assert 0 < n_dead < n_passes


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("n_constraints", [100, 400])
def test_cop_kmeans_fit_equals_sequential_fit(monkeypatch, seed, n_constraints):
    X, y = make_blobs(400, 4, centers=4, random_state=seed, cluster_std=2.5)
    cons = generators.noisy_constraints(y, n_constraints, 0, random_state=seed).constraints

    def make():
        return COPKMeans(4, n_init=4, random_state=seed)

    after = fit_outcome(make, X, cons, "n_dead_ends_")
    monkeypatch.setattr(_cop_kmeans, "_greedy_pass", _sequential_pass)
    before = fit_outcome(make, X, cons, "n_dead_ends_")
    assert after == before


def test_dead_end_error_equals_sequential_one(monkeypatch):
    """A 5-cycle of cannot-links with k = 2: an odd cycle, so every run dead-ends."""
    X, cons = ODD_CYCLE_X, ODD_CYCLE

    def make():
        return COPKMeans(2, n_init=3, random_state=0)

    after = fit_outcome(make, X, cons, "n_dead_ends_")
    monkeypatch.setattr(_cop_kmeans, "_greedy_pass", _sequential_pass)
    before = fit_outcome(make, X, cons, "n_dead_ends_")
    assert isinstance(after[0], type) and issubclass(after[0], Exception)
    assert after == before


def test_dead_end_message_with_blockers_equals_sequential_one(monkeypatch):
    """Dense cannot-links on blobs where every restart dead-ends after some passes: the same
    object and blocking constraints in the message."""
    X, y = make_blobs(400, 4, centers=4, random_state=1, cluster_std=2.5)
    cons = generators.noisy_constraints(y, 400, 0, random_state=1).constraints

    def make():
        return COPKMeans(4, n_init=4, random_state=1)

    after = fit_outcome(make, X, cons, "n_dead_ends_")
    monkeypatch.setattr(_cop_kmeans, "_greedy_pass", _sequential_pass)
    before = fit_outcome(make, X, cons, "n_dead_ends_")
    assert after[0] is ccopt.exceptions.ClusteringDeadEndError
    assert "could join none of the 4 clusters: cluster 0 by row" in after[1]
    assert after == before


def test_impact_scores_equal_with_sequential_pass(monkeypatch):
    X, y = make_blobs(90, 2, centers=3, random_state=0, cluster_std=1.5)
    cons = generators.noisy_constraints(y, 60, 6, random_state=0).constraints

    def run():
        res = ccopt.impact_scores(X, 3, constraints=cons, random_state=0, progress=False, max_iter=40)
        return (res.scores.tobytes(), res.labels.tobytes(), res.upper_bound, res.lower_bound,
                res.n_iter, res.status)

    after = run()
    monkeypatch.setattr(_cop_kmeans, "_greedy_pass", _sequential_pass)
    before = run()
    assert after == before
