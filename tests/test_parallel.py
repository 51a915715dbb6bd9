"""Deterministic fan-out (ccopt._parallel) and progress bars (ccopt._progress)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import ccopt
from ccopt._parallel import keyed_seed, parallel_imap, parallel_map, root_seed, task_seeds
from ccopt._progress import progress_bar
from ccopt.config import config_context, get_config
from ccopt.exceptions import InvalidParameterError


def _draw(seed: int) -> list[float]:
    """A seeded task: the same seed gives the same draws in any process."""
    return np.random.default_rng(seed).normal(size=3).tolist()


GIB = 1024**3


def _max_dense_bytes(_task) -> int:
    """The bound a worker sees (module level: picklable by reference)."""
    return get_config()["max_dense_bytes"]


def _identity(task):
    return task


def _raise_on_two(task):
    position, error = task
    if error is not None:
        raise error
    return position


def test_task_seeds_reproducible_distinct_and_root_dependent():
    seeds = task_seeds(7, 50)
    assert seeds == task_seeds(7, 50)
    assert len(set(seeds)) == 50
    assert seeds != task_seeds(8, 50)
    # A prefix of a longer list: adding tasks at the end leaves earlier seeds alone.
    assert task_seeds(7, 10) == seeds[:10]
    # A Generator stands for the int it draws.
    assert task_seeds(np.random.default_rng(3), 5) == task_seeds(np.random.default_rng(3), 5)


def test_keyed_seed_depends_on_key_and_root_only():
    assert keyed_seed(0, "a") == keyed_seed(0, "a")
    assert keyed_seed(0, "a") != keyed_seed(0, "b")
    assert keyed_seed(0, "a") != keyed_seed(1, "a")
    assert 0 <= keyed_seed(123, "x" * 1000) < 2**32


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_root_seed_rejects_bad_random_state(bad):
    with pytest.raises(InvalidParameterError, match="random_state must be None, a non-negative int"):
        root_seed(bad)


def test_root_seed_none_is_fresh_and_usable():
    a, b = root_seed(None), root_seed(None)
    assert a != b  # 2**-63 chance of a false failure
    assert isinstance(a, int) and a >= 0


def test_parallel_map_serial_keeps_order():
    assert parallel_map(abs, [-3, 2, -1]) == [3, 2, 1]
    assert list(parallel_imap(abs, [])) == []


def test_two_loky_workers_give_exactly_the_serial_results():
    seeds = task_seeds(11, 6)
    serial = parallel_map(_draw, seeds)
    parallel = parallel_map(_draw, seeds, n_jobs=2)
    assert parallel == serial
    assert parallel_map(_draw, seeds, n_jobs=2, backend="threading") == serial


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_unordered_imap_numbers_every_result_with_its_task(n_jobs):
    seeds = task_seeds(5, 7)
    pairs = list(parallel_imap(_draw, seeds, n_jobs=n_jobs, ordered=False))
    assert sorted(position for position, _ in pairs) == list(range(7))
    assert all(result == _draw(seeds[position]) for position, result in pairs)


@pytest.mark.parametrize(("n_jobs", "backend", "match"), [
    (0, None, "n_jobs must be a positive number of workers or -1"),
    (1.5, None, "n_jobs must be a positive number"),
    (1, "spark", "Unknown backend 'spark'; valid values are 'loky'"),
])
def test_parallel_map_rejects_bad_options(n_jobs, backend, match):
    with pytest.raises(InvalidParameterError, match=match):
        parallel_map(abs, [1], n_jobs=n_jobs, backend=backend)


def test_dask_backend_without_distributed_says_what_to_install(monkeypatch):
    # None in sys.modules makes the import fail as if the package were absent.
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(InvalidParameterError, match=r"needs dask.distributed: pip install 'ccopt\[dask\]'"):
        parallel_map(abs, [1], backend="dask")


@pytest.mark.slow
def test_dask_backend_without_a_client_says_how_to_get_one():
    pytest.importorskip("distributed")
    with pytest.raises(InvalidParameterError, match="needs a running Dask client"):
        parallel_map(abs, [1], backend="dask")


@pytest.mark.slow
def test_dask_backend_gives_the_serial_results():
    distributed = pytest.importorskip("distributed")
    seeds = task_seeds(5, 4)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        assert parallel_map(_draw, seeds, backend="dask", n_jobs=-1) == parallel_map(_draw, seeds)


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


def test_seeds_and_results_do_not_depend_on_n_jobs_even_with_more_workers_than_tasks():
    seeds = task_seeds(3, 3)
    assert parallel_map(_identity, seeds, n_jobs=8, backend="threading") == parallel_map(_identity, seeds) == seeds


def test_progress_bar_hidden_unless_terminal_or_always(capsys):
    with progress_bar(3, enabled=False, desc="off") as bar:
        bar.update(3)
    with progress_bar(3, enabled=True, desc="notty") as bar:  # pytest's stderr is no terminal
        bar.update(3)
    assert capsys.readouterr().err == ""
    with progress_bar(3, enabled="always", desc="forced") as bar:
        bar.update(3)
    assert "forced" in capsys.readouterr().err


def test_parallel_map_progress_always_reports_every_task(capsys):
    assert parallel_map(abs, [-1, -2], progress="always", desc="demo") == [1, 2]
    assert "demo" in capsys.readouterr().err
