"""The medoid finder's derived totals: its answers stay best_member's, bit for bit.

:class:`~ccopt.lagrange._medoids.MedoidFinder` derives a large cluster's totals from a
remembered cluster's, in another order of summation than :func:`best_member`; the derived
totals only choose candidates, which are summed again as best_member sums them. Every check
here is ``==`` on the medoid and on the float cost, never ``isclose``: the subgradient
driver feeds the medoids back into the Voronoi step, so a last-bit difference in a cost or a
tie broken otherwise would change a run. The derivation normally starts at 256 members; the
property tests lower that to 1 so that small clusters (of one or two members too) take it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

import ccopt
from ccopt import generators
from ccopt.lagrange import _medoids
from ccopt.lagrange._medoids import MedoidFinder, _column_sums, _is_symmetric, best_member

KINDS = ("rounded", "coincident", "integer", "asymmetric", "signed")


def _distances(kind: str, rng: np.random.Generator, n: int, scale: float) -> np.ndarray:
    """A distance matrix of one of ``KINDS``, multiplied by ``scale``."""
    if kind == "rounded":  # coordinates to one decimal: some coincident points, exact ties
        X = rng.normal(size=(n, 2)).round(1)
        d = cdist(X, X)
    elif kind == "coincident":  # few distinct points: many members tie exactly
        X = rng.integers(0, 3, size=(n, 2)).astype(float)
        d = cdist(X, X)
    elif kind == "integer":  # integer-valued: every sum exact, ties decided by order alone
        X = rng.integers(0, 20, size=(n, 3)).astype(float)
        d = cdist(X, X, metric="cityblock")
    elif kind == "asymmetric":  # the column gathers, not the row shortcut of symmetric matrices
        d = rng.exponential(size=(n, n)) * rng.choice([1.0, 1e-3, 1e3], size=(1, n))
    else:  # negative entries too: the error bound is on magnitudes
        d = rng.normal(size=(n, n))
    return d * scale


def _drift(rng: np.random.Generator, n: int, n_clusters: int, steps: int, max_change: int,
           tiny: float = 0.05):
    """Member lists as the Voronoi route meets them.

    A few clusters, each moved by a few objects at a time; sometimes met again unchanged,
    sometimes back to an earlier list, and with probability ``tiny`` down to one or two
    members.
    """
    clusters = [np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
                for _ in range(n_clusters)]
    met = []
    for _ in range(steps):
        c = int(rng.integers(n_clusters))
        draw = rng.random()
        if draw < 0.1 and met:
            members = met[int(rng.integers(len(met)))]
        elif draw < 0.2:
            members = clusters[c]
        elif draw < 0.2 + tiny:
            members = np.sort(rng.choice(n, size=int(rng.integers(1, min(n, 2) + 1)), replace=False))
        else:
            kept = set(clusters[c].tolist())
            for i in rng.choice(clusters[c], size=int(rng.integers(0, max_change + 1))):
                kept.discard(int(i))
            kept.update(int(i) for i in rng.integers(0, n, size=int(rng.integers(0, max_change + 1))))
            members = np.array(sorted(kept) or [int(rng.integers(n))], dtype=np.intp)
        clusters[c] = members
        met.append(members)
        yield members


def _count_derivations(monkeypatch) -> list[int]:
    """Make ``MedoidFinder._near_minimum`` count the answers it gives; return the counter."""
    answered = [0]
    near_minimum = MedoidFinder._near_minimum

    def counting(self, members, totals):
        found = near_minimum(self, members, totals)
        answered[0] += found is not None
        return found

    monkeypatch.setattr(MedoidFinder, "_near_minimum", counting)
    return answered


def _assert_same_answers(d, sequence, memory):
    finder = MedoidFinder(d, memory=memory)
    for members in sequence:
        found = finder.best(members)
        assert found == best_member(d, members)
        assert type(found[0]) is int and type(found[1]) is float
    assert len(finder._known) <= memory and len(finder._totals) <= memory


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS),
       scale=st.sampled_from([1.0, 1e-150, 1e150]), n=st.integers(1, 90),
       n_clusters=st.integers(1, 4), steps=st.integers(1, 80), max_change=st.integers(0, 4),
       memory=st.integers(0, 8))
def test_drifting_clusters_get_best_members_answers(seed, kind, scale, n, n_clusters, steps,
                                                    max_change, memory):
    rng = np.random.default_rng(seed)
    d = _distances(kind, rng, n, scale)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_medoids, "_INCREMENTAL_MIN", 1)
        _assert_same_answers(d, _drift(rng, n, n_clusters, steps, max_change), memory)


@pytest.mark.parametrize("kind", KINDS)
def test_a_long_drift_is_derived_and_gets_best_members_answers(kind, monkeypatch):
    answered = _count_derivations(monkeypatch)
    monkeypatch.setattr(_medoids, "_INCREMENTAL_MIN", 1)
    for scale in (1.0, 1e-150, 1e150):  # integer-valued at scale 1: the derived sums are exact
        rng = np.random.default_rng(7)
        d = _distances(kind, rng, 150, scale)
        sequence = list(_drift(rng, 150, 3, 1500, 3, tiny=0.002))
        _assert_same_answers(d, sequence, memory=16)
    # Coincident points leave many candidates, and those clusters are summed in full.
    assert answered[0] > 3 * (50 if kind == "coincident" else 500)


def test_clusters_past_the_default_threshold_are_derived(monkeypatch):
    rng = np.random.default_rng(3)
    X = np.concatenate([rng.normal(loc, 1.0, size=(400, 4)) for loc in (0.0, 6.0)]).round(2)
    d = cdist(X, X)
    answered = _count_derivations(monkeypatch)
    sequence = [members for members in _drift(rng, 800, 2, 300, 12) if members.size >= 256]
    _assert_same_answers(d, sequence, memory=64)
    assert answered[0] > len(sequence) // 2


@pytest.mark.parametrize("bad", [np.inf, np.nan, 1e305])
def test_infinite_nan_or_huge_distances_are_summed_in_full(bad, monkeypatch):
    # No rounding-error bound holds past overflow or with NaN: a cluster with such a row is
    # summed in full, and the others are still derived. (Only the row: a column of them
    # would be in every row, and nothing would be derived.)
    rng = np.random.default_rng(5)
    d = _distances("rounded", rng, 60, 1.0)
    d[7, :] = bad
    answered = _count_derivations(monkeypatch)
    monkeypatch.setattr(_medoids, "_INCREMENTAL_MIN", 1)
    finder = MedoidFinder(d)
    for members in _drift(rng, 60, 2, 300, 2):
        found, fresh = finder.best(members), best_member(d, members)
        assert found[0] == fresh[0]
        assert found[1] == fresh[1] or (np.isnan(found[1]) and np.isnan(fresh[1]))
        if 7 in members:
            assert finder._totals.get(members.tobytes()) is None
    assert answered[0] > 0


@pytest.mark.parametrize("m", [1, 2, 3, 9, 40, 300])
def test_candidates_are_summed_in_best_members_order(m):
    # numpy reduces a C-contiguous block along axis 0 row after row, each column on its own,
    # so any two or more columns of the block sum to the bits of the full block's columns;
    # a single column would be reduced pairwise (why a lone candidate is repeated).
    rng = np.random.default_rng(m)
    X = rng.normal(size=(400, 3)) * 10.0 ** rng.integers(-8, 8, size=(400, 1))
    d = cdist(X, X)
    members = np.sort(rng.choice(400, size=m, replace=False))
    full = _column_sums(d, members, members)
    sequential = d[members[0], members].copy()
    for i in members[1:]:
        sequential += d[i, members]
    assert np.array_equal(full, sequential)
    for width in (2, 3, 7):
        columns = rng.choice(m, size=width)  # repeats allowed, any order
        for symmetric in (False, True):
            assert np.array_equal(_column_sums(d, members, members[columns], symmetric=symmetric), full[columns])


def test_symmetry_is_exact():
    rng = np.random.default_rng(0)
    for n in (1, 2, 255, 256, 257, 600):
        a = rng.random((n, n))
        d = a + a.T
        assert _is_symmetric(d)
        if n > 1:
            i, j = n - 1, n // 3
            d[i, j] = np.nextafter(d[i, j], np.inf)
            assert not _is_symmetric(d)
            d[i, j] = d[j, i] = np.nan
            assert not _is_symmetric(d)


def _plain_best(self, members):
    return best_member(self.distances, members)


def _blobs(rng, sizes, dim=4):
    X = np.concatenate([rng.normal(5.0 * c, 1.5, size=(size, dim)) for c, size in enumerate(sizes)])
    y = np.repeat(np.arange(len(sizes)), sizes)
    return X, y


@pytest.mark.parametrize(("sizes", "threshold"), [((300, 320, 280), None), ((50, 45, 55), 8)])
def test_impact_scores_are_those_of_the_plain_finder(sizes, threshold, monkeypatch):
    rng = np.random.default_rng(11)
    X, y = _blobs(rng, sizes)
    drawn = generators.noisy_constraints(y, X.shape[0] // 6, X.shape[0] // 30, random_state=1)
    if threshold is not None:
        monkeypatch.setattr(_medoids, "_INCREMENTAL_MIN", threshold)

    def run():
        return ccopt.impact_scores(X, len(sizes), constraints=drawn.constraints, criterion="kmedoids",
                                   method="voronoi", max_iter=80, random_state=2, progress=False,
                                   erroneous=drawn.erroneous)

    answered = _count_derivations(monkeypatch)
    derived = run()
    assert answered[0] > 0
    with monkeypatch.context() as patch:
        patch.setattr(MedoidFinder, "best", _plain_best)
        plain = run()
    assert np.array_equal(derived.scores, plain.scores)
    assert np.array_equal(derived.normalized_scores, plain.normalized_scores)
    assert np.array_equal(derived.predicted_erroneous, plain.predicted_erroneous)
    assert (derived.lower_bound, derived.upper_bound) == (plain.lower_bound, plain.upper_bound)
    assert np.array_equal(derived.labels, plain.labels)
    assert derived.n_iter == plain.n_iter and derived.status == plain.status
    assert derived.history.names == plain.history.names
    for name in derived.history.names:
        if name != "seconds":
            assert np.array_equal(derived.history[name], plain.history[name]), name
