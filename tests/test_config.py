"""Tests of ccopt.config: the dense-memory bound and how it is changed."""

from __future__ import annotations

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
