"""Tests of ccopt.constraints: construction, validation, hard flags, closure, feasibility,
violations, pickles (files and matrices: test_constraints_files.py)."""

from __future__ import annotations

import itertools
import pickle
import re
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccopt.constraints import CL, ML, Constraints, as_constraints, check_feasibility
from ccopt.exceptions import (
    ConflictingConstraintError,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_MERGED = r"\d+ duplicate constraint row\(s\) merged"


# ----------------------------------------------------------------------------- helpers
@st.composite
def constraint_graphs(draw, max_n=12, max_edges=20):
    """A number of objects and distinct random pairs with random kinds (no conflicts)."""
    n = draw(st.integers(2, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                          .filter(lambda e: e[0] != e[1]), max_size=max_edges))
    seen, pairs = set(), []
    for i, j in edges:
        key = (min(i, j), max(i, j))
        if key not in seen:
            seen.add(key)
            pairs.append((i, j))
    kinds = draw(st.lists(st.sampled_from([ML, CL]), min_size=len(pairs), max_size=len(pairs)))
    return n, pairs, kinds


# ----------------------------------------------------------------------------- construction
def test_from_pairs_keeps_order_and_orientation():
    cons = Constraints.from_pairs(ml=[(3, 1), (0, 2)], cl=[(4, 0)], n_samples=5)
    assert cons.pairs.tolist() == [[3, 1], [0, 2], [4, 0]]
    assert cons.kinds.tolist() == [ML, ML, CL]
    assert cons.kind_names.tolist() == ["ML", "ML", "CL"]
    assert (cons.n_ml, cons.n_cl, len(cons), cons.n_given) == (2, 1, 3, 3)
    assert cons.ml_pairs.tolist() == [[3, 1], [0, 2]]
    assert cons.cl_pairs.tolist() == [[4, 0]]
    assert cons.row_name(2) == "cl[0]"
    assert not cons.pairs.flags.writeable


def test_from_pairs_weights_and_hard_per_kind():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(2, 3)], ml_weights=[0.5, 2.0], cl_hard=True)
    assert cons.weights.tolist() == [0.5, 2.0, 1.0]
    assert cons.hard.tolist() == [False, False, True]


def test_generic_constructor_accepts_kind_words():
    cons = Constraints([(0, 1), (1, 2), (2, 3), (3, 4)], ["ML", "cannot-link", 1, "-1"], n_samples=5)
    assert cons.kinds.tolist() == [ML, CL, ML, CL]


def test_empty_constraints():
    cons = Constraints.empty(4)
    assert len(cons) == 0 and cons.n_samples == 4
    assert cons.violations([0, 1, 0, 1]).total == 0
    assert cons.closure.n_super == 4
    assert len(Constraints.from_pairs(ml=[], cl=None, n_samples=3)) == 0


@given(constraint_graphs())
@SETTINGS
def test_order_preserved_for_distinct_pairs(graph):
    n, pairs, kinds = graph
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    assert cons.pairs.tolist() == [list(p) for p in pairs]
    assert cons.kinds.tolist() == list(kinds)
    assert cons.given_index.tolist() == list(range(len(pairs)))


def test_from_labels_kinds_follow_ground_truth():
    labels = np.array([0, 0, 1, 1, 2])
    cons = Constraints.from_labels(labels, [(0, 1), (1, 2), (3, 2), (4, 0)])
    assert cons.kinds.tolist() == [ML, CL, ML, CL]
    assert cons.n_samples == 5
    assert cons.is_correct(labels).all()


def test_from_labels_rejects_index_beyond_labels():
    with pytest.raises(InvalidConstraintError, match=r"out of range for 3 labels in row 1 = \(0, 3\)"):
        Constraints.from_labels([0, 1, 1], [(0, 1), (0, 3)])


@pytest.mark.parametrize("pairs", [np.empty((3, 0)), np.empty((0, 3)), [[]], np.empty((0, 2, 2))])
def test_empty_pair_arrays_of_the_wrong_shape_are_refused(pairs):
    shape = re.escape(str(np.asarray(pairs).shape))
    with pytest.raises(InvalidConstraintError, match=rf"ml must have shape \(m, 2\).*got shape {shape}"):
        Constraints.from_pairs(ml=pairs, n_samples=4)


@pytest.mark.parametrize("pairs", [None, [], np.empty(0), np.empty((0, 2)), np.empty((0, 2), dtype=np.int8)])
def test_no_pairs_is_still_an_empty_set(pairs):
    assert len(Constraints.from_pairs(ml=pairs, n_samples=4)) == 0


@pytest.mark.parametrize(("kind", "code"), [(1, 1), (-1, -1), (np.int64(-1), -1), ("CL", -1)])
def test_a_scalar_kind_for_a_single_pair(kind, code):
    assert Constraints([(0, 1)], kind, n_samples=2).kinds.tolist() == [code]


