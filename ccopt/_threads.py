"""Thread limits: one BLAS thread for the thin matrix products of the clustering kernels,
one thread in every pool where a result must not depend on the machine."""

from __future__ import annotations

import functools

from threadpoolctl import threadpool_limits

__all__ = ["one_thread", "single_blas_thread", "with_single_blas_thread"]


def single_blas_thread():
    """Context: one BLAS thread.

    The products here are ``(n, d) x (d, k)`` with small ``k``: memory-bound, so extra
    BLAS threads buy nothing and, on a loaded machine, cost up to 10x (measured: 48 ms vs
    8 ms for n=100,000, d=k=10). scikit-learn's KMeans does the same.
    """
    return threadpool_limits(limits=1, user_api="blas")


def with_single_blas_thread(function):
    """Decorator: run ``function`` inside :func:`single_blas_thread`."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with single_blas_thread():
            return function(*args, **kwargs)

    return wrapper


def one_thread():
    """Context: one thread in every pool (BLAS and OpenMP).

    For results that must not depend on the machine: scikit-learn's k-means sums over
    per-thread chunks, so its rounding, and with it the pick among restarts of equal
    inertia (discrete data such as Balance), follows the thread count.
    """
    return threadpool_limits(limits=1)
