"""Edge cases of the scoring functions' input (impact scores, baselines, coherence, score
normalisation, label repair), one pinned case each: no constraints, a repeated pair marked
both ways, data at extreme scales, masks and options of the wrong type.
"""

from __future__ import annotations

import numpy as np
import pytest

import ccopt
from ccopt.constraints import MustLinkClosure
from ccopt.lagrange import coherence, normalize_scores, pessimistic_baseline, repair_labels
from tests.hardening._api import TWO_PAIRS


# ----------------------------------------------------------------------------- impact scores
def test_scoring_no_constraints_says_so():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.warns(ccopt.CcoptWarning, match="given no constraints: there is nothing to score"):
        result = ccopt.impact_scores(X, 2, ml=[], cl=[], progress=False, random_state=0)
    assert result.scores.shape == (0,)


def test_impact_scores_refuses_a_repeated_pair_marked_both_erroneous_and_correct():
    # The two rows are one constraint after merging; taking either mark would lose the other.
    X = np.random.default_rng(0).normal(size=(12, 2))
    merged = r"1 duplicate constraint row\(s\) merged: ml\[0\] = ml\[1\]"
    with pytest.warns(ccopt.DuplicateConstraintWarning, match=merged), \
            pytest.raises(ccopt.InvalidParameterError, match=r"erroneous disagrees on rows .* rows \[0, 1\]"):
        ccopt.impact_scores(X, 2, ml=[(0, 1), (1, 0)], cl=[(2, 3)], erroneous=[True, False, False],
                            progress=False)
    with pytest.warns(ccopt.DuplicateConstraintWarning, match=merged):
        agreed = ccopt.impact_scores(X, 2, ml=[(0, 1), (1, 0)], cl=[(2, 3)], erroneous=[True, True, False],
                                     max_iter=5, progress=False)
    np.testing.assert_array_equal(agreed.erroneous, [True, True, False])


@pytest.mark.parametrize("limit", [-1, 0, 2.5, True])
def test_table_limit_must_be_a_positive_int(limit):
    result = ccopt.impact_scores(TWO_PAIRS, 2, ml=[(0, 1)], cl=[(0, 2)], max_iter=5, random_state=0,
                                 progress=False)
    assert len(result.table(limit=1).splitlines()) == 3
    with pytest.raises(ccopt.InvalidParameterError, match="limit"):
        result.table(limit=limit)


# ----------------------------------------------------------------------------- baselines and coherence
def test_a_baseline_whose_base_solve_ran_out_of_time_says_time_limit():
    # The pessimistic base program has no constraint: it cannot be infeasible.
    result = pessimistic_baseline(TWO_PAIRS, 2, ml=[(0, 1)], cl=[(0, 2)], time_limit=1e-9,
                                  progress=False, random_state=0)
    assert result.status is ccopt.Status.TIME_LIMIT
    assert np.isnan(result.scores).all()


def test_baselines_take_a_random_state_like_the_estimators():
    common = dict(ml=[(0, 1)], cl=[(0, 2)], progress=False)
    a = pessimistic_baseline(TWO_PAIRS, 2, random_state=np.random.RandomState(3), **common)
    b = pessimistic_baseline(TWO_PAIRS, 2, random_state=np.random.RandomState(3), **common)
    np.testing.assert_array_equal(a.scores, b.scores)


@pytest.mark.parametrize("n_jobs", [-1.0, 2.0, 0, -2, True])
def test_baselines_refuse_n_jobs_that_are_not_ints(n_jobs):
    with pytest.raises(ccopt.InvalidParameterError, match="n_jobs"):
        pessimistic_baseline(TWO_PAIRS, 2, ml=[(0, 1)], progress=False, n_jobs=n_jobs)


@pytest.mark.parametrize("scale", [1e-170, 1e-100, 1e100, 1e154, 1e160, 1e300])
def test_coherence_does_not_depend_on_the_scale(scale):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (6, 2)), rng.normal(5, 1, (6, 2))])
    ml, cl = [(0, 1), (6, 7), (0, 6)], [(0, 2), (2, 8), (3, 4)]
    reference = coherence(X, ml=ml, cl=cl)
    scaled = coherence(X * scale, ml=ml, cl=cl)
    assert scaled.value == pytest.approx(reference.value)
    np.testing.assert_allclose(scaled.per_constraint, reference.per_constraint)


# ----------------------------------------------------------------------------- normalised scores
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


# ----------------------------------------------------------------------------- label repair
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
