"""Regressions from an adversarial input sweep of the public entry points (2026-11-23).

Each test pins one defect the sweep found: a silent wrong answer, a lost input or a raw
Python error where a ccopt exception with a clear message belongs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

import ccopt
from ccopt.constraints import MustLinkClosure
from ccopt.lagrange import coherence, normalize_scores, pessimistic_baseline, repair_labels

TWO_PAIRS = np.array([[0.0], [0.1], [5.0], [5.1]])


def _empty_cluster_warnings(fit) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, ccopt.ConvergenceWarning)
            and "empty cluster" in str(w.message)]


@pytest.mark.parametrize("make", [
    lambda: ccopt.COPKMeans(2, random_state=0),
    lambda: ccopt.PCKMeans(2, random_state=0),
    lambda: ccopt.MLKMeans(2, random_state=0),
    lambda: ccopt.GreedyMLKMeans(2, random_state=0),
    lambda: ccopt.KMeansS(2, sizes=[3, 3], random_state=0),
    lambda: ccopt.KMeans(2, random_state=0),
])
def test_a_fit_with_an_empty_cluster_warns_once(make):
    # Six identical points: every algorithm puts them in one cluster and used to say
    # nothing but "converged" (only KMeans warned).
    est = make()
    messages = _empty_cluster_warnings(lambda: est.fit(np.ones((6, 2))))
    assert np.unique(est.labels_).size == 1
    assert len(messages) == 1
    assert "only 1 distinct point" in messages[0] and "cluster(s) [1]" in messages[0]


def test_lcc_warns_when_its_final_labelling_leaves_a_cluster_empty():
    # LCC starts from a random labelling, and a cluster it empties keeps its centre (the
    # paper's algorithm); seven distinct points, k = 5: cluster 0 ends empty.
    X = np.random.default_rng(1).normal(size=(7, 1))
    est = ccopt.LCC(5, random_state=0)
    messages = _empty_cluster_warnings(lambda: est.fit(X, ml=[(3, 6)]))
    assert np.bincount(est.labels_, minlength=5)[0] == 0
    assert len(messages) == 1 and "try another random_state" in messages[0]


def test_no_empty_cluster_warning_when_every_cluster_is_used():
    assert _empty_cluster_warnings(lambda: ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS)) == []


def test_pairs_passed_as_y_are_refused_and_labels_as_y_are_ignored():
    with pytest.raises(ccopt.InvalidParameterError, match="pass constraints by keyword"):
        ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS, [(0, 2)])
    with pytest.raises(ccopt.InvalidParameterError, match="shape"):
        ccopt.LCC(2, random_state=0).fit_predict(TWO_PAIRS, [(0, 2), (1, 3)])
    with pytest.raises(ccopt.InvalidParameterError, match="ragged"):
        ccopt.LCC(2, random_state=0).fit(TWO_PAIRS, [(0, 2), (1,)])
    plain = ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS).labels_
    np.testing.assert_array_equal(ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS, [0, 0, 1, 1]).labels_, plain)


@pytest.mark.parametrize("scale", [1e-150, 1e-165, 1e-200])
def test_data_whose_squared_distances_underflow_are_refused(scale):
    # At 1e-165 every squared distance is 0 and COP-kmeans put all four points together.
    with pytest.raises(ccopt.InvalidDataError, match="too small"):
        ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS * scale)
    with pytest.raises(ccopt.InvalidDataError, match="too small"):
        ccopt.impact_scores(TWO_PAIRS * scale, 2, ml=[(0, 1)], cl=[(0, 2)], criterion="mssc", progress=False)


def test_small_but_representable_and_all_zero_data_are_accepted():
    labels = ccopt.COPKMeans(2, random_state=0).fit(TWO_PAIRS * 1e-140).labels_
    assert labels[0] == labels[1] != labels[2] == labels[3]
    ccopt.ClusteringProblem.create(np.zeros((4, 2)), 1)


@pytest.mark.parametrize("scale", [1e-170, 1e-100, 1e100, 1e154, 1e160, 1e300])
def test_coherence_does_not_depend_on_the_scale(scale):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (6, 2)), rng.normal(5, 1, (6, 2))])
    ml, cl = [(0, 1), (6, 7), (0, 6)], [(0, 2), (2, 8), (3, 4)]
    reference = coherence(X, ml=ml, cl=cl)
    scaled = coherence(X * scale, ml=ml, cl=cl)
    assert scaled.value == pytest.approx(reference.value)
    np.testing.assert_allclose(scaled.per_constraint, reference.per_constraint)


@pytest.mark.parametrize(("scores", "mask", "match"), [
    ([-1.0, np.nan, -2.0], [True, True, True], "finite"),
    ([-1.0, -np.inf], [True, False], "finite"),
    (["a", -2.0], [1, 0], "numbers"),
    ([-1.0, -2.0], ["False", "True"], "booleans"),
    ([-1.0, -2.0], [2, 0], "booleans"),
])
def test_normalize_scores_refuses_what_it_would_get_wrong(scores, mask, match):
    with pytest.raises(ccopt.InvalidParameterError, match=match):
        normalize_scores(scores, mask)


def test_normalize_scores_reads_01_masks():
    np.testing.assert_allclose(normalize_scores([-1.0, -2.0, -4.0], [1, 1, 0]), [0.5, 1.0, 1.0])


def test_a_baseline_whose_base_solve_ran_out_of_time_says_time_limit():
    # The pessimistic base program has no constraint: it cannot be infeasible.
    result = pessimistic_baseline(TWO_PAIRS, 2, ml=[(0, 1)], cl=[(0, 2)], time_limit=1e-9,
                                  progress=False, random_state=0)
    assert result.status is ccopt.Status.TIME_LIMIT
    assert np.isnan(result.scores).all()


def test_an_unfitted_estimator_is_caught_as_scikit_learns_not_fitted_error():
    with pytest.raises(SklearnNotFittedError):
        ccopt.KMeans(2).predict(np.zeros((2, 2)))
    with pytest.raises(ccopt.NotFittedError):
        ccopt.BHKMeans(2).predict(np.zeros((2, 2)))
    assert not hasattr(ccopt.LCC(2), "labels_")


@pytest.mark.parametrize("param", ["decompose", "tee"])
def test_bh_kmeans_switches_must_be_booleans(param):
    with pytest.raises(ccopt.InvalidParameterError, match=f"{param} must be True or False"):
        ccopt.BHKMeans(2, **{param: "no"}).fit(TWO_PAIRS)


def test_a_sparse_matrix_storing_a_cell_twice_is_refused():
    # +1 (ML) and -1 (CL) on cell (0, 1) used to add up to 0: the pair vanished.
    cancelling = sp.coo_matrix(([1, -1], ([0, 0], [1, 1])), shape=(3, 3))
    with pytest.raises(ccopt.InvalidConstraintError, match=r"\(0, 1\) x2"):
        ccopt.Constraints.from_matrix(cancelling)
    mirrored = sp.csr_matrix(([1, 1, -1], ([0, 1, 2], [1, 0, 0])), shape=(3, 3))
    assert len(ccopt.Constraints.from_matrix(mirrored)) == 2


def test_sparse_data_are_refused_with_a_pointer_to_toarray():
    with pytest.raises(ccopt.InvalidDataError, match=r"sparse matrix .*toarray"):
        ccopt.KMeans(2).fit(sp.csr_matrix(np.eye(3)))


def test_a_set_of_pairs_is_refused_and_a_generator_is_read():
    with pytest.raises(ccopt.InvalidConstraintError, match="set, which has no order"):
        ccopt.Constraints.from_pairs(ml={(0, 1), (1, 2)}, n_samples=3)
    from_generator = ccopt.Constraints.from_pairs(ml=((i, i + 1) for i in range(2)), cl=iter([(0, 3)]),
                                                  n_samples=4)
    from_lists = ccopt.Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(0, 3)], n_samples=4)
    np.testing.assert_array_equal(from_generator.pairs, from_lists.pairs)
    np.testing.assert_array_equal(from_generator.kinds, from_lists.kinds)


@pytest.mark.parametrize("limit", [-1, 0, 2.5, True])
def test_table_limit_must_be_a_positive_int(limit):
    result = ccopt.impact_scores(TWO_PAIRS, 2, ml=[(0, 1)], cl=[(0, 2)], max_iter=5, random_state=0,
                                 progress=False)
    assert len(result.table(limit=1).splitlines()) == 3
    with pytest.raises(ccopt.InvalidParameterError, match="limit"):
        result.table(limit=limit)


@pytest.mark.parametrize(("labels", "cost", "rng", "match"), [
    ([0, 1, 1], None, None, "labels must be 4 integer"),
    ([0.0, 1, 1, 0], None, None, "labels must be 4 integer"),
    ([0, 1, 5, 0], None, None, "labels must lie in 0..1"),
    ([0, 1, 1, 0], np.ones((3, 2)), None, "cost must be a real array"),
    ([0, 1, 1, 0], np.full((4, 2), np.nan), None, "NaN"),
    ([0, 1, 1, 0], None, 0, "rng must be a numpy Generator"),
])
def test_repair_labels_checks_its_inputs(labels, cost, rng, match):
    closure = MustLinkClosure.from_constraints(ccopt.Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=4))
    cost = np.random.default_rng(0).random((4, 2)) if cost is None else cost
    rng = np.random.default_rng(0) if rng is None else rng
    with pytest.raises(ccopt.InvalidParameterError, match=match):
        repair_labels(labels, cost, closure, rng)


def test_repair_labels_takes_a_list_and_returns_a_feasible_labelling():
    cons = ccopt.Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=4)
    result = repair_labels([0, 1, 1, 0], np.random.default_rng(0).random((4, 2)),
                           MustLinkClosure.from_constraints(cons), np.random.default_rng(0))
    assert cons.violations(result.labels).total == 0


def test_baselines_take_a_random_state_like_the_estimators():
    common = dict(ml=[(0, 1)], cl=[(0, 2)], progress=False)
    a = pessimistic_baseline(TWO_PAIRS, 2, random_state=np.random.RandomState(3), **common)
    b = pessimistic_baseline(TWO_PAIRS, 2, random_state=np.random.RandomState(3), **common)
    np.testing.assert_array_equal(a.scores, b.scores)


@pytest.mark.parametrize("n_jobs", [-1.0, 2.0, 0, -2, True])
def test_baselines_refuse_n_jobs_that_are_not_ints(n_jobs):
    with pytest.raises(ccopt.InvalidParameterError, match="n_jobs"):
        pessimistic_baseline(TWO_PAIRS, 2, ml=[(0, 1)], progress=False, n_jobs=n_jobs)


def test_kmeans_s_refuses_a_boolean_among_the_sizes():
    X = np.random.default_rng(0).normal(size=(12, 2))
    with pytest.raises(ccopt.InvalidParameterError, match="sizes must hold integers"):
        ccopt.KMeansS(2, sizes=[True, 11], random_state=0).fit(X)


def test_impact_scores_refuses_a_repeated_pair_marked_both_erroneous_and_correct():
    # The two rows are one constraint after merging; taking either mark would lose the other.
    X = np.random.default_rng(0).normal(size=(12, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ccopt.CcoptWarning)
        with pytest.raises(ccopt.InvalidParameterError, match=r"erroneous disagrees on rows .* rows \[0, 1\]"):
            ccopt.impact_scores(X, 2, ml=[(0, 1), (1, 0)], cl=[(2, 3)], erroneous=[True, False, False],
                                progress=False)
        agreed = ccopt.impact_scores(X, 2, ml=[(0, 1), (1, 0)], cl=[(2, 3)], erroneous=[True, True, False],
                                     max_iter=5, progress=False)
    np.testing.assert_array_equal(agreed.erroneous, [True, True, False])


def test_a_csv_number_beyond_the_float64_range_is_named_as_such(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("x,y\n1,2\n3,1e400\n5,6\n")
    with pytest.raises(ccopt.InvalidDataError,
                       match=r"the value '1e400', beyond the float64 range .* data row 1 \(line 3\), column 'y'"):
        ccopt.datasets.load_csv(path)
