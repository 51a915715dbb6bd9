"""KMeansS(size_assignment="exact"): the O(n k) transportation solver and its use in the fit.

Exact tier: the labelling against enumeration (n <= 7) and against the ``n x n``
``linear_sum_assignment`` it replaced (hypothesis, n <= 32, k <= 4), its dual prices as an
optimality certificate, ties resolved deterministically. Fit tier: the same fits as with the
``n x n`` assignment, the time limit (first assignment always finished, a later one cut short
keeps the previous labelling), the memory announcement once per fit.
"""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from ccopt import MemoryBudgetError, config_context
from ccopt.cluster import _pcs, _transport
from ccopt.cluster._pcs import KMeansS
from ccopt.cluster._transport import AssignmentStopped, assign_exact_sizes
from ccopt.exceptions import CcoptWarning
from ccopt.status import Status


def _costs(seed: int, n: int, k: int, ties: bool) -> np.ndarray:
    """Squared distances of random points to random centres, or small integers (many ties)."""
    rng = np.random.default_rng(seed)
    if ties:
        return rng.integers(0, 3, size=(n, k)).astype(np.float64)
    X, centres = rng.normal(size=(n, 2)), rng.normal(size=(k, 2))
    return ((X[:, None, :] - centres[None]) ** 2).sum(axis=2)


def _cost_of(cost: np.ndarray, labels: np.ndarray) -> float:
    return float(cost[np.arange(labels.size), labels].sum())


def _by_slots(cost: np.ndarray, capacities) -> np.ndarray:
    """The replaced route: objects to ``n`` slots, ``capacities[h]`` of them per cluster."""
    slot_cluster = np.repeat(np.arange(cost.shape[1]), capacities)
    rows, cols = linear_sum_assignment(cost[:, slot_cluster])
    labels = np.empty(cost.shape[0], dtype=np.int64)
    labels[rows] = slot_cluster[cols]
    return labels


def _assert_certified(cost, labels, prices, capacities):
    """Sizes met, and the dual objective at ``prices`` equals the labelling's cost."""
    assert np.bincount(labels, minlength=len(capacities)).tolist() == list(capacities)
    dual = float((cost - prices).min(axis=1).sum() + np.dot(capacities, prices))
    primal = _cost_of(cost, labels)
    assert primal == pytest.approx(dual, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------- exact tier
@pytest.mark.parametrize("ties", [False, True], ids=["distances", "ties"])
@pytest.mark.parametrize("seed", range(12))
def test_exact_assignment_is_the_cheapest_labelling_by_enumeration(seed, ties):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 4))
    n = int(rng.integers(k, 8))
    capacities = (np.bincount(rng.integers(0, k, n - k), minlength=k) + 1).tolist()
    cost = _costs(seed, n, k, ties)
    labels, prices = assign_exact_sizes(cost, np.array(capacities))
    feasible = [np.array(lab) for lab in itertools.product(range(k), repeat=n)
                if np.bincount(lab, minlength=k).tolist() == capacities]
    values = np.array([_cost_of(cost, lab) for lab in feasible])
    assert _cost_of(cost, labels) == pytest.approx(values.min(), rel=1e-12, abs=1e-12)
    _assert_certified(cost, labels, prices, capacities)
    if np.sum(values <= values.min() + 1e-12) == 1:  # a unique optimum: the same labels
        np.testing.assert_array_equal(labels, feasible[int(values.argmin())])


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), parts=st.lists(st.integers(1, 8), min_size=1, max_size=4),
       ties=st.booleans(), warm=st.booleans())
def test_exact_assignment_costs_what_the_n_by_n_assignment_costs(seed, parts, ties, warm):
    n, k = sum(parts), len(parts)
    cost = _costs(seed, n, k, ties)
    start = np.random.default_rng(seed).normal(size=k) if warm else None  # any start is valid
    labels, prices = assign_exact_sizes(cost, np.array(parts), start)
    reference = _by_slots(cost, parts)
    assert _cost_of(cost, labels) == pytest.approx(_cost_of(cost, reference), rel=1e-12, abs=1e-12)
    _assert_certified(cost, labels, prices, parts)
    if not ties:  # continuous costs: the optimum is unique (almost surely)
        np.testing.assert_array_equal(labels, reference)


