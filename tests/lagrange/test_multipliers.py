"""The pairwise operator of the Lagrangian (10) and the scores (17).

Every quantity is checked against a plain-loop evaluation written from the paper's text
(Randel et al. 2021): the relaxed terms of (10) with the epsilon rows (3'), (4'), (4''),
their derivatives in the multipliers, and the score (17) of each constraint.
"""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import Constraints
from ccopt.exceptions import DuplicateConstraintWarning
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator

from ._brute import row_activities


def _relaxed_terms(cl_pairs, ml_pairs, eta, lam, gamma, x, eps):
    """The penalty part of (10), term by term, exactly as the paper writes it."""
    total = 0.0
    k = x.shape[1]
    for r, (i, j) in enumerate(cl_pairs):
        for c in range(k):
            total += eta[r][c] * (1 + eps - x[i][c] - x[j][c])
    for r, (i, j) in enumerate(ml_pairs):
        for c in range(k):
            total += lam[r][c] * (eps + x[i][c] - x[j][c])
            total += gamma[r][c] * (eps + x[j][c] - x[i][c])
    return total


def _operator_value(op, mult, x):
    return float((op.penalty(mult) * x).sum()) + op.constant(mult)


@st.composite
def raw_instances(draw):
    """Pair lists that may repeat pairs (both orientations) and pile constraints on few objects.

    The operator only reads ``n_samples``, ``n_cl``, ``n_ml``, ``cl_pairs`` and ``ml_pairs``,
    so repeated rows can reach its arithmetic directly (a :class:`Constraints` merges them).
    """
    n = draw(st.integers(2, 7))
    k = draw(st.sampled_from([1, 2, 3, 5]))
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    cl = draw(st.lists(pair, max_size=9))
    ml = draw(st.lists(pair, max_size=9))
    eps = draw(st.floats(0.01, 0.99))
    seed = draw(st.integers(0, 2**32 - 1))
    fractional = draw(st.booleans())
    return n, k, cl, ml, eps, np.random.default_rng(seed), fractional


def _fake_constraints(n, cl, ml):
    return SimpleNamespace(n_samples=n, n_cl=len(cl), n_ml=len(ml),
                           cl_pairs=np.array(cl, dtype=np.int64).reshape(-1, 2),
                           ml_pairs=np.array(ml, dtype=np.int64).reshape(-1, 2))


def _random_multipliers(rng, n_cl, n_ml, k):
    # Non-positive, with exact zeros mixed in (the projection produces many).
    def draw(m):
        values = -rng.exponential(size=(m, k))
        values[rng.random((m, k)) < 0.3] = 0.0
        return values
    return Multipliers(draw(n_cl), draw(n_ml), draw(n_ml))


def _assignment(rng, n, k, fractional):
    if fractional:
        x = rng.random((n, k))
        return x / x.sum(axis=1, keepdims=True), None
    labels = rng.integers(0, k, n)
    return np.eye(k)[labels], labels


def _drawn(instance):
    """The operator, multipliers and an assignment of a drawn instance."""
    n, k, cl, ml, eps, rng, fractional = instance
    op = PairwiseOperator(_fake_constraints(n, cl, ml), eps)
    mult = _random_multipliers(rng, len(cl), len(ml), k)
    x, labels = _assignment(rng, n, k, fractional)
    return n, k, cl, ml, eps, op, mult, x, labels


@st.composite
def instances(draw):
    n = draw(st.integers(4, 9))
    k = draw(st.integers(2, 4))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                          min_size=1, max_size=8, unique_by=lambda p: tuple(sorted(p))))
    kinds = draw(st.lists(st.sampled_from(["ML", "CL"]), min_size=len(pairs), max_size=len(pairs)))
    seed = draw(st.integers(0, 2**16))
    return n, k, Constraints(pairs, kinds, n_samples=n), np.random.default_rng(seed)


@settings(max_examples=40, deadline=None)
@given(instances())
def test_penalty_and_constant_reproduce_the_lagrangian_terms(instance):
    n, k, cons, rng = instance
    eps = 0.5
    op = PairwiseOperator(cons, eps)
    mult = Multipliers(-rng.random((cons.n_cl, k)), -rng.random((cons.n_ml, k)), -rng.random((cons.n_ml, k)))
    x = rng.random((n, k))
    linear = float((op.penalty(mult) * x).sum()) + op.constant(mult)
    assert linear == pytest.approx(
        _relaxed_terms(cons.cl_pairs, cons.ml_pairs, mult.eta, mult.lam, mult.gamma, x, eps))


