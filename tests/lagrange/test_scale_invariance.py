"""Scores do not depend on the units of the data: every tolerance of the subgradient method is
relative to the objective. With floors of 1 (absolute below it), Iris in units 1e-5 of the
MSSC route scored every constraint zero and stopped on stagnation earlier."""

from __future__ import annotations

import numpy as np
import pytest

import ccopt
from ccopt.datasets import load_iris

ML = [(0, 1), (0, 120), (50, 51), (60, 140)]
CL = [(0, 50), (1, 2), (100, 101), (55, 110)]


@pytest.mark.parametrize(("criterion", "method", "unit", "power"), [
    ("mssc", "kmeans", 1e-6, 2),          # objective in squared units
    ("kmedoids", "voronoi", 1e-10, 1),
    ("kmedoids", "lagrangian", 1e-10, 1),
])
def test_scores_scale_with_the_objective_and_predictions_do_not_change(criterion, method, unit, power):
    X = load_iris().X
    runs = [ccopt.impact_scores(X * scale, 3, ml=ML, cl=CL, criterion=criterion, method=method,
                                random_state=0, progress=False) for scale in (1.0, unit)]
    base, small = runs
    assert base.predicted_erroneous.any()
    np.testing.assert_array_equal(small.predicted_erroneous, base.predicted_erroneous)
    np.testing.assert_allclose(small.scores / unit**power, base.scores, rtol=1e-9,
                               atol=1e-9 * np.abs(base.scores).max())
    assert (len(small.history), small.status) == (len(base.history), base.status)