def test_a_set_of_pairs_is_refused_and_a_generator_is_read():
    with pytest.raises(InvalidConstraintError, match="set, which has no order"):
        Constraints.from_pairs(ml={(0, 1), (1, 2)}, n_samples=3)
    from_generator = Constraints.from_pairs(ml=((i, i + 1) for i in range(2)), cl=iter([(0, 3)]),
                                            n_samples=4)
    from_lists = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(0, 3)], n_samples=4)
    np.testing.assert_array_equal(from_generator.pairs, from_lists.pairs)
    np.testing.assert_array_equal(from_generator.kinds, from_lists.kinds)


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"ml": [(0, 1), (1.5, 2)]}, InvalidConstraintError, r"non-integer values in ml\[1\] = \(1\.5, 2\.0\)"),
        ({"cl": [(0, np.nan)]}, InvalidConstraintError, r"non-integer values in cl\[0\]"),
        ({"cl": [(0, 1), (-1, 2)]}, InvalidConstraintError, r"negative object indices in cl\[1\] = \(-1, 2\)"),
        ({"ml": [(0, 7)], "n_samples": 5}, InvalidConstraintError,
         r"out of range for n_samples=5 \(valid 0\.\.4\) in ml\[0\] = \(0, 7\)"),
        ({"ml": [(0, 1)], "cl": [(2, 2)]}, InvalidConstraintError, r"self-pairs i == j in cl\[0\] = \(2, 2\)"),
        ({"ml": [(0, 1, 2)]}, InvalidConstraintError, r"ml must have shape \(m, 2\).*\(1, 3\)"),
        ({"ml": [("a", "b")]}, InvalidConstraintError, r"ml must hold integer object indices, got dtype <U1"),
        ({"ml": [(0, 1), (1, 2)], "ml_weights": [1.0, -2.0]}, InvalidConstraintError,
         r"weights must be finite and >= 0; bad values in ml\[1\] = -2\.0"),
        ({"ml": [(0, 1)], "ml_weights": [np.inf]}, InvalidConstraintError, r"weights must be finite"),
        ({"ml": [(0, 1), (1, 2)], "ml_weights": [1.0]}, InvalidConstraintError,
         r"ml_weights must have one value per pair \(2\), got 1"),
        ({"ml": [(0, 1)], "ml_hard": ["yes"]}, InvalidConstraintError, r"hard must be booleans"),
        ({"ml": [(0, 1)], "n_samples": 0}, InvalidParameterError, r"n_samples must be >= 1"),
    ],
)
def test_validation_errors_name_the_rows(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        Constraints.from_pairs(**kwargs)


def test_indices_beyond_int64_do_not_wrap_around():
    with pytest.raises(InvalidConstraintError, match=r"too large in magnitude to be row numbers in ml\[1\] = \(0\.0, 1e\+20\)"):
        Constraints.from_pairs(ml=[(0, 1), (0, 1e20)])
    with pytest.raises(InvalidConstraintError, match="too large in magnitude"):
        Constraints.from_pairs(cl=np.array([[0, 2**63]], dtype=np.uint64))


def test_ragged_pairs_are_an_invalid_constraint():
    with pytest.raises(InvalidConstraintError, match=r"could not be read|must have shape"):
        Constraints.from_pairs(ml=[(0, 1), (2,)])


def test_many_bad_rows_are_summarised():
    with pytest.raises(InvalidConstraintError, match=r"ml\[4\] = \(4, 4\) \(and 2 more\)"):
        Constraints.from_pairs(ml=[(i, i) for i in range(7)])


def test_unknown_kind_and_kind_count():
    with pytest.raises(InvalidConstraintError, match=r"Unknown constraint kind 'XL' in row 1"):
        Constraints([(0, 1), (1, 2)], ["ML", "XL"])
    with pytest.raises(InvalidConstraintError, match=r"kinds must have one entry per pair \(2\), got 1"):
        Constraints([(0, 1), (1, 2)], ["ML"])


@pytest.mark.parametrize("cl_pair", [(1, 2), (2, 1)])
def test_pair_both_ml_and_cl_is_a_conflict(cl_pair):
    with pytest.raises(ConflictingConstraintError,
                       match=r"pair \(1, 2\) is must-link in ml\[1\] and cannot-link in cl\[0\]"):
        Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[cl_pair])


