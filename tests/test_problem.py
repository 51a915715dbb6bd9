"""Tests of ccopt.problem.ClusteringProblem.create: validation happens once, here."""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.constraints import Constraints
from ccopt.exceptions import (
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
)
from ccopt.problem import ClusteringProblem


def test_create_valid(blobs):
    X, _ = blobs
    problem = ClusteringProblem.create(X, 3, ml=[(0, 1)], cl=[(0, 29)])
    assert (problem.n_samples, problem.n_features, problem.n_clusters) == (30, 2, 3)
    assert problem.constraints.n_samples == 30
    assert (problem.constraints.n_ml, problem.constraints.n_cl) == (1, 1)
    assert problem.X.dtype == np.float64 and not problem.X.flags.writeable
    np.testing.assert_array_equal(problem.X, X)
    assert problem.closure.n_super == 29
    assert problem.closure is problem.closure  # computed once
    assert problem.min_size is None and problem.max_size is None


def test_create_with_constraints_object(blobs):
    X, labels = blobs
    cons = Constraints.from_labels(labels, [(0, 1), (0, 15)])
    problem = ClusteringProblem.create(X, 3, cons)
    assert problem.constraints.pairs.tolist() == [[0, 1], [0, 15]]
    other = problem.with_constraints(cons.subset([1]))
    assert other.constraints.n_cl == 1 and other.X is problem.X and other.n_clusters == 3


@pytest.mark.parametrize(
    ("X", "k", "exc", "pattern"),
    [
        ([[0.0, 1.0], [np.nan, 2.0]], 1, InvalidDataError, r"X contains NaN at row 1, column 0"),
        ([[0.0, np.inf], [1.0, 2.0]], 1, InvalidDataError, r"X contains inf at row 0, column 1"),
        ([[0.0], [1.0]], 3, InvalidParameterError, r"n_samples=2 should be >= n_clusters=3"),
        ([[0.0], [1.0]], 1.0, InvalidParameterError, r"n_clusters must be an integer, got 1\.0"),
        ([[0.0], [1.0]], 0, InvalidParameterError, r"n_clusters must be >= 1, got 0"),
        ([0.0, 1.0], 1, InvalidDataError, r"must be 2-D"),
    ],
)
def test_create_rejects_bad_data_and_k(X, k, exc, pattern):
    with pytest.raises(exc, match=pattern):
        ClusteringProblem.create(X, k)


def test_create_rejects_bad_constraints(blobs):
    X, _ = blobs
    with pytest.raises(InvalidConstraintError, match=r"out of range for n_samples=30 .* ml\[0\] = \(0, 30\)"):
        ClusteringProblem.create(X, 3, ml=[(0, 30)])
    with pytest.raises(InvalidConstraintError, match="built for n_samples=10, but the data has 30 rows"):
        ClusteringProblem.create(X, 3, Constraints.from_pairs(ml=[(0, 1)], n_samples=10))
    with pytest.raises(InvalidParameterError, match="not both"):
        ClusteringProblem.create(X, 3, Constraints.empty(30), ml=[(0, 1)])


def test_closure_checks_and_opt_out(blobs):
    X, _ = blobs
    ml = [(0, 1), (1, 2)]
    with pytest.raises(InfeasibleConstraintsError, match=r"Cannot-link \(2, 0\) \[cl\[0\]\].*chain 2 - 1 - 0"):
        ClusteringProblem.create(X, 3, ml=ml, cl=[(2, 0)])
    soft = ClusteringProblem.create(X, 3, ml=ml, cl=[(2, 0)], require_closure=False)
    assert soft.constraints.n_cl == 1
    chain = [(i, i + 1) for i in range(28)]  # 30 objects -> 2 must-link groups
    with pytest.raises(InfeasibleConstraintsError, match="into 2 groups, fewer than n_clusters=3"):
        ClusteringProblem.create(X, 3, ml=chain)
    assert ClusteringProblem.create(X, 2, ml=chain).closure.n_super == 2


def test_size_bounds(blobs):
    X, _ = blobs
    problem = ClusteringProblem.create(X, 3, min_size=0, max_size=12)
    assert (problem.min_size, problem.max_size) == (0, 12)
    with pytest.raises(InfeasibleConstraintsError, match="3 clusters of at least min_size=11 objects need 33"):
        ClusteringProblem.create(X, 3, min_size=11)
    with pytest.raises(InfeasibleConstraintsError, match="3 clusters of at most max_size=9 objects hold 27"):
        ClusteringProblem.create(X, 3, max_size=9)
    with pytest.raises(InvalidParameterError, match="min_size=10 is larger than max_size=9"):
        ClusteringProblem.create(X, 3, min_size=10, max_size=9)
    with pytest.raises(InvalidParameterError, match="min_size must be an integer"):
        ClusteringProblem.create(X, 3, min_size=2.5)
    with pytest.raises(InvalidParameterError, match="max_size must be >= 1, got 0"):
        ClusteringProblem.create(X, 3, max_size=0)
    group = [(0, i) for i in range(1, 14)]  # 14 objects tied together
    with pytest.raises(InfeasibleConstraintsError, match="must-link component of 14 objects exceeds max_size=12") as info:
        ClusteringProblem.create(X, 3, ml=group, max_size=12)
    assert info.value.certificate == list(range(14))


def test_with_constraints_refuses_pairs_that_are_not_a_constraints_object():
    problem = ClusteringProblem.create(np.arange(8.0).reshape(4, 2), 2)
    with pytest.raises(InvalidParameterError, match=r"constraints must be a ccopt\.Constraints object, got list"):
        problem.with_constraints([(0, 1)])
