"""How a benchmark publishes its report: the command that made it, and the file it goes to."""

from __future__ import annotations

import sys
from pathlib import Path


def command_line(script: str, argv) -> str:
    """``python benchmarks/<script>`` and its arguments (``sys.argv[1:]`` when ``argv`` is None).

    ``--report-only`` is left out: it rewrites a report from stored results, so the report
    still names the command that measured them.
    """
    passed = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--report-only"]
    return " ".join([f"python benchmarks/{script}", *passed])


def save_report(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
