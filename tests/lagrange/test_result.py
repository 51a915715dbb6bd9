"""The impact-score result: the normalisation and threshold of Sec. 4.2, the set score I(C)
of Sec. 4.4, the gap, and a description for every field of the result objects."""

import math
import re
from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ccopt
from ccopt import Constraints, Status
from ccopt.exceptions import DuplicateConstraintWarning, InvalidParameterError
from ccopt.lagrange.driver import History, SubgradientOutcome
from ccopt.lagrange.multipliers import Multipliers
from ccopt.lagrange.result import ImpactScoreResult, normalize_scores


def _result(cons, mult, lower=1.0, upper=2.0):
    """A result built by hand around given multipliers and bounds."""
    scores = cons.to_given(mult.scores(cons))
    normalized = cons.to_given(normalize_scores(mult.scores(cons), cons.ml_mask))
    return ImpactScoreResult(
        constraints=cons, scores=scores, normalized_scores=normalized, tau=0.0,
        predicted_erroneous=normalized > 0.0, lower_bound=lower, upper_bound=upper, lower_is_bound=True,
        multipliers=mult, labels=None, history=History(), status=Status.ITERATION_LIMIT, n_iter=0,
        seconds=0.0, criterion="kmedoids", method="voronoi", score_from="best",
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-10, 0), min_size=1, max_size=12), st.data())
def test_normalisation_divides_by_the_most_negative_score_of_each_kind(scores, data):
    scores = np.array(scores)
    ml_mask = np.array(data.draw(st.lists(st.booleans(), min_size=scores.size, max_size=scores.size)))
    tau = data.draw(st.floats(0.0, 0.99))
    out = normalize_scores(scores, ml_mask)
    for r in range(scores.size):
        same = [scores[q] for q in range(scores.size) if ml_mask[q] == ml_mask[r]]
        s = min(same)
        assert out[r] == pytest.approx(scores[r] / s if s < 0 else 0.0)
        assert 0.0 <= out[r] <= 1.0
        assert (out[r] > tau) == ((scores[r] / s if s < 0 else 0.0) > tau)


@pytest.mark.parametrize("mask", [[True, False, True], [1, 0, 1], np.array([1, 0, 1])])
def test_normalize_scores_reads_any_boolean_like_mask(mask):
    # An int 0/1 mask used to be taken as positions (fancy indexing): silently wrong values.
    # A list raised TypeError ("bad operand type for unary ~").
    np.testing.assert_allclose(normalize_scores([-1.0, -2.0, -4.0], mask), [0.25, 1.0, 1.0])


def test_normalize_scores_refuses_a_mask_of_another_length():
    with pytest.raises(InvalidParameterError, match=r"ml_mask must have one entry per score \(3\), got shape \(2,\)"):
        normalize_scores([-1.0, -2.0, -4.0], [True, False])


def test_the_set_score_is_the_sum_of_17_over_the_distinct_constraints():
    # Sec. 4.4: I(C) = sum over (o_u, o_v) in C of I_uv; C is a set, a repeated row counts once.
    with pytest.warns(DuplicateConstraintWarning, match=r"1 duplicate constraint row\(s\) merged: ml\[0\] = ml\[1\]"):
        cons = Constraints.from_pairs(ml=[(0, 1), (1, 0)], cl=[(2, 3)], n_samples=4)
    mult = Multipliers(eta=np.array([[-1.0, -0.5]]), lam=np.array([[-2.0, 0.0]]), gamma=np.array([[0.0, -0.25]]))
    result = _result(cons, mult)
    assert result.set_score == pytest.approx(-1.5 - 2.25)
    assert result.scores.sum() == pytest.approx(-1.5 - 2 * 2.25)  # the given rows, duplicate included


@pytest.mark.parametrize(("lower", "upper", "gap"), [
    (90.0, 100.0, 0.1), (100.0, 100.0, 0.0), (-math.inf, 100.0, math.inf), (1.0, math.inf, math.inf),
    (math.nan, 100.0, math.inf), (1.0, math.nan, math.inf), (0.0, 0.0, 0.0),
])
def test_the_gap_is_upper_minus_lower_over_upper_and_infinite_without_two_finite_bounds(lower, upper, gap):
    cons = Constraints.from_pairs(ml=[(0, 1)], n_samples=2)
    res = _result(cons, Multipliers.zeros(0, 1, 2), lower, upper)
    assert res.gap == gap
    assert "gap" in res.summary()


def _documented_attributes(cls) -> dict[str, str]:
    """Names in the numpydoc 'Attributes' section of ``cls`` mapped to their description."""
    doc = cls.__doc__
    section = doc.split("Attributes\n    ----------\n", 1)[1]
    section = re.split(r"\n    \S[^\n]*\n    -{3,}\n", section)[0]
    entries, current = {}, None
    for line in section.splitlines():
        if line.startswith("    ") and not line.startswith("     ") and line.strip():
            names = line.strip().split(" : ")[0]
            current = [name.strip() for name in names.split(",")]
            for name in current:
                entries[name] = ""
        elif current and line.strip():
            for name in current:
                entries[name] += line.strip() + " "
    return entries


@pytest.mark.parametrize("cls", [ImpactScoreResult, SubgradientOutcome])
def test_every_result_field_has_a_numpydoc_description(cls):
    documented = _documented_attributes(cls)
    missing = [f.name for f in fields(cls) if not documented.get(f.name, "").strip()]
    assert not missing, f"{cls.__name__} fields without a description: {missing}"


def test_lp_dual_says_its_scores_are_the_lp_duals_and_that_averaging_does_not_apply():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0], [9.0, 0.0], [9.1, 0.0]])
    kwargs = dict(ml=[(0, 1)], cl=[(1, 2)], method="lp-dual", random_state=0, progress=False)
    with pytest.warns(ccopt.CcoptWarning, match=r"^score_from='average' is not used: method='lp-dual'"):
        averaged = ccopt.impact_scores(X, 3, score_from="average", **kwargs)
    best = ccopt.impact_scores(X, 3, **kwargs)
    np.testing.assert_array_equal(averaged.scores, best.scores)
    assert averaged.summary().splitlines()[0] == "criterion=kmedoids method=lp-dual scores from the LP duals"
