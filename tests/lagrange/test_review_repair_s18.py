"""Review of the repair routine (Algorithm 2): enumeration, conflict counting, limits, reports."""

import time

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt import Constraints
from ccopt._timing import Deadline
from ccopt.exceptions import InfeasibleConstraintsError
from ccopt.lagrange.repair import Repairer, repair_labels

from ._brute import all_partitions, feasible


def _is_feasible(labels, k, ml, cl) -> bool:
    return np.unique(labels).size == k and feasible(labels, ml, cl)


def _feasible_exists(n, k, ml, cl) -> bool:
    return any(feasible(labels, ml, cl) for labels in all_partitions(n, k))


@st.composite
def tiny_instances(draw):
    """n <= 8, k <= 3, random pairs plus one structured family (chain, clique, shared CLs, odd cycle)."""
    n = draw(st.integers(2, 8))
    k = draw(st.integers(1, min(3, n)))
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    ml = draw(st.lists(pair, max_size=n))
    cl = draw(st.lists(pair, max_size=2 * n))
    kind = draw(st.sampled_from(["random", "ml_chain", "cl_clique", "cl_to_ml_group", "odd_cycle"]))
    if kind == "ml_chain":
        ml += [(i, i + 1) for i in range(draw(st.integers(1, n - 1)))]
    elif kind == "cl_clique":
        m = draw(st.integers(2, min(n, k + 1)))  # k + 1 objects pairwise cannot-linked: not k-colourable
        cl += [(i, j) for i in range(m) for j in range(i + 1, m)]
    elif kind == "cl_to_ml_group" and n >= 4:
        ml += [(0, 1), (2, 3)]
        cl += [(0, 2), (1, 2), (1, 3)]  # three cannot-links between the same two must-link groups
    elif kind == "odd_cycle" and n >= 3:
        m = n if n % 2 else n - 1
        cl += [(i, (i + 1) % m) for i in range(m)]
    ml_set = {tuple(sorted(p)) for p in ml}
    ml, cl = sorted(ml_set), sorted({tuple(sorted(p)) for p in cl} - ml_set)
    start = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    return n, k, ml, cl, start, draw(st.integers(0, 2**16)), draw(st.integers(0, 30))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tiny_instances())
def test_repair_agrees_with_enumeration_on_tiny_instances(instance):
    n, k, ml, cl, start, seed, max_moves = instance
    exists = _feasible_exists(n, k, ml, cl)
    try:
        closure = Constraints.from_pairs(ml=ml or None, cl=cl or None, n_samples=n).closure
    except InfeasibleConstraintsError:  # a cannot-link inside a must-link closure
        assert not exists
        return
    cost = np.random.default_rng(seed).random((n, k))
    start_copy, cost_copy = start.copy(), cost.copy()
    result = repair_labels(start, cost, closure, np.random.default_rng(seed), max_moves=max_moves)
    np.testing.assert_array_equal(start, start_copy)  # inputs untouched
    np.testing.assert_array_equal(cost, cost_copy)
    assert result.feasible == exists, result.message
    if result.feasible:
        assert _is_feasible(result.labels, k, ml, cl) and result.message == "" and not result.infeasible
    else:
        assert result.message
    if result.infeasible:  # the proof must be true
        assert not exists
    if _is_feasible(start, k, ml, cl):
        np.testing.assert_array_equal(result.labels, start)
        assert result.n_moves == 0
    again = repair_labels(start, cost, closure, np.random.default_rng(seed), max_moves=max_moves)
    np.testing.assert_array_equal(again.labels, result.labels)


def test_cannot_links_sharing_two_must_link_groups_are_counted_once():
    # Objects 0 and 1 are must-linked and both cannot-linked to 2: two cannot-links join the
    # same two super-instances. Moving 2 away settles both; the conflict count used to start
    # at 2 per endpoint and drop by 1, so a solved conflict stayed "violated".
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(0, 2), (1, 2)], n_samples=4)
    cost = np.array([[0.0, 5.0], [0.0, 5.0], [0.0, 1.0], [3.0, 0.0]])
    start = np.array([0, 0, 0, 1])
    result = repair_labels(start, cost, cons.closure, np.random.default_rng(0))
    assert result.feasible and result.n_moves == 1
    np.testing.assert_array_equal(result.labels, [0, 0, 1, 1])
    # Under a time limit the stale count ran the move loop to the deadline and reported failure.
    timed = repair_labels(start, cost, cons.closure, np.random.default_rng(0), max_moves=10**9,
                          deadline=Deadline(0.2))
    assert timed.feasible, timed.message
    assert timed.n_moves == 1


