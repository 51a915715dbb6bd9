"""Readability of the plots, after the s29 user audit of the CLI figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ccopt.plotting import plot_convergence


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
