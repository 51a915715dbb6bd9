"""benchmarks/_reports.py: the command a report names is the one that measured it."""

from __future__ import annotations

import io

import pytest

from tests._terminal import Terminal


@pytest.fixture(scope="module")
def command_line(benchmark_script):
    return benchmark_script("_reports").command_line


def test_no_arguments_no_trailing_space(command_line):
    assert command_line("bench_x.py", []) == "python benchmarks/bench_x.py"


def test_arguments_kept_in_order_and_report_only_dropped(command_line):
    command = command_line("bench_x.py", ["--datasets", "iris,wine", "--report-only", "--draws", "3"])
    assert command == "python benchmarks/bench_x.py --datasets iris,wine --draws 3"


def test_save_report_creates_the_folder(benchmark_script, tmp_path):
    path = tmp_path / "new" / "report.md"
    benchmark_script("_reports").save_report(path, "# title\n")
    assert path.read_text() == "# title\n"


def test_results_rows_append_with_one_header_and_read_back(benchmark_script, tmp_path):
    reports = benchmark_script("_reports")
    path = tmp_path / "new" / "results.csv"
    assert reports.read_rows(path) == []
    reports.append_row(path, {"a": 1, "b": "x"}, ["a", "b"])
    reports.append_row(path, {"a": 2, "b": "y"}, ["a", "b"])
    assert path.read_text().splitlines()[0] == "a,b"
    assert reports.read_rows(path) == [{"a": "1", "b": "x"}, {"a": "2", "b": "y"}]


def test_named_columns_read_back_as_numbers_and_empty_cells_stay_empty(benchmark_script, tmp_path):
    reports = benchmark_script("_reports")
    path = tmp_path / "results.csv"
    fields = ["name", "count", "value"]
    reports.append_row(path, {"name": "a", "count": 3, "value": 0.1 + 0.2}, fields)
    reports.append_row(path, {"name": "b", "count": "", "value": 1e-300}, fields)
    rows = reports.read_rows(path, ints=("count",), floats=("value",))
    assert rows == [{"name": "a", "count": 3, "value": 0.1 + 0.2}, {"name": "b", "count": "", "value": 1e-300}]


def test_a_figure_is_named_by_its_path_from_the_repository_root(benchmark_script, tmp_path):
    reports = benchmark_script("_reports")
    note = reports.figure_note(reports.BENCHMARKS_DIR / "reports" / "x.png", "ARI against p")
    assert note.startswith("Figure: ARI against p in `benchmarks/reports/x.png`")
    # A --quick run's report sits in benchmarks/results/quick/, with its figure beside it; the note
    # named benchmarks/reports/ whatever the report's folder.
    note = reports.figure_note(tmp_path / "x.png", "ARI against p")
    assert note.startswith("Figure: ARI against p in `x.png, beside this report`")


def test_task_progress_goes_to_a_log_stream_once_and_not_to_a_terminal(benchmark_script):
    import logging

    logger = logging.getLogger("ccopt.experiments")
    handlers, level = list(logger.handlers), logger.level
    logger.handlers = []
    try:
        log_task_progress = benchmark_script("_reports").log_task_progress
        log_task_progress(Terminal())
        assert logger.handlers == []  # the progress bar shows there
        stream = io.StringIO()
        log_task_progress(stream)
        log_task_progress(stream)
        assert len(logger.handlers) == 1
        logger.info("experiment demo: %d of %d tasks done", 1, 2)
        assert stream.getvalue().rstrip().endswith("experiment demo: 1 of 2 tasks done")
        assert stream.getvalue().count("tasks done") == 1
    finally:
        logger.handlers = handlers
        logger.setLevel(level)  # also clears the loggers' cached levels


def test_machine_line_names_what_decides_rounding_and_versions(benchmark_script, tmp_path):
    import os
    from importlib import metadata

    reports = benchmark_script("_reports")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu sse2 avx2 avx512f\n"
                       "processor\t: 1\nmodel name\t: Test CPU 9000\nflags\t\t: fpu sse2 avx2 avx512f\n")
    line = reports.machine(cpuinfo)
    assert line.startswith("Test CPU 9000 (with AVX-512; ")
    assert f"{os.cpu_count()} cores" in line
    for package in ("numpy", "scikit-learn", "highspy"):
        assert f"{package} {metadata.version(package)}" in line

    cpuinfo.write_text("model name\t: Other CPU\nflags\t\t: fpu sse2 avx2\n")
    assert reports.machine(cpuinfo).startswith("Other CPU (no AVX-512; ")


