"""The PCKmeans / PCS assignment pass against the plain sequential loop it replaced.

:meth:`_PCKModel.assign` first chooses for every super-instance at once from the last pass's
labels, then revisits in visiting order only those whose choice can differ from the
sequential one. The oracle here is the sequential loop itself (each super-instance sees the
labels already given in this pass), kept as it was; results must agree to the last bit:
labels, dead ends and their blocking constraints, and whole fits (labels, centres, ``J``,
``n_iter``, status, history, dead-end messages).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs

from ccopt import generators
from ccopt.cluster import PCS, PCKMeans
from ccopt.cluster._cop_kmeans import _DeadEnd
from ccopt.cluster._init_centers import squared_distances
from ccopt.cluster._pckmeans import _PCKModel
from ccopt.constraints import CL, ML, Constraints
from ccopt.exceptions import InfeasibleConstraintsError, InvalidParameterError
from ccopt.problem import ClusteringProblem
from tests.cluster._equivalence import ODD_CYCLE, ODD_CYCLE_X, assert_same_pass, fit_outcome

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sequential_pass(model: _PCKModel, centers: np.ndarray, previous: np.ndarray | None, *,
                     order: np.ndarray):
    """The assignment pass as one loop in visiting order (the implementation before the
    vectorised first sweep): labels of the super-instances, or the first :class:`_DeadEnd`."""
    cost = 0.5 * model.sizes[:, None] * squared_distances(model.points, centers)
    labels = np.argmin(cost, axis=1)
    if model.m == 0:
        return labels
    k = centers.shape[0]
    rows = cost[model.nodes[order]].tolist()
    lab = [-1] * model.m if previous is None else previous[model.nodes].tolist()
    inf = float("inf")
    for s, c in zip(order.tolist(), rows, strict=True):
        for t, a in zip(model.soft_nb[s], model.soft_coef[s], strict=True):
            if lab[t] >= 0:
                c[lab[t]] += a
        for t in model.hard_nb[s]:
            if lab[t] >= 0:
                c[lab[t]] = inf
        h = min(range(k), key=c.__getitem__)
        if c[h] == inf:
            blockers: dict[int, int] = {}
            for t, pos in zip(model.hard_nb[s], model.hard_pos[s], strict=True):
                if lab[t] >= 0:
                    blockers.setdefault(lab[t], pos)
            return _DeadEnd(int(model.nodes[s]), blockers)
        lab[s] = h
    labels[model.nodes] = lab
    return labels


@st.composite
def _instances(draw):
    """Small instances on an integer grid with few distinct weights, so that cost ties occur."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, 14))
    k = draw(st.integers(1, 4))
    X = rng.integers(-3, 4, size=(n, 2)).astype(np.float64)
    n_pairs = draw(st.integers(0, 3 * n))
    pairs = np.array([rng.choice(n, size=2, replace=False) for _ in range(n_pairs)],
                     dtype=np.int64).reshape(-1, 2)
    # One kind per pair, so that repeated pairs (kept: their penalties add up) never conflict.
    ml_share = draw(st.sampled_from([0.0, 0.3, 0.6, 1.0]))
    is_ml = rng.random((n, n)) < ml_share
    kinds = np.where(is_ml[pairs.min(axis=1), pairs.max(axis=1)], ML, CL).astype(np.int8)
    weights = rng.choice([0.0, 0.5, 1.0, 2.0, 0.3], size=n_pairs)
    hard = rng.random(n_pairs) < draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
    cons = Constraints(pairs, kinds, weights=weights, hard=hard, n_samples=n, _warn_duplicates=False)
    weight = draw(st.sampled_from([0.0, 0.5, 1.0, 4.0, 0.1]))
    return X, k, cons, weight, rng


@SETTINGS
@given(_instances(), st.sampled_from(["none", "labels", "partial"]))
def test_pass_equals_sequential_pass(instance, previous_kind):
    X, k, cons, weight, rng = instance
    try:
        model = _PCKModel(ClusteringProblem.create(X, k, cons, require_closure=False), weight)
    except (InfeasibleConstraintsError, InvalidParameterError):
        assume(False)
    n_super = model.closure.n_super
    for _ in range(5):
        centers = rng.integers(-3, 4, size=(k, 2)).astype(np.float64)
        order = rng.permutation(model.m)
        if previous_kind == "none":
            previous = None
        elif previous_kind == "labels":
            # Any labelling, hard cannot-links broken or not (blocked nodes, dead ends).
            previous = rng.integers(0, k, size=n_super)
        else:
            previous = rng.integers(-1, k, size=n_super)  # -1: no label yet
        expected = _sequential_pass(model, centers, previous, order=order)
        got = model.assign(centers, previous, order=order)
        assert_same_pass(got, expected)


