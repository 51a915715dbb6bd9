"""Progress bars for long loops (tqdm), shown only on a terminal unless asked."""

from __future__ import annotations

import sys

import numpy as np
from tqdm.auto import tqdm

from ccopt._validation import _show
from ccopt.exceptions import InvalidParameterError

__all__ = ["check_progress", "progress_bar"]


def check_progress(enabled) -> bool | str:
    """Return ``enabled`` as ``True``, ``False`` or ``"always"``; refuse anything else.

    Read by truth value, any string (``"never"``) would show the bar, and ``None``, ``0``,
    ``1`` or another object would pass for an answer the message does not offer.

    Parameters
    ----------
    enabled : bool or "always"
        A ``bool`` (or ``numpy.bool_``) or the string ``"always"``.

    Returns
    -------
    bool or "always"

    Raises
    ------
    InvalidParameterError
        ``enabled`` is neither a bool nor ``"always"``.
    """
    if isinstance(enabled, (bool, np.bool_)):
        return bool(enabled)
    if isinstance(enabled, str) and enabled == "always":
        return "always"
    raise InvalidParameterError(f"progress must be True, False or 'always', got {_show(enabled)}.")


def progress_bar(total: int | None, *, enabled: bool | str = True, desc: str = "", unit: str = "it"):
    """Return a tqdm bar, or a disabled one.

    Parameters
    ----------
    total : int or None
        Expected number of steps.
    enabled : bool or "always", default=True
        ``True`` shows the bar only when stderr is a terminal; ``"always"`` forces it;
        ``False`` hides it.
    desc, unit : str
        Passed to tqdm.

    Raises
    ------
    InvalidParameterError
        ``enabled`` is neither a bool nor "always".
    """
    enabled = check_progress(enabled)
    if enabled == "always":
        disable = False
    elif enabled:
        disable = not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
    else:
        disable = True
    return tqdm(total=total, desc=desc, unit=unit, disable=disable, leave=False, dynamic_ncols=True)
