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
``voronoi``) and one tenth of the paper's Table 3 budget for these data sets (12 s); the
ARI is that of the best feasible clustering the run found.

Results go to ``benchmarks/results/impact_set_selection.csv`` (resumable), the report to
``benchmarks/reports/impact_set_selection.md`` with the figure ``impact_set_selection.png``.
Run ``python benchmarks/bench_impact_set_selection.py`` (about 10 minutes on one core;
``--n-sets 10 --top 5`` for a smoke run; ``--report-only`` to rewrite the report and figure).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._impact_common import machine, markdown_table
from benchmarks._reports import command_line, figure_note, log_task_progress, save_report

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


def selection_order(records: list[dict], selector: str, erroneous: bool) -> np.ndarray:
    """Positions of ``records`` from the first chosen to the last, as in constraint_set_selection."""
    column = {"impact score": "set_score", "coherence": "coherence", "informativeness": "informativeness"}[selector]
    values = np.array([float(r[column]) for r in records])
    # Correct sets: most negative score, most coherent, most informative first; erroneous: the reverse.
    key = {"impact score": values, "coherence": -values, "informativeness": -values}[selector]
    return np.argsort(-key if erroneous else key, kind="stable")


def rank_of_best(records: list[dict], selector: str, erroneous: bool) -> int:
    """Rank (1 = chosen first) the selector gives a set of the highest ARI (the best-ranked one if tied)."""
    ari = np.array([float(r["ari"]) for r in records])
    order = selection_order(records, selector, erroneous)
    return int(np.flatnonzero(ari[order] == ari.max())[0]) + 1


def groups_of(records: list[dict], top: int, erroneous: bool) -> dict[str, np.ndarray]:
    from ccopt.experiments import constraint_set_selection

    return constraint_set_selection(records, top=top, erroneous=erroneous)


def spearman(records: list[dict], column: str) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr([float(r[column]) for r in records], [float(r["ari"]) for r in records]).statistic)


def cl_share(records: list[dict], positions) -> float:
    """Per cent of cannot-links among the constraints of the sets at ``positions``."""
    n_cl = sum(int(records[i]["n_cl"]) for i in positions)
    n_all = sum(int(records[i]["n_cl"]) + int(records[i]["n_ml"]) for i in positions)
    return 100.0 * n_cl / n_all


def report(rows: list[dict], datasets, top: int, command: str) -> tuple[str, dict]:
    """The report's text and its figure's groups ({kind: {data set: {group: ARIs}}})."""
    figure = {}
    sections = []
    for erroneous in (False, True):
        kind = "erroneous" if erroneous else "correct"
        stats, checks, table4, figure[kind] = [], [], [], {}
        for data in datasets:
            records = collection(rows, data, erroneous)
            if not records:
                continue
            groups = groups_of(records, top, erroneous)
            figure[kind][data] = groups
            for name, values in groups.items():
                stats.append([data, name, len(values), float(np.median(values)), float(np.min(values)),
                              float(np.max(values)), float(np.mean(values))])
            ranks = [rank_of_best(records, s, erroneous) for s in SELECTORS]
            medians = {name: float(np.median(v)) for name, v in groups.items() if name != "all"}
            best = float(max(float(r["ari"]) for r in records))
            paper = PAPER_BEST_RANK[data] if not erroneous else "in its top 50, every data set"
            checks.append([data, len(records), *ranks, paper, "yes" if ranks[0] <= top else "no",
                           " = ".join(n for n, m in medians.items() if m == max(medians.values())),
                           "yes" if np.min(groups["impact score"]) > np.min(groups["coherence"]) else "no",
                           spearman(records, "set_score"), spearman(records, "coherence"), best])
            shares = [cl_share(records, range(len(records)))]
            shares += [cl_share(records, selection_order(records, s, erroneous)[:top]) for s in SELECTORS[:2]]
            paper_cl = [p[0] for p in PAPER_TABLE4[data]]
            table4.append([data, *[f"{s:.1f} % ({p:.1f} %)" for s, p in zip(shares, paper_cl, strict=True)]])
        figure_name = "Fig. 10" if erroneous else "Fig. 9"
        sections += [
            f"### {figure_name}: sets of {kind} constraints", "",
            "ARI of the constrained clusterings: all sets, and the sets each measure selects "
            f"(top {top}).", "",
            markdown_table(["data set", "group", "sets", "median ARI", "min", "max", "mean"], stats), "",
            "Rank each measure gives the set of best ARI (1 = chosen first), and the paper's claims checked "
            "for the impact score: its top sets include the best set, which group has the highest median, "
            "and whether the score's worst chosen set beats coherence's worst; Spearman correlation of the "
            "set score and of coherence with ARI over all sets.", "",
            markdown_table(["data set", "sets", "rank by impact score", "rank by coherence",
                            "rank by informativeness", "paper (impact score)", f"best set in the score's top {top}",
                            "highest median", "score's worst > coherence's worst", "Spearman(score, ARI)",
                            "Spearman(coherence, ARI)", "best ARI"], checks), "",
            f"Table 4 (cannot-link share; the paper's figure in brackets, its table does not say which "
            f"collection): sets of {kind} constraints.", "",
            markdown_table(["data set", "whole collection", f"top {top} by impact score",
                            f"top {top} by coherence"], table4), "",
        ]
    text = "\n".join([
        "## Choosing constraint sets by impact score (Figs. 9-10, Table 4 of Randel et al. 2021)", "",
        f"Machine: {machine()}.", "",
        "Per data set, sets of 25 constraints drawn as uniformly random pairs, every constraint correct "
        "(Fig. 9) or every one erroneous (Fig. 10); each set scored with k-medoids (`voronoi` route, "
        "ccopt's default), its set score the sum of its impact scores. ARI: the best feasible clustering of "
        "the run against the classes (the paper solves (2)-(5) with the set; ours is that problem's best "
        "solution found). Selections as in the paper's text, plus informativeness (not in the paper; the "
        "share of the set that unconstrained k-medoids violates, the naive baseline's reading).", "",
        f"Command: `{command}`", "",
        figure_note(FIGURE, "box plots of ARI per selection, Figs. 9 and 10"), "",
        *sections])
    return text, figure


