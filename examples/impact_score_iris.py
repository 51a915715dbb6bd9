"""Which of my constraints are wrong? Impact scores on Iris.

The flagship example of ccopt. It draws ``p = ceil(0.15 n)`` must-link and cannot-link
constraints on the Iris data of which ``ceil(p / 3)`` are deliberately wrong (their
ground-truth relation flipped), scores every constraint with the Lagrangian impact score of
Randel et al. (2021), and prints the constraints ranked from most to least suspicious with
the truth beside them. It saves two figures: the convergence of the subgradient method
(lower bound, upper bound and F1 by iteration, like the paper's Fig. 8) and a 2-D PCA
scatter with the constraints drawn as edges coloured by their score.

Run::

    python examples/impact_score_iris.py
    python examples/impact_score_iris.py --seed 3 --fraction 0.20 --criterion mssc
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import ccopt
from ccopt.cli import int_at_least, number_at_least
from ccopt.datasets import load_iris
from ccopt.exceptions import InvalidParameterError
from ccopt.generators import noisy_constraints


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the constraints and the run (default 0)")
    parser.add_argument("--fraction", type=number_at_least(0), default=0.15,
                        help="constraints per object: p = ceil(fraction * n) (default 0.15)")
    parser.add_argument("--criterion", choices=sorted(ccopt.lagrange.METHODS), default="kmedoids",
                        help="clustering criterion (default kmedoids; mssc is the paper's Table 3 criterion)")
    parser.add_argument("--method", default=None, help="lower-bounding method (default: the criterion's)")
    parser.add_argument("--max-iter", type=int_at_least(1), default=1000, help="subgradient iterations (default 1000)")
    parser.add_argument("--time-limit", type=number_at_least(0, strict=True), default=50.0, help="seconds (default 50)")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for the figures (default .)")
    parser.add_argument("--no-plots", action="store_true", help="do not write figures")
    return parser


def check_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The checks one flag's type cannot make alone; a usage error before any work."""
    methods = ccopt.lagrange.METHODS[args.criterion]
    if args.method is not None and args.method not in methods:
        parser.error(f"argument --method: {args.method!r} is not a method of --criterion {args.criterion} "
                     f"(choose from {', '.join(methods)})")
    if not args.no_plots and args.out.exists() and not args.out.is_dir():
        parser.error(f"argument --out: {str(args.out)!r} is a file, not a folder")


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    check_flags(parser, args)
    iris = load_iris()
    X, y = iris.X, iris.labels
    n = X.shape[0]
    p = math.ceil(args.fraction * n)
    q = math.ceil(p / 3)
    try:
        drawn = noisy_constraints(y, p, q, random_state=args.seed)
    except InvalidParameterError:
        # Too many constraints for Iris: the draw is cheap, so this is still before any work.
        parser.error(f"argument --fraction: cannot draw {p} constraints, {q} of them wrong, on Iris without "
                     "repeating a pair or putting a cannot-link inside a must-link chain; use a smaller --fraction")
    print(f"Iris: n={n}, k=3, {p} constraints ({drawn.constraints.n_ml} ML, {drawn.constraints.n_cl} CL), "
          f"{q} of them deliberately wrong\n")

    result = ccopt.impact_scores(
        X, 3, constraints=drawn.constraints, criterion=args.criterion, method=args.method,
        max_iter=args.max_iter, time_limit=args.time_limit, random_state=args.seed,
        erroneous=drawn.erroneous, progress=True,
    )
    print(result.table())
    print()
    print(result.summary())

    if not args.no_plots:
        from ccopt import plotting

        args.out.mkdir(parents=True, exist_ok=True)
        convergence = args.out / "iris_convergence.png"
        plotting.plot_convergence(result).savefig(convergence, dpi=120, bbox_inches="tight")
        scatter = args.out / "iris_constraints.png"
        plotting.plot_constraint_scores(X, result, labels=result.labels).savefig(scatter, dpi=120,
                                                                                 bbox_inches="tight")
        print(f"\nfigures: {convergence}, {scatter}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
