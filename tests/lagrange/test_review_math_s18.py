"""Review of the Lagrangian arithmetic (10), the scores (17), Sec. 4.2 / 4.4 and the result objects.

Every quantity is checked against a plain-loop evaluation written from the paper's text
(Randel et al. 2021): the relaxed terms of (10) with the epsilon rows (3'), (4'), (4''), the
step of Algorithm 1, the score (17), the normalisation and threshold of Sec. 4.2, and the
set score I(C) of Sec. 4.4.
"""

import math
import re
import warnings
from dataclasses import fields
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import Constraints, Status
from ccopt.exceptions import DuplicateConstraintWarning, InvalidParameterError
from ccopt.lagrange.driver import SubgradientConfig, SubgradientOutcome, run_subgradient
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator
from ccopt.lagrange.oracles import OracleSolution
from ccopt.lagrange.result import ImpactScoreResult, normalize_scores

# --------------------------------------------------------------------------- plain-loop references


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


def _row_activities(cl_pairs, ml_pairs, x, eps):
    """The derivative of (10) with respect to each multiplier, by loops."""
    k = x.shape[1]
    g_eta = np.array([[1 + eps - x[i][c] - x[j][c] for c in range(k)] for i, j in cl_pairs]).reshape(-1, k)
    g_lam = np.array([[eps + x[i][c] - x[j][c] for c in range(k)] for i, j in ml_pairs]).reshape(-1, k)
    g_gam = np.array([[eps + x[j][c] - x[i][c] for c in range(k)] for i, j in ml_pairs]).reshape(-1, k)
    return g_eta, g_lam, g_gam


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


# --------------------------------------------------------------------------- 1. PairwiseOperator


@settings(max_examples=150, deadline=None)
@given(raw_instances())
def test_penalty_constant_and_subgradient_equal_the_paper_terms_by_loops(instance):
    n, k, cl, ml, eps, op, mult, x, labels = _drawn(instance)

    assert op.penalty(mult).shape == (n, k)
    assert _operator_value(op, mult, x) == pytest.approx(
        _relaxed_terms(cl, ml, mult.eta, mult.lam, mult.gamma, x, eps), rel=1e-12, abs=1e-12)

    g_eta, g_lam, g_gam = _row_activities(cl, ml, x, eps)
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateConstraintWarning)
        cons = Constraints.from_pairs(ml=[(0, 1), (1, 0), (2, 3)], cl=[(1, 2), (2, 1), (1, 2)], n_samples=4)
    op = PairwiseOperator(cons, 0.5)
    assert (op.n_ml, op.n_cl) == (2, 1)
    x = np.eye(2)[[0, 1, 1, 0]]
    mult = Multipliers(-np.ones((1, 2)), -np.ones((2, 2)), -2 * np.ones((2, 2)))
    assert _operator_value(op, mult, x) == pytest.approx(
        _relaxed_terms(cons.cl_pairs, cons.ml_pairs, mult.eta, mult.lam, mult.gamma, x, 0.5))


# --------------------------------------------------------------------------- 2. scores (17), Sec. 4.2, Sec. 4.4


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
        warnings.simplefilter("ignore", DuplicateConstraintWarning)
        cons = Constraints.from_pairs(ml=ml or None, cl=cl or None, n_samples=n)
    mult = _random_multipliers(rng, cons.n_cl, cons.n_ml, k)
    given_scores = cons.to_given(mult.scores(cons))
    expected = [_score_by_loops(cons, mult, i, j, "ML") for i, j in ml] + \
               [_score_by_loops(cons, mult, i, j, "CL") for i, j in cl]
    np.testing.assert_allclose(given_scores, expected, atol=1e-12)
    assert (given_scores <= 0).all()


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


