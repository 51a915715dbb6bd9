"""benchmarks/bench_bh_kmeans.py: the results folder is created before anything is written to it;
a run of some CS sizes gets the same regenerated sets as the whole table."""

from __future__ import annotations

import pytest


def test_a_new_out_dir_is_created(benchmark_script, tmp_path, monkeypatch):
    bench = benchmark_script("bench_bh_kmeans")
    monkeypatch.setattr(bench, "REPORT", tmp_path / "bh_kmeans.md")
    out = tmp_path / "fresh" / "results"
    assert bench.main(["--no-tables", "--out-dir", str(out)]) == 0
    assert out.is_dir()
    assert (tmp_path / "bh_kmeans.md").read_text().startswith("# BH-kmeans")
    # --report-only reads the tables' results even with --no-tables: the report holds the tables,
    # and without results it blanked the stored ones.
    (tmp_path / "bh_kmeans.md").unlink()
    with pytest.raises(SystemExit, match=r"bh_kmeans\.csv: no results to report on"):
        bench.main(["--no-tables", "--report-only", "--out-dir", str(tmp_path / "other")])
    assert not (tmp_path / "bh_kmeans.md").exists()


def test_a_subset_of_sizes_gets_the_tables_regenerated_sets(benchmark_script, datasets_dir, monkeypatch):
    monkeypatch.setenv("CCOPT_DATASETS", str(datasets_dir))
    bench = benchmark_script("bench_bh_kmeans")
    table, source = bench.constraint_sets("zoo", bench.SIZES)
    assert source == "regenerated"
    for size in bench.SIZES:
        alone, _ = bench.constraint_sets("zoo", [size])
        assert alone[size].pairs.tolist() == table[size].pairs.tolist()
        assert alone[size].kinds.tolist() == table[size].kinds.tolist()


def test_letter_with_candidates_keeps_one_record_per_setting(benchmark_script, tmp_path, monkeypatch):
    import json

    import numpy as np

    bench = benchmark_script("bench_bh_kmeans")
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 70)
    X = rng.normal(size=(210, 2)) + 5.0 * y[:, None]
    # A stand-in for Letter: 1 % of 210 objects gives a handful of constraints.
    monkeypatch.setattr(bench, "load_standardised", lambda folder: (X, y, 3))
    monkeypatch.setattr(bench, "REPORT", tmp_path / "bh_kmeans.md")
    out = tmp_path / "results"
    base = ["--no-tables", "--letter-candidates", "2", "--out-dir", str(out)]
    for extra in ([], [], ["--solver", "appsi_highs"]):
        assert bench.main(base + extra) == 0
    records = json.loads((out / "bh_kmeans_letter_candidates.json").read_text())
    assert sorted((r["n_candidates"], r["solver"]) for r in records) == [
        (2, "appsi_highs"), (2, "highs_matrix")]
    assert all(r["ari"] > 0.9 and r["violations"] == 0 for r in records)
    report = (tmp_path / "bh_kmeans.md").read_text()
    assert "| 2 | appsi_highs |" in report and "| 2 | highs_matrix |" in report


def test_published_set_structure_measures_share_and_span(benchmark_script, tmp_path, monkeypatch):
    import math

    bench = benchmark_script("bench_bh_kmeans")
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "data.csv").write_text("x,label\n0,0\n1,0\n2,1\n3,1\n4,1\n")
    # Enumeration of the 10 pairs of 5 objects: (0,1)=0, (0,2)=1, ..., (1,2)=4, ..., (3,4)=9.
    (folder / "constraints_CS5.csv").write_text("i,j,kind\n0,1,ML\n2,0,CL\n")
    (folder / "constraints_CS10.csv").write_text("i,j,kind\n3,4,ML\n1,2,CL\n0,4,CL\n")
    monkeypatch.setenv("CCOPT_DATASETS", str(tmp_path))
    small, large = bench.published_set_structure("tiny")
    # Same-class pairs among all 20 ordered pairs: 2 * 1 + 3 * 2 = 8.
    assert small["set"] == "CS5" and large["set"] == "CS10"
    assert small["uniform_ml_share"] == large["uniform_ml_share"] == 8 / 20
    assert (small["pairs"], small["ml_share"], small["largest_smaller_index"]) == (2, 0.5, 0)
    assert small["span"] == 2 / 10  # positions 0 and 1
    assert math.isclose(small["log10_p_value"], 2 * math.log10(0.2))
    assert (large["pairs"], large["ml_share"], large["largest_smaller_index"]) == (3, 1 / 3, 3)
    assert large["span"] == 1.0  # (3, 4) is the last pair
    assert large["log10_p_value"] == 0.0


def test_the_report_section_says_when_the_data_are_missing(benchmark_script, tmp_path, monkeypatch):
    bench = benchmark_script("bench_bh_kmeans")
    monkeypatch.setenv("CCOPT_DATASETS", str(tmp_path / "absent"))
    lines = bench.published_structure_lines()
    assert sum("not computed" in line for line in lines) == 2  # Iris and Wine
