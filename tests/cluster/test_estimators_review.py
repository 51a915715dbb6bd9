"""Regression tests for defects found in a review of the clustering estimators.

Each test names the defect it guards against; the instances are tiny.
"""

from __future__ import annotations

import pickle
import re
import warnings

import networkx as nx
import numpy as np
import pytest

import ccopt.cluster

ESTIMATORS = ["KMeans", "COPKMeans", "PCKMeans", "BHKMeans", "LCC", "KMeansS", "PCS", "MLKMeans",
              "GreedyMLKMeans"]


def _make(name: str, n_clusters: int = 3, **params):
    cls = getattr(ccopt.cluster, name)
    est = cls(n_clusters, random_state=0)
    if "progress" in est.get_params():
        params.setdefault("progress", False)
    return est.set_params(**params)


@pytest.fixture(scope="module")
def groups():
    """12 points in three groups of four, with pairs that agree with the groups."""
    rng = np.random.default_rng(0)
    X = np.repeat([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]], 4, axis=0) + rng.normal(0.0, 0.3, size=(12, 2))
    return X, [(0, 1), (4, 5)], [(0, 4), (5, 8)]


# ----------------------------------------------------------------------------- pickling
@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_estimator_survives_a_pickle_round_trip(name, groups):
    # PCS kept its PCKmeans model (holding a lambda and the training problem) after fit.
    X, ml, cl = groups
    est = _make(name)
    if name in ("KMeansS", "PCS"):
        est.set_params(sizes=[4, 4, 4])
    pairs = {} if name == "KMeansS" else {"ml": ml, "cl": cl}
    est.fit(X, **pairs)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.labels_, est.labels_)
    new = X[::2] + 0.1
    np.testing.assert_array_equal(copy.predict(new), est.predict(new))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_estimator_does_not_carry_the_training_data(name):
    # PCS kept its model, and with it the training problem, on the estimator after fit.
    X = np.random.default_rng(1).normal(size=(60, 20))
    est = _make(name)
    if name in ("KMeansS", "PCS"):
        est.set_params(sizes=[20, 20, 20])
    est.fit(X, **({} if name == "KMeansS" else {"ml": [(0, 1)], "cl": [(2, 3)]}))
    assert len(pickle.dumps(est)) < X.nbytes


def test_a_pcs_fitted_with_hard_constraints_pickles(groups):
    X, ml, cl = groups
    cons = ccopt.Constraints.from_pairs(ml=ml, cl=cl, ml_hard=True, cl_hard=[True, False], n_samples=12)
    est = _make("PCS", sizes=[4, 4, 4]).fit(X, constraints=cons)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.labels_, est.labels_)


# ----------------------------------------------------------------------------- violations
def _violated_rows(labels, ml, cl):
    """Per row as given (ML rows, then CL rows): is it violated? Computed from scratch."""
    return np.array([labels[i] != labels[j] for i, j in ml] + [labels[i] == labels[j] for i, j in cl])


def test_violated_rows_come_back_in_the_given_order_with_duplicates_at_every_row():
    # violations_.cl_violated counted the merged ML rows first, so cl[cl_violated] was the
    # wrong pair, and the merged list it indexed was not exposed.
    X = np.array([[0.0], [0.1], [5.0], [5.1], [10.0], [10.1]])
    ml, cl = [(0, 2), (0, 2), (4, 5)], [(0, 1), (2, 3), (1, 0)]
    with pytest.warns(ccopt.DuplicateConstraintWarning):
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
    est = _make(name)
    if name == "PCS":
        est.set_params(sizes=[4, 4, 4])
    with pytest.warns(ccopt.DuplicateConstraintWarning):
        est.fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(est.violated_, _violated_rows(est.labels_, ml, cl))
    cons = est.constraints_
    np.testing.assert_array_equal(est.violated_, cons.to_given(est.violations_.violated))
    assert len(cons) == len(ml) + len(cl) - 1


def test_violated_rows_follow_a_constraints_object_in_its_own_row_order():
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    with pytest.warns(ccopt.DuplicateConstraintWarning):
        cons = ccopt.Constraints([(2, 3), (0, 1), (0, 2), (3, 2)], ["CL", "ML", "CL", "CL"], n_samples=4)
    est = ccopt.KMeans(2, random_state=0).fit(X, constraints=cons)
    assert est.constraints_ is cons
    assert est.violated_.tolist() == [True, False, False, True]


# ----------------------------------------------------------------------------- hard flags
@pytest.fixture
def line():
    return np.array([[0.0], [0.1], [5.0], [5.1], [10.0], [10.1]])


