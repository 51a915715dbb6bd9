"""What the estimators warn about, and when they stay silent.

* KMeans ignores the cannot-links it is given: it says how many, and how many labels_ violates.
* The soft algorithms (PCKMeans, BHKMeans, PCS) say when a cannot-link lies inside a must-link
  chain, which no labelling can satisfy; KMeans's own warning covers such pairs.
* KMeans and LCC say when they ignore hard flags or per-constraint weights.
* An iterative estimator that stops on ``max_iter`` gives a ConvergenceWarning (LCC as well).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import ccopt
from ccopt.cluster import LCC, PCS, BHKMeans, COPKMeans, KMeans, PCKMeans, kmeans
from ccopt.constraints import Constraints
from ccopt.exceptions import CcoptWarning, ConvergenceWarning, InfeasibleConstraintsError
from ccopt.status import Status

from ._estimators import make_estimator


def _blobs(seed=0, n_per=10):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]])
    return np.vstack([c + rng.normal(scale=0.5, size=(n_per, 2)) for c in centres])


def _record(call):
    """Run ``call`` with every warning recorded; return its result and the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


def _messages(caught, category=CcoptWarning, start=""):
    return [str(w.message) for w in caught if issubclass(w.category, category) and str(w.message).startswith(start)]


# ----------------------------------------------------------------------------- KMeans and cannot-links
def test_kmeans_says_how_many_cannot_links_it_does_not_enforce():
    X = _blobs()
    with pytest.warns(CcoptWarning, match=r"^KMeans does not enforce cannot-links: it keeps every must-link and "
                      r"ignores the 2 cannot-link\(s\) given \((\d) of them violated by labels_\)\. COPKMeans, "
                      r"MLKMeans and GreedyMLKMeans enforce .* PCKMeans, BHKMeans, PCS and LCC penalise") as record:
        km = KMeans(3, random_state=0).fit(X, cl=[(0, 1), (2, 3)])
    message = next(str(w.message) for w in record if "does not enforce" in str(w.message))
    n_violated = int(re.search(r"\((\d) of them violated", message).group(1))
    assert n_violated == km.n_violations_["cl"] == 2  # both pairs sit in one blob


def test_kmeans_warning_counts_violations_per_distinct_pair_and_names_the_callers_line():
    X = _blobs()
    cl = [(0, 10), (0, 1)]  # one pair across blobs (kept apart), one inside a blob
    _, caught = _record(lambda: kmeans(X, 3, cl=cl, random_state=0))
    hits = [w for w in caught if "does not enforce cannot-links" in str(w.message)]
    assert len(hits) == 1 and hits[0].filename == __file__
    assert "ignores the 2 cannot-link(s) given (1 of them violated by labels_)" in str(hits[0].message)


def test_kmeans_without_cannot_links_is_silent():
    X = _blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KMeans(3, random_state=0).fit(X)
        KMeans(3, random_state=0).fit(X, ml=[(0, 1), (10, 11)])
        KMeans(3, random_state=0).fit(X, constraints=Constraints.empty(len(X)))


def test_internal_kmeans_runs_of_impact_scores_do_not_warn_about_cannot_links():
    # impact_scores starts from an unconstrained KMeans fit: the set's cannot-links are not
    # passed to it, so its warning would be spurious there.
    X = _blobs()
    cons = Constraints.from_pairs(ml=[(0, 1), (10, 11)], cl=[(0, 10), (1, 20), (12, 25)], n_samples=len(X))
    for criterion in ("mssc", "kmedoids"):
        _, caught = _record(lambda c=criterion: ccopt.impact_scores(X, 3, constraints=cons, criterion=c,
                                                                   max_iter=5, random_state=0, progress=False))
        assert not _messages(caught, start="KMeans does not enforce")


def test_the_experiment_runner_passes_the_warning_on_for_the_kmeans_algorithm():
    # There the user asked for KMeans on a set with cannot-links: the warning is right.
    from ccopt.experiments import clustering_task

    config = {"data": "synthetic", "n_samples": 30, "n_classes": 3, "constraint_fraction": 0.5,
              "error_fraction": 0.0, "instance_seed": 2, "algorithm": "kmeans", "seed": 5}
    row, caught = _record(lambda: clustering_task(config))
    assert row["n_constraints"] > 0
    assert _messages(caught, start="KMeans does not enforce cannot-links")


