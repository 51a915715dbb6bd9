"""Why BH-kmeans' first assignment step runs into the per-solve limit with HiGHS (diagnostic).

In the BH-kmeans table (``bench_bh_kmeans.py``) 16 of the 300 runs spend almost all their time
in assignment MILPs stopped by the 200 s per-solve limit, mostly the first step, from the
k-means++ centres. This script rebuilds that first program P exactly as
``BHKMeans(random_state=seed)`` does (same constraint set, standardised features, same
k-means++ centres) and measures, for a few of those runs:

* the LP relaxation bound of P, and with *clique rows* added: for a set ``Q`` of units that
  are pairwise cannot-linked and every cluster ``j``,
  ``sum_{i in Q} x_ij - sum_{pairs in Q} y_pair <= 1`` (valid: ``t`` members of ``Q`` in ``j``
  violate at least ``t - 1`` of its pairs). ``Q`` runs over a greedy clique cover of the
  cannot-link graph;
* the assignment that BH-kmeans falls back on after a time-limited solve
  (:meth:`BHAssignmentProgram._polish` without an incumbent: the nearest-centre assignment
  and the greedy placement of must-link components, each improved by local search);
* HiGHS on P for ``--seconds``: cold, warm-started from that assignment (APPSI's
  ``warmstart=True``, i.e. HiGHS ``setSolution``), and warm-started with the clique rows;
  the bound and incumbent it reaches and whether it proves optimality.

Writes ``<out-dir>/bh_first_step.csv`` and ``benchmarks/reports/bh_first_step.md``. Run
``python benchmarks/bench_bh_first_step.py`` (about 25 minutes on 2 cores at the default 100 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pyomo.environ as pyo

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._reports import (
    append_row,
    command_line,
    machine,
    read_rows,
    require_results,
    save_report,
)
from benchmarks.bench_bh_kmeans import constraint_sets, load_standardised
from ccopt._validation import check_random_state
from ccopt.cluster._init_centers import kmeanspp
from ccopt.models.bh_assignment import BHAssignmentProgram
from ccopt.problem import ClusteringProblem
from ccopt.solvers import solve

HERE = Path(__file__).resolve().parent
REPORT = HERE / "reports" / "bh_first_step.md"
# (folder, CS size, seed): the longest time-limited runs of the BH table.
INSTANCES = (("vehicle", 20, 0), ("movement_libras", 20, 2), ("led7digit", 20, 0))
FIELDS = ["dataset", "size", "seed", "n_rows", "n_cl", "n_ml", "n_cliques", "lp_bound",
          "lp_bound_cliques", "lp_seconds", "lp_seconds_cliques", "heuristic", "heuristic_violations",
          "variant", "status", "bound", "incumbent", "seconds"]
VARIANTS = ("cold", "warm", "warm+cliques")


def first_program(folder: str, size: int, seed: int) -> BHAssignmentProgram:
    """P for the k-means++ centres of ``BHKMeans(random_state=seed)`` on one table instance."""
    X, _, k = load_standardised(folder)
    sets, _ = constraint_sets(folder, [size])
    problem = ClusteringProblem.create(X, k, sets[size])
    centers = kmeanspp(problem.X, k, check_random_state(seed))
    return BHAssignmentProgram(problem, centers=centers, decompose=False)


def clique_cover(pairs: np.ndarray) -> list[list[int]]:
    """Greedy cover of the graph's edges by cliques (each edge grown into a maximal clique)."""
    neighbours: dict[int, set[int]] = {}
    for a, b in pairs.tolist():
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    covered: set[tuple[int, int]] = set()
    cliques = []
    for a, b in pairs.tolist():
        if (min(a, b), max(a, b)) in covered:
            continue
        clique, candidates = [a, b], neighbours[a] & neighbours[b]
        while candidates:
            # Prefer the vertex that covers the most new edges.
            v = max(candidates, key=lambda v: sum((min(v, u), max(v, u)) not in covered for u in clique))
            clique.append(v)
            candidates &= neighbours[v]
        covered.update((min(u, v), max(u, v)) for i, u in enumerate(clique) for v in clique[i + 1:])
        cliques.append(clique)
    return cliques