@pytest.mark.parametrize("seed", range(3))
def test_price_sweeps_and_resorted_candidates_stay_exact(monkeypatch, seed):
    """Many objects out of place: the dual sweeps run, and so do the paths with clusters
    sorted again on the way (both counted), without and with the sweeps."""
    n, k = 400, 4
    cost = _costs(seed, n, k, ties=False)
    capacities = np.array([10, 40, 100, 250])  # far from the nearest-centre counts
    reference = _by_slots(cost, capacities)
    calls = {"sweeps": 0, "sorts": 0}
    sweep, build = _transport._raise_prices, _transport._MoveCandidates._build

    def counting_sweep(*args):
        calls["sweeps"] += 1
        return sweep(*args)

    def counting_build(self, g):
        calls["sorts"] += 1
        build(self, g)

    monkeypatch.setattr(_transport, "_raise_prices", counting_sweep)
    monkeypatch.setattr(_transport._MoveCandidates, "_build", counting_build)
    for sweep_from in (_transport._SWEEP_FROM, 10**9):
        monkeypatch.setattr(_transport, "_SWEEP_FROM", sweep_from)
        calls["sorts"] = 0
        labels, prices = assign_exact_sizes(cost, capacities)
        np.testing.assert_array_equal(labels, reference)
        _assert_certified(cost, labels, prices, capacities)
    assert calls["sweeps"] == 1  # the first pass only
    assert calls["sorts"] > k  # the second pass sorted a cluster again


def test_ties_are_resolved_the_same_way_every_time():
    cost = np.zeros((9, 3))  # every labelling with these sizes is optimal
    first, _ = assign_exact_sizes(cost, np.array([2, 3, 4]))
    assert np.bincount(first, minlength=3).tolist() == [2, 3, 4]
    for _ in range(3):
        again, _ = assign_exact_sizes(cost.copy(), np.array([2, 3, 4]))
        np.testing.assert_array_equal(again, first)


def test_one_cluster_takes_everything():
    labels, prices = assign_exact_sizes(np.ones((5, 1)), np.array([5]))
    assert labels.tolist() == [0] * 5 and prices.tolist() == [0.0]


@pytest.mark.parametrize("sweep_from", [0, 10**9], ids=["in the sweeps", "in the paths"])
def test_stop_abandons_the_assignment(monkeypatch, sweep_from):
    monkeypatch.setattr(_transport, "_SWEEP_FROM", sweep_from)
    monkeypatch.setattr(_transport, "_STOP_EVERY", 1)
    cost = _costs(0, 60, 3, ties=False)
    with pytest.raises(AssignmentStopped):
        assign_exact_sizes(cost, np.array([5, 5, 50]), stop=lambda: True)
    labels, _ = assign_exact_sizes(cost, np.array([5, 5, 50]), stop=lambda: False)
    assert np.bincount(labels).tolist() == [5, 5, 50]


def test_a_labelling_that_fails_its_certificate_is_reported(monkeypatch):
    monkeypatch.setattr(_transport, "_move_along_shortest_paths", lambda *args: None)
    with pytest.warns(CcoptWarning, match="may not be the cheapest"):
        assign_exact_sizes(_costs(0, 30, 3, ties=False), np.array([2, 3, 25]))


