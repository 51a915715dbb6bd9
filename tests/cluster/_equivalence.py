"""Shared pieces of the tests that compare a fast assignment pass with the loop it replaced."""

from __future__ import annotations

import warnings

import numpy as np

from ccopt.cluster._cop_kmeans import _DeadEnd
from ccopt.constraints import Constraints
from ccopt.exceptions import CcoptWarning, InfeasibleConstraintsError

# Cannot-links on a 5-cycle (and one free object): an odd cycle, so k = 2 dead-ends every run.
ODD_CYCLE_X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 1.0], [1.0, 2.0], [0.0, 1.0], [5.0, 5.0]])
ODD_CYCLE = Constraints.from_pairs(cl=[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)], n_samples=len(ODD_CYCLE_X))


def assert_same_pass(got, expected) -> None:
    """The same labels (and dtype), or the same dead end with its blockers in the same order."""
    if isinstance(expected, _DeadEnd):
        assert isinstance(got, _DeadEnd)
        assert got.super_index == expected.super_index
        assert got.blockers == expected.blockers
        assert list(got.blockers) == list(expected.blockers)
    else:
        assert isinstance(got, np.ndarray)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def fit_outcome(make, X, cons, *extra: str):
    """Everything a fit returns, to the bit, or its error's type and message, with the ccopt
    warnings it gives (category and message, in order).

    ``extra`` names further fitted attributes to compare (a history, a count).
    """
    with warnings.catch_warnings(record=True) as caught:
        # Record ccopt's warnings (a run stopped on max_iter, a cluster left empty): both
        # implementations must give the same ones. Other warnings follow the filters in force.
        warnings.simplefilter("always", CcoptWarning)
        try:
            est = make().fit(X, constraints=cons)
        except (InfeasibleConstraintsError, RuntimeError, ValueError) as error:
            outcome = (type(error), str(error))
        else:
            outcome = (est.labels_.tobytes(), est.cluster_centers_.tobytes(), est.objective_, est.n_iter_,
                       est.status_, *(_plain(getattr(est, name)) for name in extra))
    for w in caught:
        if not issubclass(w.category, CcoptWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return (*outcome, tuple((w.category, str(w.message)) for w in caught if issubclass(w.category, CcoptWarning)))


def _plain(value):
    return list(value) if isinstance(value, list | np.ndarray) else value