def test_duplicates_merged_with_warning_and_mapped_back():
    with pytest.warns(DuplicateConstraintWarning, match=r"2 duplicate constraint row\(s\) merged: ml\[0\] = ml\[2\] = ml\[3\]"
                      r"\. Each pair is one constraint: violation counts and penalties count it once, the largest "
                      r"weight given holds, and the pair is hard if any row is; impact scores still give every "
                      r"row you gave its own line\."):
        cons = Constraints.from_pairs(ml=[(0, 1), (2, 3), (1, 0), (0, 1)], cl=[(1, 2)],
                                      ml_weights=[1.0, 1.0, 3.0, 0.5], ml_hard=[False, False, False, True])
    assert cons.pairs.tolist() == [[0, 1], [2, 3], [1, 2]]
    # As the warning says: a violated merged pair is counted once.
    assert cons.violations(np.array([0, 1, 1, 1])).n_ml == 1
    assert cons.n_given == 5
    assert cons.given_index.tolist() == [0, 1, 0, 0, 2]
    # the merged row keeps the largest weight and is hard if any copy was
    assert cons.weights.tolist() == [3.0, 1.0, 1.0]
    assert cons.hard.tolist() == [True, False, False]
    per_constraint = np.array([10.0, 20.0, 30.0])
    assert cons.to_given(per_constraint).tolist() == [10.0, 20.0, 10.0, 10.0, 30.0]
    with pytest.raises(InvalidParameterError, match=r"one value per constraint \(3\), got 5"):
        cons.to_given(np.zeros(5))


@given(constraint_graphs(max_n=8, max_edges=10), st.data())
@SETTINGS
def test_duplicates_keep_first_occurrence_order(graph, data):
    n, pairs, kinds = graph
    if not pairs:
        return
    repeats = data.draw(st.lists(st.integers(0, len(pairs) - 1), max_size=6))
    rows = pairs + [pairs[r][::-1] for r in repeats]
    row_kinds = list(kinds) + [kinds[r] for r in repeats]
    order = data.draw(st.permutations(range(len(rows))))
    rows = [rows[o] for o in order]
    row_kinds = [row_kinds[o] for o in order]
    with warnings.catch_warnings():
        # The draw may repeat no pair.
        warnings.filterwarnings("ignore", message=_MERGED, category=DuplicateConstraintWarning)
        cons = Constraints(np.array(rows).reshape(-1, 2), row_kinds, n_samples=n)
    first = {}
    for r, (i, j) in enumerate(rows):
        first.setdefault((min(i, j), max(i, j)), r)
    expected = sorted(first.values())
    assert cons.pairs.tolist() == [list(rows[r]) for r in expected]
    # every given row maps to the merged constraint with the same pair and kind
    for r, (i, j) in enumerate(rows):
        m = cons.given_index[r]
        assert sorted(cons.pairs[m].tolist()) == sorted((i, j))
        assert cons.kinds[m] == row_kinds[r]


def test_an_index_equal_to_n_hints_at_one_based_indices():
    with pytest.raises(InvalidConstraintError, match=r"\(3, 10\)\. The largest index is 10 and none is 0: "
                                                     r"if the indices count from 1, subtract 1"):
        Constraints.from_pairs(ml=[(1, 2)], cl=[(3, 10)], n_samples=10)
    with pytest.raises(InvalidConstraintError, match=r"if the indices count from 1") as info:
        Constraints.from_pairs(ml=[(1, 2), (3, 10)]).with_n_samples(10)
    assert list(info.value.rows) == [1]
    # Index 0 is used: the file counts from 0, and the hint would mislead.
    with pytest.raises(InvalidConstraintError) as info:
        Constraints.from_pairs(ml=[(0, 2), (3, 10)], n_samples=10)
    assert "count from 1" not in str(info.value)


@pytest.mark.parametrize("ml", [[(0, True)], [(True, 2)], [(0, 1), (np.True_, 2)], [(0.0, False)]])
def test_a_boolean_index_in_a_list_is_refused_not_read_as_0_or_1(ml):
    with pytest.raises(InvalidConstraintError, match=r"ml must hold integer object indices; booleans in ml\[\d\]"):
        Constraints.from_pairs(ml=ml)


def test_a_boolean_index_is_refused_by_the_plain_constructor_and_from_labels():
    with pytest.raises(InvalidConstraintError, match=r"booleans in row 1 = \(2, True\)"):
        Constraints([(0, 1), (2, True)], ["ML", "CL"])
    with pytest.raises(InvalidConstraintError, match=r"booleans in row 0"):
        Constraints.from_labels([0, 0, 1], [(False, 2)])


# ----------------------------------------------------------------------------- hard flags
def test_empty_flag_lists_for_empty_pair_lists_are_accepted():
    cons = Constraints.from_pairs(ml=[], cl=[(0, 1)], ml_hard=[], cl_hard=[True])
    assert cons.hard.tolist() == [True] and cons.hard.dtype == np.bool_
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[], ml_hard=[True], cl_hard=[], ml_weights=[2.0], cl_weights=[])
    assert cons.hard.tolist() == [True] and cons.weights.tolist() == [2.0]
    assert Constraints(np.empty((0, 2), dtype=int), [], hard=[]).hard.shape == (0,)


