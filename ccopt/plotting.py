"""Figures of the impact-score paper (Randel et al. 2021) for ccopt results.

==================================  =============================================================
function                            figure
==================================  =============================================================
:func:`plot_convergence`            subgradient run: lower/upper bound by iteration, F1 of the
                                    predictions on a twin axis (Fig. 8)
:func:`plot_constraint_scores`      the data in 2-D (PCA when d > 2), points coloured by
                                    cluster, ML (solid) and CL (dashed) edges in greys by impact
                                    score, erroneous constraints highlighted (Figs. 1 and 4)
:func:`plot_k_sweep`                fraction predicted erroneous and F1 against k (Fig. 3)
:func:`plot_selection_boxplots`     ARI box plots of constraint-set selection (Figs. 9-10)
==================================  =============================================================

Every function draws into ``ax`` when given (a :class:`matplotlib.axes.Axes`) and returns
the :class:`matplotlib.figure.Figure`; without ``ax`` it creates a figure with
``matplotlib.pyplot.subplots``. matplotlib is imported on first use.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

from ccopt._validation import check_bool_array
from ccopt.exceptions import InvalidParameterError

__all__ = ["plot_constraint_scores", "plot_convergence", "plot_k_sweep", "plot_selection_boxplots",
           "project_2d"]

# Colours of the bounds and of F1, after Fig. 8 (lower bound blue, F1 dark green).
_LOWER = "tab:blue"
_UPPER = "black"
_F1 = "darkgreen"
_FRACTION = "tab:red"
# Points own hue (one per cluster) and the constraints own grey: the edges run from near black
# (most suspicious) to light grey, and the erroneous ones are cased in black and white. No
# cluster is grey, so nothing on a constraint plot can be read as a cluster's colour.
_EDGE = "0.25"
_CASING = (("black", 7.5), ("white", 5.0))  # (colour, line width), outer stroke first
# Up to this many iterations every bound is also drawn as markers: a line of one point is invisible.
_MARKERS_UP_TO = 50
_ROW_INDEX = "row index of X"


def _score_cmap():
    """Near black for the most negative score, light grey for 0."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("ccopt_scores", ["#111111", "#d4d4d4"])


def _cielab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) coordinates of sRGB colours, shape (n, 3) or (n, 4) -> (n, 3)."""
    rgb = np.asarray(rgb, dtype=np.float64)[:, :3]
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = linear @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


def _cluster_colours(n_clusters: int) -> np.ndarray:
    """One distinct, non-grey RGBA colour per cluster.

    Up to 9 clusters: tab10 without its grey; up to 18: then tab20's light tones of the same
    nine hues (the first nine colours do not change as k grows); beyond: ``n_clusters`` points
    of turbo (0.05 to 0.95) at equal CIELAB distances along the map, since equal steps of the
    map parameter give neighbours between 9 and 36 units apart.

    Parameters
    ----------
    n_clusters : int

    Returns
    -------
    ndarray of shape (n_clusters, 4)
    """
    import matplotlib as mpl
    from matplotlib.colors import to_rgba_array

    tab20 = mpl.colormaps["tab20"].colors
    grey = 7  # the hue index of grey in tab10 (and of the grey pair in tab20)
    palette = [tab20[2 * h] for h in range(10) if h != grey] + [tab20[2 * h + 1] for h in range(10) if h != grey]
    if n_clusters <= len(palette):
        return to_rgba_array(palette[:n_clusters])
    turbo = mpl.colormaps["turbo"]
    t = np.linspace(0.05, 0.95, 512)
    steps = np.linalg.norm(np.diff(_cielab(turbo(t)), axis=0), axis=1)
    travelled = np.concatenate([[0.0], np.cumsum(steps)])
    return turbo(np.interp(np.linspace(0.0, travelled[-1], n_clusters), travelled, t))


def _axes(ax, figsize):
    """The given axes and its figure, or a new figure with one axes."""
    if ax is not None:
        return ax.figure, ax
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize)
    return fig, ax


def _history_columns(history) -> dict[str, np.ndarray]:
    """Columns of a History, of an ImpactScoreResult's history, or of a mapping of arrays."""
    if hasattr(history, "history") and not isinstance(history, Mapping):
        history = history.history
    if hasattr(history, "columns") and isinstance(history.columns, Mapping):
        history = history.columns
    if not isinstance(history, Mapping):
        raise InvalidParameterError(
            "history must be an ImpactScoreResult, its History, or a mapping of columns; "
            f"got {type(history).__name__}."
        )
    columns = {str(name): np.asarray(values, dtype=np.float64) for name, values in history.items()}
    if not columns or not any(c.size for c in columns.values()):
        raise InvalidParameterError("The history is empty: nothing to plot.")
    lengths = {c.shape[0] for c in columns.values()}
    if len(lengths) != 1:
        raise InvalidParameterError(f"History columns have different lengths: {sorted(lengths)}.")
    return columns


