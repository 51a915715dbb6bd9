"""BH-kmeans: what the 200 s per-solve limit costs and buys (a sensitivity study, not the paper's protocol).

In the BH-kmeans table (``bench_bh_kmeans.py``, the paper's limits: 1,800 s per run, 200 s
per assignment MILP) a few runs spend almost all the time in MILPs that HiGHS stops at
200 s without closing the gap (``bench_bh_first_step.py``). This script re-runs the table
with a shorter per-solve limit ``L`` and asks whether the clustering changes.

Only the runs of the table that took more than ``L`` seconds in all are re-run: a run that
finished within ``L`` s has no solve that could reach ``L``, and BH-kmeans is deterministic
for a seed when no solve is cut short, so its result at limit ``L`` is the table's. Every
other figure of a CS column is therefore the table's own row.

Reads ``<table>`` (default ``benchmarks/results/bh_kmeans.csv``), writes ``<out>`` (default
``benchmarks/results/bh_solve_limit.csv``; runs already there are skipped) and
``benchmarks/reports/bh_solve_limit.md``. Run (about 15 minutes at ``L = 20``)::

    python benchmarks/bench_bh_solve_limit.py --limit 20
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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
from benchmarks.bench_bh_kmeans import (
    FIELDS,
    PAPER_ARI_MEAN,
    PAPER_TIME,
    SIZES,
    constraint_sets,
    load_standardised,
    mean_ari_over_datasets,
    run_one,
)

HERE = Path(__file__).resolve().parent
REPORT = HERE / "reports" / "bh_solve_limit.md"
Key = tuple[str, int, int]


def _key(row: dict) -> Key:
    return row["dataset"], int(row["size"]), int(row["seed"])


def runs_to_repeat(table: list[dict], limit: float) -> list[dict]:
    """The table's runs that took longer than ``limit`` seconds (the only ones a limit can change)."""
    return [r for r in table if float(r["time"]) > limit]


def run_repeats(table: list[dict], args, out: Path) -> None:
    done = {_key(r) for r in read_rows(out)}
    todo = [r for r in runs_to_repeat(table, args.limit) if _key(r) not in done]
    print(f"{len(todo)} runs to repeat with a {args.limit:g} s per-solve limit", flush=True)
    cache: dict[str, tuple] = {}
    for old in todo:
        folder, size, seed = old["folder"], int(old["size"]), int(old["seed"])
        if folder not in cache:
            sets, _ = constraint_sets(folder, SIZES)
            cache[folder] = (*load_standardised(folder), sets)
        X, y, k, sets = cache[folder]
        # The table runs at the paper's p = 1 (bench_bh_kmeans.py's default; its CSV has no p column).
        settings = argparse.Namespace(penalty=1.0, solver=old["solver"], time_limit=float(old["time_limit"]),
                                      solve_time_limit=args.limit)
        result = run_one(X, y, k, sets[size], seed, settings)
        row = {**{f: old[f] for f in FIELDS}, **result, "solve_time_limit": args.limit}
        append_row(out, row, FIELDS)
        print(f"{old['dataset']:<16} CS{size:<3} seed {seed}: ARI {float(old['ari']):.3f} -> "
              f"{result['ari']:.3f}, {float(old['time']):7.1f} s -> {result['time']:6.1f} s "
              f"({result['n_time_limited_solves']} time-limited solves)", flush=True)


def merged(table: list[dict], repeats: list[dict]) -> list[dict]:
    """The table with every repeated run replaced by its repeat."""
    by_key = {_key(r): r for r in repeats}
    return [by_key.get(_key(r), r) for r in table]


def merged_at_limit(table: list[dict], repeats: list[dict], limit: float) -> list[dict]:
    """The table as it runs with a per-solve limit of ``limit`` s: every run longer than
    ``limit`` replaced by its repeat at that limit (repeats at other limits are ignored)."""
    repeats = [r for r in repeats if float(r["solve_time_limit"]) == limit]
    missing = {_key(r) for r in runs_to_repeat(table, limit)} - {_key(r) for r in repeats}
    if missing:
        raise ValueError(f"{len(missing)} runs of the table longer than {limit:g} s have no repeat, "
                         f"e.g. {sorted(missing)[0]} (no {limit:g} s repeat in the results: run "
                         f"bench_bh_solve_limit.py --limit {limit:g} without --report-only)")
    return merged(table, repeats)