@pytest.mark.parametrize("flags", [[1], [0], [True], [False], np.array([1]), np.array([True]), [np.True_]])
def test_flags_that_are_booleans_or_0_1_integers_are_accepted(flags):
    cons = Constraints.from_pairs(ml=[(0, 1)], ml_hard=flags)
    assert cons.hard.tolist() == [bool(flags[0])]


@pytest.mark.parametrize("flags", [np.array([True, 1], dtype=object), np.array([np.True_, 0], dtype=object)])
def test_flags_of_an_object_array_are_read_one_by_one(flags):
    # A column with a missing value turned into object dtype: each entry is a bool or 0/1.
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], ml_hard=flags)
    assert cons.hard.tolist() == [bool(f) for f in flags]


@pytest.mark.parametrize(("kwargs", "message", "rows"), [
    ({"ml": [(0, 1)], "ml_hard": [2]}, r"ml_hard must be booleans \(True/False or 1/0\); bad values in ml\[0\] = 2\.",
     [0]),
    ({"ml": [(0, 1)], "cl": [(2, 3), (4, 5)], "cl_hard": [0, 2]}, r"cl_hard .* bad values in cl\[1\] = 2\.", [1]),
    ({"ml": [(0, 1), (2, 3)], "ml_hard": [True, None]}, r"ml_hard .* bad values in ml\[1\] = None\.", [1]),
    ({"ml": [(0, 1)], "ml_hard": ["yes"]}, r"ml_hard .* bad values in ml\[0\] = 'yes'\.", [0]),
    ({"ml": [(0, 1)], "ml_hard": "no"}, r"ml_hard .* bad values in ml\[0\] = 'no'\.", [0]),
    ({"ml": [(0, 1)], "ml_hard": [0.5]}, r"ml_hard .* bad values in ml\[0\] = 0\.5\.", [0]),
    ({"ml": [(0, 1), (2, 3)], "ml_hard": [-1, 3]}, r"ml\[0\] = -1, ml\[1\] = 3\.", [0, 1]),
])
def test_a_bad_flag_is_named_by_its_value_and_row_not_the_dtype(kwargs, message, rows):
    with pytest.raises(InvalidConstraintError, match=message) as info:
        Constraints.from_pairs(**kwargs)
    assert "dtype" not in str(info.value)
    assert list(info.value.rows) == rows


def test_the_plain_constructor_names_a_bad_flag_by_row():
    with pytest.raises(InvalidConstraintError, match=r"hard must be booleans .* bad values in row 1 = 2\.$"):
        Constraints([(0, 1), (2, 3)], ["ML", "CL"], hard=[1, 2])


def test_a_wrong_number_of_flags_is_still_refused():
    with pytest.raises(InvalidConstraintError, match=r"ml_hard must have one value per pair \(0\), got 1"):
        Constraints.from_pairs(ml=[], cl=[(0, 1)], ml_hard=[True])


# ----------------------------------------------------------------------------- n_samples, subset
def test_with_n_samples_and_as_constraints():
    cons = Constraints.from_pairs(ml=[(0, 4)])
    assert cons.n_samples is None
    bound = cons.with_n_samples(5)
    assert bound.n_samples == 5 and bound.pairs.tolist() == [[0, 4]]
    assert bound.with_n_samples(5) is bound
    with pytest.raises(InvalidConstraintError, match=r"out of range for n_samples=4 .* ml\[0\] = \(0, 4\)"):
        cons.with_n_samples(4)
    with pytest.raises(InvalidConstraintError, match="built for n_samples=5, but the data has 6 rows"):
        bound.with_n_samples(6)
    with pytest.raises(InvalidParameterError, match=r"closure needs n_samples; build the constraints with n_samples=\.\.\."):
        _ = cons.closure
    assert as_constraints(ml=[(0, 1)], cl=[(1, 2)], n_samples=3).n_cl == 1
    assert as_constraints(None, n_samples=3).n_samples == 3
    with pytest.raises(InvalidParameterError, match="not both"):
        as_constraints(bound, ml=[(0, 1)], n_samples=5)
    with pytest.raises(InvalidParameterError, match=r"must be a ccopt\.Constraints object, got list"):
        as_constraints([(0, 1)], n_samples=5)


def test_subset():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(2, 3)], n_samples=4)
    sub = cons.subset([2, 0])
    assert sub.pairs.tolist() == [[2, 3], [0, 1]]
    assert sub.kinds.tolist() == [CL, ML]
    assert sub.row_name(0) == "cl[0]"
    assert cons.subset(cons.cl_mask).pairs.tolist() == [[2, 3]]
    with pytest.raises(InvalidParameterError, match=r"indices must be positions in 0\.\.2"):
        cons.subset([0, 3])


