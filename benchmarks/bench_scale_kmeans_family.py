"""Scale of the k-means family: KMeans, COP-kmeans, PCKmeans and LCC at n = 100,000.

Issue 7's target size: n = 100,000 objects, d = 10 features, k = 10 clusters, 10,000
constraints (half must-links, half cannot-links, all agreeing with the hidden labels,
:func:`ccopt.generators.correct_constraints`) on Gaussian clusters
(:func:`ccopt.generators.make_gaussian_clusters`, centre coordinates N(0, 5), points N(centre,
``--cluster-std``)). Each estimator runs with its defaults.

Every estimator is fitted in a fresh process (so that one's memory does not hide
another's), twice: once for wall time and peak resident memory (``resource.getrusage``
before and after the fit), once under :mod:`tracemalloc` for the peak of the allocations
made during the fit (numpy reports its buffers to tracemalloc; the Python loops run slower
under it, so its time is not used). A dense ``n x n`` float64 matrix would need
``8 n^2`` bytes (74.5 GiB here): the point of the table is that nothing of that order is
allocated.

Writes ``benchmarks/results/scale_kmeans_family.csv`` and
``benchmarks/reports/scale_kmeans_family.md``.

Run: ``python benchmarks/bench_scale_kmeans_family.py`` (a few minutes on 2 cores);
``--n 20000 --m 2000`` for a quicker look.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: make the benchmarks package importable
    sys.path.insert(0, str(HERE.parent))

from benchmarks._reports import machine, save_report  # noqa: E402
from benchmarks._scale_common import (  # noqa: E402
    MIB,
    add_instance_arguments,
    markdown_table,
    measured,
    print_table,
)
from benchmarks._scale_common import instance as _instance  # noqa: E402

ALGORITHMS = ("KMeans", "COPKMeans", "PCKMeans", "LCC")


def _fit_once(algorithm: str, n: int, d: int, k: int, m: int, cluster_std: float, seed: int,
              traced: bool) -> dict:
    """Build the instance and fit one estimator in this (fresh) process."""
    import ccopt.cluster
    from ccopt.exceptions import ConvergenceWarning
    from ccopt.metrics import normalized_mutual_info_score

    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y, cons = _instance(n, d, k, m, cluster_std, seed)
    _ = cons.closure  # built once per Constraints object; counted as input, not as fit
    est = getattr(ccopt.cluster, algorithm)(k, random_state=seed)
    _, measures = measured(lambda: est.fit(X, constraints=cons), traced)
    return {
        "algorithm": algorithm, "status": str(est.status_), "n_iter": est.n_iter_,
        "ml_violated": est.n_violations_["ml"], "cl_violated": est.n_violations_["cl"],
        "n_ml": cons.n_ml, "n_cl": cons.n_cl, "inertia": est.inertia_,
        "nmi": normalized_mutual_info_score(y, est.labels_), "traced": traced, **measures,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_instance_arguments(parser)
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--csv", type=Path, default=HERE / "results" / "scale_kmeans_family.csv")
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "scale_kmeans_family.md")
    args = parser.parse_args(argv)
    algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    unknown = sorted(set(algorithms) - set(ALGORITHMS))
    if unknown:
        parser.error(f"unknown algorithm(s) {unknown}; choose from {', '.join(ALGORITHMS)}")

    spawn = multiprocessing.get_context("spawn")
    rows = []
    for algorithm in algorithms:
        result = {}
        for traced in (False, True):
            with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
                out = pool.submit(_fit_once, algorithm, args.n, args.d, args.k, args.m,
                                  args.cluster_std, args.seed, traced).result()
            if traced:
                result["traced_peak_mib"] = out["traced_peak_mib"]
                result["traced_seconds"] = out["seconds"]
            else:
                result.update(out)
        rows.append(result)
        print(f"{algorithm}: {result['seconds']:.2f} s, peak RSS {result['rss_peak_mib']:.0f} MiB "
              f"(+{result['rss_peak_mib'] - result['rss_before_mib']:.0f} during fit), "
              f"tracemalloc peak {result['traced_peak_mib']:.0f} MiB", flush=True)

    args.csv.parent.mkdir(parents=True, exist_ok=True)
    fields = ["algorithm", "seconds", "status", "n_iter", "ml_violated", "cl_violated", "n_ml", "n_cl",
              "inertia", "nmi", "rss_before_mib", "rss_peak_mib", "traced_peak_mib", "traced_seconds"]
    with open(args.csv, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)

    base = next((r["inertia"] for r in rows if r["algorithm"] == "KMeans"), None)
    head = ["estimator", "fit s", "iterations", "status", "ML violated", "CL violated", "NMI",
            "WCSS / KMeans", "peak RSS MiB", "RSS growth in fit MiB", "tracemalloc peak MiB"]
    table = [[r["algorithm"], f"{r['seconds']:.2f}", str(r["n_iter"]), r["status"],
              f"{r['ml_violated']} / {r['n_ml']}", f"{r['cl_violated']} / {r['n_cl']}", f"{r['nmi']:.3f}",
              f"{r['inertia'] / base:.3f}" if base else "—", f"{r['rss_peak_mib']:.0f}",
              f"{r['rss_peak_mib'] - r['rss_before_mib']:.0f}", f"{r['traced_peak_mib']:.0f}"]
             for r in rows]
    print_table(head, table)

    dense_gib = 8.0 * args.n**2 / 1024**3
    data_mib = 8.0 * args.n * args.d / MIB
    table_md = markdown_table(head, table)
    given = sys.argv[1:] if argv is None else list(argv)
    report = f"""# Scale of the k-means family (KMeans, COP-kmeans, PCKmeans, LCC)

