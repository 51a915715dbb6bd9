"""One BLAS thread inside the decorated kernels (ccopt._threads), restored on errors and nested."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info

from ccopt._threads import with_single_blas_thread


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