def plot_convergence(history, *, ax=None, title: str | None = None, show_iterates: bool = True,
                     figsize=(7.0, 4.0)):
    """Bounds and F1 of a subgradient run by iteration (Fig. 8 of the impact-score paper).

    The left axis shows the best lower bound (blue), each iteration's Lagrangian value
    (light blue, when ``show_iterates``) and the best upper bound (black, dashed); when the
    history has an ``f1`` column, F1 of the predicted erroneous constraints is drawn on a
    twin right axis (dark green, 0 to 1). Iterations before a finite bound exists are left
    blank. A history of at most 50 iterations is also drawn with markers, one shape per
    series, so that a run of a single iteration still shows its points.

    Parameters
    ----------
    history : ImpactScoreResult, History or mapping of str to array-like
        Needs ``lower_bound`` or ``best_lower_bound``; uses ``iteration``,
        ``upper_bound`` and ``f1`` when present.
    ax : matplotlib.axes.Axes, optional
        Axes for the bounds; the F1 axis is its twin.
    title : str, optional
    show_iterates : bool, default=True
        Also draw the Lagrangian value of every iteration.
    figsize : tuple, default=(7.0, 4.0)
        Size of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The bounds axes is ``fig.axes[0]`` (when ``ax`` was not given); the F1 axes, if
        any, is ``ax.f1_axes``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from ccopt.plotting import plot_convergence
    >>> fig = plot_convergence({"iteration": [1, 2, 3], "lower_bound": [1.0, 2.0, 2.5],
    ...                         "best_lower_bound": [1.0, 2.0, 2.5],
    ...                         "upper_bound": [4.0, 3.0, 3.0], "f1": [0.2, 0.5, 0.6]})
    >>> len(fig.axes)
    2
    """
    columns = _history_columns(history)
    if "best_lower_bound" not in columns and "lower_bound" not in columns:
        raise InvalidParameterError(
            f"The history needs a 'lower_bound' or 'best_lower_bound' column; it has {sorted(columns)}."
        )
    n = next(iter(columns.values())).shape[0]
    x = columns.get("iteration", np.arange(1, n + 1, dtype=np.float64))
    fig, ax = _axes(ax, figsize)

    def finite(values):
        return np.where(np.isfinite(values), values, np.nan)

    # One shape per series, so that a short run (a single point has no line) still tells them apart.
    markers = n <= _MARKERS_UP_TO

    def marked(shape, **style):
        return {"marker": shape, "markersize": 4.5, **style} if markers else {}

    handles = []
    if show_iterates and "lower_bound" in columns:
        handles += ax.plot(x, finite(columns["lower_bound"]), color=_LOWER, alpha=0.3, linewidth=0.8,
                           label="Lagrangian value", **marked(".", markersize=6.0))
    best = columns.get("best_lower_bound")
    if best is None:
        best = np.fmax.accumulate(finite(columns["lower_bound"]))
    handles += ax.plot(x, finite(best), color=_LOWER, linewidth=1.8, label="lower bound (best)", **marked("o"))
    if "upper_bound" in columns:
        # Hollow, so a lower bound equal to it stays visible inside.
        handles += ax.plot(x, finite(columns["upper_bound"]), color=_UPPER, linestyle="--", linewidth=1.5,
                           label="upper bound", **marked("s", markersize=7.0, markerfacecolor="none"))
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective bound")
    ax.grid(True, alpha=0.3)
    if "f1" in columns:
        twin = ax.twinx()
        handles += twin.plot(x, columns["f1"], color=_F1, linewidth=1.5, label="F1 (erroneous constraints)",
                             **marked("^"))
        twin.set_ylim(0.0, 1.02)
        twin.set_ylabel("F1", color=_F1)
        twin.tick_params(axis="y", colors=_F1)
        ax.f1_axes = twin
    ax.legend(handles=handles, loc="lower right", fontsize="small", framealpha=0.9)
    if title:
        ax.set_title(title)
    return fig


