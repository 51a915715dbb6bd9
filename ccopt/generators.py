"""Synthetic data and constraint generators of the papers ccopt reproduces.

Every generator is reproducible through ``random_state`` (an int or a
:class:`numpy.random.Generator`) and returns a :class:`~ccopt.constraints.Constraints` bound
to ``n_samples``. Where a protocol defines *erroneous* constraints, the generator returns a
:class:`NoisyConstraints` whose boolean ``erroneous`` mask is aligned with the constraints'
order. No generator ever produces a self-pair or the same pair twice (hence never a pair that
is both must-link and cannot-link); a request for more distinct pairs than exist raises
:class:`~ccopt.exceptions.InvalidParameterError` saying how many exist.

==================================  ===========================================================
generator                           protocol
==================================  ===========================================================
:func:`make_gaussian_clusters`      Gaussian clusters of the impact-score paper (Table 1)
:func:`synthetic_instance`,         one instance / the 500-instance factorial design of the
:func:`synthetic_design`            impact-score paper (Sec. 4.1, Table 1)
:func:`correct_constraints`         random constraints that agree with the labels, half ML
:func:`noisy_constraints`           ``p`` constraints of which ``q`` are erroneous (flipped)
:func:`nested_noisy_constraints`    nested sets ``p = ceil(f n)``, ``q = ceil(p / 3)``
                                    (impact-score paper, Sec. 4.3, Tables 2-3)
:func:`random_pair_constraints`     ``p`` uniformly random pairs, all correct or all
                                    erroneous (impact-score paper, Sec. 4.4, Figs. 9-10)
:func:`cs_constraints`,             CS5..CS20 sets of ``n_f (n_f - 1) / 2`` pairs,
:func:`cs_constraint_sets`          ``n_f = ceil(f n)`` (DILS; BH-kmeans Sec. 4.1)
:func:`noisy_pair_constraints`      noise level ``q``: flip a fraction ``q`` of the ML and of
                                    the CL pairs (BH-kmeans Sec. 5.1)
:func:`lcc_constraints`             random object, random partner of the same / another class
                                    (LCC paper, Sec. 4.1 and 4.4)
:func:`ml_dcl_constraints`          must-link sets and disjoint cannot-link sets of size ``r``
                                    (Jia et al., Sec. 6.1.3)
==================================  ===========================================================
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ccopt._validation import (
    check_bool,
    check_fraction,
    check_labels,
    check_nonnegative,
    check_positive_int,
    check_random_state,
)
from ccopt.constraints import CL, ML, Constraints, MustLinkClosure
from ccopt.exceptions import InfeasibleConstraintsError, InvalidParameterError

__all__ = [
    "ConstraintSets",
    "NoisyConstraints",
    "SyntheticInstance",
    "correct_constraints",
    "cs_constraint_sets",
    "cs_constraints",
    "lcc_constraints",
    "make_gaussian_clusters",
    "ml_dcl_constraints",
    "nested_noisy_constraints",
    "noisy_constraints",
    "noisy_pair_constraints",
    "random_pair_constraints",
    "synthetic_design",
    "synthetic_instance",
]

# Above this many candidate pairs we never list them all (n ~ 2000 objects).
_ENUMERATE_LIMIT = 2_000_000
# Rejection rounds before the last few pairs of a near-exhaustive request are drawn from the
# enumerated remainder instead (only reachable when almost every pair is requested).
_MAX_ROUNDS = 200
# Whole redraws of a noisy block before giving up on a set without a cannot-link inside a
# must-link chain (one of the 140 regenerated Table 3 sets of the benchmarks needed a redraw).
_MAX_REDRAWS = 100


class NoisyConstraints(NamedTuple):
    """Constraints with the truth about which of them are erroneous.

    Attributes
    ----------
    constraints : Constraints
        Bound to ``n_samples``.
    erroneous : ndarray of bool, shape (n_constraints,)
        ``True`` where the constraint disagrees with the ground-truth labels, aligned with
        ``constraints``.
    """

    constraints: Constraints
    erroneous: np.ndarray


class ConstraintSets(NamedTuple):
    """Must-link sets and disjoint cannot-link sets, and their pairwise expansion.

    Attributes
    ----------
    constraints : Constraints
        Every pair inside each must-link set (ML), then every pair inside each cannot-link
        set (CL), set by set.
    ml_sets : list of ndarray of int64
        Object indices of each must-link set.
    cl_sets : list of ndarray of int64
        Object indices of each (disjoint) cannot-link set.
    """

    constraints: Constraints
    ml_sets: list
    cl_sets: list


@dataclass(frozen=True, eq=False)
class SyntheticInstance:
    """One data set of the impact-score factorial design, with its constraints.

    Attributes
    ----------
    X : ndarray of shape (n_samples, 2)
    labels : ndarray of int64, shape (n_samples,)
    constraints : Constraints
    erroneous : ndarray of bool, shape (n_constraints,)
    n_clusters : int
    constraint_fraction : float
        ``p / n`` as drawn from the design.
    error_fraction : float
        The fraction ``q / p`` drawn from the design (``q = ceil(error_fraction * p)``).
    seed : int
        Seed that regenerates this instance with :func:`synthetic_instance`.
    """

    X: np.ndarray
    labels: np.ndarray
    constraints: Constraints
    erroneous: np.ndarray
    n_clusters: int
    constraint_fraction: float
    error_fraction: float
    seed: int

    @property
    def n_samples(self) -> int:
        """Number of objects."""
        return int(self.X.shape[0])


# ----------------------------------------------------------------------------- validation
def _check_labels(labels) -> np.ndarray:
    """Ground-truth labels as codes 0..k-1 (any hashable, sortable values are accepted)."""
    arr = check_labels(labels, "labels", allow_empty=True)
    if arr.shape[0] < 2:
        raise InvalidParameterError(f"labels must have at least 2 entries to form a pair, got {arr.shape[0]}.")
    _, codes = np.unique(arr, return_inverse=True)
    return codes.reshape(-1).astype(np.int64)


def _check_fractions(fractions, name: str) -> list[float]:
    """A non-empty sequence of distinct fractions in (0, 1], sorted ascending."""
    if isinstance(fractions, (str, bytes)) or not isinstance(fractions, Sequence | np.ndarray):
        raise InvalidParameterError(f"{name} must be a sequence of numbers in (0, 1], got {fractions!r}.")
    fracs = sorted(check_fraction(f, name) for f in fractions)
    if not fracs:
        raise InvalidParameterError(f"{name} must list at least one fraction in (0, 1].")
    if len(set(fracs)) != len(fracs):
        raise InvalidParameterError(f"{name} must be distinct, got {list(fractions)}.")
    return fracs


def _set_keys(fractions: list[float], prefix: str, suffix: str = "") -> list[str]:
    """Names ``prefix + round(100 f) + suffix``; two fractions with one name would lose a set."""
    keys = [f"{prefix}{round(100 * f)}{suffix}" for f in fractions]
    named: dict[str, float] = {}
    for f, key in zip(fractions, keys, strict=True):
        if key in named:
            raise InvalidParameterError(
                f"fractions {named[key]} and {f} would both be named {key!r} "
                "(sets are named by round(100 f)); use fractions that differ in percent.")
        named[key] = f
    return keys


def _count(value, name: str) -> int:
    return check_positive_int(value, name, minimum=0)


def _check_counts(n_constraints, n_erroneous) -> tuple[int, int]:
    """``p >= 0`` constraints of which ``0 <= q <= p`` erroneous."""
    p = _count(n_constraints, "n_constraints")
    q = _count(n_erroneous, "n_erroneous")
    if q > p:
        raise InvalidParameterError(f"n_erroneous={q} exceeds n_constraints={p}.")
    return p, q


def _ceil_times(fraction: float, n: int) -> int:
    """``ceil(fraction * n)`` without the float noise of e.g. ``0.15 * 100 = 15.000000000000002``."""
    return math.ceil(round(fraction * n, 9))


def _round_half_up(x: float) -> int:
    return math.floor(round(x, 9) + 0.5)


# ----------------------------------------------------------------------------- pair sampling
class _Classes:
    """Objects grouped by class, for vectorised draws of same-class and other-class partners."""

    def __init__(self, y: np.ndarray):
        self.y = y
        self.n = int(y.shape[0])
        self.counts = np.bincount(y).astype(np.int64)
        self.order = np.argsort(y, kind="stable")
        self.start = np.concatenate([[0], np.cumsum(self.counts)[:-1]]).astype(np.int64)
        self.n_same = int((self.counts * (self.counts - 1) // 2).sum())
        self.n_all = self.n * (self.n - 1) // 2

    def total(self, same: bool | None) -> int:
        if same is None:
            return self.n_all
        return self.n_same if same else self.n_all - self.n_same

    def in_category(self, codes: np.ndarray, same: bool | None) -> np.ndarray:
        if same is None:
            return np.ones(codes.shape[0], dtype=bool)
        i, j = codes // self.n, codes % self.n
        return (self.y[i] == self.y[j]) == same

    def enumerate(self, same: bool | None) -> np.ndarray:
        """Codes ``i * n + j`` (``i < j``) of every pair of the category."""
        n = self.n
        if same:
            parts = []
            for c in np.flatnonzero(self.counts >= 2):
                members = np.sort(self.order[self.start[c]:self.start[c] + self.counts[c]])
                a, b = np.triu_indices(members.shape[0], 1)
                parts.append(members[a] * n + members[b])
            return np.sort(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)
        i, j = np.triu_indices(n, 1)
        if same is False:
            keep = self.y[i] != self.y[j]
            i, j = i[keep], j[keep]
        return (i * n + j).astype(np.int64)

    def other_class_member(self, cls: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """The ``rank``-th object (in class order) outside class ``cls``."""
        position = np.where(rank < self.start[cls], rank, rank + self.counts[cls])
        return self.order[position]


def _codes(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    return np.minimum(i, j) * n + np.maximum(i, j)


def _draw_uniform(classes: _Classes, size: int, same: bool | None, rng) -> np.ndarray:
    """Pair codes drawn uniformly from the category (with repeats; filtered by the caller)."""
    n = classes.n
    if same:
        eligible = np.flatnonzero(classes.counts >= 2)
        weights = classes.counts[eligible] * (classes.counts[eligible] - 1) / 2.0
        cls = eligible[rng.choice(eligible.shape[0], size=size, p=weights / weights.sum())]
        size_c = classes.counts[cls]
        a = rng.integers(0, size_c)
        b = rng.integers(0, size_c - 1)
        b = b + (b >= a)
        i = classes.order[classes.start[cls] + a]
        j = classes.order[classes.start[cls] + b]
        return _codes(i, j, n)
    i = rng.integers(0, n, size=size)
    j = rng.integers(0, n - 1, size=size)
    j = j + (j >= i)
    codes = _codes(i, j, n)
    if same is False:
        codes = codes[classes.y[i] != classes.y[j]]
    return codes


def _draw_object_first(classes: _Classes, size: int, same: bool, rng) -> np.ndarray:
    """LCC's protocol: a random object, then a random partner of the same / another class."""
    n = classes.n
    if same:
        eligible = classes.order[np.repeat(classes.counts >= 2, classes.counts)]
        i = eligible[rng.integers(0, eligible.shape[0], size=size)]
        cls = classes.y[i]
        size_c = classes.counts[cls]
        # position of i inside its class block, then a different position in that block
        pos_i = np.empty(n, dtype=np.int64)
        pos_i[classes.order] = np.arange(n) - np.repeat(classes.start, classes.counts)
        b = rng.integers(0, size_c - 1)
        b = b + (b >= pos_i[i])
        j = classes.order[classes.start[cls] + b]
        return _codes(i, j, n)
    i = rng.integers(0, n, size=size)
    cls = classes.y[i]
    rank = rng.integers(0, n - classes.counts[cls])
    j = classes.other_class_member(cls, rank)
    return _codes(i, j, n)


