"""A persistent solver re-solves correctly after variables are fixed or freed.

``highs_matrix`` compiles fixed variables in as constants and ignored ``fix()`` on a column
(it kept the old medoids and wrote 1 into a variable fixed at 0); APPSI's named
``update_variables`` ignored a variable freed after being fixed. Each re-solve is compared
with a fresh solve of the model in the same state.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt import ClusteringProblem
from ccopt.models import build_kmedoids_model, kmedoids_labels
from ccopt.solvers import PersistentSolver, solve

# Two groups whose middle objects, 1 and 4, are the unique optimal medoids.
X = np.array([[0.0], [0.2], [0.3], [5.0], [5.3], [5.4]])
SOLVERS = ["highs_matrix", "appsi_highs"]


def _model():
    return build_kmedoids_model(ClusteringProblem.create(X, 2))


def _fresh_optimum(model) -> float:
    """The optimum of ``model`` as it stands, from a one-off solve of a copy."""
    copy = model.clone()
    return solve(copy, "highs_matrix").objective


def _fix(model, value, announce=True, persistent=None):
    for j in (1, 4):
        model.y[j].fix(value)
    if persistent is not None and announce:
        persistent.bounds_changed([model.y[1], model.y[4]])


def _free(model, persistent):
    for j in (1, 4):
        model.y[j].unfix()
    persistent.bounds_changed([model.y[1], model.y[4]])


@pytest.mark.parametrize("name", SOLVERS)
def test_fixing_then_freeing_after_a_solve(name):
    model = _model()
    persistent = PersistentSolver(model, name)
    first = persistent.solve()
    assert kmedoids_labels(model)[1].tolist() == [1, 4]

    _fix(model, 0, persistent=persistent)  # forbid the two medoids of the optimum
    fixed = persistent.solve()
    assert fixed.objective == pytest.approx(_fresh_optimum(model))
    assert fixed.objective > first.objective + 1e-9
    assert not {1, 4} & set(kmedoids_labels(model)[1].tolist())
    assert model.y[1].value == 0 and model.y[1].fixed
    assert persistent.values([model.y[1]]).tolist() == [0.0]

    _free(model, persistent)
    freed = persistent.solve()
    assert freed.objective == pytest.approx(first.objective)
    assert kmedoids_labels(model)[1].tolist() == [1, 4]


@pytest.mark.parametrize("name", SOLVERS)
def test_variables_fixed_before_the_first_solve_can_be_freed_and_fixed_again(name):
    model = _model()
    _fix(model, 0)
    persistent = PersistentSolver(model, name)
    restricted = persistent.solve()
    assert restricted.objective == pytest.approx(_fresh_optimum(model))
    # Compiled in as a constant, the variable still reads as its value.
    assert persistent.values([model.y[1]]).tolist() == [0.0]

    _free(model, persistent)
    free = persistent.solve()
    assert free.objective == pytest.approx(_fresh_optimum(model))
    assert free.objective < restricted.objective - 1e-9

    _fix(model, 0, announce=False)
    persistent.bounds_changed()  # announced without a list: any variable may have changed
    again = persistent.solve()
    assert again.objective == pytest.approx(restricted.objective)


def test_a_compiled_constant_fixed_at_another_value_is_recompiled():
    model = _model()
    model.y[1].fix(0)
    persistent = PersistentSolver(model, "highs_matrix")
    persistent.solve()
    model.y[1].fix(1)  # now forced to be a medoid
    persistent.bounds_changed([model.y[1]])
    result = persistent.solve()
    assert result.objective == pytest.approx(_fresh_optimum(model))
    assert 1 in kmedoids_labels(model)[1].tolist()