@pytest.mark.parametrize("indices", [[0, 0], [2, -1], np.array([2, 0, 2])])
def test_subset_refuses_a_repeated_position(indices):
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(2, 3)], n_samples=4)
    with pytest.raises(InvalidParameterError, match=r"indices repeat position\(s\) (0|1|2); each constraint"):
        cons.subset(indices)
    assert cons.subset([2, 0]).pairs.tolist() == [[2, 3], [0, 1]]  # distinct positions, in the order given


def test_to_given_refuses_a_scalar():
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=3)
    with pytest.raises(InvalidParameterError, match=r"one value per constraint \(2\), got a scalar"):
        cons.to_given(1.0)


# ----------------------------------------------------------------------------- violations
@given(constraint_graphs(), st.data())
@SETTINGS
def test_violations_against_a_loop(graph, data):
    n, pairs, kinds = graph
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    labels = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).integers(0, 4, size=n)
    report = cons.violations(labels)
    expected = [(labels[i] == labels[j]) != (k == ML) for (i, j), k in zip(pairs, kinds, strict=True)]
    assert report.violated.tolist() == expected
    assert report.n_ml == sum(v for v, k in zip(expected, kinds, strict=True) if k == ML)
    assert report.n_cl == sum(v for v, k in zip(expected, kinds, strict=True) if k == CL)
    assert report.total == sum(expected)
    assert report.ml_violated.tolist() == [p for p, (v, k) in enumerate(zip(expected, kinds, strict=True)) if v and k == ML]
    assert report.cl_violated.tolist() == [p for p, (v, k) in enumerate(zip(expected, kinds, strict=True)) if v and k == CL]
    assert (cons.satisfied(labels) == ~np.array(expected, dtype=bool)).all()


def test_violations_label_length_checked():
    cons = Constraints.from_pairs(ml=[(0, 4)])
    with pytest.raises(InvalidParameterError, match="labels has 3 entries but a constraint refers to object 4"):
        cons.violations([0, 0, 1])
    with pytest.raises(InvalidParameterError, match="labels has 6 entries, expected n_samples=5"):
        cons.with_n_samples(5).violations(np.zeros(6))


# ----------------------------------------------------------------------------- closure
@given(constraint_graphs(max_n=15, max_edges=25))
@SETTINGS
def test_closure_matches_networkx(graph):
    n, pairs, _ = graph
    cons = Constraints.from_pairs(ml=np.array(pairs, dtype=np.int64).reshape(-1, 2), n_samples=n)
    closure = cons.closure
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(pairs)
    expected = {frozenset(c) for c in nx.connected_components(g)}
    got = {frozenset(closure.members(s).tolist()) for s in range(closure.n_super)}
    assert got == expected
    assert closure.n_super == len(expected)
    assert closure.sizes.tolist() == [len(closure.members(s)) for s in range(closure.n_super)]
    # canonical numbering: super-instances in order of their smallest member
    smallest = [int(closure.members(s).min()) for s in range(closure.n_super)]
    assert smallest == sorted(smallest)
    # idempotent: the ML pairs implied by the closure (a star per component) give the same partition
    implied = [(int(m[0]), int(o)) for s in range(closure.n_super) for m in [closure.members(s)] for o in m[1:]]
    again = Constraints.from_pairs(ml=np.array(implied, dtype=np.int64).reshape(-1, 2), n_samples=n).closure
    assert again.component.tolist() == closure.component.tolist()
    assert closure.expand(np.arange(closure.n_super)).tolist() == closure.component.tolist()


@given(constraint_graphs(max_n=12, max_edges=12), st.integers(0, 2**32 - 1))
@SETTINGS
def test_super_instances_against_a_loop(graph, seed):
    n, pairs, _ = graph
    cons = Constraints.from_pairs(ml=np.array(pairs, dtype=np.int64).reshape(-1, 2), n_samples=n)
    closure = cons.closure
    gen = np.random.default_rng(seed)
    X = gen.normal(0, 50, size=(n, 2))
    w = gen.uniform(0.1, 10, size=n)
    centers, weights = closure.super_instances(X, w)
    plain_centers, plain_weights = closure.super_instances(X)
    for s in range(closure.n_super):
        members = [i for i in range(n) if closure.component[i] == s]
        total = sum(w[i] for i in members)
        mean = sum(w[i] * X[i] for i in members) / total
        assert weights[s] == pytest.approx(total)
        np.testing.assert_allclose(centers[s], mean, rtol=1e-9, atol=1e-9)
        assert plain_weights[s] == len(members)
        np.testing.assert_allclose(plain_centers[s], X[members].mean(axis=0), rtol=1e-9, atol=1e-9)


def test_super_instances_shape_checked():
    closure = Constraints.from_pairs(ml=[(0, 1)], n_samples=3).closure
    with pytest.raises(InvalidDataError, match="X has 4 rows, expected n_samples=3"):
        closure.super_instances(np.zeros((4, 2)))
    with pytest.raises(InvalidDataError, match=r"sample_weight must have shape \(3,\)"):
        closure.super_instances(np.zeros((3, 2)), np.ones(2))


