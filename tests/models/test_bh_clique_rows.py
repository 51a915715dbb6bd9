"""The clique rows of benchmarks/bench_bh_first_step.py are valid for P (enumeration).

The diagnostic adds, for pairwise cannot-linked units ``Q`` and every cluster ``j``,
``sum_Q x_ij - sum_{pairs in Q} y <= 1``. Valid means: P's optimum is unchanged, which brute
force over every labelling of tiny instances checks; the LP bound may only rise.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyomo.environ as pyo
import pytest

from ccopt.models.bh_assignment import BHAssignmentProgram
from ccopt.solvers import solve

from .bh_brute import brute_force, make_problem


@pytest.fixture(scope="module")
def first_step(benchmark_script):
    return benchmark_script("bench_bh_first_step")


@pytest.mark.parametrize("seed", range(8))
def test_clique_cover_covers_every_edge_with_cliques(first_step, seed):
    rng = np.random.default_rng(seed)
    n = 12
    pairs = np.array([p for p in itertools.combinations(range(n), 2) if rng.random() < 0.5])
    edges = {tuple(p) for p in pairs.tolist()}
    cliques = first_step.clique_cover(pairs)
    covered = set()
    for clique in cliques:
        assert len(set(clique)) == len(clique)
        for u, v in itertools.combinations(sorted(clique), 2):
            assert (u, v) in edges
            covered.add((u, v))
    assert covered == edges


def _dense_cannot_link_instance(seed):
    rng = np.random.default_rng(seed)
    n, k = 7, int(rng.integers(2, 4))
    X = rng.normal(size=(n, 2))
    centers = rng.normal(scale=1.5, size=(k, 2))
    rows = []
    for i, j in itertools.combinations(range(n), 2):
        draw = rng.random()
        if draw < 0.45:
            rows.append((i, j, "CL", 1.0, False))
        elif draw < 0.55:
            rows.append((i, j, "ML", 1.0, False))
    penalty = float(rng.choice([0.05, 0.2, 1.0]))
    return X, centers, k, rows, penalty


def _objective(model, relax: bool) -> float:
    target = pyo.TransformationFactory("core.relax_integer_vars").create_using(model) if relax else model
    solve(target, "appsi_highs", mip_gap=0.0)
    return pyo.value(target.objective)


@pytest.mark.parametrize("seed", range(12))
def test_clique_rows_keep_the_optimum_and_never_lower_the_lp_bound(first_step, seed):
    X, centers, k, rows, penalty = _dense_cannot_link_instance(seed)
    costs, _ = brute_force(X, centers, k, rows, penalty)
    program = BHAssignmentProgram(make_problem(X, k, rows), penalty=penalty, centers=centers,
                                  decompose=False)
    model, cl_rows, _, _ = first_step.full_program(program)
    lp_before = _objective(model, relax=True)
    assert first_step.add_clique_rows(model, cl_rows) > 0
    assert _objective(model, relax=False) == pytest.approx(costs.min(), rel=1e-7, abs=1e-7)
    assert _objective(model, relax=True) >= lp_before - 1e-7


def test_clique_rows_cut_off_fractional_points(first_step):
    # k = 2, p = 1: a cannot-linked triangle cannot sit at x = 1/2 in both clusters for free.
    X, centers, k, rows, penalty = _dense_cannot_link_instance(9)
    program = BHAssignmentProgram(make_problem(X, k, rows), penalty=penalty, centers=centers,
                                  decompose=False)
    model, cl_rows, _, _ = first_step.full_program(program)
    lp_before = _objective(model, relax=True)
    first_step.add_clique_rows(model, cl_rows)
    assert _objective(model, relax=True) > lp_before + 1e-3
