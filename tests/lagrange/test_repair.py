import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import Constraints
from ccopt._timing import Deadline
from ccopt.lagrange.repair import repair_labels


@st.composite
def feasible_instances(draw):
    """Constraints drawn from a hidden labelling into k clusters, so a feasible labelling exists."""
    n = draw(st.integers(3, 14))
    k = draw(st.integers(2, min(4, n)))
    hidden = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    hidden[:k] = np.arange(k)  # every cluster used, so k non-empty clusters are possible
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                          min_size=0, max_size=3 * n, unique_by=lambda p: tuple(sorted(p))))
    cons = Constraints.from_labels(hidden, np.array(pairs, dtype=int).reshape(-1, 2), n_samples=n)
    start = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    seed = draw(st.integers(0, 2**16))
    return k, cons, start, np.random.default_rng(seed)


@settings(max_examples=80, deadline=None)
@given(feasible_instances())
def test_repair_returns_a_feasible_labelling_whenever_one_exists(instance):
    k, cons, start, rng = instance
    cost = rng.random((start.size, k))
    result = repair_labels(start, cost, cons.closure, rng, max_moves=20)
    assert result.feasible, result.message
    assert cons.violations(result.labels).total == 0
    assert np.unique(result.labels).size == k


def test_a_feasible_input_is_returned_unchanged():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=4)
    labels = np.array([0, 0, 1, 1])
    result = repair_labels(labels, np.zeros((4, 2)), cons.closure, np.random.default_rng(0))
    assert result.feasible and result.n_moves == 0
    np.testing.assert_array_equal(result.labels, labels)


def test_split_must_link_component_moves_to_its_cheapest_cluster():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], n_samples=4)
    labels = np.array([0, 1, 1, 0])
    cost = np.array([[5.0, 0.0], [5.0, 0.0], [0.0, 1.0], [0.0, 9.0]])  # component total: [10, 1]
    result = repair_labels(labels, cost, cons.closure, np.random.default_rng(0))
    assert result.feasible
    np.testing.assert_array_equal(result.labels, [1, 1, 1, 0])


def test_infeasible_colouring_is_reported_not_hidden():
    # An odd cycle of cannot-links cannot be 2-coloured.
    n = 5
    cons = Constraints.from_pairs(cl=[(i, (i + 1) % n) for i in range(n)], n_samples=n)
    result = repair_labels(np.zeros(n, int), np.zeros((n, 2)), cons.closure, np.random.default_rng(0), max_moves=10)
    assert not result.feasible
    assert "cannot-links" in result.message


def test_time_limit_is_respected():
    n = 5
    cons = Constraints.from_pairs(cl=[(i, (i + 1) % n) for i in range(n)], n_samples=n)
    deadline = Deadline(1e-9)
    result = repair_labels(np.zeros(n, int), np.zeros((n, 2)), cons.closure, np.random.default_rng(0),
                           deadline=deadline)
    assert not result.feasible
    assert "time limit" in result.message


def test_empty_cluster_is_filled_without_breaking_constraints():
    cons = Constraints.from_pairs(cl=[(0, 1)], n_samples=4)
    labels = np.array([0, 1, 1, 1])  # cluster 2 empty
    cost = np.zeros((4, 3))
    result = repair_labels(labels, cost, cons.closure, np.random.default_rng(0))
    assert result.feasible
    assert np.unique(result.labels).size == 3
    assert result.labels[0] != result.labels[1]


@pytest.mark.parametrize("seed", range(3))
def test_same_seed_same_repair(seed):
    rng_data = np.random.default_rng(seed)
    n, k = 30, 3
    hidden = rng_data.integers(0, k, n)
    pairs = rng_data.integers(0, n, (40, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    cons = Constraints.from_labels(hidden, pairs, n_samples=n)
    start, cost = rng_data.integers(0, k, n), rng_data.random((n, k))
    a = repair_labels(start, cost, cons.closure, np.random.default_rng(7))
    b = repair_labels(start, cost, cons.closure, np.random.default_rng(7))
    np.testing.assert_array_equal(a.labels, b.labels)
