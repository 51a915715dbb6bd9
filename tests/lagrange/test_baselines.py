"""Baselines of the impact score: naive, optimistic, pessimistic; Davidson's measures; the k sweep."""

import math

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from ccopt import (
    Constraints,
    DuplicateConstraintWarning,
    InfeasibleConstraintsError,
    InvalidParameterError,
    Status,
)
from ccopt.lagrange.baselines import (
    coherence,
    erroneous_fraction_by_k,
    informativeness,
    naive_baseline,
    optimistic_baseline,
    pessimistic_baseline,
)

from ._brute import all_partitions, constrained_optimum, feasible, kmedoids_cost, wcss

# ----------------------------------------------------------------------------- helpers


def _tiny_instance(seed: int):
    """n <= 7, k <= 3, 2-4 constraints from a hidden labelling with the first one flipped; feasible."""
    rng = np.random.default_rng(seed)
    while True:
        n, k = int(rng.integers(5, 8)), int(rng.integers(2, 4))
        X = rng.normal(size=(n, 2)) * 3
        hidden = rng.integers(0, k, n)
        hidden[:k] = np.arange(k)
        m = int(rng.integers(2, 5))
        pairs = set()
        while len(pairs) < m:
            i, j = sorted(rng.choice(n, 2, replace=False).tolist())
            pairs.add((i, j))
        pairs = np.array(sorted(pairs))
        kinds = np.where(hidden[pairs[:, 0]] == hidden[pairs[:, 1]], 1, -1)
        kinds[0] = -kinds[0]
        ml = pairs[kinds == 1].tolist()
        cl = pairs[kinds == -1].tolist()
        if any(feasible(lab, ml, cl) for lab in all_partitions(n, k)):
            return X, k, ml, cl


def _brute_kmedoids(X, k, ml, cl):
    d = cdist(X, X)
    return constrained_optimum(lambda lab: kmedoids_cost(d, lab), X.shape[0], k, ml, cl)


# Fig. 4 of the paper, in one dimension: A = {0, 0.2, 0.4} and the outlying A-point 2.0,
# B = {10, 10.2, 10.4}. The erroneous must-link (3, 4) pulls 2.0 into B; the erroneous
# cannot-link (0, 3) pushes it out of A. Either one alone already moves 2.0 to B.
FIG4_X = np.array([[0.0], [0.2], [0.4], [2.0], [10.0], [10.2], [10.4]])
FIG4_TRUTH = np.array([0, 0, 0, 0, 1, 1, 1])
FIG4_ML, FIG4_CL = [(3, 4)], [(0, 3)]

# Fig. 5 in one dimension: a far outlier o = -10 shares its class with q = 0; the rest of
# q's neighbours (0.5 .. 0.8) form the other class. Unconstrained, o is alone and q joins
# the right-hand group; the correct constraints ML(o, q), CL(q, 0.5), CL(q, 0.6) each cost
# something alone, but together they only ask for the true partition.
FIG5_X = np.array([[-10.0], [0.0], [0.5], [0.6], [0.7], [0.8]])
FIG5_TRUTH = np.array([0, 0, 1, 1, 1, 1])
FIG5_ML, FIG5_CL = [(0, 1)], [(1, 2), (1, 3)]


def _two_blobs(seed=0, n_per=10):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_per, 2)) * 0.3, rng.normal(size=(n_per, 2)) * 0.3 + [8.0, 0.0]])
    return X, np.repeat([0, 1], n_per)


def _three_blobs(seed=0, n_per=12):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [12.0, 0.0], [0.0, 12.0]])
    X = np.vstack([c + rng.normal(scale=0.5, size=(n_per, 2)) for c in centres])
    return X, np.repeat(np.arange(3), n_per)


