"""The ``ccopt`` command: score constraints, cluster, run the reproduction benchmarks.

::

    ccopt score DATA.csv --constraints CONS.csv -k 3 [--out scores.csv] [--plot fig.png]
    ccopt cluster DATA.csv --constraints CONS.csv -k 3 --algorithm bh-kmeans [--out labels.csv]
    ccopt bench --list
    ccopt bench NAME [ARGS ...]

Malformed input (a missing file, a bad row, an index out of range, ``k`` larger than the
data, ...) ends with one line on stderr that names the file and line, and exit code 2;
anything unexpected still shows its traceback (exit code 1). A reader that closes the output
early (``| head``) ends the command with exit code 141, silently, as after SIGPIPE.

Ctrl-C while ``score`` or ``cluster`` computes ends the computation with the best result found
so far when there is one (the best multipliers of the subgradient run, the best labelling):
the command then goes on as usual -- prints the result, marked ``status=interrupted``, writes
the output files -- and ends with exit code 0. Ctrl-C before there is a result (in ``score``,
also during the k-means runs that prepare the subgradient run), while the input is read or
the output written, and in ``bench`` (unless the benchmark catches it) prints ``interrupted``
on stderr and exits with 130. A ``score`` run stopped while its best multipliers were still the
starting zeros (``ImpactScoreResult.scored`` False) has no result: it writes nothing and exits with 130
when interrupted, with 2 (an error naming ``--time-limit`` and ``--max-iter``) otherwise.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import dataclasses
import importlib
import logging
import math
import os
import re
import sys
import warnings
from pathlib import Path

from ccopt.exceptions import (
    CcoptError,
    CcoptWarning,
    DataFormatError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    MemoryBudgetError,
)

__all__ = ["build_parser", "discover_benchmarks", "int_at_least", "main", "number_at_least"]

logger = logging.getLogger("ccopt.cli")

EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141
BENCHMARKS_ENV = "CCOPT_BENCHMARKS"

_FORMAT = argparse.RawDescriptionHelpFormatter
_SCALERS = {"none": None, "standard": "StandardScaler", "minmax": "MinMaxScaler"}  # --scale
_FIGURE_HELP = "; the file suffix names the format (png, pdf, svg, ...; PNG without a suffix)"

_INPUT_HELP = """\
input files:
  DATA.csv         a header row, one row per object, numeric feature columns; with
                   --label-column NAME that column holds the ground truth:
                   {truth_use}
  CONS.csv         header i,j,kind[,weight][,hard]; 0-based object indices (the data
                   row order), kind ML or CL, weight a number (default 1), hard 1/true
                   or 0/false (default 0)
{weight_use}
  matrix file      n x n numbers (separated by commas, semicolons or whitespace): 1 must-link, -1
                   cannot-link, 0 none (--constraint-matrix)
"""

# What each command reports against the ground truth of --label-column.
_SCORE_TRUTH = ("a constraint that contradicts it counts as erroneous, and the\n"
                "                   precision, recall and F1 of the predictions are reported")
_CLUSTER_TRUTH = "the clustering's ARI and NMI against it are reported"
# What each command does with the optional weight and hard columns of CONS.csv.
_SCORE_WEIGHTS = """\
                   score reads the weight and hard columns but does not use them: it
                   scores every constraint as a candidate error"""
_CLUSTER_WEIGHTS = """\
                   bh-kmeans, pckmeans and pcs use the weight and hard columns (weight
                   scales the penalty of violating the constraint; a hard one is never
                   violated); the other algorithms ignore both columns (cop-kmeans,
                   ml-kmeans, greedy-ml-kmeans and lcc treat every constraint alike,
                   kmeans keeps the must-links only, kmeans-s takes no pairwise
                   constraints)"""

_SCORE_EXAMPLES = """\
examples:
  ccopt score data.csv --constraints cons.csv -k 3
  ccopt score data.csv --constraints cons.csv -k 3 --label-column class \\
        --out scores.csv --plot scores.png --plot-convergence bounds.png
  ccopt score data.csv --constraint-matrix cons.txt -k 4 --criterion mssc --time-limit 60

methods (--method; the default depends on --criterion, see ccopt.impact_scores):
  kmedoids: voronoi, lagrangian, lp, exact, lp-dual (lp, exact and lp-dual solve a program
            with --solver: as matrices with the default highs_matrix, as a Pyomo model with
            any other; exact solves an integer program every iteration: small instances
            only, on Iris about a second per iteration)
  mssc:     kmeans
"""

_CLUSTER_EXAMPLES = """\
examples:
  ccopt cluster data.csv --constraints cons.csv -k 3 --algorithm bh-kmeans --out labels.csv
  ccopt cluster data.csv --constraints cons.csv -k 3 --algorithm lcc --seed 1
  ccopt cluster data.csv --constraints cons.csv -k 3 --algorithm pcs --sizes 50,50,50
  ccopt cluster data.csv -k 3 --algorithm kmeans --label-column class
  ccopt cluster data.csv --constraints cons.csv -k 3 --algorithm bh-kmeans \\
        --predict new.csv --predict-out new_labels.csv
