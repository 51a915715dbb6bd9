"""benchmarks/bench_bh_kmeans.py: the results folder is created before anything is written to it."""

from __future__ import annotations


def test_a_new_out_dir_is_created(benchmark_script, tmp_path, monkeypatch):
    bench = benchmark_script("bench_bh_kmeans")
    monkeypatch.setattr(bench, "REPORT", tmp_path / "bh_kmeans.md")
    out = tmp_path / "fresh" / "results"
    assert bench.main(["--no-tables", "--report-only", "--out-dir", str(out)]) == 0
    assert out.is_dir()
    assert (tmp_path / "bh_kmeans.md").read_text().startswith("# BH-kmeans")