# ----------------------------------------------------------------------------- exact mode against enumeration


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_exact_scores_match_brute_force_enumeration(seed):
    X, k, ml, cl = _tiny_instance(seed)
    pairs = ml + cl
    n_ml = len(ml)
    z_all, _ = _brute_kmedoids(X, k, ml, cl)
    z_none, unconstrained = _brute_kmedoids(X, k, [], [])
    expected_o, expected_p = [], []
    for idx in range(len(pairs)):
        ml_wo = [pairs[i] for i in range(n_ml) if i != idx]
        cl_wo = [pairs[i] for i in range(n_ml, len(pairs)) if i != idx]
        expected_o.append(_brute_kmedoids(X, k, ml_wo, cl_wo)[0] - z_all)
        alone_ml, alone_cl = ([pairs[idx]], []) if idx < n_ml else ([], [pairs[idx]])
        expected_p.append(z_none - _brute_kmedoids(X, k, alone_ml, alone_cl)[0])

    opt = optimistic_baseline(X, k, ml=ml, cl=cl, solver_mode="exact", progress=False, random_state=0)
    pes = pessimistic_baseline(X, k, ml=ml, cl=cl, solver_mode="exact", progress=False, random_state=0)
    assert opt.status is Status.OPTIMAL and pes.status is Status.OPTIMAL
    assert opt.base_cost == pytest.approx(z_all, abs=1e-7)
    assert pes.base_cost == pytest.approx(z_none, abs=1e-7)
    np.testing.assert_allclose(opt.scores, expected_o, atol=1e-6)
    np.testing.assert_allclose(pes.scores, expected_p, atol=1e-6)
    assert opt.n_failed == 0 and pes.n_failed == 0
    # With tau = 0 the pessimistic prediction is "every optimal unconstrained clustering violates
    # it": check against the enumerated optimum when that optimum is unique.
    d = cdist(X, X)
    optima = [lab for lab in all_partitions(X.shape[0], k) if kmedoids_cost(d, lab) <= z_none + 1e-9]
    if len(optima) == 1:
        violated = [not feasible(unconstrained, [pr], []) if i < n_ml else not feasible(unconstrained, [], [pr])
                    for i, pr in enumerate(pairs)]
        assert pes.predicted_erroneous.tolist() == violated


def test_exact_scores_do_not_depend_on_solution_reuse():
    X, k, ml, cl = _tiny_instance(5)
    for baseline in (optimistic_baseline, pessimistic_baseline):
        a = baseline(X, k, ml=ml, cl=cl, solver_mode="exact", reuse_solutions=True, progress=False, random_state=0)
        b = baseline(X, k, ml=ml, cl=cl, solver_mode="exact", reuse_solutions=False, progress=False, random_state=0)
        np.testing.assert_allclose(a.scores, b.scores, atol=1e-6)
        assert a.predicted_erroneous.tolist() == b.predicted_erroneous.tolist()


# ----------------------------------------------------------------------------- Figs. 4 and 5


@pytest.mark.parametrize("criterion, mode", [("kmedoids", "exact"), ("kmedoids", "heuristic"), ("mssc", "heuristic")])
def test_fig4_tied_erroneous_pair_fools_the_optimistic_approach(criterion, mode):
    d = cdist(FIG4_X, FIG4_X)
    cost = (lambda lab: kmedoids_cost(d, lab)) if criterion == "kmedoids" else (lambda lab: wcss(FIG4_X, lab))
    z_all = constrained_optimum(cost, 7, 2, FIG4_ML, FIG4_CL)[0]
    # The mechanism: dropping either constraint alone changes nothing, dropping both does.
    assert constrained_optimum(cost, 7, 2, [], FIG4_CL)[0] == pytest.approx(z_all)
    assert constrained_optimum(cost, 7, 2, FIG4_ML, [])[0] == pytest.approx(z_all)
    assert constrained_optimum(cost, 7, 2, [], [])[0] < z_all - 1.0

    opt = optimistic_baseline(FIG4_X, 2, ml=FIG4_ML, cl=FIG4_CL, criterion=criterion, solver_mode=mode,
                              labels_true=FIG4_TRUTH, progress=False, random_state=0)
    assert opt.base_cost == pytest.approx(z_all)
    assert opt.scores.tolist() == [0.0, 0.0]
    assert opt.predicted_erroneous.tolist() == [False, False]  # two false positives
    assert opt.erroneous.tolist() == [True, True]
    assert opt.detection.f1 == 0.0
    # The pessimistic approach sees each one alone, and catches both.
    pes = pessimistic_baseline(FIG4_X, 2, ml=FIG4_ML, cl=FIG4_CL, criterion=criterion, solver_mode=mode,
                               labels_true=FIG4_TRUTH, progress=False, random_state=0)
    assert pes.predicted_erroneous.tolist() == [True, True]
    assert pes.detection.f1 == 1.0


