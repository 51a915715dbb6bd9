"""Removing fixed columns, and the rows they make redundant, before a MIP reaches HiGHS.

A persistent MIP whose variables are switched off by their bounds (BH-kmeans with
``n_candidates``: 23 of every 26 assignment columns on Letter are bounded to 0) still hands
HiGHS the whole matrix on every re-solve, and HiGHS's presolve then spends over a second
removing what numpy removes in milliseconds: on Letter's core program 1.0-1.5 s of presolve
against 0.1 s of search per step. :func:`reduce_fixed` does the first, exact part of that
presolve on the matrix:

* a column with ``lower == upper`` at a finite integral value becomes a constant: its cost
  moves into the offset and its activity into the row bounds (a column fixed at a fractional
  value stays, since it may be an integer column that makes the program infeasible, which
  only HiGHS, knowing the integrality, can say);
* a row that the bounds of its remaining columns already satisfy (its smallest and largest
  activity lie within its bounds) is dropped.

Every solution of the reduced program, completed with the fixed values, is a solution of
the original with the same objective, and the reduced program's optimum is the original's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

# A row counts as redundant only with this much room (relative to its bound), far below
# HiGHS's primal feasibility tolerance (1e-7).
_ROOM = 1e-9


@dataclass(frozen=True)
class Reduction:
    """A program without its fixed columns and redundant rows; see :func:`reduce_fixed`."""

    keep_cols: np.ndarray     # bool, (n_cols,)
    keep_rows: np.ndarray     # bool, (n_rows,)
    A: sp.csc_array           # (kept rows, kept columns)
    row_lower: np.ndarray
    row_upper: np.ndarray
    offset: float             # the original offset plus the fixed columns' cost
    fixed_values: np.ndarray  # (n_cols,): the fixed value of dropped columns, 0 elsewhere

    def expand(self, col_value: np.ndarray) -> np.ndarray:
        """The full column vector: the reduced solution, and the fixed columns' values."""
        full = self.fixed_values.copy()
        full[self.keep_cols] = col_value
        return full


def reduce_fixed(A: sp.csc_array, cost: np.ndarray, offset: float, row_lower: np.ndarray,
                 row_upper: np.ndarray, col_lower: np.ndarray, col_upper: np.ndarray) -> Reduction:
    """Drop the fixed columns of ``min c x + offset, row_lower <= A x <= row_upper`` and the
    rows that become redundant.

    A column counts as fixed when ``col_lower == col_upper`` at a finite integral value: an
    integer column fixed at a fractional value makes the program infeasible, and dropping it
    would hide that (the integrality is not known here), so such columns are kept.

    Parameters
    ----------
    A : scipy.sparse.csc_array, shape (n_rows, n_cols)
    cost : ndarray, shape (n_cols,)
    offset : float
    row_lower, row_upper : ndarray, shape (n_rows,)
    col_lower, col_upper : ndarray, shape (n_cols,)

    Returns
    -------
    Reduction
    """
    fixed = (col_lower == col_upper) & np.isfinite(col_lower) & (col_lower == np.round(col_lower))
    keep_cols = ~fixed
    fixed_values = np.where(fixed, col_lower, 0.0)
    shift = A @ fixed_values
    lower, upper = row_lower - shift, row_upper - shift
    kept = A[:, keep_cols]
    low_act, high_act = _activity_range(kept, col_lower[keep_cols], col_upper[keep_cols])
    room_up = _ROOM * np.maximum(1.0, np.abs(upper))
    room_low = _ROOM * np.maximum(1.0, np.abs(lower))
    redundant = (high_act <= upper + room_up) & (low_act >= lower - room_low)
    keep_rows = ~redundant
    matrix = sp.csc_array(sp.csr_array(kept)[keep_rows])
    matrix.sort_indices()
    return Reduction(keep_cols=keep_cols, keep_rows=keep_rows, A=matrix,
                     row_lower=lower[keep_rows], row_upper=upper[keep_rows],
                     offset=float(offset + cost[fixed] @ col_lower[fixed]),
                     fixed_values=fixed_values)


def _activity_range(A: sp.csc_array, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest ``A x`` per row over ``lower <= x <= upper`` (``-inf``/``inf`` if unbounded)."""
    positive = A.multiply(A > 0)
    negative = A - positive
    finite_lower, finite_upper = np.isfinite(lower), np.isfinite(upper)
    low_value, up_value = np.where(finite_lower, lower, 0.0), np.where(finite_upper, upper, 0.0)
    low = positive @ low_value + negative @ up_value
    high = positive @ up_value + negative @ low_value
    # A row is unbounded in a direction as soon as one of its terms is.
    has_positive, has_negative = (positive != 0).astype(np.float64), (negative != 0).astype(np.float64)
    open_lower, open_upper = (~finite_lower).astype(np.float64), (~finite_upper).astype(np.float64)
    low_open = has_positive @ open_lower + has_negative @ open_upper
    high_open = has_positive @ open_upper + has_negative @ open_lower
    return np.where(low_open > 0, -np.inf, low), np.where(high_open > 0, np.inf, high)
