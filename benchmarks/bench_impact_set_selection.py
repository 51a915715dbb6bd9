"""Choosing whole constraint sets by their impact score: Figs. 9-10 and Table 4 of Randel et al. (2021).

The paper (Sec. 4.4) draws, on Iris, Wine, Glass and Ionosphere, 100 sets of 25 correct
constraints and 100 sets of 25 erroneous ones, scores every set with the k-medoids model
(the set score I(C) is the sum of its constraints' impact scores) and compares the ARI of
the constrained clusterings of all 100 sets with that of the 50 sets the score selects
(correct sets: the most negative scores; erroneous sets: the highest) and of the 50 that
Davidson et al.'s coherence selects (the most / least coherent). Its claims, in the text:

* correct sets (Fig. 9): the set of best ARI is ranked #1 by the score on Iris and Wine,
  #2 on Glass and #4 on Ionosphere;
* erroneous sets (Fig. 10): on every data set the score's 50 include the set of best ARI
  and have the highest median ARI, and their worst set is better than coherence's worst;
* Table 4: the proportions of cannot-links and must-links, alike in all three groups.

Beside coherence this benchmark also selects by informativeness (the share of a set that
unconstrained k-medoids violates; the naive baseline of ../shared/TARGETS.md read per set;
not in the paper). Each set is drawn by :func:`ccopt.generators.random_pair_constraints`
(uniformly random pairs: the paper's Table 4 proportions follow the class sizes) and scored
by :func:`ccopt.experiments.constraint_set_task` with ccopt's default route (k-medoids,
``voronoi``) and one tenth of the paper's Table 3 budget for these data sets (12 s). The ARI
is read twice: from the k-medoids optimum with the set (the integer program with the exact
pairwise rows, solved by HiGHS: the paper's "partition obtained by solving (2)-(5)"), and
from the best feasible clustering the impact-score run found.

Results go to ``benchmarks/results/impact_set_selection.csv`` (resumable), the report to
``benchmarks/reports/impact_set_selection.md`` with the figure ``impact_set_selection.png``.
Run ``python benchmarks/bench_impact_set_selection.py --n-jobs 2`` (about 40 minutes on two cores,
most of it Ionosphere's integer programs; ``--no-exact`` about 3 minutes; ``--n-sets 10 --top 5``
for a smoke run; ``--report-only`` to rewrite the report and figure).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._impact_common import machine, markdown_table
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
DATASETS = ("iris", "wine", "glass", "ionosphere")
REPORT = HERE / "reports" / "impact_set_selection.md"
FIGURE = REPORT.with_suffix(".png")
# Fig. 9's text: the rank the score gives the set of best ARI among the correct sets.
PAPER_BEST_RANK = {"iris": 1, "wine": 1, "glass": 2, "ionosphere": 4}
# Table 4, (CL %, ML %) per data set: whole collection, top 50 by the score, top 50 by coherence.
PAPER_TABLE4 = {
    "iris": ((33.6, 66.4), (33.2, 66.8), (32.3, 67.7)),
    "wine": ((34.8, 65.2), (34.5, 65.5), (34.0, 66.0)),
    "glass": ((24.6, 75.4), (23.1, 76.9), (24.0, 76.0)),
    "ionosphere": ((53.4, 46.6), (54.2, 45.8), (53.6, 46.4)),
}
SELECTORS = ("impact score", "coherence", "informativeness")


def collection(rows: list[dict], data: str, erroneous: bool) -> list[dict]:
    """The sets of one data set and kind, in set order."""
    chosen = [r for r in rows if r["data"] == data and bool(r["erroneous"]) == erroneous]
    return sorted(chosen, key=lambda r: int(r["set"]))


def rank_of_best(records: list[dict], selector: str, erroneous: bool, value: str = "ari") -> int:
    """Rank (1 = chosen first) the selector gives a set of the highest ``value`` (the best-ranked one if tied)."""
    from ccopt.experiments import constraint_set_ranking

    ari = np.array([float(r[value]) for r in records])
    order = constraint_set_ranking(records, selector, erroneous=erroneous)
    return int(np.flatnonzero(ari[order] == ari.max())[0]) + 1


def spearman(records: list[dict], column: str, value: str = "ari") -> float:
    """Spearman's rho of ``column`` and ``value`` over ``records``; NaN when either is constant (rho undefined)."""
    from scipy.stats import spearmanr

    x, y = ([float(r[c]) for r in records] for c in (column, value))
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(spearmanr(x, y).statistic)


def cl_share(records: list[dict], positions) -> float:
    """Per cent of cannot-links among the constraints of the sets at ``positions``."""
    n_cl = sum(int(records[i]["n_cl"]) for i in positions)
    n_all = sum(int(records[i]["n_cl"]) + int(records[i]["n_ml"]) for i in positions)
    return 100.0 * n_cl / n_all