def _unique_in_order(codes: np.ndarray) -> np.ndarray:
    _, first = np.unique(codes, return_index=True)
    return codes[np.sort(first)]


def _sample_pairs(classes: _Classes, count: int, same: bool | None, rng, taken: np.ndarray,
                  *, draw: Callable | None = None, what: str = "") -> np.ndarray:
    """``count`` distinct pair codes of a category, none in ``taken``, in random order.

    Sequential draws that skip repeats give a uniform random subset when ``draw`` is
    uniform; with ``draw=_draw_object_first`` they follow LCC's protocol instead.
    """
    if count == 0:
        return np.empty(0, dtype=np.int64)
    taken = np.unique(taken)
    total = classes.total(same)
    available = total - int(classes.in_category(taken, same).sum()) if taken.size else total
    if count > available:
        kind = {True: "same-class ", False: "different-class ", None: ""}[same]
        raise InvalidParameterError(
            f"Cannot draw {count} distinct {kind}pairs{what}: only {available} exist in the labels "
            f"(n_samples={classes.n}, class sizes {classes.counts.tolist()[:10]}"
            f"{' ...' if classes.counts.shape[0] > 10 else ''}). Ask for fewer constraints."
        )
    # Listing every candidate is exact and cheap for small pools or near-exhaustive requests.
    if draw is None and total <= _ENUMERATE_LIMIT and 4 * count > available:
        pool = classes.enumerate(same)
        if taken.size:
            pool = pool[~np.isin(pool, taken)]
        return pool[rng.choice(pool.shape[0], size=count, replace=False)]

    draw = draw or _draw_uniform
    chosen = np.empty(0, dtype=np.int64)
    excluded = taken
    for _ in range(_MAX_ROUNDS):
        need = count - chosen.shape[0]
        if need == 0:
            return chosen
        batch = _unique_in_order(draw(classes, max(2 * need, 64), same, rng))
        batch = batch[~np.isin(batch, excluded)][:need]
        chosen = np.concatenate([chosen, batch])
        excluded = np.union1d(excluded, batch)
    pool = classes.enumerate(same)
    pool = pool[~np.isin(pool, excluded)]
    rest = pool[rng.choice(pool.shape[0], size=count - chosen.shape[0], replace=False)]
    return np.concatenate([chosen, rest])


