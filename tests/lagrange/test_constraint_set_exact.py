"""constraint_set_task(exact=True): the k-medoids optimum with the set, checked by enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from ccopt.exceptions import InvalidParameterError
from ccopt.experiments import constraint_set_task, load_instance
from ccopt.generators import random_pair_constraints
from ccopt.metrics import adjusted_rand_score

from ._brute import constrained_optimum, kmedoids_cost


@pytest.mark.parametrize(("seed", "wrong"), [(0, False), (1, True), (5, True)])
def test_exact_reading_is_the_enumerated_k_medoids_optimum(seed, wrong):
    config = {"data": "synthetic", "n_samples": 9, "n_classes": 3, "cluster_std": 1.5, "n_constraints": 4,
              "erroneous": wrong, "instance_seed": seed, "seed": 0, "max_iter": 20, "exact": True}
    row = constraint_set_task(config)
    X, labels, _, _ = load_instance({**config, "n_constraints": 0})
    cons = random_pair_constraints(labels, 4, erroneous=wrong,
                                   random_state=np.random.default_rng([seed, 2 + wrong])).constraints
    d = cdist(X, X)
    best, arg = constrained_optimum(lambda lab: kmedoids_cost(d, lab), 9, 3, cons.ml_pairs, cons.cl_pairs)
    assert row["exact_status"] == "optimal"
    assert row["exact_objective"] == pytest.approx(best)
    assert row["ari_exact"] == pytest.approx(adjusted_rand_score(labels, arg))
    # The run's best feasible clustering can be no better than the optimum.
    assert row["upper_bound"] >= best - 1e-9


def test_exact_reading_needs_the_k_medoids_criterion():
    with pytest.raises(InvalidParameterError, match="exact=True solves the k-medoids program; criterion is 'mssc'"):
        constraint_set_task({"data": "synthetic", "n_samples": 9, "n_classes": 3, "n_constraints": 2,
                             "criterion": "mssc", "exact": True})