@pytest.mark.parametrize("criterion, mode", [("kmedoids", "exact"), ("mssc", "heuristic")])
def test_fig5_correct_constraints_that_only_work_together_fool_the_pessimistic_approach(criterion, mode):
    d = cdist(FIG5_X, FIG5_X)
    cost = (lambda lab: kmedoids_cost(d, lab)) if criterion == "kmedoids" else (lambda lab: wcss(FIG5_X, lab))
    _, unconstrained = constrained_optimum(cost, 6, 2, [], [])
    assert unconstrained.tolist() == [0, 1, 1, 1, 1, 1]  # the outlier alone (Fig. 5(b))

    pes = pessimistic_baseline(FIG5_X, 2, ml=FIG5_ML, cl=FIG5_CL, criterion=criterion, solver_mode=mode,
                               labels_true=FIG5_TRUTH, progress=False, random_state=0)
    assert pes.erroneous.tolist() == [False, False, False]
    assert pes.predicted_erroneous.tolist() == [True, True, True]  # three false negatives
    assert np.all(pes.scores < 0)
    opt = optimistic_baseline(FIG5_X, 2, ml=FIG5_ML, cl=FIG5_CL, criterion=criterion, solver_mode=mode,
                              labels_true=FIG5_TRUTH, progress=False, random_state=0)
    assert opt.predicted_erroneous.tolist() == [False, False, False]
    assert opt.base_labels is not None and feasible(opt.base_labels, FIG5_ML, FIG5_CL)


# ----------------------------------------------------------------------------- naive baseline and informativeness


@pytest.mark.parametrize("criterion", ["mssc", "kmedoids"])
def test_naive_baseline_counts_the_violations_of_the_unconstrained_clustering(criterion):
    X, y = _two_blobs()
    # Hand count: the blobs are the unconstrained clusters, so the ML across the blobs (0, 15)
    # and the CL inside a blob (1, 2) are violated; the other two hold.
    ml, cl = [(0, 1), (0, 15)], [(3, 12), (1, 2)]
    res = naive_baseline(X, 2, ml=ml, cl=cl, criterion=criterion, random_state=0, labels_true=y)
    assert res.predicted_erroneous.tolist() == [False, True, False, True]
    assert res.informativeness == 0.5
    # Truth: (0, 15) and (1, 2) contradict y; both are found and nothing else.
    assert (res.detection.precision, res.detection.recall, res.detection.f1) == (1.0, 1.0, 1.0)
    same = {tuple(sorted(set(res.labels[y == c]))) for c in (0, 1)}
    assert len(same) == 2 and all(len(s) == 1 for s in same)  # the blobs, up to permutation
    inf = informativeness(X, 2, ml=ml, cl=cl, criterion=criterion, random_state=0)
    assert inf.value == 0.5 and inf.per_constraint.tolist() == [0.0, 1.0, 0.0, 1.0]


def test_informativeness_from_given_labels():
    X = np.zeros((5, 1))
    labels = np.array([0, 0, 1, 1, 2])
    # ML (0, 1) holds, ML (1, 2) broken, CL (2, 3) broken, CL (0, 4) holds -> 2 of 4.
    res = informativeness(X, 3, ml=[(0, 1), (1, 2)], cl=[(2, 3), (0, 4)], labels=labels)
    assert res.value == 0.5
    assert res.per_constraint.tolist() == [0.0, 1.0, 1.0, 0.0]


# ----------------------------------------------------------------------------- coherence


def test_coherence_on_hand_computed_segments():
    X = np.array([
        [0.0, 0.0], [2.0, 0.0],    # 0-1: ML m1 along the x axis, x in [0, 2]
        [0.0, 10.0], [0.0, 12.0],  # 2-3: ML m2 vertical at x = 0, far up
        [1.0, 1.0], [1.0, 3.0],    # 4-5: CL c1 vertical at x = 1: projects onto m1 as a point
        [1.0, 1.0], [3.0, 1.0],    # 6-7: CL c2 horizontal, x in [1, 3]: overlaps m1 on [1, 2]
        [5.0, 0.0], [7.0, 0.0],    # 8-9: CL c3 on m1's line, x in [5, 7]: disjoint from m1
    ])
    res = coherence(X, ml=[(0, 1), (2, 3)], cl=[(4, 5), (6, 7), (8, 9)])
    # m1 agrees with c1 and c3 only; m2 projects onto every CL (and they onto it) as points.
    assert res.per_constraint.tolist() == pytest.approx([2 / 3, 1.0, 1.0, 0.5, 1.0])
    assert res.value == pytest.approx(5 / 6)