def _pairs(codes: np.ndarray, n: int) -> np.ndarray:
    return np.column_stack([codes // n, codes % n]).astype(np.int64).reshape(-1, 2)


# ----------------------------------------------------------------------------- noisy sets
def _balanced_counts(p: int, q: int) -> tuple[int, int, int, int]:
    """(correct ML, correct CL, erroneous ML, erroneous CL): each half ML, the odd one ML.

    This is the split of the published synthetic instances of the impact-score paper:
    in all 495 instances with constraints, #ML - #CL is ceil((p-q)/2) - floor((p-q)/2)
    among the correct and ceil(q/2) - floor(q/2) among the erroneous constraints.
    """
    correct = p - q
    return (correct + 1) // 2, correct // 2, (q + 1) // 2, q // 2


def _noisy_block(classes: _Classes, counts, rng, taken: np.ndarray, what: str):
    """Draw one block: returns (pairs, kinds, erroneous, codes used), ML rows first."""
    n_ml_ok, n_cl_ok, n_ml_err, n_cl_err = counts
    n = classes.n
    same = _sample_pairs(classes, n_ml_ok + n_cl_err, True, rng, taken, what=what)
    diff = _sample_pairs(classes, n_cl_ok + n_ml_err, False, rng, taken, what=what)
    # A correct ML and an erroneous CL are both same-class pairs; the draw order is random,
    # so splitting by position is a random split. Each kind is then shuffled so the erroneous
    # ones do not sit at predictable positions.
    ml_codes = np.concatenate([same[:n_ml_ok], diff[n_cl_ok:]])
    ml_err = np.concatenate([np.zeros(n_ml_ok, bool), np.ones(n_ml_err, bool)])
    cl_codes = np.concatenate([diff[:n_cl_ok], same[n_ml_ok:]])
    cl_err = np.concatenate([np.zeros(n_cl_ok, bool), np.ones(n_cl_err, bool)])
    ml_perm, cl_perm = rng.permutation(ml_codes.shape[0]), rng.permutation(cl_codes.shape[0])
    codes = np.concatenate([ml_codes[ml_perm], cl_codes[cl_perm]])
    kinds = np.concatenate([np.full(ml_codes.shape[0], ML), np.full(cl_codes.shape[0], CL)])
    erroneous = np.concatenate([ml_err[ml_perm], cl_err[cl_perm]])
    return _pairs(codes, n), kinds.astype(np.int8), erroneous, codes


def _is_consistent(pairs: np.ndarray, kinds: np.ndarray, n: int) -> bool:
    """No cannot-link joins two objects of one must-link chain."""
    try:
        MustLinkClosure.from_constraints(_constraints(pairs, kinds, n))
    except InfeasibleConstraintsError:
        return False
    return True


def _consistent_block(classes: _Classes, counts, rng, taken: np.ndarray, what: str,
                      before: tuple[np.ndarray, np.ndarray], consistent: bool):
    """:func:`_noisy_block`, redrawn while it puts a cannot-link inside a must-link chain.

    ``before`` holds the pairs and kinds the block is appended to: a block of correct
    constraints can still close a chain through an erroneous must-link drawn before it. A
    consistent first draw is returned unchanged, so the redraw only alters sets that the
    earlier generator made contradictory.
    """
    for _ in range(_MAX_REDRAWS):
        block = _noisy_block(classes, counts, rng, taken, what)
        if not consistent or _is_consistent(np.vstack([before[0], block[0]]),
                                            np.concatenate([before[1], block[1]]), classes.n):
            return block
    raise InvalidParameterError(
        f"Could not draw {sum(counts)} constraints{what} without a cannot-link inside a must-link "
        f"chain in {_MAX_REDRAWS} attempts; ask for fewer erroneous constraints or pass consistent=False.")


def _constraints(pairs: np.ndarray, kinds: np.ndarray, n: int) -> Constraints:
    return Constraints(pairs, kinds, n_samples=n)


def correct_constraints(labels, n_constraints, *, random_state=None) -> Constraints:
    """Random constraints that all agree with the labels, half must-link.

    Pairs are drawn uniformly among the distinct same-class pairs (ML) and different-class
    pairs (CL); ``ceil(p / 2)`` are must-links and ``floor(p / 2)`` cannot-links.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Ground-truth classes.
    n_constraints : int
        Number ``p`` of constraints, ``>= 0``.
    random_state : int, Generator or None, default=None

    Returns
    -------
    Constraints
        Bound to ``n_samples``; the must-links first.

    Raises
    ------
    InvalidParameterError
        If there are not enough distinct same-class or different-class pairs.
    """
    return noisy_constraints(labels, n_constraints, 0, random_state=random_state).constraints


def noisy_constraints(labels, n_constraints, n_erroneous, *, consistent: bool = True,
                      random_state=None) -> NoisyConstraints:
    """``p`` random constraints of which exactly ``q`` disagree with the labels.

    The protocol of the impact-score paper (Sec. 4.1): equal numbers of must-links and
    cannot-links; an erroneous constraint is a pair whose ground-truth relation is flipped
    (a cannot-link on a same-class pair, a must-link on a different-class pair). Of the
    ``p - q`` correct constraints ``ceil((p-q)/2)`` are ML, of the ``q`` erroneous ones
    ``ceil(q/2)`` are ML (the split measured on the published instances). All ``p`` pairs
    are distinct, drawn uniformly within their class relation.

    Erroneous constraints can contradict each other: an erroneous cannot-link between two
    objects that a chain of must-links ties together leaves no feasible clustering, and
    COP-kmeans, the impact score's upper bound (Sec. 4.3), has nothing to start from. By
    default such a draw is redrawn (``consistent=True``); a cannot-link graph that needs more
    than ``k`` colours is not checked.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    n_constraints : int
        ``p >= 0``.
    n_erroneous : int
        ``0 <= q <= p``.
    consistent : bool, default=True
        Redraw (up to 100 times) while a cannot-link lies inside a must-link chain. A draw
        without that contradiction is the same with either value.
    random_state : int, Generator or None, default=None

    Returns
    -------
    NoisyConstraints
        ``(constraints, erroneous)``; must-links first, each kind in random order.
    """
    y = _check_labels(labels)
    p, q = _check_counts(n_constraints, n_erroneous)
    rng = check_random_state(random_state)
    consistent = check_bool(consistent, "consistent")
    classes = _Classes(y)
    empty = (np.empty((0, 2), np.int64), np.empty(0, np.int8))
    pairs, kinds, erroneous, _ = _consistent_block(classes, _balanced_counts(p, q), rng,
                                                   np.empty(0, np.int64), "", empty, consistent)
    return NoisyConstraints(_constraints(pairs, kinds, classes.n), erroneous)


def random_pair_constraints(labels, n_constraints, *, erroneous: bool = False, consistent: bool = True,
                            random_state=None) -> NoisyConstraints:
    """``p`` distinct pairs drawn uniformly among all pairs, every one correct or every one erroneous.

    The constraint sets of the impact-score paper's Sec. 4.4 (Figs. 9-10, Table 4): a pair
    is a must-link when its objects share a class and a cannot-link otherwise, the other
    way round when ``erroneous`` is true. Unlike :func:`noisy_constraints` the kinds are
    not balanced: the share of must-links follows the share of same-class pairs, as the
    proportions of the paper's Table 4 do (Iris: about a third of all pairs share a class).

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    n_constraints : int
        ``p >= 0``.
    erroneous : bool, default=False
        Flip every pair's ground-truth relation.
    consistent : bool, default=True
        Redraw (up to 100 times) while a cannot-link lies inside a must-link chain, which
        only flipped pairs can cause.
    random_state : int, Generator or None, default=None

    Returns
    -------
    NoisyConstraints
        Rows in the order the pairs were drawn; ``erroneous`` is all ``erroneous``.

    Raises
    ------
    InvalidParameterError
        More pairs than exist, or no consistent draw in 100 attempts.
    """
    y = _check_labels(labels)
    p = _count(n_constraints, "n_constraints")
    erroneous = check_bool(erroneous, "erroneous")
    consistent = check_bool(consistent, "consistent")
    rng = check_random_state(random_state)
    classes = _Classes(y)
    for _ in range(_MAX_REDRAWS):
        pairs = _pairs(_sample_pairs(classes, p, None, rng, np.empty(0, np.int64)), classes.n)
        same = y[pairs[:, 0]] == y[pairs[:, 1]]
        kinds = np.where(same != erroneous, ML, CL).astype(np.int8)
        if not consistent or _is_consistent(pairs, kinds, classes.n):
            return NoisyConstraints(_constraints(pairs, kinds, classes.n), np.full(p, erroneous))
    raise InvalidParameterError(
        f"Could not draw {p} erroneous constraints without a cannot-link inside a must-link chain in "
        f"{_MAX_REDRAWS} attempts; ask for fewer constraints or pass consistent=False.")


def nested_noisy_constraints(labels, fractions: Sequence[float] = (0.15, 0.20), *,
                             error_fraction: float = 1 / 3, consistent: bool = True,
                             random_state=None) -> dict[str, NoisyConstraints]:
    """Nested constraint sets with a fixed share of erroneous ones (impact-score Tables 2-3).

    For each fraction ``f`` (ascending): ``p = ceil(f n)`` constraints of which
    ``q = ceil(error_fraction * p)`` are erroneous, half of each ML as in
    :func:`noisy_constraints`. The set of a larger ``f`` is the set of the smaller one plus
    new constraints ("obtained by adding new constraints", Sec. 4.3): it starts with
    exactly the smaller set's rows, in the same order.

    The paper's text (``q = ceil(p/3)``, nested sets) is followed here. The published sets
    in ``shared/datasets`` differ: there ``q = floor(p/3)`` and the p20 set does not
    contain the p15 set.

    With ``consistent=True`` each added block is redrawn while the grown set has a
    cannot-link inside a must-link chain (see :func:`noisy_constraints`); the smaller sets
    are kept as drawn.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    fractions : sequence of float in (0, 1], default=(0.15, 0.20)
        Distinct in percent: two fractions with the same ``round(100 f)`` are refused.
    error_fraction : float in [0, 1], default=1/3
    consistent : bool, default=True
    random_state : int, Generator or None, default=None

    Returns
    -------
    dict of str to NoisyConstraints
        Keyed ``"p15"``, ``"p20"``, ... (``round(100 f)``), in ascending ``f``.
    """
    y = _check_labels(labels)
    fracs = _check_fractions(fractions, "fractions")
    keys = _set_keys(fracs, "p")
    err = check_fraction(error_fraction, "error_fraction", allow_zero=True)
    rng = check_random_state(random_state)
    consistent = check_bool(consistent, "consistent")
    classes = _Classes(y)
    n = classes.n

    out: dict[str, NoisyConstraints] = {}
    pairs = np.empty((0, 2), np.int64)
    kinds = np.empty(0, np.int8)
    erroneous = np.empty(0, bool)
    taken = np.empty(0, np.int64)
    have = (0, 0, 0, 0)
    for f, key in zip(fracs, keys, strict=True):
        p = _ceil_times(f, n)
        target = _balanced_counts(p, _ceil_times(err, p))
        # Both ceil((p-q)/2) and ceil(q/2) are non-decreasing in f, so increments are >= 0.
        increment = tuple(t - h for t, h in zip(target, have, strict=True))
        new_pairs, new_kinds, new_err, codes = _consistent_block(
            classes, increment, rng, taken, f" for fraction {f}", (pairs, kinds), consistent)
        pairs = np.vstack([pairs, new_pairs])
        kinds = np.concatenate([kinds, new_kinds])
        erroneous = np.concatenate([erroneous, new_err])
        taken = np.concatenate([taken, codes])
        have = target
        out[key] = NoisyConstraints(_constraints(pairs, kinds, n), erroneous.copy())
    return out


# ----------------------------------------------------------------------------- CS sets
_SAMPLINGS = ("complete", "pairs")


def _check_sampling(sampling) -> str:
    if sampling not in _SAMPLINGS:
        raise InvalidParameterError(
            f"Unknown sampling {sampling!r}; valid values are 'complete' and 'pairs'.")
    return sampling


def _cs_codes(classes: _Classes, fractions: list[float], sampling: str, rng) -> dict[float, np.ndarray]:
    """Nested pair codes for every fraction (prefixes of one random draw)."""
    n = classes.n
    sizes = {f: _ceil_times(f, n) for f in fractions}
    out = {}
    if sampling == "complete":
        order = rng.permutation(n)
        for f in fractions:
            sample = np.sort(order[:sizes[f]])
            a, b = np.triu_indices(sample.shape[0], 1)
            out[f] = (sample[a] * n + sample[b]).astype(np.int64)
        return out
    largest = max(sizes.values())
    codes = _sample_pairs(classes, largest * (largest - 1) // 2, None, rng, np.empty(0, np.int64))
    for f in fractions:
        out[f] = codes[: sizes[f] * (sizes[f] - 1) // 2]
    return out


def cs_constraints(labels, fraction, *, sampling: str = "complete", random_state=None) -> Constraints:
    """A noise-free CS set: ``n_f (n_f - 1) / 2`` pairs, ``n_f = ceil(f n)``, kinds from labels.

    Two readings of "the procedure of González-Almagro et al. (2020)" exist and both are
    offered:

    ``sampling="complete"`` (default)
        Draw ``n_f`` objects and constrain *every* pair among them (the complete graph on
        the sample, labelled from the ground truth), the DILS reading that the pair count
        ``n_f (n_f - 1) / 2`` suggests.
    ``sampling="pairs"``
        Draw ``n_f (n_f - 1) / 2`` distinct pairs uniformly among all ``n (n - 1) / 2``,
        as the BH-kmeans paper draws its noisy sets (Sec. 5.1). The authors' published
        Iris and Wine sets are pairs too (``iris(0.05).txt``: 28 pairs touching 48 objects,
        not 8), but only that one fits uniform sampling; in the seven others every pair lies
        in the first half or so of the enumeration ``(0, 1), (0, 2), ..., (1, 2), ...``
        (``published_set_structure`` in ``benchmarks/bench_bh_kmeans.py``).

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    fraction : float in (0, 1]
        ``f``; 0.05, 0.10, 0.15, 0.20 give CS5..CS20.
    sampling : {"complete", "pairs"}, default="complete"
    random_state : int, Generator or None, default=None

    Returns
    -------
    Constraints
        Pairs ``(i, j)`` with ``i < j``; for "complete" in lexicographic order, for "pairs"
        in draw order. Empty when ``n_f < 2``.
    """
    fraction = check_fraction(fraction, "fraction")
    return next(iter(cs_constraint_sets(labels, (fraction,), sampling=sampling,
                                        random_state=random_state, suffix="").values()))


def cs_constraint_sets(labels, fractions: Sequence[float] = (0.05, 0.10, 0.15, 0.20), *,
                       sampling: str = "complete", random_state=None,
                       suffix: str = "-regenerated") -> dict[str, Constraints]:
    """CS5..CS20-style sets for one data set, nested, labelled as regenerated.

    ``shared/datasets`` holds the published sets only for Iris and Wine (the BH-kmeans
    regenerated ones); for the other data sets of the DILS/BH-kmeans benchmark this
    produces seeded stand-ins. The keys carry ``suffix`` (default ``"-regenerated"``) so a
    table can never pass them off as the originals. The sets are nested: the objects (or
    pairs) of a smaller fraction are a prefix of those of a larger one.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    fractions : sequence of float in (0, 1], default=(0.05, 0.10, 0.15, 0.20)
        Distinct in percent: two fractions with the same ``round(100 f)`` are refused.
    sampling : {"complete", "pairs"}, default="complete"
        See :func:`cs_constraints`.
    random_state : int, Generator or None, default=None
    suffix : str, default="-regenerated"

    Returns
    -------
    dict of str to Constraints
        Keyed ``"CS5-regenerated"``, ... (``round(100 f)``), in ascending ``f``.
    """
    y = _check_labels(labels)
    fracs = _check_fractions(fractions, "fractions")
    keys = _set_keys(fracs, "CS", suffix)
    sampling = _check_sampling(sampling)
    rng = check_random_state(random_state)
    classes = _Classes(y)
    n = classes.n
    codes = _cs_codes(classes, fracs, sampling, rng)
    out = {}
    for f, key in zip(fracs, keys, strict=True):
        pairs = _pairs(codes[f], n)
        kinds = np.where(y[pairs[:, 0]] == y[pairs[:, 1]], ML, CL).astype(np.int8)
        out[key] = _constraints(pairs, kinds, n)
    return out


def _flip(kinds: np.ndarray, mask: np.ndarray) -> np.ndarray:
    out = kinds.copy()
    out[mask] = -out[mask]
    return out


def noisy_pair_constraints(labels, noise, *, fraction: float = 0.1, sampling: str = "pairs",
                           random_state=None) -> NoisyConstraints:
    """Constraints with noise level ``q`` (BH-kmeans, Sec. 5.1).

    ``n_f (n_f - 1) / 2`` distinct random pairs, ``n_f = ceil(fraction * n)``, each made ML
    or CL from the ground truth; then a fraction ``q`` of the ML pairs is relabelled CL and
    a fraction ``q`` of the CL pairs relabelled ML. "A fraction q of m pairs" is read as
    ``round(q m)`` pairs (halves rounded up), chosen uniformly.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    noise : float in [0, 1]
        ``q``; the paper uses 0, 0.05, ..., 0.4.
    fraction : float in (0, 1], default=0.1
    sampling : {"pairs", "complete"}, default="pairs"
        How the pairs are drawn (see :func:`cs_constraints`); the paper draws pairs.
    random_state : int, Generator or None, default=None

    Returns
    -------
    NoisyConstraints
        Rows in the order the pairs were drawn, ``erroneous`` marks the flipped ones.
    """
    y = _check_labels(labels)
    q = check_fraction(noise, "noise", allow_zero=True)
    f = check_fraction(fraction, "fraction")
    sampling = _check_sampling(sampling)
    rng = check_random_state(random_state)
    classes = _Classes(y)
    pairs = _pairs(_cs_codes(classes, [f], sampling, rng)[f], classes.n)
    kinds = np.where(y[pairs[:, 0]] == y[pairs[:, 1]], ML, CL).astype(np.int8)
    erroneous = np.zeros(kinds.shape[0], dtype=bool)
    for kind in (ML, CL):
        members = np.flatnonzero(kinds == kind)
        n_flip = _round_half_up(q * members.shape[0])
        erroneous[rng.choice(members, size=n_flip, replace=False)] = True
    return NoisyConstraints(_constraints(pairs, _flip(kinds, erroneous), classes.n), erroneous)


# ----------------------------------------------------------------------------- LCC
def lcc_constraints(labels, n_constraints, *, n_erroneous: int = 0, random_state=None) -> NoisyConstraints:
    """Constraints by LCC's protocol (Ganji et al. 2016, Sec. 4.1 and 4.4).

    "For generating each of must-link (cannot-link) constraints, we pick a random instance
    and then randomly pick another instance from the same (different) cluster", equally
    divided (``ceil(p/2)`` ML). A repeated or self pair is redrawn, so all pairs are
    distinct; an object that is alone in its class is never the first object of a must-link.
    For the noise experiment (Sec. 4.4) ``n_erroneous`` randomly chosen constraints then
    have their kind flipped so that they disagree with the ground truth.

    Note the distribution differs from :func:`correct_constraints`: objects of small
    classes take part in more must-links than under uniform pair sampling.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    n_constraints : int
        ``p``; the paper uses n/4, n/2 and n.
    n_erroneous : int, default=0
    random_state : int, Generator or None, default=None

    Returns
    -------
    NoisyConstraints
        ML rows first, then CL rows, in draw order; ``erroneous`` marks the flipped ones.
    """
    y = _check_labels(labels)
    p, q = _check_counts(n_constraints, n_erroneous)
    rng = check_random_state(random_state)
    classes = _Classes(y)
    n_ml, n_cl = (p + 1) // 2, p // 2
    ml = _sample_pairs(classes, n_ml, True, rng, np.empty(0, np.int64), draw=_draw_object_first)
    cl = _sample_pairs(classes, n_cl, False, rng, np.empty(0, np.int64), draw=_draw_object_first)
    pairs = _pairs(np.concatenate([ml, cl]), classes.n)
    kinds = np.concatenate([np.full(n_ml, ML), np.full(n_cl, CL)]).astype(np.int8)
    erroneous = np.zeros(p, dtype=bool)
    erroneous[rng.choice(p, size=q, replace=False)] = True
    return NoisyConstraints(_constraints(pairs, _flip(kinds, erroneous), classes.n), erroneous)


# ----------------------------------------------------------------------------- Jia et al.
def ml_dcl_constraints(labels, n_ml_sets: int, n_cl_sets: int, set_size: int = 2, *,
                       random_state=None) -> ConstraintSets:
    """Must-link sets and disjoint cannot-link sets of size ``r`` (Jia et al., Sec. 6.1.3).

    Each ML set is ``r`` objects drawn from one class (the class drawn uniformly among those
    with ``r`` objects left); ML sets are disjoint. Each DCL set draws ``r`` distinct classes
    and one unit from each, where a unit is a free object or a whole ML set ("we regard each
    constructed ML set as a merged single point and the sampling is done without
    replacement"); from an ML set one member joins the DCL set. Hence DCL sets are disjoint
    and every ML set meets at most one DCL set.

    The extracted text says "r < k labels"; a DCL set of ``r = k`` objects (one per class)
    satisfies every condition of the section, so ``r <= k`` is accepted.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    n_ml_sets, n_cl_sets : int
        Number of ML and DCL sets (``>= 0``).
    set_size : int, default=2
        ``r >= 2``; each set yields ``r (r - 1) / 2`` pairwise constraints.
    random_state : int, Generator or None, default=None

    Returns
    -------
    ConstraintSets
        ``(constraints, ml_sets, cl_sets)``.
    """
    y = _check_labels(labels)
    n_ml = _count(n_ml_sets, "n_ml_sets")
    n_dcl = _count(n_cl_sets, "n_cl_sets")
    r = check_positive_int(set_size, "set_size", minimum=2)
    rng = check_random_state(random_state)
    n = y.shape[0]
    k = int(y.max()) + 1

    free = [list(rng.permutation(np.flatnonzero(y == c))) for c in range(k)]
    ml_sets = []
    for s in range(n_ml):
        eligible = [c for c in range(k) if len(free[c]) >= r]
        if not eligible:
            raise InvalidParameterError(
                f"Cannot form must-link set {s + 1} of {n_ml}: no class has {r} objects left "
                "outside the earlier sets. Ask for fewer or smaller sets.")
        c = eligible[rng.integers(len(eligible))]
        ml_sets.append(np.sort(np.array(free[c][:r], dtype=np.int64)))
        del free[c][:r]

    # Units per class: ML sets (as lists) and free objects (as 1-element lists).
    units = [[list(m) for m in ml_sets if y[m[0]] == c] + [[o] for o in free[c]] for c in range(k)]
    if n_dcl and r > k:
        raise InvalidParameterError(
            f"A cannot-link set of size {r} needs {r} different classes; the labels have {k}.")
    cl_sets = []
    for s in range(n_dcl):
        eligible = [c for c in range(k) if units[c]]
        if len(eligible) < r:
            raise InvalidParameterError(
                f"Cannot form cannot-link set {s + 1} of {n_dcl}: only {len(eligible)} classes "
                f"have unused objects, {r} are needed. Ask for fewer or smaller sets.")
        chosen = rng.choice(eligible, size=r, replace=False)
        members = []
        for c in chosen:
            unit = units[c].pop(int(rng.integers(len(units[c]))))
            members.append(unit[int(rng.integers(len(unit)))])
        cl_sets.append(np.sort(np.array(members, dtype=np.int64)))

    a, b = np.triu_indices(r, 1)
    ml_pairs = [m[a] for m in ml_sets], [m[b] for m in ml_sets]
    cl_pairs = [m[a] for m in cl_sets], [m[b] for m in cl_sets]

    def stack(parts):
        if not parts[0]:
            return np.empty((0, 2), np.int64)
        return np.column_stack([np.concatenate(parts[0]), np.concatenate(parts[1])])

    pairs = np.vstack([stack(ml_pairs), stack(cl_pairs)])
    kinds = np.concatenate([np.full(len(ml_sets) * a.shape[0], ML),
                            np.full(len(cl_sets) * a.shape[0], CL)]).astype(np.int8)
    return ConstraintSets(_constraints(pairs, kinds, n), ml_sets, cl_sets)


# ----------------------------------------------------------------------------- synthetic data
def make_gaussian_clusters(n_samples: int = 100, n_clusters: int = 2, *, n_features: int = 2,
                           center_std: float = 5.0, cluster_std: float = 0.5,
                           random_state=None, return_centers: bool = False):
    """Gaussian clusters of the impact-score paper (Sec. 4.1, Table 1).

    Cluster centres have coordinates drawn from :math:`\\mathcal{N}(0, 5)` and points of
    cluster ``c`` from :math:`\\mathcal{N}(x_c, 0.5)` per coordinate; clusters are equally
    sized (the first ``n mod k`` get one extra object) and the objects are ordered by label.

    Reading of :math:`\\mathcal{N}(\\mu, s)`: ``s`` is a **standard deviation**. On the 500
    published instances (``shared/datasets/lagrangian_synthetic``) the centre coordinates
    have standard deviation 4.96 and 5.08 (a variance of 5 would give 2.24), so ``center_std
    = 5``. Their points, however, scatter with a pooled within-cluster standard deviation of
    0.223 (variance 0.0498), matching neither 0.5 (std) nor 0.707 (variance 0.5): the
    published instances are tighter than the text says. The default follows the text
    (``cluster_std=0.5``); pass ``cluster_std=0.2236`` (``sqrt(0.05)``) to match the
    published spread, or larger values for overlapping clusters.

    Parameters
    ----------
    n_samples : int, default=100
    n_clusters : int, default=2
    n_features : int, default=2
    center_std : float, default=5.0
        Standard deviation of the centre coordinates.
    cluster_std : float, default=0.5
        Standard deviation of every coordinate around its centre.
    random_state : int, Generator or None, default=None
    return_centers : bool, default=False

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of int64, shape (n_samples,)
    centers : ndarray of shape (n_clusters, n_features)
        Only when ``return_centers`` is True.
    """
    n = check_positive_int(n_samples, "n_samples")
    k = check_positive_int(n_clusters, "n_clusters")
    if k > n:
        raise InvalidParameterError(f"n_samples={n} should be >= n_clusters={k}.")
    d = check_positive_int(n_features, "n_features")
    center_std = check_nonnegative(center_std, "center_std")
    cluster_std = check_nonnegative(cluster_std, "cluster_std")
    rng = check_random_state(random_state)
    centers = rng.normal(0.0, center_std, size=(k, d))
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    labels = np.repeat(np.arange(k, dtype=np.int64), sizes)
    X = centers[labels] + rng.normal(0.0, cluster_std, size=(n, d))
    return (X, labels, centers) if return_centers else (X, labels)


def synthetic_instance(n_samples: int, n_clusters: int, constraint_fraction: float,
                       error_fraction: float, *, cluster_std: float = 0.5, center_std: float = 5.0,
                       random_state=None) -> SyntheticInstance:
    """One data set of the impact-score design with ``p`` constraints, ``q`` of them erroneous.

    ``p = ceil(constraint_fraction * n)`` and ``q = ceil(error_fraction * p)`` (Sec. 4.1);
    the constraints follow :func:`noisy_constraints`, the data :func:`make_gaussian_clusters`.

    Parameters
    ----------
    n_samples, n_clusters : int
    constraint_fraction : float in (0, 1]
    error_fraction : float in [0, 1]
    cluster_std : float, default=0.5
    center_std : float, default=5.0
    random_state : int or None, default=None
        An int seed (stored in the instance); a Generator is turned into a seed.

    Returns
    -------
    SyntheticInstance
    """
    pf = check_fraction(constraint_fraction, "constraint_fraction")
    qf = check_fraction(error_fraction, "error_fraction", allow_zero=True)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        seed = int(check_positive_int(random_state, "random_state", minimum=0))
    else:
        seed = int(check_random_state(random_state).integers(0, 2**63 - 1))
    rng = np.random.default_rng(seed)
    X, labels = make_gaussian_clusters(n_samples, n_clusters, center_std=center_std,
                                       cluster_std=cluster_std, random_state=rng)
    p = _ceil_times(pf, labels.shape[0])
    q = _ceil_times(qf, p)
    cons, erroneous = noisy_constraints(labels, p, q, random_state=rng)
    X.setflags(write=False)
    labels.setflags(write=False)
    erroneous.setflags(write=False)
    return SyntheticInstance(X, labels, cons, erroneous, int(n_clusters), pf, qf, seed)


def synthetic_design(n_instances: int = 500, *, sizes: Sequence[int] = (100, 200, 300, 400, 500),
                     n_clusters: Sequence[int] = (2, 5, 10, 15),
                     constraint_fractions: Sequence[float] = (0.05, 0.10, 0.15, 0.20),
                     error_fractions: Sequence[float] = (0.05, 0.10, 0.15, 0.20),
                     cluster_std: float = 0.5, center_std: float = 5.0,
                     random_state=0) -> list[SyntheticInstance]:
    """The factorial design of the impact-score paper (Sec. 4.1, Table 1).

    For every instance, ``n``, ``k``, ``p / n`` and ``q / p`` are drawn uniformly from the
    four lists (Table 1), then :func:`synthetic_instance` builds it from its own seed, so
    instance ``i`` can be rebuilt alone from ``design[i].seed``.

    Parameters
    ----------
    n_instances : int, default=500
    sizes : sequence of int, default=(100, 200, 300, 400, 500)
    n_clusters : sequence of int, default=(2, 5, 10, 15)
    constraint_fractions : sequence of float, default=(0.05, 0.10, 0.15, 0.20)
    error_fractions : sequence of float, default=(0.05, 0.10, 0.15, 0.20)
    cluster_std : float, default=0.5
        See :func:`make_gaussian_clusters` for the spread of the published instances.
    center_std : float, default=5.0
    random_state : int, Generator or None, default=0

    Returns
    -------
    list of SyntheticInstance
    """
    count = _count(n_instances, "n_instances")
    size_opts = [check_positive_int(s, "sizes") for s in sizes]
    k_opts = [check_positive_int(k, "n_clusters") for k in n_clusters]
    p_opts = [check_fraction(f, "constraint_fractions") for f in constraint_fractions]
    q_opts = [check_fraction(f, "error_fractions", allow_zero=True) for f in error_fractions]
    for name, opts in (("sizes", size_opts), ("n_clusters", k_opts),
                       ("constraint_fractions", p_opts), ("error_fractions", q_opts)):
        if not opts:
            raise InvalidParameterError(f"{name} must not be empty.")
    if max(k_opts) > min(size_opts):
        raise InvalidParameterError(
            f"n_clusters up to {max(k_opts)} do not fit data sets of {min(size_opts)} objects.")
    rng = check_random_state(random_state)
    ns = rng.choice(size_opts, size=count)
    ks = rng.choice(k_opts, size=count)
    pfs = rng.choice(p_opts, size=count)
    qfs = rng.choice(q_opts, size=count)
    seeds = rng.integers(0, 2**63 - 1, size=count)
    return [synthetic_instance(int(ns[t]), int(ks[t]), float(pfs[t]), float(qfs[t]),
                               cluster_std=cluster_std, center_std=center_std,
                               random_state=int(seeds[t]))
            for t in range(count)]
