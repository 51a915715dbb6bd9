"""Deterministic fan-out of independent tasks through joblib (Dask when asked).

Every task gets its own seed derived from one root seed with
:class:`numpy.random.SeedSequence`, so results do not depend on the number of workers or
the order in which they finish.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ccopt._validation import check_positive_int
from ccopt.exceptions import InvalidParameterError

__all__ = ["parallel_map", "task_seeds"]


def task_seeds(random_state, n_tasks: int) -> list[int]:
    """One independent integer seed per task, derived from ``random_state``.

    Parameters
    ----------
    random_state : int, numpy.random.Generator or None
        ``None`` draws fresh entropy (not reproducible).
    n_tasks : int
    """
    if isinstance(random_state, np.random.Generator):
        root = np.random.SeedSequence(int(random_state.integers(2**63 - 1)))
    elif random_state is None:
        root = np.random.SeedSequence()
    elif isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) and random_state >= 0:
        root = np.random.SeedSequence(int(random_state))
    else:
        raise InvalidParameterError(
            f"random_state must be None, a non-negative int or a numpy Generator, got {random_state!r}."
        )
    return [int(child.generate_state(1, dtype=np.uint32)[0]) for child in root.spawn(n_tasks)]


def parallel_map(function: Callable, tasks: Sequence | Iterable, *, n_jobs: int | None = 1,
                 backend: str | None = None, progress: bool = False, desc: str = "tasks") -> list:
    """``[function(task) for task in tasks]``, run by joblib workers, in task order.

    Parameters
    ----------
    function : callable
        Must be picklable for process-based backends (a module-level function).
    tasks : sequence
    n_jobs : int or None, default=1
        Number of workers; ``-1`` uses all cores; 1 runs in this process.
    backend : str, optional
        A joblib backend name: "loky" (default), "threading", or "dask" (needs
        ``pip install 'ccopt[dask]'`` and a running ``dask.distributed.Client``).
    progress : bool, default=False
        Show a progress bar (only on a terminal).
    desc : str
        Label of the progress bar.
    """
    from ccopt._progress import progress_bar

    tasks = list(tasks)
    if n_jobs is None:
        n_jobs = 1
    if n_jobs != -1:
        n_jobs = check_positive_int(n_jobs, "n_jobs")
    bar = progress_bar(len(tasks), enabled=progress, desc=desc)
    try:
        if n_jobs == 1 and backend is None:
            out = []
            for task in tasks:
                out.append(function(task))
                bar.update(1)
            return out
        from joblib import Parallel, delayed, parallel_backend

        if backend == "dask":
            try:
                import distributed  # noqa: F401  (registers joblib's dask backend)
            except ImportError as exc:
                raise InvalidParameterError(
                    "backend='dask' needs dask.distributed: pip install 'ccopt[dask]'."
                ) from exc
        with parallel_backend(backend or "loky", n_jobs=n_jobs):
            results = Parallel(return_as="generator")(delayed(function)(task) for task in tasks)
            out = []
            for result in results:
                out.append(result)
                bar.update(1)
        return out
    finally:
        bar.close()
