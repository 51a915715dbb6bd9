"""Constraint sets that no labelling into ``k`` clusters satisfies.

Three ways to be infeasible are planted in random instances (hypothesis):

* a cannot-link between two objects of one must-link chain;
* a cannot-link clique of ``k + 1`` objects (directly, or through must-link groups);
* a must-link group larger than the maximum cluster size.

Algorithms that treat the constraints as hard must refuse the set before any solve, with
:class:`~ccopt.exceptions.InfeasibleConstraintsError` whose ``certificate`` is checked here
independently (a union-find of the must-links written for the test, not ccopt's closure).
Soft algorithms must still return a labelling and report, in ``n_violations_``, exactly
the violations that the returned labels have (recounted here), at least one.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ccopt
import ccopt.lagrange.api
import ccopt.solvers
from ccopt import CL, ML, ClusteringProblem, Constraints, InfeasibleConstraintsError
from ccopt.cluster import LCC, PCS, BHKMeans, COPKMeans, GreedyMLKMeans, KMeans, MLKMeans, PCKMeans
from tests.hardening._api import blobs, cannot_links_ignored, warns

EXAMPLES = settings(max_examples=3, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ============================================================================ independent checks
def _groups(n: int, ml_pairs) -> np.ndarray:
    """Must-link group of every object by a plain union-find (independent of ccopt)."""
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i, j in ml_pairs:
        parent[find(int(i))] = find(int(j))
    return np.array([find(a) for a in range(n)])


def _pairs_of(ml, cl):
    ml_set = {frozenset(map(int, p)) for p in ml}
    cl_set = {frozenset(map(int, p)) for p in cl}
    return ml_set, cl_set


def assert_chain_certificate(cert, ml, cl):
    """``cert`` is a path of must-links whose two ends are cannot-linked."""
    ml_set, cl_set = _pairs_of(ml, cl)
    assert len(cert) >= 2
    for a, b in itertools.pairwise(cert):
        assert frozenset((a, b)) in ml_set, f"{a} - {b} is not a must-link"
    assert frozenset((cert[0], cert[-1])) in cl_set


def assert_clique_certificate(cert, n, k, ml, cl):
    """``cert`` holds ``k + 1`` objects whose must-link groups pairwise share a cannot-link."""
    assert len(cert) == k + 1, cert
    group = _groups(n, ml)
    linked = {frozenset((group[i], group[j])) for i, j in cl}
    members = [group[v] for v in cert]
    assert len(set(members)) == k + 1
    for a in range(k + 1):
        for b in range(a + 1, k + 1):
            assert frozenset((members[a], members[b])) in linked, (cert[a], cert[b])


def assert_big_group_certificate(cert, n, ml, max_size):
    """``cert`` is exactly one must-link group, larger than ``max_size``."""
    group = _groups(n, ml)
    assert len(cert) > max_size
    assert sorted(cert) == sorted(np.flatnonzero(group == group[cert[0]]).tolist())


def assert_counts_violations(est, constraints):
    """``n_violations_`` is what the returned labels violate, counted over every constraint."""
    labels = est.labels_
    same = labels[constraints.pairs[:, 0]] == labels[constraints.pairs[:, 1]]
    n_ml = int((constraints.kinds == ML)[~same].sum())
    n_cl = int((constraints.kinds == CL)[same].sum())
    assert est.n_violations_ == {"ml": n_ml, "cl": n_cl, "total": n_ml + n_cl}
    assert est.violations_.violated.shape == (len(constraints),)
    assert n_ml + n_cl >= 1  # the set is infeasible: every labelling violates something


# ============================================================================ planted instances
@st.composite
def planted(draw, kind: str):
    """``(X, k, ml, cl, planted_objects)`` with one infeasibility of ``kind`` and a feasible background.

    Background constraints touch only objects outside the planted structure: must-links
    between objects of the same parity, cannot-links between objects of different parity,
    so they stay 2-colourable and cannot add an infeasibility of their own.
    """
    n = draw(st.integers(10, 14))
    k = draw(st.integers(2, 3))
    perm = [int(v) for v in np.random.default_rng(draw(st.integers(0, 10**6))).permutation(n)]
    ml, cl = [], []
    if kind == "chain":
        length = draw(st.integers(3, 5))
        used = perm[:length]
        ml += list(itertools.pairwise(used))
        cl.append((used[-1], used[0]))
    else:  # clique of k + 1 must-link groups of 1 or 2 objects
        used, heads = [], []
        for _ in range(k + 1):
            size = draw(st.integers(1, 2))
            members = perm[len(used):len(used) + size]
            ml += list(itertools.pairwise(members))
            heads.append(members)
            used += members
        for a in range(k + 1):
            for b in range(a + 1, k + 1):
                cl.append((draw(st.sampled_from(heads[a])), draw(st.sampled_from(heads[b]))))
    free = perm[len(used):]
    for a, b in zip(free[:-2], free[2:], strict=True):
        if draw(st.booleans()):
            ml.append((a, b))
    for a, b in itertools.pairwise(free):
        if draw(st.booleans()):
            cl.append((a, b))
    order = draw(st.permutations(range(len(cl))))
    cl = [cl[t] for t in order]
    return blobs(n, 2, 3, seed=draw(st.integers(0, 100))), k, ml, cl, used


HARD_FITS = {
    "COPKMeans": lambda X, k, ml, cl: COPKMeans(k, n_init=2, random_state=0).fit(X, ml=ml, cl=cl),
    "MLKMeans": lambda X, k, ml, cl: MLKMeans(k, random_state=0).fit(X, ml=ml, cl=cl),
    "GreedyMLKMeans": lambda X, k, ml, cl: GreedyMLKMeans(k, random_state=0).fit(X, ml=ml, cl=cl),
    "impact_scores[mssc]": lambda X, k, ml, cl: ccopt.impact_scores(
        X, k, ml=ml, cl=cl, criterion="mssc", random_state=0, progress=False),
    "impact_scores[kmedoids]": lambda X, k, ml, cl: ccopt.impact_scores(
        X, k, ml=ml, cl=cl, random_state=0, progress=False),
    "BHKMeans[hard]": lambda X, k, ml, cl: BHKMeans(k, random_state=0).fit(
        X, constraints=Constraints.from_pairs(ml, cl, n_samples=X.shape[0], ml_hard=True, cl_hard=True)),
}


@pytest.fixture
def no_solve(monkeypatch):
    """Make every solve fail loudly: infeasibility must be reported before one starts."""
    def forbidden(*args, **kwargs):
        raise AssertionError("a solve started although the constraints are infeasible")

    monkeypatch.setattr(ccopt.lagrange.api, "run_subgradient", forbidden)
    monkeypatch.setattr(ccopt.solvers.PersistentSolver, "solve", forbidden)
    monkeypatch.setattr(ccopt.solvers.HighsMatrixSolver, "solve", forbidden)
    monkeypatch.setattr(ccopt.solvers, "solve", forbidden)


@pytest.mark.parametrize("name", [*HARD_FITS, "LCC", "ClusteringProblem.create"])
@EXAMPLES
@given(case=planted("chain"))
def test_a_cannot_link_inside_a_must_link_chain_is_refused_with_the_chain(no_solve, name, case):
    X, k, ml, cl, _ = case
    fit = {"LCC": lambda X, k, ml, cl: LCC(k, random_state=0).fit(X, ml=ml, cl=cl),
           "ClusteringProblem.create": lambda X, k, ml, cl: ClusteringProblem.create(X, k, ml=ml, cl=cl),
           **HARD_FITS}[name]
    with pytest.raises(InfeasibleConstraintsError, match=r"joins two objects that the must-links already "
                                                         r"tie together through the chain") as info:
        fit(X, k, ml, cl)
    assert_chain_certificate(info.value.certificate, ml, cl)


@pytest.mark.parametrize("name", [n for n in HARD_FITS if n != "BHKMeans[hard]"])
@EXAMPLES
@given(case=planted("clique"))
def test_a_cannot_link_clique_of_k_plus_one_is_refused_with_the_clique(no_solve, name, case):
    X, k, ml, cl, _ = case
    with pytest.raises(InfeasibleConstraintsError, match=rf"{k + 1} objects need {k + 1} clusters") as info:
        HARD_FITS[name](X, k, ml, cl)
    assert_clique_certificate(info.value.certificate, X.shape[0], k, ml, cl)


def test_bh_kmeans_refuses_a_hard_clique_of_single_objects_before_any_solve(no_solve):
    X = blobs(10, 2, 3)
    cl = [(0, 4), (4, 7), (0, 7)]
    cons = Constraints.from_pairs(cl=cl, n_samples=10, cl_hard=True)
    with pytest.raises(InfeasibleConstraintsError, match=r"admit no labelling with 2 clusters") as info:
        BHKMeans(2, random_state=0).fit(X, constraints=cons)
    assert_clique_certificate(info.value.certificate, 10, 2, [], cl)


def test_bh_kmeans_clique_certificate_names_objects_when_must_links_are_contracted(no_solve):
    X = blobs(10, 2, 3)
    ml = [(5, 8)]                      # unit of {5, 8}; objects 0..4 keep their own units
    cl = [(8, 6), (6, 9), (5, 9)]      # the groups {5, 8}, {6}, {9} pairwise cannot-linked
    cons = Constraints.from_pairs(ml, cl, n_samples=10, ml_hard=True, cl_hard=True)
    with pytest.raises(InfeasibleConstraintsError) as info:
        BHKMeans(2, random_state=0).fit(X, constraints=cons)
    assert_clique_certificate(info.value.certificate, 10, 2, ml, cl)


def test_optimistic_baseline_refuses_a_clique_of_k_plus_one():
    """Its base program holds every constraint: no base cost, no scores."""
    X = blobs(10, 2, 3)
    cl = [(0, 1), (1, 2), (0, 2)]
    with pytest.raises(InfeasibleConstraintsError, match=r"3 objects need 3 clusters") as info:
        ccopt.lagrange.baselines.optimistic_baseline(X, 2, cl=cl, criterion="mssc", solver_mode="heuristic",
                                                     n_init=1, progress=False)
    assert_clique_certificate(info.value.certificate, 10, 2, [], cl)


# ============================================================================ size bounds
@EXAMPLES
@given(n=st.integers(10, 16), data=st.data())
def test_a_must_link_group_larger_than_the_maximum_size_is_refused(no_solve, n, data):
    k = 2
    max_size = data.draw(st.integers(-(-n // k), n - 2))  # capacity k * max_size >= n
    perm = np.random.default_rng(data.draw(st.integers(0, 1000))).permutation(n).tolist()
    group = perm[:max_size + 1]
    ml = list(itertools.pairwise(group))
    X = blobs(n, 2, 3)
    with pytest.raises(InfeasibleConstraintsError, match=rf"of {max_size + 1} objects exceeds max_size={max_size}") as info:
        ClusteringProblem.create(X, k, ml=ml, max_size=max_size)
    assert_big_group_certificate(info.value.certificate, n, ml, max_size)
    hard = Constraints.from_pairs(ml, n_samples=n, ml_hard=True)
    with pytest.raises(InfeasibleConstraintsError, match=rf"of {max_size + 1} objects exceeds max_size={max_size}") as info:
        BHKMeans(k, max_size=max_size, random_state=0).fit(X, constraints=hard)
    assert_big_group_certificate(info.value.certificate, n, ml, max_size)


def test_capacity_too_small_for_the_data_is_refused_before_fitting():
    X = blobs(10, 2, 3)
    with pytest.raises(InfeasibleConstraintsError, match=r"3 clusters of at most max_size=3 objects hold 9 objects, fewer than the 10"):
        BHKMeans(3, max_size=3).fit(X)
    with pytest.raises(InfeasibleConstraintsError, match=r"3 clusters of at least min_size=4 objects need 12 objects"):
        BHKMeans(3, min_size=4).fit(X)


# ============================================================================ soft algorithms still run
_EMPTY_CLUSTER = r"\w+ ended with \d+ empty cluster"
SOFT_FITS = {
    "KMeans": lambda X, k, cons: KMeans(k, n_init=2, random_state=0).fit(X, constraints=cons),
    "PCKMeans": lambda X, k, cons: PCKMeans(k, random_state=0).fit(X, constraints=cons),
    "BHKMeans": lambda X, k, cons: BHKMeans(k, max_iter=10, random_state=0).fit(X, constraints=cons),
    "PCS": lambda X, k, cons: PCS(k, sizes=[X.shape[0] // k + (c < X.shape[0] % k) for c in range(k)],
                                  random_state=0, progress=False).fit(X, constraints=cons),
}


@pytest.mark.parametrize("name", [*SOFT_FITS, "LCC"])
@settings(max_examples=3, deadline=None, derandomize=True)
@given(case=planted("clique"))
def test_soft_algorithms_run_on_a_clique_and_count_what_they_violate(name, case):
    X, k, ml, cl, _ = case
    cons = Constraints.from_pairs(ml, cl, n_samples=X.shape[0])
    fit = SOFT_FITS.get(name) or (lambda X, k, cons: LCC(k, random_state=0).fit(X, constraints=cons))
    with warnings.catch_warnings(), cannot_links_ignored(name == "KMeans"):
        # Whether a cluster ends empty depends on the drawn instance.
        warnings.filterwarnings("ignore", message=_EMPTY_CLUSTER, category=ccopt.ConvergenceWarning)
        est = fit(X, k, cons)
    assert_counts_violations(est, cons)
    if name == "LCC":
        assert est.n_violations_["ml"] == 0  # LCC keeps must-links by construction


@pytest.mark.parametrize("name", list(SOFT_FITS))
@settings(max_examples=3, deadline=None, derandomize=True)
@given(case=planted("chain"))
def test_soft_algorithms_run_on_a_cannot_link_inside_a_chain(name, case):
    X, k, ml, cl, _ = case
    cons = Constraints.from_pairs(ml, cl, n_samples=X.shape[0])
    # KMeans ignores every cannot-link and says so; the others name the ones inside a chain.
    expected = (ccopt.CcoptWarning, "KMeans does not enforce cannot-links" if name == "KMeans" else
                rf"{name}: \d+ of the \d+ cannot-link\(s\) lie inside must-link chains")
    with warnings.catch_warnings(), warns(expected):
        # Whether a cluster ends empty depends on the drawn instance.
        warnings.filterwarnings("ignore", message=_EMPTY_CLUSTER, category=ccopt.ConvergenceWarning)
        est = SOFT_FITS[name](X, k, cons)
    assert_counts_violations(est, cons)
    if name == "KMeans":
        assert est.n_violations_["ml"] == 0  # must-links are contracted, the cannot-link pays


def test_soft_bh_kmeans_with_a_group_larger_than_the_maximum_size_runs_and_breaks_a_must_link():
    X = blobs(12, 2, 3)
    ml = [(i, i + 1) for i in range(7)]           # one group of 8 objects, max_size 6
    cons = Constraints.from_pairs(ml, n_samples=12)
    est = BHKMeans(2, max_size=6, random_state=0).fit(X, constraints=cons)
    assert np.bincount(est.labels_).max() <= 6
    assert_counts_violations(est, cons)
    assert est.n_violations_["ml"] >= 1
