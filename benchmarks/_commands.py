"""The command line a benchmark report names, so a reader can re-run it."""

from __future__ import annotations

import sys


def command_line(script: str, argv) -> str:
    """``python benchmarks/<script>`` and its arguments (``sys.argv[1:]`` when ``argv`` is None).

    ``--report-only`` is left out: it rewrites a report from stored results, so the report
    still names the command that measured them.
    """
    passed = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--report-only"]
    return " ".join([f"python benchmarks/{script}", *passed])
