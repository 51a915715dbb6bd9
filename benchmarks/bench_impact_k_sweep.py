"""Impact score as a guide to the number of clusters: Fig. 3 of Randel et al. (2021).

The paper scores the published synthetic instances with five clusters at every
``k = 2..10`` and reports (Sec. 4.1, Fig. 3) that the fraction of constraints predicted
erroneous is lowest at ``k = 5`` and that F1 is highest there. This benchmark repeats that
on every ``--stride``-th of the 159 published five-cluster instances that have constraints
(../shared/datasets/lagrangian_synthetic), with ccopt's default route (``kmedoids``:
k-medoids, Voronoi oracle, the paper's Sec. 4.1 criterion) and, beside it, the naive
baseline of ../shared/TARGETS.md (a constraint is predicted erroneous iff unconstrained
k-means with the same ``k`` violates it), which gives the same kind of curve for free.

Results go to ``benchmarks/results/impact_k_sweep.csv`` (resumable), the report to
``benchmarks/reports/impact_k_sweep.md`` with the figure ``impact_k_sweep.png`` beside it.
Run ``python benchmarks/bench_impact_k_sweep.py`` (about 10 minutes on 2 cores; ``--stride 40``
for a smoke run; ``--report-only`` to rewrite the report and figure from the results).
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._impact_common import METHODS, machine, markdown_table
from benchmarks._reports import (
    command_line,
    current_rows,
    figure_note,
    log_task_progress,
    require_results,
    save_report,
    stopped_early,
)

HERE = Path(__file__).resolve().parent
TRUE_K = 5
KS = tuple(range(2, 11))
REPORT = HERE / "reports" / "impact_k_sweep.md"
FIGURE = REPORT.with_suffix(".png")


def five_cluster_instances(stride: int) -> list[int]:
    """Every ``stride``-th published instance with five clusters and a constraints file."""
    from ccopt.datasets import datasets_root

    with open(datasets_root() / "lagrangian_synthetic" / "index.csv", newline="") as handle:
        ids = [int(r["instance"]) for r in csv.DictReader(handle)
               if int(r["k"]) == TRUE_K and r["has_constraints"] == "True"]
    return ids[::stride]


def k_sweep_task(config: dict) -> dict:
    """One (instance, k, method) run: the fraction predicted erroneous and F1."""
    import ccopt
    from ccopt.datasets import load_lagrangian_synthetic
    from ccopt.lagrange.baselines import naive_baseline
    from ccopt.metrics import detection_scores

    with warnings.catch_warnings():
        # e.g. the duplicate row of instance 419, reported once per run otherwise
        warnings.simplefilter("ignore")
        data = load_lagrangian_synthetic(config["instance"])
        cons = next(iter(data.constraint_sets.values()))
        erroneous = cons.to_given(~cons.is_correct(data.labels))
        if config["method"] == "naive":
            result = naive_baseline(data.X, config["k"], constraints=cons, criterion="mssc",
                                    erroneous=erroneous, random_state=config["seed"])
        else:
            result = ccopt.impact_scores(data.X, config["k"], constraints=cons, erroneous=erroneous,
                                         random_state=config["seed"], progress=False, max_iter=config["max_iter"],
                                         **METHODS[config["method"]])
    predicted = np.asarray(result.predicted_erroneous)
    # Any negative score (tau = 0); naive has no scores: its prediction is the violation itself.
    negative = predicted if config["method"] == "naive" else np.asarray(result.normalized_scores) > 0
    # Every reading counts the constraint rows as given, like the fraction and the other
    # benchmarks (score_task); result.detection counts a duplicated row once.
    return {"n_constraints": int(predicted.size), "n_predicted": int(predicted.sum()),
            "fraction_predicted": float(predicted.mean()), "f1": float(detection_scores(erroneous, predicted).f1),
            "fraction_negative": float(negative.mean()), "f1_negative": float(detection_scores(erroneous, negative).f1),
            "run_seconds": float(result.seconds)}


# The two readings of a run: the calibrated tau's predictions, and any negative score.
TAU_COLUMNS = ("fraction_predicted", "f1")
NEGATIVE_COLUMNS = ("fraction_negative", "f1_negative")


def sweep_arrays(rows: list[dict], method: str, instances, columns=TAU_COLUMNS) -> tuple[np.ndarray, np.ndarray]:
    """(fraction, F1) from ``columns``, each of shape (n_instances, len(KS)); NaN where a run is missing."""
    fraction = np.full((len(instances), len(KS)), np.nan)
    f1 = np.full_like(fraction, np.nan)
    where = {i: r for r, i in enumerate(instances)}
    fraction_column, f1_column = columns
    for row in rows:
        if row["method"] == method and row["instance"] in where and row["k"] in KS:
            at = (where[row["instance"]], KS.index(row["k"]))
            fraction[at], f1[at] = row[fraction_column], row[f1_column]
    return fraction, f1


def share_at_true_k(values: np.ndarray, best) -> float:
    """Share of instances (rows) whose best value over ``KS`` (``best``: np.min or np.max) is at k = 5."""
    complete = values[~np.isnan(values).any(axis=1)]
    if not complete.size:
        return float("nan")
    hits = complete[:, KS.index(TRUE_K)] == best(complete, axis=1)
    return float(hits.mean())


def sweep_figure(curves: dict):
    """Fig. 3 per method: ``curves`` maps a title to (fraction predicted, F1) arrays."""
    from matplotlib.figure import Figure

    from ccopt.plotting import plot_k_sweep

    fig = Figure(figsize=(4.6 * len(curves), 3.6), layout="constrained")
    for ax, (title, (fraction, f1)) in zip(np.atleast_1d(fig.subplots(1, len(curves))), curves.items(), strict=True):
        plot_k_sweep(KS, fraction, f1, ax=ax, title=title)
    return fig


def report(rows: list[dict], instances, methods, stride: int, command: str) -> tuple[str, dict]:
    """The report's text and the curves of its figure (title -> (fraction, F1) arrays)."""
    table, curves, verdicts = [], {}, []
    variants = [(m, TAU_COLUMNS, m if m == "naive" else f"{m}, tau = 0.1") for m in methods]
    variants += [(m, NEGATIVE_COLUMNS, f"{m}, any negative score") for m in methods if m != "naive"]
    for method, columns, name in variants:
        fraction, f1 = sweep_arrays(rows, method, instances, columns)
        curves[name] = (fraction, f1)
        mean_fraction, mean_f1 = np.nanmean(fraction, axis=0), np.nanmean(f1, axis=0)
        for k, fr, f in zip(KS, mean_fraction, mean_f1, strict=True):
            table.append([name, k, fr, f])
        lowest, highest = KS[int(np.nanargmin(mean_fraction))], KS[int(np.nanargmax(mean_f1))]
        verdicts.append([name, lowest, highest, share_at_true_k(fraction, np.min), share_at_true_k(f1, np.max)])
    return "\n".join([
        "## Impact score as a guide to k (Fig. 3 of Randel et al. 2021)", "",
        f"Machine: {machine()}.", "",
        f"The published synthetic instances with {TRUE_K} clusters (every {stride}-th of them: "
        f"{len(instances)} instances), each scored at k = {KS[0]}..{KS[-1]}. `kmedoids` is "
        "ccopt's default route, read with the calibrated tau = 0.1 and with any negative score as "
        "erroneous; `naive` is unconstrained k-means with the same k (TARGETS.md). The paper: the "
        "fraction predicted erroneous is lowest, and F1 highest, at k = 5 (a plot; no numbers in the "
        "text).", "",
        f"Command: `{command}`", "",
        figure_note(FIGURE, "fraction predicted erroneous and F1 against k"), "",
        "### The paper's claim, checked", "",
        "Share of instances: the instance's own minimum fraction (maximum F1) is reached at k = 5, ties "
        "included.", "",
        markdown_table(["method", "k of the lowest mean fraction", "k of the highest mean F1",
                        "share of instances: lowest fraction at k = 5", "share: highest F1 at k = 5"], verdicts),
        "", "### Means over the instances", "",
        markdown_table(["method", "k", "fraction predicted erroneous", "F1"], table), ""]), curves


