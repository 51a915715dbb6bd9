"""benchmarks/bench_bh_noise.py: a run over some noise levels draws the full study's sets."""

from __future__ import annotations

from argparse import Namespace

import pytest

from ccopt.generators import make_gaussian_clusters, noisy_pair_constraints


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_bh_noise")


def _drawn_sets(bench, monkeypatch, tmp_path, noise):
    X, y = make_gaussian_clusters(60, 3, center_std=5.0, cluster_std=0.3, random_state=1)
    monkeypatch.setattr(bench, "load_standardised", lambda name: (X, y, 3))
    drawn = {}
    def recording(labels, q, **kwargs):
        noisy = noisy_pair_constraints(labels, q, **kwargs)
        drawn[q] = (noisy.constraints.ml_pairs.tolist(), noisy.constraints.cl_pairs.tolist(), noisy.erroneous.tolist())
        return noisy

    monkeypatch.setattr(bench, "noisy_pair_constraints", recording)
    args = Namespace(datasets=["blobs"], noise=noise, penalties=[0.0], seeds=[0], solver="appsi_highs")
    bench.run(args, tmp_path / f"{len(noise)}.csv")
    return drawn


def test_a_run_over_some_levels_draws_the_same_sets_as_the_full_grid(bench, monkeypatch, tmp_path):
    full = _drawn_sets(bench, monkeypatch, tmp_path, list(bench.NOISE))
    some = _drawn_sets(bench, monkeypatch, tmp_path, [0.3, 0.4])
    assert some == {0.3: full[0.3], 0.4: full[0.4]}
    assert full[0.3] != full[0.4]


def test_a_noise_level_off_the_grid_is_refused(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--noise", "0.33", "--report-only"])
    assert "0.33 not in the study's grid" in capsys.readouterr().err


def test_the_report_links_a_figure_with_one_ari_and_one_time_line_per_noise_level(bench, monkeypatch, tmp_path):
    csv_path = tmp_path / "bh_noise.csv"
    for q in (0.0, 0.2):
        for p in (0.0, 0.2, 1.0):
            bench.append_row(csv_path, {
                "dataset": "a", "noise": q, "penalty": p, "seed": 0, "n": 10, "k": 2, "n_constraints": 3,
                "n_erroneous": 1, "ari": 1.0 - q * p, "violations": 0, "erroneous_violated": 0,
                "time": 1.0 + p, "status": "converged", "n_iter": 2}, bench.FIELDS)
    bench.write_report(csv_path, "python benchmarks/bench_bh_noise.py", tmp_path / "bh_noise.md")
    assert "`bh_noise.png, beside this report`" in (tmp_path / "bh_noise.md").read_text()
    assert (tmp_path / "bh_noise.png").stat().st_size > 0

    ari = {0.0: [1.0, 1.0, 1.0], 0.2: [1.0, 0.96, 0.8]}
    seconds = {0.0: [1.0, 1.2, 2.0], 0.2: [1.0, 1.2, 2.0]}
    ranges = {q: bench.good_range([0.0, 0.2, 1.0], means) for q, means in ari.items()}
    assert ranges == {0.0: [0.0, 0.2, 1.0], 0.2: [0.0]}
    fig = bench.noise_figure([0.0, 0.2, 1.0], ari, seconds, ranges)
    ax_ari, ax_time = fig.axes
    # Per level: its line, then its good penalties as open circles.
    assert [list(line.get_ydata()) for line in ax_ari.lines] == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 0.96, 0.8], [1.0]]
    assert [list(line.get_ydata()) for line in ax_time.lines] == [seconds[0.0], seconds[0.2]]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["q = 0", "q = 0.2"]