"""

_BENCH_EXAMPLES = """\
examples:
  ccopt bench --list
  ccopt bench jia --quick            (arguments after NAME go to the benchmark)
  ccopt bench lcc --help             (the benchmark's own options)

Benchmarks are the scripts benchmarks/bench_*.py of a ccopt checkout that define
main(argv). They are looked up in --dir, else $CCOPT_BENCHMARKS, else ./benchmarks,
else the checkout ccopt is installed from.
"""


# ============================================================================ argument types
def int_at_least(minimum: int):
    """An argparse ``type``: an integer ``>= minimum`` (the examples' flags use it too).

    Parameters
    ----------
    minimum : int

    Returns
    -------
    callable
        ``str -> int``, raising :class:`argparse.ArgumentTypeError` with a one-line reason.
    """
    what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
        return value

    return parse


_positive_int = int_at_least(1)
_nonnegative_int = int_at_least(0)


def number_at_least(minimum: float, *, strict: bool = False):
    """An argparse ``type``: a finite number ``>= minimum`` (``> minimum`` when ``strict``).

    Parameters
    ----------
    minimum : float
    strict : bool, default=False

    Returns
    -------
    callable
        ``str -> float``, raising :class:`argparse.ArgumentTypeError` with a one-line reason.
    """
    what = f"a finite number {'>' if strict else '>='} {minimum:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not math.isfinite(value) or value < minimum or (strict and value == minimum):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text}")
        return value

    return parse


_positive_float = number_at_least(0, strict=True)


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _sizes(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers like 50,50,50, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected comma-separated integers like 50,50,50")
    if min(values) <= 0:
        raise argparse.ArgumentTypeError(
            f"expected positive integers (every cluster holds at least one object), got {text!r}")
    return values


def _show_sizes(values: list[int]) -> str:
    """--sizes as the user writes it."""
    return ",".join(str(v) for v in values)


# ============================================================================ parser
_MEMORY_ADVICE = ("Score with --criterion mssc (no n x n matrix), subsample the data, or raise the bound "
                  "with --max-memory GIB.")


def _memory_bound(gib: float | None):
    """The --max-memory bound for the run (the library's default without it)."""
    if gib is None:
        return contextlib.nullcontext()
    from ccopt.config import config_context

    return config_context(max_dense_bytes=max(1, int(gib * 1024**3)))


def _delimiter(text: str) -> str:
    """One separator character; 'tab' and '\\t' name the tab, which a shell hardly passes."""
    value = "\t" if text in ("tab", "\\t") else text
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"expected one character or 'tab', got {text!r}")
    return value


def _add_common_inputs(parser: argparse.ArgumentParser, *, constraints_required: bool) -> None:
    parser.add_argument("data", metavar="DATA.csv", help="data file (CSV with a header row)")
    parser.add_argument("-k", "--n-clusters", type=_positive_int, required=True, metavar="K",
                        help="number of clusters")
    parser.add_argument("--label-column", metavar="NAME",
                        help="column of DATA.csv with the ground-truth classes (not a feature)")
    group = parser.add_mutually_exclusive_group(required=constraints_required)
    group.add_argument("--constraints", metavar="CONS.csv", help="constraints as CSV rows i,j,kind[,weight][,hard]")
    group.add_argument("--constraint-matrix", metavar="FILE", help="constraints as an n x n matrix file")
    data_files = "DATA.csv" if constraints_required else "DATA.csv, --predict"  # score has no --predict
    parser.add_argument("--delimiter", type=_delimiter, default=",", metavar="CHAR",
                        help=f"field separator of the data files ({data_files}) and, unless "
                             "--constraints-delimiter is given, of the constraints file (default ','; "
                             "e.g. ';' or 'tab')")
    parser.add_argument("--constraints-delimiter", type=_delimiter, metavar="CHAR",
                        help="field separator of the --constraints or --constraint-matrix file "
                             "(default: that of --delimiter); matrix rows without it may use commas, "
                             "semicolons or whitespace")
    parser.add_argument("--numeric-header", action="store_true",
                        help="the column names of the data files are numbers (wavelengths, years); "
                             "without it a header row of numbers is refused as the first object of a "
                             "file that has no header")
    parser.add_argument("--scale", choices=tuple(_SCALERS), default="none",
                        help="rescale the features before clustering: 'standard' (mean 0, standard "
                             "deviation 1 per feature), 'minmax' (range [0, 1]) or 'none' (default); "
                             "features in different units otherwise weigh by their units")
    parser.add_argument("--max-memory", type=_positive_float, metavar="GIB",
                        help="largest dense array (such as the n x n distances of the k-medoids "
                             "criterion) a run may allocate, in GiB (default 4)")
    parser.add_argument("--seed", type=_nonnegative_int, default=0, help="random seed (default 0)")
    parser.add_argument("--time-limit", type=_positive_float, metavar="S", help="time limit in seconds")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log progress messages (-vv for debug)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``ccopt`` command (all subcommands).

    Returns
    -------
    argparse.ArgumentParser
    """
    from ccopt import __version__

    parser = argparse.ArgumentParser(
        prog="ccopt", formatter_class=_FORMAT,
        description="Constrained clustering with must-link and cannot-link constraints: find the "
                    "suspicious constraints (impact score), cluster, reproduce the papers' benchmarks.",
        epilog="run 'ccopt COMMAND --help' for the options and examples of a command\n\n"
               "examples:\n  ccopt score data.csv --constraints cons.csv -k 3\n"
               "  ccopt cluster data.csv --constraints cons.csv -k 3 --algorithm lcc\n"
               "  ccopt bench --list",
    )
    parser.add_argument("--version", action="version", version=f"ccopt {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    score = commands.add_parser(
        "score", formatter_class=_FORMAT, help="rank constraints by impact score (most suspicious first)",
        description="Compute the Lagrangian impact score of every constraint (Randel et al. 2021) and "
                    "print the constraints ranked, most suspicious (most negative score) first. The "
                    "constraints predicted erroneous (normalised score above --tau) are marked: "
                    "review them.",
        epilog=_INPUT_HELP.format(weight_use=_SCORE_WEIGHTS, truth_use=_SCORE_TRUTH) + "\n" + _SCORE_EXAMPLES)
    _add_common_inputs(score, constraints_required=True)
    # Options left out are not passed on, so the library's defaults apply (one source of truth).
    score.add_argument("--criterion", choices=("kmedoids", "mssc"),
                       help="clustering criterion (default kmedoids)")
    score.add_argument("--method", help="lower-bounding method (see below; default: the criterion's)")
    score.add_argument("--solver", help="solver for the lp/exact/lp-dual methods (default highs_matrix, or any Pyomo solver name)")
    score.add_argument("--max-iter", type=_positive_int, help="subgradient iterations")
    score.add_argument("--epsilon", type=_float, help="epsilon of the pairwise rows, in ]0,1[")
    score.add_argument("--tau", type=_float,
                       help="predicted erroneous iff the normalised score exceeds tau (default 0.1; 0: any "
                            "negative score)")
    score.add_argument("--score-from", choices=("best", "average"), help="multipliers behind the scores")
    score.add_argument("--top", type=_nonnegative_int, default=50,
                       help="rows of the ranking to print (default 50; 0 prints all)")
    score.add_argument("--out", metavar="scores.csv", help="write the ranked scores as CSV")
    score.add_argument("--history", metavar="history.csv", help="write the iteration history as CSV")
    score.add_argument("--plot", metavar="fig.png",
                       help="draw the data with the constraints coloured by score" + _FIGURE_HELP)
    score.add_argument("--plot-convergence", metavar="fig.png",
                       help="draw the bounds (and F1) by iteration" + _FIGURE_HELP)
    score.set_defaults(handler=_run_score)

    from ccopt.experiments import ALGORITHMS

    cluster = commands.add_parser(
        "cluster", formatter_class=_FORMAT, help="cluster with constraints and write the labels",
        description="Cluster DATA.csv under the given constraints with one of ccopt's algorithms and "
                    "write one label per object.",
        epilog=_INPUT_HELP.format(weight_use=_CLUSTER_WEIGHTS, truth_use=_CLUSTER_TRUTH) + "\n" + _CLUSTER_EXAMPLES)
    _add_common_inputs(cluster, constraints_required=False)
    cluster.add_argument("--algorithm", choices=tuple(ALGORITHMS), required=True, help="the algorithm")
    cluster.add_argument("--max-iter", type=_positive_int, help="iterations (algorithm default if omitted)")
    cluster.add_argument("--n-init", type=_positive_int, help="restarts (algorithm default if omitted)")
    cluster.add_argument("--solver", help="solver (bh-kmeans; default highs_matrix, or any Pyomo solver name)")
    cluster.add_argument("--penalty", type=_float, help="penalty p of a violated constraint (bh-kmeans)")
    cluster.add_argument("--solve-time-limit", type=_positive_float, metavar="S",
                         help="seconds per assignment solve (bh-kmeans; the paper used 200)")
    cluster.add_argument("--candidates", dest="n_candidates", type=_positive_int, metavar="Q",
                         help="let each constrained object go only to its Q nearest centres "
                              "(bh-kmeans; PCCC's heuristic, faster for many clusters)")
    cluster.add_argument("--min-size", type=_nonnegative_int, help="minimum cluster size (bh-kmeans)")
    cluster.add_argument("--max-size", type=_positive_int, help="maximum cluster size (bh-kmeans)")
    cluster.add_argument("--sizes", type=_sizes, metavar="N1,N2,...",
                         help="target cluster sizes (kmeans-s, pcs): K positive integers adding up to the "
                              "number of objects, in any order (the smallest cluster gets the smallest "
                              "target, and so on). They are soft targets: size terms in the objective pull "
                              "the clusters towards them, but the sizes reached may differ (they are then "
                              "printed beside the targets). --exact-sizes meets them with kmeans-s; pcs has "
                              "no such option")
    cluster.add_argument("--exact-sizes", dest="size_assignment", action="store_const", const="exact",
                         help="meet the --sizes exactly (kmeans-s): assign the objects by a transportation "
                              "problem with the targets as capacities instead of to the nearest centroid "
                              "(ccopt's extension of the paper; solved exactly with O(n k) memory)")
    cluster.add_argument("--out", metavar="labels.csv", help="write the labels as CSV (index,label)")
    cluster.add_argument("--plot", metavar="fig.png", help="draw the clusters and constraints" + _FIGURE_HELP)
    cluster.add_argument("--predict", metavar="NEW.csv",
                         help="also assign the rows of NEW.csv (the same feature columns) to their "
                              "nearest fitted centre; needs --predict-out")
    cluster.add_argument("--predict-out", metavar="new_labels.csv",
                         help="write the labels of the --predict rows as CSV (index,label)")
    cluster.set_defaults(handler=_run_cluster)

    bench = commands.add_parser(
        "bench", formatter_class=_FORMAT, help="run a reproduction benchmark (benchmarks/bench_*.py)",
        description="Run one of the reproduction benchmarks of a ccopt checkout, or list them.",
        epilog=_BENCH_EXAMPLES)
    bench.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    bench.add_argument("--dir", metavar="DIR", help="folder holding the bench_*.py scripts")
    bench.add_argument("name", nargs="?", metavar="NAME", help="benchmark name, e.g. jia for bench_jia.py")
    bench.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="passed to the benchmark")
    bench.set_defaults(handler=_run_bench)
    return parser


# ============================================================================ shared steps
def _check_output(path: str | None, option: str) -> Path | None:
    """Fail before any work if an output file cannot be created."""
    if path is None:
        return None
    out = Path(path)
    if out.is_dir():
        raise InvalidParameterError(f"{option} {path}: is a folder; give a file name.")
    if not out.parent.is_dir():
        raise InvalidParameterError(f"{option} {path}: the folder {str(out.parent)!r} does not exist.")
    return out


_INPUTS = (("data", "DATA.csv"), ("constraints", "--constraints"),
           ("constraint_matrix", "--constraint-matrix"), ("predict", "--predict"))


_FIGURES = ("--plot", "--plot-convergence")  # outputs matplotlib writes


def _figure_format(path: Path, option: str) -> str:
    """The format of a figure file: its suffix, PNG without one.

    matplotlib would append ``.png`` to a name without a suffix, and the file written would
    not be the one named; given the format, it writes the name as it is.
    """
    if not path.suffix:
        return "png"
    from matplotlib.backend_bases import FigureCanvasBase

    supported = FigureCanvasBase.get_supported_filetypes()
    fmt = path.suffix[1:].lower()
    if fmt not in supported:
        raise InvalidParameterError(
            f"{option} {path}: matplotlib cannot write the format {fmt!r} (the file suffix); use one of "
            f"{', '.join(sorted(supported))}.")
    return fmt


def _check_outputs(args, options) -> dict:
    """Every output file of ``options`` ((attribute, flag) pairs), checked before any work.

    An output may not be an input file (it would be overwritten after being read) nor another
    output (one would overwrite the other); a figure needs a format matplotlib can write.
    """
    outputs = {name: _check_output(getattr(args, name), flag) for name, flag in options}
    for name, flag in options:
        if flag in _FIGURES and outputs[name] is not None:
            _figure_format(outputs[name], flag)
    seen = {}
    for name, flag in _INPUTS:
        path = getattr(args, name, None)
        if path is not None:
            seen.setdefault(Path(path).resolve(), (flag, "the input"))
    for name, flag in options:
        if outputs[name] is None:
            continue
        key = outputs[name].resolve()
        if key in seen:
            other, role = seen[key]
            raise InvalidParameterError(
                f"{flag} {getattr(args, name)} is also {role} {other}: it would be overwritten; "
                "choose another file name.")
        seen[key] = (flag, "the output")
    return outputs


def _scaler(name: str):
    """The scikit-learn scaler that --scale names (None for 'none'); fitted on DATA.csv, it also
    rescales the --predict rows, so new objects are measured as the training ones were."""
    if name == "none":
        return None
    from sklearn import preprocessing

    return getattr(preprocessing, _SCALERS[name])()


def _read_data_csv(path: str, label_column: str | None, args):
    """:func:`ccopt.datasets.load_csv` of a data file, with the command line's rules and words.

    Parameters
    ----------
    path : str
        DATA.csv or the --predict file.
    label_column : str or None
    args : argparse.Namespace
        Read for --delimiter and --numeric-header.

    Returns
    -------
    Dataset

    Raises
    ------
    DataFormatError
        Besides load_csv's errors: a header row of numbers without --numeric-header (file and
        line), and a --label-column missing from a header that seems split by another separator.
    """
    from ccopt._validation import separator_hint
    from ccopt.datasets import _looks_like_data, _read_header, load_csv

    header, line = _read_header(path, args.delimiter)
    if label_column is not None and label_column not in header and len(header) == 1:
        # load_csv refuses the header before it reaches the values, where it would give this hint.
        hint = separator_hint(header[0], args.delimiter)
        if hint:
            raise DataFormatError(f"no label column {label_column!r} in header {header}.{hint}",
                                  path=path, line=line)
    if not args.numeric_header and _looks_like_data(header):
        # load_csv only warns about integers (they may be years). Read on, a file without a header
        # loses its first object and every constraint lands on the object after the one it names,
        # so the command line, which reads constraints by row, refuses any header of numbers.
        raise DataFormatError(
            f"the header row {header[:5]} holds only numbers: the file seems to have no header, and its "
            "first object would be read as column names (every constraint would then name the object "
            "after the one meant). Add a header row (e.g. x0,x1,...), or pass --numeric-header if these "
            "numbers name the columns.", path=path, line=line)
    # True either way: a header of numbers got here only with --numeric-header, and load_csv's
    # own warning would advise numeric_header=True, which the command line cannot pass.
    return load_csv(path, label_column=label_column, delimiter=args.delimiter, numeric_header=True)


# The separator hint of ccopt._validation.separator_hint, in a constraints file's error message.
_SEPARATOR_HINT = re.compile(r"pass delimiter=('[^']*') \(command line: --delimiter '[^']*'\)")


@contextlib.contextmanager
def _constraints_file_errors():
    """Make the separator hint of a constraints file's error name --constraints-delimiter.

    The library's hint names --delimiter, which also sets the data file's separator: followed
    for a tab-separated constraints file next to a comma-separated data file, it would break
    reading the data file.
    """
    try:
        yield
    except CcoptError as exc:
        text = str(exc)
        new = _SEPARATOR_HINT.sub(
            lambda m: "pass --constraints-delimiter " + ("tab" if m.group(1) == repr("\t") else m.group(1)), text)
        if new != text:
            exc.args = (new,)  # the same exception, path and line: only the advice changes
        raise


def _check_feature_range(X, args) -> None:
    """The library's checks of the magnitude of the features, said with the file and the options.

    The library names the data ``X`` and advises ``X - X.mean(axis=0)``; the command line user
    has a file and --scale. The checks are those the estimators run on the same ``X``, so the
    library's own far-from-origin warning is silenced where they run (see
    :func:`_said_warnings`).
    """
    import numpy as np

    from ccopt._validation import check_distance_range, check_not_vanishing, origin_offset

    where = args.data if args.scale == "none" else f"{args.data} (after --scale {args.scale})"
    largest = float(np.abs(X).max())
    try:
        check_distance_range(X)
    except InvalidDataError:
        raise InvalidDataError(
            f"{where}: the feature values are too large for squared Euclidean distances in float64 "
            f"(largest absolute value {largest:.3g}): sums of squared distances over {X.shape[0]} objects "
            "overflow. Rescale those columns in the file (e.g. to other units), or pass --scale minmax."
        ) from None
    try:
        check_not_vanishing(X)
    except InvalidDataError:
        raise InvalidDataError(
            f"{where}: the feature values are too small for squared Euclidean distances in float64 "
            f"(largest absolute value {largest:.3g}): they underflow to 0. Pass --scale standard or "
            "--scale minmax, or rescale the columns in the file."
        ) from None
    far = origin_offset(X)
    if far is not None:
        offset, variance = far
        advice = ("Centre the columns in the file (no clustering changes under a shift), or pass --scale "
                  "standard (which also gives every feature standard deviation 1)")
        if args.scale == "minmax":  # [0, 1] with the values bunched at 1; standard centres them
            advice = "Pass --scale standard instead (mean 0 per feature)"
        logger.warning(
            "%s: the data sit far from the origin for their spread (|mean| %.3g, standard deviation %.3g): "
            "squared distances lose about %.0f of their 16 digits. %s.", where, offset ** 0.5,
            variance ** 0.5, np.log10(offset / variance), advice)


@contextlib.contextmanager
def _said_warnings():
    """Silence the library's warnings that :func:`_check_feature_range` gave in the command
    line's words (the same check on the same data: it would repeat them, speaking Python)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"X sits far from the origin")
        yield