def test_single_violations_are_fixed_by_one_cheap_move():
    # A split must-link pair goes whole to the cluster cheapest for both objects.
    cons = Constraints.from_pairs(ml=[(0, 1)], n_samples=4)
    cost = np.array([[0.0, 4.0], [3.0, 0.0], [0.0, 9.0], [9.0, 0.0]])  # pair totals: [3, 4]
    result = repair_labels(np.array([0, 1, 0, 1]), cost, cons.closure, np.random.default_rng(0))
    assert result.feasible and result.n_moves == 0
    np.testing.assert_array_equal(result.labels, [0, 0, 0, 1])
    # A violated cannot-link: one endpoint moves to its best cluster holding no partner.
    cons = Constraints.from_pairs(cl=[(0, 1)], n_samples=4)
    cost = np.array([[0.0, 1.0, 1.0], [0.0, 2.0, 5.0], [9.0, 0.0, 9.0], [9.0, 9.0, 0.0]])
    result = repair_labels(np.array([0, 0, 1, 2]), cost, cons.closure, np.random.default_rng(0))
    assert result.feasible and result.n_moves == 1
    assert result.labels[0] != result.labels[1]
    assert {tuple(result.labels)} <= {(1, 0, 1, 2), (0, 1, 1, 2)}  # whichever endpoint moved, cheapest target


class _ExpiresAfterFirstCheck(Deadline):
    """A deadline that is live at the first check and expired from the second on (deterministic)."""

    def __init__(self):
        super().__init__(None)
        self.checks = 0

    def expired(self) -> bool:
        self.checks += 1
        return self.checks > 1


def test_report_names_the_limit_that_stopped_the_backtracking_search():
    n = 301  # an odd cycle: not 2-colourable, and the search needs more than 256 nodes to prove it
    closure = Constraints.from_pairs(cl=[(i, (i + 1) % n) for i in range(n)], n_samples=n).closure
    start, cost = np.zeros(n, dtype=int), np.zeros((n, 2))
    timed = repair_labels(start, cost, closure, np.random.default_rng(0), max_moves=0,
                          deadline=_ExpiresAfterFirstCheck())
    assert not timed.feasible and not timed.infeasible
    assert "time limit ran out during the backtracking search" in timed.message
    budget = repair_labels(start, cost, closure, np.random.default_rng(0), max_moves=0, max_search_nodes=10)
    assert not budget.feasible and not budget.infeasible
    assert "max_search_nodes=10" in budget.message
    proven = repair_labels(start, cost, closure, np.random.default_rng(0), max_moves=0)
    assert proven.infeasible and "proved that no labelling into 2 clusters exists" in proven.message


def test_time_limit_stops_an_exponential_search_and_says_so():
    # A random graph with a hidden K4 far down the DSATUR order: not 3-colourable, and the
    # search would need far more than the time limit to prove it.
    rng = np.random.default_rng(1)
    n = 400
    pairs = set()
    while len(pairs) < 3 * n:
        i, j = sorted(int(v) for v in rng.integers(0, n - 4, 2))
        if i != j:
            pairs.add((i, j))
    pairs |= {(n - 4 + a, n - 4 + b) for a in range(4) for b in range(a + 1, 4)}
    repairer = Repairer(Constraints.from_pairs(cl=sorted(pairs), n_samples=n).closure)
    begin = time.perf_counter()
    result = repairer(np.zeros(n, dtype=int), rng.random((n, 3)), np.random.default_rng(0), deadline=Deadline(0.2))
    assert time.perf_counter() - begin < 1.5
    assert not result.feasible and not result.infeasible
    assert "time limit" in result.message


def test_an_already_feasible_labelling_comes_back_unchanged_through_a_repairer():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(0, 3), (3, 4), (2, 5)], n_samples=7)
    labels = np.array([2, 2, 2, 0, 1, 0, 1])
    cost = np.random.default_rng(0).random((7, 3))  # the cheapest clusters differ from `labels`
    result = Repairer(cons.closure)(labels, cost, np.random.default_rng(0))
    assert result.feasible and result.n_moves == 0 and result.message == ""
    np.testing.assert_array_equal(result.labels, labels)