n = {args.n:,} objects, d = {args.d}, k = {args.k}, {args.m:,} constraints ({rows[0]['n_ml']:,} must-links,
{rows[0]['n_cl']:,} cannot-links, all agreeing with the hidden labels), Gaussian clusters with
centre coordinates N(0, 5) and point spread {args.cluster_std}; seed {args.seed}; every estimator with
its defaults (KMeans and COP-kmeans 10 restarts, PCKmeans and LCC one run).

Machine: {machine()}. Timings were taken on a loaded, shared 2-core machine (other agents were
running), so they are noisy; each fit ran alone in a fresh process.

Command: `{" ".join(["python benchmarks/bench_scale_kmeans_family.py", *given])}`

{table_md}

Memory scale: the data matrix is {data_mib:.1f} MiB; a dense n x n float64 matrix would be
{dense_gib:.1f} GiB. "peak RSS" is the whole process (Python, numpy, scipy, scikit-learn and the
data, about {min(r['rss_before_mib'] for r in rows):.0f} MiB before any fit); "RSS growth in fit" is
how much the peak rose during the fit; "tracemalloc peak" is the largest total of the
allocations made during the fit (measured in a second run, whose time is not used). Every
per-object structure is O(n k) (the n x k distance table) or O(number of constraints) (CSR
adjacency of the constrained super-instances); the sequential Python loops of COP-kmeans,
PCKmeans and LCC visit only the objects that carry a constraint.

Quality is secondary here (NMI against the hidden labels; WCSS relative to KMeans, which
ignores the cannot-links). LCC starts from a random partition and PCKmeans from the must-link
neighbourhoods, one run each, as in their papers; both end in poorer local optima of the
k-means objective than KMeans' ten k-means++ restarts (WCSS column). PCKmeans also runs with
its default penalty weight 1, small against the squared distances here (about
2 d sigma^2 = {2 * args.d * args.cluster_std ** 2:.0f} between two objects of one cluster),
which is why it leaves constraints violated.
"""
    save_report(args.report, report)
    print(f"wrote {args.csv} and {args.report}")


if __name__ == "__main__":
    main()
