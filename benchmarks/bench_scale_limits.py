"""Scale limits: the failures of the scale audit (session of 2026-11-25), re-measured.

The audit ran ccopt at sizes past those of ``bench_scale.py`` and found nine failures: a
dead end, a raw ``MemoryError``, time limits overrun or ignored, files read whole, an
error message of 789,050 characters. They have been fixed; this script measures each case
again, at the audit's sizes, so that BENCHMARKS.md can cite a reproducible run.

Data: ``k = 10`` Gaussian clusters in 8-D (``rng = default_rng(seed)``;
``y = rng.integers(0, k, n)``; ``X = rng.normal(scale=1.5, size=(k, d))[y] +
rng.normal(size=(n, d))``) and ``m`` constraints agreeing with ``y``, drawn from the same
generator: ``m / 2`` must-links between random objects of one label, ``m / 2``
cannot-links between random objects of different labels, all pairs distinct
(:func:`agreeing_pairs`). The cases, each run in its own process:

1. ``impact_start``: ``impact_scores(criterion="mssc", max_iter=5)``, n = m = 100,000.
2. ``lagrangian_memory``: ``impact_scores(method="lagrangian", max_iter=3)``, n = 10,000,
   m = 20,000, under an 8 GiB address-space limit (``RLIMIT_AS``) in the child.
3. ``setup_time_limit``: ``impact_scores(criterion="kmedoids", time_limit=5)``,
   n = 20,000, m = 4,000.
4. ``kmeans_s_exact``: ``KMeansS(size_assignment="exact", time_limit=5)`` with the true
   cluster sizes, n = 8,000 and 50,000.
5. ``matrix_file``: ``Constraints.from_matrix_file`` on a 10,000 x 10,000 0/1 matrix
   (``numpy.savetxt``) holding 5,000 random must-link pairs, both triangles.
6. ``load_csv``: ``ccopt.datasets.load_csv`` on a 100,000 x 50 numeric CSV plus a label column.
7. ``chain_message``: the closure of a 100,000-object must-link chain closed by a cannot-link
   raises ``InfeasibleConstraintsError``; the length of its message and of its certificate.
8. ``duplicates``: ``Constraints.from_pairs`` with every pair given twice, as ``(i, j)`` and
   ``(j, i)``, 25,000 / 50,000 / 100,000 rows over 100,000 objects.
9. ``bh_time_limit``: ``BHKMeans(time_limit=30).fit`` at n = m = 100,000, and with
   ``n_candidates=3, time_limit=120``.

Each case runs in a fresh Python process (this script re-invoked with ``--child``); its
peak resident memory is the child's own ``ru_maxrss`` as ``os.wait4`` reports it (the whole
process: Python, numpy, the data), its time that of the call alone. A child that outlives
its hard timeout (3 x its time limit + 120 s, or ``--timeout``) is killed with its process
group and reported as "killed at N s". The input files of cases 5 and 6 are written by the
parent into a temporary folder, deleted afterwards.

Writes ``benchmarks/results/scale_limits.csv`` (one row appended per run, so a killed run
loses one row; the report takes each run's latest row) and
``benchmarks/reports/scale_limits.md``.

Run: ``python benchmarks/bench_scale_limits.py --cases 1-8`` (the default sizes; about a
minute on 2 cores), ``--cases bh_time_limit`` for case 9 (up to 12 minutes if both runs are
killed at their hard timeouts), ``--quick``
for sizes 10 times smaller (under a minute, into ``benchmarks/results/quick/``),
``--report-only`` to rewrite the report from the results.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: make the benchmarks package importable
    sys.path.insert(0, str(HERE.parent))

from benchmarks._reports import (  # noqa: E402
    append_row,
    command_line,
    default_paths,
    machine,
    read_rows,
    require_results,
    save_report,
)
from benchmarks._scale_common import MIB, markdown_table, measured, print_table  # noqa: E402

CASES = ("impact_start", "lagrangian_memory", "setup_time_limit", "kmeans_s_exact", "matrix_file",
         "load_csv", "chain_message", "duplicates", "bh_time_limit")
K, D = 10, 8
ADDRESS_SPACE_GIB = 8
BEFORE_HEAD = "audit, before the fix (session of 2026-11-25)"
FIELDS = ["case", "setting", "size", "n", "m", "seed", "time_limit", "timeout", "seconds", "rss_peak_mib",
          "rss_before_mib", "rss_solver_mib", "outcome", "status", "error", "message_chars", "message",
          "detail", "exit_code", "killed", "date", "command"]


# ---------------------------------------------------------------------------------------------
# Data


def gaussian_data(n: int, d: int = D, k: int = K, seed: int = 0):
    """``k`` Gaussian clusters in ``d`` dimensions, and the generator, ready for the constraints.

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Labels in ``0..k-1``.
    rng : numpy.random.Generator
        The generator that drew them, for the constraints (one seed decides the instance).
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(scale=1.5, size=(k, d))[y] + rng.normal(size=(n, d))
    return X, y, rng


