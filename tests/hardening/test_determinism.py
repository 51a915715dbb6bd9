"""Same seed, same result: across calls, seed types, worker counts and processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ccopt
from ccopt import generators
from ccopt.experiments import grid_tasks, impact_score_task, run_experiment
from ccopt.generators import make_gaussian_clusters, noisy_constraints
from ccopt.lagrange import baselines
from tests.hardening._api import ENTRIES, assert_same, blobs, cannot_links_ignored


@pytest.fixture(scope="module")
def instance():
    X = blobs(15, 2, 3, seed=4) + np.random.default_rng(4).normal(scale=1.5, size=(15, 2))
    return X, [(0, 3), (4, 10), (7, 13)], [(0, 1), (2, 3), (5, 14)]


@pytest.mark.parametrize("entry", ENTRIES, ids=repr)
def test_every_entry_point_repeats_itself_with_the_same_seed(entry, instance):
    X, ml, cl = instance
    pairs = {"ml": ml, "cl": cl} if entry.takes_pairs else {}
    with cannot_links_ignored(entry.ignores_cl):
        first = entry.call(X, 3, **pairs)
    with cannot_links_ignored(entry.ignores_cl):
        second = entry.call(X, 3, **pairs)
    assert_same(first, second)


@pytest.mark.parametrize(("name", "params"), [
    ("COPKMeans", {"n_init": 3}), ("PCKMeans", {"n_init": 3}), ("LCC", {"n_init": 3}),
    ("BHKMeans", {"n_init": 2}), ("MLKMeans", {"n_init": 2}),
])
def test_generators_seeded_alike_give_the_same_result(name, params, instance):
    """Fresh generators with one seed repeat (a generator is consumed by a fit, so reusing the
    same generator object may give another result, as in scikit-learn)."""
    X, ml, cl = instance
    cl = [] if name == "MLKMeans" else cl  # Jia et al. take disjoint cannot-link sets only
    cls = getattr(ccopt.cluster, name)
    first = cls(3, random_state=np.random.default_rng(42), **params).fit(X, ml=ml, cl=cl)
    second = cls(3, random_state=np.random.default_rng(42), **params).fit(X, ml=ml, cl=cl)
    assert_same(first, second)


def test_impact_scores_with_a_generator_repeat(instance):
    X, ml, cl = instance
    runs = [ccopt.impact_scores(X, 3, ml=ml, cl=cl, criterion=c, max_iter=30,
                                random_state=np.random.default_rng(9), progress=False)
            for c in ("mssc", "mssc", "kmedoids", "kmedoids")]
    assert_same(runs[0], runs[1])
    assert_same(runs[2], runs[3])


def test_generators_repeat_with_the_same_seed():
    y = np.repeat(np.arange(3), 10)
    calls = [
        lambda s: generators.make_gaussian_clusters(30, 3, random_state=s),
        lambda s: generators.correct_constraints(y, 12, random_state=s).pairs,
        lambda s: generators.noisy_constraints(y, 12, 4, random_state=s),
        lambda s: [v.constraints.pairs for v in generators.nested_noisy_constraints(y, random_state=s).values()],
        lambda s: generators.cs_constraints(y, 0.3, sampling="pairs", random_state=s).pairs,
        lambda s: [c.pairs for c in generators.cs_constraint_sets(y, random_state=s).values()],
        lambda s: generators.noisy_pair_constraints(y, 0.2, random_state=s),
        lambda s: generators.lcc_constraints(y, 10, n_erroneous=2, random_state=s),
        lambda s: generators.ml_dcl_constraints(y, 2, 2, random_state=s).constraints.pairs,
        lambda s: generators.synthetic_instance(40, 3, 0.2, 0.2, random_state=s).X,
        lambda s: [inst.seed for inst in generators.synthetic_design(3, sizes=(20,), random_state=s)],
    ]

    def plain(value):
        if isinstance(value, tuple | list):
            return [plain(v) for v in value]
        if isinstance(value, ccopt.Constraints):
            return [value.pairs.tolist(), value.kinds.tolist()]
        return np.asarray(value).tolist()

    for call in calls:
        assert plain(call(5)) == plain(call(5))
        assert plain(call(np.random.default_rng(5))) == plain(call(np.random.default_rng(5)))
        assert plain(call(5)) != plain(call(6))  # the seed is read, not ignored


# ============================================================================ 1 vs 2 workers
@pytest.fixture(scope="module")
def scored():
    X, y = make_gaussian_clusters(30, 3, cluster_std=1.0, random_state=2)
    return X, noisy_constraints(y, 8, 2, random_state=2).constraints


@pytest.mark.slow  # test_baselines.py checks both halves too (the baselines in the default run)
def test_k_sweep_and_baselines_do_not_depend_on_the_number_of_workers(scored):
    X, cons = scored
    sweeps = [baselines.erroneous_fraction_by_k(X, [2, 3, 4], constraints=cons, criterion="mssc",
                                                max_iter=20, random_state=3, n_jobs=n, progress=False)
              for n in (1, 2)]
    np.testing.assert_array_equal(sweeps[0].fraction_erroneous, sweeps[1].fraction_erroneous)
    for a, b in zip(sweeps[0].results, sweeps[1].results, strict=True):
        assert_same(a, b)
    pessimistic = [baselines.pessimistic_baseline(X, 3, constraints=cons, criterion="mssc",
                                                  solver_mode="heuristic", n_init=2, random_state=3,
                                                  n_jobs=n, progress=False)
                   for n in (1, 2)]
    assert_same(pessimistic[0], pessimistic[1])


def test_experiment_rows_do_not_depend_on_the_number_of_workers(tmp_path):
    tasks = grid_tasks({"data": "synthetic", "n_samples": 30, "n_classes": 3, "constraint_fraction": 0.2,
                        "error_fraction": 0.3, "criterion": "mssc", "max_iter": 20}, instance_seed=[0, 1, 2])
    rows = []
    for n_jobs in (1, 2):
        result = run_experiment(tasks, impact_score_task, tmp_path / f"r{n_jobs}.csv", n_jobs=n_jobs,
                                random_state=4, progress=False)
        rows.append([{k: v for k, v in r.items() if "seconds" not in k} for r in result.records])
    assert rows[0] == rows[1]


# ============================================================================ across processes
_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import ccopt
    from ccopt.experiments import task_key
    from ccopt.generators import make_gaussian_clusters, noisy_constraints
    X, y = make_gaussian_clusters(40, 3, cluster_std=1.0, random_state=1)
    cons = noisy_constraints(y, 10, 3, random_state=1).constraints
    out = {
        "scores": ccopt.impact_scores(X, 3, constraints=cons, criterion="mssc", max_iter=30,
                                      random_state=0, progress=False).scores.tolist(),
        "kmedoids": ccopt.impact_scores(X, 3, constraints=cons, max_iter=30, random_state=0,
                                        progress=False).scores.tolist(),
        "cop": ccopt.cluster.COPKMeans(3, random_state=0).fit(X, constraints=cons).labels_.tolist(),
        "lcc": ccopt.cluster.LCC(3, random_state=0).fit(X, constraints=cons).labels_.tolist(),
        "key": task_key({"data": "synthetic", "b": [1, 2], "a": "x"}),
    }
    print(json.dumps(out))
""")


@pytest.mark.slow
def test_results_do_not_depend_on_the_process_or_its_hash_seed():
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                              check=True, timeout=600)
        outputs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert outputs[0] == outputs[1]
