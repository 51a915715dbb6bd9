"""Library-wide settings: the memory bound for dense arrays.

Use :func:`set_config` to change a setting for the session and :func:`config_context` to
change it inside a ``with`` block.
"""

from __future__ import annotations

import contextlib
import logging
import numbers
from collections.abc import Iterator

from ccopt.exceptions import InvalidParameterError, MemoryBudgetError

__all__ = ["check_dense_memory", "config_context", "get_config", "set_config"]

logger = logging.getLogger(__name__)

_GIB = 1024**3
# Dense allocations from this size on are announced at INFO level before they are made.
_ANNOUNCE_BYTES = 64 * 1024**2
_config: dict[str, object] = {"max_dense_bytes": 4 * _GIB}


def get_config() -> dict[str, object]:
    """Return a copy of the current settings.

    Returns
    -------
    dict
        ``max_dense_bytes`` (int): the largest dense array, in bytes, that a method may
        allocate before refusing with :class:`~ccopt.MemoryBudgetError` (default 4 GiB).
    """
    return dict(_config)


def set_config(*, max_dense_bytes: int | None = None) -> None:
    """Change library-wide settings.

    Parameters
    ----------
    max_dense_bytes : int, optional
        Bound on a single dense allocation such as the ``n x n`` distance matrix of the
        k-medoids routes.
    """
    if max_dense_bytes is not None:
        if isinstance(max_dense_bytes, bool) or not isinstance(max_dense_bytes, numbers.Integral):
            raise InvalidParameterError(
                f"max_dense_bytes must be an int number of bytes, got {max_dense_bytes!r}."
            )
        if max_dense_bytes <= 0:
            raise InvalidParameterError(f"max_dense_bytes must be > 0, got {max_dense_bytes}.")
        _config["max_dense_bytes"] = int(max_dense_bytes)


@contextlib.contextmanager
def config_context(**settings) -> Iterator[None]:
    """Temporarily change settings inside a ``with`` block (same keywords as :func:`set_config`).

    Raises
    ------
    InvalidParameterError
        For an unknown setting name.
    """
    unknown = sorted(set(settings) - set(_config))
    if unknown:
        valid = ", ".join(sorted(_config))
        raise InvalidParameterError(f"Unknown setting(s) {unknown}; valid settings are {valid}.")
    saved = get_config()
    set_config(**settings)
    try:
        yield
    finally:
        # No clear() first: another thread reading a setting meanwhile must find it.
        _config.update(saved)


def check_dense_memory(shape: tuple[int, ...], *, itemsize: int = 8, what: str = "array") -> int:
    """Refuse a dense allocation larger than ``max_dense_bytes``; return its size in bytes.

    An allocation that is allowed is announced in the log before it is made (INFO level
    from 64 MiB on, DEBUG below), so a user sees how much memory a dense route takes.

    Parameters
    ----------
    shape : tuple of int
        Shape of the array about to be allocated.
    itemsize : int, default=8
        Bytes per element.
    what : str
        Description used in the error message, e.g. ``"k-medoids distance matrix"``.

    Raises
    ------
    MemoryBudgetError
        If the array would exceed the bound.
    """
    n_bytes = itemsize
    for dim in shape:
        n_bytes *= int(dim)
    limit = int(_config["max_dense_bytes"])
    dims = " x ".join(str(int(d)) for d in shape)
    if n_bytes > limit:
        summary = (f"The {what} ({dims}) needs {_size(n_bytes)}, more than the configured "
                   f"bound of {_size(limit)}.")
        raise MemoryBudgetError(
            f"{summary} Use a method that needs no dense matrix (for example criterion='mssc'), "
            "subsample the data, or raise the bound with ccopt.set_config(max_dense_bytes=...).",
            summary=summary)
    logger.log(logging.INFO if n_bytes >= _ANNOUNCE_BYTES else logging.DEBUG,
               "The %s (%s) takes %s (bound %s, ccopt.set_config(max_dense_bytes=...)).",
               what, dims, _size(n_bytes), _size(limit))
    return n_bytes


def _size(n_bytes: int) -> str:
    """A byte count in the largest binary unit that keeps it at least 1 (two decimals)."""
    for unit, factor in (("GiB", _GIB), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= factor:
            return f"{n_bytes / factor:.2f} {unit}"
    return f"{int(n_bytes)} byte{'' if int(n_bytes) == 1 else 's'}"