def _load_inputs(args):
    """The data set (features rescaled by --scale), the constraints bound to it (None when none
    were given) and the fitted scaler (None without --scale)."""
    from ccopt.constraints import Constraints

    dataset = _read_data_csv(args.data, args.label_column, args)
    _warn_about_non_feature_columns(dataset, args.data)
    scaler = _scaler(args.scale)
    if scaler is not None:
        dataset = dataclasses.replace(dataset, X=scaler.fit_transform(dataset.X))
        logger.info("%s: features rescaled (--scale %s)", args.data, args.scale)
    _check_feature_range(dataset.X, args)
    n = dataset.n_samples
    if args.n_clusters > n:
        raise InvalidParameterError(
            f"-k {args.n_clusters} is larger than the number of objects: {args.data} has {n} data rows."
        )
    constraints = None
    if args.constraints_delimiter is not None and args.constraints is None and args.constraint_matrix is None:
        raise InvalidParameterError("--constraints-delimiter applies to a --constraints or --constraint-matrix "
                                    "file, and none was given.")
    delimiter = args.delimiter if args.constraints_delimiter is None else args.constraints_delimiter
    if args.constraints is not None:
        with _constraints_file_errors():
            constraints = Constraints.from_csv(args.constraints, n_samples=n, delimiter=delimiter)
    elif args.constraint_matrix is not None:
        # The default ',' keeps the matrix reader's own rule: commas, semicolons or whitespace.
        separator = None if delimiter == "," else delimiter
        with _constraints_file_errors():
            matrix = Constraints.from_matrix_file(args.constraint_matrix, delimiter=separator)
        try:
            constraints = matrix.with_n_samples(n)
        except InvalidConstraintError:
            raise DataFormatError(
                f"the matrix is {matrix.n_samples} x {matrix.n_samples}, but {args.data} has {n} data rows",
                path=args.constraint_matrix) from None
    if constraints is not None:
        where = args.constraints or args.constraint_matrix
        logger.info("%s: %d objects, %d features; %s: %d must-link, %d cannot-link", args.data, n,
                    dataset.n_features, where, constraints.n_ml, constraints.n_cl)
    return dataset, constraints, scaler


