"""LCC's visiting order of the cannot-link pairs, and the initial labelling as a candidate best."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt.cluster import LCC, _lcc
from ccopt.exceptions import InvalidParameterError
from ccopt.status import Status

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def repair_instances(draw):
    n = draw(st.integers(2, 12))
    k = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pairs = np.sort(rng.integers(0, n, size=(draw(st.integers(1, 3 * n)), 2)), axis=1)
    pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    if pairs.shape[0] == 0:
        pairs = np.array([[0, 1]])
    dist_w = rng.choice([0.0, 1.0, 2.0, rng.random()], size=(n, k))  # ties included
    labels = rng.integers(0, k, size=n)
    return dist_w, labels, rng.permutation(pairs), rng.permutation(pairs.shape[0]), rng.uniform(0.5, 3.0)


@SETTINGS
@given(repair_instances())
def test_a_visiting_order_is_the_nl_order_of_the_pairs_listed_in_that_order(instance):
    # Visiting NL in `order` must be what the NL order gives on the pairs rearranged so.
    dist_w, labels, pairs, order, lam0 = instance
    n = dist_w.shape[0]
    nl, nl_ordered = _lcc._NL(pairs, n), _lcc._NL(pairs[order], n)
    lam, lam_ordered = [lam0] * len(pairs), [lam0] * len(pairs)
    got = _lcc._repair(dist_w, labels, nl, lam, 2.0, order)
    expected = _lcc._repair(dist_w, labels, nl_ordered, lam_ordered, 2.0)
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[1:3] == expected[1:3]
    assert list(order[expected[3]]) == got[3]  # conflict pairs: positions in the ordered NL
    assert lam_ordered == [lam[p] for p in order]


def test_pair_order_given_visits_nl_order_and_random_draws_from_the_seed():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(c, 0.6, size=(15, 2)) for c in (0.0, 2.0, 4.0)])
    cl = np.unique(np.sort(rng.integers(0, 45, size=(60, 2)), axis=1), axis=0)
    cl = cl[cl[:, 0] != cl[:, 1]]
    seen = []
    real_repair = _lcc._repair

    def recording(*args):
        seen.append(args[5])
        return real_repair(*args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_lcc, "_repair", recording)
        given_fit = LCC(3, pair_order="given", random_state=0).fit(X, cl=cl)
        assert all(order is None for order in seen)
        seen.clear()
        first = LCC(3, random_state=0).fit(X, cl=cl)
        orders = list(seen)
    assert len(orders) == first.n_iter_ and len({tuple(o) for o in orders}) > 1
    again = LCC(3, random_state=0).fit(X, cl=cl)
    np.testing.assert_array_equal(first.labels_, again.labels_)
    assert given_fit.n_violations_["ml"] == first.n_violations_["ml"] == 0
    with pytest.raises(InvalidParameterError, match="Unknown pair_order 'sorted'; valid values are 'random', 'given'"):
        LCC(3, pair_order="sorted").fit(X, cl=cl)


@pytest.mark.parametrize("pair_order", ["given", "random"])
def test_no_run_returns_a_labelling_worse_than_the_one_it_started_from(pair_order):
    # All objects at one point: every iteration leaves pairs violated, and a lucky initial
    # labelling can beat them all. It used to enter the comparison as |NL| violations.
    X = np.zeros((12, 2))
    cl = [(i, j) for i in range(12) for j in range(i + 1, 12)][:20]
    starts, results = [], []
    real_run = _lcc._lcc_run

    def recording(points, sizes, nl, c0, *args, **kwargs):
        starts.append(nl.violations(c0))
        results.append(real_run(points, sizes, nl, c0, *args, **kwargs))
        return results[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_lcc, "_lcc_run", recording)
        est = LCC(2, n_init=5, random_state=3, pair_order=pair_order).fit(X, cl=cl)
    assert all(run["violations"] <= start for run, start in zip(results, starts, strict=True))
    assert est.n_violations_["cl"] == min(run["violations"] for run in results) <= min(starts)


def test_one_cluster_settles_at_once_whatever_the_order():
    # With k = 1 every cannot-link stays violated and no visiting order repairs one, so the
    # first fixed point is final under the random order as under the given one.
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    for pair_order in ("random", "given"):
        fit = LCC(1, pair_order=pair_order, random_state=0).fit(X, cl=[(0, 1), (2, 3)])
        assert fit.status_ is Status.CONVERGED
        assert fit.n_iter_ == 1
        assert fit.n_violations_["cl"] == 2
