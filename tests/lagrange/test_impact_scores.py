"""``impact_scores`` end to end: bounds against enumeration, flipped constraints, alignment of
the scores with the given rows, limits, errors, infeasible sets and degenerate data."""

import dataclasses
import time
import warnings
from contextlib import nullcontext

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from scipy.spatial.distance import cdist

import ccopt
import ccopt.lagrange.api
from ccopt import (
    Constraints,
    InfeasibleConstraintsError,
    InvalidParameterError,
    MemoryBudgetError,
    Status,
)
from ccopt.lagrange.multipliers import Multipliers

from ._brute import constrained_optimum, kmedoids_cost, tiny_instances, wcss
from ._cases import FIVE_CYCLE, ROUTES


def _brute(X, k, cons, criterion):
    d = cdist(X, X)
    cost = (lambda lab: kmedoids_cost(d, lab)) if criterion == "kmedoids" else (lambda lab: wcss(X, lab))
    return constrained_optimum(cost, X.shape[0], k, cons.ml_pairs.tolist(), cons.cl_pairs.tolist())[0]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_instances())
def test_kmedoids_lower_bound_below_optimum_below_upper_bound(instance):
    X, k, cons = instance
    optimum = _brute(X, k, cons, "kmedoids")
    res = ccopt.impact_scores(X, k, constraints=cons, criterion="kmedoids", method="lagrangian",
                              max_iter=100, random_state=0, progress=False)
    assert res.lower_is_bound
    assert res.lower_bound <= optimum + 1e-7
    assert optimum <= res.upper_bound + 1e-7
    assert np.all(res.scores <= 0)
    assert cons.violations(res.labels).total == 0


def test_the_lagrangian_route_returns_the_assignment_multipliers_of_its_bound():
    from ccopt.lagrange.multipliers import PairwiseOperator
    from ccopt.lagrange.oracles import KMedoidsLagrangianOracle

    rng = np.random.default_rng(5)
    X = np.concatenate([rng.normal(c, 0.5, size=(8, 2)) for c in (0.0, 4.0, 8.0)])
    ml, cl = [(0, 8), (1, 2), (9, 10)], [(3, 4), (16, 17), (5, 12)]
    res = ccopt.impact_scores(X, 3, ml=ml, cl=cl, method="lagrangian", max_iter=60, random_state=0,
                              progress=False)
    mu = res.oracle_multipliers["mu"]
    assert mu.shape == (X.shape[0],)
    # The eta / lambda / gamma of the result and this mu give back the reported bound.
    oracle = KMedoidsLagrangianOracle(cdist(X, X), 3, PairwiseOperator(res.constraints, 0.5), mu)
    assert oracle.solve(res.multipliers).value == pytest.approx(res.lower_bound, rel=1e-12)
    assert ccopt.impact_scores(X, 3, ml=ml, cl=cl, max_iter=5, random_state=0,
                               progress=False).oracle_multipliers == {}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_instances())
def test_mssc_upper_bound_is_feasible_and_not_below_the_optimum(instance):
    X, k, cons = instance
    optimum = _brute(X, k, cons, "mssc")
    res = ccopt.impact_scores(X, k, constraints=cons, criterion="mssc", max_iter=100,
                              random_state=0, progress=False)
    assert optimum <= res.upper_bound + 1e-7
    assert res.upper_bound == pytest.approx(wcss(X, res.labels))
    assert cons.violations(res.labels).total == 0
    assert np.all(res.scores <= 0)
    assert not res.lower_is_bound  # the MSSC oracle is a heuristic and says so


def _separated_blobs(seed=0, n_per=15, k=3):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]])[:k]
    X = np.vstack([c + rng.normal(scale=0.5, size=(n_per, 2)) for c in centres])
    y = np.repeat(np.arange(k), n_per)
    return X, y


@pytest.mark.parametrize("criterion", ["kmedoids", "mssc"])
@pytest.mark.parametrize("flipped_kind", ["ML", "CL"])
def test_a_flipped_constraint_scores_negative_and_the_correct_ones_zero(criterion, flipped_kind):
    X, y = _separated_blobs()
    ml = [(0, 1), (15, 16), (30, 31), (2, 3)]
    cl = [(0, 15), (16, 30), (4, 32)]
    if flipped_kind == "ML":
        ml.append((5, 20))  # different blobs: erroneous must-link
    else:
        cl.append((6, 7))  # same blob: erroneous cannot-link
    res = ccopt.impact_scores(X, 3, ml=ml, cl=cl, criterion=criterion, random_state=0,
                              progress=False, labels_true=y, max_iter=300)
    flipped = len(ml) - 1 if flipped_kind == "ML" else len(ml) + len(cl) - 1
    assert res.scores[flipped] < 0
    others = np.delete(res.scores, flipped)
    np.testing.assert_array_equal(others, 0.0)
    assert res.predicted_erroneous.sum() == 1 and res.predicted_erroneous[flipped]
    assert res.detection.f1 == 1.0