# The two readings of "the partition obtained by solving (2)-(5) with C".
READINGS = {"ari_exact": "the k-medoids optimum with the set (the paper's reading)",
            "ari": "the best feasible clustering the impact-score run found"}


def figure_section(rows: list[dict], datasets, top: int, erroneous: bool, value: str) -> tuple[list[str], dict]:
    """One figure's tables for one ARI reading, and its box-plot groups ({data set: {group: ARIs}})."""
    from ccopt.experiments import constraint_set_selection

    stats, checks, groups_by_data = [], [], {}
    for data in datasets:
        records = collection(rows, data, erroneous)
        if not records:
            continue
        groups = constraint_set_selection(records, top=top, erroneous=erroneous, value=value)
        groups_by_data[data] = groups
        for name, values in groups.items():
            stats.append([data, name, len(values), float(np.median(values)), float(np.min(values)),
                          float(np.max(values)), float(np.mean(values))])
        ranks = [rank_of_best(records, s, erroneous, value) for s in SELECTORS]
        medians = {name: float(np.median(v)) for name, v in groups.items() if name != "all"}
        paper = "in its top 50, every data set" if erroneous else PAPER_BEST_RANK[data]
        checks.append([data, len(records), *ranks, paper, "yes" if ranks[0] <= top else "no",
                       " = ".join(n for n, m in medians.items() if m == max(medians.values())),
                       "yes" if np.min(groups["impact score"]) > np.min(groups["coherence"]) else "no",
                       spearman(records, "set_score", value), spearman(records, "coherence", value),
                       float(max(float(r[value]) for r in records))])
    kind = "erroneous" if erroneous else "correct"
    lines = [
        f"### {'Fig. 10' if erroneous else 'Fig. 9'}: sets of {kind} constraints, ARI of {READINGS[value]}", "",
        markdown_table(["data set", "group", "sets", "median ARI", "min", "max", "mean"], stats), "",
        "Rank each measure gives the set of best ARI (1 = chosen first), and the paper's claims checked "
        "for the impact score: its top sets include the best set, which group has the highest median, "
        "and whether the score's worst chosen set beats coherence's worst; Spearman correlation of the "
        "set score and of coherence with ARI over all sets.", "",
        markdown_table(["data set", "sets", "rank by impact score", "rank by coherence",
                        "rank by informativeness", "paper (impact score)", f"best set in the score's top {top}",
                        "highest median", "score's worst > coherence's worst", "Spearman(score, ARI)",
                        "Spearman(coherence, ARI)", "best ARI"], checks), ""]
    return lines, groups_by_data


def table4_section(rows: list[dict], datasets, top: int) -> list[str]:
    """Cannot-link shares of both collections beside the paper's Table 4."""
    from ccopt.experiments import constraint_set_ranking

    table = []
    for erroneous in (False, True):
        for data in datasets:
            records = collection(rows, data, erroneous)
            if not records:
                continue
            shares = [cl_share(records, range(len(records)))]
            shares += [cl_share(records, constraint_set_ranking(records, s, erroneous=erroneous)[:top])
                       for s in SELECTORS[:2]]
            paper_cl = [p[0] for p in PAPER_TABLE4[data]]
            table.append([data, "erroneous" if erroneous else "correct",
                          *[f"{s:.1f} % ({p:.1f} %)" for s, p in zip(shares, paper_cl, strict=True)]])
    return ["### Table 4: share of cannot-links in the selected sets", "",
            "Ours, with the paper's figure in brackets (its table does not say which collection it counts).", "",
            markdown_table(["data set", "sets of", "whole collection", f"top {top} by impact score",
                            f"top {top} by coherence"], table), ""]


def exact_section(rows: list[dict], datasets) -> list[str]:
    """How far the run's best feasible clustering is from the k-medoids optimum."""
    table = []
    for erroneous in (False, True):
        for data in datasets:
            records = [r for r in collection(rows, data, erroneous) if r.get("exact_objective") is not None]
            if not records:
                continue
            ours = np.array([float(r["upper_bound"]) for r in records])
            best = np.array([float(r["exact_objective"]) for r in records])
            excess = 100.0 * (ours / best - 1.0)
            same_ari = np.mean([float(r["ari"]) == float(r["ari_exact"]) for r in records])
            optimal = sum(r["exact_status"] == "optimal" for r in records)
            table.append([data, "erroneous" if erroneous else "correct", len(records), optimal,
                          float(np.mean(excess <= 1e-6)), float(np.mean(excess)), float(np.max(excess)),
                          float(same_ari), float(np.median([float(r["exact_seconds"]) for r in records]))])
    return ["### The run's best feasible clustering against the k-medoids optimum", "",
            markdown_table(["data set", "sets of", "sets", "solved to optimality", "share at the optimum",
                            "mean excess %", "max excess %", "share with the same ARI",
                            "median IP seconds"], table), ""]


