"""Independent references for tiny instances: enumeration, union-find groups, costs written out.

Every expected value computed here comes from a computation written out in this file, not
from ccopt: enumeration of all ``k ** n`` labellings, must-link groups by union-find, and the
objectives of the papers term by term. ``n <= 7`` and ``k <= 3`` keep the enumeration at most
2187 labellings.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from ccopt.constraints import CL, Constraints


def must_link_groups(n: int, ml) -> np.ndarray:
    """Must-link components by union-find, numbered by their smallest object."""
    parent = list(range(n))

    def root(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a, b in ml:
        parent[root(int(a))] = root(int(b))
    number: dict[int, int] = {}
    return np.array([number.setdefault(root(i), len(number)) for i in range(n)])


def all_labellings(n: int, k: int) -> np.ndarray:
    """Every labelling of ``n`` objects into ``k`` clusters (empty ones allowed), one per row."""
    return np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64).reshape(-1, n)


def satisfying(n: int, k: int, ml, cl) -> np.ndarray:
    """Every labelling into ``k`` clusters (empty ones allowed) that keeps all constraints."""
    labs = all_labellings(n, k)
    ok = np.ones(len(labs), dtype=bool)
    for i, j in ml:
        ok &= labs[:, i] == labs[:, j]
    for i, j in cl:
        ok &= labs[:, i] != labs[:, j]
    return labs[ok]


def nonempty_satisfying(n: int, k: int, ml, cl) -> np.ndarray:
    """The labellings of :func:`satisfying` that use all ``k`` clusters."""
    feasible = satisfying(n, k, ml, cl)
    return feasible[[np.unique(lab).size == k for lab in feasible]]


def equal_up_to_renaming(a, b) -> bool:
    """Whether two labellings are the same partition, up to a renaming of the clusters."""
    a, b = np.asarray(a), np.asarray(b)
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def wcss_to(X, labels, centers) -> float:
    """Sum of squared distances of every object to the centre of its cluster."""
    return float(sum(((X[i] - centers[labels[i]]) ** 2).sum() for i in range(len(X))))


def pck_objective(X, labels, centers, cons: Constraints, weight: float) -> float:
    """Basu et al.'s J: half the squared distances plus the penalty of each violated soft pair."""
    value = 0.5 * wcss_to(X, labels, centers)
    for (i, j), kind, w, hard in zip(cons.pairs, cons.kinds, cons.weights, cons.hard, strict=True):
        same = labels[i] == labels[j]
        if not hard and (same if kind == CL else not same):
            value += weight * w
    return value


def assert_centres_are_means(X, labels, centers) -> None:
    """Each non-empty cluster's centre is the mean of its members."""
    for h in np.unique(labels):
        np.testing.assert_allclose(centers[h], X[labels == h].mean(axis=0), rtol=1e-12, atol=1e-12)


@st.composite
def tiny_instances(draw, *, ml_share: float = 0.4):
    """Up to 7 points, k <= 3, any pairs: infeasible sets are drawn as often as feasible ones.

    Returns ``X, k, ml, cl, rng`` (``rng`` seeded from the draw, for further random choices).
    """
    n = draw(st.integers(2, 7))
    k = draw(st.integers(1, min(3, n)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(n, 2))
    pairs = [(i, j) for i, j in itertools.combinations(range(n), 2) if rng.random() < 0.35]
    pairs = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    is_ml = rng.random(len(pairs)) < ml_share
    return X, k, pairs[is_ml], pairs[~is_ml], rng
