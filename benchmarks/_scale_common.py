"""Shared pieces of the scale benchmarks (``bench_scale_kmeans_family.py``, ``bench_scale.py``).

One instance generator, one set of command-line options for its size, and the table
printers, so that both benchmarks measure the same data and report it the same way.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc
from collections.abc import Callable

MIB = 1024.0 * 1024.0


def instance(n: int, d: int, k: int, m: int, cluster_std: float, seed: int):
    """Gaussian clusters and ``m`` constraints that agree with their labels.

    Returns
    -------
    X : ndarray of shape (n, d)
    labels : ndarray of shape (n,)
    constraints : Constraints
        Half must-links, half cannot-links (:func:`ccopt.generators.correct_constraints`).
    """
    from ccopt.generators import correct_constraints, make_gaussian_clusters

    X, y = make_gaussian_clusters(n, k, n_features=d, cluster_std=cluster_std, random_state=seed)
    return X, y, correct_constraints(y, m, random_state=seed + 1)


def measured(run: Callable[[], object], traced: bool) -> tuple[object, dict]:
    """Call ``run()`` and measure it: wall time, peak RSS before and after, tracemalloc peak.

    Returns ``run()``'s value and ``{"seconds", "rss_before_mib", "rss_peak_mib",
    "traced_peak_mib"}`` (the last NaN unless ``traced``; tracing slows Python code, so its
    time should not be used). ``ru_maxrss`` is the process's peak so far, so the process
    should be fresh and do nothing else of size.
    """
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0
    if traced:
        tracemalloc.start()
    start = time.perf_counter()
    try:
        value = run()
        seconds = time.perf_counter() - start
        peak_traced = tracemalloc.get_traced_memory()[1] if traced else float("nan")
    finally:
        if traced:
            tracemalloc.stop()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0
    return value, {"seconds": seconds, "rss_before_mib": rss_before / MIB, "rss_peak_mib": rss_after / MIB,
                   "traced_peak_mib": peak_traced / MIB}


def add_instance_arguments(parser: argparse.ArgumentParser) -> None:
    """``--n --d --k --m --cluster-std --seed``, defaulting to issue 7's target size."""
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--m", type=int, default=10_000, help="number of constraints")
    parser.add_argument("--cluster-std", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)


def print_table(head: list[str], table: list[list[str]]) -> None:
    """Left-aligned columns on stdout."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *table, strict=True)]
    print()
    for row in [head, *table]:
        print("  ".join(f"{x!s:<{w}}" for x, w in zip(row, widths, strict=True)))


def markdown_table(head: list[str], table: list[list[str]]) -> str:
    """The same table in markdown."""
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(row) + " |" for row in table])