def test_pass_equals_sequential_pass_on_blobs_with_dead_ends():
    """Larger passes, every cannot-link hard and k = 2, so that many passes are dead ends."""
    n_dead = 0
    for seed in range(6):
        X, y = make_blobs(120, 3, centers=2, random_state=seed, cluster_std=3.0)
        noisy = generators.noisy_constraints(y, 150, 10, random_state=seed).constraints
        rng = np.random.default_rng(seed)
        cons = Constraints(noisy.pairs, noisy.kinds, n_samples=len(X), hard=noisy.cl_mask & (rng.random(len(noisy)) < 0.7),
                           weights=rng.uniform(0.5, 3.0, len(noisy)))
        try:
            model = _PCKModel(ClusteringProblem.create(X, 2, cons, require_closure=False), 5.0)
        except InfeasibleConstraintsError:
            continue
        for _ in range(20):
            centers = model.points[rng.choice(model.closure.n_super, 2, replace=False)]
            order = rng.permutation(model.m)
            previous = None if rng.random() < 0.2 else rng.integers(0, 2, model.closure.n_super)
            expected = _sequential_pass(model, centers, previous, order=order)
            n_dead += isinstance(expected, _DeadEnd)
            assert_same_pass(model.assign(centers, previous, order=order), expected)
    assert n_dead > 0


def _blob_case(seed: int, hard_share: float):
    X, y = make_blobs(400, 4, centers=4, random_state=seed, cluster_std=2.5)
    noisy = generators.noisy_constraints(y, 200, 20, random_state=seed).constraints
    rng = np.random.default_rng(seed)
    hard = noisy.cl_mask & (rng.random(len(noisy)) < hard_share)
    cons = Constraints(noisy.pairs, noisy.kinds, n_samples=len(X), hard=hard,
                       weights=rng.uniform(0.5, 2.0, len(noisy)))
    return X, y, cons


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("hard_share", [0.0, 0.5])
def test_pckmeans_fit_equals_sequential_fit(monkeypatch, seed, hard_share):
    X, _, cons = _blob_case(seed, hard_share)

    def make():
        return PCKMeans(4, weight=2.0, n_init=3, init="k-means++", random_state=seed)

    after = fit_outcome(make, X, cons, "objective_history_")
    monkeypatch.setattr(_PCKModel, "assign", _sequential_pass)
    before = fit_outcome(make, X, cons, "objective_history_")
    assert after == before


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("hard_share", [0.0, 0.5])
def test_pcs_fit_equals_sequential_fit(monkeypatch, seed, hard_share):
    X, y, cons = _blob_case(seed, hard_share)
    sizes = np.bincount(y, minlength=4).tolist()

    def make():
        return PCS(4, sizes=sizes, n_init=2, random_state=seed, progress=False)

    after = fit_outcome(make, X, cons, "objective_history_")
    monkeypatch.setattr(_PCKModel, "assign", _sequential_pass)
    before = fit_outcome(make, X, cons, "objective_history_")
    assert after == before


@pytest.mark.parametrize("estimator", ["PCKMeans", "PCS"])
def test_dead_end_error_equals_sequential_one(monkeypatch, estimator):
    """Every cannot-link hard on a 5-cycle with k = 2: an odd cycle, so every run dead-ends."""
    X = ODD_CYCLE_X
    cons = Constraints.from_pairs(cl=ODD_CYCLE.cl_pairs, n_samples=len(X), cl_hard=True)

    def make():
        if estimator == "PCKMeans":
            return PCKMeans(2, n_init=3, random_state=0)
        return PCS(2, sizes=[3, 3], n_init=2, random_state=0, progress=False)

    after = fit_outcome(make, X, cons, "objective_history_")
    monkeypatch.setattr(_PCKModel, "assign", _sequential_pass)
    before = fit_outcome(make, X, cons, "objective_history_")
    assert isinstance(after[0], type) and issubclass(after[0], Exception)
    assert after == before
