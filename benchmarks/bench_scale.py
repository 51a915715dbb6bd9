"""Scale: the impact score's MSSC route, BH-kmeans and the k-means family at n = 100,000.

Issue 7's target size: n = 100,000 objects, d = 10 features, k = 10 clusters, 10,000
constraints, on the instance of ``bench_scale_kmeans_family.py`` (``benchmarks/_scale_common.py``'s ``instance``:
Gaussian clusters, centre coordinates N(0, 5), point spread ``--cluster-std``, half
must-links and half cannot-links agreeing with the hidden labels). That benchmark's
estimators (KMeans, COP-kmeans, PCKmeans, LCC) are measured again here, through its
``_fit_once``, so that every row of the table comes from one run on one machine state;
added are BH-kmeans (its assignment MILP solved through Pyomo/HiGHS every iteration) and
``ccopt.impact_scores(..., criterion="mssc")``, once with its defaults on these constraints
and once on the same data with 10 % of the constraints erroneous (so that the subgradient
loop has work to do; ``max_iter=--noisy-iter``), with its detection F1 beside the naive
baseline's. The k-medoids route is also called: it must refuse up front, as
its ``n x n`` distances (74.5 GiB here) exceed the default memory bound.

Every case runs in a fresh Python process (this script re-invoked with ``--child``), twice:
once for wall time and peak resident memory (``resource.getrusage(RUSAGE_SELF)`` in the
child, before and after the fit), once under :mod:`tracemalloc` for the peak of the
allocations made during the fit (its time is not used: Python code runs slower traced).

Writes ``benchmarks/results/scale.csv`` and ``benchmarks/reports/scale.md``.

Run: ``python benchmarks/bench_scale.py`` (about 10 minutes on 2 loaded cores);
``--n 20000 --m 2000`` for a quicker look; ``--no-trace`` skips the tracemalloc runs.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: make the benchmarks package importable
    sys.path.insert(0, str(HERE.parent))

from benchmarks._reports import machine, save_report  # noqa: E402
from benchmarks._scale_common import (  # noqa: E402
    MIB,
    add_instance_arguments,
    instance,
    markdown_table,
    measured,
    print_table,
)
from benchmarks.bench_scale_kmeans_family import _fit_once  # noqa: E402

ESTIMATORS = ("KMeans", "COPKMeans", "PCKMeans", "LCC", "BHKMeans")
SCORES = ("impact_scores[mssc]", "impact_scores[mssc-noisy]", "impact_scores[kmedoids]")
CASES = ESTIMATORS + SCORES


def _score_once(case: str, n: int, d: int, k: int, m: int, cluster_std: float, seed: int,
                traced: bool, noisy_iter: int) -> dict:
    """Build the instance and run one impact-score case in this (fresh) process."""
    import ccopt
    from ccopt.generators import noisy_constraints
    from ccopt.lagrange.baselines import naive_baseline
    from ccopt.metrics import normalized_mutual_info_score, wcss

    warnings.simplefilter("ignore", ccopt.ConvergenceWarning)
    X, y, cons = instance(n, d, k, m, cluster_std, seed)
    erroneous = None
    options = {"criterion": "mssc"}
    if case == "impact_scores[mssc-noisy]":
        # Same data, constraints of which 10 % disagree with the labels: the loop has work to do.
        cons, erroneous = noisy_constraints(y, m, m // 10, random_state=seed + 2)
        options.update(max_iter=noisy_iter, erroneous=np.asarray(erroneous))
    elif case == "impact_scores[kmedoids]":
        options = {"criterion": "kmedoids"}
    _ = cons.closure  # built once per Constraints object; counted as input, not as the run
    # Warm-up on a tiny instance: the first call imports scikit-learn's k-means and ccopt's
    # estimators, which tracemalloc and the RSS would otherwise count as the run's memory.
    ccopt.impact_scores(X[:40], 2, ml=[(0, 1)], cl=[(2, 3)], criterion="mssc", max_iter=2,
                        random_state=0, progress=False)
    def run():
        try:
            return ccopt.impact_scores(X, k, constraints=cons, random_state=seed, progress=False, **options)
        except ccopt.MemoryBudgetError as exc:
            return str(exc)

    result, measures = measured(run, traced)
    refused = result if isinstance(result, str) else ""
    result = None if refused else result
    row = {"algorithm": case, "n_ml": cons.n_ml, "n_cl": cons.n_cl, "traced": traced,
           "refused": refused, **measures}
    if result is None:
        return {**row, "status": "refused", "n_iter": 0, "ml_violated": "", "cl_violated": "",
                "inertia": float("nan"), "nmi": float("nan")}
    report = cons.violations(result.labels)
    row.update(status=str(result.status), n_iter=result.n_iter, ml_violated=report.n_ml,
               cl_violated=report.n_cl, inertia=wcss(X, result.labels),
               nmi=normalized_mutual_info_score(y, result.labels), gap=result.gap,
               n_predicted=int(np.sum(result.predicted_erroneous)))
    if erroneous is not None and not traced:
        # The yardstick of TARGETS.md, on the same constraints (not part of the timed run).
        naive = naive_baseline(X, k, constraints=cons, criterion="mssc", random_state=seed,
                               erroneous=np.asarray(erroneous))
        row.update(n_erroneous=int(np.sum(erroneous)), f1=result.detection.f1,
                   precision=result.detection.precision, recall=result.detection.recall,
                   naive_f1=naive.detection.f1)
    return row


def _child(args) -> None:
    """Run one case and print its row as JSON on the last line of stdout."""
    if args.child in ESTIMATORS:
        row = _fit_once(args.child, args.n, args.d, args.k, args.m, args.cluster_std, args.seed, args.traced)
    else:
        row = _score_once(args.child, args.n, args.d, args.k, args.m, args.cluster_std, args.seed,
                          args.traced, args.noisy_iter)
    print(json.dumps(row, default=float))


def _run_case(case: str, args, traced: bool) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", case, "--n", str(args.n),
               "--d", str(args.d), "--k", str(args.k), "--m", str(args.m), "--cluster-std",
               str(args.cluster_std), "--seed", str(args.seed), "--noisy-iter", str(args.noisy_iter)]
    if traced:
        command.append("--traced")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"case {case} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _fmt(value, spec: str) -> str:
    if value == "" or value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "—"
    return format(value, spec)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_instance_arguments(parser)
    parser.add_argument("--noisy-iter", type=int, default=200,
                        help="subgradient iterations (max_iter) of the noisy impact-score case")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--no-trace", action="store_true", help="skip the tracemalloc runs")
    parser.add_argument("--csv", type=Path, default=HERE / "results" / "scale.csv")
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "scale.md")
    parser.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args)
        return
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {unknown}; choose from {', '.join(CASES)}")

    rows = []
    for case in cases:
        row = _run_case(case, args, traced=False)
        if not args.no_trace and row["status"] != "refused":
            traced = _run_case(case, args, traced=True)
            row["traced_peak_mib"] = traced["traced_peak_mib"]
            row["traced_seconds"] = traced["seconds"]
        rows.append(row)
        print(f"{case}: {row['seconds']:.2f} s, {row['status']}, peak RSS {row['rss_peak_mib']:.0f} MiB "
              f"(+{row['rss_peak_mib'] - row['rss_before_mib']:.0f} in the run), tracemalloc peak "
              f"{_fmt(row.get('traced_peak_mib'), '.0f')} MiB", flush=True)

    args.csv.parent.mkdir(parents=True, exist_ok=True)
    fields = ["algorithm", "seconds", "status", "n_iter", "ml_violated", "cl_violated", "n_ml", "n_cl",
              "inertia", "nmi", "gap", "n_predicted", "n_erroneous", "precision", "recall", "f1", "naive_f1", "rss_before_mib", "rss_peak_mib",
              "traced_peak_mib", "traced_seconds", "refused"]
    with open(args.csv, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)

    dense_gib = 8.0 * args.n**2 / 1024**3
    data_mib = 8.0 * args.n * args.d / MIB
    base = next((r["inertia"] for r in rows if r["algorithm"] == "KMeans"), None)
    head = ["method", "run s", "iterations", "status", "ML violated", "CL violated", "NMI",
            "WCSS / KMeans", "detection F1 (naive)", "peak RSS MiB", "RSS growth MiB",
            "tracemalloc peak MiB", "peak / dense n x n"]
    table = []
    for r in rows:
        growth = r["rss_peak_mib"] - r["rss_before_mib"]
        traced = r.get("traced_peak_mib", float("nan"))
        table.append([
            r["algorithm"], f"{r['seconds']:.2f}", str(r["n_iter"]), r["status"],
            "—" if r["ml_violated"] == "" else f"{r['ml_violated']} / {r['n_ml']}",
            "—" if r["cl_violated"] == "" else f"{r['cl_violated']} / {r['n_cl']}",
            _fmt(r["nmi"], ".3f"),
            _fmt(r["inertia"] / base, ".3f") if base and np.isfinite(r["inertia"]) else "—",
            f"{r['f1']:.3f} ({r['naive_f1']:.3f})" if "f1" in r else "—",
            f"{r['rss_peak_mib']:.0f}", f"{growth:.0f}", _fmt(traced, ".0f"),
            _fmt(traced / (dense_gib * 1024), ".4f"),
        ])
    print_table(head, table)
    print(f"\nA dense n x n float64 matrix would take {dense_gib:.1f} GiB.")

    table_md = markdown_table(head, table)
    noisy = next((r for r in rows if r["algorithm"] == "impact_scores[mssc-noisy]"), None)
    default = next((r for r in rows if r["algorithm"] == "impact_scores[mssc]"), None)
    refused = next((r["refused"] for r in rows if r["algorithm"] == "impact_scores[kmedoids]"), "")
    noisy_text = ""
    if noisy is not None:
        noisy_text = (f"\"impact_scores[mssc-noisy]\" scores, on the same data, {args.m:,} constraints of "
                      f"which {noisy.get('n_erroneous', args.m // 10):,} disagree with the hidden labels "
                      f"(`ccopt.generators.noisy_constraints`, seed {args.seed + 2}), with "
                      f"`max_iter={args.noisy_iter}`: it ran {noisy['n_iter']} subgradient iterations "
                      f"({noisy['status']}), ")
        if default is not None and noisy["n_iter"] > default["n_iter"]:
            per = (noisy["seconds"] - default["seconds"]) / (noisy["n_iter"] - default["n_iter"])
            noisy_text += (f"about {per * 1000:.0f} ms per iteration beyond the default run's "
                           "(Lloyd-like oracle step O(n k d) plus O(m k) pairwise terms), ")
        if "f1" in noisy:
            noisy_text += (f"and detected the erroneous constraints with precision "
                           f"{noisy['precision']:.3f}, recall {noisy['recall']:.3f}, F1 {noisy['f1']:.3f} "
                           f"(the naive baseline of TARGETS.md, unconstrained k-means with 10 restarts, "
                           f"reaches F1 {noisy['naive_f1']:.3f} on the same set).")
    if refused:
        refusal = f"The k-medoids route refuses before allocating anything:\n\n> {refused}"
    else:
        refusal = (f"At this n the k-medoids route's {dense_gib:.2f} GiB of distances fit under the bound, "
                   "so it ran (row impact_scores[kmedoids]).")
    given = sys.argv[1:] if argv is None else list(argv)
    first = next((r for r in rows if r["algorithm"] != "impact_scores[mssc-noisy]"), rows[0])
    report = f"""# Scale: impact score (MSSC route), BH-kmeans and the k-means family