def _first_distinct(draw, count: int, keep, n: int) -> np.ndarray:
    """The first ``count`` distinct unordered pairs that ``draw`` yields and ``keep`` accepts.

    Pairs are drawn in batches until enough are distinct; they are returned in the order
    drawn, as drawn (``(i, j)`` and ``(j, i)`` are the same pair), so that which pairs are
    kept does not depend on their indices (``np.unique`` alone would keep the smallest).
    """
    pairs = np.empty((0, 2), dtype=np.int64)
    while True:
        need = count - pairs.shape[0]
        i, j = draw(2 * need + 16)
        new = np.column_stack([i, j])[keep(i, j)]
        pairs = np.concatenate([pairs, new])
        keys = np.minimum(pairs[:, 0], pairs[:, 1]) * n + np.maximum(pairs[:, 0], pairs[:, 1])
        _, first = np.unique(keys, return_index=True)
        pairs = pairs[np.sort(first)]
        if pairs.shape[0] >= count:
            return pairs[:count]


def agreeing_pairs(y: np.ndarray, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``m`` distinct constraints agreeing with ``y``: half must-links, half cannot-links.

    A must-link joins a random object and a random other object of its label; a cannot-link
    joins two random objects of different labels.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in ``0..k-1``.
    m : int
        Number of constraints: ``m // 2`` must-links and ``m - m // 2`` cannot-links.
    rng : numpy.random.Generator

    Returns
    -------
    ml : ndarray of shape (m // 2, 2)
    cl : ndarray of shape (m - m // 2, 2)

    Raises
    ------
    ValueError
        When ``y`` has fewer distinct same-label or different-label pairs than asked for.
    """
    y = np.asarray(y)
    n = y.size
    n_ml, n_cl = m // 2, m - m // 2
    counts = np.bincount(y)
    same = int(np.sum(counts * (counts - 1) // 2))
    if n_ml > same or n_cl > n * (n - 1) // 2 - same:
        raise ValueError(f"{n} objects with label counts {counts.tolist()} have {same} same-label and "
                         f"{n * (n - 1) // 2 - same} different-label pairs: cannot draw {n_ml} must-links "
                         f"and {n_cl} cannot-links. Ask for fewer constraints.")
    members = np.argsort(y, kind="stable")
    starts = np.cumsum(counts) - counts

    def same_label(size):
        i = rng.integers(0, n, size)
        return i, members[starts[y[i]] + rng.integers(0, counts[y[i]])]

    def any_two(size):
        return rng.integers(0, n, size), rng.integers(0, n, size)

    ml = _first_distinct(same_label, n_ml, lambda i, j: i != j, n)
    cl = _first_distinct(any_two, n_cl, lambda i, j: y[i] != y[j], n)
    return ml, cl


def instance(n: int, m: int, seed: int):
    """The data and constraints of cases 1-4 and 9: ``(X, y, ml, cl)``."""
    X, y, rng = gaussian_data(n, seed=seed)
    ml, cl = agreeing_pairs(y, m, rng)
    return X, y, ml, cl


def write_matrix_file(path: Path, n: int, n_pairs: int, seed: int) -> None:
    """An ``n x n`` 0/1 matrix of ``n_pairs`` random must-link pairs (both triangles), as text."""
    rng = np.random.default_rng(seed)
    pairs = _first_distinct(lambda size: (rng.integers(0, n, size), rng.integers(0, n, size)),
                            n_pairs, lambda i, j: i != j, n)
    matrix = np.zeros((n, n), dtype=np.int8)
    matrix[pairs[:, 0], pairs[:, 1]] = matrix[pairs[:, 1], pairs[:, 0]] = 1
    np.savetxt(path, matrix, fmt="%d", delimiter=",")


def write_data_csv(path: Path, n: int, d: int, seed: int) -> None:
    """``n`` Gaussian-cluster objects with ``d`` features and a ``label`` column, with a header."""
    X, y, _ = gaussian_data(n, d=d, seed=seed)
    header = ",".join([*(f"x{c}" for c in range(d)), "label"])
    # savetxt's default format for the features (full precision, 24-25 characters a value).
    np.savetxt(path, np.column_stack([X, y]), fmt=["%.18e"] * d + ["%d"], delimiter=",", header=header,
               comments="")


# ---------------------------------------------------------------------------------------------
# The cases (each called in its own child process)


def _call(run) -> tuple[object, BaseException | None, dict]:
    """``run()`` measured by ``_scale_common.measured``; an exception is returned, not raised."""
    def guarded():
        try:
            return run(), None
        except Exception as exc:  # the outcome of the case, e.g. MemoryError
            return None, exc

    (value, error), measures = measured(guarded, traced=False)
    return value, error, measures


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _impact_start(spec: dict) -> dict:
    import ccopt

    X, _, ml, cl = instance(spec["n"], spec["m"], spec["seed"])
    result, error, row = _call(lambda: ccopt.impact_scores(
        X, K, ml=ml, cl=cl, criterion="mssc", max_iter=5, random_state=0, progress=False))
    if error is None:
        violations = int(result.constraints.violations(result.labels).total)
        row.update(status=str(result.status),
                   detail=f"upper bound {result.upper_bound:,.1f}, {violations} violated")
    return {**row, "error": error}


def _lagrangian_memory(spec: dict) -> dict:
    import ccopt

    X, _, ml, cl = instance(spec["n"], spec["m"], spec["seed"])
    result, error, row = _call(lambda: ccopt.impact_scores(
        X, K, ml=ml, cl=cl, method="lagrangian", max_iter=3, random_state=0, progress=False))
    if error is None:
        row.update(status=str(result.status), detail=_count(result.n_iter, "iteration"))
    return {**row, "error": error}


def _setup_time_limit(spec: dict) -> dict:
    import ccopt

    X, _, ml, cl = instance(spec["n"], spec["m"], spec["seed"])
    result, error, row = _call(lambda: ccopt.impact_scores(
        X, K, ml=ml, cl=cl, criterion="kmedoids", time_limit=spec["time_limit"], random_state=0,
        progress=False))
    if error is None:
        row.update(status=str(result.status), detail=_count(result.n_iter, "iteration"))
    return {**row, "error": error}


def _kmeans_s_exact(spec: dict) -> dict:
    from ccopt.cluster import KMeansS

    X, y, _ = gaussian_data(spec["n"], seed=spec["seed"])
    sizes = np.bincount(y, minlength=K)
    model, error, row = _call(lambda: KMeansS(
        K, sizes=sizes, size_assignment="exact", time_limit=spec["time_limit"], random_state=0,
        progress=False).fit(X))
    if error is None:
        # The targets are matched to the clusters by rank: compare with the aligned ones.
        met = np.array_equal(np.bincount(model.labels_, minlength=K), model.aligned_sizes_)
        row.update(status=str(model.status_),
                   detail=f"{_count(model.n_iter_, 'iteration')}, sizes {'met' if met else 'NOT met'}")
    return {**row, "error": error}


def _matrix_file(spec: dict) -> dict:
    from ccopt import Constraints

    cons, error, row = _call(lambda: Constraints.from_matrix_file(spec["path"]))
    if error is None:
        row.update(status="read", detail=f"{cons.n_ml:,} must-links, {cons.n_cl:,} cannot-links")
    return {**row, "error": error}


def _load_csv(spec: dict) -> dict:
    from ccopt.datasets import load_csv

    data, error, row = _call(lambda: load_csv(spec["path"], label_column="label"))
    if error is None:
        row.update(status="read", detail=f"{data.X.shape[0]:,} x {data.X.shape[1]} features")
    return {**row, "error": error}


def _chain_message(spec: dict) -> dict:
    from ccopt import Constraints, InfeasibleConstraintsError

    n = spec["n"]
    chain = np.column_stack([np.arange(n - 1), np.arange(1, n)])

    def run():
        try:
            _ = Constraints.from_pairs(chain, [[0, n - 1]], n_samples=n).closure
        except InfeasibleConstraintsError as exc:  # the expected outcome: measure the message
            return exc
        return None

    exc, error, row = _call(run)
    if error is None and exc is None:
        row.update(status="feasible (unexpected)")
    elif error is None:
        certificate = len(exc.certificate) if exc.certificate is not None else 0
        row.update(status="InfeasibleConstraintsError", message_chars=len(str(exc)), message=str(exc)[:300],
                   detail=f"message {len(str(exc)):,} chars, certificate of {certificate:,} objects")
    return {**row, "error": error}


def _duplicates(spec: dict) -> dict:
    from ccopt import Constraints, DuplicateConstraintWarning

    _, y, rng = gaussian_data(spec["n"], seed=spec["seed"])
    ml, cl = agreeing_pairs(y, spec["m"] // 2, rng)
    ml, cl = np.concatenate([ml, ml[:, ::-1]]), np.concatenate([cl, cl[:, ::-1]])

    def run():
        with warnings.catch_warnings():
            # Expected: every row has its reverse. The warning's text is not the measure here.
            warnings.simplefilter("ignore", DuplicateConstraintWarning)
            return Constraints.from_pairs(ml, cl, n_samples=spec["n"])

    cons, error, row = _call(run)
    if error is None:
        row.update(status="merged", detail=f"{ml.shape[0] + cl.shape[0]:,} rows -> {cons.n_ml:,} ML + "
                                           f"{cons.n_cl:,} CL")
    return {**row, "error": error}


def _bh_time_limit(spec: dict) -> dict:
    from ccopt.cluster import BHKMeans

    X, _, ml, cl = instance(spec["n"], spec["m"], spec["seed"])
    options = {"n_candidates": spec["n_candidates"]} if spec.get("n_candidates") else {}
    model, error, row = _call(lambda: BHKMeans(
        K, time_limit=spec["time_limit"], random_state=0, progress=False, **options).fit(X, ml=ml, cl=cl))
    if error is None:
        row.update(status=str(model.status_),
                   detail=f"{_count(model.n_iter_, 'iteration')}, {model.n_violations_['total']} violated")
    return {**row, "error": error}


RUNNERS = {"impact_start": _impact_start, "lagrangian_memory": _lagrangian_memory,
           "setup_time_limit": _setup_time_limit, "kmeans_s_exact": _kmeans_s_exact,
           "matrix_file": _matrix_file, "load_csv": _load_csv, "chain_message": _chain_message,
           "duplicates": _duplicates, "bh_time_limit": _bh_time_limit}


def _child(spec: dict) -> None:
    """Run one case and print its row as JSON on the last line of stdout."""
    import ccopt

    if spec.get("address_space_gib"):
        limit = int(spec["address_space_gib"] * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # Not what is measured, and they would bury the row in the log.
    warnings.simplefilter("ignore", ccopt.ConvergenceWarning)
    row = RUNNERS[spec["case"]](spec)
    error = row.pop("error")
    if error is not None:
        row.update(status="error", error=type(error).__name__, message_chars=len(str(error)),
                   message=str(error)[:300])
    # Solver processes the case started (BH-kmeans' timed MIPs); the table shows the case's own.
    row["rss_solver_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024.0 / MIB
    print(json.dumps(row, default=float))


# ---------------------------------------------------------------------------------------------
# The plan and the parent


def _scaled(value: int, shrink: int, floor: int) -> int:
    return max(value // shrink, floor) if shrink > 1 else value


def plan(case: str, shrink: int = 1, seed: int = 0) -> list[dict]:
    """The runs of one case: the audit's sizes divided by ``shrink`` (with small floors).

    Each run is a dict of the child's arguments (``case``, ``n``, ``m``, ``time_limit``, ...)
    with its ``size`` and ``setting`` as the report shows them, and ``before``: the audit's
    figure, which names the audit's size when this run's differs. Time limits are kept,
    except case 9's, divided by ``shrink`` too: its limits are there to be reached.
    """
    def run(before: str, audit_size: str, n: int = 0, m: int = 0, **extra) -> dict:
        spec = {"case": case, "n": _scaled(n, shrink, 200), "m": _scaled(m, shrink, 20) if m else 0, "seed": seed,
                "time_limit": None, "setting": "", **extra}
        spec["size"] = _size_text(spec)
        spec["before"] = before if spec["size"] == audit_size or before == "—" else f"{before} (at {audit_size})"
        return spec

    if case == "impact_start":
        return [run("ClusteringDeadEndError after 13.8 s", "n = 100,000, m = 100,000", 100_000, 100_000)]
    if case == "lagrangian_memory":
        return [run("raw MemoryError at 5.5 GB", "n = 10,000, m = 20,000", 10_000, 20_000,
                    address_space_gib=ADDRESS_SPACE_GIB, setting=f"RLIMIT_AS {ADDRESS_SPACE_GIB} GiB")]
    if case == "setup_time_limit":
        return [run("24.6 s under load (the n x n distances computed whole)", "n = 20,000, m = 4,000",
                    20_000, 4_000, time_limit=5)]
    if case == "kmeans_s_exact":
        return [run("51.5 s, status time_limit", "n = 8,000", 8_000, time_limit=5),
                run("—", "n = 50,000", 50_000, time_limit=5)]
    if case == "matrix_file":
        return [run("37.5 s, 4.58 GiB", "10,000 x 10,000, 5,000 pairs", 10_000, 5_000)]
    if case == "load_csv":
        return [run("9.1 s, 1,896 MiB", "100,000 x 50 + label", 100_000, features=50)]
    if case == "chain_message":
        return [run("message of 789,050 characters", "chain of 100,000", 100_000)]
    if case == "duplicates":
        before = {25_000: "—", 50_000: "0.44 s", 100_000: "1.78 s (1,000,000 rows: 222 s)"}
        return [run(text, f"{rows:,} rows, n = 100,000", 100_000, rows) for rows, text in before.items()]
    if case == "bh_time_limit":
        limits = {30: ("about 60 s", ""), 120: ("no return within 900 s", "n_candidates=3")}
        return [run(before, "n = 100,000, m = 100,000", 100_000, 100_000, setting=setting,
                    time_limit=max(limit // shrink, 1), n_candidates=3 if setting else None)
                for limit, (before, setting) in limits.items()]
    raise ValueError(f"unknown case {case!r}; choose from {', '.join(CASES)}")


def _size_text(spec: dict) -> str:
    case, n, m = spec["case"], spec["n"], spec["m"]
    if case == "matrix_file":
        return f"{n:,} x {n:,}, {m:,} pairs"
    if case == "load_csv":
        return f"{n:,} x {spec['features']} + label"
    if case == "chain_message":
        return f"chain of {n:,}"
    if case == "duplicates":
        return f"{m:,} rows, n = {n:,}"
    return f"n = {n:,}" + (f", m = {m:,}" if m else "")


def _key(row: dict) -> tuple[str, ...]:
    """What identifies a run, alike in a plan's dict and in a row read back from the CSV."""
    limit = row["time_limit"]
    return (row["case"], row["setting"], row["size"], str(row["seed"]),
            "" if limit in (None, "") else f"{float(limit):g}")


def _prepare(spec: dict, folder: Path) -> dict:
    """Write the input file of cases 5 and 6 (not timed); the child gets its path."""
    if spec["case"] == "matrix_file":
        path = folder / "matrix.csv"
        write_matrix_file(path, spec["n"], spec["m"], spec["seed"])
    elif spec["case"] == "load_csv":
        path = folder / "data.csv"
        write_data_csv(path, spec["n"], spec["features"], spec["seed"])
    else:
        return spec
    print(f"  ({spec['case']}: wrote {path.stat().st_size / MIB:,.0f} MiB)", flush=True)
    return {**spec, "path": str(path)}


def run_child(spec: dict, timeout: float) -> dict:
    """Run one case in a fresh process; kill its process group after ``timeout`` seconds.

    Returns the child's row with ``rss_peak_mib`` (the child's peak resident memory, from
    ``os.wait4``: known even for a killed child), or a row saying how it ended.
    """
    killed = threading.Event()

    def kill(pid: int) -> None:
        killed.set()
        with contextlib.suppress(ProcessLookupError):  # it ended as the timer fired
            os.killpg(pid, signal.SIGKILL)  # its own session: also the solver processes it started

    command = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, start_new_session=True)
        timer = threading.Timer(timeout, kill, (child.pid,))
        timer.start()
        try:
            # wait4, not Popen.wait: it returns this child's own resource usage.
            _, status, usage = os.wait4(child.pid, 0)
        except BaseException:  # Ctrl-C: the child is in its own session and would run on
            kill(child.pid)
            child.wait()
            raise
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        lines, errors = out.read().strip().splitlines(), err.read().strip().splitlines()
    row = {"rss_peak_mib": usage.ru_maxrss * 1024.0 / MIB, "exit_code": child.returncode,
           "killed": killed.is_set()}
    if killed.is_set():
        return {**row, "status": "killed", "outcome": f"killed at {elapsed:.0f} s", "seconds": elapsed}
    if child.returncode != 0 or not lines:
        last = errors[-1] if errors else f"exit code {child.returncode}"
        return {**row, "status": "crashed", "outcome": f"crashed: {last[:200]}", "seconds": elapsed}
    return {**json.loads(lines[-1]), **row}


def outcome(row: dict) -> str:
    """The table's outcome cell: status and details, or the error's class and message length."""
    if row.get("outcome"):
        return row["outcome"]
    if row.get("error"):
        return f"{row['error']}, message {int(row['message_chars']):,} chars"
    return ", ".join(part for part in (row.get("status", ""), row.get("detail", "")) if part)


def measure(cases: list[str], shrink: int, seed: int, timeout: float, results: Path, command: str) -> None:
    """Run every case's runs, appending each row to ``results`` as it ends."""
    with tempfile.TemporaryDirectory(prefix="bench_scale_limits_") as folder:
        for case in cases:
            for spec in plan(case, shrink, seed):
                spec = _prepare(spec, Path(folder))
                limit = spec["time_limit"]
                hard = 3 * limit + 120 if limit else timeout
                row = run_child(spec, hard)
                row = {**{f: spec.get(f, "") for f in FIELDS}, **row, "timeout": hard,
                       "date": datetime.date.today().isoformat(), "command": command}
                row["outcome"] = outcome(row)
                append_row(results, {f: _cell(row.get(f)) for f in FIELDS}, FIELDS)
                print(f"{case:<18} {spec['size']:<30} {float(row['seconds']):8.2f} s  "
                      f"{row['rss_peak_mib']:7.0f} MiB  {row['outcome']}", flush=True)
                if "path" in spec:
                    os.unlink(spec["path"])  # the next file may need the room


def _cell(value) -> object:
    return "" if value is None else value


def table(rows: list[dict], shrink: int, seed: int, cases=CASES) -> tuple[list[str], list[list[str]]]:
    """The report's table: each planned run's latest row, or "not run" where it has none."""
    latest = {_key(row): row for row in rows}
    head = ["case", "size", "time limit", "wall s", "peak RSS MiB", "outcome", BEFORE_HEAD]
    lines = []
    for number, case in enumerate(CASES, start=1):
        if case not in cases:
            continue
        for spec in plan(case, shrink, seed):
            row = latest.get(_key(spec))
            name = f"{number}. {case}" + (f" ({spec['setting']})" if spec["setting"] else "")
            limit = f"{spec['time_limit']:g} s" if spec["time_limit"] else "—"
            if row is None:
                lines.append([name, spec["size"], limit, "—", "—", "not run", spec["before"]])
                continue
            seconds = float(row["seconds"])
            lines.append([name, spec["size"], limit, f"{seconds:.2f}" if seconds >= 0.1 else f"{seconds:.3f}",
                          f"{float(row['rss_peak_mib']):,.0f}", row["outcome"], spec["before"]])
    return head, lines


def report(rows: list[dict], shrink: int, seed: int) -> str:
    """The markdown report of the latest rows."""
    head, lines = table(rows, shrink, seed)
    case3_n = plan("setup_time_limit", shrink, seed)[0]["n"]
    shown = {_key(spec) for case in CASES for spec in plan(case, shrink, seed)}
    commands = sorted({row["command"] for row in rows if _key(row) in shown})
    dates = sorted({row["date"] for row in rows if _key(row) in shown})
    sizes = ("the audit's sizes" if shrink == 1 else
             f"the audit's sizes divided by {shrink} (a smoke run: the audit's figures were measured at its own sizes)")
    command_text = "; ".join(f"`{c}`" for c in commands) or "none yet"
    return f"""# Scale limits: the audit's failures, re-measured

The scale audit (session of 2026-11-25) found nine cases where ccopt failed at sizes past those
of the scale benchmark: a dead end, a raw `MemoryError`, time limits overrun or ignored,
files read whole into memory, an error message of 789,050 characters. They have been fixed;
this table measures each case again, at {sizes}, beside the audit's figure.

Machine: {machine()}. Timings are from a shared 2-core machine, noisy; every run was
alone in a fresh process. Measured on {", ".join(dates) or "—"}.

Commands: {command_text}

{markdown_table(head, lines)}

Data: k = 10 Gaussian clusters in 8-D (`rng = default_rng({seed})`, `y = rng.integers(0, k, n)`,
`X = rng.normal(scale=1.5, size=(k, d))[y] + rng.normal(size=(n, d))`) and m constraints
agreeing with `y`, drawn from the same generator: m / 2 must-links between random objects of
one label, m / 2 cannot-links between random objects of different labels, all pairs distinct
(`agreeing_pairs` in the script). The calls:

1. `ccopt.impact_scores(X, 10, ml=ml, cl=cl, criterion="mssc", max_iter=5, random_state=0)`; the
   outcome gives the status, the upper bound and the constraints its labels violate.
2. `impact_scores(..., method="lagrangian", max_iter=3)` in a process limited to
   {ADDRESS_SPACE_GIB} GiB of address space (`resource.setrlimit(RLIMIT_AS)`).
3. `impact_scores(..., criterion="kmedoids", time_limit=5)`.
4. `ccopt.cluster.KMeansS(10, sizes=np.bincount(y), size_assignment="exact", time_limit=5,
   random_state=0).fit(X)`; "sizes met" checks the labels' cluster sizes.
5. `Constraints.from_matrix_file(path)` on an n x n 0/1 matrix written by
   `np.savetxt(fmt="%d", delimiter=",")`, holding the given number of random must-link pairs
   in both triangles.
6. `ccopt.datasets.load_csv(path, label_column="label")` on a CSV of Gaussian-cluster
   features written in `np.savetxt`'s default format (`%.18e`), and an integer label column.
7. `Constraints.from_pairs(chain, [[0, n - 1]], n_samples=n).closure`, with `chain` the
   must-links `(i, i + 1)`: `InfeasibleConstraintsError`, whose message and certificate (the
   must-link chain between the two cannot-linked objects) are measured.
8. `Constraints.from_pairs(ml, cl, n_samples=n)` where every pair of m / 2 agreeing
   constraints is given twice, as `(i, j)` and `(j, i)` (the `DuplicateConstraintWarning` is
   expected and silenced).
9. `ccopt.cluster.BHKMeans(10, time_limit=30, random_state=0).fit(X, ml=ml, cl=cl)`, and the
   same with `n_candidates=3, time_limit=120`.

Columns: "wall s" is the call alone (not the data generation nor, for 5 and 6, writing the
file); "peak RSS" is the child process's whole peak resident memory (`ru_maxrss` from
`os.wait4`: Python, numpy, the data and the call; the processes in which BH-kmeans solves
its timed MIPs are not included, their peak is in the CSV's `rss_solver_mib`). A child still
running 3 x its time limit + 120 s after its start (`--timeout` seconds for the cases
without a limit) is killed and shown as "killed at N s", its time then counted from the
process start. The last column is the audit's measurement before the fixes, on its own
(loaded) machine; "—" where it measured none at that size.

The k-medoids route (case 3) holds the n x n distance matrix by design (8 n² bytes:
{8 * case3_n**2 / 1024**3:.2f} GiB at n = {case3_n:,}), so its peak memory is mostly that matrix; what was
fixed is that the time limit now covers its computation (in blocks of rows), where before the
matrix was computed whole first.
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="all",
                        help="comma-separated case names or numbers (1-9), ranges such as 1-8, or all")
    parser.add_argument("--quick", action="store_true", help="sizes 10 times smaller (same as --shrink 10)")
    parser.add_argument("--shrink", type=int, default=None,
                        help="divide the audit's sizes (and case 9's time limits) by this (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds before a case without a time limit is killed")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="default benchmarks/results (benchmarks/results/quick when smaller)")
    parser.add_argument("--report", type=Path, default=None,
                        help="default benchmarks/reports/scale_limits.md (in --out-dir when smaller)")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report from the results CSV")
    parser.add_argument("--child", type=json.loads, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return 0
    if args.quick and args.shrink not in (None, 10):
        parser.error(f"--quick is --shrink 10; got --shrink {args.shrink} too")
    shrink = 10 if args.quick else (args.shrink or 1)
    if shrink < 1:
        parser.error(f"--shrink must be at least 1, got {shrink}")
    try:
        cases = parse_cases(args.cases)
    except ValueError as exc:
        parser.error(str(exc))
    out_dir, report_path = default_paths(shrink > 1, args.out_dir, args.report, "scale_limits.md")
    results = out_dir / "scale_limits.csv"
    if args.report_only:
        require_results(read_rows(results), results)
    else:
        measure(cases, shrink, args.seed, args.timeout, results, command_line("bench_scale_limits.py", argv))
    rows = read_rows(results)
    head, lines = table(rows, shrink, args.seed, cases)
    print_table(head, lines)
    save_report(report_path, report(rows, shrink, args.seed))
    print(f"\nwrote {results} and {report_path}")
    return 0


def parse_cases(text: str) -> list[str]:
    """Case names from ``--cases``: names, numbers 1-9, ranges ``a-b``, or ``all``; in table order.

    Raises
    ------
    ValueError
        For a name or number that is no case.
    """
    chosen = set()
    for item in (part.strip() for part in text.split(",")):
        if item == "all":
            chosen.update(CASES)
        elif item in CASES:
            chosen.add(item)
        elif item.replace("-", "", 1).isdigit():
            first, _, last = item.partition("-")
            numbers = range(int(first), int(last or first) + 1)
            if not numbers or not all(1 <= i <= len(CASES) for i in numbers):
                raise ValueError(f"case numbers run from 1 to {len(CASES)}, got {item!r}")
            chosen.update(CASES[i - 1] for i in numbers)
        elif item:
            raise ValueError(f"unknown case {item!r}; choose from {', '.join(CASES)}, 1-{len(CASES)} or all")
    return [case for case in CASES if case in chosen]


if __name__ == "__main__":
    raise SystemExit(main())