def test_coherence_counts_an_overlap_in_one_direction_only():
    # ML from (0, 0) to (10, 0); CL from (4, 10) to (5, 10 + sqrt(3)) at 60 degrees.
    # CL onto ML: x in [4, 5], inside [0, 10] -> overlap 1.
    # ML onto CL's line (unit (0.5, 0.866) from (4, 10)): -2 - 8.66 and 3 - 8.66, both < 0 -> none.
    X = np.array([[0.0, 0.0], [10.0, 0.0], [4.0, 10.0], [5.0, 10.0 + math.sqrt(3.0)]])
    assert coherence(X, ml=[(0, 1)], cl=[(2, 3)]).value == 0.0
    # Moved to the right of the ML's extent, neither projection overlaps.
    X[2:, 0] += 20.0
    assert coherence(X, ml=[(0, 1)], cl=[(2, 3)]).value == 1.0


def test_coherence_without_one_kind_is_one_and_chunks_agree():
    X = np.random.default_rng(0).normal(size=(12, 3))
    assert coherence(X, ml=[(0, 1), (2, 3)]).value == 1.0
    ml = [(0, 1), (2, 3), (4, 5), (6, 7)]
    cl = [(8, 9), (10, 11), (0, 11)]
    whole = coherence(X, ml=ml, cl=cl)
    chunked = coherence(X, ml=ml, cl=cl, chunk_size=1)
    assert whole.value == chunked.value
    np.testing.assert_array_equal(whole.per_constraint, chunked.per_constraint)
    assert whole.value == pytest.approx(whole.per_constraint[:4].mean())
    assert whole.value == pytest.approx(whole.per_constraint[4:].mean())


# ----------------------------------------------------------------------------- heuristics, failures, alignment


def _three_blobs_two_flipped():
    X, y = _three_blobs()
    rng = np.random.default_rng(3)
    pairs = rng.choice(X.shape[0], size=(8, 2), replace=False)
    cons = Constraints.from_labels(y, pairs, n_samples=X.shape[0])
    kinds = cons.kinds.copy()
    kinds[:2] = -kinds[:2]  # two erroneous constraints
    return X, y, Constraints(cons.pairs, kinds, n_samples=X.shape[0])


@pytest.mark.parametrize("criterion", ["kmedoids", "mssc"])
@pytest.mark.parametrize("baseline", [optimistic_baseline, pessimistic_baseline])
def test_heuristic_scores_are_non_positive_and_find_flipped_constraints(criterion, baseline):
    X, y, cons = _three_blobs_two_flipped()
    res = baseline(X, 3, constraints=cons, criterion=criterion, solver_mode="heuristic", n_init=3,
                   reuse_solutions=True, random_state=7, progress=False, labels_true=y)
    assert np.all(res.scores <= 0)  # with reuse: Z_uv <= Z_B (optimistic), >= Z_B (pessimistic)
    assert res.status is Status.FEASIBLE and res.n_failed == 0
    if baseline is optimistic_baseline:
        assert cons.violations(res.base_labels).total == 0
        assert res.n_resolves == len(cons)
    else:
        # Re-solved: exactly the constraints the unconstrained solution violates.
        assert res.n_resolves == cons.violations(res.base_labels).total
    # The two flipped constraints are the only ones contradicting well separated blobs.
    assert res.predicted_erroneous[:2].all()
    assert res.erroneous.tolist() == [True, True] + [False] * (len(cons) - 2)


@pytest.mark.parametrize("reuse", [False, True])
def test_heuristic_values_never_beat_the_enumerated_optima(reuse):
    X, k, ml, cl = _tiny_instance(6)
    pairs, n_ml = ml + cl, len(ml)
    cost = lambda lab: wcss(X, lab)  # noqa: E731
    res = optimistic_baseline(X, k, ml=ml, cl=cl, criterion="mssc", solver_mode="heuristic", n_init=2,
                              reuse_solutions=reuse, progress=False, random_state=0)
    assert feasible(res.base_labels, ml, cl)
    assert res.base_cost == pytest.approx(cost(res.base_labels))
    assert res.base_cost >= constrained_optimum(cost, X.shape[0], k, ml, cl)[0] - 1e-9
    for idx in range(len(pairs)):
        ml_wo = [pairs[i] for i in range(n_ml) if i != idx]
        cl_wo = [pairs[i] for i in range(n_ml, len(pairs)) if i != idx]
        assert res.costs[idx] >= constrained_optimum(cost, X.shape[0], k, ml_wo, cl_wo)[0] - 1e-9
        assert res.scores[idx] == pytest.approx(res.costs[idx] - res.base_cost, abs=1e-7)


