"""Bad inputs at every entry point of ccopt.models (builders, highspy programs, abstract models
and their .dat data, readers) are refused in ccopt's words, each named with what was wrong."""

import logging
import threading

import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt import ClusteringProblem
from ccopt.exceptions import (
    ConflictingConstraintError,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
)
from ccopt.models import (
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
from ccopt.models.highs_direct import HighsKMedoids, kmedoids_matrices
from ccopt.models.kmedoids import abstract_kmedoids_model
from ccopt.models.lagrangian import abstract_lagrangian_model
from ccopt.models.mssc import abstract_mssc_model
from tests.models._dat import TINY_DAT

from .instances import six_points_problem

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


# ----------------------------------------------------------------------------- .dat data


ABSTRACT = [abstract_kmedoids_model, abstract_mssc_model, abstract_lagrangian_model]

# Each check of the abstract models (check_n, check_data, check_epsilon) once, and the
# entries outside the declared indices, which Pyomo refused with a bare RuntimeError.
BAD_DAT = {
    "n = 2.5": (TINY_DAT.replace("param n := 4;", "param n := 2.5;"), InvalidParameterError,
                ["n (the number of objects in the model data) must be an integer, got 2.5."]),
    "k > n": (TINY_DAT.replace("param k := 2;", "param k := 5;"), InvalidParameterError,
              ["n_samples=4 should be >= n_clusters=5."]),
    "epsilon 1.5": (TINY_DAT + "param epsilon := 1.5;\n", InvalidParameterError,
                    ["epsilon must lie strictly between 0 and 1, got 1.5"]),
    "X row beyond n": (TINY_DAT.replace(" 3 5.1 5.0 ;", " 3 5.1 5.0\n 9 1.0 1.0 ;"), InvalidDataError,
                       ["X[9, 0] is in the model data (the .dat file)", "row 9 is not an object",
                        "n = 4 gives the objects 0..3"]),
    "X row negative": (TINY_DAT.replace(" 3 5.1 5.0 ;", " 3 5.1 5.0\n -1 1.0 1.0 ;"), InvalidDataError,
                       ["X[-1, 0] is in the model data", "row -1 is not an object"]),
    "pair object beyond n": (TINY_DAT.replace(" 0 1 2 ;", " 0 1 9 ;"), InvalidConstraintError,
                             ["Object index out of range for n_samples=4 (valid 0..3) in cl[0] = (1, 9)"]),
    "pair position not in ML": (
        TINY_DAT.replace("param : ML : ml_u ml_v :=\n 0 0 1 ;",
                    "set ML := 0 ;\nparam ml_u := 0 0 5 2 ;\nparam ml_v := 0 1 ;"),
        InvalidConstraintError,
        ["ml_u[5] is in the model data (the .dat file)", "5 is not a must-link position: ML = [0]"]),
}


def _pyomo_errors(caplog):
    return [r for r in caplog.records if r.name.startswith("pyomo") and r.levelno >= logging.ERROR]


@pytest.mark.parametrize("case", list(BAD_DAT))
@pytest.mark.parametrize("abstract", ABSTRACT)
def test_bad_dat_data_raise_ccopt_errors_alone(tmp_path, caplog, case, abstract):
    # Pyomo logged "Constructing component 'check_data' from data=None failed" ahead of the
    # ccopt error, and an X row beyond n failed as a bare RuntimeError naming no check.
    text, error, fragments = BAD_DAT[case]
    path = tmp_path / "bad.dat"
    path.write_text(text)
    with pytest.raises(error) as info:
        abstract().create_instance(str(path))
    assert type(info.value) is error
    for fragment in fragments:
        assert fragment in str(info.value)
    assert _pyomo_errors(caplog) == []


def test_pyomo_still_reports_its_own_errors(tmp_path, caplog):
    # Only the reports of ccopt's errors are dropped: a row label Pyomo cannot index is its
    # own error and keeps its log line.
    path = tmp_path / "bad.dat"
    path.write_text(TINY_DAT.replace(" 3 5.1 5.0 ;", " 3 5.1 5.0\n a 1.0 1.0 ;"))
    with pytest.raises(RuntimeError):
        abstract_kmedoids_model().create_instance(str(path))
    assert [r.getMessage().split("\n")[0] for r in _pyomo_errors(caplog)] == [
        "Constructing component 'X' from data={(0, 0): 0.0, (1, 0): 0.1, (2, 0): 5.0, "
        "(3, 0): 5.1, ('a', 0): 1.0, (0, 1): 0.0, (1, 1): 0.0, (2, 1): 5.0, (3, 1): 5.0, "
        "('a', 1): 1.0} failed:"]


def test_features_may_be_named_in_a_dat_file(tmp_path):
    # X indexed by Reals x Reals refused `set F := x y ;` with a bare Pyomo error.
    path = tmp_path / "named.dat"
    path.write_text(TINY_DAT.replace("set F := 0 1;", "set F := x y;").replace("param X :  0 1 :=", "param X :  x y :="))
    for abstract in ABSTRACT:
        instance = abstract().create_instance(str(path))
        assert list(instance.F) == ["x", "y"] and pyo.value(instance.X[3, "x"]) == 5.1


def test_the_report_filter_acts_only_in_the_loading_thread(caplog):
    # Added and removed around each load, one thread's load removed it while another's ran.
    from ccopt.models._common import _DROP_REPORTS_OF_CCOPT_ERRORS as drop

    record = logging.LogRecord("pyomo.core", logging.ERROR, __file__, 1, "Constructing component failed", None, None)
    loaded, checked = threading.Event(), threading.Event()
    seen = {}

    def loading_thread():
        with drop.loading():
            try:
                raise InvalidDataError("bad")
            except InvalidDataError:
                seen["loading"] = drop.filter(record)
                loaded.set()
                checked.wait(10)

    worker = threading.Thread(target=loading_thread)
    worker.start()
    loaded.wait(10)
    try:
        raise InvalidDataError("bad")
    except InvalidDataError:
        seen["other"] = drop.filter(record)  # this thread is not loading: its record stays
    checked.set()
    worker.join()
    assert seen == {"loading": False, "other": True}


def test_good_dat_data_still_build(tmp_path):
    path = tmp_path / "good.dat"
    path.write_text(TINY_DAT)
    for abstract in ABSTRACT:
        instance = abstract().create_instance(str(path))
        assert type(instance) is pyo.ConcreteModel
        assert pyo.value(instance.X[3, 0]) == 5.1 and len(instance.I) == 4


DAT_CHECK_MESSAGES = {
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


@pytest.mark.parametrize("case", list(DAT_CHECK_MESSAGES))
@pytest.mark.parametrize("abstract", [abstract_kmedoids_model, abstract_mssc_model,
                                      abstract_lagrangian_model])
def test_abstract_models_check_their_data(tmp_path, case, abstract):
    text, error, message = DAT_CHECK_MESSAGES[case]
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


# ----------------------------------------------------------------------------- flags


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
        builder(six_points_problem(), **kwargs)


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


# ----------------------------------------------------------------------------- readers


def test_label_readers_name_the_other_reader():
    p = six_points_problem()
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
