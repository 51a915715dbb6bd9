"""Solver-free assignments for P (ccopt.models._bh_search), checked against enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ccopt.exceptions import InfeasibleConstraintsError
from ccopt.models._bh_search import (
    MoveGraph,
    greedy_by_components,
    improve,
    must_link_components,
    single_moves,
)
from ccopt.models.bh_assignment import BHAssignmentProgram

from .bh_brute import brute_force, make_problem, random_instance


def setting(seed, **kwargs):
    """A tiny instance, its enumeration, and the move graph of its units (no contraction)."""
    X, centers, k, rows, penalty, min_size, max_size = random_instance(seed, **kwargs)
    costs, labellings = brute_force(X, centers, k, rows, penalty, min_size, max_size)
    problem = make_problem(X, k, rows, min_size, max_size)
    plan = BHAssignmentProgram(problem, penalty=penalty, centers=centers, contract=False).plan
    dist = np.linalg.norm(X[:, None] - centers[None], axis=2)
    cost_of = {tuple(lab): c for lab, c in zip(labellings.tolist(), costs, strict=True)}
    return (MoveGraph.of_units(plan), plan.unit_distances(dist), dist.max() * penalty, costs,
            labellings, cost_of, rows)


def feasible_start(costs, labellings, seed):
    feasible = np.flatnonzero(np.isfinite(costs))
    if feasible.size == 0:
        pytest.skip("infeasible instance")
    return labellings[feasible[np.random.default_rng(seed).integers(feasible.size)]]


@pytest.mark.parametrize("seed", range(6))
def test_single_moves_end_at_a_single_move_optimum(seed):
    # From any feasible labelling: stays feasible, never gets worse, and ends where no
    # single object move helps.
    graph, cost, coef, costs, labellings, cost_of, _ = setting(300 + seed, n=8, k=3, sizes=seed % 2 == 1)
    start = feasible_start(costs, labellings, seed)
    end = single_moves(graph, start, cost, coef)
    assert np.isfinite(cost_of[tuple(end.tolist())])
    assert cost_of[tuple(end.tolist())] <= cost_of[tuple(start.tolist())] + 1e-9
    for i in np.flatnonzero(graph.movable):
        for j in range(graph.n_clusters):
            moved = end.copy()
            moved[i] = j
            assert cost_of[tuple(moved.tolist())] >= cost_of[tuple(end.tolist())] - 1e-6


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), sizes=st.booleans())
def test_improve_keeps_feasibility_and_ends_where_no_block_move_helps(seed, sizes):
    try:
        graph, cost, coef, costs, labellings, cost_of, _ = setting(seed, n=7, k=3, max_rows=8, sizes=sizes)
    except InfeasibleConstraintsError:   # a hard cannot-link inside a hard must-link chain
        assume(False)
    feasible = np.flatnonzero(np.isfinite(costs))
    assume(feasible.size > 0)
    start = labellings[feasible[seed % feasible.size]]
    components = must_link_components(graph)
    end = improve(graph, components, start, cost, coef)
    assert np.isfinite(cost_of[tuple(end.tolist())])
    assert cost_of[tuple(end.tolist())] <= cost_of[tuple(start.tolist())] + 1e-9
    # No block (one must-link component within one cluster) gains by moving as a whole.
    for c in np.unique(components):
        for here in np.unique(end[components == c]):
            block = (components == c) & (end == here)
            if not graph.movable[block].all():
                continue
            for j in range(graph.n_clusters):
                moved = end.copy()
                moved[block] = j
                assert cost_of[tuple(moved.tolist())] >= cost_of[tuple(end.tolist())] - 1e-6


def chain_in_the_wrong_cluster():
    """Objects 0-1-2 sit near centre 1 but are must-linked in a chain inside cluster 0."""
    X = np.array([[9.0], [9.1], [9.2], [0.0], [0.2], [10.0]])
    centers = np.array([[0.0], [10.0]])
    rows = [(0, 1, "ML", 1.0, False), (1, 2, "ML", 1.0, False)]
    problem = make_problem(X, 2, rows)
    plan = BHAssignmentProgram(problem, centers=centers, contract=False).plan
    dist = np.abs(X - centers.T)
    return MoveGraph.of_units(plan), plan.unit_distances(dist), dist.max(), X, centers, rows


def test_a_block_move_frees_a_must_link_chain_that_single_moves_cannot():
    graph, cost, coef, X, centers, rows = chain_in_the_wrong_cluster()
    start = np.array([0, 0, 0, 0, 0, 1])
    # Moving one end of the chain saves about 8 in distance but breaks a link worth M = 10.
    np.testing.assert_array_equal(single_moves(graph, start, cost, coef), start)
    end = improve(graph, must_link_components(graph), start, cost, coef)
    np.testing.assert_array_equal(end, [1, 1, 1, 0, 0, 1])
    costs, labellings = brute_force(X, centers, 2, rows, 1.0)
    assert costs[(labellings == end).all(axis=1)][0] == pytest.approx(costs.min())


def test_greedy_places_components_whole_and_respects_hard_cannot_links():
    X = np.array([[0.0], [0.1], [5.0], [5.1], [0.05]])
    centers = np.array([[0.0], [5.0]])
    rows = [(0, 2, "ML", 1.0, False), (1, 2, "CL", 1.0, False), (4, 0, "CL", 1.0, True)]
    problem = make_problem(X, 2, rows)
    plan = BHAssignmentProgram(problem, centers=centers, contract=False).plan
    graph = MoveGraph.of_units(plan)
    dist = np.abs(X - centers.T)
    labels = greedy_by_components(graph, must_link_components(graph), plan.unit_distances(dist),
                                  dist.max())
    assert labels[0] == labels[2]          # the must-link component {0, 2} is placed whole
    assert labels[4] != labels[0]          # the hard cannot-link closes 0's cluster to 4
    assert labels[1] != labels[2]          # the soft cannot-link is kept when it can be
    costs, labellings = brute_force(X, centers, 2, rows, 1.0)
    assert np.isfinite(costs[(labellings == labels).all(axis=1)][0])


@pytest.mark.parametrize("seed", range(8))
def test_greedy_never_breaks_a_soft_must_link(seed):
    graph, cost, coef, *_ = setting(500 + seed, n=8, k=3, max_rows=8, hard_prob=0.0)
    components = must_link_components(graph)
    labels = greedy_by_components(graph, components, cost, coef)
    for c in np.unique(components):
        assert np.unique(labels[components == c]).size == 1


def test_polish_after_a_time_limit_uses_the_block_search():
    # The program's fallback (no solver reached) finds the chain's best cluster.
    _, _, _, X, centers, rows = chain_in_the_wrong_cluster()
    problem = make_problem(X, 2, rows)
    program = BHAssignmentProgram(problem, centers=centers, decompose=False)
    result = program.solve(time_limit=1e-9)
    costs, _ = brute_force(X, centers, 2, rows, 1.0)
    assert result.status == "time_limit"
    assert result.objective == pytest.approx(costs.min())