def main(argv=None) -> int:
    from ccopt.experiments import run_experiment

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stride", type=int, default=4, help="use every stride-th five-cluster instance")
    parser.add_argument("--methods", default="kmedoids,naive")
    parser.add_argument("--max-iter", type=int, default=1000, help="the paper's m")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "impact_k_sweep.csv")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report and figure from --out")
    args = parser.parse_args(argv)
    if args.report_only and not args.out.is_file():  # before the data sets are read
        require_results([], args.out)
    methods = [m for m in args.methods.split(",") if m]
    unknown = [m for m in methods if m not in ("kmedoids", "mssc", "naive")]
    if unknown:
        parser.error(f"--methods {', '.join(unknown)}: use kmedoids, mssc or naive")
    instances = five_cluster_instances(args.stride)
    tasks = [{"instance": i, "k": k, "method": m, "max_iter": args.max_iter}
             for i in instances for k in KS for m in methods]
    if not args.report_only:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        log_task_progress()
        done = run_experiment(tasks, k_sweep_task, args.out, n_jobs=args.n_jobs, on_error="raise", random_state=0,
                              name="impact_k_sweep")
        if stopped_early(done):
            return 130
    rows = current_rows(tasks, args.out)
    if args.report_only:
        require_results(rows, args.out)
    for row in rows:
        row["instance"], row["k"] = int(row["instance"]), int(row["k"])
    text, curves = report(rows, instances, methods, args.stride, command_line("bench_impact_k_sweep.py", argv))
    save_report(REPORT, text)
    sweep_figure(curves).savefig(FIGURE, dpi=110)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
