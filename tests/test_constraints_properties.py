"""Property checks of ``Constraints`` against plain loops and networkx (hypothesis): merging
of duplicate rows, CSV round trips, satisfied pairs and violation counts, and the must-link
closure with its infeasibility certificates."""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt.constraints import CL, ML, Constraints, check_feasibility
from ccopt.exceptions import DuplicateConstraintWarning, InfeasibleConstraintsError

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def constraint_rows(draw):
    """A valid constraint list (no contradictions), with duplicates in either orientation."""
    n = draw(st.integers(2, 10))
    m = draw(st.integers(0, 20))
    pairs, kinds, weights, hard, kind_of = [], [], [], [], {}
    for _ in range(m):
        i = draw(st.integers(0, n - 1))
        j = draw(st.integers(0, n - 1).filter(lambda v, i=i: v != i))
        kind = kind_of.setdefault(frozenset((i, j)), draw(st.sampled_from([ML, CL])))
        pairs.append((i, j))
        kinds.append(kind)
        weights.append(draw(st.floats(0, 1e6, allow_nan=False)))
        hard.append(draw(st.booleans()))
    return n, pairs, kinds, weights, hard


def _build(n, pairs, kinds, weights, hard):
    with warnings.catch_warnings():
        # The drawn rows may or may not repeat a pair.
        warnings.filterwarnings("ignore", message=r"\d+ duplicate constraint row\(s\) merged",
                                category=DuplicateConstraintWarning)
        return Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), np.array(kinds, dtype=np.int8),
                           weights=np.array(weights), hard=np.array(hard, dtype=bool), n_samples=n)


@SETTINGS
@given(constraint_rows())
def test_merging_csv_round_trip_and_labellings_match_plain_loops(tmp_path_factory, rows):
    n, pairs, kinds, weights, hard = rows
    cons = _build(n, pairs, kinds, weights, hard)
    first: dict = {}
    for r, (p, w, h) in enumerate(zip(pairs, weights, hard, strict=True)):
        entry = first.setdefault(frozenset(p), [r, 0.0, False])
        entry[1], entry[2] = max(entry[1], w), entry[2] or h
    order = list(first)
    assert cons.pairs.tolist() == [list(pairs[first[key][0]]) for key in order]
    assert cons.kinds.tolist() == [kinds[first[key][0]] for key in order]
    assert cons.weights.tolist() == [first[key][1] for key in order]
    assert cons.hard.tolist() == [first[key][2] for key in order]
    assert cons.to_given(np.arange(len(cons))).tolist() == [order.index(frozenset(p)) for p in pairs]

    path = tmp_path_factory.mktemp("csv") / "c.csv"
    cons.to_csv(path)
    back = Constraints.from_csv(path, n_samples=n)
    for name in ("pairs", "kinds", "weights", "hard"):
        assert getattr(back, name).tolist() == getattr(cons, name).tolist()

    labels = np.random.default_rng(len(pairs)).integers(0, 3, n)
    expected = [(labels[i] == labels[j]) == (k == ML) for (i, j), k in zip(cons.pairs, cons.kinds, strict=True)]
    assert cons.satisfied(labels).tolist() == expected
    report = cons.violations(labels)
    assert report.n_ml == sum(not s and k == ML for s, k in zip(expected, cons.kinds, strict=True))
    assert report.n_cl == sum(not s and k == CL for s, k in zip(expected, cons.kinds, strict=True))


@SETTINGS
@given(constraint_rows(), st.randoms(use_true_random=False))
def test_closure_matches_networkx_and_ignores_order_and_orientation(rows, rnd):
    n, pairs, kinds, weights, hard = rows
    cons = _build(n, pairs, kinds, weights, hard)
    perm = list(range(len(cons)))
    rnd.shuffle(perm)
    shuffled = Constraints(cons.pairs[perm][:, ::-1], cons.kinds[perm], n_samples=n)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(cons.ml_pairs.tolist())
    inside = [p for p in cons.cl_pairs.tolist() if nx.has_path(graph, *p)]
    if inside:
        for c in (cons, shuffled):
            with pytest.raises(InfeasibleConstraintsError) as info:
                _ = c.closure
            chain = info.value.certificate
            assert sorted((chain[0], chain[-1])) in [sorted(p) for p in c.cl_pairs.tolist()]
            assert all(graph.has_edge(a, b) for a, b in itertools.pairwise(chain))
        assert check_feasibility(cons, 2).status == "infeasible"
        return
    closure = cons.closure
    components = sorted(sorted(c) for c in nx.connected_components(graph))
    assert sorted(closure.members(s).tolist() for s in range(closure.n_super)) == components
    assert closure.component.tolist() == shuffled.closure.component.tolist()
    for k in (1, 2, 3):
        report = check_feasibility(cons, k)
        if report.status == "feasible":
            assert cons.satisfied(report.labels).all() and np.unique(report.labels).size == k


@given(st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=10),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6))))
@settings(max_examples=60, deadline=None)
def test_must_link_closure_against_networkx(case):
    n, ml, cl = case
    ml = sorted({tuple(sorted(p)) for p in ml if p[0] != p[1]})
    cl = sorted({tuple(sorted(p)) for p in cl if p[0] != p[1]} - set(ml))
    cons = Constraints.from_pairs(ml=np.array(ml, dtype=int).reshape(-1, 2),
                                  cl=np.array(cl, dtype=int).reshape(-1, 2), n_samples=n)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(ml)
    components = sorted((sorted(c) for c in nx.connected_components(graph)), key=min)
    comp = {v: i for i, c in enumerate(components) for v in c}
    if any(comp[i] == comp[j] for i, j in cl):
        with pytest.raises(InfeasibleConstraintsError, match=r"Cannot-link .* joins two objects"):
            _ = cons.closure
        return
    closure = cons.closure
    assert closure.component.tolist() == [comp[v] for v in range(n)]
    X = np.arange(2.0 * n).reshape(n, 2) ** 1.5
    centers, weights = closure.super_instances(X)
    np.testing.assert_allclose(centers, [X[c].mean(axis=0) for c in components])
    assert weights.tolist() == [len(c) for c in components]
    assert closure.cl_pairs.tolist() == [[comp[i], comp[j]] for i, j in cons.cl_pairs.tolist()]
