"""Wall-clock budgets: one place that knows how much time is left."""

from __future__ import annotations

import time

__all__ = ["Deadline", "positive_limit"]


class Deadline:
    """A time budget started at construction.

    Parameters
    ----------
    time_limit : float or None
        Seconds; ``None`` means no limit.
    """

    def __init__(self, time_limit: float | None):
        self.time_limit = time_limit
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        """Seconds left (never negative), or ``None`` without a limit."""
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - self.elapsed())

    def expired(self) -> bool:
        """True once the budget is used up."""
        return self.time_limit is not None and self.elapsed() >= self.time_limit

    def budget(self, cap: float | None = None) -> float | None:
        """Time to hand to a sub-step: the remaining time, capped by ``cap`` if given."""
        left = self.remaining()
        if cap is None:
            return left
        return cap if left is None else min(cap, left)


def positive_limit(seconds: float | None) -> float | None:
    """A time limit to hand on: solvers and estimators reject 0, so a spent budget becomes a
    token millisecond; ``None`` (no limit) stays ``None``."""
    return None if seconds is None else max(seconds, 1e-3)
