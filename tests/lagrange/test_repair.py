"""The repair routine (Algorithm 2): a feasible labelling whenever one exists (checked by
enumeration), conflict counting, the search's limits and what its report says."""

import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt import Constraints
from ccopt._timing import Deadline
from ccopt.exceptions import InfeasibleConstraintsError
from ccopt.lagrange import repair as repair_module
from ccopt.lagrange.repair import Repairer, repair_labels

from ._brute import all_partitions, feasible
from ._cases import FIVE_CYCLE


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


# ----------------------------------------------------------------------------- against enumeration, conflict counts, limits, reports


def _is_feasible(labels, k, ml, cl) -> bool:
    return np.unique(labels).size == k and feasible(labels, ml, cl)


def _feasible_exists(n, k, ml, cl) -> bool:
    return any(feasible(labels, ml, cl) for labels in all_partitions(n, k))


@st.composite
def tiny_repair_instances(draw):
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
@given(tiny_repair_instances())
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


def test_repair_tells_a_proof_of_infeasibility_from_a_spent_search_budget():
    cons = Constraints.from_pairs(cl=FIVE_CYCLE, n_samples=6)
    start, cost = np.zeros(6, dtype=int), np.zeros((6, 2))
    proven = repair_labels(start, cost, cons.closure, np.random.default_rng(0), max_moves=0)
    assert not proven.feasible and proven.infeasible
    assert "proved that no labelling into 2 clusters exists" in proven.message
    spent = repair_labels(start, cost, cons.closure, np.random.default_rng(0), max_moves=0, max_search_nodes=1)
    assert not spent.feasible and not spent.infeasible


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


# ----------------------------------------------------------------------------- the fast first path, the greedy completion, the descent


@st.composite
def cannot_link_graphs(draw):
    n = draw(st.integers(2, 40))
    k = draw(st.integers(2, 4))
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    cl = draw(st.lists(pair, min_size=1, max_size=3 * n, unique_by=lambda p: tuple(sorted(p))))
    return n, k, cl, draw(st.integers(0, 2**16))


@settings(max_examples=150, deadline=None)
@given(cannot_link_graphs())
def test_the_heap_first_path_gives_the_search_s_own_result(instance):
    # The fast first path replaces the search's first descent, which chose each vertex by a
    # scan of all of them: whatever the search returned before, it returns now.
    n, k, cl, seed = instance
    rng = np.random.default_rng(seed)
    adjacency = Repairer(Constraints.from_pairs(cl=cl, n_samples=n).closure).adjacency
    start, member_cost = rng.integers(0, k, n), rng.integers(0, 3, (n, k)).astype(float)  # ties included
    args = (start, member_cost, k, adjacency.indptr, adjacency.indices, 10_000, None)
    fast = repair_module._backtrack_colouring(*args)
    with mock.patch.object(repair_module, "_greedy_dive", return_value=None):
        scanned = repair_module._backtrack_colouring(*args)
    assert fast[1] == scanned[1]
    if scanned[0] is None:
        assert fast[0] is None
    else:
        np.testing.assert_array_equal(fast[0], scanned[0])


def test_small_partners_move_out_of_the_way_of_a_large_must_link_group():
    # Group {0..3} is cannot-linked to 4, 5 and 6, one in each cluster: it has no free cluster.
    # Object 4, in its cluster, has two; the completion moves 4 to the cheaper one, with no
    # random move and no backtracking search.
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (2, 3)], cl=[(0, 4), (1, 5), (2, 6)], n_samples=7)
    cost = np.zeros((7, 3))
    cost[4] = [0.0, 2.0, 1.0]
    start = np.array([0, 0, 0, 0, 0, 1, 2])
    with mock.patch.object(repair_module, "_backtrack_colouring", side_effect=AssertionError("search ran")):
        result = repair_labels(start, cost, cons.closure, np.random.default_rng(0), max_moves=0)
    assert result.feasible and result.message == ""
    np.testing.assert_array_equal(result.labels, [0, 0, 0, 0, 2, 1, 2])


def test_the_completion_hands_over_to_the_search_when_it_is_stuck():
    # A triangle with a pendant, all in one cluster, k = 3: the completion alone separates them.
    cons = Constraints.from_pairs(cl=[(0, 1), (1, 2), (0, 2), (0, 3)], n_samples=4)
    with mock.patch.object(repair_module, "_backtrack_colouring", side_effect=AssertionError("search ran")):
        result = repair_labels(np.zeros(4, dtype=int), np.zeros((4, 3)), cons.closure, np.random.default_rng(0),
                               max_moves=0)
    assert result.feasible and cons.violations(result.labels).total == 0
    # K4 less one edge, k = 3, objects 0 and 1 together: each of them has a partner in every
    # cluster, so the completion is stuck and the complete search must (and does) decide.
    cons = Constraints.from_pairs(cl=[(0, 1), (0, 2), (1, 2), (0, 3), (1, 3)], n_samples=4)
    returned = []
    complete = repair_module._complete_greedily

    def recording(*args):
        returned.append(complete(*args))
        return returned[-1]

    with mock.patch.object(repair_module, "_complete_greedily", recording):
        result = repair_labels(np.array([0, 0, 1, 2]), np.zeros((4, 3)), cons.closure, np.random.default_rng(0),
                               max_moves=0)
    assert returned == [False]
    assert result.feasible and cons.violations(result.labels).total == 0


def _cost_of(labels, cost):
    return cost[np.arange(labels.size), labels].sum()


@settings(max_examples=80, deadline=None)
@given(feasible_instances())
def test_the_descent_keeps_feasibility_and_ends_where_no_single_move_gains(instance):
    k, cons, start, rng = instance
    cost = rng.random((start.size, k))
    feasible_start = repair_labels(start, cost, cons.closure, rng).labels
    repairer = Repairer(cons.closure)
    descended = repairer.descend(feasible_start, cost)
    assert cons.violations(descended).total == 0
    assert np.unique(descended).size == k
    assert _cost_of(descended, cost) <= _cost_of(feasible_start, cost) + 1e-12
    # A local optimum: no super-instance gains by moving alone to a cluster without its
    # cannot-link partners, unless the move would empty its cluster.
    closure = cons.closure
    for s in range(closure.n_super):
        members = closure.members(s)
        here = descended[members[0]]
        if np.count_nonzero(descended == here) == members.size:
            continue
        partners = repairer.adjacency.indices[repairer.adjacency.indptr[s]:repairer.adjacency.indptr[s + 1]]
        blocked = {descended[closure.members(int(p))[0]] for p in partners}
        member_cost = cost[members].sum(axis=0)
        for c in set(range(k)) - blocked - {here}:
            assert member_cost[c] >= member_cost[here] - 1e-9 * max(1.0, abs(member_cost[here]))


def test_the_descent_brings_a_poor_colouring_to_the_cheap_clusters():
    # Every object has one free cluster (cost 0), and the labelling of all those clusters is
    # feasible: the descent must reach it from a colouring that puts each object elsewhere,
    # moving 0 only after 1 has left its cluster and 4 has joined 0's, so that no cluster
    # empties on the way.
    cons = Constraints.from_pairs(cl=[(0, 1)], n_samples=6)
    cheapest = np.array([0, 1, 0, 1, 2, 0])
    cost = np.full((6, 3), 5.0)
    cost[np.arange(6), cheapest] = 0.0
    colouring = np.array([2, 0, 1, 2, 0, 1])
    descended = Repairer(cons.closure).descend(colouring, cost)
    np.testing.assert_array_equal(descended, cheapest)