def test_the_set_score_is_the_sum_of_17_over_the_distinct_constraints():
    # Sec. 4.4: I(C) = sum over (o_u, o_v) in C of I_uv; C is a set, a repeated row counts once.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateConstraintWarning)
        cons = Constraints.from_pairs(ml=[(0, 1), (1, 0)], cl=[(2, 3)], n_samples=4)
    mult = Multipliers(eta=np.array([[-1.0, -0.5]]), lam=np.array([[-2.0, 0.0]]), gamma=np.array([[0.0, -0.25]]))
    result = _result(cons, mult)
    assert result.set_score == pytest.approx(-1.5 - 2.25)
    assert result.scores.sum() == pytest.approx(-1.5 - 2 * 2.25)  # the given rows, duplicate included


def test_impact_scores_end_to_end_report_17_of_their_multipliers_in_the_given_order():
    from ccopt import impact_scores

    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(0, 0.3, (8, 2)), rng.normal(4, 0.3, (8, 2))])
    ml, cl = [(0, 9), (1, 2), (2, 1)], [(3, 4), (10, 11), (12, 0)]  # (0, 9) and (3, 4) are wrong
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateConstraintWarning)
        for criterion in ("kmedoids", "mssc"):
            res = impact_scores(X, 2, ml=ml, cl=cl, criterion=criterion, random_state=0, progress=False,
                                max_iter=200, tau=0.0)
            expected = [_score_by_loops(res.constraints, res.multipliers, i, j, "ML") for i, j in ml] + \
                       [_score_by_loops(res.constraints, res.multipliers, i, j, "CL") for i, j in cl]
            np.testing.assert_allclose(res.scores, expected, atol=1e-9 * res.upper_bound)
            assert (res.scores <= 0).all()
            assert res.kinds.tolist() == ["ML"] * 3 + ["CL"] * 3
            np.testing.assert_array_equal(res.predicted_erroneous, res.scores < 0)


# --------------------------------------------------------------------------- 1. Algorithm 1 in the driver


class _Scripted:
    """A proven-bound oracle whose labelling and value follow a script."""

    def __init__(self, op, k, script, interrupt_at=None):
        self.op, self.k, self.script, self.calls = op, k, script, 0
        self.extra, self.seen, self.interrupt_at = {}, [], interrupt_at

    def solve(self, mult):
        self.calls += 1
        if self.interrupt_at == self.calls:
            raise KeyboardInterrupt
        self.seen.append(mult.copy())
        labels, value = self.script[min(self.calls, len(self.script)) - 1]
        return OracleSolution(value, labels, self.op.subgradient_from_labels(labels, self.k))