# Column names that usually hold row numbers or classes, not measurements.
_ID_NAMES = {"id", "index", "idx", "row"}
_CLASS_NAMES = {"class", "classes", "label", "labels", "target", "species", "category", "cluster", "group"}


def _warn_about_non_feature_columns(dataset, path: str) -> None:
    """Warn about feature columns that look like row numbers or classes: every column but
    --label-column is a feature, and such a column silently changes every distance."""
    import numpy as np

    n = dataset.n_samples
    for column, name in enumerate(dataset.feature_names):
        key = name.strip().lower()
        values = dataset.X[:, column]
        if key in _ID_NAMES or (n > 2 and any(np.array_equal(values, np.arange(n) + s) for s in (0, 1))):
            advice = "looks like row numbers; remove it from the file"
        elif key in _CLASS_NAMES:
            advice = f"looks like classes; if it holds them, pass --label-column {name}"
        else:
            continue
        logger.warning("%s: column %r is used as a feature (every column except --label-column is one) but "
                       "%s.", path, name, advice)


def _save_figure(fig, path: Path, option: str) -> None:
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, format=_figure_format(path, option), dpi=120, bbox_inches="tight")
    except (OSError, ValueError) as exc:
        raise InvalidParameterError(f"cannot write the figure {path}: {exc}") from None
    finally:
        plt.close(fig)
    print(f"wrote {path}")


