"""ccopt's exceptions: they survive a pickle (worker processes) and refine the built-ins."""

from __future__ import annotations

import pickle

import pytest

import ccopt
import ccopt.exceptions


def _instances():
    for name in ccopt.exceptions.__all__:
        cls = getattr(ccopt.exceptions, name)
        if cls is ccopt.DataFormatError:
            yield cls("bad row", path="data.csv", line=7)
        elif cls is ccopt.InfeasibleConstraintsError:
            yield cls("cannot-link inside a must-link chain", certificate=[0, 3, 5])
        else:
            yield cls(f"{name} message")


@pytest.mark.parametrize("error", list(_instances()), ids=lambda e: type(e).__name__)
def test_every_exception_survives_a_pickle_round_trip_with_its_attributes(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.__dict__ == error.__dict__
    if isinstance(error, ccopt.DataFormatError):
        assert (copy.path, copy.line, str(copy)) == ("data.csv", 7, "data.csv:7: bad row")


def test_value_errors_are_value_errors():
    for cls in (ccopt.InvalidDataError, ccopt.DataFormatError, ccopt.InvalidConstraintError,
                ccopt.ConflictingConstraintError, ccopt.InfeasibleConstraintsError,
                ccopt.InvalidParameterError, ccopt.NotFittedError):
        assert issubclass(cls, ValueError) and issubclass(cls, ccopt.CcoptError), cls
