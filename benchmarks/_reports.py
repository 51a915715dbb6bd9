"""How a benchmark keeps its results and publishes its report.

Results are CSV files appended one record at a time (a killed run loses one row and resumes
where it stopped); the report names the command that made it.
"""

from __future__ import annotations

import csv
import logging
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

# The packages whose versions decide a report's figures.
_PACKAGES = ("numpy", "scipy", "scikit-learn", "highspy", "pyomo")


def command_line(script: str, argv) -> str:
    """``python benchmarks/<script>`` and its arguments (``sys.argv[1:]`` when ``argv`` is None).

    ``--report-only`` is left out: it rewrites a report from stored results, so the report
    still names the command that measured them.
    """
    passed = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--report-only"]
    return " ".join([f"python benchmarks/{script}", *passed])


def _cpu(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, bool]:
    """The CPU's model name and whether it has AVX-512 (Linux; elsewhere the architecture)."""
    model, flags = "", ""
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name") and not model:
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1]
    except OSError:
        pass
    return model or platform.processor() or platform.machine(), "avx512f" in flags.split()


def _blas_kernel() -> str:
    """The BLAS library numpy loaded and the kernel it chose for this CPU."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "BLAS unknown"
    import numpy  # noqa: F401  (loads the BLAS library threadpoolctl reports)

    for lib in threadpool_info():
        if lib.get("user_api") == "blas":
            return " ".join(part for part in (lib.get("internal_api"), lib.get("architecture"), "kernel") if part)
    return "BLAS unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The machine a report was measured on, in one line.

    Besides what decides the timings (CPU, cores), it names what decides the rounding: whether
    the CPU has AVX-512 and which BLAS kernel was picked for it. On data with exactly tied
    distances (Balance: every combination of four features from 1 to 5) ties break by that
    rounding, so such rows can differ from machine to machine with the same code and seeds.
    """
    model, avx512 = _cpu(cpuinfo)
    versions = ", ".join(f"{name} {_version(name)}" for name in _PACKAGES)
    return (f"{model} ({'with' if avx512 else 'no'} AVX-512; {_blas_kernel()}), {os.cpu_count()} cores, "
            f"{platform.system()}, Python {platform.python_version()}; {versions}")


def log_task_progress(stream=None) -> None:
    """Show ``run_experiment``'s line per finished task when its progress bar is hidden.

    The bar shows only on a terminal; a run writing to a log file (``nohup``, CI) would
    otherwise say nothing for an hour. Calling this again adds no second handler.
    """
    stream = sys.stderr if stream is None else stream
    if hasattr(stream, "isatty") and stream.isatty():
        return
    logger = logging.getLogger("ccopt.experiments")
    if any(getattr(h, "_task_progress", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    handler._task_progress = True
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    # The command line's root handler would print every line a second time.
    logger.propagate = False


def current_rows(tasks, path: Path, *, with_errors: bool = False) -> list[dict]:
    """The rows of the results file ``path`` that belong to ``tasks`` (matched by task key).

    A results file keeps the rows of earlier runs with other settings (another
    ``--max-iter``, ``--stride``, ...); a report must average only the tasks it was asked for.
    Failed rows (an ``error``) are left out unless ``with_errors``.
    """
    from ccopt.experiments import read_results, task_key

    keys = {task_key(task) for task in tasks}
    return [row for row in read_results(path)
            if row.get("task") in keys and (with_errors or not row.get("error"))]


def stopped_early(result) -> bool:
    """Say so when Ctrl-C stopped ``run_experiment``: its report would stand on some tasks only.

    The finished rows are saved; running the same command again resumes. Returns True when the
    caller should exit with 130 (interrupted) without writing a report.
    """
    if not result.interrupted:
        return False
    print(f"interrupted: {result.n_run + result.n_skipped} of {result.config['n_tasks']} tasks finished; "
          "no report written. Run the same command again to resume.", file=sys.stderr)
    return True


BENCHMARKS_DIR = Path(__file__).resolve().parent


def default_paths(quick: bool, out_dir: Path | None, report: Path | None, report_name: str) -> tuple[Path, Path]:
    """Where a run writes its results and its report, unless ``--out-dir`` / ``--report`` say.

    A full run writes ``benchmarks/results/`` and ``benchmarks/reports/<report_name>``. A
    ``--quick`` smoke run writes both into ``benchmarks/results/quick/``: it must not overwrite
    the stored report (tracked by git, collected into BENCHMARKS.md) nor a full run's results.
    """
    if out_dir is None:
        out_dir = BENCHMARKS_DIR / "results" / ("quick" if quick else "")
    if report is None:
        report = (out_dir if quick else BENCHMARKS_DIR / "reports") / report_name
    return out_dir, report


def require_results(rows: list, path: Path) -> None:
    """Stop a ``--report-only`` run that has no results, before it writes an empty report."""
    if not rows:
        raise SystemExit(
            f"{path}: no results to report on. --report-only rewrites a report from the results "
            "an earlier run left (in benchmarks/results/ unless --out-dir or --out said otherwise; "
            "git does not track them, so a fresh checkout has none): run the benchmark first.")


def save_report(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def figure_note(path: Path, what: str) -> str:
    """The report line that names its figure (written beside the report, not kept in git)."""
    stored = path.resolve().parent == BENCHMARKS_DIR / "reports"
    where = f"benchmarks/reports/{path.name}" if stored else f"{path.name}, beside this report"
    return (f"Figure: {what} in `{where}` (drawn by this benchmark, also with "
            "`--report-only`; figures are not kept in git).")


def draw_band(ax, x, samples, *, colour, label: str) -> None:
    """Mean of each sample against ``x``, with a band of one standard deviation."""
    import numpy as np

    mean = np.array([np.mean(v) for v in samples])
    sd = np.array([np.std(v) for v in samples])
    ax.plot(x, mean, marker="o", ms=3, color=colour, label=label)
    ax.fill_between(x, mean - sd, mean + sd, color=colour, alpha=0.15, lw=0)


def read_rows(path: Path, *, ints=(), floats=()) -> list[dict]:
    """The records of a results CSV (none when the file does not exist yet).

    Values are strings, except the columns named in ``ints`` and ``floats``, converted where
    not empty.
    """
    if not path.is_file():
        return []
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row.update({c: int(row[c]) for c in ints if row[c] != ""})
        row.update({c: float(row[c]) for c in floats if row[c] != ""})
    return rows


def append_row(path: Path, row: dict, fields) -> None:
    """Append one record (header first when the file is new), so a killed run loses one row."""
    new = not path.is_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        if new:
            writer.writeheader()
        writer.writerow(row)