# ----------------------------------------------------------------------------- cannot-links inside chains
def _soft_estimator(name):
    """One of the algorithms that may violate cannot-links (PCS with sizes for _blobs' 30 points)."""
    sizes = [10, 10, 10]
    return {
        "KMeans": lambda: KMeans(3, random_state=0),
        "PCKMeans": lambda: PCKMeans(3, random_state=0),
        "BHKMeans": lambda: BHKMeans(3, random_state=0),
        "PCS": lambda: PCS(3, sizes=sizes, random_state=0),
    }[name]()


SOFT = ["KMeans", "PCKMeans", "BHKMeans", "PCS"]


def test_kmeans_gives_one_warning_for_a_cannot_link_inside_a_must_link_chain():
    # KMeans ignores every cannot-link, so its own warning (which counts the violated ones)
    # covers a contradicting one; a second, chain warning would only repeat it.
    X = _blobs()
    km, caught = _record(lambda: KMeans(3, random_state=0).fit(X, ml=[(0, 1), (1, 2)], cl=[(0, 2), (5, 15)]))
    messages = _messages(caught)
    assert len(messages) == 1, messages
    assert "ignores the 2 cannot-link(s) given (1 of them violated by labels_)" in messages[0]
    assert km.violated_.tolist() == [False, False, True, False]


@pytest.mark.parametrize("name", [name for name in SOFT if name != "KMeans"])
def test_soft_algorithms_warn_of_a_cannot_link_inside_a_must_link_chain(name):
    X = _blobs()
    ml, cl = [(0, 1), (1, 2)], [(0, 2), (5, 15)]
    est, caught = _record(lambda: _soft_estimator(name).fit(X, ml=ml, cl=cl))
    hits = [w for w in caught if issubclass(w.category, CcoptWarning) and "inside must-link chains" in str(w.message)]
    assert len(hits) == 1 and hits[0].filename == __file__
    assert re.match(rf"{name}: 1 of the 2 cannot-link\(s\) lie inside must-link chains .*: \(0, 2\) \[cl\[0\]\]\. "
                    r"No clustering satisfies every constraint", str(hits[0].message))
    # The chain 0 - 1 - 2 and the cannot-link (0, 2) cannot all hold.
    assert est.violated_[[0, 1, 2]].any()
    assert est.n_violations_["total"] >= 1


@pytest.mark.parametrize("name", SOFT)
def test_no_chain_warning_for_a_consistent_set(name):
    X = _blobs()
    _, caught = _record(lambda: _soft_estimator(name).fit(X, ml=[(0, 1), (1, 2)], cl=[(0, 15), (5, 25)]))
    assert not [m for m in _messages(caught) if "inside must-link chains" in m]


def test_the_chain_warning_counts_them_all_and_lists_the_first_few():
    X = _blobs()
    ml = [(i, i + 1) for i in range(9)]  # one chain over objects 0..9
    cl = [(0, j) for j in range(2, 10)] + [(0, 20)]  # 8 inside, 1 outside
    _, caught = _record(lambda: PCKMeans(3, random_state=0).fit(X, ml=ml, cl=cl))
    (message,) = [m for m in _messages(caught) if "inside must-link chains" in m]
    assert message.startswith("PCKMeans: 8 of the 9 cannot-link(s) lie inside must-link chains")
    assert "(0, 2) [cl[0]], (0, 3) [cl[1]]" in message and "(and 3 more)" in message
    assert "(0, 20)" not in message


def test_the_chain_warning_names_the_file_lines_of_a_constraints_csv(tmp_path):
    X = _blobs()
    path = tmp_path / "noisy.csv"
    path.write_text("i,j,kind\n0,1,ML\n1,2,ML\n2,0,CL\n")
    cons = Constraints.from_csv(path, n_samples=len(X))
    _, caught = _record(lambda: BHKMeans(3, random_state=0).fit(X, constraints=cons))
    (message,) = [m for m in _messages(caught) if "inside must-link chains" in m]
    assert f"(2, 0) [{path} line 4]" in message


