"""benchmarks/collect.py: BENCHMARKS.md holds every report, each under one level-2 heading."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _collect_module():
    spec = importlib.util.spec_from_file_location("collect", ROOT / "benchmarks" / "collect.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_headings_shift_so_the_top_level_is_two():
    collect = _collect_module()
    assert collect._demoted("# A\n\ntext # not a heading\n## B\n") == "## A\n\ntext # not a heading\n### B\n"
    assert collect._demoted("## A\n### B\n") == "## A\n### B\n"
    assert collect._demoted("no headings\n") == "no headings\n"


def test_every_report_is_in_the_assembled_text():
    collect = _collect_module()
    text = collect.collect()
    assert text.startswith("# Benchmarks\n")
    reports = sorted((ROOT / "benchmarks" / "reports").glob("*.md"))
    assert reports
    for report in reports:
        first_heading = re.search(r"^#+ (.+)$", report.read_text(), flags=re.MULTILINE).group(1)
        assert f"## {first_heading}\n" in text, report.name

