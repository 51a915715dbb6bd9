"""No public entry point writes into what it is given.

Every array argument is passed read-only (``setflags(write=False)``), so an in-place write
fails loudly instead of going unnoticed, and is compared with a copy taken before the call;
lists, dicts, ``Constraints`` objects and estimator parameters are compared with deep copies.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import scipy.sparse as sp

import ccopt
from ccopt import CL, ML, ClusteringProblem, Constraints, generators, metrics
from ccopt.cluster import LCC, PCS, BHKMeans, COPKMeans, KMeans, KMeansS, PCKMeans
from ccopt.experiments import clustering_task, grid_tasks, run_experiment
from ccopt.lagrange import baselines
from tests.hardening._api import ENTRIES, blobs, cannot_links_ignored, warns


def _frozen(*arrays):
    """Read-only copies of ``arrays`` and untouched copies to compare with afterwards."""
    out = []
    for a in arrays:
        a = np.array(a)
        a.setflags(write=False)
        out.append(a)
    return out, [a.copy() for a in out]


def _assert_same(after, before):
    for a, b in zip(after, before, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
        assert not a.flags.writeable


@pytest.mark.parametrize("entry", ENTRIES, ids=repr)
def test_read_only_data_and_pairs_are_accepted_and_left_unchanged(entry):
    """``X`` and ``ml`` as read-only arrays, ``cl`` as a list of lists (compared deeply)."""
    (X, ml), before = _frozen(blobs(12, 2, 3), [[0, 3], [4, 1]])
    cl = [[5, 2], [0, 1]]
    cl_before = copy.deepcopy(cl)
    kwargs = {"ml": ml, "cl": cl} if entry.takes_pairs else {}
    with cannot_links_ignored(entry.ignores_cl):
        entry.call(X, 3, **kwargs)
    _assert_same([X, ml], before)
    assert cl == cl_before


def _constraints_state(cons: Constraints):
    return (cons.pairs.copy(), cons.kinds.copy(), cons.weights.copy(), cons.hard.copy(), cons.n_samples,
            cons.given_index.copy())


# KMeans, LCC, impact_scores and the k sweep say that they do not use the weights of the set below.
_UNUSED_WEIGHTS = {name: (ccopt.CcoptWarning, rf"{name} does not honour hard flags or use per-constraint weights")
                   for name in ("KMeans", "LCC")}
_UNSCORED_WEIGHTS = (ccopt.CcoptWarning, "impact_scores does not use per-constraint weights or hard flags")


@pytest.mark.parametrize(("fit", "expected"), [
    (lambda X, c: KMeans(3, n_init=1, random_state=0).fit(X, constraints=c),
     [(ccopt.CcoptWarning, "KMeans does not enforce cannot-links"), _UNUSED_WEIGHTS["KMeans"]]),
    (lambda X, c: COPKMeans(3, n_init=1, random_state=0).fit(X, constraints=c), []),
    (lambda X, c: PCKMeans(3, random_state=0).fit(X, constraints=c), []),
    (lambda X, c: BHKMeans(3, max_iter=3, random_state=0).fit(X, constraints=c), []),
    (lambda X, c: LCC(3, random_state=0).fit(X, constraints=c), [_UNUSED_WEIGHTS["LCC"]]),
    (lambda X, c: PCS(3, sizes=[4, 4, 4], random_state=0, progress=False).fit(X, constraints=c), []),
    (lambda X, c: ccopt.impact_scores(X, 3, constraints=c, max_iter=5, random_state=0, progress=False),
     [_UNSCORED_WEIGHTS]),
    (lambda X, c: baselines.pessimistic_baseline(X, 3, constraints=c, criterion="mssc",
                                                 solver_mode="heuristic", n_init=1, progress=False),
     [(ccopt.CcoptWarning, "pessimistic_baseline does not use per-constraint weights or hard flags")]),
    (lambda X, c: baselines.erroneous_fraction_by_k(X, [2, 3], constraints=c, criterion="mssc",
                                                    max_iter=3, progress=False),
     [_UNSCORED_WEIGHTS]),
    (lambda X, c: metrics.violations(np.arange(12) % 3, c), []),
    (lambda X, c: ccopt.check_feasibility(c.with_n_samples(12), 3), []),
    (lambda X, c: ClusteringProblem.create(X, 3, c), []),
], ids=["KMeans", "COPKMeans", "PCKMeans", "BHKMeans", "LCC", "PCS", "impact_scores", "pessimistic",
        "k_sweep", "violations", "check_feasibility", "ClusteringProblem"])
def test_a_constraints_object_is_not_changed(fit, expected):
    """Not even bound to ``n_samples``: binding makes a new object."""
    cons = Constraints([(0, 3), (4, 1), (0, 1), (2, 5)], [ML, ML, CL, CL], weights=[1.0, 2.0, 1.0, 0.5])
    before = _constraints_state(cons)
    with warns(*expected):
        fit(blobs(12, 2, 3), cons)
    after = _constraints_state(cons)
    assert after[4] is None
    for a, b in zip(after, before, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("estimator", [
    lambda: KMeans(3, init=_ro(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]))),
    lambda: COPKMeans(3, init=_ro(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]))),
    lambda: LCC(3, init=_ro(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]))),
    lambda: BHKMeans(3, init=_ro(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])), max_iter=3),
    lambda: PCS(3, sizes=_ro(np.array([4, 4, 4])), random_state=0, progress=False),
    lambda: KMeansS(3, sizes=_ro(np.array([4, 4, 4])), random_state=0, progress=False),
], ids=["KMeans", "COPKMeans", "LCC", "BHKMeans", "PCS", "KMeansS"])
def test_estimator_parameters_are_not_changed_by_fit(estimator):
    est = estimator()
    before = copy.deepcopy(est.get_params())
    pairs = {} if isinstance(est, KMeansS) else {"ml": [(0, 3)], "cl": [(0, 1)]}
    with cannot_links_ignored(type(est) is KMeans):
        est.fit(blobs(12, 2, 3), **pairs)
    after = est.get_params()
    assert before.keys() == after.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(np.asarray(after[key], dtype=object), np.asarray(value, dtype=object))


def _ro(a):
    a.setflags(write=False)
    return a


def test_impact_score_truth_arguments_are_left_unchanged():
    X = blobs(12, 2, 3)
    (labels, mask), before = _frozen(np.arange(12) % 3, [True, False, False])
    ccopt.impact_scores(X, 3, ml=[(0, 3), (1, 2)], cl=[(0, 1)], labels_true=labels, max_iter=3,
                        progress=False)
    ccopt.impact_scores(X, 3, ml=[(0, 3), (1, 2)], cl=[(0, 1)], erroneous=mask, max_iter=3,
                        criterion="mssc", progress=False)
    baselines.naive_baseline(X, 3, ml=[(0, 3), (1, 2)], cl=[(0, 1)], labels_true=labels, n_init=1)
    baselines.informativeness(X, 3, ml=[(0, 3), (1, 2)], cl=[(0, 1)], labels=labels)
    _assert_same([labels, mask], before)


@pytest.mark.parametrize("call", [
    lambda y, p: metrics.adjusted_rand_score(y, p),
    lambda y, p: metrics.normalized_mutual_info_score(y, p),
    lambda y, p: metrics.rand_score(y, p),
    lambda y, p: metrics.wcss(blobs(12, 2, 3), p),
    lambda y, p: metrics.kmedoids_objective(blobs(12, 2, 3), p),
    lambda y, p: metrics.alignment_score(y, p, [4, 4, 4]),
    lambda y, p: metrics.detection_scores(y == 0, p == 0),
    lambda y, p: generators.correct_constraints(y, 6, random_state=0),
    lambda y, p: generators.noisy_constraints(y, 6, 2, random_state=0),
    lambda y, p: generators.nested_noisy_constraints(y, (0.5, 1.0), random_state=0),
    lambda y, p: generators.cs_constraints(y, 0.5, random_state=0),
    lambda y, p: generators.noisy_pair_constraints(y, 0.2, fraction=0.5, random_state=0),
    lambda y, p: generators.lcc_constraints(y, 6, n_erroneous=1, random_state=0),
    lambda y, p: generators.ml_dcl_constraints(y, 1, 1, random_state=0),
    lambda y, p: Constraints.from_labels(y, [(0, 3), (0, 1)]),
], ids=["ari", "nmi", "rand", "wcss", "kmedoids_objective", "alignment", "detection", "correct",
        "noisy", "nested", "cs", "noisy_pair", "lcc", "ml_dcl", "from_labels"])
def test_labels_given_to_metrics_and_generators_are_left_unchanged(call):
    (y, p), before = _frozen(np.arange(12) % 3, (np.arange(12) + 1) % 3)
    call(y, p)
    _assert_same([y, p], before)


def test_constraint_constructors_leave_their_arrays_unchanged():
    (pairs, kinds, weights, hard, ml, cl, matrix), before = _frozen(
        [[0, 1], [2, 3], [1, 0]], [1, -1, 1], [1.0, 2.0, 3.0], [False, True, False], [[0, 1]], [[1, 2]],
        np.array([[0, 1, 0], [1, 0, -1], [0, 0, 0]]))
    with pytest.warns(ccopt.DuplicateConstraintWarning, match=r"row 0 = row 2"):
        Constraints(pairs, kinds, weights=weights, hard=hard, n_samples=4)
    Constraints.from_pairs(ml, cl, n_samples=3, ml_weights=weights[:1], cl_hard=hard[1:2])
    Constraints.from_matrix(matrix)
    ccopt.as_constraints(ml=ml, cl=cl, n_samples=3)
    _assert_same([pairs, kinds, weights, hard, ml, cl, matrix], before)


def test_a_sparse_constraint_matrix_with_repeated_entries_is_left_unchanged():
    rows, cols, vals = np.array([0, 0, 2, 1]), np.array([1, 1, 1, 2]), np.array([1, 0, -1, 0])
    coo = sp.coo_matrix((vals, (rows, cols)), shape=(3, 3))
    before = (coo.row.copy(), coo.col.copy(), coo.data.copy())
    for a in (coo.row, coo.col, coo.data):
        a.setflags(write=False)
    cons = Constraints.from_matrix(coo)
    assert cons.pairs.tolist() == [[0, 1], [1, 2]] and cons.kinds.tolist() == [ML, CL]
    for a, b in zip((coo.row, coo.col, coo.data), before, strict=True):
        np.testing.assert_array_equal(a, b)


def test_experiment_task_list_is_left_unchanged(tmp_path):
    tasks = grid_tasks({"data": "synthetic", "n_samples": 20, "n_classes": 2, "constraint_fraction": 0.2,
                        "error_fraction": 0.0, "algorithm": "kmeans", "params": {"n_init": 1}},
                       instance_seed=[0, 1])
    before = copy.deepcopy(tasks)
    with cannot_links_ignored(True):  # the tasks fit KMeans to constraint sets with cannot-links
        run_experiment(tasks, clustering_task, tmp_path / "r.csv", progress=False)
    assert tasks == before
