"""k-means on must-link super-instances: the baseline of the constrained k-means family.

The must-link constraints are contracted into super-instances (connected components of the
must-link graph, :class:`~ccopt.constraints.MustLinkClosure`); weighted Lloyd iterations
run on the super-instance positions with their sizes as weights, and the labels are
expanded back to the objects. Every must-link is therefore satisfied; cannot-links are
ignored (this is the "k-means on super-instances" baseline that COP-kmeans, PCKmeans and
LCC are compared with).

Since the squared distances of the objects of a super-instance ``s`` (mean ``X_s``, size
``w_s``) to a centre ``mu`` add up to

.. math::

    \\sum_{i \\in s} \\lVert x_i - \\mu \\rVert^2
    = w_s \\lVert X_s - \\mu \\rVert^2 + \\sum_{i \\in s} \\lVert x_i - X_s \\rVert^2,

weighted k-means on super-instances minimises exactly the within-cluster sum of squares
(WCSS) of the objects over the labellings that keep every must-link group together.

This module also holds the small kernels shared by :mod:`~ccopt.cluster._cop_kmeans`,
:mod:`~ccopt.cluster._pckmeans` and :mod:`~ccopt.cluster._lcc` (weighted means, the Lloyd
loop, parameter checks, adjacency lists, the function-twin wrapper).
"""

from __future__ import annotations

import hashlib
import logging
import numbers
from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.sparse as sp

from ccopt._progress import progress_bar
from ccopt._timing import Deadline
from ccopt._validation import (
    check_choice,
    check_data,
    check_distance_range,
    check_n_clusters,
    check_nonnegative,
    check_positive_int,
)
from ccopt._warnings import warn_user
from ccopt.cluster._base import ConstrainedClusterer, FitOutcome, function_twin
from ccopt.cluster._init_centers import kmeanspp, squared_distances
from ccopt.constraints import ML, Constraints, MustLinkClosure
from ccopt.exceptions import CcoptWarning, ConvergenceWarning, InvalidParameterError
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["KMeans", "kmeans"]

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- shared checks
def _check_init(init, choices: tuple[str, ...], problem: ClusteringProblem):
    """Return ``init`` as one of ``choices`` or as a float array of shape (k, d)."""
    if isinstance(init, str):
        return check_choice(init, "init", choices)
    centers = check_data(init, name="init")
    n_clusters, n_features = problem.n_clusters, problem.n_features
    if centers.shape != (n_clusters, n_features):
        raise InvalidParameterError(
            f"init must have shape (n_clusters, n_features) = ({n_clusters}, {n_features}), "
            f"got {centers.shape}."
        )
    check_distance_range(centers, "init", n_samples=problem.n_samples)
    return centers


def _check_tol(tol) -> float:
    return check_nonnegative(tol, "tol")


