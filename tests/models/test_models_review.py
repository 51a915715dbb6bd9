"""Regressions of an audit of ccopt.models: each test failed before its fix.

A: set_multipliers is atomic. B: BHAssignmentProgram.solve checks time_limit. C: it checks
the solver name at construction. D: the abstract models check their .dat data. E: boolean
flags refuse non-bools. F: HighsKMedoids(lagrangian=True)'s epsilon hint. G: docstrings
(the .dat multipliers, read_pairwise_duals). H: the readers name what they expected.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt import ClusteringProblem, Constraints
from ccopt.exceptions import (
    ConflictingConstraintError,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    SolverNotAvailableError,
)
from ccopt.models import (
    abstract_kmedoids_model,
    abstract_lagrangian_model,
    abstract_mssc_model,
    assignment_matrix,
    build_kmedoids_model,
    build_lagrangian_model,
    build_mssc_model,
    kmedoids_labels,
    lagrangian_subgradients,
    mssc_labels,
    read_pairwise_duals,
    set_multipliers,
)
from ccopt.models.bh_assignment import BHAssignmentProgram, build_bh_assignment_model
from ccopt.models.highs_direct import HighsKMedoids
from ccopt.status import Status
from tests.models._dat import TINY_DAT

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


# ----------------------------------------------------------------------------- B, C: P (and E, H)


@pytest.mark.parametrize("time_limit", [-1, float("nan"), "1", True, -np.inf])
def test_bh_solve_refuses_a_bad_time_limit(time_limit):
    program = BHAssignmentProgram(problem(), centers=CENTERS[:2])
    with pytest.raises(InvalidParameterError, match="time_limit must be"):
        program.solve(time_limit=time_limit)


def test_bh_solve_takes_zero_as_a_spent_budget():
    # BHKMeans hands over what its Deadline has left, which stops at 0.
    program = BHAssignmentProgram(problem(), centers=CENTERS[:2], decompose=False)
    result = program.solve(time_limit=0)
    assert result.status is Status.TIME_LIMIT and result.solves == ()


def test_bh_solve_takes_an_infinite_time_limit():
    program = BHAssignmentProgram(problem(), centers=CENTERS[:2], decompose=False)
    assert program.solve(time_limit=float("inf")).status is Status.OPTIMAL


def test_bh_program_checks_the_solver_name_at_construction():
    # Before: accepted, and solve() returned optimal by the decomposition (no solver call).
    with pytest.raises(SolverNotAvailableError, match="foobar"):
        BHAssignmentProgram(problem(), solver="foobar", centers=CENTERS[:2])


@pytest.mark.parametrize(("builder", "kwargs"), [
    (BHAssignmentProgram, {"contract": "no"}),
    (BHAssignmentProgram, {"decompose": 0}),
    (build_bh_assignment_model, {"centers": CENTERS[:2], "eliminate_free": "no"}),
])
def test_bh_builders_refuse_non_bool_flags(builder, kwargs):
    flag, value = next((key, v) for key, v in kwargs.items() if key != "centers")
    with pytest.raises(InvalidParameterError, match=rf"{flag} must be True or False, got {value!r}"):
        builder(problem(), **kwargs)


def test_bh_builders_refuse_a_non_problem():
    with pytest.raises(InvalidParameterError, match=r"Expected a ccopt\.ClusteringProblem, got ndarray"):
        build_bh_assignment_model(X, CENTERS[:2])
    with pytest.raises(InvalidParameterError, match=r"Expected a ccopt\.ClusteringProblem, got NoneType"):
        BHAssignmentProgram(None)


# ----------------------------------------------------------------------------- D: .dat data


BAD_DATA = {
    "k > n": (TINY_DAT.replace("param k := 2;", "param k := 5;"), InvalidParameterError,
              r"n_samples=4 should be >= n_clusters=5"),
    "k = 0": (TINY_DAT.replace("param k := 2;", "param k := 0;"), InvalidParameterError,
              r"k \(the number of clusters.*\) must be >= 1, got 0"),
    "n = 2.5": (TINY_DAT.replace("param n := 4;", "param n := 2.5;"), InvalidParameterError,
                r"n \(the number of objects.*\) must be an integer, got 2.5"),
    "self-pair": (TINY_DAT.replace(" 0 0 1 ;", " 0 1 1 ;"), InvalidConstraintError,
                  r"self-pairs .* ml\[0\] = \(1, 1\)"),
    "ML and CL": (TINY_DAT.replace(" 0 1 2 ;", " 0 1 0 ;"), ConflictingConstraintError,
                  r"pair \(0, 1\) is must-link"),
    "index out of range": (TINY_DAT.replace(" 0 1 2 ;", " 0 1 7 ;"), InvalidConstraintError,
                           r"out of range .* cl\[0\] = \(1, 7\)"),
    "NaN in X": (TINY_DAT.replace("5.1 5.0", "nan 5.0"), InvalidDataError,
                 r"X\[3, 0\] = 'nan' .* not a number"),
    "missing X": (TINY_DAT.replace(" 3 5.1 5.0 ;", " 3 5.1 . ;"), InvalidDataError,
                  r"X\[3, 1\] is missing"),
    "epsilon 1.5": (TINY_DAT + "param epsilon := 1.5;\n", InvalidParameterError,
                    r"epsilon must lie strictly between 0 and 1, got 1.5"),
    "min_size > max_size": (TINY_DAT + "param min_size := 3;\nparam max_size := 2;\n",
                            InvalidParameterError, r"min_size=3 is larger than max_size=2"),
}


@pytest.mark.parametrize("case", list(BAD_DATA))
@pytest.mark.parametrize("abstract", [abstract_kmedoids_model, abstract_mssc_model,
                                      abstract_lagrangian_model])
def test_abstract_models_check_their_data(tmp_path, case, abstract):
    text, error, message = BAD_DATA[case]
    path = tmp_path / "bad.dat"
    path.write_text(text)
    with pytest.raises(error, match=message):
        abstract().create_instance(str(path))


def test_abstract_epsilon_zero_gives_exact_rows_but_not_a_lagrangian(tmp_path):
    path = tmp_path / "exact.dat"
    path.write_text(TINY_DAT + "param epsilon := 0;\n")
    instance = abstract_kmedoids_model().create_instance(str(path))
    assert pyo.value(instance.epsilon) == 0 and len(instance.cl_rows) == 4
    with pytest.raises(InvalidParameterError, match=r"strictly between 0 and 1, got 0.0\.$"):
        abstract_lagrangian_model().create_instance(str(path))


# ----------------------------------------------------------------------------- E: flags


NON_BOOL_FLAGS = [
    (build_kmedoids_model, {"relax": "no"}),
    (build_mssc_model, {"symmetry_breaking": "yes"}),
    (build_mssc_model, {"relax": 1}),
    (build_lagrangian_model, {"base": "mssc", "symmetry_breaking": "no"}),
    (build_lagrangian_model, {"relax": "no"}),
    (HighsKMedoids, {"lagrangian": "no"}),
    (HighsKMedoids, {"relax": "no"}),
]


@pytest.mark.parametrize(("builder", "kwargs"), NON_BOOL_FLAGS,
                         ids=[f"{b.__name__}-{next(iter(k.keys() - {'base'}))}" for b, k in NON_BOOL_FLAGS])
def test_builders_refuse_non_bool_flags(builder, kwargs):
    flag = next(iter(kwargs.keys() - {"base"}))
    with pytest.raises(InvalidParameterError,
                       match=rf"{flag} must be True or False, got {kwargs[flag]!r}"):
        builder(problem(), **kwargs)


@pytest.mark.parametrize(("abstract", "kwargs"), [
    (abstract_kmedoids_model, {"relax": "no"}),
    (abstract_kmedoids_model, {"pairwise_rows": "no"}),
    (abstract_mssc_model, {"symmetry_breaking": "no"}),
    (abstract_lagrangian_model, {"relax": "no"}),
])
def test_abstract_models_refuse_non_bool_flags(abstract, kwargs):
    (flag, value), = kwargs.items()
    with pytest.raises(InvalidParameterError, match=rf"{flag} must be True or False, got {value!r}"):
        abstract(**kwargs)


# ----------------------------------------------------------------------------- F: hint


def test_highs_lagrangian_epsilon_error_hints_at_lagrangian_false():
    with pytest.raises(InvalidParameterError, match=r"got 0\.0; lagrangian=True relaxes") as info:
        HighsKMedoids(problem(), lagrangian=True, epsilon=0)
    assert "lagrangian=False, pairwise='exact'" in str(info.value)


# ----------------------------------------------------------------------------- G: docstrings


_COMMAND_FILE = Path(__file__).resolve().parents[2] / "models" / "lagrangian.py"


@pytest.mark.parametrize("doc", [abstract_lagrangian_model.__doc__, _COMMAND_FILE.read_text()],
                         ids=["abstract_lagrangian_model", "models/lagrangian.py"])
def test_lagrangian_docstring_dat_multipliers_load(tmp_path, doc):
    lines = [line.split("#")[0].strip() for line in doc.splitlines()
             if line.strip().startswith("param ")]
    assert len(lines) == 3
    path = tmp_path / "multipliers.dat"
    path.write_text(TINY.read_text() + "\n".join(lines) + "\n")
    instance = abstract_lagrangian_model().create_instance(str(path))
    for line in lines:
        name, c, q, value = re.fullmatch(r"param (\w+) := (\d+) (\d+) (\S+) ;", line).groups()
        assert pyo.value(instance.component(name)[int(c), int(q)]) == float(value)


def test_read_pairwise_duals_docstring_does_not_promise_mssc():
    first_line = read_pairwise_duals.__doc__.splitlines()[0]
    assert "k-medoids" in first_line and "MSSC" not in first_line
    m = build_mssc_model(problem(), relax=True)
    with pytest.raises(InvalidParameterError, match="not LPs"):
        read_pairwise_duals(m)


# ----------------------------------------------------------------------------- H: readers


def test_label_readers_name_the_other_reader():
    p = problem()
    with pytest.raises(InvalidParameterError, match=r"got an MSSC model.*mssc_labels"):
        kmedoids_labels(build_mssc_model(p))
    with pytest.raises(InvalidParameterError, match=r"got a k-medoids model.*kmedoids_labels"):
        mssc_labels(build_kmedoids_model(p))


@pytest.mark.parametrize("reader", [kmedoids_labels, mssc_labels, read_pairwise_duals,
                                    assignment_matrix, set_multipliers, lagrangian_subgradients])
@pytest.mark.parametrize("model", [{}, None])
def test_readers_refuse_a_non_model(reader, model):
    with pytest.raises(InvalidParameterError,
                       match=rf"Expected a Pyomo model built by ccopt\.models, got {type(model).__name__}"):
        reader(model)


# ----------------------------------------------------------------------------- penalties that overflow


def test_bh_penalties_that_overflow_are_refused_not_made_hard():
    # penalty * weight * M overflowed to inf: a numpy RuntimeWarning, then the soft constraint
    # acted as a hard one. PCKMeans and PCS refuse such penalties; BH-kmeans now does too.
    from ccopt import BHKMeans

    X = np.random.default_rng(0).normal(size=(12, 2))
    cons = Constraints.from_pairs(ml=[(0, 1)], ml_weights=1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(InvalidParameterError, match=r"penalties overflow float64: penalty=1e\+300 times M="):
            BHKMeans(3, penalty=1e300, random_state=0).fit(X, constraints=cons)
    program = BHAssignmentProgram(ClusteringProblem.create(X, 3, constraints=cons, require_closure=False),
                                  centers=X[:3], penalty=1.0)
    with pytest.raises(InvalidParameterError, match="penalties overflow float64"):
        program.penalty = 1e300
    assert program.penalty == 1.0


# ----------------------------------------------------------------------------- infeasible integer programs


@pytest.mark.parametrize("build", [build_kmedoids_model, build_mssc_model])
def test_integer_programs_that_the_constraints_make_infeasible_are_refused_with_the_certificate(build):
    # The solver said only "infeasible" (a bare SolverError) for a cannot-link clique of k + 1.
    X = np.array([[0.0, 0], [0.1, 0], [5, 5], [5.1, 5], [10, 0], [10.2, 0]])
    clique = ClusteringProblem.create(X, 2, cl=[(0, 2), (2, 4), (0, 4)])
    with pytest.raises(InfeasibleConstraintsError, match=r"3 objects need 3 clusters, only 2 allowed") as caught:
        build(clique)
    assert caught.value.certificate == [0, 2, 4]
    build(clique, relax=True)  # the epsilon-row relaxation stays feasible
    build(clique, pairwise="none")  # no pairwise rows: the program is feasible
    build(ClusteringProblem.create(X, 3, cl=[(0, 2), (2, 4), (0, 4)]))