@settings(max_examples=40, deadline=None)
@given(instances())
def test_subgradient_from_labels_equals_the_one_hot_subgradient(instance):
    n, k, cons, rng = instance
    op = PairwiseOperator(cons, 0.3)
    labels = rng.integers(0, k, n)
    one_hot = np.eye(k)[labels]
    a, b = op.subgradient(one_hot), op.subgradient_from_labels(labels, k)
    np.testing.assert_allclose(a.eta, b.eta)
    np.testing.assert_allclose(a.lam, b.lam)
    np.testing.assert_allclose(a.gamma, b.gamma)


# ----------------------------------------------------------------------------- the paper's terms with repeated pairs and piled-up constraints


@settings(max_examples=150, deadline=None)
@given(raw_instances())
def test_penalty_constant_and_subgradient_equal_the_paper_terms_by_loops(instance):
    n, k, cl, ml, eps, op, mult, x, labels = _drawn(instance)

    assert op.penalty(mult).shape == (n, k)
    assert _operator_value(op, mult, x) == pytest.approx(
        _relaxed_terms(cl, ml, mult.eta, mult.lam, mult.gamma, x, eps), rel=1e-12, abs=1e-12)

    g_eta, g_lam, g_gam = row_activities(cl, ml, x, eps)
    g = op.subgradient(x)
    np.testing.assert_allclose(g.eta, g_eta, atol=1e-14)
    np.testing.assert_allclose(g.lam, g_lam, atol=1e-14)
    np.testing.assert_allclose(g.gamma, g_gam, atol=1e-14)
    if labels is not None:
        h = op.subgradient_from_labels(labels, k)
        np.testing.assert_allclose(h.eta, g_eta, atol=1e-14)
        np.testing.assert_allclose(h.lam, g_lam, atol=1e-14)
        np.testing.assert_allclose(h.gamma, g_gam, atol=1e-14)
        # The 0/1 rows are never zero: that is what epsilon is for (DESIGN.md).
        assert (np.abs(np.concatenate([h.eta.ravel(), h.lam.ravel(), h.gamma.ravel()])) > 0).all()


@settings(max_examples=60, deadline=None)
@given(raw_instances())
def test_subgradient_is_the_derivative_of_the_lagrangian_in_each_multiplier(instance):
    _, k, _, _, _, op, mult, x, _ = _drawn(instance)
    g = op.subgradient(x)
    base = _operator_value(op, mult, x)
    t = 0.37
    for family in ("eta", "lam", "gamma"):
        values = getattr(mult, family)
        for r in range(values.shape[0]):
            for c in range(k):
                moved = mult.copy()
                getattr(moved, family)[r, c] -= t
                # (10) is affine in every multiplier: the difference quotient is exact.
                assert (base - _operator_value(op, moved, x)) / t == pytest.approx(
                    getattr(g, family)[r, c], abs=1e-9)


def test_an_object_in_many_constraints_pays_the_sum_of_its_rows():
    # Object 0 is in three cannot-links, two must-links as u and one as v; k = 2.
    cl, ml = [(0, 1), (0, 2), (3, 0)], [(0, 4), (0, 5), (6, 0)]
    op = PairwiseOperator(_fake_constraints(7, cl, ml), 0.25)
    eta = -np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    lam = -np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    gam = -np.array([[0.0, 7.0], [1.0, 0.0], [0.0, 4.0]])
    p = op.penalty(Multipliers(eta, lam, gam))
    # coefficient of x_0^c: -sum eta + sum_{0 as u} (lam - gamma) - sum_{0 as v} (lam - gamma)
    expected = -eta.sum(axis=0) + (lam[:2] - gam[:2]).sum(axis=0) - (lam[2] - gam[2])
    np.testing.assert_allclose(p[0], expected)
    assert op.constant(Multipliers(eta, lam, gam)) == pytest.approx(1.25 * eta.sum() + 0.25 * (lam.sum() + gam.sum()))


def test_a_constraints_object_with_repeated_rows_gives_the_operator_one_row_per_pair():
    with pytest.warns(DuplicateConstraintWarning,
                      match=r"3 duplicate constraint row\(s\) merged: ml\[0\] = ml\[1\], cl\[0\] = cl\[1\] = cl\[2\]"):
        cons = Constraints.from_pairs(ml=[(0, 1), (1, 0), (2, 3)], cl=[(1, 2), (2, 1), (1, 2)], n_samples=4)
    op = PairwiseOperator(cons, 0.5)
    assert (op.n_ml, op.n_cl) == (2, 1)
    x = np.eye(2)[[0, 1, 1, 0]]
    mult = Multipliers(-np.ones((1, 2)), -np.ones((2, 2)), -2 * np.ones((2, 2)))
    assert _operator_value(op, mult, x) == pytest.approx(
        _relaxed_terms(cons.cl_pairs, cons.ml_pairs, mult.eta, mult.lam, mult.gamma, x, 0.5))


