"""The naive baseline and Davidson, Wagstaff and Basu's (2006) measures of a constraint set,
informativeness and coherence: hand-computed cases and plain-loop references."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from ccopt import CcoptWarning, Constraints
from ccopt.lagrange.baselines import coherence, informativeness, naive_baseline

from ._brute import kmedoids_cost

# ----------------------------------------------------------------------------- plain references


def _over(a1, a2, b1, b2) -> bool:
    """Does the projection of segment a onto the line of segment b cover part of b?

    Davidson, Wagstaff and Basu (2006), read as in :func:`coherence`: the covered length of
    b, below 1e-9 of b's length counted as none; a degenerate b is covered by nothing.
    """
    length = float(np.sqrt(((b2 - b1) ** 2).sum()))
    if length == 0.0:
        return False
    unit = (b2 - b1) / length
    t1, t2 = float((a1 - b1) @ unit), float((a2 - b1) @ unit)
    return min(max(t1, t2), length) - max(min(t1, t2), 0.0) > 1e-9 * length


def _coherence_loop(X, ml, cl):
    """Coherence and per-constraint shares by two nested loops over the (ML, CL) pairs."""
    if not ml or not cl:
        return 1.0, [1.0] * (len(ml) + len(cl))
    agree = np.array([[not (_over(X[i], X[j], X[u], X[v]) or _over(X[u], X[v], X[i], X[j])) for u, v in cl]
                      for i, j in ml], dtype=float)
    return agree.mean(), agree.mean(axis=1).tolist() + agree.mean(axis=0).tolist()


def _instance(draw_ints, n, pairs_and_kinds):
    ml = [p for p, is_ml in pairs_and_kinds if is_ml]
    cl = [p for p, is_ml in pairs_and_kinds if not is_ml]
    return np.asarray(draw_ints, dtype=float).reshape(n, -1), ml, cl


@st.composite
def _segments(draw):
    n = draw(st.integers(2, 7))
    d = draw(st.integers(1, 3))
    # Small integer grids: duplicate points (zero-length segments), collinear and touching
    # segments, shared endpoints.
    coords = draw(st.lists(st.integers(-2, 2), min_size=n * d, max_size=n * d))
    pairs = list(itertools.combinations(range(n), 2))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=6))
    kinds = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    return _instance(coords, n, list(zip(chosen, kinds, strict=True)))


# ----------------------------------------------------------------------------- naive baseline


def _two_blobs(seed=0, n_per=10):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_per, 2)) * 0.3, rng.normal(size=(n_per, 2)) * 0.3 + [8.0, 0.0]])
    return X, np.repeat([0, 1], n_per)


@pytest.mark.parametrize("criterion", ["mssc", "kmedoids"])
def test_naive_baseline_counts_the_violations_of_the_unconstrained_clustering(criterion):
    X, y = _two_blobs()
    # Hand count: the blobs are the unconstrained clusters, so the ML across the blobs (0, 15)
    # and the CL inside a blob (1, 2) are violated; the other two hold.
    ml, cl = [(0, 1), (0, 15)], [(3, 12), (1, 2)]
    res = naive_baseline(X, 2, ml=ml, cl=cl, criterion=criterion, random_state=0, labels_true=y)
    assert res.predicted_erroneous.tolist() == [False, True, False, True]
    assert res.informativeness == 0.5
    # Truth: (0, 15) and (1, 2) contradict y; both are found and nothing else.
    assert (res.detection.precision, res.detection.recall, res.detection.f1) == (1.0, 1.0, 1.0)
    same = {tuple(sorted(set(res.labels[y == c]))) for c in (0, 1)}
    assert len(same) == 2 and all(len(s) == 1 for s in same)  # the blobs, up to permutation
    inf = informativeness(X, 2, ml=ml, cl=cl, criterion=criterion, random_state=0)
    assert inf.value == 0.5 and inf.per_constraint.tolist() == [0.0, 1.0, 0.0, 1.0]


def test_naive_mssc_is_scikit_learn_kmeans_with_ten_restarts():
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(size=(15, 2)) + c for c in ([0, 0], [3, 0], [0, 3])])
    pairs = rng.choice(45, size=(12, 2), replace=False)
    cons = Constraints(pairs, np.where(np.arange(12) % 2 == 0, 1, -1), n_samples=45)
    for seed in (0, 5):
        res = naive_baseline(X, 3, constraints=cons, criterion="mssc", random_state=seed)
        # The clustering is the one k-means (n_init=10) finds with the seed drawn from random_state.
        expected = KMeans(n_clusters=3, n_init=10,
                          random_state=int(np.random.default_rng(seed).integers(2**31 - 1))).fit(X)
        np.testing.assert_array_equal(res.labels, expected.labels_)
        assert res.cost == pytest.approx(expected.inertia_)
        # Erroneous iff that clustering violates the constraint, row by row.
        same = res.labels[pairs[:, 0]] == res.labels[pairs[:, 1]]
        assert res.predicted_erroneous.tolist() == np.where(cons.kinds == 1, ~same, same).tolist()
        again = naive_baseline(X, 3, constraints=cons, criterion="mssc", random_state=seed)
        np.testing.assert_array_equal(again.labels, res.labels)


def test_naive_kmedoids_is_deterministic_and_counts_its_violations():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    ml, cl = [(0, 1), (2, 3), (4, 5)], [(6, 7), (8, 9)]
    a, b = (naive_baseline(X, 3, ml=ml, cl=cl, random_state=11) for _ in range(2))
    np.testing.assert_array_equal(a.labels, b.labels)
    assert len(np.unique(a.labels)) == 3
    assert a.cost == pytest.approx(kmedoids_cost(cdist(X, X), a.labels))
    violated = [a.labels[i] != a.labels[j] for i, j in ml] + [a.labels[i] == a.labels[j] for i, j in cl]
    assert a.predicted_erroneous.tolist() == violated
    assert a.informativeness == pytest.approx(np.mean(violated))


@pytest.mark.parametrize("seed", [2, 9])
def test_naive_mssc_baseline_does_not_depend_on_the_thread_count(seed):
    # Balance's 625 grid points: scikit-learn's k-means, left to its threads, picked another
    # of several equal-inertia restarts with 1 and 2 threads for these seeds.
    import itertools

    from threadpoolctl import threadpool_limits

    X = np.array(list(itertools.product(range(1, 6), repeat=4)), dtype=float)
    pairs = np.random.default_rng(0).choice(625, size=(94, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    predicted = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            predicted.append(naive_baseline(X, 3, cl=pairs, criterion="mssc", random_state=seed).predicted_erroneous)
    np.testing.assert_array_equal(predicted[0], predicted[1])


# ----------------------------------------------------------------------------- informativeness


def test_informativeness_from_given_labels():
    X = np.zeros((5, 1))
    labels = np.array([0, 0, 1, 1, 2])
    # ML (0, 1) holds, ML (1, 2) broken, CL (2, 3) broken, CL (0, 4) holds -> 2 of 4.
    res = informativeness(X, 3, ml=[(0, 1), (1, 2)], cl=[(2, 3), (0, 4)], labels=labels)
    assert res.value == 0.5
    assert res.per_constraint.tolist() == [0.0, 1.0, 1.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.tuples(st.sampled_from(list(itertools.combinations(range(n), 2))), st.booleans()),
             unique_by=lambda t: t[0], max_size=6))))
def test_informativeness_from_labels_matches_the_plain_loop(case):
    n, labels, rows = case
    ml = [p for p, is_ml in rows if is_ml]
    cl = [p for p, is_ml in rows if not is_ml]
    violated = [labels[i] != labels[j] for i, j in ml] + [labels[i] == labels[j] for i, j in cl]
    res = informativeness(np.zeros((n, 1)), 1, ml=ml or None, cl=cl or None, labels=labels)
    assert res.per_constraint.tolist() == [float(v) for v in violated]
    assert res.value == (np.mean(violated) if violated else 0.0)


# ----------------------------------------------------------------------------- coherence


def test_coherence_on_hand_computed_segments():
    X = np.array([
        [0.0, 0.0], [2.0, 0.0],    # 0-1: ML m1 along the x axis, x in [0, 2]
        [0.0, 10.0], [0.0, 12.0],  # 2-3: ML m2 vertical at x = 0, far up
        [1.0, 1.0], [1.0, 3.0],    # 4-5: CL c1 vertical at x = 1: projects onto m1 as a point
        [1.0, 1.0], [3.0, 1.0],    # 6-7: CL c2 horizontal, x in [1, 3]: overlaps m1 on [1, 2]
        [5.0, 0.0], [7.0, 0.0],    # 8-9: CL c3 on m1's line, x in [5, 7]: disjoint from m1
    ])
    res = coherence(X, ml=[(0, 1), (2, 3)], cl=[(4, 5), (6, 7), (8, 9)])
    # m1 agrees with c1 and c3 only; m2 projects onto every CL (and they onto it) as points.
    assert res.per_constraint.tolist() == pytest.approx([2 / 3, 1.0, 1.0, 0.5, 1.0])
    assert res.value == pytest.approx(5 / 6)


def test_coherence_counts_an_overlap_in_one_direction_only():
    # ML from (0, 0) to (10, 0); CL from (4, 10) to (5, 10 + sqrt(3)) at 60 degrees.
    # CL onto ML: x in [4, 5], inside [0, 10] -> overlap 1.
    # ML onto CL's line (unit (0.5, 0.866) from (4, 10)): -2 - 8.66 and 3 - 8.66, both < 0 -> none.
    X = np.array([[0.0, 0.0], [10.0, 0.0], [4.0, 10.0], [5.0, 10.0 + math.sqrt(3.0)]])
    assert coherence(X, ml=[(0, 1)], cl=[(2, 3)]).value == 0.0
    # Moved to the right of the ML's extent, neither projection overlaps.
    X[2:, 0] += 20.0
    assert coherence(X, ml=[(0, 1)], cl=[(2, 3)]).value == 1.0


def test_coherence_without_one_kind_is_one_and_chunks_agree():
    X = np.random.default_rng(0).normal(size=(12, 3))
    assert coherence(X, ml=[(0, 1), (2, 3)]).value == 1.0
    ml = [(0, 1), (2, 3), (4, 5), (6, 7)]
    cl = [(8, 9), (10, 11), (0, 11)]
    whole = coherence(X, ml=ml, cl=cl)
    chunked = coherence(X, ml=ml, cl=cl, chunk_size=1)
    assert whole.value == chunked.value
    np.testing.assert_array_equal(whole.per_constraint, chunked.per_constraint)
    assert whole.value == pytest.approx(whole.per_constraint[:4].mean())
    assert whole.value == pytest.approx(whole.per_constraint[4:].mean())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_segments())
def test_coherence_matches_the_plain_loop(instance):
    X, ml, cl = instance
    value, shares = _coherence_loop(X, ml, cl)
    res = coherence(X, ml=ml or None, cl=cl or None)
    assert res.value == pytest.approx(value, abs=1e-12)
    # Results come back with the ML pairs first, then the CL pairs.
    np.testing.assert_allclose(res.per_constraint, shares, atol=1e-12)
    assert res.name == "coherence" and 0.0 <= res.value <= 1.0


def test_coherence_zero_length_segments_overlap_nothing():
    # Objects 0 and 1 coincide: the must-link is a point inside the cannot-link's extent.
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 0.0], [3.0, 0.0]])
    assert coherence(X, ml=[(0, 1)], cl=[(2, 3)]).value == 1.0
    # Both degenerate: nothing to overlap either.
    X = np.array([[1.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 0.0]])
    assert coherence(X, ml=[(0, 1)], cl=[(2, 3)]).value == 1.0
    # No must-link or no cannot-link: 1 by convention, every share too.
    assert coherence(X, cl=[(0, 2), (1, 3)]).per_constraint.tolist() == [1.0, 1.0]
    assert coherence(X, ml=[(0, 2)]).value == 1.0


def test_coherence_does_not_depend_on_where_the_origin_is():
    # Regression: the projections were taken as differences of dot products with the raw
    # coordinates, so a large common offset (1e6 here, e.g. timestamps or map coordinates)
    # turned two segments that only share an endpoint (x2 = (-0.079, 0.106)) into "overlapping"
    # ones by rounding, and the coherence of this pair from 1 into 0.
    X = np.array([[-0.1983350379092093, 0.065604139561007], [-0.07890046733626113, 0.1064484494928815],
                  [0.6190468367250935, 1.6549788740762763]])
    assert _coherence_loop(X, [(0, 1)], [(1, 2)])[0] == 1.0
    for shift in (0.0, 1e3, 1e6, -1e6):
        assert coherence(X + shift, ml=[(0, 1)], cl=[(1, 2)]).value == 1.0, shift


def test_coherence_is_translation_invariant_on_random_sets():
    for seed in range(200):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(6, 2))
        pairs = list(itertools.combinations(range(6), 2))
        idx = rng.choice(len(pairs), 8, replace=False)
        kinds = rng.integers(0, 2, 8)
        ml = [pairs[i] for i, t in zip(idx, kinds, strict=True) if t]
        cl = [pairs[i] for i, t in zip(idx, kinds, strict=True) if not t]
        expected = coherence(X, ml=ml or None, cl=cl or None).per_constraint
        moved = coherence(X + 1e6, ml=ml or None, cl=cl or None).per_constraint
        np.testing.assert_array_equal(moved, expected, err_msg=f"seed {seed}")


@pytest.mark.parametrize("name", ["naive_baseline", "pessimistic_baseline", "optimistic_baseline"])
def test_baselines_say_they_do_not_use_weights_as_the_score_does(name):
    # impact_scores warned about weights and hard flags it does not read; its baselines said nothing.
    from ccopt.lagrange import baselines

    X = np.random.default_rng(0).normal(size=(12, 2))
    cons = Constraints([(0, 3), (4, 1), (0, 1), (2, 5)], ["ML", "ML", "CL", "CL"], weights=[1, 2, 1, 0.5])
    kwargs = {} if name == "naive_baseline" else {"solver_mode": "heuristic", "n_init": 1, "progress": False}
    with pytest.warns(CcoptWarning, match=rf"^{name} does not use per-constraint weights or hard flags "
                      r"\(2 with a weight other than 1 of 4 constraints\)"):
        getattr(baselines, name)(X, 3, constraints=cons, criterion="mssc", random_state=0, **kwargs)
