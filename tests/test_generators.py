"""Tests of ccopt.generators: counts and ratios exactly as the protocols state, determinism."""

from __future__ import annotations

import csv
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccopt import generators as gen
from ccopt.constraints import CL, ML, MustLinkClosure
from ccopt.exceptions import InfeasibleConstraintsError, InvalidParameterError

LABELS = np.repeat(np.arange(3), [40, 50, 60])  # n = 150, like Iris but unequal classes


THREE_CLASSES_OF_20 = np.repeat([0, 1, 2], 20)


def pair_set(cons) -> set[tuple[int, int]]:
    return {(min(i, j), max(i, j)) for i, j in cons.pairs.tolist()}


def assert_clean(cons, n):
    """No self-pairs, no pair twice (so no pair both ML and CL), bound to n."""
    assert cons.n_samples == n
    assert (cons.pairs[:, 0] != cons.pairs[:, 1]).all() if len(cons) else True
    assert len(pair_set(cons)) == len(cons) == cons.n_given


def disagree(cons, labels) -> np.ndarray:
    return ~cons.is_correct(labels)


# ----------------------------------------------------------------------------- data
def test_gaussian_clusters_shape_sizes_order():
    X, y, centers = gen.make_gaussian_clusters(103, 5, random_state=0, return_centers=True)
    assert X.shape == (103, 2) and centers.shape == (5, 2)
    assert np.bincount(y).tolist() == [21, 21, 21, 20, 20]
    assert (np.diff(y) >= 0).all()
    X2, y2 = gen.make_gaussian_clusters(103, 5, random_state=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert not np.array_equal(X, gen.make_gaussian_clusters(103, 5, random_state=1)[0])


def test_gaussian_clusters_spread_is_a_standard_deviation():
    X, y, centers = gen.make_gaussian_clusters(20000, 400, n_features=3, center_std=5.0, cluster_std=0.5,
                                               random_state=4, return_centers=True)
    residual = X - centers[y]
    assert residual.std() == pytest.approx(0.5, rel=0.02)
    assert centers.std() == pytest.approx(5.0, rel=0.08)


def test_gaussian_clusters_errors():
    with pytest.raises(InvalidParameterError, match="n_samples=3 should be >= n_clusters=4"):
        gen.make_gaussian_clusters(3, 4)
    with pytest.raises(InvalidParameterError, match=r"cluster_std must be finite and >= 0, got -1\.0"):
        gen.make_gaussian_clusters(10, 2, cluster_std=-1)


# ----------------------------------------------------------------------------- correct / noisy
@pytest.mark.parametrize("p", [0, 1, 7, 30])
def test_correct_constraints(p):
    cons = gen.correct_constraints(LABELS, p, random_state=3)
    assert len(cons) == p
    assert (cons.n_ml, cons.n_cl) == (math.ceil(p / 2), p // 2)
    assert cons.is_correct(LABELS).all()
    assert_clean(cons, 150)


@given(st.integers(2, 40), st.integers(0, 40), st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_noisy_constraints_exact_counts(p, q, seed):
    q = min(p, q)
    noisy = gen.noisy_constraints(LABELS, p, q, random_state=seed)
    cons, err = noisy.constraints, noisy.erroneous
    assert len(cons) == p and err.sum() == q
    np.testing.assert_array_equal(err, disagree(cons, LABELS))
    assert cons.n_ml - cons.n_cl in (0, 1, 2)
    assert (err & cons.ml_mask).sum() == math.ceil(q / 2)
    assert (~err & cons.ml_mask).sum() == math.ceil((p - q) / 2)
    assert_clean(cons, 150)


def test_balanced_split_matches_the_published_instances(datasets_dir):
    """#ML - #CL of every published synthetic instance equals our split's."""
    with open(datasets_dir / "lagrangian_synthetic" / "index.csv") as handle:
        rows = [r for r in csv.DictReader(handle) if r["has_constraints"] == "True"]
    assert len(rows) == 495
    for r in rows:
        p = int(r["n_ml"]) + int(r["n_cl"])
        q = int(r["n_erroneous"])
        ml_ok, cl_ok, ml_err, cl_err = gen._balanced_counts(p, q)
        assert ml_ok + ml_err - cl_ok - cl_err == int(r["n_ml"]) - int(r["n_cl"])


def test_noisy_constraints_errors():
    with pytest.raises(InvalidParameterError, match="n_erroneous=5 exceeds n_constraints=4"):
        gen.noisy_constraints(LABELS, 4, 5)
    with pytest.raises(InvalidParameterError, match=r"Cannot draw 3 distinct same-class pairs: only 2 exist"):
        gen.correct_constraints([0, 0, 1, 1], 5)
    with pytest.raises(InvalidParameterError, match="different-class pairs: only 0 exist"):
        gen.correct_constraints([1, 1, 1], 2)
    with pytest.raises(InvalidParameterError, match=r"labels must be 1-D"):
        gen.correct_constraints(np.zeros((3, 2)), 2)
    with pytest.raises(InvalidParameterError, match="n_constraints must be >= 0"):
        gen.correct_constraints(LABELS, -1)


def test_exhaustive_request_uses_every_pair():
    labels = [0, 0, 0, 0, 0, 1, 1]  # 11 same-class pairs, 10 different-class pairs
    # needs 10 + 1 same, 9 + 1 different; with every pair constrained the erroneous cannot-link
    # always lies inside the one must-link component, so only consistent=False can return it
    noisy = gen.noisy_constraints(labels, 21, 2, random_state=0, consistent=False)
    assert len(noisy.constraints) == 21 and noisy.erroneous.sum() == 2
    assert pair_set(noisy.constraints) == set(itertools.combinations(range(7), 2))
    with pytest.raises(InvalidParameterError, match="Cannot draw 11 distinct different-class pairs: only 10 exist"):
        gen.noisy_constraints(labels, 21, 1)
    with pytest.raises(InvalidParameterError,
                       match=r"Could not draw 21 constraints without a cannot-link inside a must-link chain "
                             r"in 100 attempts; ask for fewer erroneous constraints or pass consistent=False"):
        gen.noisy_constraints(labels, 21, 2, random_state=0)


def _contradictory(cons) -> bool:
    """Does a cannot-link join two objects of one must-link chain?"""
    try:
        MustLinkClosure.from_constraints(cons)
    except InfeasibleConstraintsError:
        return True
    return False


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_noisy_constraints_redraws_only_contradictory_sets(seed):
    labels = np.repeat([0, 1, 2], 10)  # 20 constraints, 8 erroneous: about 1 draw in 5 contradicts
    drawn = gen.noisy_constraints(labels, 20, 8, random_state=seed)
    raw = gen.noisy_constraints(labels, 20, 8, random_state=seed, consistent=False)
    assert not _contradictory(drawn.constraints)
    assert drawn.erroneous.sum() == 8
    np.testing.assert_array_equal(drawn.erroneous, disagree(drawn.constraints, labels))
    if not _contradictory(raw.constraints):
        np.testing.assert_array_equal(drawn.constraints.pairs, raw.constraints.pairs)
        np.testing.assert_array_equal(drawn.erroneous, raw.erroneous)


def test_consistent_false_keeps_a_contradictory_draw():
    labels = np.repeat([0, 1, 2], 10)
    seed = next(s for s in range(100)
                if _contradictory(gen.noisy_constraints(labels, 20, 8, random_state=s, consistent=False).constraints))
    assert not _contradictory(gen.noisy_constraints(labels, 20, 8, random_state=seed).constraints)


def test_a_block_without_errors_is_checked_too():
    """p20's block has no erroneous constraint here, yet can close a chain through p15's one."""
    labels = np.repeat([0, 1], 6)
    seed = next(s for s in range(100) if _contradictory(gen.nested_noisy_constraints(
        labels, (0.5, 1.0), error_fraction=1 / 12, random_state=s, consistent=False)["p100"].constraints))
    sets = gen.nested_noisy_constraints(labels, (0.5, 1.0), error_fraction=1 / 12, random_state=seed)
    assert [int(s.erroneous.sum()) for s in sets.values()] == [1, 1]
    assert not _contradictory(sets["p100"].constraints)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_nested_sets_are_redrawn_block_by_block(seed):
    labels = np.repeat([0, 1, 2], 20)  # p15 = 9, p20 = 12 with error_fraction 0.6
    sets = gen.nested_noisy_constraints(labels, (0.15, 0.2), error_fraction=0.6, random_state=seed)
    raw = gen.nested_noisy_constraints(labels, (0.15, 0.2), error_fraction=0.6, random_state=seed,
                                       consistent=False)
    for key in ("p15", "p20"):
        assert not _contradictory(sets[key].constraints)
    small = len(sets["p15"].constraints)
    assert sets["p20"].constraints.pairs[:small].tolist() == sets["p15"].constraints.pairs.tolist()
    if not _contradictory(raw["p15"].constraints):
        assert sets["p15"].constraints.pairs.tolist() == raw["p15"].constraints.pairs.tolist()


# ----------------------------------------------------------------------------- nested (Tables 2-3)
@pytest.mark.parametrize("n", [150, 178, 214])
def test_nested_noisy_constraints(n):
    labels = np.arange(n) % 3
    sets = gen.nested_noisy_constraints(labels, (0.20, 0.15), random_state=11)
    assert list(sets) == ["p15", "p20"]
    previous = None
    for f, key in ((0.15, "p15"), (0.20, "p20")):
        cons, err = sets[key]
        p = math.ceil(round(f * n, 9))
        assert p == int(np.ceil(f * n - 1e-9))
        assert len(cons) == p and err.sum() == math.ceil(p / 3)
        np.testing.assert_array_equal(err, disagree(cons, labels))
        assert abs(cons.n_ml - cons.n_cl) <= 2
        assert_clean(cons, n)
        if previous is not None:
            prev_cons, prev_err = previous
            assert cons.pairs[: len(prev_cons)].tolist() == prev_cons.pairs.tolist()
            assert cons.kinds[: len(prev_cons)].tolist() == prev_cons.kinds.tolist()
            assert err[: len(prev_cons)].tolist() == prev_err.tolist()
        previous = (cons, err)


def test_nested_fractions_validated():
    with pytest.raises(InvalidParameterError, match=r"fractions must lie in \(0, 1\], got 1\.5"):
        gen.nested_noisy_constraints(LABELS, (0.1, 1.5))
    with pytest.raises(InvalidParameterError, match="fractions must be distinct"):
        gen.nested_noisy_constraints(LABELS, (0.1, 0.1))
    with pytest.raises(InvalidParameterError, match=r"error_fraction must lie in \[0, 1\]"):
        gen.nested_noisy_constraints(LABELS, error_fraction=-0.1)


@pytest.mark.parametrize(("fractions", "key"), [
    ((0.15, 0.152), "15"),
    ((0.115, 0.125), "12"),   # round() rounds halves to even: 11.5 and 12.5 both give 12
])
def test_two_fractions_with_one_set_name_are_refused_not_silently_merged(fractions, key):
    # Before the fix the dict kept one entry: the set of the smaller fraction was lost.
    with pytest.raises(InvalidParameterError, match=f"would both be named 'p{key}'"):
        gen.nested_noisy_constraints(THREE_CLASSES_OF_20, fractions, random_state=0)
    with pytest.raises(InvalidParameterError, match=f"would both be named 'CS{key}-regenerated'"):
        gen.cs_constraint_sets(THREE_CLASSES_OF_20, fractions, random_state=0)


def test_fractions_with_distinct_names_still_give_one_set_each():
    sets = gen.nested_noisy_constraints(THREE_CLASSES_OF_20, (0.15, 0.16), random_state=0)
    assert list(sets) == ["p15", "p16"]
    # ceil(0.15 * 60) = 9 and ceil(0.16 * 60) = 10 constraints.
    assert [len(s.constraints) for s in sets.values()] == [9, 10]
    assert list(gen.cs_constraint_sets(THREE_CLASSES_OF_20, (0.15, 0.16), random_state=0)) == ["CS15-regenerated",
                                                                           "CS16-regenerated"]


# ----------------------------------------------------------------------------- random pairs (Figs. 9-10)
@pytest.mark.parametrize("erroneous", [False, True])
def test_random_pair_constraints_are_all_correct_or_all_erroneous(erroneous):
    drawn = gen.random_pair_constraints(LABELS, 40, erroneous=erroneous, random_state=3)
    cons = drawn.constraints
    assert_clean(cons, LABELS.size)
    assert len(cons) == 40 and drawn.erroneous.tolist() == [erroneous] * 40
    np.testing.assert_array_equal(disagree(cons, LABELS), np.full(40, erroneous))
    assert not _contradictory(cons)


@given(st.lists(st.integers(0, 3), min_size=4, max_size=30), st.integers(0, 2**32 - 1), st.booleans(),
       st.floats(0.0, 1.0))
@settings(max_examples=80, deadline=None)
def test_random_pair_constraints_invariants(labels, seed, erroneous, share):
    """Distinct pairs, no self-pair, every kind as asked, and no cannot-link inside a must-link chain."""
    labels = np.unique(labels, return_inverse=True)[1]  # classes 0..c-1, as the generators expect
    n = labels.size
    p = int(share * math.comb(n, 2) / 2)
    try:
        drawn = gen.random_pair_constraints(labels, p, erroneous=erroneous, random_state=seed)
    except InvalidParameterError as exc:  # only the redraw can fail at these sizes
        assert "without a cannot-link inside a must-link chain" in str(exc) and erroneous
        return
    cons = drawn.constraints
    assert_clean(cons, n)
    assert len(cons) == p
    np.testing.assert_array_equal(disagree(cons, labels), np.full(p, erroneous))
    assert drawn.erroneous.tolist() == [erroneous] * p
    assert not _contradictory(cons)


def test_random_pair_kinds_follow_the_share_of_same_class_pairs():
    """Not balanced like noisy_constraints: over many sets, ML share = P(a random pair shares a class)."""
    same_share = sum(math.comb(c, 2) for c in (40, 50, 60)) / math.comb(150, 2)  # 0.3289...
    draws = [gen.random_pair_constraints(LABELS, 25, random_state=s).constraints for s in range(400)]
    ml_share = np.mean([c.n_ml / len(c) for c in draws])
    # 10,000 pairs (nearly independent): the standard error of the share is about 0.005
    assert abs(ml_share - same_share) < 0.02
    flipped = [gen.random_pair_constraints(LABELS, 25, erroneous=True, random_state=s).constraints
               for s in range(400)]
    assert abs(np.mean([c.n_cl / len(c) for c in flipped]) - same_share) < 0.02


def test_random_pair_constraints_redraw_contradictions_and_refuse_bad_requests():
    labels = [0, 0, 0, 1, 1, 1]  # 6 same-class pairs, 9 different-class pairs
    everything = gen.random_pair_constraints(labels, 15, random_state=0)
    assert pair_set(everything.constraints) == set(itertools.combinations(range(6), 2))
    # Flipped, every pair gives a must-link chain across both classes and a cannot-link inside it.
    raw = gen.random_pair_constraints(labels, 15, erroneous=True, consistent=False, random_state=0)
    assert _contradictory(raw.constraints)
    with pytest.raises(InvalidParameterError, match=r"Could not draw 15 erroneous constraints without a "
                                                    r"cannot-link inside a must-link chain in 100 attempts"):
        gen.random_pair_constraints(labels, 15, erroneous=True, random_state=0)
    with pytest.raises(InvalidParameterError, match="Cannot draw 16 distinct pairs: only 15 exist"):
        gen.random_pair_constraints(labels, 16)
    with pytest.raises(InvalidParameterError, match="n_constraints must be >= 0"):
        gen.random_pair_constraints(labels, -1)
    with pytest.raises(InvalidParameterError, match="erroneous must be True or False, got 'yes'"):
        gen.random_pair_constraints(labels, 2, erroneous="yes")
    assert len(gen.random_pair_constraints(labels, 0).constraints) == 0


# ----------------------------------------------------------------------------- CS sets
def test_cs_sets_are_complete_graphs_on_n_f_objects():
    sets = gen.cs_constraint_sets(LABELS, random_state=5)
    assert list(sets) == ["CS5-regenerated", "CS10-regenerated", "CS15-regenerated", "CS20-regenerated"]
    previous_objects = set()
    for f, cons in zip((0.05, 0.10, 0.15, 0.20), sets.values(), strict=True):
        n_f = math.ceil(round(f * 150, 9))
        objects = set(np.unique(cons.pairs).tolist())
        assert len(objects) == n_f
        assert pair_set(cons) == set(itertools.combinations(sorted(objects), 2))
        assert len(cons) == n_f * (n_f - 1) // 2
        assert cons.is_correct(LABELS).all()
        assert previous_objects <= objects  # nested samples
        previous_objects = objects
        assert_clean(cons, 150)


def test_cs_pairs_sampling():
    sets = gen.cs_constraint_sets(LABELS, sampling="pairs", random_state=5, suffix="")
    previous = set()
    for f, (key, cons) in zip((0.05, 0.10, 0.15, 0.20), sets.items(), strict=True):
        n_f = math.ceil(round(f * 150, 9))
        assert key == f"CS{round(100 * f)}"
        assert len(cons) == n_f * (n_f - 1) // 2
        assert cons.is_correct(LABELS).all()
        assert previous <= pair_set(cons)
        previous = pair_set(cons)
        assert_clean(cons, 150)
    assert len(np.unique(sets["CS20"].pairs)) > 30  # spread over many objects, unlike "complete"


def test_cs_single_set_and_edge_cases():
    cons = gen.cs_constraints(LABELS, 0.1, random_state=2)
    assert len(cons) == 105
    assert len(gen.cs_constraints(LABELS, 0.001)) == 0  # n_f = 1: no pair
    assert len(gen.cs_constraints([0, 1, 0], 1.0)) == 3
    with pytest.raises(InvalidParameterError, match="Unknown sampling 'grid'"):
        gen.cs_constraints(LABELS, 0.1, sampling="grid")
    with pytest.raises(InvalidParameterError, match=r"fraction must lie in \(0, 1\], got 0\.0"):
        gen.cs_constraints(LABELS, 0.0)


@pytest.mark.parametrize("name", ["CS5", "CS10", "CS15", "CS20"])
def test_published_cs_sets_have_the_protocol_counts(datasets_dir, name):
    """The BH-kmeans files: n_f(n_f-1)/2 ground-truth pairs, spread like sampling='pairs'."""
    from ccopt.datasets import load_benchmark

    data = load_benchmark("iris_keel", root=datasets_dir)
    cons = data.constraint_sets[name]
    n_f = math.ceil(round(int(name[2:]) / 100 * 150, 9))
    assert len(cons) == n_f * (n_f - 1) // 2
    assert cons.is_correct(data.labels).all()
    ours = gen.cs_constraints(data.labels, int(name[2:]) / 100, sampling="pairs", random_state=0)
    assert len(ours) == len(cons)


# ----------------------------------------------------------------------------- BH noise
@pytest.mark.parametrize("noise", [0.0, 0.05, 0.2, 0.4])
def test_noisy_pair_constraints_flip_exact_fractions(noise):
    noisy = gen.noisy_pair_constraints(LABELS, noise, fraction=0.1, random_state=8)
    cons, err = noisy
    assert len(cons) == 15 * 14 // 2
    np.testing.assert_array_equal(err, disagree(cons, LABELS))
    same = LABELS[cons.pairs[:, 0]] == LABELS[cons.pairs[:, 1]]
    n_true_ml, n_true_cl = int(same.sum()), int((~same).sum())
    assert (err & same).sum() == math.floor(noise * n_true_ml + 0.5)   # ML relabelled CL
    assert (err & ~same).sum() == math.floor(noise * n_true_cl + 0.5)  # CL relabelled ML
    assert ((cons.kinds == CL) & same).sum() == (err & same).sum()
    assert_clean(cons, 150)


def test_noisy_pair_constraints_same_pairs_across_noise_levels():
    clean = gen.noisy_pair_constraints(LABELS, 0.0, random_state=8).constraints
    noisy = gen.noisy_pair_constraints(LABELS, 0.3, random_state=8).constraints
    assert clean.pairs.tolist() == noisy.pairs.tolist()
    with pytest.raises(InvalidParameterError, match=r"noise must lie in \[0, 1\], got 1\.2"):
        gen.noisy_pair_constraints(LABELS, 1.2)


# ----------------------------------------------------------------------------- LCC
@pytest.mark.parametrize(("p", "q"), [(37, 0), (75, 0), (100, 10)])
def test_lcc_constraints(p, q):
    noisy = gen.lcc_constraints(LABELS, p, n_erroneous=q, random_state=4)
    cons, err = noisy
    assert len(cons) == p and err.sum() == q
    np.testing.assert_array_equal(err, disagree(cons, LABELS))
    # before the flips: the first ceil(p/2) rows are must-links, the rest cannot-links
    drawn_kind = np.where(err, -cons.kinds, cons.kinds)
    assert (drawn_kind[: math.ceil(p / 2)] == ML).all() and (drawn_kind[math.ceil(p / 2):] == CL).all()
    assert_clean(cons, 150)


def test_lcc_singletons_never_start_a_must_link():
    labels = np.array([0, 1, 1, 1, 2])
    cons = gen.lcc_constraints(labels, 6, random_state=0).constraints
    assert set(np.unique(cons.ml_pairs).tolist()) <= {1, 2, 3}
    assert len(cons) == 6 and cons.is_correct(labels).all()
    with pytest.raises(InvalidParameterError, match="Cannot draw 4 distinct same-class pairs: only 3 exist"):
        gen.lcc_constraints(labels, 8)


# ----------------------------------------------------------------------------- Jia et al.
def test_ml_dcl_sets():
    out = gen.ml_dcl_constraints(LABELS, 12, 9, 3, random_state=6)
    r = 3
    assert len(out.ml_sets) == 12 and len(out.cl_sets) == 9
    ml_members = [set(m.tolist()) for m in out.ml_sets]
    cl_members = [set(c.tolist()) for c in out.cl_sets]
    for m in out.ml_sets:
        assert m.size == r and np.unique(LABELS[m]).size == 1
    for c in out.cl_sets:
        assert c.size == r and np.unique(LABELS[c]).size == r
    for a, b in itertools.combinations(ml_members, 2):
        assert not a & b
    for a, b in itertools.combinations(cl_members, 2):
        assert not a & b
    for m in ml_members:
        assert sum(bool(m & c) for c in cl_members) <= 1
        assert all(len(m & c) <= 1 for c in cl_members)
    cons = out.constraints
    assert (cons.n_ml, cons.n_cl) == (12 * 3, 9 * 3)
    assert cons.is_correct(LABELS).all()
    expected = {(int(a), int(b), ML) for m in out.ml_sets for a, b in itertools.combinations(m, 2)}
    expected |= {(int(a), int(b), CL) for c in out.cl_sets for a, b in itertools.combinations(c, 2)}
    assert {(int(i), int(j), int(k)) for (i, j), k in zip(cons.pairs, cons.kinds, strict=True)} == expected
    assert_clean(cons, 150)


def test_ml_dcl_errors():
    with pytest.raises(InvalidParameterError, match="needs 4 different classes; the labels have 3"):
        gen.ml_dcl_constraints(LABELS, 0, 1, 4)
    with pytest.raises(InvalidParameterError, match="Cannot form must-link set 3 of 3: no class has 2 objects left"):
        gen.ml_dcl_constraints([0, 0, 1, 1, 2], 3, 0, 2)
    with pytest.raises(InvalidParameterError, match="Cannot form cannot-link set 3 of 3: only 0 classes have unused objects, 2 are needed"):
        gen.ml_dcl_constraints([0, 0, 1, 1], 0, 3, 2)
    with pytest.raises(InvalidParameterError, match="set_size must be >= 2"):
        gen.ml_dcl_constraints(LABELS, 1, 1, 1)


# ----------------------------------------------------------------------------- synthetic design
def test_synthetic_instance_counts_and_rebuild():
    inst = gen.synthetic_instance(200, 5, 0.15, 0.2, random_state=123)
    assert inst.n_samples == 200 and inst.n_clusters == 5
    p, q = 30, 6
    assert len(inst.constraints) == p and inst.erroneous.sum() == q
    np.testing.assert_array_equal(inst.erroneous, disagree(inst.constraints, inst.labels))
    assert inst.constraints.n_ml == inst.constraints.n_cl == 15
    again = gen.synthetic_instance(200, 5, 0.15, 0.2, random_state=inst.seed)
    np.testing.assert_array_equal(inst.X, again.X)
    assert inst.constraints.pairs.tolist() == again.constraints.pairs.tolist()


def test_synthetic_design_draws_from_table_1():
    design = gen.synthetic_design(25, random_state=9)
    assert len(design) == 25
    for inst in design:
        assert inst.n_samples in (100, 200, 300, 400, 500)
        assert inst.n_clusters in (2, 5, 10, 15)
        assert inst.constraint_fraction in (0.05, 0.10, 0.15, 0.20)
        assert inst.error_fraction in (0.05, 0.10, 0.15, 0.20)
        p = math.ceil(round(inst.constraint_fraction * inst.n_samples, 9))
        assert len(inst.constraints) == p
        assert inst.erroneous.sum() == math.ceil(round(inst.error_fraction * p, 9))
        assert np.unique(inst.labels).size == inst.n_clusters
    again = gen.synthetic_design(25, random_state=9)
    assert [d.seed for d in design] == [d.seed for d in again]
    np.testing.assert_array_equal(design[7].X, again[7].X)
    rebuilt = gen.synthetic_instance(design[3].n_samples, design[3].n_clusters, design[3].constraint_fraction,
                                     design[3].error_fraction, random_state=design[3].seed)
    np.testing.assert_array_equal(rebuilt.X, design[3].X)
    with pytest.raises(InvalidParameterError, match="n_clusters up to 15 do not fit data sets of 10 objects"):
        gen.synthetic_design(2, sizes=(10,))


# ----------------------------------------------------------------------------- determinism
GENERATORS = {
    "correct": lambda rs: gen.correct_constraints(LABELS, 20, random_state=rs),
    "noisy": lambda rs: gen.noisy_constraints(LABELS, 20, 5, random_state=rs).constraints,
    "nested": lambda rs: gen.nested_noisy_constraints(LABELS, random_state=rs)["p20"].constraints,
    "cs": lambda rs: gen.cs_constraints(LABELS, 0.1, random_state=rs),
    "cs_pairs": lambda rs: gen.cs_constraints(LABELS, 0.1, sampling="pairs", random_state=rs),
    "bh_noise": lambda rs: gen.noisy_pair_constraints(LABELS, 0.2, random_state=rs).constraints,
    "lcc": lambda rs: gen.lcc_constraints(LABELS, 30, n_erroneous=3, random_state=rs).constraints,
    "random_pairs": lambda rs: gen.random_pair_constraints(LABELS, 25, erroneous=True, random_state=rs).constraints,
    "jia": lambda rs: gen.ml_dcl_constraints(LABELS, 5, 5, 3, random_state=rs).constraints,
}


@pytest.mark.parametrize("name", list(GENERATORS))
def test_same_seed_same_constraints(name):
    make = GENERATORS[name]
    a, b, c = make(42), make(42), make(43)
    assert a.pairs.tolist() == b.pairs.tolist() and a.kinds.tolist() == b.kinds.tolist()
    assert a.pairs.tolist() != c.pairs.tolist()
    d, e = make(np.random.default_rng(42)), make(np.random.default_rng(42))
    assert d.pairs.tolist() == e.pairs.tolist()
