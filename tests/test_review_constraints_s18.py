"""Review of ccopt.constraints (session 18): regression tests for the defects fixed, and
property checks of construction, merging, CSV round trips, closure and feasibility."""

from __future__ import annotations

import itertools
import pickle
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt.constraints import CL, ML, Constraints, check_feasibility
from ccopt.exceptions import (
    ConflictingConstraintError,
    DataFormatError,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidParameterError,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


# ----------------------------------------------------------------------------- regressions
@pytest.mark.parametrize("ml", [[(0, True)], [(True, 2)], [(0, 1), (np.True_, 2)], [(0.0, False)]])
def test_a_boolean_index_in_a_list_is_refused_not_read_as_0_or_1(ml):
    with pytest.raises(InvalidConstraintError, match=r"ml must hold integer object indices; booleans in ml\[\d\]"):
        Constraints.from_pairs(ml=ml)


def test_a_boolean_index_is_refused_by_the_plain_constructor_and_from_labels():
    with pytest.raises(InvalidConstraintError, match=r"booleans in row 1 = \(2, True\)"):
        Constraints([(0, 1), (2, True)], ["ML", "CL"])
    with pytest.raises(InvalidConstraintError, match=r"booleans in row 0"):
        Constraints.from_labels([0, 0, 1], [(False, 2)])


def _built_every_way(tmp_path):
    csv_path = tmp_path / "c.csv"
    csv_path.write_text("i,j,kind,weight,hard\n0,1,ML,2.5,1\n3,2,CL,1.0,0\n1,0,ML,0.5,0\n")
    matrix_path = tmp_path / "m.txt"
    matrix_path.write_text("0 1 0\n1 0 0\n0 -1 0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            Constraints([(0, 1), (2, 3)], ["ML", "CL"], n_samples=4),
            Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], ml_weights=2.0, cl_hard=True, n_samples=4),
            Constraints.from_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, -1, 0]])),
            Constraints.from_matrix_file(matrix_path),
            Constraints.from_csv(csv_path, n_samples=4),
            Constraints.from_labels([0, 0, 1, 1], [(0, 1), (1, 2)]),
            Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], n_samples=4).subset([1]),
            Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)]).with_n_samples(5),
        ]


def test_constraints_pickle_with_their_row_names_and_stay_read_only(tmp_path):
    for cons in _built_every_way(tmp_path):
        if cons.n_samples is not None:
            assert cons.closure.n_super >= 1  # a cached closure travels too
        back = pickle.loads(pickle.dumps(cons))
        assert back.pairs.tolist() == cons.pairs.tolist()
        assert back.kinds.tolist() == cons.kinds.tolist()
        assert back.weights.tolist() == cons.weights.tolist()
        assert back.hard.tolist() == cons.hard.tolist()
        assert back.given_index.tolist() == cons.given_index.tolist()
        assert back.n_samples == cons.n_samples
        assert [back.row_name(r) for r in range(len(back))] == [cons.row_name(r) for r in range(len(cons))]
        for a in (back.pairs, back.kinds, back.weights, back.hard, back.given_index):
            assert not a.flags.writeable


@pytest.mark.parametrize("indices", [[0, 0], [2, -1], np.array([2, 0, 2])])
def test_subset_refuses_a_repeated_position(indices):
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(2, 3)], n_samples=4)
    with pytest.raises(InvalidParameterError, match=r"indices repeat position\(s\) (0|1|2); each constraint"):
        cons.subset(indices)
    assert cons.subset([2, 0]).pairs.tolist() == [[2, 3], [0, 1]]  # distinct positions, in the order given


def test_a_contradiction_in_a_matrix_file_is_a_conflicting_constraint_error(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("0 1\n-1 0\n")
    with pytest.raises(ConflictingConstraintError,
                       match=r"m\.txt: Contradictory constraints: pair \(0, 1\) is must-link in entry \(0, 1\) on line 1 "
                             r"and cannot-link in entry \(1, 0\) on line 2"):
        Constraints.from_matrix_file(path)


@pytest.mark.parametrize("field", ["1_0", "\u0663", "0x1", "1e1", "2.5", "True", ""])
def test_a_csv_index_must_be_plain_decimal_digits(tmp_path, field):
    path = tmp_path / "c.csv"
    path.write_text(f"i,j,kind\n0,1,ML\n0,{field},CL\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"c\.csv:3: indices must be integers"):
        Constraints.from_csv(path)


def test_a_csv_index_may_carry_spaces_and_a_sign(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("i,j,kind\n 0 ,+1,ML\n")
    assert Constraints.from_csv(path).pairs.tolist() == [[0, 1]]


# ----------------------------------------------------------------------------- properties
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
        warnings.simplefilter("ignore")
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
