"""Cannot-link clique rows over must-link components (ccopt.models._bh_cuts).

Validity is checked against every labelling of tiny instances; exactness of the strengthened
program against brute force (``bh_brute.py``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from ccopt import ClusteringProblem
from ccopt.exceptions import InvalidParameterError
from ccopt.models._bh_cuts import CliqueRowSeparator, _RoundMethod, neighbourhood_start, tighten
from ccopt.models._bh_rows import MatrixRows, ProgramPairs
from ccopt.models.bh_assignment import BHAssignmentProgram
from ccopt.solvers import HighsMatrixSolver, SolverOptions

from .bh_brute import brute_force, make_problem, random_instance


def pairs_of(n, ml=(), cl=(), hard_ml=(), hard_cl=()):
    def arr(p):
        return np.asarray(p, dtype=np.int64).reshape(-1, 2)
    return ProgramPairs(n, arr(cl), np.ones(len(cl)), arr(ml), np.ones(len(ml)), arr(hard_cl),
                        arr(hard_ml), None)


def columns_of(labels, k, pairs):
    """The program's columns for one labelling, with the smallest feasible slacks."""
    n = labels.size
    x = np.zeros((n, k))
    x[np.arange(n), labels] = 1.0
    y = (labels[pairs.soft_cl[:, 0]] == labels[pairs.soft_cl[:, 1]]).astype(float)
    z = (labels[pairs.soft_ml[:, 0]] != labels[pairs.soft_ml[:, 1]]).astype(float)
    return np.concatenate([x.reshape(-1), y, z])


def random_pairs(rng, n, n_pairs):
    chosen = rng.choice(n * (n - 1) // 2, size=min(n_pairs, n * (n - 1) // 2), replace=False)
    all_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    pairs = [all_pairs[c] for c in chosen]
    kinds = np.digitize(rng.random(len(pairs)), [0.4, 0.85, 0.92])  # ML, CL, hard ML, hard CL
    return tuple([p for p, kind in zip(pairs, kinds, strict=True) if kind == want] for want in range(4))


def test_rows_hold_for_every_labelling():
    rng = np.random.default_rng(0)
    n_rows_found = 0
    for _ in range(60):
        n, k = int(rng.integers(5, 8)), int(rng.integers(2, 4))
        ml, cl, hard_ml, hard_cl = random_pairs(rng, n, int(rng.integers(4, 12)))
        pairs = pairs_of(n, ml, cl, hard_ml, hard_cl)
        separator = CliqueRowSeparator(pairs, k, ranks=3)
        # Fractional points of the kind the LP returns: spread assignments, small slacks.
        x = rng.dirichlet(np.full(k, 0.7), size=n)
        slack = rng.uniform(0, 0.3, size=separator.n_cols - n * k) * (rng.random(separator.n_cols - n * k) < 0.5)
        rows = separator.separate(np.concatenate([x.reshape(-1), slack]))
        n_rows_found += rows.shape[0]
        if rows.shape[0] == 0:
            continue
        for labels in itertools.product(range(k), repeat=n):
            cols = columns_of(np.array(labels), k, pairs)
            if hard_ml and any(labels[a] != labels[b] for a, b in hard_ml):
                continue
            if hard_cl and any(labels[a] == labels[b] for a, b in hard_cl):
                continue
            assert (rows @ cols).max() <= 1.0 + 1e-9
    assert n_rows_found > 20  # the check above is not vacuous


def test_evenly_split_components_are_cut():
    # Three must-link pairs, pairwise cannot-linked, two clusters: every object half in each
    # cluster satisfies (4) and (5) with zero slack; three components cannot share two clusters.
    pairs = pairs_of(6, ml=[(0, 1), (2, 3), (4, 5)], cl=[(1, 2), (3, 4), (5, 0)])
    separator = CliqueRowSeparator(pairs, 2, ranks=1)
    point = np.concatenate([np.full(12, 0.5), np.zeros(6)])
    rows = separator.separate(point)
    assert rows.shape[0] == 2  # one per cluster
    assert (rows @ point).min() == pytest.approx(1.5)
    # Returned once: the same point yields nothing new, until the rows are forgotten (tighten
    # forgets the rows it drops from its LP while they are slack).
    assert separator.separate(point).shape[0] == 0
    separator.forget(rows[[1]])
    again = separator.separate(point)
    assert again.shape[0] == 1
    assert (again != rows[[1]]).nnz == 0


def test_cannot_links_inside_a_component_are_not_used():
    pairs = pairs_of(4, ml=[(0, 1), (1, 2), (2, 3)], cl=[(0, 3)])
    separator = CliqueRowSeparator(pairs, 2)
    assert not separator.useful
    assert separator.separate(np.full(separator.n_cols, 0.5)).shape[0] == 0


def three_groups_problem(seed=0, per_group=6):
    """Three must-link groups, pairwise cannot-linked, and two clusters: the plain LP puts
    every group half in each cluster and pays nothing; every labelling pays."""
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(loc=c, scale=0.4, size=(per_group, 2))
                        for c in ([0, 0], [3, 0], [0, 3])])
    groups = np.repeat(np.arange(3), per_group)
    ml, cl = [], []
    for i, j in itertools.combinations(range(X.shape[0]), 2):
        if rng.random() < 0.35:
            (ml if groups[i] == groups[j] else cl).append((i, j))
    return ClusteringProblem.create(X, 2, ml=ml, cl=cl), groups


