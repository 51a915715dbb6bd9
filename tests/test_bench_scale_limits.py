"""benchmarks/bench_scale_limits.py: the constraint generator, the case selection, and tiny runs
of the cases whose outcome the audit got wrong (each in its own process, as in the benchmark)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_scale_limits")


def _cells(text: str, first: str) -> dict[str, str]:
    """The cells of the report table's row that starts with ``first``, by column name."""
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    line = next(line for line in lines if line.startswith(f"| {first} |"))
    return dict(zip(header, [cell.strip() for cell in line.strip("|").split("|")], strict=True))


def test_generated_constraints_agree_with_the_labels_and_are_distinct(bench):
    X, y, ml, cl = bench.instance(500, 301, seed=3)
    assert X.shape == (500, 8) and ml.shape == (150, 2) and cl.shape == (151, 2)
    assert np.all(y[ml[:, 0]] == y[ml[:, 1]]) and np.all(ml[:, 0] != ml[:, 1])
    assert np.all(y[cl[:, 0]] != y[cl[:, 1]])
    pairs = np.sort(np.concatenate([ml, cl]), axis=1)
    assert np.unique(pairs, axis=0).shape[0] == 301
    # Seeded: the same seed gives the same instance.
    again = bench.instance(500, 301, seed=3)
    assert np.array_equal(again[2], ml) and np.array_equal(again[3], cl)


def test_too_many_must_links_for_the_labels_is_refused(bench):
    y = np.arange(4) % 2  # two pairs of one label
    with pytest.raises(ValueError, match="have 2 same-label and 4 different-label pairs: cannot draw 3"):
        bench.agreeing_pairs(y, 6, np.random.default_rng(0))


def test_cases_by_name_number_and_range_in_table_order(bench):
    assert bench.parse_cases("chain_message,1-2") == ["impact_start", "lagrangian_memory", "chain_message"]
    assert bench.parse_cases("all") == list(bench.CASES)
    assert bench.parse_cases("9") == ["bh_time_limit"]
    with pytest.raises(ValueError, match="case numbers run from 1 to 9"):
        bench.parse_cases("8-10")
    with pytest.raises(ValueError, match="unknown case 'nosuch'"):
        bench.parse_cases("nosuch")


def test_the_audit_figure_names_its_size_only_when_the_run_is_smaller(bench):
    (full,) = bench.plan("impact_start")
    (small,) = bench.plan("impact_start", shrink=10)
    assert (full["n"], full["m"], full["before"]) == (100_000, 100_000, "ClusteringDeadEndError after 13.8 s")
    assert (small["n"], small["m"]) == (10_000, 10_000)
    assert small["before"] == "ClusteringDeadEndError after 13.8 s (at n = 100,000, m = 100,000)"
    # Case 9's limits shrink with its sizes; the others' are what is tested and stay.
    assert [s["time_limit"] for s in bench.plan("bh_time_limit", shrink=10)] == [3, 12]
    assert [s["time_limit"] for s in bench.plan("kmeans_s_exact", shrink=10)] == [5, 5]


def test_tiny_runs_write_the_report_with_the_fixed_outcomes(bench, tmp_path):
    report = tmp_path / "scale_limits.md"
    argv = ["--shrink", "1000", "--cases", "impact_start,matrix_file,chain_message",
            "--out-dir", str(tmp_path), "--report", str(report)]
    assert bench.main(argv) == 0
    text = report.read_text()
    assert text.startswith("# Scale limits: the audit's failures, re-measured")
    assert "divided by 1000" in text and "--shrink 1000 --cases" in text
    # The mssc start is no dead end any more: a labelling that violates nothing.
    impact = _cells(text, "1. impact_start")
    assert impact["size"] == "n = 200, m = 100"
    assert ", 0 violated" in impact["outcome"] and "Error" not in impact["outcome"]
    assert impact[bench.BEFORE_HEAD] == "ClusteringDeadEndError after 13.8 s (at n = 100,000, m = 100,000)"
    # The chain's message is short; the chain itself is in the certificate.
    chain = _cells(text, "7. chain_message")["outcome"]
    chars = int(chain.split("message ")[1].split(" chars")[0].replace(",", ""))
    assert chain.startswith("InfeasibleConstraintsError") and chars < 1_000
    assert "certificate of 200 objects" in chain
    assert _cells(text, "5. matrix_file")["outcome"] == "read, 20 must-links, 0 cannot-links"
    # The input file is deleted; not run cases are listed with the audit's figure.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scale_limits.csv", "scale_limits.md"]
    assert _cells(text, "9. bh_time_limit")["outcome"] == "not run"

    # --report-only rewrites the same table from the CSV.
    report.unlink()
    assert bench.main([*argv[:2], "--report-only", "--out-dir", str(tmp_path), "--report", str(report)]) == 0
    assert _cells(report.read_text(), "7. chain_message")["outcome"] == chain


def test_a_child_past_its_timeout_is_killed_and_reported(bench, tmp_path):
    report = tmp_path / "scale_limits.md"
    bench.main(["--shrink", "1000", "--cases", "duplicates", "--timeout", "0.01", "--out-dir", str(tmp_path),
                "--report", str(report)])
    outcome = _cells(report.read_text(), "8. duplicates")["outcome"]
    assert outcome.startswith("killed at ") and outcome.endswith(" s")


def test_report_only_without_results_stops_before_writing(bench, tmp_path):
    with pytest.raises(SystemExit, match=r"scale_limits\.csv: no results to report on"):
        bench.main(["--report-only", "--out-dir", str(tmp_path), "--report", str(tmp_path / "r.md")])
    assert list(tmp_path.iterdir()) == []