def selection_figure(figure: dict):
    """Two panels: Fig. 9 (correct sets) and Fig. 10 (erroneous sets)."""
    from matplotlib.figure import Figure

    from ccopt.plotting import plot_selection_boxplots

    fig = Figure(figsize=(13, 4.5), layout="constrained")
    titles = {"correct": "Fig. 9: correct constraints", "erroneous": "Fig. 10: erroneous constraints"}
    panels = [kind for kind in titles if figure.get(kind)]
    for ax, kind in zip(np.atleast_1d(fig.subplots(1, len(panels))), panels, strict=True):
        plot_selection_boxplots(figure[kind], ax=ax, title=titles[kind])
    return fig


def main(argv=None) -> int:
    from ccopt.experiments import constraint_set_task, read_results, run_experiment

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--n-sets", type=int, default=100, help="sets per data set and kind (the paper: 100)")
    parser.add_argument("--top", type=int, default=50, help="sets each measure selects (the paper: 50)")
    parser.add_argument("--n-constraints", type=int, default=25, help="constraints per set (the paper: 25)")
    parser.add_argument("--time-limit", type=float, default=12.0, help="seconds per set (1/10 of the paper's 120)")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "impact_set_selection.csv")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report and figure from --out")
    args = parser.parse_args(argv)
    datasets = [d for d in args.datasets.split(",") if d]
    unknown = [d for d in datasets if d not in DATASETS]
    if unknown:
        parser.error(f"--datasets {', '.join(unknown)}: use {', '.join(DATASETS)}")
    if not 0 < args.top <= args.n_sets:
        parser.error(f"--top must lie in 1..--n-sets ({args.n_sets}), got {args.top}")
    tasks = [{"data": f"benchmark:{d}", "erroneous": e, "set": s, "instance_seed": s,
              "n_constraints": args.n_constraints, "criterion": "kmedoids", "method": "voronoi",
              "time_limit": args.time_limit}
             for d in datasets for e in (False, True) for s in range(args.n_sets)]
    if not args.report_only:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        log_task_progress()
        run_experiment(tasks, constraint_set_task, args.out, n_jobs=args.n_jobs, on_error="raise", random_state=0,
                       name="impact_set_selection")
    rows = [r for r in read_results(args.out) if not r.get("error") and int(r["set"]) < args.n_sets]
    for row in rows:
        row["data"] = str(row["data"]).split(":", 1)[1]
    text, figure = report(rows, datasets, args.top, command_line("bench_impact_set_selection.py", argv))
    save_report(REPORT, text)
    selection_figure(figure).savefig(FIGURE, dpi=110)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