def test_closure_maps_cannot_links_onto_super_instances():
    cons = Constraints.from_pairs(ml=[(0, 1), (3, 4)], cl=[(1, 4), (2, 0)], n_samples=5)
    closure = cons.closure
    assert closure.component.tolist() == [0, 0, 1, 2, 2]
    assert closure.cl_pairs.tolist() == [[0, 2], [1, 0]]


def test_cannot_link_inside_must_link_chain_is_infeasible():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (2, 3), (5, 6)], cl=[(4, 5), (3, 0)], n_samples=7)
    with pytest.raises(InfeasibleConstraintsError,
                       match=r"Cannot-link \(3, 0\) \[cl\[1\]\] .* chain 3 - 2 - 1 - 0") as info:
        _ = cons.closure
    assert info.value.certificate == [3, 2, 1, 0]


@given(constraint_graphs(max_n=10, max_edges=20))
@SETTINGS
def test_chain_certificate_is_a_must_link_path(graph):
    n, pairs, kinds = graph
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    ml_edges = {frozenset(p) for p, k in zip(pairs, kinds, strict=True) if k == ML}
    cl_edges = {frozenset(p) for p, k in zip(pairs, kinds, strict=True) if k == CL}
    try:
        _ = cons.closure
    except InfeasibleConstraintsError as exc:
        chain = exc.certificate
        assert frozenset((chain[0], chain[-1])) in cl_edges
        assert all(frozenset(e) in ml_edges for e in itertools.pairwise(chain))
    else:
        g = nx.Graph(list(ml_edges))
        for e in cl_edges:
            i, j = tuple(e)
            assert not (g.has_node(i) and g.has_node(j) and nx.has_path(g, i, j))


# ----------------------------------------------------------------------------- feasibility
def brute_force_feasible(n, pairs, kinds, k, max_size=None) -> bool:
    """Is there a labelling into exactly k non-empty clusters that satisfies every pair?"""
    labels = np.array(list(itertools.product(range(k), repeat=n)))
    ok = np.ones(labels.shape[0], dtype=bool)
    for (i, j), kind in zip(pairs, kinds, strict=True):
        same = labels[:, i] == labels[:, j]
        ok &= same if kind == ML else ~same
    counts = np.stack([(labels == c).sum(axis=1) for c in range(k)], axis=1)
    ok &= (counts > 0).all(axis=1)
    if max_size is not None:
        ok &= (counts <= max_size).all(axis=1)
    return bool(ok.any())


def check_clique_certificate(cons, certificate, k):
    closure = cons.closure
    comps = [int(closure.component[o]) for o in certificate]
    assert len(certificate) == k + 1 and len(set(comps)) == k + 1
    links = {frozenset(map(int, p)) for p in closure.cl_pairs}
    for a, b in itertools.combinations(comps, 2):
        assert frozenset((a, b)) in links


