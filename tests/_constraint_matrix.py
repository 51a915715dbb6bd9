"""A 4 x 4 constraint matrix (0-1 must-link, 0-3 cannot-link) and its text with any separator."""

from __future__ import annotations

MATRIX = [[0, 1, 0, -1], [1, 0, 0, 0], [0, 0, 0, 0], [-1, 0, 0, 0]]


def matrix_text(separator: str) -> str:
    """The rows of MATRIX, their values joined by ``separator``."""
    return "".join(separator.join(str(v) for v in row) + "\n" for row in MATRIX)