def test_weights_and_hard_flags_are_named_as_unused_and_change_no_score():
    # They were accepted and ignored without a word, so a user could believe a weight of 5
    # made a must-link count more in the score.
    X, _y = _separated_blobs()
    plain = Constraints.from_pairs(ml=[(0, 1), (5, 20)], cl=[(6, 7)], n_samples=len(X))
    marked = Constraints.from_pairs(ml=[(0, 1), (5, 20)], cl=[(6, 7)], n_samples=len(X),
                                    ml_weights=[5.0, 1.0], cl_weights=[0.5], ml_hard=[True, False])
    kwargs = dict(criterion="mssc", random_state=0, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ccopt.CcoptWarning)
        expected = ccopt.impact_scores(X, 3, constraints=plain, **kwargs).scores
    with pytest.warns(ccopt.CcoptWarning, match=r"does not use per-constraint weights or hard flags "
                      r"\(2 with a weight other than 1 and 1 marked hard of 3 constraints\)") as caught:
        scores = ccopt.impact_scores(X, 3, constraints=marked, **kwargs).scores
    assert caught[0].filename == __file__
    np.testing.assert_array_equal(scores, expected)


def test_ctrl_c_in_the_preparatory_kmeans_stops_the_scoring(monkeypatch):
    # KMeans keeps its best run on Ctrl-C and returns it, so the interrupt was spent there and
    # the scoring went on as if nothing had been pressed.
    import ccopt.cluster._kmeans as kmeans_module

    lloyd, calls = kmeans_module._lloyd, []

    def interrupted_second_run(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return lloyd(*args, **kwargs)

    monkeypatch.setattr(kmeans_module, "_lloyd", interrupted_second_run)
    X, _y = _separated_blobs()
    with pytest.raises(KeyboardInterrupt):
        ccopt.impact_scores(X, 3, ml=[(0, 1)], cl=[(0, 15)], criterion="mssc", random_state=0, progress=False)


@pytest.mark.parametrize("criterion", ["kmedoids", "mssc"])
def test_ctrl_c_in_the_cop_kmeans_start_stops_the_scoring(monkeypatch, criterion):
    # COP-kmeans' restarts kept their best run on Ctrl-C and the start was taken from it, so
    # the scoring ran on to its iteration limit as if nothing had been pressed.
    import ccopt.cluster._cop_kmeans as cop_module

    greedy_pass, calls = cop_module._greedy_pass, []

    def interrupted_later_pass(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # after the first restart's passes: a best run exists
            raise KeyboardInterrupt
        return greedy_pass(*args, **kwargs)

    monkeypatch.setattr(cop_module, "_greedy_pass", interrupted_later_pass)
    X, _y = _separated_blobs()
    with pytest.raises(KeyboardInterrupt):
        ccopt.impact_scores(X, 3, ml=[(0, 1)], cl=[(0, 15)], criterion=criterion, random_state=0,
                            progress=False)
    assert len(calls) == 3


def test_scores_are_aligned_with_ml_then_cl_and_with_duplicate_rows():
    X, y = _separated_blobs()
    with pytest.warns(ccopt.DuplicateConstraintWarning, match="row 0 = row 3"):
        cons = Constraints([(0, 1), (5, 20), (6, 7), (1, 0)], ["ML", "ML", "CL", "ML"], n_samples=len(X))
    res = ccopt.impact_scores(X, 3, constraints=cons, criterion="mssc", random_state=0, progress=False,
                              labels_true=y)
    assert res.scores.shape == (4,)
    assert res.scores[0] == res.scores[3]  # the duplicate row carries its merged constraint's score
    assert res.scores[1] < 0 and res.scores[2] < 0  # both erroneous
    assert list(res.kinds) == ["ML", "ML", "CL", "ML"]
    np.testing.assert_array_equal(res.pairs, [[0, 1], [5, 20], [6, 7], [1, 0]])  # each row as given
    assert res.set_score == res.scores[:3].sum()  # the reported scores, the merged duplicate once


def test_same_seed_same_result():
    X, _y = _separated_blobs(seed=3)
    kw = dict(ml=[(0, 20), (1, 2)], cl=[(3, 4), (0, 30)], criterion="mssc", progress=False, max_iter=50)
    a = ccopt.impact_scores(X, 3, random_state=5, **kw)
    b = ccopt.impact_scores(X, 3, random_state=5, **kw)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.labels, b.labels)


def test_time_limit_returns_the_best_so_far_with_status_time_limit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    res = ccopt.impact_scores(X, 4, ml=[(0, 1), (2, 3)], cl=[(4, 5), (0, 2)], criterion="mssc",
                              max_iter=10**7, time_limit=0.5, stagnation_iter=None, gap_tol=0.0,
                              progress=False, random_state=0)
    assert res.status == Status.TIME_LIMIT
    assert res.seconds < 5.0  # generous margin on a loaded machine
    assert np.all(res.scores <= 0)


def test_a_limit_spent_on_the_distance_matrix_stops_it_and_returns_no_scores(monkeypatch):
    import scipy.spatial.distance

    blocks = []
    cdist_ = scipy.spatial.distance.cdist

    def slow_cdist(XA, XB, *args, **kwargs):
        blocks.append(len(XA))
        time.sleep(0.3)
        return cdist_(XA, XB, *args, **kwargs)

    monkeypatch.setattr(scipy.spatial.distance, "cdist", slow_cdist)
    X = _points(3000)  # three blocks of rows
    with pytest.warns(ccopt.ConvergenceWarning, match="status time_limit after 0 iteration"):
        res = ccopt.impact_scores(X, 3, ml=[(0, 1)], cl=[(2, 3)], criterion="kmedoids", time_limit=0.2,
                                  random_state=0, progress=False)
    assert len(blocks) == 1  # stopped at the next block, not after the matrix and an iteration
    assert res.status == Status.TIME_LIMIT and res.n_iter == 0 and not res.scored
    assert res.labels is None and res.lower_bound == -np.inf and res.upper_bound == np.inf
    np.testing.assert_array_equal(res.scores, [0.0, 0.0])


def test_a_limit_spent_before_the_first_iteration_returns_the_feasible_start(monkeypatch):
    start = ccopt.lagrange.api._feasible_start

    def slow_start(*args, **kwargs):
        found = start(*args, **kwargs)
        time.sleep(0.4)
        return found

    monkeypatch.setattr(ccopt.lagrange.api, "_feasible_start", slow_start)
    oracle_calls = []
    monkeypatch.setattr(ccopt.lagrange.api.MSSCLloydOracle, "solve", lambda *a: oracle_calls.append(a))
    cons = Constraints.from_pairs([(0, 1)], [(2, 3)], n_samples=60)
    with pytest.warns(ccopt.ConvergenceWarning, match="status time_limit after 0 iteration"):
        res = ccopt.impact_scores(_points(60), 3, constraints=cons, criterion="mssc", time_limit=0.3,
                                  random_state=0, progress=False)
    assert not oracle_calls
    assert res.status == Status.TIME_LIMIT and res.n_iter == 0 and len(res.history) == 0
    assert cons.violations(res.labels).total == 0 and np.unique(res.labels).size == 3
    assert res.upper_bound == pytest.approx(wcss(_points(60), res.labels))
    assert res.lower_bound == -np.inf


def test_repairs_in_the_loop_stay_within_the_overall_time_limit(monkeypatch):
    limits = []
    original = ccopt.lagrange.api.Repairer.__call__

    def spy(self, labels, cost, rng, *, deadline=None, **kwargs):
        limits.append(np.inf if deadline is None or deadline.time_limit is None else deadline.time_limit)
        return original(self, labels, cost, rng, deadline=deadline, **kwargs)

    monkeypatch.setattr(ccopt.lagrange.api.Repairer, "__call__", spy)
    ccopt.impact_scores(_points(60), 3, ml=[(0, 1)], cl=[(2, 3)], time_limit=0.3, repair_time_limit=5.0,
                        max_iter=3, random_state=0, progress=False)
    assert limits and max(limits) <= 0.3


def test_average_scores_come_from_the_tail_of_the_run():
    X, _y = _separated_blobs()
    res = ccopt.impact_scores(X, 3, ml=[(5, 20)], cl=[(6, 7)], criterion="mssc", score_from="average",
                              random_state=0, progress=False, max_iter=64, stagnation_iter=None, gap_tol=0.0)
    assert res.score_from == "average"
    assert np.all(res.scores < 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"criterion": "ward"}, "Unknown criterion 'ward'"),
        ({"criterion": "mssc", "method": "lp"}, "Unknown method 'lp' for criterion='mssc'"),
        ({"epsilon": 1.0}, "epsilon must lie strictly between 0 and 1"),
        ({"tau": -0.1}, "tau must lie in"),
        ({"score_from": "last"}, "Unknown score_from 'last'"),
        ({"max_iter": 0}, "max_iter must be >= 1"),
        ({"labels_true": [0, 1]}, "labels_true has 2 entries, expected 45"),
        # It was named "labels", as the constraints' check calls it.
        ({"labels_true": [np.nan] + [0] * 44}, "labels_true contains a non-finite value at position 0"),
    ],
)
def test_bad_parameters_raise_clear_errors(kwargs, message):
    X, _ = _separated_blobs()
    with pytest.raises(InvalidParameterError, match=message):
        ccopt.impact_scores(X, 3, ml=[(0, 1)], progress=False, **kwargs)


