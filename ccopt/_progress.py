"""Progress bars for long loops (tqdm), shown only on a terminal unless asked."""

from __future__ import annotations

import sys
import time

import numpy as np
from tqdm.auto import tqdm

from ccopt._validation import _show
from ccopt.exceptions import InvalidParameterError

__all__ = ["DRAW_AFTER", "check_progress", "progress_bar", "show_phase"]

# Seconds a loop runs before its bar is drawn on a terminal: every estimator shows progress by
# default, and most fits end long before a bar would be read.
DRAW_AFTER = 1.0


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
        ``True`` shows the bar only when stderr is a terminal, and only from the first step
        that ends ``DRAW_AFTER`` seconds or more after the start (tqdm's ``delay``: a fit of a
        few milliseconds draws nothing, and a loop whose first step takes minutes shows its
        bar after that step); ``"always"`` draws it at once, terminal or not; ``False`` hides it.
    desc, unit : str
        Passed to tqdm.

    Raises
    ------
    InvalidParameterError
        ``enabled`` is neither a bool nor "always".
    """
    enabled = check_progress(enabled)
    delay = 0.0
    if enabled == "always":
        disable = False
    elif enabled:
        disable = not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
        delay = DRAW_AFTER
    else:
        disable = True
    return tqdm(total=total, desc=desc, unit=unit, disable=disable, leave=False, dynamic_ncols=True,
                delay=delay)


def show_phase(bar, description: str) -> None:
    """Show what a long step is doing, as the bar's postfix.

    A step of a loop can take minutes (one BH-kmeans assignment step at 100,000 objects),
    during which the count does not move. The postfix is drawn at once when the bar is due
    (``"always"``, or past its ``DRAW_AFTER`` delay), so that a bar still at 0 says where
    the time goes; before the delay it waits for the next drawing, as the count does.

    Parameters
    ----------
    bar : tqdm
        A bar from :func:`progress_bar` (a disabled one ignores the call).
    description : str
        A few words (``"step 3: local search"``).
    """
    if bar.disable:
        return
    bar.set_postfix_str(description, refresh=False)
    if time.time() >= bar.start_t + bar.delay:
        bar.refresh()