def exact_plain_and_tightened(problem, centers, solver_options=None):
    """P's optimum, its plain LP bound, and :func:`tighten` on it."""
    program = BHAssignmentProgram(problem, centers=centers, decompose=False, cuts_after=None,
                                  mip_gap=0.0, solver_options=solver_options)
    exact = program.solve().objective
    rows = program._full_rows()
    plain = rows._solver.relaxation().solve().objective
    separator = CliqueRowSeparator(rows._pairs, problem.n_clusters)
    return exact, plain, tighten(rows._solver, separator, end=None)


def test_tighten_raises_the_lp_bound_and_stays_below_the_optimum():
    problem, _ = three_groups_problem()
    exact, plain, tightening = exact_plain_and_tightened(problem, np.array([[1.5, 0.0], [0.0, 3.0]]))
    assert tightening.rows.shape[0] > 0
    # Two clusters for three pairwise cannot-linked groups: the plain LP pays no violation.
    assert plain < exact - 5.0
    assert plain + 5.0 < tightening.bound <= exact + 1e-7


def test_tighten_finds_the_integral_optimum_of_consistent_groups():
    # Three groups, three clusters, one centre far from all: the plain LP puts every group
    # half in each of the two near clusters; the strengthened LP is integral at P's optimum.
    problem, _ = three_groups_problem(seed=4)
    problem = ClusteringProblem.create(problem.X, 3, problem.constraints)
    exact, plain, tightening = exact_plain_and_tightened(
        problem, np.array([[1.5, 0.0], [0.0, 1.5], [6.0, 6.0]]))
    assert plain < exact - 1e-3
    assert tightening.bound == pytest.approx(exact, rel=1e-7)
    assert tightening.solution is not None
    # The rows handed back are those the last LP holds, and tighten drops slack ones.
    assert tightening.rows.shape[0] > 0
    assert (tightening.rows @ tightening.solution) == pytest.approx(1.0, abs=1e-6)


def test_lp_rounds_try_both_methods_then_keep_the_quicker():
    # Which method re-solves a round faster depends on the program (_ROUND_METHODS).
    chooser = _RoundMethod(SolverOptions(time_limit=5.0))
    chosen = []
    for seconds in [1.0, 12.0, 4.0, 4.5, 3.9, 20.0, 30.0]:
        options = chooser.options()
        chosen.append(options.extra["solver"])
        assert options.time_limit == 5.0
        assert options.extra.get("run_crossover") == ("on" if chosen[-1] == "ipm" else None)
        chooser.record(seconds)
    # cold simplex; warm simplex 12 s; ipm 4 s; ipm while it stays quicker than 12 s; after
    # an ipm round of 20 s the simplex again (12 s), then 30 s: back to ipm (20 s).
    assert chosen == ["simplex", "simplex", "ipm", "ipm", "ipm", "ipm", "simplex"]
    assert chooser.options().extra["solver"] == "ipm"