def add_clique_rows(model: pyo.ConcreteModel, cl_rows: np.ndarray) -> int:
    """Add the clique rows of the module docstring to P; returns the number of cliques."""
    cliques = clique_cover(cl_rows)
    index = {(min(a, b), max(a, b)): c for c, (a, b) in enumerate(cl_rows.tolist())}
    model.Q = pyo.RangeSet(0, len(cliques) - 1)

    def row(m, q, j):
        members = cliques[q]
        slack = [m.y[index[(min(u, v), max(u, v))]] for i, u in enumerate(members) for v in members[i + 1:]]
        return sum(m.x[u, j] for u in members) - sum(slack) <= 1

    model.clique = pyo.Constraint(model.Q, model.K, rule=row)
    return len(cliques)


def set_start(model, row_labels: np.ndarray, cl_rows: np.ndarray, ml_rows: np.ndarray) -> None:
    """Write an assignment (one cluster per program row) and its slacks into the variables."""
    for r, label in enumerate(row_labels.tolist()):
        for j in model.K:
            model.x[r, j].value = float(label == j)
    for c, (a, b) in enumerate(cl_rows.tolist()):
        model.y[c].value = float(row_labels[a] == row_labels[b])
    for c, (a, b) in enumerate(ml_rows.tolist()):
        model.z[c].value = float(row_labels[a] != row_labels[b])


def lp_bound(model) -> tuple[float, float]:
    """Optimum of P's LP relaxation and the seconds HiGHS took."""
    relaxed = pyo.TransformationFactory("core.relax_integer_vars").create_using(model)
    result = solve(relaxed)
    return result.objective, result.wall_time


def full_program(program: BHAssignmentProgram):
    """P's Pyomo model for the current centres, its soft pairs as program rows, the row units."""
    plan = program.plan
    rows = program._full_rows()
    slot_units, _, _ = program._push_full()
    row_units = np.concatenate([plan.constrained_units, slot_units])
    row_of_unit = np.full(plan.n_units, -1, dtype=np.int64)
    row_of_unit[row_units] = np.arange(rows.n_rows)
    return rows.model, row_of_unit[plan.soft_cl], row_of_unit[plan.soft_ml], row_units


def run_instance(folder: str, size: int, seed: int, seconds: float) -> list[dict]:
    program = first_program(folder, size, seed)
    plan = program.plan
    model, cl_rows, ml_rows, row_units = full_program(program)

    heuristic_units = program._polish(None)
    heuristic = program._unit_objective(heuristic_units)
    labels = heuristic_units[plan.unit]
    n_violations = int(program.problem.constraints.violations(labels).total)
    start_labels = heuristic_units[row_units]

    common = {"dataset": folder, "size": size, "seed": seed, "n_rows": row_units.size,
              "n_cl": cl_rows.shape[0], "n_ml": ml_rows.shape[0], "heuristic": heuristic,
              "heuristic_violations": n_violations}
    common["lp_bound"], common["lp_seconds"] = lp_bound(model)
    records = []
    for variant in VARIANTS:
        if variant == "warm+cliques" and not hasattr(model, "clique"):
            common["n_cliques"] = add_clique_rows(model, cl_rows)
            common["lp_bound_cliques"], common["lp_seconds_cliques"] = lp_bound(model)
        warm = variant != "cold"
        if warm:
            set_start(model, start_labels, cl_rows, ml_rows)
        solver = pyo.SolverFactory("appsi_highs")
        started = time.perf_counter()
        # APPSI overwrites config.time_limit inside solve(): pass timelimit=.
        result = solver.solve(model, timelimit=seconds, load_solutions=False, warmstart=warm)
        records.append({"variant": variant, "status": str(result.solver.termination_condition),
                        "bound": result.problem.lower_bound, "incumbent": result.problem.upper_bound,
                        "seconds": time.perf_counter() - started})
    return [{**common, **record} for record in records]


