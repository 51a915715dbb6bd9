"""Every Examples section in ccopt's docstrings runs and prints what it shows.

A user copies these first; five of them once used a name they never imported."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ccopt

MODULES = sorted(info.name for info in pkgutil.walk_packages(ccopt.__path__, "ccopt.")
                 if not info.name.endswith("__main__"))  # importing __main__ would run the CLI


def test_the_modules_hold_examples_to_check():
    examples = sum(len(test.examples) for name in MODULES
                   for test in doctest.DocTestFinder().find(importlib.import_module(name), name))
    assert examples >= 25


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run_as_printed(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(module, name):
        # As a user runs them: in a fresh namespace, not inside the module that defines the names.
        test.globs = {"__name__": "__main__"}
        runner.run(test)
    # The runner prints each failing example with what it printed instead.
    assert runner.summarize(verbose=False).failed == 0