def test_subgradient_takes_an_assignment_matrix_and_points_labels_elsewhere():
    # Its docstring used to offer int labels, which it refuses (documentation fix only).
    op = PairwiseOperator(Constraints.from_pairs(cl=[(0, 1)], n_samples=2), 0.5)
    with pytest.raises(TypeError, match="use subgradient_from_labels"):
        op.subgradient(np.array([0, 1]))
    assert "labels here raise ``TypeError``" in PairwiseOperator.subgradient.__doc__


# ----------------------------------------------------------------------------- scores (17)


def test_scores_follow_the_constraint_order_with_kinds_interleaved():
    cons = Constraints([(0, 1), (2, 3), (1, 2), (3, 4)], ["CL", "ML", "CL", "ML"], n_samples=5)
    mult = Multipliers(eta=np.array([[-1.0, 0.0], [0.0, -2.0]]),
                       lam=np.array([[-0.5, 0.0], [0.0, 0.0]]),
                       gamma=np.array([[0.0, -0.25], [0.0, -3.0]]))
    # CL rows in order (0,1), (1,2); ML rows in order (2,3), (3,4).
    np.testing.assert_allclose(mult.scores(cons), [-1.0, -0.75, -2.0, -3.0])


def _score_by_loops(cons, mult, i, j, kind):
    """(17) for the given pair, found among the distinct constraints in either orientation."""
    pairs = cons.cl_pairs if kind == "CL" else cons.ml_pairs
    rows = [r for r, (u, v) in enumerate(pairs) if {int(u), int(v)} == {i, j}]
    assert len(rows) == 1
    r = rows[0]
    k = mult.eta.shape[1]
    if kind == "CL":
        return sum(mult.eta[r][c] for c in range(k))
    return sum(mult.lam[r][c] + mult.gamma[r][c] for c in range(k))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_scores_follow_17_and_the_given_order_ml_then_cl_with_duplicates(data):
    n = data.draw(st.integers(3, 8))
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    ml = data.draw(st.lists(pair, max_size=8))
    taken = {frozenset(p) for p in ml}
    cl = data.draw(st.lists(pair.filter(lambda p: frozenset(p) not in taken), max_size=8))
    k = data.draw(st.integers(1, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    with warnings.catch_warnings():
        # The drawn lists may repeat a pair (the point of the test): merged, which the warning says.
        warnings.filterwarnings("ignore", message=r"\d+ duplicate constraint row\(s\) merged",
                                category=DuplicateConstraintWarning)
        cons = Constraints.from_pairs(ml=ml or None, cl=cl or None, n_samples=n)
    mult = _random_multipliers(rng, cons.n_cl, cons.n_ml, k)
    given_scores = cons.to_given(mult.scores(cons))
    expected = [_score_by_loops(cons, mult, i, j, "ML") for i, j in ml] + \
               [_score_by_loops(cons, mult, i, j, "CL") for i, j in cl]
    np.testing.assert_allclose(given_scores, expected, atol=1e-12)
    assert (given_scores <= 0).all()


def test_impact_scores_end_to_end_report_17_of_their_multipliers_in_the_given_order():
    from ccopt import impact_scores

    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(0, 0.3, (8, 2)), rng.normal(4, 0.3, (8, 2))])
    ml, cl = [(0, 9), (1, 2), (2, 1)], [(3, 4), (10, 11), (12, 0)]  # (0, 9) and (3, 4) are wrong
    for criterion in ("kmedoids", "mssc"):
        # The must-link (1, 2) is given twice, the second time reversed.
        with pytest.warns(DuplicateConstraintWarning, match=r"1 duplicate constraint row\(s\) merged: ml\[1\] = ml\[2\]"):
            res = impact_scores(X, 2, ml=ml, cl=cl, criterion=criterion, random_state=0, progress=False,
                                max_iter=200, tau=0.0)
        expected = [_score_by_loops(res.constraints, res.multipliers, i, j, "ML") for i, j in ml] + \
                   [_score_by_loops(res.constraints, res.multipliers, i, j, "CL") for i, j in cl]
        np.testing.assert_allclose(res.scores, expected, atol=1e-9 * res.upper_bound)
        assert (res.scores <= 0).all()
        assert res.kinds.tolist() == ["ML"] * 3 + ["CL"] * 3
        np.testing.assert_array_equal(res.predicted_erroneous, res.scores < 0)
