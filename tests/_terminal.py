"""A stand-in for stderr on a terminal, for the tests of progress bars and log streams."""

from __future__ import annotations

import io


class Terminal(io.StringIO):
    """A text stream that says it is a terminal, and keeps what is written to it."""

    def isatty(self) -> bool:
        return True
