"""Find the wrong constraints, drop them, then cluster: the workflow ccopt is built for.

Draws must-link and cannot-link constraints on a data set (Wine by default, features
standardised) of which a share is deliberately wrong, and clusters it four ways:

* k-means without constraints;
* COP-kmeans (Wagstaff et al. 2001) with every constraint as a hard one;
* BH-kmeans (Baumann and Hochbaum 2022) with every constraint soft (penalty p, the paper's
  advice for noisy constraints);
* COP-kmeans again, on the constraints the impact score (Randel et al. 2021) does not flag.

It prints each clustering's agreement with the ground truth (ARI) and the constraints it
violates, then how many of the dropped constraints were really wrong.

Run::

    python examples/clean_then_cluster.py
    python examples/clean_then_cluster.py --dataset iris --constraints 40 --wrong 12 --seed 3
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from sklearn.preprocessing import StandardScaler

import ccopt
from ccopt.cli import int_at_least, number_at_least
from ccopt.cluster import BHKMeans, COPKMeans, KMeans
from ccopt.exceptions import ClusteringDeadEndError, InvalidParameterError
from ccopt.generators import noisy_constraints
from ccopt.metrics import adjusted_rand_score

DATASETS = {"wine": ccopt.datasets.load_wine, "iris": ccopt.datasets.load_iris}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", choices=sorted(DATASETS), default="wine", help="data set (default wine)")
    parser.add_argument("--constraints", type=int_at_least(0), default=60, help="constraints drawn (default 60)")
    parser.add_argument("--wrong", type=int_at_least(0), default=15, help="of them deliberately wrong (default 15)")
    parser.add_argument("--penalty", type=number_at_least(0), default=0.2, help="BH-kmeans penalty (default 0.2)")
    parser.add_argument("--seed", type=int_at_least(0), default=0,
                        help="seed of the constraints and the runs (default 0)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.wrong > args.constraints:
        parser.error(f"argument --wrong: {args.wrong} is more than --constraints {args.constraints}")
    data = DATASETS[args.dataset]()
    # Mean 0 and standard deviation 1 per feature: Wine's features come in very different units.
    X, y, k = StandardScaler().fit_transform(data.X), data.labels, data.n_clusters
    try:
        drawn = noisy_constraints(y, args.constraints, args.wrong, random_state=args.seed)
    except InvalidParameterError:
        # Too many for the data set: the draw is cheap, so this is still before any clustering.
        parser.error(f"argument --constraints: cannot draw {args.constraints} constraints, {args.wrong} of them "
                     f"wrong, on {args.dataset} without repeating a pair or putting a cannot-link inside a "
                     "must-link chain; ask for fewer (--constraints, --wrong)")
    cons, wrong = drawn.constraints, np.asarray(drawn.erroneous)
    print(f"{data.name}: n={X.shape[0]}, k={k}, {len(cons)} constraints, {int(wrong.sum())} of them wrong\n")

    scores = ccopt.impact_scores(X, k, constraints=cons, random_state=args.seed, progress=False)
    keep = ~np.asarray(scores.predicted_erroneous)
    runs = {
        "k-means, no constraints": (KMeans(k, random_state=args.seed), None),
        "COP-kmeans, all constraints": (COPKMeans(k, random_state=args.seed), cons),
        f"BH-kmeans, all soft (p = {args.penalty:g})": (BHKMeans(k, penalty=args.penalty, random_state=args.seed),
                                                        cons),
        "COP-kmeans, flagged ones dropped": (COPKMeans(k, random_state=args.seed), cons.subset(keep)),
    }
    print(f"{'clustering':<36} {'ARI':>6} {'violated (of all)':>18} {'seconds':>8}")
    for name, (estimator, given) in runs.items():
        start = time.perf_counter()
        try:
            labels = estimator.fit(X, constraints=given).labels_
        except ClusteringDeadEndError as exc:  # hard, contradictory constraints can leave no way on
            print(f"{name:<36} {'-':>6} {'dead end':>18}   ({exc})")
            continue
        violated = int(cons.violations(labels).violated.sum())
        print(f"{name:<36} {adjusted_rand_score(y, labels):6.3f} {violated:18d} {time.perf_counter() - start:8.2f}")

    dropped = ~keep
    print(f"\nthe impact score flagged {int(dropped.sum())} constraints, {int((dropped & wrong).sum())} of them "
          f"wrong; it kept {int((keep & wrong).sum())} of the {int(wrong.sum())} wrong ones")
    return 0


if __name__ == "__main__":
    sys.exit(main())
