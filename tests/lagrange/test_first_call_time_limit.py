"""A short time_limit on the first impact_scores call of a session is spent on scoring."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
import numpy as np
import ccopt
assert "sklearn" not in sys.modules  # the first call pays scikit-learn's import
rng = np.random.default_rng(0)
X = np.vstack([rng.normal(c, 0.3, size=(6, 2)) for c in (0.0, 3.0, 6.0)])
result = ccopt.impact_scores(X, 3, ml=[(0, 1), (6, 7)], cl=[(0, 6), (12, 13)], progress=False,
                             random_state=0, time_limit=0.5, max_iter=20)
print(result.scored, len(result.history), result.status.value)
"""


def test_scikit_learns_import_is_not_charged_to_the_time_limit():
    # Importing scikit-learn took about a second here, so a 0.5-s limit used to stop the
    # first call after one iteration with no scores; 20 iterations take milliseconds.
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True,
                         timeout=120).stdout.split()
    assert out == ["True", "20", "iteration_limit"]