def _axis_names(args, dataset) -> tuple[str, ...]:
    """The feature names as axis labels; after --scale they say the units changed."""
    if args.scale == "none":
        return dataset.feature_names
    return tuple(f"{name} ({args.scale}-scaled)" for name in dataset.feature_names)


def _use_agg() -> None:
    """Files only: no window, no display needed."""
    import matplotlib

    matplotlib.use("Agg", force=True)


@contextlib.contextmanager
def _open_output(path: Path):
    """A CSV output file; failing to open, write or close it (e.g. a full disk) is bad input."""
    try:
        with open(path, "w", newline="", encoding="utf-8") as handle:
            yield handle
    except OSError as exc:
        raise InvalidParameterError(f"cannot write {path}: {exc.strerror or exc}") from None


# ============================================================================ score
def _run_score(args) -> int:
    outputs = _check_outputs(args, (("out", "--out"), ("history", "--history"), ("plot", "--plot"),
                                    ("plot_convergence", "--plot-convergence")))
    dataset, constraints, _ = _load_inputs(args)
    if len(constraints) == 0:
        raise DataFormatError("no constraints to score", path=args.constraints or args.constraint_matrix)
    from ccopt.lagrange import impact_scores
    from ccopt.lagrange.api import DEFAULT_METHOD, NOT_SCORED, methods_reading_solver
    from ccopt.status import Status

    criterion = args.criterion or "kmedoids"
    # As `cluster` refuses options its algorithm does not read (an unknown method is the library's to name).
    readers = None if args.solver is None else methods_reading_solver(criterion, args.method)
    if readers == []:
        raise InvalidParameterError(f"--solver is not read with --criterion {criterion}: none of its "
                                    "methods solves a program.")
    if readers:
        raise InvalidParameterError(f"--solver is read by --method {', '.join(readers)} only; --method "
                                    f"{args.method or DEFAULT_METHOD[criterion]} solves no program.")
    options = {name: getattr(args, name) for name in ("criterion", "method", "epsilon", "max_iter", "time_limit",
                                                       "solver", "tau", "score_from")
               if getattr(args, name) is not None}
    with warnings.catch_warnings(), _said_warnings():
        # Said below as an error: a run stopped before it scored has nothing to print or write.
        warnings.filterwarnings("ignore", message=re.escape(NOT_SCORED))
        result = impact_scores(dataset.X, args.n_clusters, constraints=constraints, random_state=args.seed,
                               progress=not args.quiet, labels_true=dataset.labels, **options)
    if not result.scored:
        if result.status is Status.INTERRUPTED:
            raise KeyboardInterrupt  # no result yet: exit 130
        raise InvalidParameterError(
            f"the run stopped (status {result.status}) after {result.n_iter} iteration(s) and "
            f"{result.seconds:.1f} s, the starting clustering included, while its best multipliers were "
            "still the starting 0: there are no scores. Allow more time (--time-limit) or iterations (--max-iter).")
    limit = None if args.top == 0 else args.top
    print(result.table(limit=limit))
    if limit is not None and result.scores.size > limit:
        print(f"... {result.scores.size - limit} more rows (--top 0 prints all; --out writes all)")
    print()
    print(result.summary())
    if outputs["out"] is not None:
        try:
            result.to_csv(outputs["out"], ranked=True)
        except OSError as exc:
            raise InvalidParameterError(f"cannot write {outputs['out']}: {exc.strerror or exc}") from None
        print(f"wrote {outputs['out']}")
    if outputs["history"] is not None:
        try:
            result.history.to_csv(outputs["history"])
        except OSError as exc:
            raise InvalidParameterError(f"cannot write {outputs['history']}: {exc.strerror}") from None
        print(f"wrote {outputs['history']}")
    if outputs["plot"] is not None or outputs["plot_convergence"] is not None:
        _use_agg()
        from ccopt import plotting

        if outputs["plot"] is not None:
            fig = plotting.plot_constraint_scores(dataset.X, result, feature_names=_axis_names(args, dataset),
                                                  title=f"{Path(args.data).name}: impact scores (k={args.n_clusters})")
            _save_figure(fig, outputs["plot"], "--plot")
        if outputs["plot_convergence"] is not None:
            fig = plotting.plot_convergence(result, title=f"{Path(args.data).name}: subgradient run")
            _save_figure(fig, outputs["plot_convergence"], "--plot-convergence")
    return EXIT_OK


