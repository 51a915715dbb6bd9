"""Zhang, Wong, Xie (PCS): NMI of Kmeans, KmeansS, PCKmeans and PCS, Figs. 4-6.

Reproduces Sec. III of *Semi-supervised Clustering with Pairwise and Size Constraints*
(../shared/papers/pcs-size-constraints-zhang.txt) with ccopt's estimators:

=======  =====================================================================
KM       :class:`ccopt.cluster.KMeans` (Lloyd, one run from the shared centroids)
KMS1/2   :class:`ccopt.cluster.KMeansS` without / with the filter-refinement scheme
PC       :class:`ccopt.cluster.PCKMeans`
PCS1/2   :class:`ccopt.cluster.PCS` without / with the filter-refinement scheme
=======  =====================================================================

Protocol of Sec. III-C: every algorithm of a trial starts from the same initial centroids
(``k`` distinct objects drawn at random); pairwise penalty ``sqrt(D)`` (per-constraint weights
1); ``alpha = beta = gamma = 1``; ``t = 0.8``; ``T = 400`` iterations; 40 trials; sizes are the
ground-truth class sizes; constraints are random object pairs labelled from the classes
(must-link if same class), as in Basu et al. The paper does not state its "moderate" number of
constraints nor the x-axis of Fig. 6; we use 100 and 0, 25, 50, 100, 200, 400.

Data: Iris, Wine, Balance Scale (../shared/datasets), Digits 0/7/8 and Half-rings. The paper's
Digits come from UCI *Pen-Based* Recognition of Handwritten Digits, which is not available
offline here; we use the 0/7/8 images of scikit-learn's *optical* digits (8 x 8, 64 features,
531 objects) instead. Petals is not available. Standardised and raw features: the paper
mentions no scaling, but on raw Wine the penalty ``sqrt(D)`` is far below the squared distances
(proline runs into the hundreds), so the constraints never change PCKmeans' labelling there and
the paper's Wine findings cannot show (the report counts such trials); standardised, the
constraints act on every data set, and the report checks which findings hold. Fig. 7 (constraints
chosen by Explore-and-Consolidate) is not reproduced: ccopt has no active constraint selection.

Readings of the protocol that move the figures (measured in a scratch audit, 40 trials, 100
constraints): the paper sets the penalty weights to ``sqrt(D)`` and also says that "phi_ij and
varphi_ij are set to 1" for the UCI sets; ccopt multiplies the two (``sqrt(D) x 1``). With weight 1
instead, PCS2's NMI moves from 0.783 to 0.836 on raw Iris, 0.720 to 0.736 on standardised Iris,
0.910 to 0.882 on standardised Wine and 0.164 to 0.146 on raw Balance.

Each trial's draws are seeded by the base seed, the data set's name and the trial number, so a
run of some data sets (``--datasets wine``) draws what the full run draws for them.

NMI as the paper's reference [26] (Strehl and Ghosh 2002) defines it: the mutual information
divided by the geometric mean of the two entropies (``average_method="geometric"``).

The paper reports its results as error-bar plots only (no values in the text), so there is no
number to print beside ours; the report checks the paper's stated qualitative findings instead.

Writes ``<out-dir>/pcs.csv`` (one row per fit) and ``benchmarks/reports/pcs.md``.
Run: ``python benchmarks/bench_pcs.py`` (raw and standardised features, about 10 minutes), ``--quick`` to smoke-test.
"""

from __future__ import annotations

import argparse
import csv
import logging
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._reports import (
    default_paths,
    draw_band,
    figure_note,
    machine,
    read_rows,
    require_results,
    save_report,
)
from ccopt.cluster import PCS, KMeans, KMeansS, PCKMeans
from ccopt.constraints import Constraints
from ccopt.datasets import load_benchmark, load_digits
from ccopt.exceptions import ConvergenceWarning
from ccopt.metrics import alignment_score, normalized_mutual_info_score

HERE = Path(__file__).resolve().parent
DATASETS = ("iris", "wine", "balance", "digits078", "half_rings")
MODERATE = 100
SWEEP = (0, 25, 50, 100, 200, 400)
T_MAX = 400