def test_lp_rounds_keep_the_users_own_method(monkeypatch):
    problem, _ = three_groups_problem()
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]), decompose=False,
                                  cuts_after=None, mip_gap=0.0, solver_options={"solver": "simplex"})
    exact = program.solve().objective
    rows = program._full_rows()
    seen = []
    solve = HighsMatrixSolver.solve

    def spy(self, **kwargs):
        if not self.is_mip:
            seen.append(dict(self.options.extra))
        return solve(self, **kwargs)

    monkeypatch.setattr(HighsMatrixSolver, "solve", spy)
    tightening = tighten(rows._solver, CliqueRowSeparator(rows._pairs, problem.n_clusters), end=None)
    assert tightening.rounds >= 2 and seen == [{"solver": "simplex"}] * tightening.rounds
    assert tightening.bound <= exact + 1e-7


@pytest.mark.parametrize("extra", [{}, {"solver": "simplex"}, {"solver": "ipm"}])
@pytest.mark.parametrize("centers", [np.array([[1.5, 0.0], [0.0, 3.0]]), np.array([[0.0, 0.0], [3.0, 0.0]])])
def test_lp_rounds_bound_the_optimum_whichever_method(centers, extra):
    # The method changes the time and may change the vertex (so the rows found), never validity.
    problem, _ = three_groups_problem()
    exact, plain, tightening = exact_plain_and_tightened(problem, centers, extra)
    assert plain - 1e-7 <= tightening.bound <= exact + 1e-7
    if tightening.solution is not None:
        assert tightening.bound == pytest.approx(exact, rel=1e-7)


@pytest.mark.parametrize("flags", [{"decompose": False}, {"max_labellings": 1}])
def test_strengthened_program_keeps_the_optimum(flags):
    problem, _ = three_groups_problem(seed=1)
    rng = np.random.default_rng(3)
    for _ in range(4):
        centers = rng.normal(loc=1.5, scale=1.5, size=(2, 2))
        plain = BHAssignmentProgram(problem, centers=centers, cuts_after=None, mip_gap=0.0, **flags)
        cut = BHAssignmentProgram(problem, centers=centers, cuts_after=0.0, mip_gap=0.0, **flags)
        a, b = plain.solve(), cut.solve()
        assert b.objective == pytest.approx(a.objective, rel=1e-9)
        assert any("cuts" in s.timing for s in b.solves)


@pytest.mark.parametrize("seed", range(24))
def test_optimum_with_rows_equals_enumeration(seed):
    X, centers, k, rows, penalty, min_size, max_size = random_instance(
        500 + seed, n=7, k=3, max_rows=14, hard_prob=0.1, sizes=seed % 4 == 0)
    costs, _ = brute_force(X, centers, k, rows, penalty, min_size, max_size)
    if not np.isfinite(costs.min()):
        return
    problem = make_problem(X, k, rows, min_size, max_size)
    program = BHAssignmentProgram(problem, penalty=penalty, centers=centers, mip_gap=0.0,
                                  cuts_after=0.0, decompose=False)
    assert program.solve().objective == pytest.approx(costs.min(), rel=1e-7, abs=1e-7)


def test_rows_are_reused_by_later_solves():
    problem, _ = three_groups_problem(seed=2)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=0.0)
    program.solve()
    n_rows = program._full_rows()._solver.n_rows
    plain_rows = MatrixRows(program.plan, program.plan.constrained_units, program._n_slots,
                            nonempty=True, penalty=1.0, name="P", options=SolverOptions())._solver.n_rows
    assert n_rows > plain_rows
    program.set_centers(np.array([[0.0, 0.0], [3.0, 0.0]]))
    brute = BHAssignmentProgram(problem, centers=np.array([[0.0, 0.0], [3.0, 0.0]]),
                                decompose=False, cuts_after=None, mip_gap=0.0).solve()
    assert program.solve().objective == pytest.approx(brute.objective, rel=1e-7)


def test_negative_cuts_after_is_rejected():
    problem, _ = three_groups_problem()
    with pytest.raises(InvalidParameterError, match="cuts_after"):
        BHAssignmentProgram(problem, cuts_after=-1.0)