def project_2d(X, *, feature_names=None) -> tuple[np.ndarray, tuple[str, str]]:
    """Coordinates to draw: X itself when it has 2 columns, else its first two principal axes.

    One column is drawn against the row index (0 to n_samples - 1, axis label ``"row index
    of X"``): drawn against a constant, every point and edge would lie on one line. The
    principal axes come from the SVD of the centred data, with signs fixed (largest loading
    positive) so the picture is reproducible.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    feature_names : sequence of str, length n_features, optional
        Names of the columns of X, the axis labels when X is drawn as it is (one or two
        columns); default ``x0``, ``x1``. Principal axes are labelled ``PC1``/``PC2``.

    Returns
    -------
    coordinates : ndarray of shape (n_samples, 2)
    axis_labels : tuple of two str

    Raises
    ------
    InvalidParameterError
        ``feature_names`` does not have one name per column of X.
    """
    from ccopt._validation import check_data

    X = check_data(X)
    d = X.shape[1]
    if feature_names is None:
        names = [f"x{c}" for c in range(d)]
    else:
        names = [str(name) for name in feature_names]
        if len(names) != d:
            raise InvalidParameterError(f"feature_names has {len(names)} names, X has {d} columns.")
    if d == 2:
        return X.copy(), (names[0], names[1])
    if d == 1:
        return np.column_stack([X[:, 0], np.arange(X.shape[0], dtype=np.float64)]), (names[0], _ROW_INDEX)
    centred = X - X.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    # A single object has one (zero) singular value: pad to two axes, as with d == 1.
    missing = 2 - min(2, vt.shape[0])
    components = np.vstack([vt[:2], np.zeros((missing, d))])
    flip = np.sign(components[np.arange(2), np.argmax(np.abs(components), axis=1)])
    components = components * np.where(flip == 0, 1.0, flip)[:, None]
    total = float((singular ** 2).sum()) or 1.0
    share = np.pad(singular[:2], (0, missing)) ** 2 / total
    return centred @ components.T, (f"PC1 ({100 * share[0]:.0f} % of variance)",
                                    f"PC2 ({100 * share[1]:.0f} % of variance)")


