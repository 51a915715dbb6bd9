"""Impact score on synthetic data: Sec. 4.1 of Randel et al. (2021), and harder variants.

Three designs, every instance scored by ccopt's default route (``kmedoids``: k-medoids,
Voronoi oracle, the paper's Sec. 4.1 criterion), the paper's MSSC route (``mssc``) and the
naive baseline (unconstrained k-means; a constraint is erroneous iff it is violated):

* ``published`` — the 495 published instances with constraints (../shared/datasets/
  lagrangian_synthetic). The paper reports pooled precision 0.97, recall 0.99, F1 0.98;
  ../shared/TARGETS.md notes that the naive baseline already reaches 0.968 / 0.995 / 0.981.
* ``overlap`` — the same factorial design regenerated (``ccopt.generators.synthetic_design``)
  with point standard deviation 1.0 instead of the published 0.22, so clusters overlap and
  the naive baseline falls below 0.9: the design that tells a good score from a naive one.
* ``overlap15`` — standard deviation 1.5.

Metrics are pooled over instances as in the paper (counts summed, then precision / recall /
F1). Run ``python benchmarks/bench_impact_synthetic.py [--designs published --stride 5]``;
results go to benchmarks/results/impact_synthetic.csv (resumable) and
benchmarks/reports/impact_synthetic.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._impact_common import (
    METHODS,
    PAPER_SYNTHETIC,
    machine,
    markdown_table,
    pooled,
    score_task,
)
from benchmarks._reports import (
    command_line,
    current_rows,
    log_task_progress,
    save_report,
    stopped_early,
)

HERE = Path(__file__).resolve().parent
DESIGNS = {"published": None, "overlap": 1.0, "overlap15": 1.5}


def _instance(config: dict):
    from ccopt.datasets import load_lagrangian_synthetic
    from ccopt.generators import synthetic_instance

    if config["design"] == "published":
        data = load_lagrangian_synthetic(config["instance"])
        cons = next(iter(data.constraint_sets.values()))
        return data.X, data.n_clusters, cons, cons.to_given(~cons.is_correct(data.labels))
    rng = np.random.default_rng(config["instance"])
    n = int(rng.choice([100, 200, 300, 400, 500]))
    k = int(rng.choice([2, 5, 10, 15]))
    f_constraints = float(rng.choice([0.05, 0.10, 0.15, 0.20]))
    f_errors = float(rng.choice([0.05, 0.10, 0.15, 0.20]))
    inst = synthetic_instance(n, k, f_constraints, f_errors, cluster_std=DESIGNS[config["design"]],
                              random_state=config["instance"])
    return inst.X, k, inst.constraints, np.asarray(inst.erroneous)


def synthetic_task(config: dict) -> dict:
    """One (design, instance, method) run; the erroneous mask is aligned with the given rows."""
    X, k, cons, erroneous = _instance(config)
    out = score_task(X, k, cons, erroneous, config["method"], config["seed"], max_iter=config["max_iter"])
    out["n_constraints"] = int(cons.n_given)
    return out


def main(argv=None) -> int:
    from ccopt.datasets import datasets_root
    from ccopt.experiments import run_experiment

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--designs", default="published,overlap")
    parser.add_argument("--methods", default="kmedoids,mssc,naive")
    parser.add_argument("--stride", type=int, default=1, help="use every stride-th published instance")
    parser.add_argument("--n-generated", type=int, default=100, help="instances per generated design")
    parser.add_argument("--max-iter", type=int, default=1000, help="the paper's m")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "impact_synthetic.csv")
    parser.add_argument("--report", type=Path, default=HERE / "reports" / "impact_synthetic.md")
    args = parser.parse_args(argv)
    designs = [d for d in args.designs.split(",") if d]
    methods = [m for m in args.methods.split(",") if m]
    # Checked here: a misspelt name would only fail inside every task, and the report be empty.
    unknown = [d for d in designs if d not in DESIGNS]
    if unknown:
        parser.error(f"--designs {', '.join(unknown)}: use {', '.join(DESIGNS)}")
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"--methods {', '.join(unknown)}: use {', '.join(METHODS)}")
    tasks = []
    for design in designs:
        if design == "published":
            folder = datasets_root() / "lagrangian_synthetic"
            ids = [i for i in range(500) if (folder / f"{i:03d}" / "constraints.csv").exists()][::args.stride]
        else:
            ids = list(range(args.n_generated))
        tasks += [{"design": design, "instance": i, "method": m, "max_iter": args.max_iter}
                  for i in ids for m in methods]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    log_task_progress()
    done = run_experiment(tasks, synthetic_task, args.out, n_jobs=args.n_jobs, on_error="record", random_state=0,
                          name="impact_synthetic")
    if stopped_early(done):
        return 130
    rows = current_rows(tasks, args.out)
    table = []
    for design in designs:
        for m in methods:
            sel = [r for r in rows if r["design"] == design and r["method"] == m]
            if not sel:
                continue
            p, r_, f = pooled(sel)
            table.append([design, m, len(sel), p, r_, f, float(np.mean([r["run_seconds"] for r in sel]))])
        if design == "published":
            table.append([design, "paper (Sec. 4.1)", 495, PAPER_SYNTHETIC["precision"], PAPER_SYNTHETIC["recall"],
                          PAPER_SYNTHETIC["f1"], float("nan")])
    text = (f"## Impact score on synthetic data (Sec. 4.1 of Randel et al. 2021)\n\nMachine: {machine()}.\n"
            "Pooled over instances (counts summed). `kmedoids` is ccopt's default route, `mssc` the paper's "
            "Table 3 route, `naive` unconstrained k-means (TARGETS.md). `published`: every "
            f"{args.stride}-th of the 495 published instances; `overlap` / `overlap15`: the same factorial "
            f"design regenerated with point standard deviation 1.0 / 1.5 (published: 0.22), instances "
            f"0..{args.n_generated - 1}. The threshold tau = 0.1 was calibrated on published instances and on "
            "`overlap` instances 0..39 (the paper's Sec. 4.2 method: calibrate on synthetic data), so the "
            "`overlap` rows are in-sample for tau; `overlap15` was not used for calibration.\n\n"
            f"Command: `{command_line('bench_impact_synthetic.py', argv)}`\n\n"
            + markdown_table(["design", "method", "instances", "precision", "recall", "F1", "mean s"], table)
            + "\n")
    save_report(args.report, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