def load(name: str, scaling: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and classes 0..k-1; ``scaling="standard"`` gives every feature mean 0, sd 1."""
    if name == "digits078":
        data = load_digits()
        keep = np.isin(data.labels, (0, 7, 8))
        _, y = np.unique(data.labels[keep], return_inverse=True)
        X = np.asarray(data.X[keep])
    else:
        data = load_benchmark(name)
        X, y = np.asarray(data.X), np.asarray(data.labels)
    if scaling == "standard":
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X, y


def random_pairs(y: np.ndarray, m: int, rng: np.random.Generator) -> Constraints:
    """``m`` distinct random object pairs, must-link when the classes agree, else cannot-link."""
    n = y.shape[0]
    if m == 0:
        return Constraints.empty(n)
    codes = np.empty(0, dtype=np.int64)
    while codes.size < m:
        i, j = rng.integers(0, n, size=(2, 2 * m))
        keep = i != j
        new = np.minimum(i, j)[keep] * n + np.maximum(i, j)[keep]
        codes = np.concatenate([codes, new[~np.isin(new, codes)]])
        codes = codes[np.sort(np.unique(codes, return_index=True)[1])]
    codes = codes[:m]
    return Constraints.from_labels(y, np.column_stack([codes // n, codes % n]), n_samples=n)


def fit_all(X, y, k, sizes, cons, init, seed, which):
    """Fit the named algorithms from the same centroids; one record per algorithm."""
    weight = float(np.sqrt(X.shape[1]))
    common = {"init": init, "max_iter": T_MAX, "random_state": seed, "progress": False}
    makers = {
        "KM": lambda: KMeans(k, tol=0.0, **common),
        "KMS1": lambda: KMeansS(k, sizes=sizes, filter_refinement=False, **common),
        "KMS2": lambda: KMeansS(k, sizes=sizes, **common),
        "PC": lambda: PCKMeans(k, weight=weight, tol=0.0, **common),
        "PCS1": lambda: PCS(k, sizes=sizes, weight=weight, filter_refinement=False, **common),
        "PCS2": lambda: PCS(k, sizes=sizes, weight=weight, **common),
    }
    out = []
    for name in which:
        est = makers[name]()
        start = time.perf_counter()
        if name.startswith("KM"):
            est.fit(X)  # no pairwise constraints
        else:
            est.fit(X, constraints=cons)
        elapsed = time.perf_counter() - start
        out.append({
            "algorithm": name,
            # The paper's NMI [26] is Strehl and Ghosh's: I(X; Y) / sqrt(H(X) H(Y)).
            "nmi": normalized_mutual_info_score(y, est.labels_, average_method="geometric"),
            "as": alignment_score(y, est.labels_, sizes, normalize=True),
            "violations": est.n_violations_["total"],
            "n_iter": est.n_iter_, "status": str(est.status_), "seconds": elapsed,
        })
    return out


def run(datasets, scalings, trials: int, sweep, seed: int, out_dir: Path) -> list[dict]:
    rows = []
    for scaling, name in ((s, d) for s in scalings for d in datasets):
        X, y = load(name, scaling)
        name_seed = zlib.crc32(name.encode())  # not its position in --datasets: a subset draws the same
        k = int(y.max()) + 1
        sizes = np.bincount(y)
        started = time.perf_counter()
        for trial in range(trials):
            rng = np.random.default_rng([seed, name_seed, trial])
            init = X[rng.choice(X.shape[0], size=k, replace=False)].copy()
            fit_seed = int(rng.integers(2**31 - 1))
            base = {"scaling": scaling, "dataset": name, "trial": trial}
            # Constraint-free algorithms once per trial (they do not depend on m).
            for rec in fit_all(X, y, k, sizes, None, init, fit_seed, ("KM", "KMS1", "KMS2")):
                rows.append({**base, "n_constraints": "", **rec})
            for m in sweep:
                cons = random_pairs(y, m, rng)
                which = ("PC", "PCS1", "PCS2") if m == MODERATE else ("PC", "PCS2")
                for rec in fit_all(X, y, k, sizes, cons, init, fit_seed, which):
                    rows.append({**base, "n_constraints": m, **rec})
        print(f"  {scaling:8s} {name:10s} done in {time.perf_counter() - started:6.1f} s", flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "pcs.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


# Numeric columns of pcs.csv (n_constraints is empty for the constraint-free algorithms).
_INT_COLUMNS = ("trial", "n_constraints", "violations", "n_iter")
_FLOAT_COLUMNS = ("nmi", "as", "seconds")
_SCALING_NAMES = {"none": "raw features (no scaling, which the paper does not mention; where the features "
                          "have large ranges the constraints barely act: see the count under the first table)",
                  "standard": "standardised features (mean 0, sd 1 per feature)"}


def _values(rows, dataset, algorithm, m=None, key="nmi"):
    return np.array([r[key] for r in rows if r["dataset"] == dataset and r["algorithm"] == algorithm
                     and (m is None or r["n_constraints"] == m)])


def _unmoved(rows, dataset) -> str:
    """In how many trials PC's NMI at the moderate number of constraints equals KM's."""
    pc = {r["trial"]: r["nmi"] for r in rows if r["dataset"] == dataset and r["algorithm"] == "PC"
          and r["n_constraints"] == MODERATE}
    km = {r["trial"]: r["nmi"] for r in rows if r["dataset"] == dataset and r["algorithm"] == "KM"}
    same = sum(abs(pc[t] - km[t]) <= 1e-12 for t in pc if t in km)
    return f"{same} of {len(pc)}"


def _cell(values) -> str:
    return f"{values.mean():.3f} ± {values.std():.3f}" if values.size else "—"


def _section(rows, datasets, sweep, scaling) -> list[str]:
    algos = ("KM", "KMS1", "KMS2", "PC", "PCS1", "PCS2")
    rows = [r for r in rows if r["scaling"] == scaling]
    what = _SCALING_NAMES[scaling]
    lines = [f"## {what.capitalize()}", "",
             f"### NMI with a moderate number of constraints ({MODERATE}) — Fig. 4", "",
             "| data set | " + " | ".join(algos) + " |", "|---" * (len(algos) + 1) + "|"]
    for name in datasets:
        cells = [_cell(_values(rows, name, a, None if a.startswith("KM") else MODERATE)) for a in algos]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Trials in which the pairwise constraints left PCKmeans at k-means' NMI (PC = KM, to "
              "1e-12), per data set: " + ", ".join(f"{name} {_unmoved(rows, name)}" for name in datasets)
              + "."]
    lines += ["", f"### Alignment Score (eq. 24, divided by n) with {MODERATE} constraints — Fig. 5", "",
              "| data set | " + " | ".join(algos) + " |", "|---" * (len(algos) + 1) + "|"]
    for name in datasets:
        cells = [_cell(_values(rows, name, a, None if a.startswith("KM") else MODERATE, "as")) for a in algos]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "### NMI against the number of constraints — Fig. 6", "",
              "Mean NMI, PC / PCS2 per number of random constraints; KM and KMS2 use no pairwise "
              "constraints (one value per data set).", "",
              "| data set | KM | KMS2 | " + " | ".join(f"{m}" for m in sweep) + " |",
              "|---" * (len(sweep) + 3) + "|"]
    for name in datasets:
        km, kms = _values(rows, name, "KM").mean(), _values(rows, name, "KMS2").mean()
        cells = [f"{_values(rows, name, 'PC', m).mean():.3f} / {_values(rows, name, 'PCS2', m).mean():.3f}"
                 for m in sweep]
        lines.append(f"| {name} | {km:.3f} | {kms:.3f} | " + " | ".join(cells) + " |")

    def better(a, b, name, m_a=None, m_b=None):
        return _values(rows, name, a, m_a).mean() > _values(rows, name, b, m_b).mean()

    claims = [
        ("PCS2 > KM (\"consistently better than Kmeans\")", lambda n: better("PCS2", "KM", n, MODERATE)),
        ("PCS2 > PC (\"consistently better than PC for all the cases\")",
         lambda n: better("PCS2", "PC", n, MODERATE, MODERATE)),
        ("PCS2 > PCS1 (\"consistently\")", lambda n: better("PCS2", "PCS1", n, MODERATE, MODERATE)),
        ("KMS2 > KMS1 (paper: all but Half-rings)", lambda n: better("KMS2", "KMS1", n)),
        ("PC > KM (paper: all but Petals)", lambda n: better("PC", "KM", n, MODERATE)),
    ]
    lines += ["", f"### The paper's findings (Sec. III-D), checked on mean NMI at {MODERATE} constraints",
              "", "| finding | " + " | ".join(datasets) + " |", "|---" * (len(datasets) + 1) + "|"]
    for text, test in claims:
        lines.append(f"| {text} | " + " | ".join("yes" if test(n) else "no" for n in datasets) + " |")
    lines += ["", f"### Mean time per fit (ms) and mean iterations of PCS2 at {MODERATE} constraints", "",
              "| data set | " + " | ".join(algos) + " | PCS2 passes |", "|---" * (len(algos) + 2) + "|"]
    for name in datasets:
        sel = {a: [r for r in rows if r["dataset"] == name and r["algorithm"] == a
                   and (a.startswith("KM") or r["n_constraints"] == MODERATE)] for a in algos}
        ms = " | ".join(f"{np.mean([r['seconds'] for r in sel[a]]) * 1e3:.0f}" for a in algos)
        passes = np.mean([r["n_iter"] for r in sel["PCS2"]])
        lines.append(f"| {name} | {ms} | {passes:.1f} |")
    return [*lines, ""]


def nmi_figure(rows, datasets, scalings, sweep):
    """Fig. 6 of the paper from our rows: NMI against the number of constraints.

    One row of panels per scaling, one panel per data set: PC and PCS2 (mean, band of one
    standard deviation over trials) and the constraint-free KM and KMS2 as horizontal lines.
    Returns a :class:`matplotlib.figure.Figure`.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3.0 * len(datasets), 2.9 * len(scalings) + 0.4), layout="constrained")
    axes = fig.subplots(len(scalings), len(datasets), squeeze=False, sharex=True)
    for panels, scaling in zip(axes, scalings, strict=True):
        scaled = [r for r in rows if r["scaling"] == scaling]
        for ax, name in zip(panels, datasets, strict=True):
            for algo, colour in (("PC", "C1"), ("PCS2", "C0")):
                draw_band(ax, sweep, [_values(scaled, name, algo, m) for m in sweep], colour=colour, label=algo)
            for algo, colour in (("KM", "0.4"), ("KMS2", "C2")):
                ax.axhline(_values(scaled, name, algo).mean(), color=colour, ls="--", lw=1, label=algo)
            ax.set_title(f"{name}, {'raw' if scaling == 'none' else 'standardised'}", fontsize=9)
        panels[0].set_ylabel("NMI")
    for ax in axes[-1]:
        ax.set_xlabel("pairwise constraints")
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="outside lower center", ncols=4, fontsize=8)
    return fig