def write_report(rows: list[dict], seconds: float, command: str) -> str:
    lines = [
        "# BH-kmeans: the first assignment step with HiGHS (diagnostic)",
        "",
        f"Command: `{command}`. Machine: {machine()}. MILP limit {seconds:g} s per variant (the table runs allow 200 s).",
        "",
        "P for the k-means++ centres of `BHKMeans(random_state=seed)` (the first step of the runs that "
        "hit the per-solve limit). *heuristic*: the assignment BH-kmeans falls back on after a "
        "time-limited solve (nearest-centre and greedy must-link-component starts, then local "
        "search over units and must-linked blocks). *clique rows*: valid inequalities over a greedy clique cover of the "
        "cannot-link graph (module docstring of `bench_bh_first_step.py`).",
        "",
        "| data set | CS | seed | rows / CL / ML | LP bound | LP bound, clique rows (cliques) | heuristic (violations) "
        "| HiGHS cold: bound / incumbent | warm: bound / incumbent | warm + cliques: bound / incumbent |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_instance: dict[tuple, dict] = {}
    for row in rows:
        by_instance.setdefault((row["dataset"], row["size"], row["seed"]), {})[row["variant"]] = row
    for (dataset, size, seed), variants in by_instance.items():
        first = next(iter(variants.values()))
        cells = []
        for variant in VARIANTS:
            v = variants.get(variant)
            cells.append("-" if v is None else
                         f"{float(v['bound']):,.1f} / {float(v['incumbent']):,.1f} ({v['status']}, {float(v['seconds']):.0f} s)")
        lines.append(
            f"| {dataset} | {size} | {seed} | {first['n_rows']} / {first['n_cl']} / {first['n_ml']} "
            f"| {float(first['lp_bound']):,.1f} ({float(first['lp_seconds']):.0f} s) "
            f"| {float(first['lp_bound_cliques']):,.1f} ({first['n_cliques']}, {float(first['lp_seconds_cliques']):.0f} s) "
            f"| {float(first['heuristic']):,.1f} ({first['heuristic_violations']}) | " + " | ".join(cells) + " |")
    lines += [""]
    text = "\n".join(lines)
    save_report(REPORT, text)
    return text


def parse_instances(text: str) -> list[tuple[str, int, int]]:
    """``folder:size:seed,...`` as tuples; a malformed item is an argparse error naming it."""
    instances = []
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            raise argparse.ArgumentTypeError(f"{item!r} is not folder:size:seed (e.g. vehicle:20:0)")
        instances.append((parts[0], int(parts[1]), int(parts[2])))
    return instances


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=100.0, help="MILP time limit per variant")
    parser.add_argument("--instances", type=parse_instances, default=None,
                        help="folder:size:seed,... (default: three from the BH table)")
    parser.add_argument("--out-dir", type=Path, default=HERE / "results")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    csv_path = args.out_dir / "bh_first_step.csv"
    instances = INSTANCES if args.instances is None else args.instances
    if not args.report_only:
        done = {(r["dataset"], int(r["size"]), int(r["seed"])) for r in read_rows(csv_path)}
        for folder, size, seed in instances:
            if (folder, size, seed) in done:
                continue
            for row in run_instance(folder, size, seed, args.seconds):
                append_row(csv_path, row, FIELDS)
                print(f"{folder:<16} CS{size} seed {seed} {row['variant']:<13} bound {row['bound']:.1f} "
                      f"incumbent {row['incumbent']:.1f} ({row['status']}, {row['seconds']:.0f} s)", flush=True)
    if args.report_only:
        require_results(read_rows(csv_path), csv_path)
    print(write_report(read_rows(csv_path), args.seconds, command_line("bench_bh_first_step.py", argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
