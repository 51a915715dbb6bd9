"""The validated clustering problem: data, number of clusters, constraints, size bounds.

Every model builder and algorithm kernel takes a :class:`ClusteringProblem`, so the checks
at the public boundary happen exactly once (:meth:`ClusteringProblem.create`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ccopt._validation import (
    check_data,
    check_distance_range,
    check_n_clusters,
    check_not_vanishing,
    check_positive_int,
    warn_far_from_origin,
)
from ccopt.constraints import Constraints, MustLinkClosure, as_constraints
from ccopt.exceptions import InfeasibleConstraintsError, InvalidParameterError

__all__ = ["ClusteringProblem"]


@dataclass(frozen=True, eq=False)
class ClusteringProblem:
    """Data, ``k``, constraints and optional cluster-size bounds, all checked.

    Build it with :meth:`create`; the constructor itself assumes valid input.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Read-only view of the data.
    n_clusters : int
    constraints : Constraints
        Bound to ``n_samples``.
    min_size, max_size : int or None
        Bounds on the number of objects per cluster.
    """

    X: np.ndarray
    n_clusters: int
    constraints: Constraints
    min_size: int | None = None
    max_size: int | None = None

    @classmethod
    def create(cls, X, n_clusters, constraints: Constraints | None = None, *, ml=None, cl=None,
               min_size: int | None = None, max_size: int | None = None,
               require_closure: bool = True) -> ClusteringProblem:
        """Validate and assemble a problem.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        n_clusters : int
        constraints : Constraints, optional
        ml, cl : array-like of shape (m, 2), optional
            Alternative to ``constraints``.
        min_size, max_size : int, optional
            Cluster-size bounds.
        require_closure : bool, default=True
            Check that no cannot-link lies inside a must-link component and that there are
            at least ``n_clusters`` components (hard-constraint algorithms need both; soft
            ones pass False).

        Raises
        ------
        InvalidDataError, InvalidConstraintError, InvalidParameterError,
        InfeasibleConstraintsError
            ``InvalidDataError`` also when the data is so large that sums of squared
            distances overflow float64, or so close to zero that they underflow (every
            algorithm here computes them).
        """
        X = check_data(X)
        check_distance_range(X)
        check_not_vanishing(X)
        warn_far_from_origin(X)
        n = X.shape[0]
        k = check_n_clusters(n_clusters, n)
        cons = as_constraints(constraints, ml=ml, cl=cl, n_samples=n)
        if min_size is not None:
            min_size = check_positive_int(min_size, "min_size", minimum=0)
        if max_size is not None:
            max_size = check_positive_int(max_size, "max_size")
        # Checked before the capacity tests: with min_size > max_size one of those would fire
        # first and hide the actual mistake.
        if min_size is not None and max_size is not None and min_size > max_size:
            raise InvalidParameterError(f"min_size={min_size} is larger than max_size={max_size}.")
        if min_size is not None and min_size * k > n:
            raise InfeasibleConstraintsError(
                f"{k} clusters of at least min_size={min_size} objects need {min_size * k} "
                f"objects, but there are only {n}."
            )
        if max_size is not None and max_size * k < n:
            raise InfeasibleConstraintsError(
                f"{k} clusters of at most max_size={max_size} objects hold {max_size * k} "
                f"objects, fewer than the {n} given."
            )
        X = X.view()
        X.setflags(write=False)
        problem = cls(X=X, n_clusters=k, constraints=cons, min_size=min_size, max_size=max_size)
        if require_closure:
            closure = problem.closure  # raises on a cannot-link inside a must-link component
            check_n_clusters(k, n, n_super_instances=closure.n_super)  # InfeasibleConstraintsError
            if max_size is not None and closure.sizes.max() > max_size:
                big = int(np.argmax(closure.sizes))
                raise InfeasibleConstraintsError(
                    f"A must-link component of {int(closure.sizes[big])} objects exceeds "
                    f"max_size={max_size}: objects {closure.members(big)[:10].tolist()}.",
                    certificate=closure.members(big).tolist(),
                )
        return problem

    @property
    def n_samples(self) -> int:
        """Number of objects."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features."""
        return int(self.X.shape[1])

    @cached_property
    def closure(self) -> MustLinkClosure:
        """Must-link closure of the constraints (super-instances)."""
        return self.constraints.closure

    def with_constraints(self, constraints: Constraints) -> ClusteringProblem:
        """The same data and ``k`` with other constraints (e.g. a subset).

        The size bounds are kept. Unlike :meth:`create`, the must-link closure of the new
        constraints is not checked here.

        Parameters
        ----------
        constraints : Constraints
            Constraints on the same objects; bound to ``n_samples`` here.

        Returns
        -------
        ClusteringProblem

        Raises
        ------
        InvalidParameterError
            If ``constraints`` is not a :class:`~ccopt.constraints.Constraints`.
        InvalidConstraintError
            If it was built for another number of objects or refers to objects beyond the data.
        """
        if not isinstance(constraints, Constraints):
            raise InvalidParameterError(
                f"constraints must be a ccopt.Constraints object, got {type(constraints).__name__}.")
        return ClusteringProblem(self.X, self.n_clusters, constraints.with_n_samples(self.n_samples),
                                 self.min_size, self.max_size)