@pytest.mark.parametrize("baseline", [optimistic_baseline, pessimistic_baseline])
def test_one_or_two_workers_give_identical_results(baseline):
    X, _, cons = _three_blobs_two_flipped()
    one, two = (baseline(X, 3, constraints=cons, solver_mode="heuristic", n_init=3, random_state=7,
                         n_jobs=n_jobs, progress=False) for n_jobs in (1, 2))
    np.testing.assert_array_equal(one.scores, two.scores)
    np.testing.assert_array_equal(one.costs, two.costs)
    np.testing.assert_array_equal(one.predicted_erroneous, two.predicted_erroneous)
    np.testing.assert_array_equal(one.base_labels, two.base_labels)
    assert one.base_cost == two.base_cost


def test_a_failed_resolve_is_recorded_not_raised(monkeypatch):
    from ccopt.lagrange import baselines

    real = baselines._run_task

    def must_link_resolve_fails(task):
        # The must-link's own re-solve gives no solution (as a dead end or a time limit would).
        if len(task.pairs) == 1 and task.kinds[0] == 1:
            return baselines._Solved(None, math.inf, Status.INFEASIBLE, "forced failure", 0.0)
        return real(task)

    monkeypatch.setattr(baselines, "_run_task", must_link_resolve_fails)
    # Two pairs of close points far apart: the optimum (k = 2) is {0, 1} {2, 3}, which violates
    # the must-link (1, 2) (so it is re-solved, and fails) and satisfies the cannot-link (0, 3).
    X = np.array([[0.0], [0.1], [10.0], [10.1]])
    for mode in ("exact", "heuristic"):
        # An optimal base (exact) or reuse_solutions lets the satisfied cannot-link skip its re-solve.
        res = pessimistic_baseline(X, 2, ml=[(1, 2)], cl=[(0, 3)], solver_mode=mode,
                                   reuse_solutions=mode == "heuristic", progress=False, random_state=0)
        assert res.n_failed == 1 and res.failed.tolist() == [True, False]
        assert math.isnan(res.scores[0]) and math.isnan(res.costs[0])
        assert res.scores[1] == 0.0  # the unconstrained optimum already separates 0 and 3
        assert res.predicted_erroneous.tolist() == [False, False]
        assert res.n_resolves == 1  # the satisfied cannot-link needed no re-solve


def test_an_interrupt_keeps_the_finished_resolves(monkeypatch):
    from ccopt.lagrange import baselines

    real, calls = baselines._run_task, []

    def interrupted_on_the_third_solve(task):
        calls.append(task)
        if len(calls) == 3:  # the base solve, one re-solve, then Ctrl-C
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(baselines, "_run_task", interrupted_on_the_third_solve)
    res = optimistic_baseline(FIG5_X, 2, ml=FIG5_ML, cl=FIG5_CL, solver_mode="exact", progress=False)
    assert res.status is Status.INTERRUPTED
    assert res.failed.tolist() == [False, True, True] and res.n_failed == 2
    assert res.scores[0] == 0.0 and np.isnan(res.scores[1:]).all()


def test_fan_out_keeps_tasks_finished_out_of_order_when_interrupted(monkeypatch):
    from ccopt.lagrange import baselines

    def finished_two_then_ctrl_c(function, tasks, **options):
        assert options["ordered"] is False
        yield 2, "third"
        yield 0, "first"
        raise KeyboardInterrupt

    monkeypatch.setattr(baselines, "parallel_imap", finished_two_then_ctrl_c)
    results, interrupted = baselines._fan_out(abs, [1, 2, 3, 4], 2, False, "test")
    assert interrupted and results == ["first", None, "third", None]


def test_two_workers_give_the_serial_re_solves():
    serial = pessimistic_baseline(FIG5_X, 2, ml=FIG5_ML, cl=FIG5_CL, solver_mode="exact", progress=False,
                                  random_state=0)
    parallel = pessimistic_baseline(FIG5_X, 2, ml=FIG5_ML, cl=FIG5_CL, solver_mode="exact", progress=False,
                                    random_state=0, n_jobs=2)
    np.testing.assert_array_equal(parallel.scores, serial.scores)
    assert parallel.n_resolves == serial.n_resolves > 0