@pytest.mark.parametrize("name", ["KMeans", "LCC"])
def test_estimators_that_ignore_hard_flags_say_so(name, line):
    # KMeans and LCC returned a labelling for an infeasible hard set without a word. KMeans,
    # which ignores every cannot-link, says so once, counting the hard ones in that warning.
    triangle = ccopt.Constraints.from_pairs(cl=[(0, 2), (2, 4), (0, 4)], cl_hard=True, n_samples=6)
    expected = (r"^KMeans does not enforce cannot-links: .*ignores the 3 cannot-link\(s\) given \(\d of them "
                r"violated by labels_; 3 of them marked hard\)" if name == "KMeans" else
                r"^LCC does not honour hard flags .*\(3 cannot-link\(s\) marked hard of 3 constraints\).* "
                r"PCKMeans, BHKMeans and PCS honour hard flags")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = _make(name, 2).fit(line, constraints=triangle)
    messages = [str(w.message) for w in caught if issubclass(w.category, ccopt.CcoptWarning)]
    assert len(messages) == 1 and re.match(expected, messages[0]), messages
    assert est.labels_.shape == (6,)
    with pytest.raises(ccopt.InfeasibleConstraintsError, match=r"Objects \[0, 2, 4\] pairwise cannot-link"):
        ccopt.COPKMeans(2, random_state=0).fit(line, constraints=triangle)


@pytest.mark.parametrize("name", ["KMeans", "LCC"])
def test_estimators_that_ignore_weights_say_so(name, line):
    cons = ccopt.Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 4), (1, 3)], cl_weights=[5.0, 1.0],
                                        ml_hard=True, n_samples=6)
    with pytest.warns(ccopt.CcoptWarning, match=r"\(1 with a weight other than 1 of 3 constraints\)"):
        _make(name).fit(line, constraints=cons)


@pytest.mark.parametrize("name", ["KMeans", "LCC"])
def test_no_warning_when_nothing_is_ignored(name, line, recwarn):
    # Hard must-links hold in both (they are contracted): no hard flag or weight goes unread.
    # KMeans says only that it does not enforce the cannot-link (LCC does).
    cons = ccopt.Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 4)], ml_hard=True, n_samples=6)
    _make(name).fit(line, constraints=cons)
    messages = [str(w.message) for w in recwarn if issubclass(w.category, ccopt.CcoptWarning)]
    assert len(messages) == (name == "KMeans")
    assert all(m.startswith("KMeans does not enforce cannot-links") for m in messages)


# ----------------------------------------------------------------------------- ML-kmeans dead ends
@pytest.mark.parametrize("name", ["MLKMeans", "GreedyMLKMeans"])
def test_ml_kmeans_reports_proven_infeasibility_not_a_dead_end(name, line):
    # k=1 with cannot-links that are not one clique raised ClusteringDeadEndError ("greedy
    # colouring needs 2 clusters"), where COPKMeans raises InfeasibleConstraintsError.
    with pytest.raises(ccopt.InfeasibleConstraintsError, match=r"2 objects need 2 clusters, only 1") as info:
        _make(name, 1).fit(line, cl=[(0, 1), (1, 2)])
    assert len(info.value.certificate) == 2


def test_ml_kmeans_dead_end_says_whether_a_labelling_exists():
    # The Groetzsch graph: not 3-colourable, no 4-clique; the complete search proves it.
    edges = [tuple(sorted(edge)) for edge in nx.mycielski_graph(4).edges]
    X = np.arange(22, dtype=float).reshape(-1, 1)
    with pytest.raises(ccopt.InfeasibleConstraintsError, match=r"complete search .* found none"):
        _make("MLKMeans", 3).fit(X, cl=edges)
    cycle = [(i, (i + 1) % 5) for i in range(5)]  # with k = 2 an odd cycle is a proof
    with pytest.raises(ccopt.InfeasibleConstraintsError, match=r"cycle of 5 cannot-links"):
        _make("MLKMeans", 2).fit(X[:10], cl=cycle)
    X = np.array([[0.0], [10.0], [0.2], [9.8], [5.0]])
    with pytest.raises(ccopt.ClusteringDeadEndError, match=r"dead end.*satisfiable"):
        _make("GreedyMLKMeans", 2, init=np.array([[0.0], [10.0]])).fit(X, cl=[(0, 4), (1, 4)])


# ----------------------------------------------------------------------------- progress
@pytest.mark.parametrize("progress", [None, 0, 1])
def test_an_estimator_refuses_a_progress_that_is_not_a_bool(progress, line):
    with pytest.raises(ccopt.InvalidParameterError, match=rf"progress must be True, False or 'always', got {progress}"):
        ccopt.KMeans(2, random_state=0, progress=progress).fit(line)
