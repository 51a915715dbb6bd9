"""How small can a certified dual gap be on the Table 3 rows? (k-medoids, exact optimum by HiGHS)

Issue 4 asks for a dual gap of at most 0.01 %, the paper's Table 3 figure. A gap certified
by a Lagrangian bound can never be smaller than the gap between the optimum ``Z`` of the
integer program and the best bound the Lagrangian dual can give, ``L_D``. For the paper's
k-medoids route (Sec. 4.1: the LP relaxation of (10) re-solved each iteration), ``L_D`` is
the optimum of the LP relaxation of (2)-(5) with the epsilon rows (3')(4')(4'')
(DESIGN.md; ``method="lp-dual"`` reads its duals in one solve). This script computes, on the
published p15/p20 sets of the six small Table 3 data sets:

* the LP relaxation of the k-medoids program without pairwise rows, with the epsilon rows
  (= ``L_D``), and with the exact rows (3)(4);
* the integer optimum ``Z`` with the exact rows (HiGHS, ``--ip-time-limit`` per row; when the
  limit stops it, the larger of its dual bound and the exact-row LP is used, which can only
  make the floor smaller);
* the floor ``(Z - L_D) / Z`` under any certified gap of that route, and where ccopt's
  default k-medoids route (``voronoi``, 0.1 x the paper's budget) lands: its best feasible
  value against ``Z`` and the gap it reports (a heuristic lower bound, not certified).

The paper's Table 3 gaps are for the MSSC route, whose lower bound (the k-means-like
assignment of Sec. 4.3) is heuristic too; a certified MSSC bound would need a global MSSC
solver and is not attempted. Writes ``<out>`` (CSV) and ``benchmarks/reports/impact_gap_floor.md``.
Run ``python benchmarks/bench_impact_gap_floor.py`` (about 10 minutes on 2 cores for the first
five data sets; Balance's integer programs, 625 objects, did not finish in 300 s).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._impact_common import PAPER_TABLE3, machine, markdown_table
from benchmarks._reports import append_row, command_line, read_rows, require_results, save_report

HERE = Path(__file__).resolve().parent
REPORT = HERE / "reports" / "impact_gap_floor.md"
DATASETS = ("iris", "wine", "glass", "ionosphere", "control", "balance")
SETS = ("p15", "p20")
FIELDS = ["dataset", "set", "n", "n_constraints", "lp_none", "lp_epsilon", "lp_exact", "ip_status",
          "ip_objective", "ip_bound", "ip_seconds", "floor", "ours_upper", "ours_gap", "ours_seconds"]


def gap_floor(ip_bound: float, lagrangian_bound: float) -> float:
    """Smallest certified gap ``(Z - L_D) / Z`` given a lower bound on ``Z`` (a valid floor: it grows with ``Z``).

    A lower bound of 0 or less (the solver stopped before its root bound) gives the trivial floor 0.
    """
    if not ip_bound > 0:
        return 0.0
    return max(0.0, (ip_bound - lagrangian_bound) / ip_bound)


def measure(name: str, set_name: str, ip_time_limit: float, seed: int) -> dict:
    import ccopt
    from ccopt.datasets import load_benchmark
    from ccopt.models.kmedoids import build_kmedoids_model
    from ccopt.problem import ClusteringProblem
    from ccopt.solvers import solve

    data = load_benchmark(name)
    X, k = np.asarray(data.X, dtype=float), int(data.n_clusters)
    cons = data.constraint_sets[set_name]
    problem = ClusteringProblem.create(X, k, cons)
    row = {"dataset": name, "set": set_name, "n": X.shape[0], "n_constraints": len(cons)}
    for key, pairwise in (("lp_none", "none"), ("lp_epsilon", "epsilon"), ("lp_exact", "exact")):
        row[key] = solve(build_kmedoids_model(problem, pairwise=pairwise, relax=True), "highs_matrix").objective
    ip = solve(build_kmedoids_model(problem, pairwise="exact"), "highs_matrix", time_limit=ip_time_limit)
    row.update(ip_status=str(ip.status), ip_objective=ip.objective, ip_bound=ip.bound, ip_seconds=ip.wall_time)
    # The LP with the exact rows relaxes the same integer program: Z is at least both bounds.
    row["floor"] = gap_floor(max(ip.bound if ip.bound is not None else -np.inf, row["lp_exact"]),
                             row["lp_epsilon"])
    budget = PAPER_TABLE3[(name, set_name)][0] * 0.1
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ccopt.impact_scores(X, k, constraints=cons, criterion="kmedoids", method="voronoi",
                                   time_limit=budget, random_state=seed, progress=False)
    row.update(ours_upper=ours.upper_bound, ours_gap=ours.gap, ours_seconds=time.perf_counter() - start)
    return row


def report(rows: list[dict], command: str, ip_time_limit: float) -> str:
    table = []
    for r in rows:
        solved = r["ip_status"] == "optimal"
        ip = f"{r['ip_objective']:.2f}" if solved else f"{r['ip_bound']:.2f} - {r['ip_objective']:.2f}"
        # Unsolved: against the best lower bound on the optimum, an upper bound on the excess.
        # "+ 0.0" turns the -0.00 of a value equal to the optimum up to rounding into 0.00.
        excess = (f"{round(100 * (r['ours_upper'] / r['ip_objective'] - 1), 2) + 0.0:.2f}" if solved else
                  f"<= {100 * (r['ours_upper'] / max(r['ip_bound'], r['lp_exact']) - 1):.2f}")
        table.append([r["dataset"], r["set"], int(r["n"]), int(r["n_constraints"]), f"{r['lp_none']:.2f}",
                      f"{r['lp_epsilon']:.2f}", f"{r['lp_exact']:.2f}", ip,
                      f"{r['ip_status']}, {r['ip_seconds']:.0f} s", f"{100 * r['floor']:.2f}",
                      f"{r['ours_upper']:.2f}", excess,
                      f"{100 * r['ours_gap']:.2f}", f"{PAPER_TABLE3[(r['dataset'], r['set'])][1]:.3f}"])
    lines = [
        "## Impact score: the smallest certifiable dual gap on the Table 3 rows (k-medoids)", "",
        f"Machine: {machine()}.", "", f"Command: `{command}`", "",
        "Published p15/p20 sets, raw features, Euclidean distances, the p-median form of the "
        "k-medoids program (ccopt.models.kmedoids). *LP, epsilon rows* is the best lower bound the "
        "paper's k-medoids Lagrangian (its LP route, epsilon = 0.5) can reach; *IP* is the optimum "
        f"with the exact rows (HiGHS, at most {ip_time_limit:g} s; a range is dual bound - incumbent "
        "when the limit stopped it). *Floor* = (IP - LP epsilon) / IP, computed with the larger of the "
        "IP's dual bound and the exact-row LP: no certified gap of that route can be smaller. *Ours*: ccopt's default k-medoids route "
        "(`voronoi`) under 0.1 x the paper's budget, its best feasible value against the IP and the "
        "gap it reports (its lower bound is a heuristic Lagrangian value, not a certified bound). The "
        "paper's gap column is for its MSSC route. Where the IP was not solved, *ours above IP* is "
        "measured against the best lower bound on the optimum (an upper bound on the excess).", "",
        markdown_table(["data set", "p", "n", "constraints", "LP, no pairwise rows", "LP, epsilon rows",
                        "LP, exact rows", "IP", "IP status", "floor %", "ours: best feasible",
                        "ours above IP %", "ours: reported gap %", "paper gap % (MSSC)"], table), "",
        conclusion(rows),
    ]
    return "\n".join(lines) + "\n"


def conclusion(rows: list[dict]) -> str:
    """What the floors say about the 0.01 % target, from the rows themselves."""
    floors = [100 * r["floor"] for r in rows]
    # Share of the way from the LP without pairwise rows to the IP that the epsilon rows close.
    closed = [max(0.0, (r["lp_epsilon"] - r["lp_none"]) / (r["ip_bound"] - r["lp_none"]))
              for r in rows if r["ip_status"] == "optimal" and r["ip_bound"] > r["lp_none"]]
    text = (f"Floor: {min(floors):.2f}-{max(floors):.2f} % over {len(rows)} rows (target 0.01 %). "
            f"The epsilon rows close {100 * min(closed):.0f}-{100 * max(closed):.0f} % of the distance "
            f"from the LP without pairwise rows to the integer optimum ({len(closed)} rows with a proven "
            "optimum)." if closed else
            f"Floor: {min(floors):.2f}-{max(floors):.2f} % over {len(rows)} rows (target 0.01 %).")
    by_data: dict[str, list[float]] = {}
    for r in rows:
        by_data.setdefault(r["dataset"], []).append(r["lp_epsilon"])
    pairs = [v for v in by_data.values() if len(v) == 2]
    same = sum(abs(a - b) <= 1e-6 * abs(a) for a, b in pairs)
    text += (" Why the epsilon rows see so little: with epsilon = 0.5 the LP has a point that "
             "satisfies every pairwise row of *any* constraint set (2k medoids at y = 1/2, every object "
             "split 1/2-1/2 between two of them: a cannot-link row then reads at most 1 <= 1.5, a "
             "must-link row at most 1/2 <= 1/2; tests/models/test_kmedoids.py), so the bound can never "
             "exceed the best such point's cost, which does not depend on the constraints"
             + (f"; here the LP with epsilon rows has the same optimum for p15 and p20 on {same} of "
                f"{len(pairs)} data sets, though the two sets share no pair." if pairs else "."))
    above = sum(f > 0.01 for f in floors)
    if above == len(rows):
        text += (" On every row the floor is above the target: no certified gap of the paper's "
                 "k-medoids route (the LP relaxation of (10) every iteration) can reach 0.01 % there, "
                 "however the multipliers are chosen; "
                 "a 0.01 % gap is only possible between heuristic values, as the paper's MSSC figures are.")
    else:
        text += f" The floor is above the target on {above} of {len(rows)} rows."
    return text


def read_results(path: Path) -> list[dict]:
    """The stored rows, numbers as floats."""
    rows = read_rows(path)
    for r in rows:
        for key in FIELDS:
            if key not in ("dataset", "set", "ip_status"):
                r[key] = float(r[key])
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--ip-time-limit", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "impact_gap_floor.csv")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    names = [n for n in args.datasets.split(",") if n]
    unknown = sorted(set(names) - set(DATASETS))
    if unknown:
        parser.error(f"unknown data sets {unknown}; choose from {', '.join(DATASETS)}")
    if not args.report_only:
        done = {(r["dataset"], r["set"]) for r in read_rows(args.out)}
        for name in names:
            for set_name in SETS:
                if (name, set_name) in done:
                    continue
                row = measure(name, set_name, args.ip_time_limit, args.seed)
                append_row(args.out, row, FIELDS)
                print(f"{name} {set_name}: LP eps {row['lp_epsilon']:.2f}, IP {row['ip_objective']:.2f} "
                      f"({row['ip_status']}, {row['ip_seconds']:.0f} s), floor {100 * row['floor']:.2f} %, "
                      f"ours {row['ours_upper']:.2f}", flush=True)
    rows = [r for r in read_results(args.out) if r["dataset"] in names]
    if args.report_only:
        require_results(rows, args.out)
    rows.sort(key=lambda r: (DATASETS.index(r["dataset"]), r["set"]))
    text = report(rows, command_line("bench_impact_gap_floor.py", argv), args.ip_time_limit)
    save_report(REPORT, text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
