"""benchmarks/bench_impact_set_selection.py: ranks, selections and shares of Figs. 9-10 and Table 4."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_impact_set_selection")


def _record(data, erroneous, s, score, coherence, informativeness, ari, n_cl=5, n_ml=20):
    return {"data": data, "erroneous": erroneous, "set": s, "set_score": score, "coherence": coherence,
            "informativeness": informativeness, "ari": ari, "n_cl": n_cl, "n_ml": n_ml}


# set: score, coherence, informativeness, ARI
SETS = [(-1.0, 0.1, 0.9, 0.30), (-9.0, 0.4, 0.2, 0.90), (-5.0, 0.9, 0.5, 0.90), (0.0, 0.5, 0.1, 0.10)]


def _collection(bench, erroneous=False, data="iris"):
    return [_record(data, erroneous, s, *values) for s, values in enumerate(SETS)]


def test_rank_of_best_takes_the_best_ranked_of_tied_sets(bench):
    records = _collection(bench)
    # Correct sets: scores -9 (ARI 0.9), -5 (0.9), -1, 0: both best sets lead, rank 1.
    assert bench.rank_of_best(records, "impact score", False) == 1
    # Coherence, most coherent first: 0.9 (ARI 0.9) is first.
    assert bench.rank_of_best(records, "coherence", False) == 1
    # Informativeness, highest first: 0.9 (0.3), 0.5 (0.9): rank 2.
    assert bench.rank_of_best(records, "informativeness", False) == 2
    # Erroneous sets, highest score first: 0 (0.1), -1 (0.3), -5 (0.9): rank 3.
    assert bench.rank_of_best(records, "impact score", True) == 3


def test_cannot_link_share_counts_constraints_not_sets(bench):
    records = [_record("wine", False, 0, 0, 0, 0, 0, n_cl=5, n_ml=20),
               _record("wine", False, 1, 0, 0, 0, 0, n_cl=15, n_ml=5)]
    assert bench.cl_share(records, [0, 1]) == pytest.approx(100 * 20 / 45)
    assert bench.cl_share(records, [1]) == pytest.approx(75.0)


def test_report_checks_the_papers_claims_and_prints_table_4_beside_ours(bench):
    rows = _collection(bench, False) + _collection(bench, True)
    text, figure = bench.report(rows, ["iris"], 2, "python benchmarks/bench_impact_set_selection.py")
    assert list(figure) == ["Fig. 9: correct constraints", "Fig. 10: erroneous constraints"]
    assert list(figure["Fig. 9: correct constraints"]) == ["iris"]
    assert "### Fig. 9: sets of correct constraints, ARI of the best feasible clustering" in text
    assert "ARI of the k-medoids optimum" not in text  # no exact solves in these rows
    # Correct: the score takes the sets of ARI 0.9 and 0.9, coherence 0.9 and 0.1 (medians 0.9 and 0.5),
    # informativeness 0.3 and 0.9; score's worst 0.9 > coherence's worst 0.1.
    assert "| iris | impact score | 2 | 0.900 | 0.900 | 0.900 | 0.900 |" in text
    assert "| iris | 4 | 1 | 1 | 2 | 1 | yes | impact score | yes |" in text
    # Erroneous: the score takes ARI 0.1 and 0.3, coherence (least coherent) 0.3 and 0.9,
    # informativeness (least) 0.1 and 0.9: medians 0.2, 0.6 and 0.5.
    assert "| iris | 4 | 3 | 2 | 2 | in its top 50, every data set | no | coherence | no |" in text
    # Every set has 5 of 25 cannot-links: 20 %, beside the paper's 33.6 / 33.2 / 32.3 %.
    assert "| iris | correct | 20.0 % (33.6 %) | 20.0 % (33.2 %) | 20.0 % (32.3 %) |" in text
    assert "| iris | erroneous | 20.0 % (33.6 %) |" in text


def test_the_exact_reading_comes_first_and_is_compared_with_the_runs(bench):
    rows = _collection(bench, False)
    for r, (optimum, ari_exact) in zip(rows, [(10.0, 0.3), (8.0, 0.5), (9.0, 0.9), (12.0, 0.1)], strict=True):
        # The run found the optimum on sets 0, 2 and 3; set 1's best feasible value is 10 % above it.
        r.update(upper_bound=optimum * (1.1 if r["set"] == 1 else 1.0), exact_objective=optimum,
                 ari_exact=ari_exact, exact_status="optimal", exact_seconds=2.0)
    text, figure = bench.report(rows, ["iris"], 2, "cmd")
    exact = text.index("### Fig. 9: sets of correct constraints, ARI of the k-medoids optimum")
    assert exact < text.index("### Fig. 9: sets of correct constraints, ARI of the best feasible clustering")
    # The figure draws the exact reading: the score's top 2 (scores -9, -5) have ARIs 0.5 and 0.9.
    np.testing.assert_array_equal(figure["Fig. 9: correct constraints"]["iris"]["impact score"], [0.5, 0.9])
    # By the exact ARI the best set (0.9, score -5) is ranked 2nd by the score.
    assert "| iris | 4 | 2 |" in text[exact:]
    # 3 of 4 at the optimum, mean excess 2.5 %, max 10 %; the same ARI on sets 0, 2 and 3.
    assert "| iris | correct | 4 | 4 | 0.750 | 2.500 | 10.000 | 0.750 | 2.000 |" in text


def test_highest_median_names_every_tied_group(bench):
    records = [_record("glass", False, s, -float(s), 0.5, 0.5, 0.4) for s in range(4)]
    text, _ = bench.report(records, ["glass"], 2, "cmd")
    assert "| impact score = coherence = informativeness |" in text


def test_the_figure_has_a_panel_per_kind(bench):
    rows = _collection(bench, False) + _collection(bench, True)
    _, figure = bench.report(rows, ["iris"], 2, "cmd")
    fig = bench.selection_figure(figure)
    assert [ax.get_title() for ax in fig.axes] == ["Fig. 9: correct constraints", "Fig. 10: erroneous constraints"]