# ---------------------------------------------------------------------------- fit tier
def _data(seed: int, n: int = 60):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, 1.2, size=(n // 3, 2)) for c in ([0, 0], [3, 0], [1.5, 2.5])])
    return X, [n // 6, n // 3, n - n // 6 - n // 3]


@pytest.mark.parametrize("filter_refinement", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_fit_is_the_one_the_n_by_n_assignment_gives(monkeypatch, seed, filter_refinement):
    X, sizes = _data(seed)
    params = {"sizes": sizes, "size_assignment": "exact", "filter_refinement": filter_refinement,
              "n_init": 2, "random_state": seed, "progress": False}
    new = KMeansS(3, **params).fit(X)
    monkeypatch.setattr(_pcs, "assign_exact_sizes",
                        lambda cost, capacities, prices, stop: (_by_slots(cost, capacities), None))
    old = KMeansS(3, **params).fit(X)
    np.testing.assert_array_equal(new.labels_, old.labels_)
    np.testing.assert_array_equal(new.cluster_centers_, old.cluster_centers_)
    assert new.objective_history_ == old.objective_history_
    assert (new.n_iter_, new.status_) == (old.n_iter_, old.status_)


def _spy(monkeypatch, cut_at: int | None = None) -> list:
    """Record every exact assignment (its centres' costs, stop and labels); raise
    :class:`AssignmentStopped` in assignment number ``cut_at`` as the time limit would."""
    calls = []
    original = _pcs.assign_exact_sizes

    def spying(cost, capacities, prices, stop):
        calls.append({"cost": cost, "stop": stop})
        if len(calls) == cut_at:
            raise AssignmentStopped
        labels, prices = original(cost, capacities, prices, stop)
        calls[-1]["labels"] = labels.copy()
        return labels, prices

    monkeypatch.setattr(_pcs, "assign_exact_sizes", spying)
    return calls


def test_an_assignment_cut_by_the_time_limit_leaves_the_previous_labelling(monkeypatch):
    X, sizes = _data(0)
    calls = _spy(monkeypatch, cut_at=2)
    est = KMeansS(3, sizes=sizes, size_assignment="exact", time_limit=3600, random_state=0,
                  progress=False).fit(X)
    assert est.status_ is Status.TIME_LIMIT
    assert len(calls) == 2 and len(est.objective_history_) == 1
    np.testing.assert_array_equal(est.labels_, calls[0]["labels"])
    # The centres the kept labels were assigned to, not the ones updated from them.
    sq_dist = ((X[:, None, :] - est.cluster_centers_[None]) ** 2).sum(axis=2)
    np.testing.assert_allclose(sq_dist, calls[0]["cost"])
    assert calls[0]["stop"] is None  # the first assignment is never cut
    assert callable(calls[1]["stop"]) and calls[1]["stop"]() is False


def test_first_assignment_runs_to_the_end_when_time_is_up(monkeypatch):
    X, sizes = _data(1)
    calls = _spy(monkeypatch)
    est = KMeansS(3, sizes=sizes, size_assignment="exact", filter_refinement=False,
                  time_limit=1e-9, random_state=0, progress=False).fit(X)
    assert est.status_ is Status.TIME_LIMIT and est.n_iter_ == 0
    assert len(calls) == 1 and calls[0]["stop"] is None
    assert sorted(np.bincount(est.labels_).tolist()) == sorted(sizes)


def test_the_work_arrays_are_announced_once_per_fit(monkeypatch, caplog):
    X, sizes = _data(2)
    calls = _spy(monkeypatch)
    with caplog.at_level(logging.DEBUG, logger="ccopt.config"):
        KMeansS(3, sizes=sizes, size_assignment="exact", filter_refinement=False, n_init=3,
                random_state=0, progress=False).fit(X)
    assert len(calls) > 3  # several assignments in several runs
    lines = [r.getMessage() for r in caplog.records if "exact size assignment" in r.getMessage()]
    assert len(lines) == 1
    assert f"({_transport.EXACT_WORK_ARRAYS} x {X.shape[0]} x 3)" in lines[0]


def test_the_work_arrays_respect_the_memory_bound():
    X, sizes = _data(3)
    n, k = X.shape[0], 3
    needed = 8 * _transport.EXACT_WORK_ARRAYS * n * k
    assert needed < 8 * n * n  # the bound an n x n matrix would need is not needed
    make = lambda: KMeansS(k, sizes=sizes, size_assignment="exact", progress=False)  # noqa: E731
    with config_context(max_dense_bytes=needed - 1), \
            pytest.raises(MemoryBudgetError, match=rf"\({_transport.EXACT_WORK_ARRAYS} x {n} x {k}\)"):
        make().fit(X)
    with config_context(max_dense_bytes=needed):
        assert sorted(np.bincount(make().fit(X).labels_).tolist()) == sorted(sizes)