def test_results_are_aligned_with_the_given_rows_including_duplicates():
    pairs = np.array([[0, 3], [4, 3], [0, 1], [3, 0]])  # row 3 repeats row 0
    kinds = np.array(["CL", "ML", "CL", "CL"])
    with pytest.warns(DuplicateConstraintWarning):
        cons = Constraints(pairs, kinds, n_samples=7)
    res = optimistic_baseline(FIG4_X, 2, constraints=cons, solver_mode="exact", progress=False)
    assert res.scores.shape == (4,)
    assert res.scores[3] == res.scores[0] and res.predicted_erroneous[3] == res.predicted_erroneous[0]
    plain = optimistic_baseline(FIG4_X, 2, ml=[(4, 3)], cl=[(0, 3), (0, 1)], solver_mode="exact", progress=False)
    # plain order: ML (4, 3), CL (0, 3), CL (0, 1); cons order: CL (0, 3), ML (4, 3), CL (0, 1).
    np.testing.assert_allclose(res.scores[:3], plain.scores[[1, 0, 2]])


def test_time_limit_is_honoured():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 5))
    y = rng.integers(0, 4, X.shape[0])
    cons = Constraints.from_labels(y, rng.choice(X.shape[0], size=(40, 2), replace=False), n_samples=2000)
    res = optimistic_baseline(X, 4, constraints=cons, criterion="mssc", solver_mode="heuristic", n_init=50,
                              time_limit=1.0, progress=False, random_state=0)
    p = len(cons)
    assert res.per_run_time_limit == pytest.approx(1.0 / p)
    assert res.seconds < 1.0 * (1 + 1 / p) + 3.0  # generous margin for the loaded machine
    assert res.status is Status.TIME_LIMIT


# ----------------------------------------------------------------------------- the k sweep (Fig. 3)


def _sweep_instance():
    X, y = _three_blobs(n_per=10)
    rng = np.random.default_rng(1)
    pairs = rng.choice(X.shape[0], size=(12, 2), replace=False)
    cons = Constraints.from_labels(y, pairs, n_samples=X.shape[0])
    kinds = cons.kinds.copy()
    kinds[0] = -kinds[0]
    return X, y, Constraints(cons.pairs, kinds, n_samples=X.shape[0])


def test_erroneous_fraction_is_smallest_at_the_true_k():
    X, y, cons = _sweep_instance()
    sweep = erroneous_fraction_by_k(X, [1, 2, 3, 4], constraints=cons, labels_true=y, criterion="mssc",
                                    max_iter=60, random_state=0, progress=False)
    # k = 1 cannot separate the cannot-links: recorded, not raised.
    assert np.isnan(sweep.fraction_erroneous[0]) and 1 in sweep.errors and sweep.results[0] is None
    assert sweep.best_k == 3
    assert sweep.f1[2] == np.nanmax(sweep.f1)
    # Each entry is the run of impact_scores for that k.
    result = sweep.results[2]
    assert sweep.fraction_erroneous[2] == result.predicted_erroneous.mean()
    assert sweep.f1[2] == result.detection.f1
    assert len(sweep.table().splitlines()) == 2 + 4


def test_the_sweep_counts_every_negative_score_unless_told_otherwise():
    """Fig. 3 reads the paper's rule (score < 0), not the calibrated tau of impact_scores."""
    X, _, cons = _sweep_instance()
    default = erroneous_fraction_by_k(X, [2, 3], constraints=cons, criterion="mssc", max_iter=60,
                                      random_state=0, progress=False)
    for result, fraction in zip(default.results, default.fraction_erroneous, strict=True):
        assert result.tau == 0.0
        np.testing.assert_array_equal(result.predicted_erroneous, result.scores < 0)
        assert fraction == (result.scores < 0).mean()
    told = erroneous_fraction_by_k(X, [2, 3], constraints=cons, criterion="mssc", max_iter=60, tau=0.5,
                                   random_state=0, progress=False)
    for result in told.results:
        assert result.tau == 0.5
        np.testing.assert_array_equal(result.predicted_erroneous, result.normalized_scores > 0.5)


