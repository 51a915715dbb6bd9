"""The files of the top-level models/ folder: the pyomo command solves and converts them."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.spatial.distance import cdist

from ccopt import ClusteringProblem
from ccopt.models import build_kmedoids_model
from ccopt.solvers import available_solvers, solve

from ._dat import TINY_DAT_FILE as TINY
from .brute import kmedoids_costs, labellings, satisfies

MODELS = Path(__file__).resolve().parents[2] / "models"
COMMAND_SOLVER = next(iter(available_solvers(("cbc", "glpk"))), None)
needs_command_solver = pytest.mark.skipif(
    COMMAND_SOLVER is None, reason="the pyomo command needs cbc or glpk (apt-get install coinor-cbc)")


def load(name: str):
    """Import a command file the way ``pyomo`` does (by path)."""
    spec = importlib.util.spec_from_file_location(f"ccopt_models_{name}", MODELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pyomo_command(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyomo.scripting.pyomo_main", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def tiny_instance():
    """tiny.dat as arrays, read through the abstract model."""
    instance = load("kmedoids").model.create_instance(str(TINY))
    X = np.array([[pyo.value(instance.X[i, f]) for f in instance.F] for i in instance.I])
    ml = [(instance.ml_u[c], instance.ml_v[c]) for c in instance.ML]
    cl = [(instance.cl_u[c], instance.cl_v[c]) for c in instance.CL]
    return instance, X, int(pyo.value(instance.k)), ml, cl


def test_convert_writes_an_mps_file_with_every_row(tmp_path):
    _, X, _, ml, cl = tiny_instance()
    done = pyomo_command("convert", "--output=kmedoids.mps", MODELS / "kmedoids.py", TINY, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (tmp_path / "kmedoids.mps").read_text()
    rows = text.split("\nROWS\n", 1)[1].split("\nCOLUMNS\n", 1)[0].splitlines()
    kinds = [line.split()[0] for line in rows]
    n = X.shape[0]
    # assignment n, link n^2 (n of them equalities), medoid count 1, pairwise n (n_cl + 2 n_ml)
    assert len([k for k in kinds if k != "N"]) == n + n * n + 1 + n * (len(cl) + 2 * len(ml))
    assert kinds.count("E") == n + n + 1
    assert text.count(" BV BOUND ") == n * n + n  # z and y are binary


@needs_command_solver
def test_solve_finds_the_enumerated_optimum(tmp_path, monkeypatch):
    # The command's own entry point, in this process (a second interpreter start-up with
    # Pyomo costs seconds; the convert test above runs the command as a subprocess).
    from pyomo.scripting.pyomo_main import main

    _, X, k, ml, cl = tiny_instance()
    monkeypatch.chdir(tmp_path)
    main(["solve", str(MODELS / "kmedoids.py"), str(TINY), f"--solver={COMMAND_SOLVER}",
          "--save-results", "out.json", "--json"])
    results = json.loads((tmp_path / "out.json").read_text())
    value = results["Solution"][1]["Objective"]["objective"]["Value"]
    L = labellings(X.shape[0], k)
    best = np.where(satisfies(L, ml, cl), kmedoids_costs(cdist(X, X), L, k), np.inf).min()
    assert value == pytest.approx(best, rel=1e-6)


def test_lagrangian_and_mssc_files_build_from_the_same_data():
    _, X, k, _, _ = tiny_instance()
    lagrangian = load("lagrangian").model.create_instance(str(TINY))
    assert lagrangian.component("cl_rows") is None and len(lagrangian.eta) == 2 * 8
    # All multipliers 0: the LP relaxation without pairwise rows.
    unconstrained = build_kmedoids_model(ClusteringProblem.create(X, k), pairwise="none", relax=True)
    assert solve(lagrangian).objective == pytest.approx(solve(unconstrained).objective)
    for name in ("mssc", "mssc_fractional"):
        mssc = load(name).model.create_instance(str(TINY))
        assert len(mssc.x) == 16 and len(mssc.cl_rows) == 4


@pytest.mark.slow
@needs_command_solver
def test_bh_assignment_file_solves_the_json_instance(tmp_path):
    done = pyomo_command("solve", MODELS / "bh_assignment.py", MODELS / "data" / "bh_tiny.json",
                         f"--solver={COMMAND_SOLVER}", "--save-results", "out.json", "--json",
                         cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((MODELS / "data" / "bh_tiny.json").read_text())
    from ccopt.models.bh_assignment import BHAssignmentProgram

    problem = ClusteringProblem.create(data["X"], data["n_clusters"], ml=data["ml"], cl=data["cl"],
                                       require_closure=False)
    expected = BHAssignmentProgram(problem, centers=data["centers"]).solve().objective
    value = json.loads((tmp_path / "out.json").read_text())["Solution"][1]["Objective"]
    assert next(iter(value.values()))["Value"] == pytest.approx(expected, rel=1e-6)
