"""benchmarks/_reports.py: the command a report names is the one that measured it."""

from __future__ import annotations

import pytest


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
