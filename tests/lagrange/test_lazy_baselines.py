"""The impact score's default routes do not load Pyomo: the baselines, which do, load on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ccopt.lagrange


def test_impact_scores_imports_without_pyomo():
    # Importing the baselines eagerly pulled in ccopt.solvers and pyomo.environ: 1.4 s
    # against 0.75 s for `import ccopt; ccopt.impact_scores` (this machine).
    code = ("import sys, ccopt; ccopt.impact_scores; from ccopt.lagrange import impact_scores; "
            "print('pyomo.environ' in sys.modules, 'ccopt.lagrange.baselines' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.split() == ["False", "False"]


def test_the_baselines_are_still_names_of_the_package():
    from ccopt.lagrange import baselines

    for name in ccopt.lagrange._BASELINES:
        assert getattr(ccopt.lagrange, name) is getattr(baselines, name)
        assert name in dir(ccopt.lagrange) and name in ccopt.lagrange.__all__
    namespace: dict = {}
    exec("from ccopt.lagrange import *", namespace)
    assert set(ccopt.lagrange.__all__) <= set(namespace)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        ccopt.lagrange.no_such_name  # noqa: B018
