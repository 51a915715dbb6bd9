"""Termination status shared by solvers, drivers and estimators."""

from __future__ import annotations

from enum import Enum

__all__ = ["Status"]


class Status(str, Enum):
    """Why a computation stopped.

    A ``str`` enum, so ``result.status == "time_limit"`` works and it prints as its value.
    """

    OPTIMAL = "optimal"
    """Proven optimal (exact solve, or the gap tolerance met by a proven lower bound)."""
    CONVERGED = "converged"
    """A heuristic or iterative method met its own convergence test."""
    FEASIBLE = "feasible"
    """A feasible solution without a proof of optimality (e.g. a MIP gap not closed)."""
    TIME_LIMIT = "time_limit"
    """Stopped on the time limit; the best result so far is returned."""
    ITERATION_LIMIT = "iteration_limit"
    """Stopped on the iteration limit; the best result so far is returned."""
    STAGNATION = "stagnation"
    """Stopped because the bound stopped improving."""
    INTERRUPTED = "interrupted"
    """Stopped by KeyboardInterrupt; the best result so far is returned."""
    INFEASIBLE = "infeasible"
    """No feasible solution exists (proven) or none could be found."""
    ERROR = "error"
    """The solver reported an error."""

    def __str__(self) -> str:
        return self.value

    @property
    def has_solution_guarantee(self) -> bool:
        """True when the status certifies optimality."""
        return self is Status.OPTIMAL