def test_a_solve_stopped_after_cuts_after_is_strengthened_and_finished(monkeypatch):
    # The first MIP solve is reported as stopped by the cuts_after limit (as on the dense
    # sets); the program then gets its rows and the answer is still P's optimum.
    from ccopt.models import _bh_cuts
    from ccopt.solvers import HighsMatrixSolver, SolveResult
    from ccopt.status import Status

    real_solve = HighsMatrixSolver.solve
    calls = []

    def first_stopped(self, **kwargs):
        result = real_solve(self, **kwargs)
        calls.append((self.is_mip, kwargs.get("time_limit")))
        if self.is_mip and len([c for c in calls if c[0]]) == 1:
            return SolveResult(Status.TIME_LIMIT, result.objective, None, result.wall_time,
                               result.solver, "kTimeLimit", result.has_solution)
        return result

    monkeypatch.setattr(HighsMatrixSolver, "solve", first_stopped)
    monkeypatch.setattr(_bh_cuts, "_NEIGHBOURHOOD_FRACTIONAL_SHARE", 1.0)  # a tiny program
    problem, _ = three_groups_problem(seed=5)
    centers = np.array([[1.5, 0.0], [0.0, 3.0]])
    program = BHAssignmentProgram(problem, centers=centers, decompose=False, cuts_after=5.0,
                                  mip_gap=0.0)
    result = program.solve(time_limit=60.0)
    (solve,) = result.solves
    assert solve.status.value == "optimal"
    assert set(solve.timing) >= {"probe", "cuts", "neighbourhood"}  # the LP stays fractional
    assert calls[0] == (True, 5.0)  # the probe had cuts_after seconds
    assert any(not is_mip for is_mip, _ in calls)  # LP rounds ran
    monkeypatch.setattr(HighsMatrixSolver, "solve", real_solve)
    plain = BHAssignmentProgram(problem, centers=centers, decompose=False, cuts_after=None,
                                mip_gap=0.0).solve()
    assert result.objective == pytest.approx(plain.objective, rel=1e-9)


def test_probing_stops_once_the_lp_violates_no_clique_row(monkeypatch):
    # HiGHS restarts a stopped MIP, so each probe costs its seconds: once the first LP round
    # finds no row (as on letter), later solves of the program are not stopped any more.
    from ccopt.models import _bh_cuts
    from ccopt.solvers import HighsMatrixSolver, SolveResult
    from ccopt.status import Status

    real_solve = HighsMatrixSolver.solve
    mip_limits = []

    def mip_always_stopped_at_probe(self, **kwargs):
        result = real_solve(self, **kwargs)
        if self.is_mip:
            mip_limits.append(kwargs.get("time_limit"))
            if kwargs.get("time_limit") == 5.0:
                return SolveResult(Status.TIME_LIMIT, result.objective, None, result.wall_time,
                                   result.solver, "kTimeLimit", result.has_solution)
        return result

    def no_row_found(mip, separator, *, end, max_rounds=30):
        return _bh_cuts.Tightening(sp.csr_array((0, separator.n_cols)), bound=0.0, point=None,
                                   rounds=1, seconds=0.0)

    monkeypatch.setattr(HighsMatrixSolver, "solve", mip_always_stopped_at_probe)
    monkeypatch.setattr(_bh_cuts, "tighten", no_row_found)
    problem, _ = three_groups_problem(seed=5)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=5.0, mip_gap=0.0)
    first = program.solve(time_limit=60.0)
    program.set_centers(np.array([[1.0, 0.5], [0.5, 2.5]]))
    second = program.solve(time_limit=60.0)
    assert mip_limits[0] == 5.0 and 5.0 not in mip_limits[1:]
    assert first.solves[0].status.value == second.solves[0].status.value == "optimal"
    assert "probe" in first.solves[0].timing and "probe" not in second.solves[0].timing


def fractional_tightened_program(seed=0):
    """A program whose LP stays fractional after :func:`tighten` (rows added to the MIP)."""
    problem, _ = three_groups_problem(seed=seed)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=None, mip_gap=0.0)
    exact = program.solve().objective
    rows = program._full_rows()
    tightening = tighten(rows._solver, CliqueRowSeparator(rows._pairs, problem.n_clusters), end=None)
    rows._solver.add_rows(tightening.rows, -np.inf, 1.0)
    return program, rows, tightening, exact