def plot_constraint_scores(X, result=None, *, constraints=None, scores=None, labels=None, erroneous=None,
                     feature_names=None, ax=None, title: str | None = None, cmap=None,
                     point_size: float = 18.0, figsize=(7.0, 5.5)):
    """The data in 2-D with its constraints as edges coloured by impact score (Figs. 1 and 4).

    Points are coloured by cluster (``labels``), one distinct colour per cluster for any
    number of clusters, never grey. Every constraint is a segment between its two objects:
    must-links solid, cannot-links dashed, in greys by impact score with a colour bar (near
    black for the most negative, i.e. most suspicious, score; light grey for 0). The most
    negative scores are drawn last, on top of the others. Erroneous constraints (the truth,
    when known) are cased in a wide black-and-white band. With more than two features the
    data are projected on their first two principal axes; one feature is drawn against the
    row index (see :func:`project_2d`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    result : ImpactScoreResult, optional
        Supplies ``constraints``, ``scores``, ``labels`` (its best feasible clustering) and
        ``erroneous`` unless they are given explicitly.
    constraints : Constraints, optional
    scores : array-like of shape (n_given,), optional
        One score per given constraint row (as in ``ImpactScoreResult.scores``). Without
        scores, edges are dark grey (the line style tells must-links from cannot-links) and
        there is no colour bar.
    labels : array-like of shape (n_samples,), optional
        Cluster of each point.
    erroneous : array-like of bool, shape (n_given,), optional
    feature_names : sequence of str, length n_features, optional
        Axis labels when the features are drawn as they are (at most two); default ``x0``,
        ``x1``. A projection keeps its ``PC1``/``PC2`` labels (see :func:`project_2d`).
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    cmap : str or matplotlib.colors.Colormap, optional
        Colour map of the scores; the default runs from near black (most negative score) to
        light grey (score 0), so the suspicious constraints stand out and no edge takes a
        cluster's colour. A NaN score is drawn dark grey, as an edge without scores.
    point_size : float, default=18.0
    figsize : tuple, default=(7.0, 5.5)

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidParameterError
        Missing constraints, or arrays (or ``feature_names``) whose lengths do not match.
    """
    from matplotlib.collections import LineCollection
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D

    if result is not None:
        constraints = result.constraints if constraints is None else constraints
        scores = result.scores if scores is None else scores
        labels = result.labels if labels is None else labels
        erroneous = result.erroneous if erroneous is None else erroneous
    if constraints is None:
        raise InvalidParameterError("plot_constraint_scores needs constraints (or an ImpactScoreResult).")
    from ccopt.constraints import Constraints

    if not isinstance(constraints, Constraints):
        raise InvalidParameterError(
            f"constraints must be a ccopt Constraints object, got {type(constraints).__name__}; build one with "
            "Constraints.from_pairs(ml=..., cl=..., n_samples=len(X)).")
    coords, axis_labels = project_2d(X, feature_names=feature_names)
    n = coords.shape[0]
    pairs = constraints.to_given(constraints.pairs)
    is_ml = constraints.to_given(constraints.ml_mask)
    m = pairs.shape[0]
    if m and int(pairs.max()) >= n:
        raise InvalidParameterError(f"A constraint refers to object {int(pairs.max())}, but X has {n} rows.")
    if scores is not None:
        scores = np.asarray(scores, dtype=np.float64).reshape(-1)
        if scores.shape[0] != m:
            raise InvalidParameterError(f"scores has {scores.shape[0]} entries for {m} constraint rows.")
    if erroneous is not None:
        # Cast with dtype=bool, a 2 or a NaN was drawn as erroneous: only booleans (or 0/1) are truth.
        erroneous = check_bool_array(erroneous, "erroneous")
        if erroneous.shape[0] != m:
            raise InvalidParameterError(f"erroneous has {erroneous.shape[0]} entries for {m} constraint rows.")
    if labels is not None:
        labels = np.asarray(labels).reshape(-1)
        if labels.shape[0] != n:
            raise InvalidParameterError(f"labels has {labels.shape[0]} entries, X has {n} rows.")

    fig, ax = _axes(ax, figsize)
    segments = coords[pairs] if m else np.empty((0, 2, 2))
    handles, names = [], []
    if erroneous is not None and erroneous.any():
        for colour, width in _CASING:
            ax.add_collection(LineCollection(segments[erroneous], colors=colour, linewidths=width,
                                             capstyle="round", zorder=1, gid="erroneous"))
        handles.append(tuple(Line2D([], [], color=colour, linewidth=width) for colour, width in _CASING))
        names.append("erroneous")
    norm = None
    if cmap is None:
        cmap = _score_cmap()
    # One collection in one draw order: with a collection per kind, every cannot-link was drawn
    # over every must-link, and in input order the many 0-score edges buried the suspicious ones.
    order = np.arange(m)
    if scores is not None and m:
        finite = scores[np.isfinite(scores)]
        low = float(finite.min()) if finite.size else 0.0  # NaN scores must not hide the range
        norm = Normalize(vmin=low if low < 0 else -1.0, vmax=0.0)
        # Highest score first, most negative last (on top); NaN at the bottom.
        order = np.argsort(-np.where(np.isnan(scores), np.inf, scores), kind="stable")
    styles = {True: "solid", False: (0, (4, 2))}
    if m:
        collection = LineCollection(segments[order], linestyles=[styles[bool(ml)] for ml in is_ml[order]],
                                    linewidths=1.6, zorder=2, gid="constraints")
        if norm is not None:
            collection.set_array(scores[order])
            # A colour map draws NaN in its "bad" colour, transparent by default, which hid the
            # constraints without a score; they get the dark grey of unscored edges.
            import matplotlib as mpl

            colormap = mpl.colormaps[cmap] if isinstance(cmap, str) else cmap
            collection.set_cmap(colormap.with_extremes(bad=_EDGE))
            collection.set_norm(norm)
        else:
            collection.set_color(_EDGE)
        ax.add_collection(collection)
    for present, ml, name in ((is_ml.any(), True, "must-link"), ((~is_ml).any(), False, "cannot-link")):
        if present:
            handles.append(Line2D([], [], color=_EDGE, linestyle=styles[ml]))
            names.append(name)
    if labels is None:
        ax.scatter(coords[:, 0], coords[:, 1], s=point_size, color="0.55", zorder=3, edgecolors="white",
                   linewidths=0.4)
    else:
        clusters, codes = np.unique(labels, return_inverse=True)
        ax.scatter(coords[:, 0], coords[:, 1], s=point_size, color=_cluster_colours(clusters.size)[codes],
                   zorder=3, edgecolors="white", linewidths=0.4)
    if np.shape(X)[1] == 1:  # the y axis is the row index (see project_2d): no fractional rows
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if norm is not None:
        from matplotlib.cm import ScalarMappable

        mappable = ScalarMappable(norm=norm, cmap=cmap)
        bar = fig.colorbar(mappable, ax=ax)
        bar.set_label("impact score (lower: more suspicious)")
    ax.set_xlabel(axis_labels[0])
    ax.set_ylabel(axis_labels[1])
    ax.autoscale_view()
    if handles:
        ax.legend(handles, names, loc="best", fontsize="small", framealpha=0.9)
    if title:
        ax.set_title(title)
    return fig


