"""Small files for the command-line tests: six objects in two groups and two constraints on them."""

from __future__ import annotations

from pathlib import Path

# Six objects in two groups; constraint 0-1 ML and 0-4 CL hold for them (0-based data rows).
ROWS = "0,0\n0,1\n5,5\n5,6\n9,0\n9,1\n"
CONSTRAINTS = "i,j,kind\n0,1,ML\n0,4,CL\n"


def write_arg(path: Path, text: str) -> str:
    """Write ``text`` to ``path``; return the path as a command-line argument."""
    path.write_text(text)
    return str(path)


def messages_given(capsys, caplog) -> set[str]:
    """The distinct messages the command gave on stderr or through its logger (a log record can
    reach both), without the ``ccopt: warning:`` prefix; the log records are cleared."""
    lines = capsys.readouterr()[1].splitlines() + [r.getMessage() for r in caplog.records]
    caplog.clear()
    return {line.removeprefix("ccopt: warning: ") for line in lines}
