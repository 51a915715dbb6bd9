"""P restricted to each constrained unit's nearest centres (``n_candidates``, PCCC's idea).

The gold standard is brute force over the restricted labellings (``bh_brute.py`` scores
every labelling; here the ones that send a constrained object outside its ``q`` nearest
centres are excluded). When no restricted labelling is feasible, P is solved in full.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt import ClusteringProblem, Constraints, solvers
from ccopt.cluster import BHKMeans
from ccopt.exceptions import InvalidParameterError
from ccopt.models.bh_assignment import BHAssignmentProgram
from ccopt.solvers import available_solvers

from .bh_brute import FLAG_SETS, brute_force, make_problem, random_instance
from .instances import random_pairs_problem


def soft_instance(seed):
    """A tiny instance without hard rows or zero weights: units are objects, and the
    constrained objects are exactly those that some pair mentions."""
    X, centers, k, rows, penalty, _, _ = random_instance(seed, hard_prob=0.0)
    rows = [row for row in rows if row[3] > 0]
    return X, centers, k, rows, penalty


def restricted_enumeration(X, centers, k, rows, penalty, q, min_size=None, max_size=None):
    """Brute-force objective of every labelling, inf outside the restriction.

    With size bounds every object is constrained (it counts in the size rows).
    """
    costs, labellings = brute_force(X, centers, k, rows, penalty, min_size, max_size)
    dist = np.sqrt(((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2))
    # Must-linked objects share the q nearest centres of their group (summed distance).
    group = list(range(len(X)))
    for _ in range(len(X)):
        for i, j, kind, *_ in rows:
            if kind == "ML":
                group[i] = group[j] = min(group[i], group[j])
    group_dist = np.array([dist[[g == group[i] for g in group]].sum(axis=0) for i in range(len(X))])
    rank = np.argsort(np.argsort(group_dist, axis=1), axis=1)  # 0 = nearest centre
    constrained = sorted({i for i, j, *_ in rows} | {j for i, j, *_ in rows})
    if min_size is not None or max_size is not None:
        constrained = range(len(X))
    inside = np.ones(len(labellings), dtype=bool)
    for i in constrained:
        inside &= rank[i, labellings[:, i]] < q
    return np.where(inside, costs, np.inf), costs


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("reduced", [False, True], ids=["appsi", "highs_matrix-reduced"])
def test_restricted_optimum_equals_enumeration(seed, reduced, monkeypatch):
    if reduced:
        # highs_matrix hands HiGHS a MIP without its fixed columns (ccopt._reduction);
        # forced here on every MIP, the restricted optimum must still be the enumerated one.
        monkeypatch.setattr(solvers, "_REDUCE_FIXED_SHARE", 0.0)
    solver = "highs_matrix" if reduced else "appsi_highs"
    X, centers, k, rows, penalty = soft_instance(seed)
    problem = make_problem(X, k, rows)
    for q in range(1, k):
        restricted, full = restricted_enumeration(X, centers, k, rows, penalty, q)
        for flags in FLAG_SETS:
            result = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                         n_candidates=q, solver=solver, **flags).solve()
            if np.isfinite(restricted.min()):
                assert result.restricted
                assert result.objective == pytest.approx(restricted.min(), rel=1e-7, abs=1e-7)
            else:
                # No restricted labelling keeps every cluster non-empty: P in full.
                assert not result.restricted
                assert result.objective == pytest.approx(full.min(), rel=1e-7, abs=1e-7)
            assert result.objective >= full.min() - 1e-7


@pytest.mark.parametrize("seed", range(8))
def test_restricted_optimum_with_size_bounds_equals_enumeration(seed):
    X, centers, k, rows, penalty, min_size, max_size = random_instance(100 + seed, hard_prob=0.0, sizes=True)
    rows = [row for row in rows if row[3] > 0]
    problem = make_problem(X, k, rows, min_size, max_size)
    for q in range(1, k):
        restricted, full = restricted_enumeration(X, centers, k, rows, penalty, q, min_size, max_size)
        result = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                     n_candidates=q).solve()
        assert result.restricted == bool(np.isfinite(restricted.min()))
        best = restricted.min() if result.restricted else full.min()
        assert result.objective == pytest.approx(best, rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("seed", range(4))
def test_candidates_at_least_k_solve_p_exactly(seed):
    X, centers, k, rows, penalty = soft_instance(seed)
    problem = make_problem(X, k, rows)
    exact = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0).solve()
    for q in (k, k + 3):
        result = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                     n_candidates=q).solve()
        assert not result.restricted
        np.testing.assert_array_equal(result.labels, exact.labels)


@pytest.mark.parametrize("solver", [s for s in ("appsi_highs", "highs_matrix", "highs")
                                    if s in available_solvers()])
@pytest.mark.parametrize("decompose", [True, False])
def test_persistent_resolves_follow_the_candidates_of_new_centres(solver, decompose):
    # One program re-solved for three sets of centres must fix and free the right
    # variables each time: it agrees with a fresh program built for each set.
    rng = np.random.default_rng(3)
    # 40 pairs on 24 objects: the graph has cycles, so a MILP is left after leaf elimination.
    problem = random_pairs_problem(rng, 24, 40, 4)
    centre_sets = [rng.normal(scale=1.5, size=(4, 2)) for _ in range(2)]
    flags = dict(penalty=0.3, mip_gap=0.0, n_candidates=2, solver=solver, decompose=decompose,
                 max_labellings=1)
    program = BHAssignmentProgram(problem, **flags)
    for centers in (*centre_sets, centre_sets[0]):
        program.set_centers(centers)
        again = program.solve()
        fresh = BHAssignmentProgram(problem, centers=centers, **flags).solve()
        assert again.restricted and fresh.restricted and again.solves
        assert again.objective == pytest.approx(fresh.objective, rel=1e-9)


def test_restriction_without_a_feasible_assignment_falls_back_to_p():
    # Objects 0 and 1 share their nearest centre and are hard cannot-linked: with one
    # candidate each nothing is feasible, so P is solved in full.
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    cons = Constraints([(0, 1)], ["CL"], hard=[True], n_samples=4)
    problem = ClusteringProblem.create(X, 2, cons)
    result = BHAssignmentProgram(problem, centers=[[0.0], [5.0]], n_candidates=1).solve()
    assert not result.restricted
    assert result.labels[0] != result.labels[1]


def test_bh_kmeans_n_candidates():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(loc, 0.3, size=(15, 2)) for loc in ((0, 0), (4, 0), (0, 4))])
    ml, cl = [(0, 1), (15, 16), (30, 31)], [(0, 15), (15, 30)]
    exact = BHKMeans(3, random_state=0).fit(X, ml=ml, cl=cl)
    same = BHKMeans(3, random_state=0, n_candidates=3).fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(same.labels_, exact.labels_)
    restricted = BHKMeans(3, random_state=0, n_candidates=2).fit(X, ml=ml, cl=cl)
    assert all(record["restricted"] for record in restricted.history_)
    assert not any(record["restricted"] for record in exact.history_)
    for bad in (0, -1, 2.5, "2"):
        with pytest.raises(InvalidParameterError, match="n_candidates"):
            BHKMeans(3, n_candidates=bad).fit(X, ml=ml, cl=cl)


def test_must_linked_objects_share_their_candidates():
    # Objects 0 and 3 sit at different nearest centres; with one candidate each chosen
    # alone the must-link could only be violated. Shared by the group, it holds.
    X = np.array([[0.0], [0.1], [4.9], [5.0], [5.1]])
    problem = ClusteringProblem.create(X, 2, ml=[(0, 3)])
    result = BHAssignmentProgram(problem, centers=[[0.0], [5.0]], n_candidates=1).solve()
    assert result.restricted
    assert result.labels[0] == result.labels[3]
