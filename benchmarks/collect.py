"""Assemble BENCHMARKS.md from the summary and the reports the benchmarks wrote.

Usage: ``python benchmarks/collect.py`` (after any ``bench_*.py`` run). The summary of
targets, ``benchmarks/summary.md``, is written by hand from the reports: a target is only
called met where a report's own table shows it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._reports import machine

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REPORTS = HERE / "reports"

# Reading order: the impact score first (the product's main job), then the clustering
# algorithms, then models and scale.
ORDER = ("impact_table3", "impact_table3_large", "impact_gap_floor", "impact_data_variants", "impact_synthetic", "impact_k_sweep",
         "impact_set_selection",
         "bh_kmeans", "bh_clique_rows", "bh_solve_limit", "bh_set_draws", "bh_noise", "lcc", "jia", "jia_below_k", "pcs", "models", "scale", "scale_kmeans_family",
         "scale_limits")


def _demoted(markdown: str) -> str:
    """Headings shifted so the report's top level is ``##``: each report sits under ``# Reports``."""
    levels = [len(m.group(1)) for m in re.finditer(r"^(#{1,6}) ", markdown, flags=re.MULTILINE)]
    shift = 2 - min(levels, default=2)
    return re.sub(r"^(#{1,6}) ", lambda m: "#" * min(6, len(m.group(1)) + shift) + " ", markdown,
                  flags=re.MULTILINE)


def collect() -> str:
    names = [n for n in ORDER if (REPORTS / f"{n}.md").is_file()]
    names += sorted(p.stem for p in REPORTS.glob("*.md") if p.stem not in ORDER)
    parts = [
        "# Benchmarks",
        "",
        "Machine: 2-core x86_64 Linux machines, shared with other jobs while these ran, so timings "
        "are noisy: compare ratios within one table. Each report names its machine; those written "
        "since the seventh session of 2026-11-23 also name the CPU's AVX-512 support, the BLAS "
        "kernel and the package versions, because on data with tied distances (Balance) the "
        f"figures follow the kernel's rounding. Collected on: {machine()}.",
        "",
        "Solver: HiGHS through highspy 1.15.1 in every report (up to the sixth session of 2026-11-23). "
        "A fresh install now gets highspy 1.16.0. Its default MIP solves use both cores, where 1.15.1 "
        "used one here, so its times may differ. The test suite passes with both.",
        "",
        "Regenerate: run the `benchmarks/bench_*.py` scripts (each report names its command), then "
        "`python benchmarks/collect.py`.",
        "",
        (HERE / "summary.md").read_text().strip(),
        "",
        "# Reports",
        "",
        "Contents: " + ", ".join(f"[{n}](#{n.replace('_', '-')})" for n in names) + ".",
    ]
    for name in names:
        parts += ["", f'<a id="{name.replace("_", "-")}"></a>', "", _demoted((REPORTS / f"{name}.md").read_text().strip())]
    return "\n".join(parts) + "\n"


def main() -> int:
    (ROOT / "BENCHMARKS.md").write_text(collect())
    print(f"wrote {ROOT / 'BENCHMARKS.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