# ============================================================================ cluster
# Command-line option -> estimator parameter, for the options that only some algorithms take.
_CLUSTER_OPTIONS = {"max_iter": "--max-iter", "n_init": "--n-init", "solver": "--solver",
                    "penalty": "--penalty", "solve_time_limit": "--solve-time-limit",
                    "n_candidates": "--candidates", "min_size": "--min-size", "max_size": "--max-size",
                    "sizes": "--sizes", "size_assignment": "--exact-sizes", "time_limit": "--time-limit"}


def _write_labels(path: Path, labels) -> None:
    with _open_output(path) as handle:
        writer = csv.writer(handle)
        writer.writerow(["index", "label"])
        writer.writerows([i, int(label)] for i, label in enumerate(labels))
    print(f"wrote {path}")


def _load_new_rows(path: str, features: tuple, args):
    """The feature matrix of the --predict file, whose columns must be the training features.

    The label column of the training file may be there or not; --delimiter and
    --numeric-header apply as to DATA.csv.
    """
    from ccopt.datasets import _read_header

    header, header_line = _read_header(path, args.delimiter)
    label_column = args.label_column
    labelled = label_column is not None and label_column in header
    new = _read_data_csv(path, label_column if labelled else None, args)
    if new.feature_names != tuple(features):
        raise DataFormatError(
            f"the feature columns {list(new.feature_names)} are not those of {args.data} "
            f"{list(features)} (same names, same order)", path=path, line=header_line)
    return new.X