def _check_real_at_least(value, name: str, minimum: float, *, strict: bool) -> float:
    """A finite real number ``> minimum`` (strict) or ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    ok = np.isfinite(value) and (value > minimum if strict else value >= minimum)
    if not ok:
        relation = ">" if strict else ">="
        raise InvalidParameterError(f"{name} must be finite and {relation} {minimum}, got {value}.")
    return value


def _absolute_tol(X: np.ndarray, tol: float) -> float:
    """Centre-shift tolerance relative to the data scale (as scikit-learn's KMeans)."""
    return float(np.var(X, axis=0).mean() * tol) if tol > 0 else 0.0


# --------------------------------------------------------------------------- closures
def _ml_closure(problem: ClusteringProblem) -> MustLinkClosure:
    """Closure of the must-links alone (cannot-links play no part, so none can make it fail)."""
    cons = problem.constraints
    if cons.n_cl == 0:
        return problem.closure
    ml = cons.ml_pairs
    sub = Constraints(ml, np.full(ml.shape[0], ML, dtype=np.int8), n_samples=problem.n_samples,
                      _row_name=partial(_subset_row_name, cons, cons.ml_indices),
                      _warn_duplicates=False)
    return sub.closure


def _subset_row_name(constraints: Constraints, positions: np.ndarray, r: int) -> str:
    """Name of row ``r`` of the subset of ``constraints`` taken at ``positions``.

    Bound with :func:`functools.partial` rather than written as a lambda, so that whatever
    keeps such a subset (a model, a fitted estimator) can be pickled.
    """
    return constraints.row_name(int(positions[r]))


def _within_scatter(X: np.ndarray, closure: MustLinkClosure, points: np.ndarray) -> float:
    """Sum of squared distances of the objects to their super-instance's mean (a constant)."""
    if closure.n_super == X.shape[0]:
        return 0.0
    return float(((X - points[closure.component]) ** 2).sum())


# --------------------------------------------------------------------------- kernels
def _weighted_means(points: np.ndarray, weights: np.ndarray, labels: np.ndarray, k: int,
                    previous: np.ndarray) -> np.ndarray:
    """Weighted mean of each cluster; an empty cluster keeps its previous centre."""
    n = points.shape[0]
    member = sp.csr_matrix((weights, (labels, np.arange(n))), shape=(k, n))
    sums = np.asarray(member @ points)
    totals = np.bincount(labels, weights=weights, minlength=k)
    centers = previous.copy()
    filled = totals > 0
    centers[filled] = sums[filled] / totals[filled, None]
    return centers


def _weighted_cost(points: np.ndarray, weights: np.ndarray, labels: np.ndarray,
                   centers: np.ndarray) -> float:
    """``sum_s w_s ||X_s - mu_{l_s}||^2``."""
    diff = points - centers[labels]
    return float(weights @ np.einsum("ij,ij->i", diff, diff))


@dataclass
class _LloydRun:
    labels: np.ndarray
    centers: np.ndarray
    n_iter: int
    status: Status
    history: list


def _alternate(assign, points: np.ndarray, weights: np.ndarray, centers: np.ndarray, *,
               max_iter: int, tol_abs: float, deadline: Deadline, record=None):
    """Alternate an assignment step with the weighted-mean update (the Lloyd scheme).

    ``assign(centers, previous_labels)`` returns the labels of the points (``previous_labels``
    is ``None`` in the first iteration) or, to abandon the run, any other object, which is
    returned as is (a dead end). The loop stops when the clusters do not change, their
    numbers aside (``converged``), when the centres moved by at most ``tol_abs`` in total
    squared distance (``converged``), when the labels repeat an earlier iteration's
    (``stagnation``: the assignment is a function of the labels through the centres, so the
    run would cycle for ever — COP-kmeans' greedy pass can), on ``max_iter``, on the
    deadline or on KeyboardInterrupt once a
    labelling exists (``interrupted``; before that the interrupt propagates). On return the
    centres are the weighted means of the returned labels (an empty cluster keeps its last
    centre). ``record(labels, centers)``, if given, is called after every assignment and its
    values are returned as the history.
    """
    k = centers.shape[0]
    labels = None
    status = Status.ITERATION_LIMIT
    history: list = []
    seen: set[bytes] = set()
    n_iter = 0
    try:
        for n_iter in range(1, max_iter + 1):  # noqa: B007 - n_iter is reported
            new_labels = assign(centers, labels)
            if not isinstance(new_labels, np.ndarray):
                return new_labels
            if record is not None:
                history.append(record(new_labels, centers))
            if labels is not None and _same_partition(labels, new_labels):
                if not np.array_equal(new_labels, labels):
                    # The same clusters under other numbers (COP-kmeans' greedy pass can swap
                    # two): the same centres, permuted, so a fixed point all the same.
                    labels = new_labels
                    centers = _weighted_means(points, weights, labels, k, centers)
                status = Status.CONVERGED
                break
            digest = hashlib.blake2b(new_labels.tobytes(), digest_size=16).digest()
            if digest in seen:
                labels = new_labels
                centers = _weighted_means(points, weights, labels, k, centers)
                status = Status.STAGNATION
                break
            seen.add(digest)
            labels = new_labels
            new_centers = _weighted_means(points, weights, labels, k, centers)
            shift = float(((new_centers - centers) ** 2).sum())
            centers = new_centers
            if shift <= tol_abs:
                status = Status.CONVERGED
                break
            if deadline.expired():
                status = Status.TIME_LIMIT
                break
    except KeyboardInterrupt:
        if labels is None:
            raise
        # The interrupt may fall between the labels and their centres: recompute the means.
        centers = _weighted_means(points, weights, labels, k, centers)
        status = Status.INTERRUPTED
    return _LloydRun(labels, centers, n_iter, status, history)


def _same_partition(labels: np.ndarray, new_labels: np.ndarray) -> bool:
    """Whether two labellings (non-negative cluster numbers) form the same clusters, numbers aside."""
    if np.array_equal(labels, new_labels):
        return True
    # A map from the old numbers to the new ones that reproduces new_labels and is one-to-one.
    image = np.full(int(labels.max()) + 1, -1, dtype=np.int64)
    image[labels] = new_labels
    used = image[image >= 0]
    return bool(np.array_equal(image[labels], new_labels) and np.unique(used).size == used.size)


def _partition_key(labels: np.ndarray) -> bytes:
    """The clusters of ``labels`` whatever their numbers: renumbered in order of first appearance.

    Equal keys mean :func:`_same_partition`; a key can also be remembered, to meet a partition
    again after several steps (GreedyMLKMeans' cycles).
    """
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse].astype(np.int64).tobytes()