def test_kmedoids_refuses_a_distance_matrix_over_the_memory_bound():
    X, _ = _separated_blobs()
    with ccopt.config_context(max_dense_bytes=1000), pytest.raises(MemoryBudgetError, match="k-medoids distance matrix"):
        ccopt.impact_scores(X, 3, ml=[(0, 1)], criterion="kmedoids", progress=False)


def test_infeasible_constraints_are_reported_before_any_solve():
    X, _ = _separated_blobs()
    with pytest.raises(ccopt.InfeasibleConstraintsError, match="chain 0 - 1 - 2"):
        ccopt.impact_scores(X, 3, ml=[(0, 1), (1, 2)], cl=[(0, 2)], progress=False)


def test_result_table_and_csv(tmp_path):
    X, y = _separated_blobs()
    res = ccopt.impact_scores(X, 3, ml=[(0, 1), (5, 20)], cl=[(0, 15)], criterion="mssc", random_state=0,
                              progress=False, labels_true=y)
    text = res.table()
    assert text.splitlines()[2].split()[1:4] == ["5", "20", "ML"]  # the most suspicious first
    path = tmp_path / "scores.csv"
    res.to_csv(path)
    rows = path.read_text().splitlines()
    assert rows[0] == "i,j,kind,score,normalized_score,predicted_erroneous,erroneous"
    assert len(rows) == 4
    assert "F1" in res.summary()