def summarise(rows, datasets, scalings, sweep, args) -> str:
    lines = [
        "# PCS (Zhang, Wong, Xie) — KmeansS and PCS against Kmeans and PCKmeans", "",
        f"{args.trials} trials per data set (the paper: 40), base seed {args.seed}; the algorithms of a "
        "trial share their initial centroids (k random objects). Penalty sqrt(D), alpha = beta = gamma "
        "= 1, t = 0.8, T = 400, sizes = class sizes, random pairs labelled from the classes "
        f"(moderate number: {MODERATE}; the paper does not state its own). NMI as the paper's reference "
        "[26], Strehl and Ghosh: mutual information over the geometric mean of the entropies.",
        f"Machine: {machine()}; timings on a loaded, shared 2-core machine (compare within a row only).", "",
        "Command: `python benchmarks/bench_pcs.py" + ("" if args.trials == 40 else f" --trials {args.trials}")
        + "`", "",
        "**Paper figures:** the paper gives Figs. 4-7 as error-bar plots only; no value is stated in the "
        "text, so no paper number can be printed beside ours. Its qualitative findings are checked "
        "below. Digits here are scikit-learn's optical digits 0/7/8, not the paper's pen-based digits; "
        "Petals is not available; Fig. 7 (Explore-and-Consolidate constraints) is not reproduced. "
        "The penalty sqrt(D) is in the units of the squared distances, so on "
        "raw features with large ranges (Wine: proline in the hundreds) the pairwise constraints "
        "barely count; the standardised run, first below, shows the algorithms where they do. The "
        "paper also says the constraint weights are 1 on the UCI sets; the weight here is sqrt(D) x 1 "
        "(the benchmark's docstring gives what weight 1 measured).", "",
        figure_note(args.report.with_suffix(".png"), "NMI against the number of constraints, as Fig. 6"), ""]
    for scaling in scalings:
        lines += _section(rows, datasets, sweep, scaling)
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--scalings", nargs="+", default=["standard", "none"], choices=["none", "standard"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="3 trials, sweep 0/100 (smoke test)")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="default benchmarks/results (benchmarks/results/quick with --quick)")
    parser.add_argument("--report", type=Path, default=None,
                        help="default benchmarks/reports/pcs.md (in --out-dir with --quick)")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report and figure from pcs.csv")
    args = parser.parse_args(argv)
    sweep = SWEEP
    args.out_dir, args.report = default_paths(args.quick, args.out_dir, args.report, "pcs.md")
    if args.quick:
        args.trials, sweep = 3, (0, MODERATE)
    logging.basicConfig(level=logging.WARNING)
    warnings.simplefilter("ignore", ConvergenceWarning)  # PCS often uses all T passes
    if args.report_only:
        rows = read_rows(args.out_dir / "pcs.csv", ints=_INT_COLUMNS, floats=_FLOAT_COLUMNS)
        require_results(rows, args.out_dir / "pcs.csv")
    else:
        rows = run(args.datasets, args.scalings, args.trials, sweep, args.seed, args.out_dir)
    report = summarise(rows, args.datasets, args.scalings, sweep, args)
    print()
    print(report)
    save_report(args.report, report)
    nmi_figure(rows, args.datasets, args.scalings, sweep).savefig(args.report.with_suffix(".png"), dpi=110)


if __name__ == "__main__":
    main()