n = {args.n:,} objects, d = {args.d}, k = {args.k}, {args.m:,} constraints ({first['n_ml']:,} must-links,
{first['n_cl']:,} cannot-links, all agreeing with the hidden labels), Gaussian clusters with centre
coordinates N(0, 5) and point spread {args.cluster_std}; seed {args.seed}: the instance of
`bench_scale_kmeans_family.py` (both import `benchmarks/_scale_common.py`). Every method
with its defaults, except the noisy impact-score case (below).

No paper reports figures at this size; the point of the table is memory: a dense n x n
float64 matrix would take {dense_gib:.1f} GiB, and no method here allocates anything of
that order (last column: tracemalloc peak as a fraction of it).

Machine: {machine()}. Timings were taken on a loaded, shared 2-core machine (other agents were
running), so they are noisy; each case ran alone in a fresh process.

Command: `{" ".join(["python benchmarks/bench_scale.py", *given])}`

{table_md}

Columns: "run s" is the wall time of the fit or of the `impact_scores` call, without
building the instance; "peak RSS" is the whole process (Python, numpy, scipy, scikit-learn,
Pyomo where used, and the {data_mib:.1f} MiB data matrix); "RSS growth" is how much the peak
rose during the run; "tracemalloc peak" is the largest total of the allocations made during
the run, measured in a second process (its time is not used; the impact-score processes
first make a tiny warm-up call so that importing scikit-learn is not counted). For the
impact score, the labels are its best feasible clustering (the upper bound), which
satisfies every constraint by construction.

With constraints that all agree with the clusters, the default impact-score run stops
within its first iterations: the COP-kmeans start is within `gap_tol` of the lower bound,
and no constraint is predicted erroneous (column `n_predicted` of the CSV).
{noisy_text}

BH-kmeans solves its assignment program P (1)-(8) once per iteration. Its memory stays
O(n k): the program keeps variables only for the objects that carry a constraint (plus at
most k^2 "slots" of free objects), and without size bounds it is solved by components of
the constraint graph, most of them by enumeration, the rest by HiGHS through Pyomo
(`ccopt.models.bh_assignment`).

{refusal}
"""
    save_report(args.report, report)
    print(f"wrote {args.csv} and {args.report}")


if __name__ == "__main__":
    main()