def test_the_set_score_adds_up_the_reported_scores_not_the_multipliers():
    X, _ = _separated_blobs()
    with pytest.warns(ccopt.DuplicateConstraintWarning, match=r"1 duplicate constraint row\(s\) merged: row 0 = row 3"):
        cons = Constraints([(0, 1), (5, 20), (6, 7), (1, 0)], ["ML", "ML", "CL", "ML"], n_samples=len(X))
    res = ccopt.impact_scores(X, 3, constraints=cons, criterion="mssc", random_state=0, progress=False)
    assert res.set_score < 0
    # With other multipliers beside them the reported scores still make the set score.
    other = dataclasses.replace(res, multipliers=Multipliers.zeros(cons.n_cl, cons.n_ml, 3))
    assert other.set_score == res.set_score == res.scores[[0, 1, 2]].sum()


# ----------------------------------------------------------------------------- infeasible sets and degenerate data


def _points(n=12, seed=0):
    return np.random.default_rng(seed).normal(size=(n, 2))


@pytest.mark.parametrize(("X", "k", "ml", "cl"), [
    ([[0.801, -0.021], [1.505, -3.98], [3.323, 0.281], [-3.512, -4.075], [-3.92, -2.153], [3.557, 2.684]],
     3, [], [(2, 1)]),
    ([[-3.332, -2.786], [-2.766, -0.297], [1.156, 1.3], [0.86, -2.772], [-1.033, 0.589], [-0.819, -3.525]],
     2, [(4, 2), (2, 4)], []),
])
def test_voronoi_stops_converged_when_its_first_value_is_the_enumerated_optimum(X, k, ml, cl):
    # The default route on these instances ran 300 iterations and reported lower bound -inf.
    X = np.array(X)
    d = cdist(X, X)
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), len(X), k, ml, cl)
    # The second instance gives its must-link twice, the second time reversed: merged, and said so.
    repeated = len({frozenset(pair) for pair in ml}) < len(ml)
    with (pytest.warns(ccopt.DuplicateConstraintWarning, match=r"1 duplicate constraint row\(s\) merged: ml\[0\] = ml\[1\]")
          if repeated else nullcontext()):
        res = ccopt.impact_scores(X, k, ml=ml or None, cl=cl or None, random_state=0, progress=False)
    assert res.status == "converged"  # the optimum, but the heuristic route cannot prove it
    assert res.lower_bound == pytest.approx(optimum, rel=1e-12)
    assert res.upper_bound == pytest.approx(optimum, rel=1e-12)
    assert np.all(res.scores == 0)  # zero multipliers already close the gap


