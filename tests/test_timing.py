"""Time budgets (ccopt._timing.Deadline) and the time limits checked at the public boundary."""

from __future__ import annotations

import math
import time

import pytest

import ccopt
from ccopt._timing import Deadline
from ccopt.exceptions import InvalidParameterError


def test_deadline_budgets():
    free = Deadline(None)
    assert free.remaining() is None and not free.expired()
    assert free.budget() is None and free.budget(2.5) == 2.5
    spent = Deadline(1e-9)
    time.sleep(0.001)
    assert spent.expired() and spent.remaining() == 0.0 and spent.budget(5.0) == 0.0
    child = Deadline(spent.budget(10.0))  # a nested budget of a spent one is spent too
    assert child.expired()
    outer = Deadline(100.0)
    assert 0 < outer.budget(1.0) == 1.0 and outer.budget() <= 100.0
    endless = Deadline(math.inf)
    assert not endless.expired() and endless.budget(3.0) == 3.0


@pytest.mark.parametrize("bad", [0, -1, math.nan])
def test_public_time_limits_are_checked_at_the_boundary(bad):
    with pytest.raises(InvalidParameterError, match="time_limit must be > 0 seconds"):
        ccopt.KMeans(2, time_limit=bad).fit([[0.0], [1.0], [2.0]])
