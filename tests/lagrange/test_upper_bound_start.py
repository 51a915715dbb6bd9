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


def _heuristics_fail(monkeypatch):
    """COP-kmeans dead-ends and Algorithm 2 gives up, as both did at 100,000 objects and constraints."""
    from ccopt.cluster import _cop_kmeans
    from ccopt.exceptions import ClusteringDeadEndError
    from ccopt.lagrange.repair import RepairResult

    def dead_end(*args, **kwargs):
        raise ClusteringDeadEndError("a dead end at object 7")

    def gives_up(labels, *args, **kwargs):
        return RepairResult(np.asarray(labels), False, 0, "time limit reached with 3 super-instances violating")

    monkeypatch.setattr(_cop_kmeans, "cop_kmeans_problem", dead_end)
    monkeypatch.setattr(api, "repair_labels", gives_up)


@pytest.mark.parametrize("criterion", ["mssc", "kmedoids"])
def test_a_colouring_starts_the_run_when_both_heuristics_fail(monkeypatch, criterion):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.5, (10, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    ml, cl = [(0, 1), (10, 11), (20, 21)], [(0, 10), (10, 20), (0, 20), (1, 12)]
    _heuristics_fail(monkeypatch)
    result = ccopt.impact_scores(X, 3, ml=ml, cl=cl, criterion=criterion, max_iter=3, random_state=0,
                                 progress=False)
    assert result.constraints.violations(result.labels).total == 0
    assert np.unique(result.labels).size == 3
    assert np.isfinite(result.upper_bound) and result.lower_bound <= result.upper_bound + 1e-9


def test_the_dead_end_names_all_three_attempts(monkeypatch):
    from ccopt.constraints import FeasibilityReport
    from ccopt.exceptions import ClusteringDeadEndError

    _heuristics_fail(monkeypatch)
    monkeypatch.setattr(api, "check_feasibility",
                        lambda cons, k: FeasibilityReport("unknown", "No colouring with 3 clusters was found"))
    X = np.random.default_rng(0).normal(size=(12, 2))
    with pytest.raises(ClusteringDeadEndError) as info:
        ccopt.impact_scores(X, 3, cl=[(0, 1)], criterion="mssc", max_iter=3, random_state=0, progress=False)
    message = str(info.value)
    assert "a dead end at object 7" in message
    assert "3 super-instances violating" in message
    assert "No colouring with 3 clusters was found" in message


def test_a_proof_of_infeasibility_from_the_colourings_is_raised_with_its_certificate(monkeypatch):
    from ccopt.constraints import FeasibilityReport
    from ccopt.exceptions import InfeasibleConstraintsError

    _heuristics_fail(monkeypatch)
    monkeypatch.setattr(api, "check_feasibility",
                        lambda cons, k: FeasibilityReport("infeasible", "Objects [0, 1, 2] pairwise cannot-link",
                                                          certificate=[0, 1, 2]))
    X = np.random.default_rng(0).normal(size=(12, 2))
    with pytest.raises(InfeasibleConstraintsError) as info:
        ccopt.impact_scores(X, 3, cl=[(0, 1)], criterion="mssc", max_iter=3, random_state=0, progress=False)
    assert info.value.certificate == [0, 1, 2]