def _run_cluster(args) -> int:
    import numpy as np

    from ccopt.experiments import ALGORITHMS, make_estimator

    if (args.predict is None) != (args.predict_out is None):
        raise InvalidParameterError("--predict NEW.csv and --predict-out FILE go together: give both.")
    outputs = _check_outputs(args, (("out", "--out"), ("plot", "--plot"), ("predict_out", "--predict-out")))
    out, plot, predict_out = outputs["out"], outputs["plot"], outputs["predict_out"]
    cls = getattr(importlib.import_module("ccopt.cluster"), ALGORITHMS[args.algorithm])
    accepted = set(cls._get_param_names())
    params = {"random_state": args.seed, "progress": not args.quiet}
    for name, flag in _CLUSTER_OPTIONS.items():
        value = getattr(args, name)
        if value is None:
            continue
        if name not in accepted:
            raise InvalidParameterError(f"{flag} does not apply to --algorithm {args.algorithm}.")
        params[name] = value
    if "sizes" in accepted and "sizes" not in params:
        raise InvalidParameterError(
            f"--algorithm {args.algorithm} needs the target cluster sizes: --sizes N1,N2,... "
            f"({args.n_clusters} integers adding up to the number of objects)."
        )
    # Checked here, not by the estimator, whose messages name its parameters ("sizes", "X").
    if "sizes" in params and len(params["sizes"]) != args.n_clusters:
        raise InvalidParameterError(
            f"--sizes {_show_sizes(params['sizes'])} gives {len(params['sizes'])} target sizes, but -k is "
            f"{args.n_clusters}: give one size per cluster.")
    dataset, constraints, scaler = _load_inputs(args)
    if "sizes" in params and sum(params["sizes"]) != dataset.n_samples:
        raise InvalidParameterError(
            f"--sizes {_show_sizes(params['sizes'])} adds up to {sum(params['sizes'])}, but {args.data} has "
            f"{dataset.n_samples} data rows: the target sizes must add up to the number of objects.")
    # Read before the fit, which may be long: a bad --predict file fails at once.
    new_X = (None if args.predict is None
             else _load_new_rows(args.predict, dataset.feature_names, args))
    if new_X is not None and scaler is not None:
        new_X = scaler.transform(new_X)
    estimator = make_estimator(args.algorithm, args.n_clusters,
                               **{k: v for k, v in params.items() if k in accepted})
    with _said_warnings():
        estimator.fit(dataset.X, constraints=constraints)
    labels = estimator.labels_
    sizes = np.bincount(labels, minlength=args.n_clusters).tolist()
    print(f"algorithm {args.algorithm}: status={estimator.status_} after {estimator.n_iter_} iterations")
    print(f"objective {estimator.objective_:.6g}, within-cluster sum of squares {estimator.inertia_:.6g}")
    # --sizes are soft targets (kmeans-s, pcs): say when the sizes reached differ from them.
    targets = [int(t) for t in getattr(estimator, "aligned_sizes_", sizes)]
    if targets != sizes:
        hint = ", --exact-sizes meets them" if "size_assignment" in accepted - params.keys() else ""
        print(f"cluster sizes {sizes}; target sizes {targets} (the --sizes matched to the clusters by "
              f"rank; soft targets{hint})")
    else:
        print(f"cluster sizes {sizes}")
    if constraints is not None:
        v = estimator.n_violations_
        print(f"violated constraints: {v['total']} of {len(constraints)} ({v['ml']} must-link, {v['cl']} cannot-link)")
    if dataset.labels is not None:
        from ccopt.metrics import adjusted_rand_score, normalized_mutual_info_score

        print(f"against {args.label_column}: ARI {adjusted_rand_score(dataset.labels, labels):.4f}, "
              f"NMI {normalized_mutual_info_score(dataset.labels, labels):.4f}")
    if out is not None:
        _write_labels(out, labels)
    if new_X is not None:
        predicted = estimator.predict(new_X)
        print(f"{args.predict}: {len(predicted)} rows to the nearest centre, cluster sizes "
              f"{np.bincount(predicted, minlength=args.n_clusters).tolist()}")
        _write_labels(predict_out, predicted)
    if plot is not None:
        _use_agg()
        from ccopt.constraints import Constraints
        from ccopt.plotting import plot_constraint_scores

        fig = plot_constraint_scores(dataset.X, constraints=constraints or Constraints.empty(dataset.n_samples),
                                     labels=labels, feature_names=_axis_names(args, dataset),
                                     title=f"{Path(args.data).name}: {args.algorithm} (k={args.n_clusters})")
        _save_figure(fig, plot, "--plot")
    return EXIT_OK