def test_a_hard_cannot_link_inside_hard_must_links_still_raises_without_the_warning_first():
    X = _blobs()
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(0, 2)], ml_hard=True, cl_hard=True, n_samples=len(X))
    for est in (PCKMeans(3, random_state=0), BHKMeans(3, random_state=0), COPKMeans(3, random_state=0),
                LCC(3, random_state=0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", CcoptWarning)  # a warning first would be raised instead
            with pytest.raises(InfeasibleConstraintsError, match=r"Cannot-link \(0, 2\)"):
                est.fit(X, constraints=cons)


def test_soft_cannot_link_inside_hard_must_links_runs_with_the_warning():
    # BH-kmeans with the must-links hard and the cannot-link soft: it runs and violates the CL.
    X = _blobs()
    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2)], cl=[(0, 2)], ml_hard=True, n_samples=len(X))
    with pytest.warns(CcoptWarning, match="^BHKMeans: 1 of the 1 cannot-link"):
        est = BHKMeans(3, random_state=0).fit(X, constraints=cons)
    assert est.n_violations_ == {"ml": 0, "cl": 1, "total": 1}


def _inside_chains(cons: Constraints) -> list[int]:
    """Reference: positions of the cannot-links whose ends one must-link component holds (union-find)."""
    parent = list(range(cons.n_samples))

    def root(v):
        while parent[v] != v:
            v = parent[v]
        return v

    for i, j in cons.ml_pairs.tolist():
        parent[root(i)] = root(j)
    return [int(p) for p in cons.cl_indices if root(int(cons.pairs[p, 0])) == root(int(cons.pairs[p, 1]))]


def test_noisy_pair_sets_of_the_bh_noise_study_get_the_warning_exactly_when_they_contradict_themselves():
    from ccopt.generators import noisy_pair_constraints

    # Denser than the study's 10 % (n = 36 objects here): noise-free sets are consistent, noisy
    # ones contradict themselves.
    X = _blobs(n_per=12)
    y = np.repeat([0, 1, 2], 12)
    for noise, seed in [(0.0, 0), (0.0, 1), (0.05, 0), (0.3, 1)]:
        cons = noisy_pair_constraints(y, noise, fraction=0.5, sampling="pairs", random_state=seed).constraints
        inside = np.asarray(_inside_chains(cons))
        assert (inside.size > 0) == (noise > 0)
        _, caught = _record(lambda c=cons: PCKMeans(3, random_state=0).fit(X, constraints=c))
        hits = [m for m in _messages(caught) if "inside must-link chains" in m]
        assert len(hits) == (inside.size > 0)
        if inside.size:
            assert hits[0].startswith(f"PCKMeans: {inside.size} of the {cons.n_cl} cannot-link(s)")


def test_cannot_links_in_chains_helper():
    from ccopt.constraints import _cannot_links_in_chains

    cons = Constraints.from_pairs(ml=[(0, 1), (1, 2), (4, 5), (5, 6)], cl=[(2, 0), (3, 4), (6, 4)], n_samples=7)
    assert _cannot_links_in_chains(cons).tolist() == [4, 6]
    assert cons.pairs[_cannot_links_in_chains(cons)].tolist() == [[2, 0], [6, 4]]
    assert _cannot_links_in_chains(Constraints.from_pairs(cl=[(0, 1)], n_samples=3)).size == 0
    assert _cannot_links_in_chains(Constraints.from_pairs(ml=[(0, 1)], n_samples=3)).size == 0
    assert _cannot_links_in_chains(cons).tolist() == _inside_chains(cons)


# ----------------------------------------------------------------------------- hard flags and weights left unread
@pytest.fixture
def line():
    return np.array([[0.0], [0.1], [5.0], [5.1], [10.0], [10.1]])


