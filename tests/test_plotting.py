"""Plot structure (axes, labels, artists) and PNG output, on the Agg backend."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.patches import PathPatch

from ccopt import Constraints
from ccopt.exceptions import InvalidParameterError
from ccopt.plotting import (
    plot_constraint_scores,
    plot_convergence,
    plot_k_sweep,
    plot_selection_boxplots,
    project_2d,
)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _save(fig, tmp_path, name) -> None:
    path = tmp_path / name
    fig.savefig(path, dpi=40)
    assert path.read_bytes()[:8] == PNG


HISTORY = {"iteration": [1, 2, 3, 4], "lower_bound": [1.0, 3.0, 2.0, 3.5],
           "best_lower_bound": [1.0, 3.0, 3.0, 3.5], "upper_bound": [np.inf, 6.0, 5.0, 5.0],
           "f1": [0.0, 0.4, 0.5, 0.8]}


def test_convergence_bounds_left_f1_on_twin_axis(tmp_path):
    fig = plot_convergence(HISTORY, title="run")
    bounds, twin = fig.axes
    assert bounds.f1_axes is twin
    assert [line.get_label() for line in bounds.get_lines()] == [
        "Lagrangian value", "lower bound (best)", "upper bound"]
    assert [line.get_label() for line in twin.get_lines()] == ["F1 (erroneous constraints)"]
    np.testing.assert_array_equal(twin.get_lines()[0].get_ydata(), HISTORY["f1"])
    # No finite upper bound at iteration 1: that point is left blank, not drawn at infinity.
    upper = bounds.get_lines()[2].get_ydata()
    assert np.isnan(upper[0]) and upper[1:].tolist() == [6.0, 5.0, 5.0]
    assert twin.get_ylim() == (0.0, 1.02)
    assert bounds.get_xlabel() == "iteration" and twin.get_ylabel() == "F1"
    assert bounds.get_title() == "run"
    assert len(bounds.get_legend().get_texts()) == 4
    _save(fig, tmp_path, "convergence.png")


def test_convergence_without_f1_into_given_axes():
    fig, ax = plt.subplots()
    out = plot_convergence({"lower_bound": [1.0, 0.5, 2.0]}, ax=ax, show_iterates=False)
    assert out is fig and len(fig.axes) == 1
    (best,) = ax.get_lines()
    np.testing.assert_array_equal(best.get_xdata(), [1, 2, 3])
    np.testing.assert_array_equal(best.get_ydata(), [1.0, 1.0, 2.0])  # running maximum


def test_convergence_rejects_unusable_histories():
    with pytest.raises(InvalidParameterError, match="needs a 'lower_bound' or 'best_lower_bound'"):
        plot_convergence({"upper_bound": [1.0]})
    with pytest.raises(InvalidParameterError, match=r"different lengths: \[1, 2\]"):
        plot_convergence({"lower_bound": [1.0], "upper_bound": [1.0, 2.0]})
    with pytest.raises(InvalidParameterError, match="must be an ImpactScoreResult, its History"):
        plot_convergence([1, 2, 3])


def _square():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    cons = Constraints.from_pairs(ml=[(0, 1), (2, 3)], cl=[(0, 4)], n_samples=5)
    return X, cons


def test_constraint_scatter_edges_styles_colours_and_highlight(tmp_path):
    X, cons = _square()
    scores = np.array([0.0, -2.0, -1.0])
    fig = plot_constraint_scores(X, constraints=cons, scores=scores, labels=[0, 0, 0, 0, 1],
                           erroneous=[False, True, False], title="edges")
    ax = fig.axes[0]
    assert len(fig.axes) == 2  # the data and the colour bar
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    *casing, edges = lines
    assert casing and {c.get_gid() for c in casing} == {"erroneous"} and edges.get_gid() == "constraints"
    for stroke in casing:  # only the erroneous ML
        np.testing.assert_array_equal(np.asarray(stroke.get_segments()), [X[[2, 3]]])
    # All constraints in one collection, highest score first.
    np.testing.assert_array_equal(np.asarray(edges.get_segments()), [X[[0, 1]], X[[0, 4]], X[[2, 3]]])
    np.testing.assert_array_equal(edges.get_array(), [0.0, -1.0, -2.0])
    assert [dashes is None for _, dashes in edges.get_linestyle()] == [True, False, True]  # ML solid, CL dashed
    assert edges.norm.vmin == -2.0 and edges.norm.vmax == 0.0
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(points) == 1 and len(points[0].get_offsets()) == 5
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["erroneous", "must-link", "cannot-link"]
    _save(fig, tmp_path, "constraints.png")


def test_constraint_scatter_from_an_impact_score_result(tmp_path):
    from ccopt import impact_scores
    from ccopt.generators import make_gaussian_clusters

    X, y = make_gaussian_clusters(12, 2, n_features=3, cluster_std=0.4, random_state=2)
    result = impact_scores(X, 2, ml=[(0, 1), (0, 8)], cl=[(2, 3), (4, 10)], criterion="mssc", max_iter=5,
                           random_state=0, progress=False, labels_true=y)
    fig = plot_constraint_scores(X, result)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("PC1") and ax.get_ylabel().startswith("PC2")
    highlight = next(c for c in ax.collections if isinstance(c, LineCollection))
    assert len(highlight.get_segments()) == int(result.erroneous.sum()) == 2
    _save(fig, tmp_path, "result.png")
    fig = plot_convergence(result)
    assert len(fig.axes[0].get_lines()[0].get_xdata()) == result.n_iter
    _save(fig, tmp_path, "result_convergence.png")


def test_projection_matches_principal_components_up_to_sign():
    from sklearn.decomposition import PCA

    X = np.random.default_rng(0).normal(size=(30, 5)) * [5, 3, 1, 0.5, 0.1]
    coords, labels = project_2d(X)
    reference = PCA(n_components=2).fit_transform(X)
    for c in range(2):
        sign = np.sign(coords[:, c] @ reference[:, c])
        np.testing.assert_allclose(coords[:, c], sign * reference[:, c], atol=1e-9)
    assert labels[0].startswith("PC1 (")
    np.testing.assert_array_equal(project_2d(X[:, :2])[0], X[:, :2])


def test_constraint_scatter_without_scores_or_labels():
    X, cons = _square()
    fig = plot_constraint_scores(X, constraints=cons)
    assert len(fig.axes) == 1  # no colour bar without scores
    (edges,) = [c for c in fig.axes[0].collections if isinstance(c, LineCollection)]
    assert edges.get_array() is None and len(edges.get_segments()) == 3


def test_constraint_scatter_checks_lengths():
    X, cons = _square()
    with pytest.raises(InvalidParameterError, match="scores has 2 entries for 3 constraint rows"):
        plot_constraint_scores(X, constraints=cons, scores=[0.0, 1.0])
    with pytest.raises(InvalidParameterError, match="labels has 4 entries, X has 5 rows"):
        plot_constraint_scores(X, constraints=cons, labels=[0, 0, 1, 1])
    with pytest.raises(InvalidParameterError, match="needs constraints"):
        plot_constraint_scores(X)


def test_k_sweep_lines_bands_and_minimum(tmp_path):
    ks = [2, 3, 4, 5]
    fraction = np.array([[0.4, 0.2, 0.1, 0.3], [0.5, 0.3, 0.05, 0.2]])
    f1 = 1 - fraction
    fig = plot_k_sweep(ks, fraction, f1, title="sweep")
    ax = fig.axes[0]
    frac_line, f1_line, marker = ax.get_lines()
    np.testing.assert_allclose(frac_line.get_ydata(), fraction.mean(axis=0))
    np.testing.assert_allclose(f1_line.get_ydata(), f1.mean(axis=0))
    assert marker.get_xdata()[0] == 4  # smallest mean fraction
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 2  # one band each
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["fraction predicted erroneous", "F1"]
    _save(fig, tmp_path, "k_sweep.png")
    single = plot_k_sweep(ks, fraction[0], mark_minimum=False).axes[0]
    assert len(single.get_lines()) == 1 and not single.collections
    with pytest.raises(InvalidParameterError, match=r"must have shape \(n_k,\) or \(n_instances, n_k\) with n_k=4"):
        plot_k_sweep(ks, [0.1, 0.2])


def test_selection_boxplots_one_box_per_data_set_and_selection(tmp_path):
    rng = np.random.default_rng(1)
    groups = {name: {"all": rng.uniform(size=20), "impact score": rng.uniform(size=10),
                     "coherence": rng.uniform(size=10)} for name in ("Iris", "Wine")}
    fig = plot_selection_boxplots(groups, title="Fig. 9")
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if isinstance(p, PathPatch)]
    assert len(boxes) == 6
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Iris", "Wine"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["all", "impact score", "coherence"]
    assert ax.get_ylabel() == "ARI"
    _save(fig, tmp_path, "boxes.png")
    flat = plot_selection_boxplots({"all": [0.1, 0.5, 0.9], "impact score": [0.5, 0.9]}).axes[0]
    assert len([p for p in flat.patches if isinstance(p, PathPatch)]) == 2
    with pytest.raises(InvalidParameterError, match="groups must be a non-empty mapping"):
        plot_selection_boxplots({})


def test_constraint_scatter_labels_raw_features_by_name_and_projections_as_pcs():
    X, cons = _square()
    ax = plot_constraint_scores(X, constraints=cons, feature_names=("width", "height")).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("width", "height")
    ax = plot_constraint_scores(X, constraints=cons).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x0", "x1")  # the default without names
    X3 = np.column_stack([X, X[:, 0] - X[:, 1]])
    ax = plot_constraint_scores(X3, constraints=cons, feature_names=("a", "b", "c")).axes[0]
    assert ax.get_xlabel().startswith("PC1 (") and ax.get_ylabel().startswith("PC2 (")
    assert project_2d(X[:, :1], feature_names=["width"])[1] == ("width", "row index of X")
    with pytest.raises(InvalidParameterError, match="feature_names has 3 names, X has 2 columns"):
        plot_constraint_scores(X, constraints=cons, feature_names=("a", "b", "c"))


def test_k_sweep_draws_in_increasing_k_and_ignores_failed_runs_quietly():
    # Unsorted ks drew a zig-zag line, and NaN columns (failed runs) raised numpy's
    # "Mean of empty slice" warnings, though the docstring says NaN values are ignored.
    fig = plot_k_sweep([4, 2, 3], [0.5, 0.2, 0.4])
    (line,) = fig.axes[0].get_lines()[:1]
    assert line.get_xdata().tolist() == [2, 3, 4] and line.get_ydata().tolist() == [0.2, 0.4, 0.5]
    plt.close(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot_k_sweep([2, 3, 4], [[0.1, np.nan, 0.3], [0.2, np.nan, 0.4]])
    plt.close(fig)


def test_constraint_scatter_refuses_pairs_that_are_not_constraints_and_non_boolean_truth():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    # A plain list died with AttributeError ('list' object has no attribute 'to_given').
    with pytest.raises(InvalidParameterError, match=r"constraints must be a ccopt Constraints object, got list"):
        plot_constraint_scores(X, constraints=[(0, 1)])
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(1, 2)], n_samples=3)
    # A 2 or a NaN was cast to True and drawn as erroneous.
    for bad in ([0, 2], [np.nan, 0.0]):
        with pytest.raises(InvalidParameterError, match=r"erroneous must be booleans \(or 0/1\)"):
            plot_constraint_scores(X, constraints=cons, erroneous=bad)


def test_selection_boxplots_refuse_mixed_groups_and_keep_colours_distinct():
    # Mixing the two forms raised a bare TypeError from float(); beyond 10 selections tab10
    # gave selection 10 the colour of selection 0.
    with pytest.raises(InvalidParameterError, match="groups mixes data sets"):
        plot_selection_boxplots({"a": {"x": [1.0]}, "b": [1.0, 2.0]})
    for n in (12, 25):
        fig = plot_selection_boxplots({f"s{i}": [0.1 * i, 0.1 * i + 0.05] for i in range(n)})
        colours = [tuple(patch.get_facecolor()) for patch in fig.axes[0].get_legend().get_patches()]
        assert len(set(colours)) == n
        plt.close(fig)


# ----------------------------------------------------------------------------- colours, drawing order and markers
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


def test_constraint_score_colours_span_the_finite_scores_when_some_are_nan():
    X = np.arange(12, dtype=float).reshape(6, 2)
    cons = Constraints.from_pairs(ml=[(0, 1)], cl=[(2, 3), (4, 5)], n_samples=6)
    scores = np.array([np.nan, -3.0, -1.0])
    fig = plot_constraint_scores(X, constraints=cons, scores=scores)
    coloured = [c for c in fig.axes[0].collections if isinstance(c, LineCollection) and c.get_array() is not None]
    assert coloured
    for collection in coloured:
        assert (collection.norm.vmin, collection.norm.vmax) == (np.nanmin(scores), 0.0)


def test_a_one_iteration_history_is_drawn_as_markers_and_a_long_one_as_lines():
    # Lines of a single point draw nothing: a one-iteration run gave empty axes.
    fig = plot_convergence({"iteration": [1], "lower_bound": [15.7], "best_lower_bound": [15.7],
                            "upper_bound": [16.0], "f1": [0.5]})
    lines = fig.axes[0].get_lines() + fig.axes[1].get_lines()
    assert len(lines) == 4
    assert all(line.get_marker() not in (None, "None", "") for line in lines)
    assert len({line.get_marker() for line in lines}) == 4  # one shape per series
    long = {"lower_bound": np.linspace(0.0, 1.0, 51), "upper_bound": np.full(51, 2.0)}
    assert all(line.get_marker() == "None" for line in plot_convergence(long).axes[0].get_lines())


# ----------------------------------------------------------------------------- degenerate inputs
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


def test_project_2d_of_a_single_object_with_many_features():
    # Centred, the one object sits at the origin of both axes.
    coords, labels = project_2d(np.array([[1.0, 2.0, 3.0]]))
    np.testing.assert_array_equal(coords, np.zeros((1, 2)))
    assert labels[0].startswith("PC1") and labels[1].startswith("PC2")


# numpy warns about the all-NaN columns (the mean of failed runs is undefined); that is fine.
_NAN_WARNINGS = (pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning"),
                 pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning"))


@_NAN_WARNINGS[0]
@_NAN_WARNINGS[1]
def test_k_sweep_with_every_fraction_nan_draws_no_minimum_and_does_not_raise():
    before = set(plt.get_fignums())
    fig = plot_k_sweep([2, 3, 4], [[np.nan] * 3, [np.nan] * 3])
    assert set(plt.get_fignums()) - before == {fig.number}
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["fraction predicted erroneous"]


@_NAN_WARNINGS[0]
@_NAN_WARNINGS[1]
def test_k_sweep_minimum_ignores_failed_runs():
    fraction = [[0.4, np.nan, 0.3], [0.2, np.nan, 0.5]]   # means 0.3, NaN, 0.4: minimum at k=2
    ax = plot_k_sweep([2, 3, 4], fraction).axes[0]
    marker = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert len(marker) == 1 and list(marker[0].get_xdata()) == [2.0, 2.0]