def report(rows: list[dict], datasets, top: int, command: str) -> tuple[str, dict]:
    """The report's text and its figure's groups ({figure title: {data set: {group: ARIs}}})."""
    values = [v for v in READINGS if rows and all(r.get(v) is not None for r in rows)]
    figure, sections = {}, []
    for value in values:
        for erroneous in (False, True):
            lines, groups = figure_section(rows, datasets, top, erroneous, value)
            sections += lines
            if value == values[0] and groups:
                figure["Fig. 10: erroneous constraints" if erroneous else "Fig. 9: correct constraints"] = groups
    if "ari_exact" in values:
        sections += exact_section(rows, datasets)
    sections += table4_section(rows, datasets, top)
    text = "\n".join([
        "## Choosing constraint sets by impact score (Figs. 9-10, Table 4 of Randel et al. 2021)", "",
        f"Machine: {machine()}.", "",
        "Per data set, sets of 25 constraints drawn as uniformly random pairs, every constraint correct "
        "(Fig. 9) or every one erroneous (Fig. 10); each set scored with k-medoids (`voronoi` route, "
        "ccopt's default), its set score the sum of its impact scores. ARI, in two readings of \"the "
        "partition obtained by solving (2)-(5) with C\": " + "; ".join(READINGS[v] for v in values) + ". "
        "Selections as in the paper's text, plus informativeness (not in the paper; the share of the set "
        "that unconstrained k-medoids violates, the naive baseline's reading).", "",
        f"Command: `{command}`", "",
        figure_note(FIGURE, f"box plots of ARI ({READINGS[values[0]] if values else 'none'}) per selection, "
                            "Figs. 9 and 10"), "",
        *sections])
    return text, figure


def selection_figure(figure: dict):
    """One panel per figure: Fig. 9 (correct sets), Fig. 10 (erroneous sets)."""
    from matplotlib.figure import Figure

    from ccopt.plotting import plot_selection_boxplots

    fig = Figure(figsize=(6.5 * len(figure), 4.5), layout="constrained")
    for ax, (title, groups) in zip(np.atleast_1d(fig.subplots(1, len(figure))), figure.items(), strict=True):
        plot_selection_boxplots(groups, ax=ax, title=title)
    return fig


def main(argv=None) -> int:
    from ccopt.experiments import constraint_set_task, run_experiment

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--n-sets", type=int, default=100, help="sets per data set and kind (the paper: 100)")
    parser.add_argument("--top", type=int, default=50, help="sets each measure selects (the paper: 50)")
    parser.add_argument("--n-constraints", type=int, default=25, help="constraints per set (the paper: 25)")
    parser.add_argument("--time-limit", type=float, default=12.0, help="seconds per set (1/10 of the paper's 120)")
    parser.add_argument("--no-exact", action="store_true",
                        help="skip the k-medoids integer program per set (the paper's reading of the ARI)")
    parser.add_argument("--exact-time-limit", type=float, default=600.0, help="seconds per integer program")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "impact_set_selection.csv")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report and figure from --out")
    args = parser.parse_args(argv)
    if args.report_only and not args.out.is_file():  # before the data sets are read
        require_results([], args.out)
    datasets = [d for d in args.datasets.split(",") if d]
    unknown = [d for d in datasets if d not in DATASETS]
    if unknown:
        parser.error(f"--datasets {', '.join(unknown)}: use {', '.join(DATASETS)}")
    if not 0 < args.top <= args.n_sets:
        parser.error(f"--top must lie in 1..--n-sets ({args.n_sets}), got {args.top}")
    tasks = [{"data": f"benchmark:{d}", "erroneous": e, "set": s, "instance_seed": s,
              "n_constraints": args.n_constraints, "criterion": "kmedoids", "method": "voronoi",
              "time_limit": args.time_limit, "exact": not args.no_exact, "exact_time_limit": args.exact_time_limit}
             for d in datasets for e in (False, True) for s in range(args.n_sets)]
    if not args.report_only:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        log_task_progress()
        done = run_experiment(tasks, constraint_set_task, args.out, n_jobs=args.n_jobs, on_error="raise",
                              random_state=0, name="impact_set_selection")
        if stopped_early(done):
            return 130
    rows = current_rows(tasks, args.out)
    if args.report_only:
        require_results(rows, args.out)
    for row in rows:
        row["data"] = str(row["data"]).split(":", 1)[1]
    text, figure = report(rows, datasets, args.top, command_line("bench_impact_set_selection.py", argv))
    save_report(REPORT, text)
    if figure:
        selection_figure(figure).savefig(FIGURE, dpi=110)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
