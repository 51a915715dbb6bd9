"""Gaps between the builders' entry points that let a bad input through without ccopt's word."""

import numpy as np
import pytest

from ccopt import ClusteringProblem
from ccopt.exceptions import InfeasibleConstraintsError
from ccopt.models import build_kmedoids_model, build_lagrangian_model
from ccopt.models.highs_direct import HighsKMedoids, kmedoids_matrices

# With two clusters, a cannot-link triangle and an odd cannot-link cycle leave no labelling.
_INFEASIBLE_FOR_TWO = {
    "triangle": [(0, 1), (1, 2), (0, 2)],
    "odd cycle": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)],
}


def _problem(cl):
    X = np.array([[0.0, 0.0], [1.0, 0.3], [2.0, 0.1], [3.0, 0.7], [4.0, 0.2], [5.0, 0.5]])
    return ClusteringProblem.create(X, 2, cl=cl)


def _refusal(build):
    with pytest.raises(InfeasibleConstraintsError) as info:
        build()
    return str(info.value), info.value.certificate


@pytest.mark.parametrize("shape", sorted(_INFEASIBLE_FOR_TWO))
@pytest.mark.parametrize("pairwise", ["epsilon", "exact"])
def test_highs_integer_program_refuses_proven_infeasible_constraints_as_the_pyomo_builder(shape, pairwise):
    # HighsKMedoids built the program and left HiGHS to say only "infeasible".
    problem = _problem(_INFEASIBLE_FOR_TWO[shape])
    expected = _refusal(lambda: build_kmedoids_model(problem, pairwise=pairwise, relax=False))
    assert _refusal(lambda: HighsKMedoids(problem, pairwise=pairwise, relax=False)) == expected
    assert _refusal(lambda: kmedoids_matrices(problem, pairwise=pairwise, relax=False)) == expected


def test_the_refusal_names_the_odd_cycle():
    message, certificate = _refusal(
        lambda: HighsKMedoids(_problem(_INFEASIBLE_FOR_TWO["odd cycle"]), relax=False))
    assert "form a cycle of 5 cannot-links" in message
    assert sorted(certificate) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("shape", sorted(_INFEASIBLE_FOR_TWO))
@pytest.mark.parametrize("kwargs", [{"relax": True}, {"relax": False, "pairwise": "none"},
                                    {"relax": False, "lagrangian": True}],
                         ids=["relax", "no-pairwise-rows", "lagrangian"])
def test_programs_without_integer_pairwise_rows_are_still_built(shape, kwargs):
    # The LP relaxation, the program without pairwise rows and the Lagrangian (10) are
    # feasible whatever the constraints; the builder does not refuse them either.
    problem = _problem(_INFEASIBLE_FOR_TWO[shape])
    program = HighsKMedoids(problem, **kwargs)
    assert program.n_samples == problem.n_samples
    pyomo_kwargs = {key: value for key, value in kwargs.items() if key != "lagrangian"}
    if kwargs.get("lagrangian"):
        build_lagrangian_model(problem, **pyomo_kwargs)
    else:
        build_kmedoids_model(problem, **pyomo_kwargs)
