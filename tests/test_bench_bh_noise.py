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
    args = Namespace(datasets=["blobs"], noise=noise, penalties=[0.0], seeds=[0])
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