def test_neighbourhood_start_fixes_the_integral_rows_and_restores_the_bounds(monkeypatch):
    from ccopt.models import _bh_cuts

    program, rows, tightening, exact = fractional_tightened_program()
    # Tiny programs have few rows, so their fractional share is large: allow any share.
    monkeypatch.setattr(_bh_cuts, "_NEIGHBOURHOOD_FRACTIONAL_SHARE", 1.0)
    mip, k, n = rows._solver, program.plan.n_clusters, rows._pairs.n_rows
    x = tightening.point[: n * k].reshape(n, k)
    fractional = (np.abs(x - np.round(x)) > 1e-6).any(axis=1)
    assert tightening.solution is None and fractional.any()  # the case the start is for
    # Forbid one empty cluster of every integral row: the start must keep those columns at 0.
    forbidden = np.zeros((n, k), dtype=bool)
    forbidden[np.arange(n), np.argmin(x, axis=1)] = ~fractional
    rows.forbid(forbidden)
    before = mip.col_bounds(np.arange(mip.n_cols))
    result, start = neighbourhood_start(mip, rows._pairs, k, tightening.point, time_limit=30.0)
    # A point fractional in more rows than the share allows is not nearly integral: no MIP.
    monkeypatch.setattr(_bh_cuts, "_NEIGHBOURHOOD_FRACTIONAL_SHARE", 0.9 * fractional.mean())
    assert neighbourhood_start(mip, rows._pairs, k, tightening.point, time_limit=30.0) is None
    monkeypatch.setattr(_bh_cuts, "_NEIGHBOURHOOD_FRACTIONAL_SHARE", 1.0)
    after = mip.col_bounds(np.arange(mip.n_cols))
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
    assert start is not None
    labels = np.argmax(start[: n * k].reshape(n, k), axis=1)
    # Rows that are integral in the point and joined to no fractional row keep its cluster.
    ends = np.concatenate([rows._pairs.soft_ml, rows._pairs.soft_cl]).reshape(-1, 2)
    near = fractional.copy()
    near[ends[fractional[ends[:, 0]], 1]] = near[ends[fractional[ends[:, 1]], 0]] = True
    fixed = ~near if near.sum() <= 0.5 * n else ~fractional
    np.testing.assert_array_equal(labels[fixed], np.argmax(x[fixed], axis=1))
    # A solution of P (with its clique rows and bounds), not better than P's optimum.
    activity = mip._A @ start
    assert np.all(activity >= mip._row_lower - 1e-7) and np.all(activity <= mip._row_upper + 1e-7)
    assert np.all(start >= before[0] - 1e-9) and np.all(start <= before[1] + 1e-9)
    assert result.objective == pytest.approx(mip._cost @ start + mip._offset, rel=1e-9)
    assert result.objective >= exact - 1e-7


def test_ctrl_c_in_the_neighbourhood_start_interrupts_the_solve(monkeypatch):
    from ccopt.models import _bh_cuts
    from ccopt.solvers import SolveResult
    from ccopt.status import Status

    def interrupted(mip, pairs, n_clusters, point, *, time_limit):
        return SolveResult(Status.INTERRUPTED, None, None, 0.1, "highs_matrix", "kInterrupt", False), None

    monkeypatch.setattr(_bh_cuts, "neighbourhood_start", interrupted)
    problem, _ = three_groups_problem(seed=0)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=0.0)
    with pytest.raises(KeyboardInterrupt):  # passed on, as when HiGHS is stopped by Ctrl-C
        program.solve(time_limit=60.0)


@pytest.mark.parametrize(("time_limit", "expected"), [(None, 30.0), (60.0, 6.0)])
def test_neighbourhood_time_is_a_share_of_the_time_left_up_to_its_cap(monkeypatch, time_limit, expected):
    from ccopt.models import _bh_cuts

    limits = []

    def record(mip, pairs, n_clusters, point, *, time_limit):
        limits.append(time_limit)
        return None

    monkeypatch.setattr(_bh_cuts, "neighbourhood_start", record)
    problem, _ = three_groups_problem(seed=0)
    program = BHAssignmentProgram(problem, centers=np.array([[1.5, 0.0], [0.0, 3.0]]),
                                  decompose=False, cuts_after=0.0, mip_gap=0.0)
    program.solve(time_limit=time_limit)
    (limit,) = limits
    # Without a limit: the cap; with one: a tenth of what the LP rounds left (a little under 6 s).
    assert limit == pytest.approx(expected, rel=0.05) and limit <= expected
