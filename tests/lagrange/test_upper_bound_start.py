"""The k-medoids route's upper bound repairs the lower-bound solution itself (Algorithm 2, "Run R(x)")."""

from __future__ import annotations

import numpy as np
import pytest

import ccopt
from ccopt.lagrange import api
from ccopt.lagrange.lp_routes import KMedoidsModelOracle
from ccopt.lagrange.oracles import KMedoidsLagrangianOracle, KMedoidsVoronoiOracle


@pytest.mark.parametrize(("method", "oracle_class"), [("voronoi", KMedoidsVoronoiOracle),
                                                      ("lagrangian", KMedoidsLagrangianOracle),
                                                      ("lp", KMedoidsModelOracle)])
def test_the_repair_starts_from_the_oracle_s_assignment(monkeypatch, method, oracle_class):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.8, (12, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    ml = [(0, 14), (13, 25), (2, 3)]  # two of them join different blobs
    cl = [(0, 1), (12, 13), (26, 27)]  # two of them split a blob
    solutions, starts = [], []

    solve = oracle_class.solve

    def recording_solve(self, mult):
        solution = solve(self, mult)
        solutions.append((np.array(solution.labels), np.array(solution.open_clusters)))
        return solution

    class RecordingRepairer(api.Repairer):
        """The route's repairer (the feasible start repairs through its own)."""

        def __call__(self, labels, cost, *args, **kwargs):
            starts.append((np.array(labels), np.array(cost), len(solutions)))
            return super().__call__(labels, cost, *args, **kwargs)

    monkeypatch.setattr(oracle_class, "solve", recording_solve)
    monkeypatch.setattr(api, "Repairer", RecordingRepairer)
    ccopt.impact_scores(X, 3, ml=ml, cl=cl, method=method, max_iter=25, random_state=0, progress=False)

    assert starts
    differs = 0
    for start, cost, n_solved in starts:
        # The upper bound of an iteration is computed right after its oracle solve.
        labels, open_medoids = solutions[n_solved - 1]
        served_by = open_medoids[start]
        np.testing.assert_array_equal(served_by, labels)
        differs += not np.array_equal(start, np.argmin(cost, axis=1))
    # The oracle's assignment is not the nearest-medoid one somewhere, or the test shows nothing.
    assert differs > 0
