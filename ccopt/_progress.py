"""Progress bars for long loops (tqdm), shown only on a terminal unless asked."""

from __future__ import annotations

import sys

from tqdm.auto import tqdm

from ccopt.exceptions import InvalidParameterError

__all__ = ["check_progress", "progress_bar"]


def check_progress(enabled) -> None:
    """Refuse a string other than "always": any string is truthy, so "never" would show the bar."""
    if isinstance(enabled, str) and enabled != "always":
        raise InvalidParameterError(f"progress must be True, False or 'always', got {enabled!r}.")


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
        ``enabled`` is a string other than "always".
    """
    check_progress(enabled)
    if enabled == "always":
        disable = False
    elif enabled:
        disable = not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
    else:
        disable = True
    return tqdm(total=total, desc=desc, unit=unit, disable=disable, leave=False, dynamic_ncols=True)
