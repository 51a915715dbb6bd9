"""benchmarks/bench_bh_kmeans.py: the results folder is created before anything is written to it;
a run of some CS sizes gets the same regenerated sets as the whole table."""

from __future__ import annotations


def test_a_new_out_dir_is_created(benchmark_script, tmp_path, monkeypatch):
    bench = benchmark_script("bench_bh_kmeans")
    monkeypatch.setattr(bench, "REPORT", tmp_path / "bh_kmeans.md")
    out = tmp_path / "fresh" / "results"
    assert bench.main(["--no-tables", "--report-only", "--out-dir", str(out)]) == 0
    assert out.is_dir()
    assert (tmp_path / "bh_kmeans.md").read_text().startswith("# BH-kmeans")


def test_a_subset_of_sizes_gets_the_tables_regenerated_sets(benchmark_script, datasets_dir, monkeypatch):
    monkeypatch.setenv("CCOPT_DATASETS", str(datasets_dir))
    bench = benchmark_script("bench_bh_kmeans")
    table, source = bench.constraint_sets("zoo", bench.SIZES)
    assert source == "regenerated"
    for size in bench.SIZES:
        alone, _ = bench.constraint_sets("zoo", [size])
        assert alone[size].pairs.tolist() == table[size].pairs.tolist()
        assert alone[size].kinds.tolist() == table[size].kinds.tolist()
