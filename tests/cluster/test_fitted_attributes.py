"""What a fitted estimator keeps: violations per given row, the constraints it read, and a
state that pickles, without the training data.

The instances are tiny: 12 points in three groups of four, or six points on a line.
"""

from __future__ import annotations

import pickle
from contextlib import nullcontext

import numpy as np
import pytest

import ccopt

from ._estimators import ESTIMATORS, make_estimator


@pytest.fixture(scope="module")
def groups():
    """12 points in three groups of four, with pairs that agree with the groups."""
    rng = np.random.default_rng(0)
    X = np.repeat([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]], 4, axis=0) + rng.normal(0.0, 0.3, size=(12, 2))
    return X, [(0, 1), (4, 5)], [(0, 4), (5, 8)]


def _ignored_cannot_links(name: str, n_cl: int):
    """KMeans ignores the ``n_cl`` cannot-links it is given and says so; the others are silent."""
    if name == "KMeans":
        return pytest.warns(ccopt.CcoptWarning, match=rf"^KMeans does not enforce cannot-links: .* ignores the "
                            rf"{n_cl} cannot-link\(s\) given")
    return nullcontext()


# ----------------------------------------------------------------------------- pickling
@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_estimator_survives_a_pickle_round_trip(name, groups):
    # PCS must not keep its PCKmeans model (holding a lambda and the training problem) after fit.
    X, ml, cl = groups
    est = make_estimator(name)
    if name in ("KMeansS", "PCS"):
        est.set_params(sizes=[4, 4, 4])
    pairs = {} if name == "KMeansS" else {"ml": ml, "cl": cl}
    with _ignored_cannot_links(name, 2):
        est.fit(X, **pairs)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.labels_, est.labels_)
    new = X[::2] + 0.1
    np.testing.assert_array_equal(copy.predict(new), est.predict(new))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_estimator_does_not_carry_the_training_data(name):
    # PCS must not keep its model, and with it the training problem, on the estimator after fit.
    X = np.random.default_rng(1).normal(size=(60, 20))
    est = make_estimator(name)
    if name in ("KMeansS", "PCS"):
        est.set_params(sizes=[20, 20, 20])
    with _ignored_cannot_links(name, 1):
        est.fit(X, **({} if name == "KMeansS" else {"ml": [(0, 1)], "cl": [(2, 3)]}))
    assert len(pickle.dumps(est)) < X.nbytes


def test_a_pcs_fitted_with_hard_constraints_pickles(groups):
    X, ml, cl = groups
    cons = ccopt.Constraints.from_pairs(ml=ml, cl=cl, ml_hard=True, cl_hard=[True, False], n_samples=12)
    est = make_estimator("PCS", sizes=[4, 4, 4]).fit(X, constraints=cons)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.labels_, est.labels_)


# ----------------------------------------------------------------------------- violations
def _violated_rows(labels, ml, cl):
    """Per row as given (ML rows, then CL rows): is it violated? Computed from scratch."""
    return np.array([labels[i] != labels[j] for i, j in ml] + [labels[i] == labels[j] for i, j in cl])


def test_violated_rows_come_back_in_the_given_order_with_duplicates_at_every_row():
    # violations_.cl_violated indexes the merged, distinct constraints (ML rows first), so
    # cl[cl_violated] would be the wrong pair: violated_ follows the rows as given, and the
    # merged list that violations_ indexes is exposed as constraints_.
    X = np.array([[0.0], [0.1], [5.0], [5.1], [10.0], [10.1]])
    ml, cl = [(0, 2), (0, 2), (4, 5)], [(0, 1), (2, 3), (1, 0)]
    with pytest.warns(ccopt.DuplicateConstraintWarning), _ignored_cannot_links("KMeans", 2):
        est = ccopt.KMeans(3, random_state=0).fit(X, ml=ml, cl=cl)
    expected = _violated_rows(est.labels_, ml, cl)
    assert expected[len(ml):].tolist() == [True, False, True]  # KMeans ignores cannot-links
    np.testing.assert_array_equal(est.violated_, expected)
    assert [cl[r] for r in np.flatnonzero(est.violated_[len(ml):])] == [(0, 1), (1, 0)]
    # violations_ keeps its positions in the distinct constraints, now exposed.
    assert isinstance(est.constraints_, ccopt.Constraints)
    assert est.constraints_.pairs[est.violations_.cl_violated].tolist() == [[0, 1]]
    assert est.n_violations_ == {"ml": 0, "cl": 1, "total": 1}


@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n != "KMeansS"])
def test_every_estimator_reports_violations_per_given_row(name, groups):
    X, ml, cl = groups
    # A repeated ML row, and a CL inside a group that the soft algorithms may well break.
    ml, cl = [*ml, ml[0][::-1]], [(0, 8), *cl, (2, 3)]
    est = make_estimator(name)
    if name == "PCS":
        est.set_params(sizes=[4, 4, 4])
    with pytest.warns(ccopt.DuplicateConstraintWarning), _ignored_cannot_links(name, 4):
        est.fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(est.violated_, _violated_rows(est.labels_, ml, cl))
    cons = est.constraints_
    np.testing.assert_array_equal(est.violated_, cons.to_given(est.violations_.violated))
    assert len(cons) == len(ml) + len(cl) - 1


def test_violated_rows_follow_a_constraints_object_in_its_own_row_order():
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    with pytest.warns(ccopt.DuplicateConstraintWarning):
        cons = ccopt.Constraints([(2, 3), (0, 1), (0, 2), (3, 2)], ["CL", "ML", "CL", "CL"], n_samples=4)
    with _ignored_cannot_links("KMeans", 2):
        est = ccopt.KMeans(2, random_state=0).fit(X, constraints=cons)
    assert est.constraints_ is cons
    assert est.violated_.tolist() == [True, False, False, True]