@pytest.mark.parametrize(("criterion", "method"), ROUTES)
def test_a_constraint_set_without_a_feasible_clustering_is_a_clear_error(criterion, method):
    # The clique test cannot see an odd cycle; before, the run went on with an infinite
    # upper bound and NaN multipliers (scores silently 0, or "eta contains NaN"). With two
    # clusters check_feasibility now names the cycle itself, before any search.
    with pytest.raises(InfeasibleConstraintsError, match=r"form a cycle of 5 cannot-links") as caught:
        ccopt.impact_scores(_points(), 2, cl=FIVE_CYCLE, criterion=criterion, method=method,
                            max_iter=5, random_state=0, progress=False)
    assert sorted(caught.value.certificate) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("criterion", "method"), [("kmedoids", "voronoi"), ("mssc", "kmeans")])
def test_coincident_points_still_give_a_k_partition(criterion, method):
    # COP-kmeans leaves a cluster empty when two points coincide; the start was taken as is.
    X = np.array([[5.33, -7.66], [5.33, -7.66], [4.06, 1.96], [4.49, 0.87], [1.65, 0.54]])
    res = ccopt.impact_scores(X, 3, ml=[(2, 3), (2, 4)], cl=[(0, 2), (0, 4)], criterion=criterion,
                              method=method, max_iter=10, random_state=6, progress=False)
    assert np.unique(res.labels).size == 3
    cost = kmedoids_cost(cdist(X, X), res.labels) if criterion == "kmedoids" else wcss(X, res.labels)
    assert res.upper_bound == pytest.approx(cost)


def test_fewer_distinct_points_than_k_keeps_k_clusters_in_the_voronoi_oracle():
    X = np.array([[0.0, 0], [0, 0], [0, 0], [5, 5], [5, 5], [5, 5], [9, 0]])
    # The routes handle the empty clusters of the unconstrained k-means start; its warning named
    # a KMeans fit the user never ran, so it is not passed on.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ccopt.ConvergenceWarning)
        res = ccopt.impact_scores(X, 4, ml=[(0, 3)], cl=[(1, 2)], max_iter=10, random_state=0, progress=False)
    assert res.multipliers.eta.shape == (1, 4)
    assert np.unique(res.labels).size == 4


@pytest.mark.parametrize(("X", "k", "ml", "cl", "criterion", "seed", "cost"), [
    ([[5.344, 0.734], [-2.871, 1.159], [-0.208, -2.318], [-5.829, 0.11], [0.876, -7.737]],
     3, [], [(0, 4), (0, 1)], "kmedoids", 14, "kmedoids"),
])
def test_a_heuristic_route_that_closes_its_gap_does_not_claim_optimality(X, k, ml, cl, criterion, seed, cost):
    # The voronoi route stopped as "optimal" (gap 0 %, has_solution_guarantee) with a labelling
    # 15 % above the enumerated optimum: its lower value, capped at the incumbent, is no bound.
    X = np.array(X)
    d = cdist(X, X)
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), len(X), k, ml, cl)
    res = ccopt.impact_scores(X, k, ml=ml or None, cl=cl or None, criterion=criterion,
                              random_state=seed, progress=False)
    assert res.upper_bound > optimum * 1.1  # the route missed the optimum here ...
    assert res.gap <= 1e-4  # ... and its heuristic value met the incumbent
    assert res.status == "converged" and not res.status.has_solution_guarantee
    assert not res.lower_is_bound


@given(tiny_instances())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_optimal_status_on_any_route_means_the_enumerated_optimum(instance):
    X, k, cons = instance
    ml, cl = cons.ml_pairs.tolist(), cons.cl_pairs.tolist()
    d = cdist(X, X)
    optimum, _ = constrained_optimum(lambda lab: kmedoids_cost(d, lab), len(X), k, ml, cl)
    if not np.isfinite(optimum):
        return
    for method in ("voronoi", "lagrangian"):
        with warnings.catch_warnings():
            # A run stopped before its first better bound scores nothing, and says so.
            warnings.filterwarnings("ignore", "The scores were not computed", ccopt.ConvergenceWarning)
            res = ccopt.impact_scores(X, k, constraints=cons, method=method, max_iter=200,
                                      random_state=0, progress=False)
        if res.status == "optimal":
            assert res.upper_bound == pytest.approx(optimum, rel=1e-3)
