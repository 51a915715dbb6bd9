"""Tests of ccopt.metrics against hand computations, brute force and scikit-learn."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import metrics
from ccopt.config import config_context
from ccopt.constraints import Constraints
from ccopt.exceptions import (
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    MemoryBudgetError,
)

labelings = st.integers(1, 25).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, 4), min_size=n, max_size=n),
                        st.lists(st.integers(0, 4), min_size=n, max_size=n)))


# Labels: negative, non-contiguous and very large values, lengths from 1.
_values = st.one_of(st.integers(-4, 4), st.sampled_from([-(2**62), 2**62, 10**18]))
extreme_labelings = st.integers(1, 20).flatmap(
    lambda n: st.tuples(st.lists(_values, min_size=n, max_size=n), st.lists(_values, min_size=n, max_size=n)))


def _rand_by_pairs(true, pred) -> float:
    n = len(true)
    if n < 2:
        return 1.0
    agree = sum((true[i] == true[j]) == (pred[i] == pred[j]) for i, j in itertools.combinations(range(n), 2))
    return agree / (n * (n - 1) / 2)


# ----------------------------------------------------------------------------- partitions
@given(labelings)
@settings(max_examples=40, deadline=None)
def test_rand_score_against_pair_counting(pair):
    true, pred = map(np.array, pair)
    n = true.size
    agree = sum((true[i] == true[j]) == (pred[i] == pred[j]) for i, j in itertools.combinations(range(n), 2))
    expected = agree / (n * (n - 1) / 2) if n > 1 else 1.0
    assert metrics.rand_score(true, pred) == pytest.approx(expected)
    assert metrics.rand_score(true, pred) == pytest.approx(skm.rand_score(true, pred))


def test_partition_scores_match_sklearn_and_ignore_label_names():
    true = np.array([0, 0, 1, 1, 2, 2, 2])
    pred = np.array([5, 5, 5, 9, 7, 7, 7])
    renamed = np.array([1, 1, 1, 0, 2, 2, 2])
    assert metrics.adjusted_rand_score(true, pred) == pytest.approx(skm.adjusted_rand_score(true, pred))
    assert metrics.normalized_mutual_info_score(true, pred) == pytest.approx(
        skm.normalized_mutual_info_score(true, pred))
    assert metrics.normalized_mutual_info_score(true, pred, average_method="min") == pytest.approx(
        skm.normalized_mutual_info_score(true, pred, average_method="min"))
    for score in (metrics.adjusted_rand_score, metrics.normalized_mutual_info_score, metrics.rand_score):
        assert score(true, pred) == pytest.approx(score(true, renamed))
        assert score(true, true) == pytest.approx(1.0)
    # hand count: pairs agreeing = 21 - 3 disagreements ({0,2},{1,2} together only in pred; {2,3} apart only in pred)
    assert metrics.rand_score(true, pred) == pytest.approx(18 / 21)


@pytest.mark.parametrize(
    ("true", "pred", "pattern"),
    [
        ([0, 1], [0, 1, 1], "labels_pred has 3 entries, expected 2"),
        ([[0, 1]], [0, 1], r"labels_true must be 1-D \(n_samples,\), got shape \(1, 2\)"),
        ([], [], "labels_true is empty"),
        ([0.0, np.nan], [0, 1], "labels_true contains a non-finite value at position 1"),
    ],
)
def test_partition_scores_validate(true, pred, pattern):
    for score in (metrics.adjusted_rand_score, metrics.normalized_mutual_info_score, metrics.rand_score):
        with pytest.raises(InvalidParameterError, match=pattern):
            score(true, pred)
    with pytest.raises(InvalidParameterError, match="Unknown average_method 'mean'"):
        metrics.normalized_mutual_info_score([0, 1], [0, 1], average_method="mean")


@given(extreme_labelings)
@settings(max_examples=80, deadline=None)
def test_partition_scores_against_references(pair):
    true, pred = (np.array(p) for p in pair)
    assert metrics.rand_score(true, pred) == pytest.approx(_rand_by_pairs(true.tolist(), pred.tolist()), abs=1e-12)
    assert metrics.rand_score(true, pred) == pytest.approx(skm.rand_score(true, pred), abs=1e-12)
    assert metrics.adjusted_rand_score(true, pred) == pytest.approx(skm.adjusted_rand_score(true, pred), abs=1e-12)
    assert metrics.normalized_mutual_info_score(true, pred) == pytest.approx(
        skm.normalized_mutual_info_score(true, pred, average_method="arithmetic"), abs=1e-12)
    for method in ("geometric", "min", "max"):
        assert metrics.normalized_mutual_info_score(true, pred, average_method=method) == pytest.approx(
            skm.normalized_mutual_info_score(true, pred, average_method=method), abs=1e-12)


@pytest.mark.parametrize(("true", "pred", "expected"), [
    ([7], [-3], 1.0),                               # one object: no pair to disagree on
    ([1] * 6, list(range(6)), 0.0),                 # one cluster against all singletons
    ([2**63 - 1, 0, 2**63 - 1], [5, -5, 5], 1.0),   # extreme int64 labels
    ([2**70, 0, 2**70], [1, 2, 1], 1.0),            # beyond int64: object labels
])
def test_rand_score_edge_partitions(true, pred, expected):
    assert metrics.rand_score(true, pred) == expected


# ----------------------------------------------------------------------------- objectives
def test_wcss_hand_case():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 1.0], [10.0, 3.0]])
    assert metrics.wcss(X, [0, 0, 1, 1]) == pytest.approx(1 + 1 + 1 + 1)
    assert metrics.wcss(X, ["a", "a", "b", "b"]) == pytest.approx(4.0)
    with pytest.raises(InvalidParameterError, match="labels has 3 entries, expected 4"):
        metrics.wcss(X, [0, 0, 1])
    with pytest.raises(InvalidDataError, match="X contains NaN"):
        metrics.wcss([[np.nan]], [0])


@given(st.integers(1, 15).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([-3, 0, 5, 10**15]), min_size=n, max_size=n),
    st.lists(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=2), min_size=n, max_size=n))))
@settings(max_examples=60, deadline=None)
def test_wcss_against_a_loop(case):
    labels, X = np.array(case[0]), np.array(case[1])
    expected = 0.0
    for c in set(labels.tolist()):
        members = X[labels == c]
        expected += sum(float(((x - members.mean(axis=0)) ** 2).sum()) for x in members)
    assert metrics.wcss(X, labels) == pytest.approx(expected, rel=1e-9, abs=1e-6)


def brute_force_kmedoids(X, labels):
    total = 0.0
    for c in np.unique(labels):
        members = X[labels == c]
        total += min(np.linalg.norm(members - m, axis=1).sum() for m in members)
    return total


def test_kmedoids_objective(blobs):
    line = np.array([[0.0], [1.0], [5.0], [20.0], [22.0]])
    value, med = metrics.kmedoids_objective(line, [0, 0, 0, 1, 1], return_medoids=True)
    assert value == pytest.approx(5.0 + 2.0) and med.tolist() in ([1, 3], [1, 4])
    assert metrics.kmedoids_objective(line, [0, 0, 0, 1, 1], medoids=[0, 4]) == pytest.approx(6.0 + 2.0)
    assert metrics.kmedoids_objective(line, [0, 0, 0, 1, 1], metric="sqeuclidean") == pytest.approx(1 + 16 + 4)
    X, labels = blobs
    assert metrics.kmedoids_objective(X, labels) == pytest.approx(brute_force_kmedoids(X, labels))
    shuffled = np.random.default_rng(0).permutation(3)[labels]
    assert metrics.kmedoids_objective(X, shuffled) == pytest.approx(brute_force_kmedoids(X, labels))


def test_kmedoids_objective_errors():
    X = np.zeros((4, 2))
    with pytest.raises(InvalidParameterError, match=r"medoids must be object indices in 0\.\.3, got \[0, 4\]"):
        metrics.kmedoids_objective(X, [0, 0, 1, 1], medoids=[0, 4])
    with pytest.raises(InvalidParameterError, match=r"With 2 medoids, labels must be integers in 0\.\.1"):
        metrics.kmedoids_objective(X, [0, 0, 2, 1], medoids=[0, 3])
    with pytest.raises(InvalidParameterError, match="Unknown or unusable metric 'manhattan-ish'"):
        metrics.kmedoids_objective(X, [0, 0, 1, 1], metric="manhattan-ish")
    with config_context(max_dense_bytes=64), pytest.raises(MemoryBudgetError, match=r"within-cluster distance matrix \(4 x 4\)"):
        metrics.kmedoids_objective(X, [0, 0, 0, 0])


def test_violations_wrapper():
    labels = [0, 0, 1, 1, 2]
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(3, 2), (4, 0)], n_samples=5)
    report = metrics.violations(labels, cons)
    assert (report.n_ml, report.n_cl, report.total) == (1, 1, 2)
    assert report.violated.tolist() == [False, True, True, False]
    same = metrics.violations(labels, ml=[(0, 1), (1, 2)], cl=[(3, 2), (4, 0)])
    assert same.violated.tolist() == report.violated.tolist()
    with pytest.raises(InvalidConstraintError, match="built for n_samples=5, but the data has 4 rows"):
        metrics.violations([0, 0, 1, 1], cons)


# ----------------------------------------------------------------------------- detection
def test_detection_scores_reproduce_the_papers_counts():
    """Sec. 4.1: TN=2205, TP=15130, FN=66, FP=14 give precision 0.97, recall 0.99, F1 0.98."""
    truth = np.array([True] * 2205 + [False] * 15130 + [False] * 66 + [True] * 14)
    pred = np.array([True] * 2205 + [False] * 15130 + [True] * 66 + [False] * 14)
    s = metrics.detection_scores(truth, pred)
    assert (s.tp, s.tn, s.fp, s.fn) == (15130, 2205, 14, 66)
    assert truth.sum() == 2219  # the paper's number of erroneous constraints
    assert (round(s.precision, 2), round(s.recall, 2), round(s.f1, 2)) == (0.97, 0.99, 0.98)


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=40))
@settings(max_examples=30, deadline=None)
def test_detection_scores_match_sklearn_with_erroneous_positive(rows):
    truth = np.array([r[0] for r in rows])
    pred = np.array([r[1] for r in rows])
    s = metrics.detection_scores(truth, pred)
    kw = {"pos_label": True, "zero_division": 0.0}
    assert s.precision == pytest.approx(skm.precision_score(truth, pred, **kw))
    assert s.recall == pytest.approx(skm.recall_score(truth, pred, **kw))
    assert s.f1 == pytest.approx(skm.f1_score(truth, pred, **kw))
    if s.precision + s.recall > 0:
        assert s.f1 == pytest.approx(2 * s.precision * s.recall / (s.precision + s.recall))


def test_detection_scores_zero_denominators():
    none_predicted = metrics.detection_scores([True, False], [False, False], zero_division=np.nan)
    assert np.isnan(none_predicted.precision) and none_predicted.recall == 0.0 and none_predicted.f1 == 0.0
    none_erroneous = metrics.detection_scores([False, False], [True, False], zero_division=np.nan)
    assert np.isnan(none_erroneous.recall) and none_erroneous.precision == 0.0 and none_erroneous.f1 == 0.0
    nothing = metrics.detection_scores([False, False], [False, False], zero_division=1.0)
    assert (nothing.precision, nothing.recall, nothing.f1) == (1.0, 1.0, 1.0)
    assert metrics.detection_scores([0, 1], [1, 1]).tn == 1
    with pytest.raises(InvalidParameterError, match="predicted_erroneous has 1 entries, expected 2"):
        metrics.detection_scores([True, False], [True])
    with pytest.raises(InvalidParameterError, match="erroneous must be booleans"):
        metrics.detection_scores([2, 0], [True, False])
    with pytest.raises(InvalidParameterError, match="zero_division must be a number"):
        metrics.detection_scores([True], [True], zero_division="warn")


def test_detection_description_marks_each_undefined_ratio():
    # Summaries printed 0.000 for a ratio with a zero denominator: "precision 0.000, recall
    # 0.000, F1 0.000" when nothing was erroneous and nothing predicted, a perfect outcome.
    nothing = metrics.detection_scores([False, False], [False, False]).describe()
    assert nothing == ("precision n/a, recall n/a, F1 n/a (no constraint is erroneous and none is "
                       "predicted erroneous: nothing to detect)")
    nothing_erroneous = metrics.detection_scores([False, False], [True, False]).describe()
    assert nothing_erroneous.startswith("precision 0.000, recall n/a, F1 0.000 (0 of 0 erroneous found, 1 predicted")
    nothing_predicted = metrics.detection_scores([True, False], [False, False]).describe()
    assert nothing_predicted.startswith("precision n/a, recall 0.000, F1 0.000 (0 of 1 erroneous found, 0 predicted")
    both = metrics.detection_scores([True, False, True], [True, True, False]).describe()
    assert both == "precision 0.500, recall 0.500, F1 0.500 (1 of 2 erroneous found, 2 predicted)"


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=30),
       st.sampled_from([0.0, 1.0, math.nan]))
@settings(max_examples=80, deadline=None)
def test_detection_scores_follow_the_papers_definitions(rows, zero_division):
    truth, pred = [r[0] for r in rows], [r[1] for r in rows]
    s = metrics.detection_scores(truth, pred, zero_division=zero_division)
    tn = sum(t and p for t, p in rows)          # erroneous predicted erroneous
    fn = sum((not t) and p for t, p in rows)    # correct predicted erroneous
    fp = sum(t and not p for t, p in rows)      # erroneous predicted correct
    assert (s.tn, s.fn, s.fp, s.tp) == (tn, fn, fp, len(rows) - tn - fn - fp)

    def same(a, b):
        return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)

    assert same(s.precision, tn / (tn + fn) if tn + fn else zero_division)
    assert same(s.recall, tn / (tn + fp) if tn + fp else zero_division)
    assert same(s.f1, 2 * tn / (2 * tn + fn + fp) if 2 * tn + fn + fp else zero_division)


def test_detection_scores_reject_ragged_input_with_a_ccopt_error():
    # numpy's ValueError for a ragged list escaped instead of InvalidParameterError.
    with pytest.raises(InvalidParameterError, match="erroneous could not be read as a 1-D array"):
        metrics.detection_scores([[1], [1, 0]], [True, False])
    with pytest.raises(InvalidParameterError, match="predicted_erroneous could not be read as a 1-D array"):
        metrics.detection_scores([True, False], [[1], [1, 0]])


# ----------------------------------------------------------------------------- alignment score
def test_alignment_score_hand_case():
    true = [0, 0, 0, 1, 1, 2]
    pred = [0, 0, 1, 1, 1, 2]
    # cluster sizes F = (2, 3, 1) receive E' = (2, 3, 1) by rank; terms 1/3, 1/2, 1
    assert metrics.alignment_score(true, pred, [3, 2, 1]) == pytest.approx(6 / 3 * (1 / 3 + 1 / 2 + 1))
    assert metrics.alignment_score(true, pred, [1, 3, 2]) == pytest.approx(6 / 3 * (1 / 3 + 1 / 2 + 1))
    # given as aligned: E' = (3, 2, 1) -> terms (2/3)/(1+1+1), 1/(0+0+1), 1
    assert metrics.alignment_score(true, pred, [3, 2, 1], aligned=True) == pytest.approx(2 * (2 / 9 + 1 + 1))


def test_alignment_score_perfect_is_n_and_normalises():
    true = np.repeat([2, 0, 1], [4, 3, 5])
    pred = np.repeat([1, 2, 0], [4, 3, 5])
    assert metrics.alignment_score(true, pred, [3, 4, 5]) == pytest.approx(12.0)
    assert metrics.alignment_score(true, pred, [3, 4, 5], normalize=True) == pytest.approx(1.0)
    worse = metrics.alignment_score(true, pred, [1, 1, 10], normalize=True)
    assert 0 < worse < 1


def test_alignment_score_ties_and_empty_clusters():
    # cluster 0 holds one object of class 0 and one of class 1: the smaller label dominates
    value = metrics.alignment_score([0, 1, 1], [0, 0, 1], [2, 1, 5], aligned=True)
    assert value == pytest.approx(3 / 3 * ((1 / 1) / (1 + 0 + 1) + (1 / 2) / (0 + 1 + 1) + 0))
    with pytest.raises(InvalidParameterError, match=r"labels_pred must hold cluster codes 0\.\.1"):
        metrics.alignment_score([0, 1, 1], [0, 2, 1], [2, 1])
    with pytest.raises(InvalidParameterError, match="sizes must be a non-empty 1-D array"):
        metrics.alignment_score([0, 1], [0, 1], [])
    # Fractional sizes gave a meaningless score (2.67 here) without a word; whole floats are sizes.
    with pytest.raises(InvalidParameterError, match=r"finite sizes, whole numbers >= 0, got \[2\.5, 1\.5\]"):
        metrics.alignment_score([0, 0, 1, 1], [0, 0, 1, 1], [2.5, 1.5])
    assert metrics.alignment_score([0, 0, 1, 1], [0, 0, 1, 1], [2.0, 2.0]) == metrics.alignment_score(
        [0, 0, 1, 1], [0, 0, 1, 1], [2, 2])
