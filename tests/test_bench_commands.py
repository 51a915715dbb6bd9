"""benchmarks/_commands.py: the command a report names is the one that measured it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _command_line():
    spec = importlib.util.spec_from_file_location("bench_commands", ROOT / "benchmarks" / "_commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.command_line


def test_no_arguments_no_trailing_space():
    assert _command_line()("bench_x.py", []) == "python benchmarks/bench_x.py"


def test_arguments_kept_in_order_and_report_only_dropped():
    command = _command_line()("bench_x.py", ["--datasets", "iris,wine", "--report-only", "--draws", "3"])
    assert command == "python benchmarks/bench_x.py --datasets iris,wine --draws 3"