def summary_rows(table: list[dict], repeats: list[dict], limit: float) -> list[dict]:
    """Per CS: mean ARI over data sets, violations and total time, at 200 s and at ``limit``."""
    short = merged_at_limit(table, repeats, limit)
    out = []
    for size in sorted({int(r["size"]) for r in table}):
        record = {"size": size, "repeated": sum(int(r["size"]) == size for r in repeats),
                  "n_datasets": len({r["dataset"] for r in table if int(r["size"]) == size})}
        for name, rows in (("table", table), ("short", short)):
            rows = [r for r in rows if int(r["size"]) == size]
            record[f"ari_{name}"] = mean_ari_over_datasets(rows)
            record[f"violations_{name}"] = sum(int(r["violations"]) for r in rows)
            record[f"time_{name}"] = sum(float(r["time"]) for r in rows)
            record[f"limited_{name}"] = sum(int(r["n_time_limited_solves"]) > 0 for r in rows)
        out.append(record)
    return out


def write_report(table: list[dict], repeats: list[dict], limit: float, command: str,
                 table_limit: str) -> str:
    rows = summary_rows(table, repeats, limit)
    lines = [
        f"# BH-kmeans with a {limit:g} s per-solve limit (sensitivity; the paper's protocol is {table_limit} s)",
        "",
        f"Machine: {machine()} (shared with other jobs: timings are noisy).",
        "",
        f"Command: `{command}`",
        "",
        f"The BH-kmeans table re-run with a {limit:g} s limit per assignment MILP instead of "
        f"{table_limit} s, everything else equal (module docstring of `bench_bh_solve_limit.py`): only "
        f"the {len(repeats)} runs that took more than {limit:g} s are repeated, the others are the "
        "table's rows. When a solve stops on its limit, BH-kmeans takes the best of the solver's "
        "incumbent, the previous assignment, the nearest-centre assignment and a greedy placement of "
        "the must-link components, each improved by a local search over single objects and "
        "must-linked blocks (`ccopt/models/_bh_search.py`). **Not the paper's protocol**: the targets are judged on the table itself.",
        "",
        f"| CS | data sets | runs repeated | mean ARI, {table_limit} s | mean ARI, {limit:g} s | paper ARI | "
        f"violations {table_limit} s / {limit:g} s | total time {table_limit} s | total time {limit:g} s "
        "| paper (Gurobi) | runs with a time-limited solve, "
        f"{table_limit} s / {limit:g} s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        s = r["size"]
        lines.append(f"| CS{s} | {r['n_datasets']} | {r['repeated']} | {r['ari_table']:.3f} | "
                     f"{r['ari_short']:.3f} | {PAPER_ARI_MEAN[s][0]:.3f} | {r['violations_table']} / "
                     f"{r['violations_short']} | {r['time_table']:.1f} | {r['time_short']:.1f} | "
                     f"{PAPER_TIME[s][0]:.1f} | {r['limited_table']} / {r['limited_short']} |")
    old = {_key(r): r for r in table}
    lines += ["", "Repeated runs:", "",
              f"| data set | CS | seed | ARI {table_limit} s | ARI {limit:g} s | WCSS {table_limit} s | "
              f"WCSS {limit:g} s | time {table_limit} s | time {limit:g} s | time-limited solves "
              f"{table_limit} s / {limit:g} s |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(repeats, key=lambda r: (r["dataset"], int(r["size"]), int(r["seed"]))):
        o = old[_key(r)]
        lines.append(f"| {r['dataset']} | CS{r['size']} | {r['seed']} | {float(o['ari']):.3f} | "
                     f"{float(r['ari']):.3f} | {float(o['wcss']):,.1f} | {float(r['wcss']):,.1f} | "
                     f"{float(o['time']):.1f} | {float(r['time']):.1f} | {o['n_time_limited_solves']} / "
                     f"{r['n_time_limited_solves']} |")
    text = "\n".join(lines) + "\n"
    save_report(REPORT, text)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=float, default=20.0, help="per-solve limit in seconds")
    parser.add_argument("--table", type=Path, default=HERE / "results" / "bh_kmeans.csv",
                        help="the BH-kmeans table's CSV (bench_bh_kmeans.py)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "bh_solve_limit.csv")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    table = read_rows(args.table)
    if not table:
        parser.error(f"no BH-kmeans table at {args.table}: run bench_bh_kmeans.py first")
    limits = {r["solve_time_limit"] for r in table}
    if len(limits) != 1:
        parser.error(f"the table mixes per-solve limits {sorted(limits)}")
    table_limit = f"{float(limits.pop()):g}"
    if args.limit >= float(table_limit):
        parser.error(f"--limit {args.limit:g} must be below the table's per-solve limit {table_limit} s")
    if not args.report_only:
        run_repeats(table, args, args.out)
    repeats = [r for r in read_rows(args.out) if float(r["solve_time_limit"]) == args.limit]
    if args.report_only:
        require_results(repeats, args.out)
    print(write_report(table, repeats, args.limit, command_line("bench_bh_solve_limit.py", argv),
                       table_limit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
