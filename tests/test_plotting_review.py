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


def _clusters(k: int, per: int = 3):
    """``per`` points in each of k clusters on a circle; an ML and a CL per cluster, scores and truth."""
    rng = np.random.default_rng(k)
    angle = np.repeat(np.linspace(0, 2 * np.pi, k, endpoint=False), per)
    X = np.column_stack([np.cos(angle), np.sin(angle)]) * 10 + rng.normal(scale=0.3, size=(k * per, 2))
    labels = np.repeat(np.arange(k), per)
    ml = [(per * c, per * c + 1) for c in range(k)]
    cl = [(per * c, per * ((c + 1) % k)) for c in range(k)]
    cons = Constraints.from_pairs(ml=ml, cl=cl, n_samples=len(X))
    scores = -rng.uniform(0, 3, size=2 * k) * (rng.uniform(size=2 * k) < 0.5)
    return X, labels, cons, scores


def _rgb(colours) -> np.ndarray:
    return np.round(np.asarray(colours, dtype=np.float64)[:, :3], 6)


@pytest.mark.parametrize("k", [9, 10, 18, 20, 25])
def test_every_cluster_has_its_own_colour_and_no_edge_or_band_takes_one(k):
    # tab10 with vmin=0, vmax=9 gave every cluster from the tenth on the same cyan, the colour
    # of the 'erroneous' band; edges without scores were tab:green and tab:purple, cluster colours.
    X, labels, cons, scores = _clusters(k)
    for given in ({"scores": scores, "erroneous": scores < -1.5}, {"erroneous": scores < -1.5}):
        fig = plot_constraint_scores(X, constraints=cons, labels=labels, **given)
        fig.canvas.draw()  # maps the scores to colours
        ax = fig.axes[0]
        (points,) = [c for c in ax.collections if isinstance(c, PathCollection)]
        faces = _rgb(points.get_facecolor())
        per_cluster = {tuple(faces[labels == c][0]) for c in range(k)}
        assert len(per_cluster) == k
        assert all((faces[labels == c] == faces[labels == c][0]).all() for c in range(k))
        lines = [c for c in ax.collections if isinstance(c, LineCollection)]
        strokes = np.vstack([_rgb(c.get_edgecolor()) for c in lines])
        assert not set(map(tuple, strokes)) & per_cluster
        # Stronger than 'not equal': the edges and the band are grey, and no cluster is.
        assert np.ptp(strokes, axis=1).max() == 0.0
        assert np.ptp(faces, axis=1).min() > 0.1
        plt.close(fig)


def test_the_most_negative_scores_are_drawn_last():
    # Edges were drawn in input order, must-links before cannot-links: a few suspicious edges
    # were buried under the many grey 0-score edges drawn after them.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    ml = [(i, i + 1) for i in range(0, 40, 2)]
    cl = [(i, 59 - i) for i in range(20)]
    cons = Constraints.from_pairs(ml=ml, cl=cl, n_samples=60)
    scores = np.zeros(40)
    scores[[1, 5, 30]] = [-3.0, -1.0, -2.0]  # two must-links, one cannot-link
    scores[12] = np.nan
    ax = plot_constraint_scores(X, constraints=cons, scores=scores).axes[0]
    scored = [c for c in ax.collections if isinstance(c, LineCollection) and c.get_array() is not None]
    drawn = sorted(scored, key=lambda c: c.get_zorder())  # stable: ties in the order added
    in_draw_order = np.concatenate([np.asarray(c.get_array(), dtype=np.float64) for c in drawn])
    assert in_draw_order.size == 40
    assert np.isnan(in_draw_order[0])  # an unknown score goes to the bottom
    assert in_draw_order[-3:].tolist() == [-1.0, -2.0, -3.0]
    assert (np.diff(in_draw_order[1:]) <= 0).all()
    segments = np.concatenate([np.asarray(c.get_segments()) for c in drawn])
    np.testing.assert_array_equal(segments[-1], X[[ml[1][0], ml[1][1]]])  # score -3 is the second ML row
    np.testing.assert_array_equal(segments[-2], X[[cl[10][0], cl[10][1]]])  # -2: the eleventh CL row


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


def test_an_edge_without_a_score_is_drawn_not_transparent():
    # The colour map's "bad" colour is transparent: NaN-scored edges were invisible.
    import matplotlib.colors as mcolors

    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(0, 2), (1, 3)], n_samples=4)
    for cmap in (None, "viridis"):
        fig = plot_constraint_scores(X, constraints=cons, scores=[np.nan, np.nan, 0.0, -2.0], cmap=cmap)
        fig.canvas.draw()  # the mapped colours are computed when drawn
        collection = next(c for c in fig.axes[0].collections if c.get_gid() == "constraints")
        colours = collection.get_colors()
        plt.close(fig)
        assert colours.shape[0] == 4 and np.all(colours[:, 3] == 1.0)
        np.testing.assert_allclose(colours[:2], mcolors.to_rgba_array(["0.25", "0.25"]))
