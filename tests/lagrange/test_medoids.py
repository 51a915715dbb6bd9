"""The medoid finder: remembered answers are the fresh ones, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from ccopt.lagrange._medoids import MedoidFinder, best_member, cluster_members, kmedoids_cost

from ._brute import kmedoids_cost as brute_kmedoids_cost


def _medoid_by_loop(d, members):
    """Member with the least total distance to the others, first on ties (plain loops)."""
    totals = [sum(d[i, j] for i in members) for j in members]
    return int(members[int(np.argmin(totals))]), min(totals)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), k=st.integers(1, 4),
       steps=st.integers(1, 12), memory=st.integers(0, 6))
def test_a_sequence_of_labellings_gets_the_fresh_answers(seed, n, k, steps, memory):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).round(1)  # rounded: coincident points make ties
    d = cdist(X, X)
    finder = MedoidFinder(d, memory=memory)
    labels = rng.integers(0, k, size=n)
    for _ in range(steps):
        medoids, cost = finder.medoids_and_cost(labels)
        present, groups = cluster_members(labels)
        assert present.tolist() == np.unique(labels).tolist()
        fresh = [best_member(d, members) for members in groups]
        assert medoids.tolist() == [m for m, _ in fresh]
        assert cost == sum(c for _, c in fresh)  # same order of summation: exactly equal
        assert cost == kmedoids_cost(d, labels)
        assert np.isclose(cost, brute_kmedoids_cost(d, labels))
        for members, (medoid, total) in zip(groups, fresh, strict=True):
            loop_medoid, loop_total = _medoid_by_loop(d, members)
            assert medoid == loop_medoid and np.isclose(total, loop_total)
        # Move a few objects, as a subgradient step does; sometimes move them back.
        moved = rng.choice(n, size=min(n, 2), replace=False)
        labels = labels.copy()
        labels[moved] = rng.integers(0, k, size=moved.size)
    assert len(finder._known) <= memory


def test_ties_go_to_the_first_member():
    X = np.array([[0.0], [1.0], [1.0], [2.0]])  # objects 1 and 2 coincide: equal totals
    assert best_member(cdist(X, X), np.arange(4)) == (1, 2.0)


def test_the_least_recently_used_cluster_is_forgotten_first():
    d = cdist(np.arange(6.0)[:, None], np.arange(6.0)[:, None])
    finder = MedoidFinder(d, memory=2)
    a, b, c = np.array([0, 1, 2]), np.array([3, 4]), np.array([4, 5])
    finder.best(a)
    finder.best(b)
    finder.best(a)  # a is now the most recent
    finder.best(c)  # b goes
    assert list(finder._known) == [a.tobytes(), c.tobytes()]
