"""Progress bars for long loops (tqdm), shown only on a terminal unless asked."""

from __future__ import annotations

import sys

from tqdm.auto import tqdm

__all__ = ["progress_bar"]


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
    """
    if enabled == "always":
        disable = False
    elif enabled:
        disable = not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
    else:
        disable = True
    return tqdm(total=total, desc=desc, unit=unit, disable=disable, leave=False, dynamic_ncols=True)
