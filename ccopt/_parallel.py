"""Deterministic fan-out of independent tasks through joblib (Dask when asked).

Every task gets its own seed derived from one root seed with
:class:`numpy.random.SeedSequence`, so results do not depend on the number of workers or
the order in which they finish. :func:`task_seeds` numbers the tasks by position;
:func:`keyed_seed` derives a task's seed from a name of the task instead (its configuration),
so that adding tasks to a sweep or resuming it leaves the seeds of the other tasks unchanged.
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from ccopt._validation import check_random_state
from ccopt.config import config_context, get_config
from ccopt.exceptions import InvalidParameterError

__all__ = ["keyed_seed", "parallel_imap", "parallel_map", "root_seed", "task_seeds"]

_BACKENDS = ("loky", "threading", "dask")
# Backends whose workers are other processes: they start with the default ccopt settings.
_PROCESS_BACKENDS = ("loky", "dask")


def root_seed(random_state) -> int:
    """One non-negative integer that stands for ``random_state`` (recorded with results).

    Parameters
    ----------
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None
        An int is returned as is; a Generator gives one draw (a RandomState becomes one
        through :func:`ccopt._validation.check_random_state` first); ``None`` draws fresh
        entropy (the returned value makes that run reproducible afterwards).

    Returns
    -------
    int
    """
    if isinstance(random_state, np.random.RandomState):
        random_state = check_random_state(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63 - 1))
    if random_state is None:
        return int(np.random.SeedSequence().entropy % (2**63 - 1))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0:
        return int(random_state)
    raise InvalidParameterError(
        f"random_state must be None, a non-negative int, a numpy Generator or a RandomState, got {random_state!r}."
    )


def task_seeds(random_state, n_tasks: int) -> list[int]:
    """One independent integer seed per task, derived from ``random_state``.

    Parameters
    ----------
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None
        ``None`` draws fresh entropy (not reproducible).
    n_tasks : int

    Returns
    -------
    list of int
        ``n_tasks`` seeds in ``[0, 2**32)``.
    """
    root = np.random.SeedSequence(root_seed(random_state))
    return [int(child.generate_state(1, dtype=np.uint32)[0]) for child in root.spawn(n_tasks)]


def keyed_seed(root: int, key: str) -> int:
    """The seed of the task named ``key`` under the root seed ``root``.

    The key is hashed (SHA-256) into the ``spawn_key`` of a
    :class:`numpy.random.SeedSequence`, which keeps the streams of different keys
    independent, and the seed does not depend on where the task sits in a list.

    Parameters
    ----------
    root : int
        Non-negative root seed (see :func:`root_seed`).
    key : str
        Name of the task, e.g. the canonical JSON of its configuration.

    Returns
    -------
    int
        A seed in ``[0, 2**32)``.
    """
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    spawn_key = tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))
    sequence = np.random.SeedSequence(int(root), spawn_key=spawn_key)
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


def _check_n_jobs(n_jobs) -> int:
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise InvalidParameterError(
            f"n_jobs must be a positive number of workers or -1 (all cores), got {n_jobs!r}."
        )
    return int(n_jobs)


def _check_backend(backend) -> str | None:
    if backend is None:
        return None
    if backend == "multiprocessing":
        # joblib's multiprocessing backend cannot return results as they finish.
        raise InvalidParameterError(
            "backend='multiprocessing' cannot hand back results as they finish; use "
            "backend='loky' (worker processes too) or 'threading'."
        )
    if backend not in _BACKENDS:
        valid = ", ".join(repr(b) for b in _BACKENDS)
        raise InvalidParameterError(f"Unknown backend {backend!r}; valid values are {valid} or None.")
    if backend == "dask":
        try:
            from distributed import get_client
        except ImportError as exc:
            raise InvalidParameterError(
                "backend='dask' needs dask.distributed: pip install 'ccopt[dask]'."
            ) from exc
        try:
            get_client()
        except ValueError as exc:
            raise InvalidParameterError(
                "backend='dask' needs a running Dask client: create one first, e.g. "
                "`from dask.distributed import Client; client = Client('tcp://scheduler:8786')` "
                "(or Client() for a local cluster)."
            ) from exc
    return backend


def _numbered(function: Callable, position: int, task) -> tuple:
    return position, function(task)


class _WithConfig:
    """``function`` run under the caller's ccopt settings (a new worker process has the defaults)."""

    def __init__(self, function: Callable, config: dict):
        self.function = function
        self.config = config

    def __call__(self, task):
        with config_context(**self.config):
            return self.function(task)


