"""Readability of the plots, after the s29 user audit of the CLI figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PathCollection

from ccopt import Constraints
from ccopt.plotting import plot_constraint_scores, plot_convergence


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_a_one_iteration_history_is_drawn_as_markers_and_a_long_one_as_lines():
    # Lines of a single point draw nothing: the audit's one-iteration run gave empty axes.
    fig = plot_convergence({"iteration": [1], "lower_bound": [15.7], "best_lower_bound": [15.7],
                            "upper_bound": [16.0], "f1": [0.5]})
    lines = fig.axes[0].get_lines() + fig.axes[1].get_lines()
    assert len(lines) == 4
    assert all(line.get_marker() not in (None, "None", "") for line in lines)
    assert len({line.get_marker() for line in lines}) == 4  # one shape per series
    long = {"lower_bound": np.linspace(0.0, 1.0, 51), "upper_bound": np.full(51, 2.0)}
    assert all(line.get_marker() == "None" for line in plot_convergence(long).axes[0].get_lines())


def test_one_feature_is_drawn_against_the_row_index():
    # Drawn against 0, the y axis had ticks at +-0.04 and no label, and every edge lay on one line.
    x = np.array([[0.1], [0.3], [0.2], [5.0], [5.2], [0.15]])
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 5)], cl=[(0, 3), (1, 4)], n_samples=6)
    ax = plot_constraint_scores(x, constraints=cons, labels=[0, 0, 0, 1, 1, 0], feature_names=["x"]).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x", "row index of X")
    (points,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    np.testing.assert_array_equal(points.get_offsets(), np.column_stack([x[:, 0], np.arange(6)]))
    segments = [s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments()]
    assert len(segments) == 4

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    for i, (p, q) in enumerate(segments):  # no two edges on one line
        for r, t in segments[i + 1:]:
            assert cross(p, q, r) != 0 or cross(p, q, t) != 0
    assert all(float(t).is_integer() for t in ax.get_yticks())