def test_a_quick_run_writes_its_report_beside_its_results_not_over_the_stored_one(benchmark_script, tmp_path):
    reports = benchmark_script("_reports")
    root = reports.BENCHMARKS_DIR
    assert reports.default_paths(False, None, None, "jia.md") == (root / "results", root / "reports" / "jia.md")
    # `ccopt bench jia --quick` overwrote the committed 100 x 100 report with a 2 x 2 smoke test.
    assert reports.default_paths(True, None, None, "jia.md") == (root / "results" / "quick",
                                                                 root / "results" / "quick" / "jia.md")
    assert reports.default_paths(True, tmp_path, None, "jia.md") == (tmp_path, tmp_path / "jia.md")
    assert reports.default_paths(True, None, tmp_path / "r.md", "jia.md")[1] == tmp_path / "r.md"


@pytest.mark.parametrize(("script", "results", "extra"), [
    ("bench_jia", "jia.csv", []), ("bench_jia", "jia_below_k.csv", ["--set-size-rule", "below-k"]),
    ("bench_pcs", "pcs.csv", []), ("bench_bh_kmeans", "bh_kmeans.csv", []), ("bench_bh_noise", "bh_noise.csv", []),
    ("bench_impact_k_sweep", "k_sweep.csv", []), ("bench_impact_set_selection", "set_selection.csv", []),
])
def test_report_only_without_results_stops_before_writing(benchmark_script, tmp_path, script, results, extra):
    # Results are not tracked by git: on a fresh checkout --report-only wrote a report of empty
    # tables over the stored one, then crashed drawing the figure (or, for the two sweeps, stopped
    # with a traceback). The two Jia rules keep apart results: one rule's report never reads the other's.
    report = tmp_path / "report.md"
    argv = ["--report-only", *extra]
    if script.startswith("bench_impact"):
        argv += ["--out", str(tmp_path / results)]
    else:
        argv += ["--out-dir", str(tmp_path)]
    if script in ("bench_jia", "bench_pcs"):
        argv += ["--report", str(report)]
    with pytest.raises(SystemExit, match=rf"{results}: no results to report on.*run the benchmark first"):
        benchmark_script(script).main(argv)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def _square(config: dict) -> dict:
    return {"value": config["x"] ** 2 + config.get("shift", 0)}


def test_a_report_reads_only_the_rows_of_the_tasks_it_ran(benchmark_script, tmp_path):
    # The k-sweep and synthetic reports averaged in rows of earlier runs with other settings
    # that the same results file still held.
    from ccopt.experiments import run_experiment

    reports = benchmark_script("_reports")
    out = tmp_path / "runs.csv"
    first = [{"x": x, "shift": 100} for x in range(3)]
    run_experiment(first, _square, out, progress=False, random_state=0)
    second = [{"x": x} for x in range(2)]
    run_experiment(second, _square, out, progress=False, random_state=0)
    rows = reports.current_rows(second, out)
    assert sorted(row["value"] for row in rows) == [0, 1]
    assert len(reports.current_rows(first, out)) == 3


def test_an_interrupted_run_writes_no_report(benchmark_script, capsys):
    from ccopt.experiments import ExperimentResult

    reports = benchmark_script("_reports")
    stopped = ExperimentResult(records=[], path=None, n_run=2, n_skipped=1, n_failed=0, interrupted=True,
                               root_seed=0, config={"n_tasks": 10})
    assert reports.stopped_early(stopped)
    assert capsys.readouterr().err == ("interrupted: 3 of 10 tasks finished; no report written. Run the same "
                                       "command again to resume.\n")
    assert not reports.stopped_early(ExperimentResult(records=[], path=None, n_run=10, n_skipped=0, n_failed=0,
                                                      interrupted=False, root_seed=0, config={"n_tasks": 10}))