# ============================================================================ bench
def _benchmark_dir(explicit: str | None) -> Path:
    import os

    candidates = []
    if explicit is not None:
        candidates.append(("--dir", Path(explicit)))
    elif os.environ.get(BENCHMARKS_ENV):
        candidates.append((f"${BENCHMARKS_ENV}", Path(os.environ[BENCHMARKS_ENV])))
    else:
        candidates.append(("the current folder", Path.cwd() / "benchmarks"))
        candidates.append(("the ccopt checkout", Path(__file__).resolve().parents[1] / "benchmarks"))
    for _, folder in candidates:
        if folder.is_dir() and any(folder.glob("bench_*.py")):
            return folder
    tried = ", ".join(f"{str(folder)!r} ({where})" for where, folder in candidates)
    raise InvalidParameterError(
        f"No benchmarks found: no bench_*.py in {tried}. Run from a ccopt checkout or pass --dir DIR."
    )


def discover_benchmarks(directory: str | Path) -> dict[str, tuple[Path, str]]:
    """The benchmark scripts of a folder: every ``bench_*.py`` that defines ``main(argv)``.

    The scripts are parsed, not imported, so listing them is fast and side-effect free.

    Parameters
    ----------
    directory : str or path-like

    Returns
    -------
    dict of str to (pathlib.Path, str)
        Name (the file name without ``bench_`` and ``.py``) to the script and the first line
        of its docstring, sorted by name.
    """
    found = {}
    for path in sorted(Path(directory).glob("bench_*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError) as exc:
            logger.warning("skipping %s: %s", path, exc)
            continue
        has_main = any(isinstance(node, ast.FunctionDef) and node.name == "main"
                       and (node.args.args or node.args.vararg) for node in tree.body)
        if not has_main:
            continue
        doc = (ast.get_docstring(tree) or "").strip().splitlines()
        found[path.stem[len("bench_"):]] = (path, doc[0] if doc else "")
    return found


def _run_bench(args) -> int:
    folder = _benchmark_dir(args.dir)
    found = discover_benchmarks(folder)
    if args.list or args.name is None:
        width = max((len(n) for n in found), default=4)
        print(f"benchmarks in {folder}:")
        for name, (_, doc) in found.items():
            print(f"  {name:<{width}}  {doc}")
        if not args.list:
            print("\nrun one with: ccopt bench NAME [ARGS ...]")
        return EXIT_OK
    name = args.name.removeprefix("bench_").removesuffix(".py").replace("-", "_")
    if name not in found:
        raise InvalidParameterError(
            f"No benchmark {args.name!r} in {folder}; available: {', '.join(found) or 'none'}."
        )
    # Imported by name (the package ``benchmarks`` of the checkout when it is one), so that a
    # benchmark's module-level task functions can be pickled to joblib workers.
    if (folder / "__init__.py").is_file():
        search, module_name = folder.parent, f"{folder.name}.bench_{name}"
    else:
        search, module_name = folder, f"bench_{name}"
    if str(search) not in sys.path:
        sys.path.insert(0, str(search))
    module = importlib.import_module(module_name)
    print(f"running {found[name][0]}", file=sys.stderr)
    # The benchmark's own argparse names itself after argv[0] in its usage lines.
    saved_argv = sys.argv
    sys.argv = [f"ccopt bench {name}", *args.args]
    try:
        code = module.main(list(args.args))
    finally:
        sys.argv = saved_argv
    return EXIT_OK if code is None else int(code)


# ============================================================================ entry point
def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"ccopt: warning: {_one_line(message)}", file=sys.stderr)


class _LineFormatter(logging.Formatter):
    """``ccopt: warning: ...``, the form warnings take, so one grep finds both."""

    def format(self, record: logging.LogRecord) -> str:
        return f"ccopt: {record.levelname.lower()}: {_one_line(record.getMessage())}"


def main(argv: list[str] | None = None) -> int:
    """Run the ``ccopt`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success (also when Ctrl-C ended a computation that kept its best result so far,
        marked interrupted), 2 for invalid input (one line on stderr), 130 when interrupted
        before there was a result, 141 when stdout was closed early. Unexpected errors
        propagate (the console script shows the traceback, exit 1).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    verbose = getattr(args, "verbose", 0)
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LineFormatter())
    logging.basicConfig(level=level, handlers=[handler])
    package_logger = logging.getLogger("ccopt")
    previous_level = package_logger.level
    if verbose:
        package_logger.setLevel(level)
    with warnings.catch_warnings():  # restores the caller's filters and showwarning
        # ccopt's warnings are messages to the command's user, one line each, whatever
        # filters the caller set (``python -W error``, a test runner's configuration).
        warnings.simplefilter("default", CcoptWarning)
        warnings.showwarning = _show_warning
        try:
            return _run(args)
        finally:
            package_logger.setLevel(previous_level)


def _run(args) -> int:
    """Run the parsed command; errors a user can cause become one line on stderr and an exit code."""
    try:
        with _memory_bound(getattr(args, "max_memory", None)):
            code = args.handler(args)
        # Buffered output meets a closed pipe only when flushed; at exit that would be too late.
        sys.stdout.flush()
        return code
    except MemoryBudgetError as exc:
        # The library's advice names set_config, which a command-line user cannot reach.
        print(f"ccopt {args.command}: error: {exc.summary} {_MEMORY_ADVICE}", file=sys.stderr)
        return EXIT_USAGE
    except CcoptError as exc:
        print(f"ccopt {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"ccopt {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of stdout stopped early (``ccopt score ... | head``): not an error of ours.
        # Point stdout at devnull so that the interpreter's final flush does not fail again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):  # stdout without a file descriptor (captured in tests)
            pass
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