def parallel_imap(function: Callable, tasks: Sequence | Iterable, *, n_jobs: int | None = 1,
                  backend: str | None = None, progress: bool | str = False,
                  desc: str = "tasks", ordered: bool = True) -> Iterator:
    """Yield ``function(task)`` for every task as the results arrive.

    Unlike :func:`parallel_map`, the caller sees each result as soon as it is done (with
    ``ordered=True``: as soon as it and all earlier ones are done), so it can save results
    while later tasks still run. Closing the generator (or an exception in the caller) stops
    the workers.

    Parameters
    ----------
    function : callable
        Must be picklable for process-based backends (a module-level function).
    tasks : sequence
    n_jobs : int or None, default=1
        Number of workers; ``-1`` uses all cores; 1 (or None) without a backend runs in this
        process.
    backend : {"loky", "threading", "dask"} or None, default=None
        A joblib backend; None means "loky" when ``n_jobs != 1``. "dask" needs
        ``pip install 'ccopt[dask]'`` and a running ``dask.distributed.Client``; the tasks
        then run on that cluster's workers. Workers in other processes run under the
        caller's :func:`ccopt.get_config` settings.
    progress : bool or "always", default=False
        Progress bar (on a terminal only unless "always").
    desc : str, default="tasks"
        Label of the progress bar.
    ordered : bool, default=True
        True yields the results in the order of ``tasks``. False yields
        ``(position, result)`` pairs in the order the tasks finish, so that a result that is
        done is never held back behind a slower task (which may yet fail or be interrupted).

    Yields
    ------
    object
        ``function(task)``, in the order of ``tasks``; ``(position, function(task))`` with
        ``ordered=False``.

    Raises
    ------
    InvalidParameterError
        Bad ``n_jobs``, ``backend`` or ``progress``, or ``backend="dask"`` without dask or
        without a client.
    """
    from ccopt._progress import check_progress

    # Checked here, not in the generator below, so a bad option raises at the call.
    tasks = list(tasks)
    n_jobs = _check_n_jobs(n_jobs)
    backend = _check_backend(backend)
    check_progress(progress)
    if (n_jobs != 1 or backend is not None) and (backend or "loky") in _PROCESS_BACKENDS:
        function = _WithConfig(function, get_config())
    return _imap(function, tasks, n_jobs, backend, progress, desc, ordered)


def _imap(function: Callable, tasks: list, n_jobs: int, backend: str | None, progress: bool | str,
          desc: str, ordered: bool) -> Iterator:
    from ccopt._progress import progress_bar

    bar = progress_bar(len(tasks), enabled=progress, desc=desc, unit="task")
    try:
        if n_jobs == 1 and backend is None:
            for position, task in enumerate(tasks):
                result = function(task)
                bar.update(1)
                yield result if ordered else (position, result)
            return
        from joblib import Parallel, delayed, parallel_config

        with parallel_config(backend=backend or "loky", n_jobs=n_jobs):
            if ordered:
                results = Parallel(return_as="generator")(delayed(function)(task) for task in tasks)
            else:
                # One task a batch: joblib's batches of short tasks held finished results back,
                # and an error in a batch lost the others (26 of 31 finished rows were saved).
                results = Parallel(return_as="generator_unordered", batch_size=1)(
                    delayed(_numbered)(function, position, task) for position, task in enumerate(tasks))
            try:
                for result in results:
                    bar.update(1)
                    yield result
            finally:
                # Closing joblib's generator aborts the tasks still queued (interrupts, errors).
                results.close()
    finally:
        bar.close()


def parallel_map(function: Callable, tasks: Sequence | Iterable, *, n_jobs: int | None = 1,
                 backend: str | None = None, progress: bool | str = False, desc: str = "tasks") -> list:
    """``[function(task) for task in tasks]``, run by joblib workers, in task order.

    The same as ``list(parallel_imap(...))``; see :func:`parallel_imap` for the parameters
    (``function`` must be a module-level function for process-based backends; ``n_jobs=-1``
    uses all cores; ``backend="dask"`` runs on the workers of a running
    ``dask.distributed.Client``).

    Returns
    -------
    list
        One result per task, in task order.
    """
    return list(parallel_imap(function, tasks, n_jobs=n_jobs, backend=backend, progress=progress,
                              desc=desc))