@given(constraint_graphs(max_n=7, max_edges=14), st.integers(1, 3), st.booleans())
@SETTINGS
def test_feasibility_reports_are_sound(graph, k, bounded):
    n, pairs, kinds = graph
    if k > n:
        return
    cons = Constraints(np.array(pairs, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
    max_size = -(-n // k) + 1 if bounded else None
    report = check_feasibility(cons, k, max_cluster_size=max_size)
    truth = brute_force_feasible(n, pairs, kinds, k, max_size)
    assert report.status in ("feasible", "infeasible", "unknown")
    if report.status == "feasible":
        assert report.feasible is True
        labels = report.labels
        assert cons.violations(labels).total == 0
        counts = np.bincount(labels, minlength=k)
        assert labels.min() >= 0 and labels.max() < k and (counts > 0).all()
        if max_size is not None:
            assert counts.max() <= max_size
    elif report.status == "infeasible":
        assert report.feasible is False
        assert not truth
        if report.certificate is not None and len(report.certificate) == k + 1 and "cannot-link each other" in report.reason:
            check_clique_certificate(cons, report.certificate, k)
        with pytest.raises(InfeasibleConstraintsError):
            report.raise_if_infeasible()
    else:
        assert report.feasible is None
    if truth:
        assert report.status != "infeasible"
    if truth and not bounded and _cannot_link_degeneracy(n, pairs, kinds) < k:
        # A smallest-last order colours a graph of degeneracy < k with at most k colours, so
        # "unknown" here would mean the greedy colourings were not tried (forests included).
        assert report.status == "feasible"


def _cannot_link_degeneracy(n, pairs, kinds) -> int:
    """Degeneracy of the cannot-link graph between must-link components (0 without edges)."""
    ml = nx.Graph()
    ml.add_nodes_from(range(n))
    ml.add_edges_from(p for p, kind in zip(pairs, kinds, strict=True) if kind == ML)
    component = {o: c for c, members in enumerate(nx.connected_components(ml)) for o in members}
    cl = nx.Graph()
    cl.add_edges_from((component[i], component[j]) for (i, j), kind in zip(pairs, kinds, strict=True)
                      if kind != ML and component[i] != component[j])
    return max(nx.core_number(cl).values(), default=0)


def test_clique_certificate_through_must_link_groups():
    # super-instances {0,1}, {2}, {3,4}, {5}: every pair of them cannot-linked, once each
    cons = Constraints.from_pairs(ml=[(0, 1), (3, 4)],
                                  cl=[(0, 2), (1, 3), (0, 5), (2, 4), (2, 5), (4, 5)], n_samples=6)
    report = check_feasibility(cons, 3)
    assert report.status == "infeasible"
    assert "4 objects need 4 clusters, only 3 allowed" in report.reason
    check_clique_certificate(cons, report.certificate, 3)
    assert not brute_force_feasible(6, [(0, 1), (3, 4), (0, 2), (1, 3), (0, 5), (2, 4), (2, 5), (4, 5)],
                                    [ML, ML] + [CL] * 6, 3)
    assert check_feasibility(cons, 4).status == "feasible"


def test_a_triangle_free_graph_needing_four_clusters_is_unknown_not_guessed():
    # The Groetzsch graph needs 4 colours but has no triangle: with k = 3 no cheap certificate
    # exists either way. (An odd cycle with k = 2, the earlier example, is now decided exactly.)
    edges = [tuple(sorted(e)) for e in nx.mycielski_graph(4).edges]
    cons = Constraints.from_pairs(cl=edges, n_samples=11)
    report = check_feasibility(cons, 3)
    assert not brute_force_feasible(11, edges, [CL] * len(edges), 3)
    assert report.status == "unknown" and report.feasible is None and report.labels is None
    report.raise_if_infeasible()  # unknown does not raise


def test_feasibility_other_certificates():
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (3, 4)], n_samples=5)
    assert "into 2 groups; 3 non-empty clusters are impossible" in check_feasibility(cons, 3).reason
    big = check_feasibility(cons, 2, max_cluster_size=2)
    assert big.status == "infeasible" and big.certificate == [0, 1, 2]
    assert "exceeds the maximum cluster size 2" in big.reason
    assert check_feasibility(Constraints.empty(5), 2, max_cluster_size=2).status == "infeasible"
    inside = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(0, 2)], n_samples=4)
    report = check_feasibility(inside, 2)
    assert report.status == "infeasible" and report.certificate == [0, 1, 2]
    with pytest.raises(InvalidParameterError, match="needs constraints built with n_samples"):
        check_feasibility(Constraints.from_pairs(ml=[(0, 1)]), 2)
    with pytest.raises(InvalidParameterError, match="n_clusters must be >= 1"):
        check_feasibility(Constraints.empty(3), 0)


def test_feasibility_reason_says_the_size_bound_failed_not_the_colouring():
    report = check_feasibility(Constraints.empty(4), 2, max_cluster_size=2)
    assert report.status in ("feasible", "unknown")
    if report.status == "unknown":
        assert "No colouring" not in report.reason
        assert "exceed max_cluster_size=2" in report.reason


def test_feasibility_with_more_clusters_than_objects_does_not_blame_must_links():
    report = check_feasibility(Constraints.empty(3), 4)
    assert report.status == "infeasible"
    assert report.reason == "4 non-empty clusters need at least 4 objects; there are 3."


def test_check_feasibility_takes_a_generator_like_every_other_random_state():
    cons = Constraints.from_pairs(cl=[(0, 1), (1, 2)], n_samples=4)
    by_int = check_feasibility(cons, 2, random_state=3)
    by_generator = check_feasibility(cons, 2, random_state=np.random.default_rng(3))
    assert by_int.feasible is by_generator.feasible is True
    with pytest.raises(InvalidParameterError, match="random_state"):
        check_feasibility(cons, 2, random_state=-1)


def test_float16_pairs_are_read_without_an_overflow_warning():
    # The check for indices beyond int64 cast 2**63 to float16, which overflows.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cons = Constraints.from_pairs(ml=np.array([(0, 1)], dtype=np.float16))
    assert cons.pairs.tolist() == [[0, 1]]


def test_complex_weights_are_refused_not_cut_to_their_real_part():
    with pytest.raises(InvalidConstraintError, match="weights must be real numbers, got dtype complex128"):
        Constraints.from_pairs(ml=[(0, 1)], ml_weights=1 + 2j)


