"""Malformed input at every public entry point gets a specific ccopt error that says what and where.

Property-based (hypothesis): each test draws a valid small instance, breaks one thing in it
(a NaN at a random cell, a bad index in a random constraint row, a bad ``k``, ...) and checks
that every entry point of :mod:`tests.hardening._api` raises the ccopt exception meant for
that mistake, with a message naming the offending value and its place, before doing any work
(never an IndexError/KeyError/TypeError/ValueError from deep inside, never a result).
The expected message is built from what the test broke, not copied from an output.

Examples are bounded (``settings(max_examples=...)``) so the module runs in seconds.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ccopt
from ccopt import (
    CcoptError,
    ConflictingConstraintError,
    Constraints,
    DataFormatError,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    SolverNotAvailableError,
    datasets,
    generators,
    metrics,
)
from ccopt.cli import main
from ccopt.lagrange import baselines
from tests.hardening._api import (
    CONTRACTING,
    ENTRIES,
    WITH_K,
    WITH_PAIRS,
    blobs,
    cannot_links_ignored,
)

FAST = settings(max_examples=4, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _raises(exc_type, pattern, call, *args, **kwargs):
    """Call and return the ccopt exception, which must be ``exc_type`` and match ``pattern``."""
    with pytest.raises(CcoptError) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, exc_type), f"{type(info.value).__name__}: {info.value}"
    assert re.search(pattern, str(info.value)), f"{pattern!r} not in {str(info.value)!r}"
    return info.value


# ============================================================================ data
@st.composite
def broken_data(draw):
    """A data matrix broken in one way, its row count, and the message that must name it."""
    n = draw(st.integers(4, 10))
    d = draw(st.integers(1, 3))
    X = blobs(n, d, 2, seed=draw(st.integers(0, 1000)))
    how = draw(st.sampled_from(["nan", "inf", "-inf", "1-D", "3-D", "no rows", "no columns",
                                "strings", "objects", "complex", "None", "ragged"]))
    if how in ("nan", "inf", "-inf"):
        r, c = draw(st.integers(0, n - 1)), draw(st.integers(0, d - 1))
        X[r, c] = float(how)
        word = "NaN" if how == "nan" else "inf"
        return X, n, rf"X contains {word} at row {r}, column {c} \(1 non-finite"
    if how == "1-D":
        return X[:, 0], n, rf"X must be 2-D \(n_samples, n_features\), got shape \({n},\)\. Reshape"
    if how == "3-D":
        return X[None], n, rf"X must be 2-D \(n_samples, n_features\), got shape \(1, {n}, {d}\)"
    if how == "no rows":
        return X[:0], n, rf"X is empty: shape \(0, {d}\)"
    if how == "no columns":
        return X[:, :0], n, rf"X is empty: shape \({n}, 0\)"
    if how == "strings":
        return X.astype(str), n, r"X must be numeric, got dtype <U\d+: the entry at row 0, column 0 is text"
    if how == "objects":
        bad = X.astype(object)
        row = draw(st.integers(0, n - 1))
        bad[row, 0] = None
        return bad, n, rf"X must be numeric, got dtype object: the entry at row {row}, column 0 is None"
    if how == "complex":
        return X + 1j, n, r"X must be real-valued, got dtype complex128"
    if how == "None":
        return None, n, r"X is None; expected an array of shape \(n_samples, n_features\)"
    ragged = X.tolist()
    ragged[draw(st.integers(0, n - 1))].append(1.0)
    return ragged, n, r"X could not be converted to an array"


@pytest.mark.parametrize("entry", ENTRIES, ids=repr)
@FAST
@given(case=broken_data())
def test_broken_data_is_an_invalid_data_error_naming_the_cell(entry, case):
    X, _, pattern = case
    _raises(InvalidDataError, pattern, entry.call, X, 2, ml=[(0, 1)], cl=[(2, 3)])


# ============================================================================ k
@st.composite
def broken_k(draw):
    """A data matrix and a number of clusters that is not an integer in 1..n."""
    n = draw(st.integers(3, 10))
    X = blobs(n, 2, 2, seed=draw(st.integers(0, 1000)))
    how = draw(st.sampled_from(["zero", "negative", "too many", "float", "integral float", "bool",
                                "string", "None", "numpy float"]))
    if how == "zero":
        return X, 0, r"n_clusters must be >= 1, got 0\."
    if how == "negative":
        k = -draw(st.integers(1, 5))
        return X, k, rf"n_clusters must be >= 1, got {k}\."
    if how == "too many":
        k = n + draw(st.integers(1, 5))
        return X, k, rf"n_samples={n} should be >= n_clusters={k}\."
    if how == "float":
        k = draw(st.integers(1, n - 1)) + 0.5
        return X, k, rf"n_clusters must be an integer, got {k}\."
    if how == "integral float":
        k = float(draw(st.integers(1, n)))
        return X, k, rf"n_clusters must be an integer, got {k}\."
    if how == "bool":
        return X, True, r"n_clusters must be an integer, got True\."
    if how == "string":
        return X, "2", r"n_clusters must be an integer, got '2'\."
    if how == "None":
        return X, None, r"n_clusters must be an integer, got None\."
    return X, np.float64(2.0), r"n_clusters must be an integer, got 2\.0\."


@pytest.mark.parametrize("entry", WITH_K, ids=repr)
@FAST
@given(case=broken_k())
def test_bad_number_of_clusters_is_an_invalid_parameter(entry, case):
    X, k, pattern = case
    _raises(InvalidParameterError, pattern, entry.call, X, k, ml=[(0, 1)], cl=[(1, 2)])


# ============================================================================ constraint rows
@st.composite
def valid_pairs(draw, n: int, size: int):
    """``size`` distinct unordered pairs of distinct objects in ``0..n-1`` (as a list of tuples)."""
    all_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(all_pairs), min_size=size, max_size=size, unique=True))
    return [(j, i) if draw(st.booleans()) else (i, j) for i, j in chosen]


@st.composite
def broken_pairs(draw):
    """Valid ``ml``/``cl`` lists with one row of one of them broken, and the message naming it."""
    n = draw(st.integers(6, 10))
    X = blobs(n, 2, 2, seed=draw(st.integers(0, 1000)))
    m_ml, m_cl = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    # The two lists are disjoint and free of ML/CL contradictions: only the broken row is wrong.
    pairs = draw(valid_pairs(n, m_ml + m_cl))
    # Whatever the valid rows mean together (even an infeasible set), a malformed row must be
    # rejected while the rows are read, before any closure is built.
    lists = {"ml": [list(p) for p in pairs[:m_ml]], "cl": [list(p) for p in pairs[m_ml:]]}
    target = draw(st.sampled_from(["ml", "cl"]))
    r = draw(st.integers(0, len(lists[target]) - 1))
    side = draw(st.integers(0, 1))
    row = lists[target][r]
    how = draw(st.sampled_from(["negative", "out of range", "fraction", "nan", "inf", "self",
                                "three columns", "flat", "strings", "bools", "huge"]))
    where = rf"{target}\[{r}\]"
    if how == "negative":
        row[side] = -draw(st.integers(1, 50))
        pattern = rf"{target} has negative object indices in {where} = \({row[0]}, {row[1]}\)"
    elif how == "out of range":
        row[side] = n + draw(st.integers(0, 50))
        pattern = (rf"Object index out of range for n_samples={n} \(valid 0\.\.{n - 1}\) in {where} = "
                   rf"\({row[0]}, {row[1]}\)")
    elif how in ("fraction", "nan", "inf"):
        row[side] = {"fraction": row[side] + 0.5, "nan": float("nan"), "inf": float("inf")}[how]
        pattern = rf"{target} must hold integer object indices; non-integer values in {where} = \("
    elif how == "self":
        row[1 - side] = row[side]
        pattern = rf"self-pairs i == j in {where} = \({row[0]}, {row[1]}\)"
    elif how == "three columns":
        lists[target] = [[*p, 0] for p in lists[target]]
        pattern = rf"{target} must have shape \(m, 2\): one row \(i, j\) per pair, got shape \({len(lists[target])}, 3\)"
    elif how == "flat":
        lists[target] = [v for p in lists[target] for v in p]
        pattern = rf"{target} must have shape \(m, 2\).*got shape \({len(lists[target])},\)"
    elif how == "strings":
        lists[target] = [[str(v) for v in p] for p in lists[target]]
        pattern = rf"{target} must hold integer object indices, got dtype <U"
    elif how == "bools":
        lists[target] = [[bool(v % 2), not v % 2] for v in range(len(lists[target]))]
        pattern = rf"{target} must hold integer object indices, got dtype bool"
    else:
        row[side] = 1e20
        pattern = rf"{target} has object indices too large in magnitude to be row numbers in {where}"
    return X, lists["ml"], lists["cl"], pattern


@st.composite
def contradictions(draw):
    """ML and CL lists where one pair is given both ways (perhaps reversed)."""
    n = draw(st.integers(5, 10))
    X = blobs(n, 2, 2, seed=draw(st.integers(0, 1000)))
    pairs = draw(valid_pairs(n, draw(st.integers(2, 5))))
    ml, cl = pairs[:1 + len(pairs) // 2], pairs[1 + len(pairs) // 2:]
    r = draw(st.integers(0, len(ml) - 1))
    s = draw(st.integers(0, len(cl)))
    i, j = ml[r]
    cl.insert(s, (j, i) if draw(st.booleans()) else (i, j))
    pattern = (rf"pair \({min(i, j)}, {max(i, j)}\) is must-link in ml\[{r}\] and cannot-link in "
               rf"cl\[{s}\]")
    return X, ml, cl, pattern


PAIR_MISTAKES = {
    "malformed row": (broken_pairs(), InvalidConstraintError),
    "must-link and cannot-link at once": (contradictions(), ConflictingConstraintError),
}


@pytest.mark.parametrize("entry", WITH_PAIRS, ids=repr)
@pytest.mark.parametrize("mistake", list(PAIR_MISTAKES))
@FAST
@given(data=st.data())
def test_a_bad_constraint_row_is_named(entry, mistake, data):
    strategy, exc_type = PAIR_MISTAKES[mistake]
    X, ml, cl, pattern = data.draw(strategy)
    _raises(exc_type, pattern, entry.call, X, 2, ml=ml, cl=cl)


@st.composite
def too_few_groups(draw):
    """Must-link chains that merge ``n`` objects into ``g`` groups, and ``k > g``."""
    n = draw(st.integers(4, 10))
    groups = draw(st.integers(1, n - 1))
    k = draw(st.integers(groups + 1, n))
    perm = np.random.default_rng(draw(st.integers(0, 1000))).permutation(n)
    # Object perm[t] joins group t % groups: chain each group's members in order.
    ml = []
    for g in range(groups):
        members = perm[g::groups]
        ml += [(int(a), int(b)) for a, b in itertools.pairwise(members)]
    return blobs(n, 2, 2), k, ml, groups


@pytest.mark.parametrize("entry", CONTRACTING, ids=repr)
@FAST
@given(case=too_few_groups())
def test_more_clusters_than_must_link_groups_is_infeasible(entry, case):
    X, k, ml, groups = case
    exc = _raises(InfeasibleConstraintsError,
                  rf"merge the {X.shape[0]} objects into {groups} groups, fewer than n_clusters={k}",
                  entry.call, X, k, ml=ml, cl=None)
    assert exc.certificate is not None


def test_more_clusters_than_must_link_groups_in_a_k_sweep_is_reported_for_that_k():
    """The sweep does not stop at one impossible ``k``: it records why for that ``k``."""
    X = blobs(8, 2, 2)
    result = baselines.erroneous_fraction_by_k(X, [2, 3], ml=[(0, 2), (2, 4), (4, 6), (1, 3), (3, 5),
                                                           (5, 7)], criterion="mssc", max_iter=3,
                                               random_state=0, progress=False)
    assert set(result.errors) == {3}
    assert "into 2 groups, fewer than n_clusters=3" in result.errors[3]
    assert np.isnan(result.fraction_erroneous[1]) and not np.isnan(result.fraction_erroneous[0])


# ============================================================================ duplicates
@pytest.mark.parametrize("entry", WITH_PAIRS, ids=repr)
def test_duplicate_rows_warn_and_are_kept_for_every_given_row(entry):
    """A pair given twice is merged with a warning naming both rows; nothing is dropped."""
    X = blobs(9, 2, 3)
    ml = [(0, 3), (1, 4), (3, 0)]
    cl = [(0, 1), (2, 5)]
    with pytest.warns(DuplicateConstraintWarning, match=r"ml\[0\] = ml\[2\]"), \
            cannot_links_ignored(entry.ignores_cl):
        result = entry.call(X, 3, ml=ml, cl=cl)
    n_given = len(ml) + len(cl)
    for name in ("scores", "predicted_erroneous", "normalized_scores", "per_constraint"):
        if hasattr(result, name):
            assert np.asarray(getattr(result, name)).shape == (n_given,), name
    if hasattr(result, "violations_"):
        assert result.violations_.violated.shape == (n_given - 1,)  # the distinct constraints


# ============================================================================ names of solvers and methods
solver_names = st.builds(lambda tail: f"zz{tail}", st.text("abcdefghijklmnopqrstuvwxyz_0123456789-",
                                                           max_size=10))


@FAST
@given(name=st.one_of(solver_names, st.sampled_from(["gurobi", "cplex"])))
def test_unknown_or_missing_solver_is_named(name):
    X = blobs(8, 2, 2)
    pattern = re.escape(repr(name))
    calls = [
        lambda: ccopt.cluster.BHKMeans(2, solver=name).fit(X, ml=[(0, 2)]),
        lambda: ccopt.impact_scores(X, 2, ml=[(0, 2)], method="lp", solver=name, progress=False),
        lambda: baselines.optimistic_baseline(X, 2, ml=[(0, 2)], solver_mode="exact", solver=name,
                                              progress=False),
    ]
    for call in calls:
        _raises(SolverNotAvailableError, pattern, call)


method_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@FAST
@given(name=method_names)
def test_unknown_method_names_list_the_valid_ones(name):
    X = blobs(8, 2, 2)
    choices = [
        (lambda v: ccopt.impact_scores(X, 2, method=v, progress=False), ccopt.lagrange.METHODS["kmedoids"],
         r"Unknown method .*; valid: 'voronoi', 'lagrangian', 'lp', 'exact', 'lp-dual'"),
        (lambda v: ccopt.impact_scores(X, 2, criterion=v, progress=False), ("kmedoids", "mssc"),
         r"Unknown criterion .*; valid values are 'kmedoids', 'mssc'"),
        (lambda v: baselines.naive_baseline(X, 2, criterion=v), ("kmedoids", "mssc"),
         r"Unknown criterion"),
        (lambda v: baselines.pessimistic_baseline(X, 2, solver_mode=v, progress=False),
         ("auto", "exact", "heuristic"), r"Unknown solver_mode .*; valid values are 'auto'"),
        (lambda v: ccopt.cluster.KMeans(2, init=v).fit(X), ("k-means++",), r"Unknown init"),
        (lambda v: ccopt.cluster.LCC(2, init=v).fit(X), ("random", "k-means++"), r"Unknown init"),
        (lambda v: ccopt.cluster.PCKMeans(2, init=v).fit(X), ("neighborhoods", "k-means++"),
         r"Unknown init"),
        (lambda v: ccopt.cluster.KMeansS(2, sizes=[4, 4], size_assignment=v, progress=False).fit(X),
         ("nearest", "exact"), r"Unknown size_assignment"),
        (lambda v: ccopt.experiments.make_estimator(v, 2), tuple(ccopt.experiments.ALGORITHMS),
         r"Unknown algorithm"),
    ]
    for call, valid, pattern in choices:
        if name in valid:
            continue
        exc = _raises(InvalidParameterError, pattern, call, name)
        assert repr(name) in str(exc)


@pytest.mark.parametrize("value", [3, 1.5, ["voronoi"], b"voronoi"])
def test_a_method_that_is_not_a_string_is_rejected(value):
    X = blobs(8, 2, 2)
    _raises(InvalidParameterError, rf"Unknown method {re.escape(repr(value))} for criterion='kmedoids'; valid:",
            ccopt.impact_scores, X, 2, method=value, progress=False)


# ============================================================================ parameters of the estimators
@pytest.mark.parametrize(("estimator", "params", "pattern"), [
    ("KMeans", {"n_init": 0}, r"n_init must be >= 1, got 0"),
    ("KMeans", {"max_iter": 2.5}, r"max_iter must be an integer, got 2\.5"),
    ("KMeans", {"tol": -1.0}, r"tol must be finite and >= 0, got -1\.0"),
    ("KMeans", {"time_limit": 0}, r"time_limit must be > 0 seconds, got 0"),
    ("KMeans", {"time_limit": float("nan")}, r"time_limit must be > 0 seconds, got nan"),
    ("KMeans", {"random_state": -3}, r"random_state must be >= 0, got -3"),
    ("KMeans", {"random_state": "seed"}, r"random_state must be None, a non-negative int"),
    ("KMeans", {"init": np.zeros((3, 2))}, r"init must have shape \(n_clusters, n_features\) = \(2, 2\), got \(3, 2\)"),
    ("COPKMeans", {"n_init": "3"}, r"n_init must be an integer, got '3'"),
    ("PCKMeans", {"weight": float("nan")}, r"weight must be finite and >= 0, got nan"),
    ("BHKMeans", {"penalty": -1.0}, r"penalty must be finite and >= 0, got -1\.0"),
    ("BHKMeans", {"min_size": 5, "max_size": 4}, r"min_size=5 is larger than max_size=4"),
    ("BHKMeans", {"threads": 0}, r"threads must be >= 1, got 0"),
    ("BHKMeans", {"solver_options": ["x"]}, r"solver_options must be a dict or None, got list"),
    ("BHKMeans", {"solve_time_limit": -1}, r"solve_time_limit must be > 0 seconds, got -1"),
    ("LCC", {"alpha": 1.0}, r"alpha must be finite and > 1\.0, got 1\.0"),
    ("LCC", {"lambda_init": 0}, r"lambda_init must be finite and > 0\.0, got 0\.0"),
    ("PCS", {"sizes": None}, r"PCS needs the target cluster sizes"),
    ("PCS", {"sizes": [3, 3]}, r"sizes add up to 6, but X has n_samples=8"),
    ("PCS", {"sizes": [4.5, 3.5]}, r"sizes must hold whole numbers of objects; sizes\[0\] = 4\.5"),
    ("PCS", {"sizes": [9, -1]}, r"sizes must be positive .*sizes\[1\] = -1"),
    ("KMeansS", {"sizes": [8]}, r"sizes must be a 1-D list of n_clusters=2 target sizes, got shape \(1,\)"),
    ("MLKMeans", {"tol": -1.0}, r"tol must be finite and >= 0, got -1\.0"),
    ("GreedyMLKMeans", {"init": "k-means++"}, r"Unknown init 'k-means\+\+'; valid values are 'random'"),
])
def test_bad_estimator_parameters_are_named(estimator, params, pattern):
    X = blobs(8, 2, 2)
    params = {"progress": False, **params} if estimator in ("PCS", "KMeansS") else params
    if estimator in ("PCS", "KMeansS"):
        params.setdefault("sizes", [4, 4])
    est = getattr(ccopt.cluster, estimator)(2, **params)
    _raises(InvalidParameterError, pattern, est.fit, X)


@pytest.mark.parametrize("estimator", ["KMeans", "COPKMeans", "LCC", "PCKMeans", "BHKMeans"])
def test_starting_centres_are_checked_like_data(estimator):
    X = blobs(8, 2, 2)
    init = np.array([[0.0, 0.0], [1.0, np.inf]])
    est = getattr(ccopt.cluster, estimator)(2, init=init)
    _raises(InvalidDataError, r"init contains inf at row 1, column 1", est.fit, X)


@pytest.mark.parametrize(("kwargs", "exc", "pattern"), [
    ({"max_iter": 0}, InvalidParameterError, r"max_iter must be >= 1, got 0"),
    ({"epsilon": 1.0}, InvalidParameterError, r"epsilon must lie strictly between 0 and 1, got 1\.0"),
    ({"tau": -0.1}, InvalidParameterError, r"tau must lie in \[0, 1\), got -0\.1"),
    ({"gap_tol": -1}, InvalidParameterError, r"gap_tol must be finite and >= 0"),
    ({"time_limit": -1}, InvalidParameterError, r"time_limit must be > 0 seconds, got -1"),
    ({"score_from": "worst"}, InvalidParameterError, r"Unknown score_from 'worst'"),
    ({"step_norm": "half"}, InvalidParameterError, r"Unknown step_norm 'half'"),
    ({"labels_true": [0, 1]}, InvalidParameterError, r"labels_true .*n_samples=8.*(2,)|labels_true has 2 entries"),
    ({"labels_true": np.full(8, np.nan)}, InvalidParameterError, r"labels_true contains a non-finite value at position 0"),
    ({"erroneous": [1, 0]}, InvalidParameterError, r"erroneous must be a boolean array with one entry per given constraint \(2\)"),
    ({"constraints": [(0, 1)]}, InvalidParameterError, r"constraints must be a ccopt\.Constraints object, got list"),
    ({"constraints": Constraints.empty(9)}, InvalidConstraintError, r"built for n_samples=9, but the data has 8 rows"),
])
def test_bad_impact_score_options_are_named(kwargs, exc, pattern):
    X = blobs(8, 2, 2)
    pairs = {} if "constraints" in kwargs else {"ml": [(0, 2)], "cl": [(0, 1)]}
    _raises(exc, pattern, ccopt.impact_scores, X, 2, progress=False, **pairs, **kwargs)


def test_two_dimensional_ground_truth_is_rejected():
    """A 2-D array of n entries must not be flattened into a ground truth."""
    X = blobs(8, 2, 2)
    _raises(InvalidParameterError, r"labels_true must be 1-D", ccopt.impact_scores, X, 2,
            ml=[(0, 2)], labels_true=np.zeros((2, 4)), max_iter=2, progress=False)


# ============================================================================ constraint constructors
@pytest.mark.parametrize(("build", "exc", "pattern"), [
    (lambda: Constraints([(0, 1)], ["XX"]), InvalidConstraintError, r"Unknown constraint kind 'XX' in row 0"),
    (lambda: Constraints([(0, 1)], [0]), InvalidConstraintError, r"Unknown constraint kind 0 in row 0"),
    (lambda: Constraints([(0, 1)], [1, 1]), InvalidConstraintError, r"kinds must have one entry per pair \(1\), got 2"),
    (lambda: Constraints([(0, 1), (1, 2)], [1, -1], weights=[1.0, -2.0]), InvalidConstraintError,
     r"weights must be finite and >= 0; bad values in row 1 = -2\.0"),
    (lambda: Constraints([(0, 1)], [1], weights=[np.nan]), InvalidConstraintError, r"bad values in row 0 = nan"),
    (lambda: Constraints([(0, 1)], [1], hard=[2]), InvalidConstraintError, r"hard must be booleans"),
    (lambda: Constraints([(0, 1)], [1], n_samples=0), InvalidParameterError, r"n_samples must be >= 1, got 0"),
    (lambda: Constraints.from_pairs(ml=[(0, 1)], ml_weights=[1.0, 2.0]), InvalidConstraintError,
     r"ml_weights must have one value per pair \(1\), got 2"),
    (lambda: Constraints.from_pairs(cl=[(0, 1)], cl_weights=[np.inf]), InvalidConstraintError,
     r"weights must be finite and >= 0; bad values in cl\[0\] = inf"),
    (lambda: Constraints.from_matrix(np.zeros((2, 3))), InvalidConstraintError, r"must be square \(n x n\), got shape \(2, 3\)"),
    (lambda: Constraints.from_matrix(np.array([[0, 2], [0, 0]])), InvalidConstraintError,
     r"values must be 1 \(ML\), -1 \(CL\) or 0; found entry \(0, 1\) = 2"),
    (lambda: Constraints.from_matrix(np.array([[0, 1], [-1, 0]])), ConflictingConstraintError,
     r"pair \(0, 1\) is must-link in entry \(0, 1\) and cannot-link in entry \(1, 0\)"),
    (lambda: Constraints.from_matrix([["a", "b"], ["c", "d"]]), InvalidConstraintError, r"must be numeric"),
    (lambda: Constraints.from_labels([0, 1, 0], [(0, 5)]), InvalidConstraintError,
     r"Object index out of range for 3 labels in row 0 = \(0, 5\)"),
    (lambda: Constraints.from_labels(np.zeros((2, 3)), [(0, 1)]), InvalidParameterError,
     r"labels must be 1-D \(n_samples,\), got shape \(2, 3\)"),
    (lambda: Constraints.from_labels([0.0, np.nan, 1.0], [(0, 1)]), InvalidParameterError,
     r"labels contains a non-finite value at position 1"),
    (lambda: Constraints.from_labels(np.array([1, None, 2], dtype=object), [(0, 1)]), InvalidParameterError,
     r"labels mixes values that cannot be compared \(NoneType, int\)"),
    (lambda: ccopt.as_constraints("pairs", n_samples=3), InvalidParameterError,
     r"constraints must be a ccopt\.Constraints object, got str"),
    (lambda: ccopt.as_constraints(Constraints.empty(3), ml=[(0, 1)], n_samples=3), InvalidParameterError,
     r"Pass either a Constraints object or ml=/cl= pairs, not both"),
    (lambda: ccopt.as_constraints(Constraints([(0, 4)], [1]), n_samples=3), InvalidConstraintError,
     r"out of range for n_samples=3 \(valid 0\.\.2\) in row 0 = \(0, 4\)"),
    (lambda: ccopt.check_feasibility(Constraints([(0, 1)], [1]), 2), InvalidParameterError,
     r"needs constraints built with n_samples"),
    (lambda: ccopt.check_feasibility(Constraints([(0, 1)], [1], n_samples=3), 2, max_cluster_size="3"),
     InvalidParameterError, r"max_cluster_size must be an integer, got '3'"),
    (lambda: ccopt.check_feasibility(Constraints([(0, 1)], [1], n_samples=3), 2, max_cluster_size=0),
     InvalidParameterError, r"max_cluster_size must be >= 1, got 0"),
    (lambda: ccopt.check_feasibility([(0, 1)], 2), InvalidParameterError, r"must be a ccopt\.Constraints object, got list"),
    (lambda: Constraints([(0, 1)], [1], n_samples=2).violations(np.zeros((2, 2))), InvalidParameterError,
     r"labels must be 1-D"),
    (lambda: Constraints([(0, 1)], [1], n_samples=2).violations([np.nan, 1.0]), InvalidParameterError,
     r"labels contains a non-finite value at position 0"),
    (lambda: Constraints([(0, 1)], [1], n_samples=3).closure.expand([0]), InvalidParameterError,
     r"super_labels has 1 entries, expected 2"),
    (lambda: ccopt.ClusteringProblem.create(blobs(8), 2, max_size=4.5), InvalidParameterError,
     r"max_size must be an integer, got 4\.5"),
    (lambda: ccopt.ClusteringProblem.create(blobs(8), 2, min_size=-1), InvalidParameterError,
     r"min_size must be >= 0, got -1"),
    (lambda: ccopt.ClusteringProblem.create(blobs(8), 2, max_size=3), InfeasibleConstraintsError,
     r"2 clusters of at most max_size=3 objects hold 6 objects, fewer than the 8 given"),
])
def test_constraint_constructors_name_the_bad_part(build, exc, pattern):
    _raises(exc, pattern, build)


@st.composite
def broken_csv_rows(draw):
    """A valid constraints CSV with one line broken, and what the error must say about it."""
    n = 10
    pairs = draw(valid_pairs(n, draw(st.integers(1, 5))))
    rows = [[str(i), str(j), draw(st.sampled_from(["ML", "CL"]))] for i, j in pairs]
    # Keep the file free of ML/CL mixes that could be a conflict or an infeasibility.
    r = draw(st.integers(0, len(rows) - 1))
    line = r + 2
    how = draw(st.sampled_from(["index", "kind", "fields", "negative", "self", "range"]))
    if how == "index":
        rows[r][draw(st.integers(0, 1))] = draw(st.sampled_from(["x", "1.5", "", "nan"]))
        pattern = rf":{line}: indices must be integers"
    elif how == "kind":
        rows[r][2] = draw(st.sampled_from(["XX", "must", "0", "2"]))
        pattern = rf":{line}: Unknown constraint kind"
    elif how == "fields":
        rows[r] = rows[r][:2]
        pattern = rf":{line}: expected 3 fields, got 2"
    elif how == "negative":
        rows[r][0] = "-1"
        pattern = rf"cons\.csv:{line}: negative object indices: \("
    elif how == "self":
        rows[r][1] = rows[r][0]
        pattern = rf"cons\.csv:{line}: .*self-pairs i == j: \("
    else:
        rows[r][1] = str(n + draw(st.integers(0, 5)))
        pattern = rf"cons\.csv:{line}: .*out of range for n_samples={n} \(valid 0\.\.{n - 1}\): \("
    return "i,j,kind\n" + "".join(",".join(row) + "\n" for row in rows), n, pattern


@FAST
@given(case=broken_csv_rows())
def test_a_broken_constraints_file_line_is_named_by_the_reader_and_the_cli(tmp_path, capsys, case):
    text, n, pattern = case
    path = tmp_path / "cons.csv"
    path.write_text(text)
    _raises(DataFormatError, pattern, Constraints.from_csv, path, n_samples=n)
    data = tmp_path / "data.csv"
    data.write_text("a,b\n" + "".join(f"{float(x)},{float(y)}\n" for x, y in blobs(n)))
    capsys.readouterr()
    code = main(["score", str(data), "--constraints", str(path), "-k", "2", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and re.search(pattern, err), err


@st.composite
def broken_data_files(draw):
    """A valid data CSV with one cell or line broken, and what the error must say about it."""
    n, d = draw(st.integers(2, 6)), draw(st.integers(1, 3))
    columns = [f"x{c}" for c in range(d)]
    rows = [[repr(float(v)) for v in row] for row in blobs(n, d, 2, seed=draw(st.integers(0, 100)))]
    r, c = draw(st.integers(0, n - 1)), draw(st.integers(0, d - 1))
    line = r + 2
    how = draw(st.sampled_from(["text", "missing", "infinite", "overflow", "fields"]))
    if how == "text":
        rows[r][c] = draw(st.sampled_from(["abc", "1,5", "--", "1e"]))
        if "," in rows[r][c]:  # a comma makes one more field
            pattern, exc = rf":{line}: expected {d} fields like the header, got {d + 1}", DataFormatError
        else:
            pattern, exc = (rf":{line}: non-numeric value '{re.escape(rows[r][c])}' in column 'x{c}'",
                            DataFormatError)
    elif how == "missing":
        # With one column an empty value is a blank line, which the reader skips.
        rows[r][c] = draw(st.sampled_from(["NA", "nan", "?"] + ([""] if d > 1 else [])))
        pattern, exc = rf"missing value \(NaN\) at data row {r} \(line {line}\), column 'x{c}'", InvalidDataError
    elif how == "infinite":
        rows[r][c] = draw(st.sampled_from(["inf", "-inf"]))
        pattern, exc = rf"infinite value at data row {r} \(line {line}\), column 'x{c}'", InvalidDataError
    elif how == "overflow":
        rows[r][c] = draw(st.sampled_from(["1e999", "-2.5E+400"]))
        pattern, exc = (rf"the value '{re.escape(rows[r][c])}', beyond the float64 range .* at data row {r} "
                        rf"\(line {line}\), column 'x{c}'.* Rescale that column", InvalidDataError)
    else:
        rows[r].append("1.0")
        pattern, exc = rf":{line}: expected {d} fields like the header, got {d + 1}", DataFormatError
    text = ",".join(columns) + "\n" + "".join(",".join(row) + "\n" for row in rows)
    return text, exc, pattern


@pytest.mark.parametrize(("text", "pattern"), [
    ("0 1 0\n1 0 x\n0 0 0\n", r":2: non-numeric value 'x' in constraint matrix row"),
    ("0,1,0\n1,0\n0,0,0\n", r":2: expected 3 values like the first row, got 2"),
    ("0 1\n1 0\n0 0\n", r"must be square \(n x n\), got shape \(3, 2\)"),
    ("0 2\n0 0\n", r"values must be 1 \(ML\), -1 \(CL\) or 0; found entry \(0, 1\) = 2"),
    ("\n\n", r"the constraint matrix file is empty"),
])
def test_a_broken_constraint_matrix_file_is_named(tmp_path, text, pattern):
    path = tmp_path / "m.txt"
    path.write_text(text)
    _raises(DataFormatError, rf"m\.txt.*{pattern}" if pattern.startswith(":") else pattern,
            Constraints.from_matrix_file, path)


def test_a_data_row_of_empty_fields_is_reported_not_skipped(tmp_path):
    """Skipping it would silently renumber every later object (constraints use the numbers)."""
    path = tmp_path / "data.csv"
    path.write_text("a,b\n1,2\n,\n3,4\n")
    _raises(InvalidDataError, r"missing value \(NaN\) at data row 1 \(line 3\), column 'a'", datasets.load_csv, path)


@FAST
@given(case=broken_data_files())
def test_a_broken_data_file_names_the_line_and_column(tmp_path, case):
    text, exc, pattern = case
    path = tmp_path / "data.csv"
    path.write_text(text)
    _raises(exc, pattern, datasets.load_csv, path)


# ============================================================================ the command line
def _cli_files(tmp_path, cons_text: str, n: int = 9):
    data = tmp_path / "data.csv"
    data.write_text("a,b\n" + "".join(f"{float(x)},{float(y)}\n" for x, y in blobs(n, 2, 3)))
    cons = tmp_path / "cons.csv"
    cons.write_text(cons_text)
    return str(data), str(cons)


@pytest.mark.parametrize(("cons_text", "argv", "fragments"), [
    ("i,j,kind\n0,1,CL\n1,2,CL\n0,2,CL\n", ["cluster", "-k", "2", "--algorithm", "cop-kmeans"],
     ["Objects [0, 1, 2] pairwise cannot-link each other", "only 2 allowed"]),
    ("i,j,kind\n0,1,ML\n1,2,ML\n0,2,CL\n", ["score", "-k", "2"],
     ["Cannot-link (0, 2)", "chain 0 - 1 - 2"]),
    ("i,j,kind\n" + "".join(f"{i},{i + 1},ML\n" for i in range(8)), ["cluster", "-k", "2", "--algorithm", "lcc"],
     ["into 1 groups, fewer than n_clusters=2"]),
    ("i,j,kind\n0,1,ML\n", ["score", "-k", "2", "--method", "nosuch"],
     ["Unknown method 'nosuch' for criterion='kmedoids'"]),
    ("i,j,kind\n0,1,ML\n", ["score", "-k", "2", "--method", "lp", "--solver", "nosuch"],
     ["no solver named 'nosuch'"]),
    ("i,j,kind\n0,1,ML\n", ["cluster", "-k", "2", "--algorithm", "bh-kmeans", "--solver", "nosuch"],
     ["no solver named 'nosuch'"]),
    ("i,j,kind\n0,1,ML\n", ["score", "-k", "2", "--epsilon", "1.5"], ["epsilon must lie strictly between 0 and 1"]),
])
def test_cli_reports_infeasibility_and_bad_names_in_one_line(tmp_path, capsys, cons_text, argv, fragments):
    data, cons = _cli_files(tmp_path, cons_text)
    command, *rest = argv
    code = main([command, data, "--constraints", cons, *rest, "--quiet"])
    _out, err = capsys.readouterr()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ccopt {command}: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


# ============================================================================ loaders, generators, metrics
@pytest.mark.parametrize(("call", "exc", "pattern"), [
    (lambda: datasets.load_sklearn("mnist"), InvalidParameterError, r"Unknown scikit-learn data set 'mnist'"),
    (lambda: datasets.load_benchmark(3), InvalidParameterError, r"name must be the name of a data set folder .*got 3"),
    (lambda: datasets.load_benchmark("no_such_set", root="/nonexistent"), InvalidParameterError,
     r"No data set folder at '/nonexistent' \(from root\)"),
    (lambda: datasets.load_folder(None), InvalidParameterError, r"path must be a file or folder name .*got None"),
    (lambda: datasets.load_csv(7), InvalidParameterError, r"path must be a file or folder name .*got 7"),
    (lambda: datasets.load_csv("/nonexistent/data.csv"), DataFormatError, r"/nonexistent/data\.csv: cannot read file"),
    (lambda: datasets.load_csv(__file__, delimiter=";;"), InvalidParameterError, r"delimiter must be a single character"),
    (lambda: datasets.datasets_root(1.5), InvalidParameterError, r"root must be a file or folder name"),
    (lambda: datasets.load_lagrangian_synthetic(-1), InvalidParameterError, r"instance must be a non-negative int, got -1"),
    (lambda: datasets.load_lagrangian_synthetic("7"), InvalidParameterError, r"instance must be a non-negative int, got '7'"),
    (lambda: generators.make_gaussian_clusters(3, 5), InvalidParameterError, r"n_samples=3 should be >= n_clusters=5"),
    (lambda: generators.make_gaussian_clusters(10, 2, cluster_std=np.nan), InvalidParameterError,
     r"cluster_std must be finite and >= 0, got nan"),
    (lambda: generators.correct_constraints(np.zeros((3, 3)), 2), InvalidParameterError, r"labels must be 1-D"),
    (lambda: generators.correct_constraints(np.array([1, "a", None], dtype=object), 1), InvalidParameterError,
     r"labels mixes values that cannot be compared"),
    (lambda: generators.correct_constraints([0, 0, 1, 1], 10), InvalidParameterError,
     r"Cannot draw 5 distinct same-class pairs: only 2 exist"),
    (lambda: generators.noisy_constraints([0, 0, 1, 1], 2, 3), InvalidParameterError, r"n_erroneous=3 exceeds n_constraints=2"),
    (lambda: generators.noisy_constraints([0, 0, 1, 1], 2, 1, consistent="no"), InvalidParameterError,
     r"consistent must be True or False, got 'no'"),
    (lambda: generators.nested_noisy_constraints([0, 0, 1, 1], (0.5,), consistent=None), InvalidParameterError,
     r"consistent must be True or False, got None"),
    (lambda: generators.nested_noisy_constraints([0, 0, 1, 1], ()), InvalidParameterError,
     r"fractions must list at least one fraction"),
    (lambda: generators.nested_noisy_constraints([0, 0, 1, 1], 0.5), InvalidParameterError,
     r"fractions must be a sequence of numbers in \(0, 1\], got 0\.5"),
    (lambda: generators.cs_constraint_sets([0, 0, 1, 1], (0.5, 0.5)), InvalidParameterError,
     r"fractions must be distinct"),
    (lambda: generators.cs_constraints([0, 0, 1, 1], 0.0), InvalidParameterError, r"fraction must lie in \(0, 1\], got 0\.0"),
    (lambda: generators.noisy_pair_constraints([0, 0, 1, 1], 1.5), InvalidParameterError, r"noise must lie in \[0, 1\]"),
    (lambda: generators.ml_dcl_constraints([0, 0, 1, 1], 1, 1, set_size=1), InvalidParameterError, r"set_size must be >= 2"),
    (lambda: generators.synthetic_instance(5, 10, 0.1, 0.1), InvalidParameterError, r"n_samples=5 should be >= n_clusters=10"),
    (lambda: generators.synthetic_design(2, sizes=(3,), n_clusters=(5,)), InvalidParameterError,
     r"n_clusters up to 5 do not fit data sets of 3 objects"),
    (lambda: metrics.adjusted_rand_score([0, 1], [0, 1, 1]), InvalidParameterError, r"labels_pred has 3 entries, expected 2"),
    (lambda: metrics.adjusted_rand_score(np.array([1, None], dtype=object), [0, 1]), InvalidParameterError,
     r"labels_true mixes values that cannot be compared"),
    (lambda: metrics.normalized_mutual_info_score([0, 1], [0, 1], average_method="median"), InvalidParameterError,
     r"Unknown average_method 'median'"),
    (lambda: metrics.rand_score([[0, 1]], [0, 1]), InvalidParameterError, r"labels_true must be 1-D"),
    (lambda: metrics.wcss(blobs(4), [0, 1]), InvalidParameterError, r"labels has 2 entries, expected 4"),
    (lambda: metrics.wcss(blobs(4), np.array([0, 1, np.inf, 0])), InvalidParameterError,
     r"labels contains a non-finite value at position 2"),
    (lambda: metrics.kmedoids_objective(blobs(4), [0, 0, 1, 1], medoids=[0, 9]), InvalidParameterError,
     r"medoids must be object indices in 0\.\.3, got \[0, 9\]"),
    (lambda: metrics.kmedoids_objective(blobs(4), [0, 0, 1, 1], metric="nosuch"), InvalidParameterError,
     r"Unknown or unusable metric 'nosuch'"),
    (lambda: metrics.violations([0, 1, 0], ml=[(0, 5)]), InvalidConstraintError,
     r"out of range for n_samples=3 \(valid 0\.\.2\) in ml\[0\] = \(0, 5\)"),
    (lambda: baselines.informativeness(blobs(4), 2, ml=[(0, 1)], labels=[0.0, np.nan, 1.0, 1.0]),
     InvalidParameterError, r"labels contains a non-finite value at position 1"),
    (lambda: baselines.informativeness(blobs(4), 2, ml=[(0, 1)], labels=np.zeros((2, 2))),
     InvalidParameterError, r"labels must be 1-D"),
    (lambda: metrics.detection_scores([True, False], [True]), InvalidParameterError,
     r"predicted_erroneous has 1 entries, expected 2"),
    (lambda: metrics.detection_scores([2, 3], [1, 0]), InvalidParameterError, r"erroneous must be booleans \(or 0/1\)"),
    (lambda: metrics.alignment_score([0, 0, 1], [0, 0, 2], [2, 1]), InvalidParameterError,
     r"labels_pred must hold cluster codes 0\.\.1"),
])
def test_loaders_generators_and_metrics_name_the_bad_argument(call, exc, pattern):
    _raises(exc, pattern, call)


@FAST
@given(labels=st.lists(st.one_of(st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
                                 st.text(max_size=2), st.none()), min_size=2, max_size=8))
@example(labels=[0, 1])  # found by a longer run: no same-class pair for the one must-link
def test_any_list_of_labels_gives_a_result_or_a_ccopt_error(labels):
    """Metrics and generators never fail with a numpy/TypeError on odd label values."""
    arr = np.array(labels, dtype=object)
    for call in (lambda: metrics.adjusted_rand_score(arr, np.arange(len(labels)) % 2),
                 lambda: metrics.rand_score(np.arange(len(labels)) % 2, arr),
                 lambda: generators.correct_constraints(arr, 1, random_state=0),
                 lambda: Constraints.from_labels(arr, [(0, 1)])):
        try:
            call()
        except CcoptError as exc:
            assert isinstance(exc, InvalidParameterError | InvalidConstraintError), exc
            assert "labels" in str(exc)
