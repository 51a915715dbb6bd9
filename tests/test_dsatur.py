"""The heap DSATUR of check_feasibility gives networkx's DSATUR colouring, vertex for vertex.

``_dsatur_colouring`` replaced ``nx.greedy_color(graph, strategy="DSATUR")`` (O(V * E)) in
``check_feasibility``; every verdict and witness labelling must stay the same, so the
colourings are compared as dicts, not merely as valid colourings.
"""

from __future__ import annotations

from functools import partial

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ccopt.constraints as constraints_module
from ccopt.constraints import Constraints, check_feasibility

_dsatur_colouring = constraints_module._dsatur_colouring
networkx_dsatur = partial(nx.greedy_color, strategy="DSATUR")

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Distinct vertex labels of mixed types (never 0..n-1 in order): neither implementation may compare them.
labels = st.one_of(st.integers(-10**6, 10**6), st.text(max_size=3), st.tuples(st.integers(0, 3), st.integers(0, 3)))


@st.composite
def graphs(draw) -> nx.Graph:
    """Random graphs: any density, isolated vertices, self-loops, vertex order by insertion or by edges."""
    vertices = draw(st.lists(labels, unique=True, max_size=30))
    n = len(vertices)
    graph = nx.Graph()
    if n == 0:
        return graph
    density = draw(st.floats(0.0, 1.0))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < density]
    pairs += [(i, i) for i in range(n) if draw(st.booleans()) and rng.random() < 0.1]
    rng.shuffle(pairs)
    if draw(st.booleans()):  # isolated vertices, and insertion order independent of the edges
        graph.add_nodes_from(vertices)
    graph.add_edges_from((vertices[i], vertices[j]) for i, j in pairs)
    return graph


@SETTINGS
@given(graphs())
def test_dsatur_is_networkx_dsatur_on_random_graphs(graph):
    assert _dsatur_colouring(graph) == networkx_dsatur(graph)


@SETTINGS
@given(st.integers(0, 12), st.integers(0, 12), st.integers(0, 2**32 - 1))
def test_dsatur_is_networkx_dsatur_on_relabelled_structured_graphs(a, b, seed):
    rng = np.random.default_rng(seed)
    for graph in (nx.empty_graph(a), nx.complete_graph(a), nx.complete_bipartite_graph(a, b),
                  nx.cycle_graph(a), nx.path_graph(b), nx.star_graph(a),
                  nx.disjoint_union(nx.complete_graph(a), nx.empty_graph(b))):
        order = rng.permutation(graph.number_of_nodes()).tolist()
        relabelled = nx.Graph()
        relabelled.add_nodes_from(f"v{order[v]}" for v in graph)
        relabelled.add_edges_from((f"v{order[u]}", f"v{order[v]}") for u, v in graph.edges)
        assert _dsatur_colouring(graph) == networkx_dsatur(graph)
        assert _dsatur_colouring(relabelled) == networkx_dsatur(relabelled)


@pytest.mark.parametrize("graph", [
    nx.Graph(), nx.empty_graph(1), nx.mycielski_graph(4), nx.petersen_graph(), nx.wheel_graph(8),
    nx.gnp_random_graph(200, 0.05, seed=3), nx.random_regular_graph(3, 50, seed=1),
], ids=["empty", "one-vertex", "groetzsch", "petersen", "wheel", "gnp-200", "cubic-50"])
def test_dsatur_is_networkx_dsatur_on_named_graphs(graph):
    colouring = _dsatur_colouring(graph)
    assert colouring == networkx_dsatur(graph)
    assert list(colouring) == list(networkx_dsatur(graph))  # and in the same colouring order
    assert all(colouring[u] != colouring[v] for u, v in graph.edges)


def _planted_three_partite(seed: int) -> Constraints:
    """Cannot-links across a hidden 3-partition and must-links within it (3-colourable)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(15, 40))
    part = rng.integers(0, 3, n)
    density = float(rng.uniform(0.2, 0.6))
    cl = [(i, j) for i in range(n) for j in range(i + 1, n) if part[i] != part[j] and rng.random() < density]
    ml = [(i, j) for i in range(n) for j in range(i + 1, n) if part[i] == part[j] and rng.random() < 0.02]
    return Constraints.from_pairs(ml=ml, cl=cl, n_samples=n + 2)  # and two free objects


def _groetzsch(with_four_clique: bool) -> Constraints:
    """The Groetzsch graph (4-chromatic, triangle-free), shifted, and optionally a 4-clique apart."""
    cl = [(u + 3, v + 3) for u, v in nx.mycielski_graph(4).edges]
    if with_four_clique:
        cl += [(u + 14, v + 14) for u, v in nx.complete_graph(4).edges]
    return Constraints.from_pairs(ml=[(0, 1), (1, 3)], cl=cl, n_samples=20)


# (constraints, max_cluster_size): smallest-last, largest-first and the five random orders all
# fail (checked by the test), so check_feasibility reaches DSATUR; DSATUR's colouring is the witness
# of the feasible ones, is refused for its cluster sizes in the "exceed" ones, and fails otherwise.
DSATUR_CASES = {
    "planted-1": (lambda: _planted_three_partite(1), None, "feasible"),
    "planted-7": (lambda: _planted_three_partite(7), None, "feasible"),
    "planted-10": (lambda: _planted_three_partite(10), None, "feasible"),
    "planted-133": (lambda: _planted_three_partite(133), None, "feasible"),
    "planted-7-size-20": (lambda: _planted_three_partite(7), 20, "feasible"),
    "planted-1-size-10-exceed": (lambda: _planted_three_partite(1), 10, "unknown"),
    "planted-38-size-8-exceed": (lambda: _planted_three_partite(38), 8, "unknown"),
    "groetzsch": (lambda: _groetzsch(False), None, "unknown"),
    "groetzsch-and-4-clique": (lambda: _groetzsch(True), None, "infeasible"),
}


@pytest.mark.parametrize(("build", "max_cluster_size", "status"), DSATUR_CASES.values(), ids=DSATUR_CASES)
def test_check_feasibility_report_is_unchanged_where_dsatur_is_reached(monkeypatch, build, max_cluster_size,
                                                                        status):
    cons = build()
    calls = []

    def spy(graph):
        calls.append(graph.number_of_nodes())
        return _dsatur_colouring(graph)

    monkeypatch.setattr(constraints_module, "_dsatur_colouring", spy)
    report = check_feasibility(cons, 3, max_cluster_size=max_cluster_size)
    assert calls, "the instance no longer reaches DSATUR; pick another one"
    monkeypatch.setattr(constraints_module, "_dsatur_colouring", networkx_dsatur)  # the code before
    before = check_feasibility(cons, 3, max_cluster_size=max_cluster_size)
    assert report.status == before.status == status
    assert report.reason == before.reason
    assert report.certificate == before.certificate
    if status == "feasible":
        np.testing.assert_array_equal(report.labels, before.labels)
        assert cons.satisfied(report.labels).all()
    else:
        assert report.labels is None and before.labels is None