def _algorithm_1_by_loops(cons, eps, k, script, z_star, repairs):
    """Algorithm 1 exactly as printed, with the projection onto w <= 0 of DESIGN.md."""
    eta = np.zeros((cons.n_cl, k))
    lam = np.zeros((cons.n_ml, k))
    gam = np.zeros((cons.n_ml, k))
    best, best_value, trajectory = None, -math.inf, []
    for ell, ((labels, z), repaired) in enumerate(zip(script, repairs, strict=True), start=1):
        x = np.eye(k)[labels]
        if z > best_value:
            best_value, best = z, (eta.copy(), lam.copy(), gam.copy())
        if repaired is not None and repaired < z_star:
            z_star = repaired
        alpha = 1 / math.sqrt(ell)
        g_eta, g_lam, g_gam = _row_activities(cons.cl_pairs, cons.ml_pairs, x, eps)
        for values, grad in ((eta, g_eta), (lam, g_lam), (gam, g_gam)):
            if values.size:
                values += alpha * (z_star - z) / (grad ** 2).sum() * grad
                np.minimum(values, 0.0, out=values)
        trajectory.append((eta.copy(), lam.copy(), gam.copy()))
    return best, best_value, z_star, trajectory


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_the_driver_follows_algorithm_1_step_by_step(seed, k):
    rng = np.random.default_rng(seed)
    n = 7
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (5, 6)], cl=[(0, 3), (3, 4), (2, 5), (0, 6)], n_samples=n)
    eps = float(rng.uniform(0.05, 0.95))
    op = PairwiseOperator(cons, eps)
    m = 12
    values = rng.uniform(0.0, 9.0, m)
    script = [(rng.integers(0, k, n), float(v)) for v in values]
    repairs = [float(r) if rng.random() < 0.3 else None for r in rng.uniform(9.5, 20.0, m)]
    best, best_value, z_star, trajectory = _algorithm_1_by_loops(cons, eps, k, script, 20.0, repairs)

    oracle = _Scripted(op, k, script)
    feed = iter(repairs)
    out = run_subgradient(oracle, Multipliers.zeros(cons.n_cl, cons.n_ml, k),
                          config=SubgradientConfig(max_iter=m, gap_tol=0.0, stagnation_iter=None),
                          initial_upper=20.0, initial_labels=None,
                          upper_bound=lambda _s: (lambda r: None if r is None else (r, script[0][0]))(next(feed)))
    assert out.status == Status.ITERATION_LIMIT and out.n_iter == m
    for seen, (eta, lam, gam) in zip(oracle.seen[1:], trajectory[:-1], strict=True):
        np.testing.assert_allclose(seen.eta, eta, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(seen.lam, lam, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(seen.gamma, gam, rtol=1e-12, atol=1e-12)
    assert out.lower_bound == best_value and out.upper_bound == z_star
    np.testing.assert_allclose(out.best_multipliers.eta, best[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.best_multipliers.lam, best[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.best_multipliers.gamma, best[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.history["step"], 1 / np.sqrt(np.arange(1, m + 1)))
    gap = (out.history["upper_bound"] - out.history["best_lower_bound"]) / np.abs(out.history["upper_bound"])
    np.testing.assert_allclose(out.history["gap"], gap)


def _line_setup(k=2):
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=4)
    return cons, PairwiseOperator(cons, 0.5), np.array([0, 1, 1, 1]) % k


def test_a_time_limit_stops_the_loop_with_the_best_so_far(monkeypatch):
    import ccopt.lagrange.driver as driver

    clock = iter(np.arange(0.0, 100.0, 1.0))  # every expiry check advances one second
    monkeypatch.setattr(driver.Deadline, "expired", lambda self: next(clock) >= 3.0)
    _cons, op, labels = _line_setup()
    oracle = _Scripted(op, 2, [(labels, 1.0), (labels, 4.0), (labels, 2.0), (labels, 3.0), (labels, 5.0)])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=50, time_limit=1.0),
                          initial_upper=10.0, initial_labels=None)
    assert out.status == Status.TIME_LIMIT and out.n_iter == 4
    assert out.lower_bound == 4.0
    np.testing.assert_array_equal(out.best_multipliers.eta, oracle.seen[1].eta)


def test_an_interrupt_in_the_repair_step_returns_the_best_so_far_marked_interrupted():
    _cons, op, labels = _line_setup()
    oracle = _Scripted(op, 2, [(labels, 1.0), (labels, 3.0), (labels, 2.0)])
    calls = iter([None, None, KeyboardInterrupt])

    def repair(_solution):
        item = next(calls)
        if item is KeyboardInterrupt:
            raise KeyboardInterrupt
        return item

    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2), config=SubgradientConfig(max_iter=10),
                          initial_upper=10.0, initial_labels=None, upper_bound=repair)
    assert out.status == Status.INTERRUPTED and out.n_iter == 2 and out.lower_bound == 3.0
    np.testing.assert_array_equal(out.best_multipliers.lam, oracle.seen[1].lam)


def test_stagnation_counts_only_relative_improvements_above_the_tolerance():
    _cons, op, labels = _line_setup()
    values = [1.0, 2.0, 2.0 + 1e-9, 2.0 + 2e-9, 2.0 + 3e-9, 2.0 + 4e-9]
    oracle = _Scripted(op, 2, [(labels, v) for v in values])
    out = run_subgradient(oracle, Multipliers.zeros(1, 1, 2),
                          config=SubgradientConfig(max_iter=50, stagnation_iter=3, stagnation_tol=1e-7),
                          initial_upper=10.0, initial_labels=None)
    # Improvements of 1e-9 (relative 5e-10 < 1e-7) do not reset the count from iteration 2.
    assert out.status == Status.STAGNATION and out.n_iter == 5
    assert out.lower_bound == pytest.approx(2.0 + 3e-9)


# --------------------------------------------------------------------------- regressions


