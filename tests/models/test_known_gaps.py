"""Gaps between the builders' entry points that let a bad input through without ccopt's word."""

import logging
import threading

import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt import ClusteringProblem
from ccopt.exceptions import (
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
)
from ccopt.models import build_kmedoids_model, build_lagrangian_model
from ccopt.models.highs_direct import HighsKMedoids, kmedoids_matrices
from ccopt.models.kmedoids import abstract_kmedoids_model
from ccopt.models.lagrangian import abstract_lagrangian_model
from ccopt.models.mssc import abstract_mssc_model
from tests.models._dat import TINY_DAT

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