@pytest.mark.parametrize("name", ["KMeans", "LCC"])
def test_estimators_that_ignore_hard_flags_say_so(name, line):
    # KMeans and LCC return a labelling even for an infeasible hard set, so they must say that
    # they ignored the flags. KMeans, which ignores every cannot-link, says so once, counting
    # the hard ones in that warning.
    triangle = Constraints.from_pairs(cl=[(0, 2), (2, 4), (0, 4)], cl_hard=True, n_samples=6)
    expected = (r"^KMeans does not enforce cannot-links: .*ignores the 3 cannot-link\(s\) given \(\d of them "
                r"violated by labels_; 3 of them marked hard\)" if name == "KMeans" else
                r"^LCC does not honour hard flags .*\(3 cannot-link\(s\) marked hard of 3 constraints\).* "
                r"PCKMeans, BHKMeans and PCS honour hard flags")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = make_estimator(name, 2).fit(line, constraints=triangle)
    messages = [str(w.message) for w in caught if issubclass(w.category, CcoptWarning)]
    assert len(messages) == 1 and re.match(expected, messages[0]), messages
    assert est.labels_.shape == (6,)
    with pytest.raises(InfeasibleConstraintsError, match=r"Objects \[0, 2, 4\] pairwise cannot-link"):
        COPKMeans(2, random_state=0).fit(line, constraints=triangle)


@pytest.mark.parametrize("name", ["KMeans", "LCC"])
def test_estimators_that_ignore_weights_say_so(name, line):
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 4), (1, 3)], cl_weights=[5.0, 1.0],
                                  ml_hard=True, n_samples=6)
    with pytest.warns(CcoptWarning, match=r"\(1 with a weight other than 1 of 3 constraints\)"):
        if name == "KMeans":  # it also says, in a warning of its own, that it ignores the cannot-links
            with pytest.warns(CcoptWarning, match=r"^KMeans does not enforce cannot-links"):
                make_estimator(name).fit(line, constraints=cons)
        else:
            make_estimator(name).fit(line, constraints=cons)


@pytest.mark.parametrize("name", ["KMeans", "LCC"])
def test_no_warning_when_nothing_is_ignored(name, line, recwarn):
    # Hard must-links hold in both (they are contracted): no hard flag or weight goes unread.
    # KMeans says only that it does not enforce the cannot-link (LCC does).
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 4)], ml_hard=True, n_samples=6)
    make_estimator(name).fit(line, constraints=cons)
    messages = [str(w.message) for w in recwarn if issubclass(w.category, CcoptWarning)]
    assert len(messages) == (name == "KMeans")
    assert all(m.startswith("KMeans does not enforce cannot-links") for m in messages)


# ----------------------------------------------------------------------------- stopping on max_iter
def test_lcc_warns_when_it_stops_on_max_iter():
    X = _blobs()
    with pytest.warns(ConvergenceWarning, match=r"^LCC stopped after max_iter=1 iterations before its stopping "
                      r"rule \(max_no_improvement=25 .*increase max_iter") as record:
        est = LCC(3, max_iter=1, random_state=0).fit(X, ml=[(0, 1)], cl=[(0, 10)])
    assert est.status_ is Status.ITERATION_LIMIT
    hits = [w for w in record if "LCC stopped after" in str(w.message)]
    assert len(hits) == 1 and hits[0].filename == __file__


def test_lcc_stopping_by_its_own_rule_does_not_warn():
    X = _blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = LCC(3, random_state=0).fit(X, ml=[(0, 1)], cl=[(0, 10), (1, 20)])
        short = LCC(3, max_iter=30, max_no_improvement=2, random_state=0).fit(X, cl=[(0, 10)])
    assert est.status_ in (Status.STAGNATION, Status.CONVERGED)
    assert short.status_ in (Status.STAGNATION, Status.CONVERGED)


@pytest.mark.parametrize("make", [
    lambda: KMeans(3, max_iter=1, n_init=1, random_state=0),
    lambda: LCC(3, max_iter=1, random_state=0),
], ids=["KMeans", "LCC"])
def test_iteration_limit_status_comes_with_a_convergence_warning(make):
    X = np.random.default_rng(0).normal(size=(60, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = make().fit(X, cl=[(0, 1)])
    assert est.status_ is Status.ITERATION_LIMIT
    assert _messages(caught, ConvergenceWarning, start=f"{type(est).__name__} stopped after max_iter=1")
