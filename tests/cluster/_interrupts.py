"""Ctrl-C injected from inside an algorithm, as a signal handler would raise it."""

from __future__ import annotations


def interrupt_at(monkeypatch, module, call: int) -> list:
    """Make the ``call``-th distance computation of ``module`` raise KeyboardInterrupt.

    Returns the list that grows by one entry per computation (its length counts them).
    """
    calls = []
    original = module.squared_distances

    def counting(*args, **kwargs):
        calls.append(None)
        if len(calls) == call:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "squared_distances", counting)
    return calls