@pytest.mark.slow
def test_erroneous_fraction_by_k_does_not_depend_on_the_workers():
    X, y, cons = _sweep_instance()
    one, two = (erroneous_fraction_by_k(X, [2, 3, 4], constraints=cons, labels_true=y, criterion="mssc",
                                        max_iter=60, random_state=0, n_jobs=n_jobs, progress=False)
                for n_jobs in (1, 2))
    np.testing.assert_array_equal(one.fraction_erroneous, two.fraction_erroneous)
    np.testing.assert_array_equal(one.f1, two.f1)
    for a, b in zip(one.results, two.results, strict=True):
        np.testing.assert_array_equal(a.scores, b.scores)


# ----------------------------------------------------------------------------- validation


def test_bad_parameters_are_named():
    X = FIG4_X
    with pytest.raises(InvalidParameterError, match="solver_mode='exact' needs criterion='kmedoids'"):
        optimistic_baseline(X, 2, ml=FIG4_ML, criterion="mssc", solver_mode="exact", progress=False)
    with pytest.raises(InvalidParameterError, match="Unknown solver_mode 'fast'"):
        pessimistic_baseline(X, 2, ml=FIG4_ML, solver_mode="fast", progress=False)
    with pytest.raises(InvalidParameterError, match=r"tau must lie in \[0, 1\)"):
        optimistic_baseline(X, 2, ml=FIG4_ML, tau=1.5, progress=False)
    with pytest.raises(InvalidParameterError, match="Unknown criterion 'kmeans'"):
        naive_baseline(X, 2, ml=FIG4_ML, criterion="kmeans")
    with pytest.raises(InvalidParameterError, match="n_jobs must be a positive number of workers or -1"):
        optimistic_baseline(X, 2, ml=FIG4_ML, n_jobs=0, progress=False)
    with pytest.raises(InvalidParameterError, match="reuse_solutions must be True or False"):
        optimistic_baseline(X, 2, ml=FIG4_ML, reuse_solutions="yes", progress=False)
    with pytest.raises(InvalidParameterError, match=r"ks must be distinct, got \[2, 2\]"):
        erroneous_fraction_by_k(X, [2, 2], ml=FIG4_ML, progress=False)
    with pytest.raises(InvalidParameterError, match=r"Unknown option\(s\) \['iterations'\]"):
        erroneous_fraction_by_k(X, [2, 3], ml=FIG4_ML, iterations=5, progress=False)
    with pytest.raises(InvalidParameterError, match="n_samples=7 should be >= n_clusters=9"):
        erroneous_fraction_by_k(X, [2, 9], ml=FIG4_ML, progress=False)


def test_optimistic_needs_a_satisfiable_set_pessimistic_does_not():
    # The cannot-link (0, 2) lies inside the must-link chain 0 - 1 - 2.
    ml, cl = [(0, 1), (1, 2)], [(0, 2)]
    with pytest.raises(InfeasibleConstraintsError, match="chain 0 - 1 - 2"):
        optimistic_baseline(FIG4_X, 2, ml=ml, cl=cl, progress=False)
    # A cannot-link triangle needs three clusters: found once the base program fails.
    for mode in ("exact", "heuristic"):
        with pytest.raises(InfeasibleConstraintsError, match=r"Objects \[0, 1, 2\] pairwise cannot-link"):
            optimistic_baseline(FIG4_X, 2, cl=[(0, 1), (1, 2), (0, 2)], solver_mode=mode, n_init=1, progress=False)
    res = pessimistic_baseline(FIG4_X, 2, ml=ml, cl=cl, solver_mode="exact", progress=False)
    # The unconstrained optimum {0, 0.2, 0.4, 2} | {10, 10.2, 10.4} satisfies both must-links
    # (score 0); separating 0 from 0.4 costs something.
    assert res.n_failed == 0 and res.scores[:2].tolist() == [0.0, 0.0] and res.scores[2] < 0
    assert res.predicted_erroneous.tolist() == [False, False, True]


@pytest.mark.parametrize("seed", [2, 9])
def test_naive_mssc_baseline_does_not_depend_on_the_thread_count(seed):
    # Balance's 625 grid points: scikit-learn's k-means, left to its threads, picked another
    # of several equal-inertia restarts with 1 and 2 threads for these seeds.
    import itertools

    from threadpoolctl import threadpool_limits

    X = np.array(list(itertools.product(range(1, 6), repeat=4)), dtype=float)
    pairs = np.random.default_rng(0).choice(625, size=(94, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    predicted = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            predicted.append(naive_baseline(X, 3, cl=pairs, criterion="mssc", random_state=seed).predicted_erroneous)
    np.testing.assert_array_equal(predicted[0], predicted[1])
