"""Impact score on real data: Table 3 of Randel et al. (2021), beside the paper and baselines.

For each data set (Iris, Wine, Glass, Ionosphere, Control, Balance, Cardiotocography,
Optical) and each constraint-set size (p = ceil(0.15 n), ceil(0.20 n)), the constraint sets
are the published one (../shared/datasets, ML/CL files corrected as SOURCES.md explains) and
``--draws`` regenerated ones with the paper's protocol (``ccopt.generators.
nested_noisy_constraints``: q = ceil(p/3) erroneous, nested p15 within p20). Every set is
scored by

* ``mssc`` — the paper's Table 3 route (MSSC, the k-means-like lower-bounding heuristic);
* ``kmedoids`` — ccopt's default route (k-medoids, Voronoi oracle);
* ``naive`` — unconstrained k-means, a constraint predicted erroneous iff violated
  (../shared/TARGETS.md);
* ``pessimistic`` and ``optimistic`` — the paper's baselines (Sec. 4.2), one COP-kmeans
  re-solve per constraint with ``T_s / p`` seconds each, on the published set of each row
  only (they cost ``p + 1`` clusterings per set);

each under one tenth of the paper's time budget (12 s / 24 s / 180 s). The table prints, per
row, the mean F1 over the draws and the F1 on the published set (the one set the paper
reports) beside the paper's F1, the naive F1 of TARGETS.md and the target max(paper, naive).

``glass_id`` is a diagnostic, reported in its own table: Glass with the Id column of
``glass.data`` kept as a tenth feature, the feature count the paper's Table 2 gives for
Glass. glass.data is sorted by glass type, so the Id leaks the class; the data set proper
(``glass``) drops it.

Run ``python benchmarks/bench_impact_table3.py`` (all rows; hours on 2 cores) or e.g.
``--datasets iris,wine --draws 3``. Results go to benchmarks/results/impact_table3.csv
(resumable: finished tasks are not redone) and benchmarks/reports/impact_table3.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._impact_common import (
    NAIVE_TABLE3,
    PAPER_TABLE3,
    machine,
    markdown_table,
    score_task,
    with_row_id,
)
from benchmarks._reports import (
    command_line,
    current_rows,
    log_task_progress,
    save_report,
    stopped_early,
)

DATASETS = ("iris", "wine", "glass", "ionosphere", "control", "balance", "cardiotocography", "optical")
# Diagnostic variants: name -> (data set, what changes, how X changes). Scored like the rows,
# reported apart.
VARIANTS = {"glass_id": ("glass", "the row Id of glass.data (1..214) kept as a tenth feature", with_row_id)}
HERE = Path(__file__).resolve().parent


def _constraint_set(dataset, set_name: str, draw: int):
    """The published set (draw -1) or a regenerated one, with its erroneous mask."""
    from ccopt.generators import nested_noisy_constraints

    if draw < 0:
        key = next(k for k in dataset.constraint_sets if set_name in k)
        cons = dataset.constraint_sets[key]
        return cons, cons.to_given(~cons.is_correct(dataset.labels))
    sets = nested_noisy_constraints(dataset.labels, (0.15, 0.20), random_state=1000 + draw)
    noisy = sets[set_name]
    return noisy.constraints, np.asarray(noisy.erroneous)


def _base_name(name: str) -> str:
    """The data set a row or diagnostic variant is built from."""
    return VARIANTS[name][0] if name in VARIANTS else name


def table3_task(config: dict) -> dict:
    """One (data set, p, draw, method) run."""
    from ccopt.datasets import load_benchmark

    base = _base_name(config["data"])
    dataset = load_benchmark(base)
    X = VARIANTS[config["data"]][2](dataset.X) if config["data"] in VARIANTS else dataset.X
    cons, erroneous = _constraint_set(dataset, config["set"], config["draw"])
    budget = PAPER_TABLE3[(base, config["set"])][0] * config["budget_fraction"]
    return score_task(X, dataset.n_clusters, cons, erroneous, config["method"], config["seed"],
                      time_limit=budget, max_iter=config["max_iter"])


def _mean(values) -> float:
    return float(np.mean(values)) if values else float("nan")


def report(rows: list[dict], datasets, methods) -> str:
    """Markdown report: mean F1 per row and method beside the paper, naive and target.

    The score routes and the naive baseline also get their F1 on the published set alone,
    the one set per row that the paper reports.
    """
    routes = [m for m in methods if m in ("mssc", "kmedoids")]
    on_published = [m for m in methods if m in ("mssc", "kmedoids", "naive")]
    header = ["data set", "p", "draws", "paper F1", "naive F1 (TARGETS)", "target"]
    header += [f"{m} F1" for m in methods] + [f"{m} F1, published set" for m in on_published]
    header += ["paper pess. / opt."] + [f"{m} s" for m in routes]
    # TARGETS.md: met when F1 >= max(paper, naive), both measured on the published set; the
    # mean over the draws is compared with the same target, so each verdict names its F1.
    header += ["paper gap %"] + [f"{m} gap %" for m in routes] + ["met by (mean F1)", "met by (published set)"]
    table, targets = [], []
    means = {m: [] for m in methods + [f"{m}@published" for m in on_published]}
    for name in datasets:
        base = _base_name(name)
        for set_name in ("p15", "p20"):
            sel = [r for r in rows if r["data"] == name and r["set"] == set_name and not r.get("error")]
            if not sel:
                continue
            _, paper_gap, paper, pess, opt = PAPER_TABLE3[(base, set_name)]
            naive = NAIVE_TABLE3[(base, set_name)]
            target = max(paper, naive)
            targets.append((paper, naive, target))
            by_method = {m: [r for r in sel if r["method"] == m] for m in methods}
            f1 = {m: _mean([r["f1"] for r in by_method[m]]) for m in methods}
            published = {m: _mean([r["f1"] for r in by_method[m] if int(r["draw"]) < 0]) for m in on_published}
            secs = {m: _mean([r["run_seconds"] for r in by_method[m]]) for m in routes}
            gaps = {m: [r["gap"] for r in by_method[m] if r["gap"] is not None] for m in routes}
            for m in methods:
                means[m].append(f1[m])
            for m in on_published:
                means[f"{m}@published"].append(published[m])
            met = [m for m in routes if f1[m] >= target - 1e-9]
            met_published = [m for m in routes if published[m] >= target - 1e-9]
            table.append([name, set_name, len({r["draw"] for r in sel}), paper, naive, target]
                         + [f1[m] for m in methods] + [published[m] for m in on_published]
                         + [f"{pess:.3f} / {opt:.3f}"] + [secs[m] for m in routes] + [paper_gap]
                         + [100 * _mean(gaps[m]) for m in routes] + [", ".join(met) or "-"]
                         + [", ".join(met_published) or "-"])
    if table:
        paper_mean, naive_mean, target_mean = (float(np.mean(col)) for col in zip(*targets, strict=True))
        mean_row = ["**mean**", "", "", paper_mean, naive_mean, target_mean]
        mean_row += [float(np.nanmean(means[key])) for key in methods + [f"{m}@published" for m in on_published]]
        table.append(mean_row + [""] * (len(header) - len(mean_row)))
    return markdown_table(header, table)


def main(argv=None) -> int:
    from ccopt.experiments import run_experiment

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS + tuple(VARIANTS)),
                        help="rows to run, comma separated: " + ", ".join(DATASETS + tuple(VARIANTS)))
    parser.add_argument("--methods", default="mssc,kmedoids,naive,pessimistic,optimistic")
    parser.add_argument("--draws", type=int, default=10, help="regenerated draws besides the published set")
    parser.add_argument("--budget-fraction", type=float, default=0.1, help="fraction of the paper's time budget")
    parser.add_argument("--max-iter", type=int, default=100_000)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "impact_table3.csv")
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "impact_table3.md")
    args = parser.parse_args(argv)
    datasets = [d for d in args.datasets.split(",") if d]
    unknown = [d for d in datasets if d not in DATASETS and d not in VARIANTS]
    if unknown:
        parser.error(f"--datasets: unknown {', '.join(unknown)}; choose from {', '.join(DATASETS + tuple(VARIANTS))}")
    methods = [m for m in args.methods.split(",") if m]
    baselines = {"pessimistic", "optimistic"}
    tasks = [{"data": d, "set": s, "draw": draw, "method": m, "budget_fraction": args.budget_fraction,
              "max_iter": args.max_iter}
             for d in datasets for s in ("p15", "p20") for draw in range(-1, args.draws) for m in methods
             if m not in baselines or draw < 0]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    log_task_progress()
    done = run_experiment(tasks, table3_task, args.out, n_jobs=args.n_jobs, on_error="record", random_state=0,
                          name="impact_table3")
    if stopped_early(done):
        return 130
    rows = current_rows(tasks, args.out, with_errors=True)
    proper = [d for d in datasets if d in DATASETS]
    variants = [d for d in datasets if d in VARIANTS]
    text = (f"## Impact score on real data (Table 3 of Randel et al. 2021): {', '.join(proper)}\n\n"
            f"Machine: {machine()}.\nEach row: the published set plus {args.draws} regenerated draws "
            f"(mean F1 over them; the paper reports the published set only, given in its own columns), "
            f"each method under {args.budget_fraction:g} x the paper's time budget.\n"
            f"`mssc` is the paper's route, `kmedoids` ccopt's default, `naive` the baseline of TARGETS.md "
            f"(recomputed here on every draw; the TARGETS column is its published-set value); "
            f"`pessimistic`/`optimistic` are the paper's baselines, on the published set only. "
            f"Gaps are (upper - lower) / upper at the end of the subgradient; the lower bounds of the "
            f"`mssc` and `kmedoids` (Voronoi) oracles are heuristic Lagrangian values, not certified "
            f"bounds, so the gaps are not comparable with the paper's column.\n\n"
            f"Command: `{command_line('bench_impact_table3.py', argv)}`\n\n"
            + report(rows, proper, methods) + "\n")
    for name in variants:
        base, change, _ = VARIANTS[name]
        text += (f"\n### Diagnostic `{name}`: {base} with {change}\n\n"
                 f"Not a row of the benchmark: the paper's Table 2 lists {base.capitalize()} with 10 features "
                 f"(the UCI file has 9 plus the Id), and the file is sorted by class, so this variant asks "
                 f"whether the paper's {base.capitalize()} rows were measured with the Id in the data. "
                 f"The target columns are the paper's and TARGETS.md's (9 features); the `naive` column "
                 f"is recomputed on the same 10 features.\n\n"
                 + report(rows, [name], methods) + "\n")
    save_report(args.report, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
