"""Command line interface (placeholder until the CLI issue lands)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Print usage; the subcommands arrive with the CLI issue."""
    print("usage: ccopt {score,cluster,bench} ...  (the command line is under construction)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
