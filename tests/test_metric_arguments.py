"""Arguments of the scores that judge a clustering: numpy scalars accepted, non-finite sizes refused.

These test ccopt.metrics, not an estimator; they sit here until they join tests/test_metrics.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from ccopt.exceptions import InvalidParameterError
from ccopt.metrics import alignment_score, detection_scores


@pytest.mark.parametrize("zero_division", [np.float32(1.0), np.int64(1), np.float64(np.nan)])
def test_detection_scores_accept_numpy_scalars_for_zero_division(zero_division):
    scores = detection_scores([False, False], [False, False], zero_division=zero_division)
    assert scores.recall == pytest.approx(float(zero_division), nan_ok=True)


@pytest.mark.parametrize("sizes", [[np.nan, 1.0], [np.inf, 1.0]])
def test_alignment_score_refuses_non_finite_sizes(sizes):
    # A nan or inf target size must not give a nan score without a word.
    with pytest.raises(InvalidParameterError, match="finite sizes"):
        alignment_score([0, 0, 1], [0, 0, 1], sizes)