def _as_runs(values, n_k: int, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n_k:
        raise InvalidParameterError(
            f"{name} must have shape (n_k,) or (n_instances, n_k) with n_k={n_k}, got {np.shape(values)}."
        )
    return arr


def plot_k_sweep(ks, fraction_predicted, f1=None, *, ax=None, title: str | None = None,
                 mark_minimum: bool = True, figsize=(6.5, 4.0)):
    """Fraction of constraints predicted erroneous and F1 against k (Fig. 3).

    A small fraction predicted erroneous suggests the right number of clusters. With
    several instances per ``k`` (2-D input) the mean is drawn with a band of one standard
    deviation.

    Parameters
    ----------
    ks : array-like of int, shape (n_k,)
    fraction_predicted : array-like of shape (n_k,) or (n_instances, n_k)
    f1 : array-like of shape (n_k,) or (n_instances, n_k), optional
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    mark_minimum : bool, default=True
        Draw a dotted vertical line at the ``k`` with the smallest (mean) fraction; NaN
        values (failed runs) are ignored, and no line is drawn when every value is NaN.
    figsize : tuple, default=(6.5, 4.0)

    Returns
    -------
    matplotlib.figure.Figure
    """
    ks = np.asarray(ks, dtype=np.float64).reshape(-1)
    if ks.size == 0:
        raise InvalidParameterError("ks is empty: nothing to plot.")
    # Drawn in increasing k whatever the order given (a line through unsorted ks zig-zags).
    order = np.argsort(ks, kind="stable")
    series = [("fraction predicted erroneous",
               _as_runs(fraction_predicted, ks.size, "fraction_predicted")[:, order], _FRACTION, "o")]
    if f1 is not None:
        series.append(("F1", _as_runs(f1, ks.size, "f1")[:, order], _F1, "s"))
    ks = ks[order]
    fig, ax = _axes(ax, figsize)
    for name, runs, colour, marker in series:
        mean, spread = _nan_mean_and_std(runs)
        ax.plot(ks, mean, color=colour, marker=marker, label=name)
        if runs.shape[0] > 1:
            ax.fill_between(ks, mean - spread, mean + spread, color=colour, alpha=0.15, linewidth=0)
    if mark_minimum:
        mean_fraction = _nan_mean_and_std(series[0][1])[0]
        if np.isfinite(mean_fraction).any():  # all NaN (every run failed): no minimum to mark
            best = ks[int(np.nanargmin(mean_fraction))]
            ax.axvline(best, color="0.4", linestyle=":", linewidth=1.2)
    ax.set_xticks(ks)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel("fraction / F1")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def _nan_mean_and_std(runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation per column over the finite values; NaN where a column has none.

    The NaN values are failed runs, expected here: numpy's "Mean of empty slice" warnings
    would only repeat that.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(runs, axis=0), np.nanstd(runs, axis=0)


def plot_selection_boxplots(groups, *, ax=None, title: str | None = None, ylabel: str = "ARI",
                            figsize=(7.5, 4.5)):
    """Box plots of a quality (ARI) per constraint-set selection (Figs. 9-10).

    Parameters
    ----------
    groups : mapping
        Either ``{selection: values}`` for one data set (e.g. the output of
        :func:`ccopt.experiments.constraint_set_selection`), or
        ``{data set: {selection: values}}``: one cluster of boxes per data set, one colour
        per selection.
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    ylabel : str, default="ARI"
    figsize : tuple, default=(7.5, 4.5)

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib as mpl
    from matplotlib.patches import Patch

    if not isinstance(groups, Mapping) or not groups:
        raise InvalidParameterError("groups must be a non-empty mapping of selections (or data sets) to values.")
    nested = all(isinstance(v, Mapping) for v in groups.values())
    if not nested and any(isinstance(v, Mapping) for v in groups.values()):
        raise InvalidParameterError(
            "groups mixes data sets ({selection: values} mappings) with selections (values); give one "
            "of the two forms.")
    data_sets = {str(k): {str(s): v for s, v in per.items()} for k, per in groups.items()} if nested \
        else {"": {str(s): v for s, v in groups.items()}}
    selections: list[str] = []
    for per_set in data_sets.values():
        for name in per_set:
            if str(name) not in selections:
                selections.append(str(name))
    fig, ax = _axes(ax, figsize)
    # One colour per selection: tab10 repeated itself from the 11th selection on.
    colours = mpl.colormaps["tab10" if len(selections) <= 10 else "tab20"].colors
    if len(selections) > len(colours):
        colours = [mpl.colormaps["turbo"](t) for t in np.linspace(0.05, 0.95, len(selections))]
    width = 0.8 / len(selections)
    for d, per_set in enumerate(data_sets.values()):
        for s, selection in enumerate(selections):
            values = per_set.get(selection)
            if values is None:
                continue
            values = np.asarray(values, dtype=np.float64).reshape(-1)
            values = values[np.isfinite(values)]
            if values.size == 0:
                continue
            position = d + (s - (len(selections) - 1) / 2) * width
            ax.boxplot(values, positions=[position], widths=width * 0.85, patch_artist=True,
                       boxprops={"facecolor": colours[s % len(colours)], "alpha": 0.75},
                       medianprops={"color": "black"}, flierprops={"markersize": 3})
    ax.set_xticks(range(len(data_sets)), list(data_sets) if nested else [""])
    ax.set_xlim(-0.5, len(data_sets) - 0.5)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(handles=[Patch(facecolor=colours[s % len(colours)], alpha=0.75, label=name)
                       for s, name in enumerate(selections)], loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return fig
