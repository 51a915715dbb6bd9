"""Regressions of an audit of ccopt.models: each test failed before its fix.

A: set_multipliers is atomic. B: BHAssignmentProgram.solve checks time_limit. C: it checks
the solver name at construction. D: the abstract models check their .dat data. E: boolean
flags refuse non-bools. F: HighsKMedoids(lagrangian=True)'s epsilon hint. G: docstrings
(the .dat multipliers, read_pairwise_duals). H: the readers name what they expected.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ccopt import ClusteringProblem
from ccopt.exceptions import InvalidParameterError
from ccopt.models import (
    build_lagrangian_model,
    set_multipliers,
)
from ccopt.models.highs_direct import HighsKMedoids

X = np.array([[0.0, 0], [0.1, 0], [5, 5], [5.1, 5], [10, 0], [10.2, 0]])
CENTERS = np.array([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]])
TINY = Path(__file__).resolve().parents[2] / "models" / "data" / "tiny.dat"


def problem():
    return ClusteringProblem.create(X, 2, ml=[(0, 1)], cl=[(1, 2)])


# ----------------------------------------------------------------------------- A: set_multipliers


def test_set_multipliers_stores_nothing_when_one_array_is_rejected():
    m = build_lagrangian_model(problem())
    with pytest.raises(InvalidParameterError, match=r"lam must be <= 0"):
        set_multipliers(m, eta=np.full((1, 6), -1.0), lam=np.full((1, 6), 1.0))
    assert all(v.value == 0.0 for v in m.eta.values())


def test_highs_set_multipliers_keeps_the_costs_highs_has_after_an_error():
    program = HighsKMedoids(problem(), lagrangian=True)
    reference = program.solve().objective
    with pytest.raises(InvalidParameterError, match=r"lam must be <= 0"):
        program.set_multipliers(eta=np.full((1, 6), -1.0), lam=np.full((1, 6), 1.0))
    # Before: the rejected eta was kept and pushed by this call.
    program.set_multipliers(lam=np.zeros((1, 6)))
    assert program.solve().objective == pytest.approx(reference)
