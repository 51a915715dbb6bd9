"""Review of the infrastructure: time budgets, fan-out, progress, settings, threads, exceptions,
lazy imports. Regression tests for the defects found, and checks of the contracts callers rely on."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
import threading
import time

import pytest
from threadpoolctl import threadpool_info

import ccopt
import ccopt.exceptions
from ccopt._parallel import parallel_imap, parallel_map, task_seeds
from ccopt._progress import progress_bar
from ccopt._threads import with_single_blas_thread
from ccopt._timing import Deadline
from ccopt.config import check_dense_memory, config_context, get_config
from ccopt.exceptions import InvalidParameterError

GIB = 1024**3


def _max_dense_bytes(_task) -> int:
    """The bound a worker sees (module level: picklable by reference)."""
    return get_config()["max_dense_bytes"]


def _identity(task):
    return task


# ----------------------------------------------------------------------------- _parallel
@pytest.mark.parametrize("ordered", [True, False])
def test_worker_processes_run_under_the_callers_settings(ordered):
    # A loky worker starts with the default bound: a task that checks its memory then got
    # another answer with n_jobs=2 than with n_jobs=1.
    with config_context(max_dense_bytes=1000):
        serial = list(parallel_imap(_max_dense_bytes, range(3), ordered=ordered))
        parallel = list(parallel_imap(_max_dense_bytes, range(3), n_jobs=2, ordered=ordered))
    expected = [1000] * 3 if ordered else [(i, 1000) for i in range(3)]
    assert serial == expected
    assert sorted(parallel) == expected
    # Outside the block the (reused) workers are back on the default.
    assert parallel_map(_max_dense_bytes, range(2), n_jobs=2) == [4 * GIB] * 2


@pytest.mark.parametrize(("options", "match"), [
    ({"n_jobs": 0}, "n_jobs must be a positive number of workers or -1"),
    ({"backend": "spark"}, "Unknown backend 'spark'"),
    ({"progress": "never"}, "progress must be True, False or 'always', got 'never'"),
])
def test_parallel_imap_checks_its_options_at_the_call_not_at_the_first_result(options, match):
    with pytest.raises(InvalidParameterError, match=match):
        parallel_imap(abs, [1], **options)  # not iterated


@pytest.mark.parametrize("n_jobs", [-2, -1000])
def test_n_jobs_below_minus_one_is_refused_as_the_message_says(n_jobs):
    with pytest.raises(InvalidParameterError, match=rf"positive number of workers or -1 \(all cores\), got {n_jobs}"):
        parallel_map(abs, [1, 2], n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_multiprocessing_backend_is_a_clear_error_whatever_n_jobs(n_jobs):
    # joblib's multiprocessing backend cannot return a generator: it failed with a bare
    # joblib ValueError for n_jobs=2.
    with pytest.raises(InvalidParameterError, match=r"backend='multiprocessing' cannot hand back results.*'loky'"):
        parallel_map(abs, [1, 2], n_jobs=n_jobs, backend="multiprocessing")


def test_worker_errors_keep_their_type_message_and_attributes():
    error = ccopt.InfeasibleConstraintsError("task 2 is infeasible", certificate=[2, 9])
    with pytest.raises(ccopt.InfeasibleConstraintsError, match="task 2 is infeasible") as info:
        parallel_map(_raise_on_two, [(0, None), (2, error)], n_jobs=2, backend="threading")
    assert info.value.certificate == [2, 9]


def _raise_on_two(task):
    position, error = task
    if error is not None:
        raise error
    return position


def test_seeds_and_results_do_not_depend_on_n_jobs_even_with_more_workers_than_tasks():
    seeds = task_seeds(3, 3)
    assert parallel_map(_identity, seeds, n_jobs=8, backend="threading") == parallel_map(_identity, seeds) == seeds


# ----------------------------------------------------------------------------- _progress
@pytest.mark.parametrize("enabled", ["never", "False", "ALWAYS", ""])
def test_a_progress_string_other_than_always_is_refused(enabled):
    with pytest.raises(InvalidParameterError, match="progress must be True, False or 'always'"):
        progress_bar(3, enabled=enabled)


def test_progress_bar_without_a_total_and_closed_on_error(capsys):
    with pytest.raises(RuntimeError, match="boom"), progress_bar(None, enabled="always", desc="unknown") as bar:
        bar.update(2)
        raise RuntimeError("boom")
    assert "unknown" in capsys.readouterr().err
    with progress_bar(None, enabled=False) as bar:
        bar.update(5)
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------- config
class _WatchedSettings(dict):
    """The settings dict, recording every moment a mutation leaves a setting missing."""

    def __init__(self, *args):
        super().__init__(*args)
        self.gaps: list[str] = []

    def _check(self, step: str) -> None:
        if "max_dense_bytes" not in self:
            self.gaps.append(step)  # another thread reading now would get a KeyError

    def clear(self):
        super().clear()
        self._check("clear")

    def update(self, *args, **kwargs):
        super().update(*args, **kwargs)
        self._check("update")

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self._check("setitem")


def test_config_context_exit_never_leaves_the_settings_empty_for_another_thread(monkeypatch):
    # The exit cleared the settings before refilling them: a thread reading a setting in
    # between (a threading-backend worker, a web server) got KeyError('max_dense_bytes').
    watched = _WatchedSettings(get_config())
    monkeypatch.setattr("ccopt.config._config", watched)
    with pytest.raises(RuntimeError, match="boom"), config_context(max_dense_bytes=10**6):
        assert check_dense_memory((2, 2)) == 32
        raise RuntimeError("boom")
    assert watched.gaps == []
    assert get_config() == {"max_dense_bytes": 4 * GIB}


def test_config_context_under_concurrent_readers():
    errors: list[BaseException] = []
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            with config_context(max_dense_bytes=10**6):
                pass

    def read():
        while not stop.is_set():
            try:
                check_dense_memory((2, 2))
            except BaseException as exc:  # any failure is the finding
                errors.append(exc)
                return

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=flip), threading.Thread(target=read)]
    try:
        for thread in threads:
            thread.start()
        end = time.perf_counter() + 0.2
        while time.perf_counter() < end and not errors:
            time.sleep(0.005)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        sys.setswitchinterval(interval)
    assert errors == []
    assert get_config() == {"max_dense_bytes": 4 * GIB}


# ----------------------------------------------------------------------------- _timing
def test_deadline_budgets():
    free = Deadline(None)
    assert free.remaining() is None and not free.expired()
    assert free.budget() is None and free.budget(2.5) == 2.5
    spent = Deadline(1e-9)
    time.sleep(0.001)
    assert spent.expired() and spent.remaining() == 0.0 and spent.budget(5.0) == 0.0
    child = Deadline(spent.budget(10.0))  # a nested budget of a spent one is spent too
    assert child.expired()
    outer = Deadline(100.0)
    assert 0 < outer.budget(1.0) == 1.0 and outer.budget() <= 100.0
    endless = Deadline(math.inf)
    assert not endless.expired() and endless.budget(3.0) == 3.0


@pytest.mark.parametrize("bad", [0, -1, math.nan])
def test_public_time_limits_are_checked_at_the_boundary(bad):
    with pytest.raises(InvalidParameterError, match="time_limit must be > 0 seconds"):
        ccopt.KMeans(2, time_limit=bad).fit([[0.0], [1.0], [2.0]])


# ----------------------------------------------------------------------------- _threads
def _blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


@pytest.mark.parametrize("error", [ValueError("bad"), KeyboardInterrupt()])
def test_single_blas_thread_decorator_restores_on_errors_and_nests(error):
    before = _blas_threads()

    @with_single_blas_thread
    def inner(fail):
        assert all(n == 1 for n in _blas_threads())
        if fail:
            raise error
        return "done"

    @with_single_blas_thread
    def outer():
        result = inner(False)
        assert all(n == 1 for n in _blas_threads())
        return result

    assert outer() == "done"
    with pytest.raises(type(error)):
        inner(True)
    assert _blas_threads() == before


# ----------------------------------------------------------------------------- exceptions
def _instances():
    for name in ccopt.exceptions.__all__:
        cls = getattr(ccopt.exceptions, name)
        if cls is ccopt.DataFormatError:
            yield cls("bad row", path="data.csv", line=7)
        elif cls is ccopt.InfeasibleConstraintsError:
            yield cls("cannot-link inside a must-link chain", certificate=[0, 3, 5])
        else:
            yield cls(f"{name} message")


@pytest.mark.parametrize("error", list(_instances()), ids=lambda e: type(e).__name__)
def test_every_exception_survives_a_pickle_round_trip_with_its_attributes(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.__dict__ == error.__dict__
    if isinstance(error, ccopt.DataFormatError):
        assert (copy.path, copy.line, str(copy)) == ("data.csv", 7, "data.csv:7: bad row")


def test_value_errors_are_value_errors():
    for cls in (ccopt.InvalidDataError, ccopt.DataFormatError, ccopt.InvalidConstraintError,
                ccopt.ConflictingConstraintError, ccopt.InfeasibleConstraintsError,
                ccopt.InvalidParameterError, ccopt.NotFittedError):
        assert issubclass(cls, ValueError) and issubclass(cls, ccopt.CcoptError), cls


# ----------------------------------------------------------------------------- __init__ / __main__
def test_every_public_name_resolves_is_listed_and_a_wrong_one_is_an_attribute_error():
    assert len(set(ccopt.__all__)) == len(ccopt.__all__)
    listed = dir(ccopt)
    for name in ccopt.__all__:
        assert name in listed
        assert getattr(ccopt, name) is not None
    with pytest.raises(AttributeError, match="module 'ccopt' has no attribute 'Kmeans'"):
        ccopt.Kmeans  # noqa: B018


def test_import_ccopt_stays_light_and_importing_main_does_not_run_the_cli():
    code = ("import sys; import ccopt; heavy = [m for m in ('pyomo', 'sklearn', 'joblib', 'matplotlib') "
            "if m in sys.modules]; import ccopt.__main__; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    out = subprocess.run([sys.executable, "-m", "ccopt", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("usage: ccopt"), out.stderr