def _cut_short(run_status: Status | None, deadline: Deadline) -> Status | None:
    """Why the restarts after a run with ``run_status`` (``None``: a dead end) must not go
    on, or ``None``."""
    if run_status is Status.INTERRUPTED:
        return Status.INTERRUPTED
    if deadline.expired():
        return Status.TIME_LIMIT
    return None


@dataclass
class _Restarts:
    """What a series of restarts left: the cheapest run, its cost, the dead ends, and why
    the series ended early (``cut_short``: ``time_limit`` or ``interrupted``), if it did."""

    runs: int
    best: _LloydRun | None = None
    cost: float = np.inf
    tried: int = 0
    n_dead: int = 0
    last_dead: object = None
    cut_short: Status | None = None

    @property
    def status(self) -> Status:
        return self.cut_short or self.best.status

    @property
    def timed_out(self) -> bool:
        """The time limit ended the series before every restart ran."""
        return self.cut_short is Status.TIME_LIMIT and self.tried < self.runs


def _restarts(runs: int, one_run, cost, deadline: Deadline, bar) -> _Restarts:
    """Call ``one_run()`` up to ``runs`` times and keep the run of lowest ``cost(run)``.

    ``one_run`` returns a :class:`_LloydRun` or a dead end (any other object, as
    :func:`_alternate` does), which is counted. The series stops on the deadline, and on
    Ctrl-C once some run exists (an interrupt before that propagates).
    """
    out = _Restarts(runs)
    try:
        for _ in range(runs):
            run = one_run()
            out.tried += 1
            bar.update()
            if isinstance(run, _LloydRun):
                run_cost = cost(run)
                if run_cost < out.cost:
                    out.best, out.cost = run, run_cost
                out.cut_short = _cut_short(run.status, deadline)
            else:
                out.n_dead, out.last_dead = out.n_dead + 1, run
                logger.debug("restart %d: dead end", out.tried)
                out.cut_short = _cut_short(None, deadline)
            if out.cut_short is not None:
                break
    except KeyboardInterrupt:
        if out.best is None:  # nothing to return yet
            raise
        out.cut_short = Status.INTERRUPTED
    return out


