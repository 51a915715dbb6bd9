"""Warnings that point at the user's line, whichever public entry point led to them.

A fixed ``stacklevel`` is right for one call path only: the same check is reached from
``fit``, ``fit_predict``, a function twin or a helper one frame deeper, and each path puts
a different number of ccopt frames between the check and the user. pandas solves this with
``find_stack_level``; ccopt does the same here. ``warnings.warn(skip_file_prefixes=...)``
would do it too, but only from Python 3.12 on, and ccopt supports 3.10.
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["warn_user"]


def _in_ccopt(frame) -> bool:
    # By module name, not file name: a .pyc-only install has code objects whose file names
    # are those of the build machine, and a sibling package such as ccopt_extras is not ccopt.
    name = frame.f_globals.get("__name__", "")
    return name == "ccopt" or name.startswith("ccopt.")


def _is_import_machinery(frame) -> bool:
    # The test ``warnings.warn`` applies: it steps over these frames without counting them,
    # so counting them here would overshoot the user's frame.
    filename = frame.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


def _stacklevel_outside_package() -> int:
    """The ``stacklevel`` at which :func:`warn_user`'s ``warnings.warn`` names the user's frame."""
    frame = sys._getframe(2)  # the caller of warn_user; level 1 is warn_user itself
    level = 2
    try:
        while frame.f_back is not None and (_in_ccopt(frame) or _is_import_machinery(frame)):
            frame = frame.f_back
            if not _is_import_machinery(frame):
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
    The warning's filename and line are those of the innermost frame outside the ``ccopt``
    package (by module name): the user's call to ``fit``, ``fit_predict``, a function twin,
    :func:`ccopt.impact_scores` or a loader. When no such frame exists (a thread whose
    target is a ccopt function), the outermost frame is named (for a thread, ``threading``'s).
    As the warning is attributed to the user's module, filter ccopt's warnings by category
    (``CcoptWarning``, ``ConvergenceWarning``), not with ``module="ccopt"``.
    """
    warnings.warn(message, category, stacklevel=_stacklevel_outside_package())
