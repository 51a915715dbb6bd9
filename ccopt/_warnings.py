"""Warnings that point at the user's line, whichever public entry point led to them.

A fixed ``stacklevel`` is right for one call path only: the same check is reached from
``fit``, ``fit_predict``, a function twin or a helper one frame deeper, and each path puts
a different number of ccopt frames between the check and the user. pandas solves this with
``find_stack_level``; ccopt does the same here. ``warnings.warn(skip_file_prefixes=...)``
would do it too, but only from Python 3.12 on, and ccopt supports 3.10.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn_user"]

# The separator keeps a sibling directory such as ``ccopt_extras`` from counting as ccopt.
_PACKAGE_PREFIX = os.path.dirname(__file__) + os.sep


def _is_import_machinery(filename: str) -> bool:
    # The test ``warnings.warn`` applies: it steps over these frames without counting them,
    # so counting them here would overshoot the user's frame.
    return "importlib" in filename and "_bootstrap" in filename


def _stacklevel_outside_package() -> int:
    """The ``stacklevel`` at which :func:`warn_user`'s ``warnings.warn`` names the user's frame."""
    frame = sys._getframe(2)  # the caller of warn_user; level 1 is warn_user itself
    level = 2
    try:
        while frame.f_back is not None and (frame.f_code.co_filename.startswith(_PACKAGE_PREFIX)
                                            or _is_import_machinery(frame.f_code.co_filename)):
            frame = frame.f_back
            if not _is_import_machinery(frame.f_code.co_filename):
                level += 1
    finally:
        del frame  # a frame held past the call keeps every local of the stack alive
    return level


def warn_user(message: str, category: type[Warning]) -> None:
    """Issue ``warnings.warn(message, category)`` attributed to the user's code.

    Parameters
    ----------
    message : str
        The warning text.
    category : type of Warning
        A subclass of :class:`ccopt.CcoptWarning` (or another ``Warning``).

    Notes
    -----
    The warning's filename and line are those of the innermost frame outside the installed
    ``ccopt`` package: the user's call to ``fit``, ``fit_predict``, a function twin,
    :func:`ccopt.impact_scores` or a loader. When every frame is ccopt's (a worker thread
    started inside ccopt), the outermost frame is named.
    """
    warnings.warn(message, category, stacklevel=_stacklevel_outside_package())
