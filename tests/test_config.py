"""Tests of ccopt.config: the dense-memory bound and how it is changed."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

from ccopt.config import check_dense_memory, config_context, get_config, set_config
from ccopt.exceptions import InvalidParameterError, MemoryBudgetError

GIB = 1024**3


@pytest.fixture(autouse=True)
def restore_config():
    saved = get_config()
    yield
    set_config(**saved)


def test_default_and_copy():
    config = get_config()
    assert config == {"max_dense_bytes": 4 * GIB}
    config["max_dense_bytes"] = 1
    assert get_config()["max_dense_bytes"] == 4 * GIB  # a copy, not the live settings


def test_set_config_validates():
    set_config(max_dense_bytes=np.int64(1000))
    assert get_config()["max_dense_bytes"] == 1000
    assert type(get_config()["max_dense_bytes"]) is int
    set_config()  # nothing given, nothing changed
    assert get_config()["max_dense_bytes"] == 1000
    with pytest.raises(InvalidParameterError, match=r"max_dense_bytes must be an int number of bytes, got 1\.5"):
        set_config(max_dense_bytes=1.5)
    with pytest.raises(InvalidParameterError, match="got True"):
        set_config(max_dense_bytes=True)
    with pytest.raises(InvalidParameterError, match="max_dense_bytes must be > 0, got 0"):
        set_config(max_dense_bytes=0)
    assert get_config()["max_dense_bytes"] == 1000  # a rejected value changes nothing


def test_config_context_restores_even_on_error():
    with config_context(max_dense_bytes=64):
        assert get_config()["max_dense_bytes"] == 64
        with config_context(max_dense_bytes=8):
            assert get_config()["max_dense_bytes"] == 8
        assert get_config()["max_dense_bytes"] == 64
    assert get_config()["max_dense_bytes"] == 4 * GIB
    with pytest.raises(RuntimeError, match="boom"), config_context(max_dense_bytes=64):
        raise RuntimeError("boom")
    assert get_config()["max_dense_bytes"] == 4 * GIB


def test_config_context_rejects_unknown_settings():
    with pytest.raises(InvalidParameterError, match=r"Unknown setting\(s\) \['max_bytes'\]; valid settings are max_dense_bytes"), \
            config_context(max_bytes=1):
        pass
    with pytest.raises(InvalidParameterError, match="must be > 0"), config_context(max_dense_bytes=-1):
        pass
    assert get_config()["max_dense_bytes"] == 4 * GIB


def test_check_dense_memory():
    assert check_dense_memory((10, 20)) == 10 * 20 * 8
    assert check_dense_memory((10, 20), itemsize=1) == 200
    with config_context(max_dense_bytes=1000):
        assert check_dense_memory((5, 25)) == 1000  # exactly at the bound is allowed
        with pytest.raises(MemoryBudgetError,
                           match=r"The distance matrix \(10 x 20\) needs 1\.56 KiB, more than the configured bound of 1000 bytes\..*set_config\(max_dense_bytes=\.\.\.\)"):
            check_dense_memory((10, 20), what="distance matrix")


@pytest.mark.parametrize(("shape", "bound", "needs", "bound_text"), [
    ((10, 20), 1000, "1.56 KiB", "1000 bytes"),
    ((4000, 4000), 2**20, "122.07 MiB", "1.00 MiB"),
    ((3, 3), 1, "72 bytes", "1 byte"),
])
def test_the_memory_bound_speaks_in_a_unit_that_shows_the_numbers(shape, bound, needs, bound_text):
    with config_context(max_dense_bytes=bound), pytest.raises(MemoryBudgetError) as info:
        check_dense_memory(shape, what="matrix")
    assert info.value.summary == f"The matrix ({shape[0]} x {shape[1]}) needs {needs}, more than the " \
                                 f"configured bound of {bound_text}."


# ----------------------------------------------------------------------------- concurrent readers
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