def test_without_a_finite_incumbent_the_multipliers_wait_instead_of_jumping_to_minus_infinity():
    # Algorithm 1's step needs Z* (the value of a feasible solution). With none yet (inf) the
    # step (Z* - Z) / ||g||^2 was infinite: the multipliers went to -inf for good and their
    # scores (17) to -inf, although the repair routine found an incumbent at iteration 2.
    _cons, op, labels = _line_setup()
    oracle = _Scripted(op, 2, [(labels, 1.0), (labels, 2.0), (labels, 3.0)])
    feed = iter([None, (5.0, labels), None])
    mult = Multipliers.zeros(1, 1, 2)
    out = run_subgradient(oracle, mult, config=SubgradientConfig(max_iter=3, gap_tol=0.0, stagnation_iter=None),
                          initial_upper=math.inf, initial_labels=None, upper_bound=lambda _s: next(feed))
    for m in (mult, out.best_multipliers, *oracle.seen):
        assert np.isfinite(m.eta).all() and np.isfinite(m.lam).all() and np.isfinite(m.gamma).all()
    np.testing.assert_array_equal(oracle.seen[1].eta, 0.0)  # no step before an incumbent exists
    assert out.history["step"][0] == 0.0
    assert (oracle.seen[2].eta < 0).any()  # steps resume once Z* = 5 is known
    assert out.upper_bound == 5.0 and out.lower_bound == 3.0


@pytest.mark.parametrize("mask", [[True, False, True], [1, 0, 1], np.array([1, 0, 1])])
def test_normalize_scores_reads_any_boolean_like_mask(mask):
    # An int 0/1 mask used to be taken as positions (fancy indexing): silently wrong values.
    # A list raised TypeError ("bad operand type for unary ~").
    np.testing.assert_allclose(normalize_scores([-1.0, -2.0, -4.0], mask), [0.25, 1.0, 1.0])


def test_normalize_scores_refuses_a_mask_of_another_length():
    with pytest.raises(InvalidParameterError, match=r"ml_mask must have one entry per score \(3\), got shape \(2,\)"):
        normalize_scores([-1.0, -2.0, -4.0], [True, False])


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


# --------------------------------------------------------------------------- 3. result object


def _result(cons, mult, lower=1.0, upper=2.0):
    scores = cons.to_given(mult.scores(cons))
    normalized = cons.to_given(normalize_scores(mult.scores(cons), cons.ml_mask))
    from ccopt.lagrange.driver import History

    return ImpactScoreResult(
        constraints=cons, scores=scores, normalized_scores=normalized, tau=0.0,
        predicted_erroneous=normalized > 0.0, lower_bound=lower, upper_bound=upper, lower_is_bound=True,
        multipliers=mult, labels=None, history=History(), status=Status.ITERATION_LIMIT, n_iter=0,
        seconds=0.0, criterion="kmedoids", method="voronoi", score_from="best",
    )


@pytest.mark.parametrize(("lower", "upper", "gap"), [
    (90.0, 100.0, 0.1), (100.0, 100.0, 0.0), (-math.inf, 100.0, math.inf), (1.0, math.inf, math.inf),
    (math.nan, 100.0, math.inf), (1.0, math.nan, math.inf), (0.0, 0.0, 0.0),
])
def test_the_gap_is_upper_minus_lower_over_upper_and_infinite_without_two_finite_bounds(lower, upper, gap):
    cons = Constraints.from_pairs(ml=[(0, 1)], n_samples=2)
    res = _result(cons, Multipliers.zeros(0, 1, 2), lower, upper)
    assert res.gap == gap
    assert "gap" in res.summary()


def test_subgradient_takes_an_assignment_matrix_and_points_labels_elsewhere():
    # Its docstring used to offer int labels, which it refuses (documentation fix only).
    op = PairwiseOperator(Constraints.from_pairs(cl=[(0, 1)], n_samples=2), 0.5)
    with pytest.raises(TypeError, match="use subgradient_from_labels"):
        op.subgradient(np.array([0, 1]))
    assert "labels here raise ``TypeError``" in PairwiseOperator.subgradient.__doc__