def _lloyd(points: np.ndarray, weights: np.ndarray, centers: np.ndarray, *, max_iter: int,
           tol_abs: float, deadline: Deadline) -> _LloydRun:
    """Weighted Lloyd iterations from ``centers`` (nearest-centre assignment)."""
    def nearest(current, _previous):
        return np.argmin(squared_distances(points, current), axis=1)

    return _alternate(nearest, points, weights, centers, max_iter=max_iter, tol_abs=tol_abs,
                      deadline=deadline)


# --------------------------------------------------------------------------- adjacency
def _adjacency(n_nodes: int, pairs: np.ndarray, data: np.ndarray):
    """Symmetric adjacency lists as CSR arrays ``(indptr, indices, data)``.

    Unlike :class:`scipy.sparse.csr_matrix`, repeated edges are kept apart (their data
    are labels, not numbers to add). Node ``v``'s neighbours are
    ``indices[indptr[v]:indptr[v + 1]]``, ordered by the position of their edge.
    """
    if pairs.shape[0] == 0:
        return (np.zeros(n_nodes + 1, dtype=np.int64), np.empty(0, dtype=np.int64),
                np.empty(0, dtype=data.dtype))
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]])
    vals = np.concatenate([data, data])
    order = np.lexsort((np.concatenate([np.arange(pairs.shape[0])] * 2), rows))
    indptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_nodes), out=indptr[1:])
    return indptr, cols[order].astype(np.int64), vals[order]