@pytest.mark.parametrize(("given", "message"), [
    ({"ml_weights": "2"}, r"ml_weights must be real numbers, got dtype <U1"),
    ({"ml_hard": "no"}, r"ml_hard must be booleans"),
    ({"cl_weights": [1, -1]}, r"cl_weights must be finite and >= 0; bad values in cl\[1\] = -1\.0"),
    ({"cl_hard": [0, 2]}, r"cl_hard must be booleans"),
])
def test_from_pairs_names_the_per_kind_argument_that_is_wrong(given, message):
    # The messages said "weights" or "hard", names from_pairs does not take.
    with pytest.raises(InvalidConstraintError, match=message):
        Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2), (2, 3)], **given)


def test_kinds_given_as_integral_floats_are_the_codes():
    # Integral floats were accepted as indices but refused as kinds ("Unknown constraint kind 1.0").
    assert Constraints([(0, 1), (1, 2)], [1.0, -1.0]).kinds.tolist() == [ML, CL]
    with pytest.raises(InvalidConstraintError, match=r"Unknown constraint kind 0\.5 in row 1"):
        Constraints([(0, 1), (1, 2)], [1.0, 0.5])


def test_two_clusters_are_decided_exactly_with_an_odd_cycle_as_the_certificate():
    # An odd cannot-link cycle with k = 2 was "unknown" (no 3-clique), so COP-kmeans reported a
    # dead end where the impact score proved infeasibility.
    cycle = Constraints.from_pairs(cl=[(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)], n_samples=6)
    report = check_feasibility(cycle, 2)
    assert report.status == "infeasible" and sorted(report.certificate) == [0, 1, 2, 3, 4]
    certificate = report.certificate
    closing = set(map(frozenset, zip(certificate, certificate[1:] + certificate[:1], strict=True)))
    assert closing == {frozenset(p) for p in [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]}
    even = Constraints.from_pairs(cl=[(0, 1), (1, 2), (2, 3), (0, 3)], ml=[(4, 5)], n_samples=6)
    report = check_feasibility(even, 2)
    assert report.status == "feasible" and even.satisfied(report.labels).all()


def test_feasibility_verdicts_agree_with_enumeration_on_tiny_instances():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, k = int(rng.integers(2, 7)), int(rng.integers(1, 4))
        pairs = list(itertools.combinations(range(n), 2))
        chosen = [pairs[i] for i in rng.choice(len(pairs), size=int(rng.integers(0, min(7, len(pairs)) + 1)),
                                               replace=False)]
        kinds = np.where(rng.random(len(chosen)) < 0.3, ML, CL)
        try:
            cons = Constraints(np.array(chosen, dtype=np.int64).reshape(-1, 2), kinds, n_samples=n)
        except InvalidConstraintError:
            continue
        labellings = np.array(list(itertools.product(range(k), repeat=n)))
        full = np.array([len(set(row)) == k for row in labellings])
        same = labellings[:, cons.pairs[:, 0]] == labellings[:, cons.pairs[:, 1]]
        holds = np.where(cons.kinds == ML, same, ~same).all(axis=1)
        exists = bool((full & holds).any())
        report = check_feasibility(cons, k)
        assert report.status != ("infeasible" if exists else "feasible")
        if k <= 2:
            assert report.status == ("feasible" if exists else "infeasible")


def test_given_pairs_keep_each_rows_orientation_through_copies_and_pickles():
    with pytest.warns(DuplicateConstraintWarning):
        cons = Constraints.from_pairs(ml=[(3, 5), (5, 3), (1, 2)], cl=[(0, 7), (7, 0)])
    given = [[3, 5], [5, 3], [1, 2], [0, 7], [7, 0]]
    assert cons.pairs.tolist() == [[3, 5], [1, 2], [0, 7]]
    assert cons.given_pairs.tolist() == given
    assert cons.with_n_samples(8).given_pairs.tolist() == given
    assert pickle.loads(pickle.dumps(cons)).given_pairs.tolist() == given
    # A subset is its own given rows, in the merged pairs' orientation.
    assert cons.subset([2, 0]).given_pairs.tolist() == [[0, 7], [3, 5]]


# ----------------------------------------------------------------------------- pickles
def _built_every_way(tmp_path):
    csv_path = tmp_path / "c.csv"
    csv_path.write_text("i,j,kind,weight,hard\n0,1,ML,2.5,1\n3,2,CL,1.0,0\n1,0,ML,0.5,0\n")
    matrix_path = tmp_path / "m.txt"
    matrix_path.write_text("0 1 0\n1 0 0\n0 -1 0\n")
    with pytest.warns(DuplicateConstraintWarning, match=r"c\.csv line 2 = .*c\.csv line 4"):
        from_csv = Constraints.from_csv(csv_path, n_samples=4)  # line 4 repeats line 2 reversed
    return [
        Constraints([(0, 1), (2, 3)], ["ML", "CL"], n_samples=4),
        Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3)], ml_weights=2.0, cl_hard=True, n_samples=4),
        Constraints.from_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, -1, 0]])),
        Constraints.from_matrix_file(matrix_path),
        from_csv,
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