# --------------------------------------------------------------------------- estimator
class KMeans(ConstrainedClusterer):
    """k-means on must-link super-instances (weighted Lloyd, k-means++ start).

    Must-links are contracted, so every one is satisfied; cannot-links are ignored (they
    are still counted in ``n_violations_``). Without constraints this is plain k-means.

    KMeans does not honour ``hard`` flags: a cannot-link flagged hard is ignored like any
    other, and even an infeasible hard set (a cannot-link triangle with ``n_clusters=2``)
    gets a labelling, where COPKMeans, PCKMeans, BHKMeans and PCS raise
    :class:`~ccopt.exceptions.InfeasibleConstraintsError`. Per-constraint weights are not
    used either. :meth:`fit` warns when cannot-links are given (counting the hard ones) and
    when a weight other than 1 is.

    Parameters
    ----------
    n_clusters : int
        Number of clusters ``k``; at most the number of must-link groups.
    init : {"k-means++"} or array-like of shape (n_clusters, n_features), default="k-means++"
        Weighted k-means++ on the super-instances (:func:`~ccopt.cluster._init_centers.kmeanspp`),
        or given starting centres (then a single run is made whatever ``n_init``).
    n_init : int, default=10
        Restarts from different k-means++ seeds; the run with the lowest WCSS is kept.
    max_iter : int, default=300
        Lloyd iterations per run.
    tol : float, default=1e-4
        Stop when the centres move by at most ``tol`` times the mean feature variance (total
        squared shift), or when no label changes.
    random_state : int, numpy.random.Generator or None, default=None
    time_limit : float or None, default=None
        Seconds; the best run so far is returned when it expires (status ``time_limit``).
    progress : bool or "always", default=True
        A progress bar over the restarts, drawn on a terminal at the first step that ends after a second
        (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Means of the clusters (an empty cluster keeps its last centre).
    objective_ : float
        WCSS of the objects with respect to ``cluster_centers_`` (the k-means objective).
    inertia_ : float
        WCSS of ``labels_`` (equal to ``objective_`` when no cluster is empty).
    n_violations_ : dict
        ``{"ml": 0, "cl": int, "total": int}``.
    constraints_, violations_, violated_
        The constraints used and which of them ``labels_`` violates: ``violations_`` by
        position in ``constraints_`` (duplicates merged), ``violated_`` per row as given;
        see :class:`~ccopt.cluster._base.ConstrainedClusterer`.
    n_iter_ : int
        Lloyd iterations of the kept run.
    status_ : Status
        ``converged``, ``iteration_limit``, ``time_limit`` or ``interrupted`` (Ctrl-C: the
        best run so far) (``stagnation`` only if labels cycle, which exact ties could cause).
    n_super_instances_ : int
        Number of must-link groups the data was contracted to.

    Raises
    ------
    InfeasibleConstraintsError
        ``n_clusters`` larger than the number of must-link groups.
    InvalidParameterError
        A bad ``init``, ``n_init``, ``max_iter``, ``tol`` or ``time_limit``.

    Warns
    -----
    CcoptWarning
        Cannot-links are given (KMeans ignores them; one warning says how many, how many
        ``labels_`` violates and how many are marked hard, those inside must-link chains
        included), or a constraint has a weight other than 1 (ignored).
    ConvergenceWarning
        A run stopped on ``max_iter``, or ``labels_`` leaves a cluster empty.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.cluster import KMeans
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> km = KMeans(2, random_state=0).fit(X, ml=[(1, 2)])
    >>> bool(km.labels_[1] == km.labels_[2])
    True
    """

    _single_blas_thread = True
    _ignores_hard_and_weights = True
    _ignores_cannot_links = True

    def __init__(self, n_clusters, *, init="k-means++", n_init=10, max_iter=300, tol=1e-4,
                 random_state=None, time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        k = problem.n_clusters
        init = _check_init(self.init, ("k-means++",), problem)
        n_init = check_positive_int(self.n_init, "n_init")
        max_iter = check_positive_int(self.max_iter, "max_iter")
        tol = _check_tol(self.tol)
        closure = _ml_closure(problem)
        check_n_clusters(k, problem.n_samples, n_super_instances=closure.n_super)
        X = problem.X
        points, sizes = closure.super_instances(X)
        within = _within_scatter(X, closure, points)
        tol_abs = _absolute_tol(X, tol)
        runs = 1 if not isinstance(init, str) else n_init

        def one_run():
            start = init if not isinstance(init, str) else kmeanspp(points, k, rng, sizes)
            return _lloyd(points, sizes, start, max_iter=max_iter, tol_abs=tol_abs, deadline=deadline)

        with progress_bar(runs, enabled=self.progress, desc="KMeans restarts", unit="run") as bar:
            done = _restarts(runs, one_run,
                             lambda run: _weighted_cost(points, sizes, run.labels, run.centers) + within,
                             deadline, bar)
        best, best_cost, status = done.best, done.cost, done.status
        if status is Status.ITERATION_LIMIT:
            warn_user(f"KMeans stopped after max_iter={max_iter} iterations before converging; "
                      "increase max_iter or tol.", ConvergenceWarning)
        labels = closure.expand(best.labels)
        _warn_ignored_cannot_links(problem.constraints, labels)
        logger.debug("KMeans: best WCSS %.6g after %d iterations (%s)", best_cost, best.n_iter, status)
        return FitOutcome(labels=labels, centers=best.centers,
                          objective=best_cost, n_iter=best.n_iter, status=status,
                          extra={"n_super_instances": closure.n_super})


def _warn_ignored_cannot_links(constraints: Constraints, labels: np.ndarray) -> None:
    """Say that KMeans, which keeps the must-links only, enforces none of the cannot-links given.

    A pair given more than once counts once, as in ``n_violations_``. The count covers the
    cannot-links marked hard and those inside must-link chains, which fit does not warn about
    apart.
    """
    n_cl = constraints.n_cl
    if not n_cl:
        return
    n_violated = constraints.violations(labels).n_cl
    n_hard = int((constraints.hard & constraints.cl_mask).sum())
    hard = f"; {n_hard} of them marked hard" if n_hard else ""
    warn_user(
        f"KMeans does not enforce cannot-links: it keeps every must-link and ignores the {n_cl} "
        f"cannot-link(s) given ({n_violated} of them violated by labels_{hard}). COPKMeans, MLKMeans and "
        "GreedyMLKMeans enforce cannot-links as hard constraints; PCKMeans, BHKMeans, PCS and LCC "
        "penalise violating them; pass only the must-links to KMeans to silence this warning.",
        CcoptWarning)


kmeans = function_twin(KMeans, "kmeans")
