"""KmeansS and PCS: clustering with size constraints, and with pairwise and size constraints.

Zhang, Wong and Xie, *Semi-supervised Clustering with Pairwise and Size Constraints*
(../shared/papers/pcs-size-constraints-zhang.txt). Equation numbers below are the paper's.

The size constraint is a list of target cluster sizes ``E_1..E_k`` (positive integers that
add up to ``n``). Which cluster should have which size is not known, so the targets are
*aligned* to the current clusters by rank (6)-(7): the cluster with the r-th smallest size
``F_h`` gets the r-th smallest target ``E'_h``; ``U_h = F_h - E'_h`` (8) is its surplus.
Both algorithms add to their clustering cost

.. math::

    \\alpha J_A + \\beta J_S + \\gamma J_L \\qquad (12), (20)

* :math:`J_A = N \\cdot JSD(p, q)` (9)-(11), ``p = E'/N``, ``q = F/N``;
* :math:`J_S = \\sum_h \\sum_{x \\in NO(X_h)} \\lVert x - \\mu_h \\rVert^2` (15): for a
  cluster short of ``|U_h|`` objects, its ``|U_h|`` *nearest out-class* (NO) points, the
  objects of other clusters with the smallest

  .. math::

      D_{NO}(x, \\mu_h) = \\frac{d(x, \\mu_h)\\,[d(x, \\mu_h) + d(x, \\mu_j)]}
      {d(x, \\mu_j)\\, d(\\mu_h, \\mu_j)}, \\quad x \\in X_j,\\ j \\ne h \\qquad (13)

* :math:`J_L = \\sum_h \\sum_{z \\in VFI(X_h)} \\lVert z - \\mu_h \\rVert^2` (18): for a
  cluster ``U_h`` objects too large, its ``U_h`` *farthest in-class* (FI) points, the members
  with the smallest :math:`\\min_{j \\ne h} D_{FI}(x, \\mu_j)` (16), each reflected through
  the mean of the cluster's other members into a *virtual* point
  :math:`z = 2\\,\\mathrm{mean}(X_h \\setminus FI(X_h)) - y` (17).

Setting the gradient to zero gives the centroid rule (19):

.. math::

    \\mu_h = \\frac{\\sum_{x \\in X_h} x + \\beta \\sum_{x \\in NO(X_h)} x
    + \\gamma \\sum_{z \\in VFI(X_h)} z}{|X_h| + \\beta |NO(X_h)| + \\gamma |VFI(X_h)|}.

Readings chosen where the extracted text is ambiguous or garbled
-----------------------------------------------------------------
* (9) is printed as ``JSD(p, q) = KL(p, q)/2 + KL(q, p)/2`` -- the symmetrised
  Kullback-Leibler divergence, not the mixture form usually called Jensen-Shannon. We use
  the printed formula, which gives :math:`J_A = \\tfrac12 \\sum_h (E'_h - F_h)\\log(E'_h/F_h)`,
  and pair ``p_h`` with the *aligned* target ``E'_h`` (the text writes ``E_h``, but (10)
  compares each target with "its" cluster). An empty cluster makes ``J_A`` infinite.
* (13) and (16) are one quantity seen from the two clusters involved (the caption of Fig. 1
  is garbled; the equations are used). The number of NO points of a short cluster is
  ``|U_h|``, as the text states for FI points. A zero denominator (an object on its own
  centroid, or two coincident centroids) makes the ratio ``+inf`` (never preferred).
* PCS's assignment (step 7, eq. (4)) is PCKmeans's, as :class:`~ccopt.cluster.PCKMeans`
  implements it (and the filter step *is* that PCKmeans): unconstrained objects go to their
  nearest centroid; the constrained objects are visited in ascending order of priority, each
  given the cluster minimising ``||x - mu_h||²/2`` plus the penalties of its constraints
  under the partners' current labels (in the first pass without a filter step, partners not
  yet visited add nothing). Constraints flagged ``hard`` are kept as PCKMeans keeps them; a
  pass that hard cannot-links block is rejected like a pass that does not lower ``J``.
* Priorities (21) are redrawn ``r ~ U[0, 1)`` at every update; step 12 adds ``t`` to the
  transferred points (NO and FI points, (23)), step 14 does not.
* "Until Y converges" compares consecutive passes of the refinement; the filter step's own
  fixed point is not compared with (it would end PCS after one pass, before any size term
  acted). The returned centroids are those the returned labels were assigned to.
* Ctrl-C during the filter step (which keeps its labelling) ends the run after one
  refinement pass from the filter's centroids, marked ``interrupted``; Ctrl-C in a later
  restart returns the best earlier run, marked ``interrupted``.
* The first PCS pass is always accepted (``J_last = +inf``, even if ``J`` is infinite); the
  result is the accepted state with the lowest ``J`` (the last labelling of Fig. 3 can be a
  rejected one).
* The pairwise penalty is ``weight * w_ij`` with ``w_ij`` the constraint weights
  (default 1) and ``weight`` default ``sqrt(n_features)``: Sec. III-C gives both
  "sqrt(D)" and "1" as the penalty weights; we read the first as the global scale and the
  second as the per-constraint weights of PCKmeans. (Weight 1 alone, the other reading, is
  ``weight=1.0``; on the Iris and Wine benchmark rows it moved PCS's NMI by up to 0.05 either
  way.)
* The centroid rule (19) is the minimiser of (12), whose distance term has no ``1/2``; the
  PCKmeans term ``J_PC`` of (20) has one, so the exact minimiser of (20) would double
  ``beta`` and ``gamma``. Fig. 3 applies (19) as printed, and so does ccopt.

The paper's KmeansS does *not* make the cluster sizes equal the targets: its assignment is
still nearest-centroid, the size terms only move the centroids. ``size_assignment="exact"``
(a ccopt extension) replaces that assignment by a transportation problem with the aligned
targets as capacities, so the sizes are met exactly. It is solved exactly, in integers and
in O(n k) memory, by dual prices and successive shortest paths on the k clusters
(``ccopt.cluster._transport``), each step starting from the previous step's prices.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy.spatial.distance import cdist

from ccopt._sparse import membership
from ccopt._timing import Deadline
from ccopt._validation import check_choice, check_nonnegative, check_positive_int
from ccopt.cluster._base import TWIN_RETURNS, ConstrainedClusterer, FitOutcome, fit_summary
from ccopt.cluster._cop_kmeans import _DeadEnd
from ccopt.cluster._init_centers import kmeanspp, squared_distances
from ccopt.cluster._kmeans import (
    _alternate,
    _check_init,
    _lloyd,
)
from ccopt.cluster._ml_kmeans import _best_run
from ccopt.cluster._pckmeans import _PCKModel
from ccopt.cluster._transport import EXACT_WORK_ARRAYS, AssignmentStopped, assign_exact_sizes
from ccopt.config import check_dense_memory
from ccopt.exceptions import ClusteringDeadEndError, InvalidParameterError
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["PCS", "KMeansS", "kmeans_s", "pcs"]

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- sizes
def _check_sizes(sizes, n_samples: int, n_clusters: int, owner: str) -> np.ndarray:
    """Target sizes as int64: ``n_clusters`` positive integers adding up to ``n_samples``."""
    if sizes is None:
        raise InvalidParameterError(
            f"{owner} needs the target cluster sizes: pass sizes=[...] with n_clusters={n_clusters} "
            f"positive integers that add up to n_samples={n_samples}."
        )
    try:
        arr = np.asarray(sizes)
    except Exception as exc:
        raise InvalidParameterError(f"sizes could not be read as an array: {exc}") from exc
    if arr.dtype == object or (not isinstance(sizes, np.ndarray) and arr.ndim == 1
                               and any(isinstance(v, (bool, np.bool_)) for v in sizes)):
        # A list mixing True with ints becomes an int array: True would be read as 1.
        raise InvalidParameterError(f"sizes must hold integers, got {sizes!r}.")
    if arr.ndim != 1 or arr.shape[0] != n_clusters:
        raise InvalidParameterError(
            f"sizes must be a 1-D list of n_clusters={n_clusters} target sizes, got shape {arr.shape}."
        )
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise InvalidParameterError(f"sizes must hold integers, got dtype {arr.dtype}.")
    bad = np.flatnonzero(~np.isfinite(arr) | (np.round(arr) != arr))
    if bad.size:
        raise InvalidParameterError(
            f"sizes must hold whole numbers of objects; sizes[{bad[0]}] = {arr[bad[0]].item()!r}."
        )
    # Python integers: a cast to int64 (or an int64 sum) would wrap huge sizes round into
    # negative numbers and report those instead of what was given.
    values = [int(v) for v in arr.tolist()]
    bad = [i for i, v in enumerate(values) if v <= 0]
    if bad:
        raise InvalidParameterError(
            f"sizes must be positive (every cluster holds at least one object); "
            f"sizes[{bad[0]}] = {values[bad[0]]}."
        )
    if sum(values) != n_samples:
        raise InvalidParameterError(
            f"sizes add up to {sum(values)}, but X has n_samples={n_samples}; the target sizes "
            "must add up to the number of objects."
        )
    return np.array(values, dtype=np.int64)


def _align(counts: np.ndarray, sorted_targets: np.ndarray) -> np.ndarray:
    """Eq. (7): the cluster of rank r by size gets the target of rank r (ties: lower index first)."""
    aligned = np.empty_like(sorted_targets)
    aligned[np.argsort(counts, kind="stable")] = sorted_targets
    return aligned


@dataclass(frozen=True)
class _SizeTerms:
    """The size terms of one labelling and its centroids.

    Attributes
    ----------
    aligned : ndarray of int, shape (k,)
        Target aligned to each cluster, ``E'_h``.
    no, fi : list of ndarray of int
        ``NO(X_h)`` and ``FI(X_h)`` object indices per cluster (empty where not needed).
    vfi : list of ndarray, shape (|FI(X_h)|, n_features)
        Virtual paired FI points per cluster.
    divergence, small, large : float
        ``J_A``, ``J_S``, ``J_L``.
    """

    aligned: np.ndarray
    no: list
    fi: list
    vfi: list
    divergence: float
    small: float
    large: float

    def penalty(self, alpha: float, beta: float, gamma: float) -> float:
        """``alpha J_A + beta J_S + gamma J_L`` (a zero weight drops its term, even an infinite one)."""
        total = 0.0
        for weight, value in ((alpha, self.divergence), (beta, self.small), (gamma, self.large)):
            if weight:
                total += weight * value
        return total

    def transferred(self, n_samples: int) -> np.ndarray:
        """Mask of the transferred points ``X_T`` (23): every NO and FI point."""
        mask = np.zeros(n_samples, dtype=bool)
        for idx in (*self.no, *self.fi):
            mask[idx] = True
        return mask


def _transfer_ratio(dist: np.ndarray, labels: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """``R[i, h] = D(x_i, mu_h)`` of (13)/(16) with ``j`` the cluster of ``x_i``; inf at ``h = j``."""
    rows = np.arange(labels.size)
    own = dist[rows, labels]
    between = cdist(centers, centers)[labels]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = dist * (dist + own[:, None]) / (own[:, None] * between)
    ratio[np.isnan(ratio)] = np.inf
    ratio[rows, labels] = np.inf
    return ratio


def _size_terms(X: np.ndarray, labels: np.ndarray, centers: np.ndarray, sq_dist: np.ndarray,
                sorted_targets: np.ndarray) -> _SizeTerms:
    """Alignment (7), surplus (8), NO/FI/VFI points (13)-(17) and J_A, J_S, J_L (11), (15), (18)."""
    k = centers.shape[0]
    counts = np.bincount(labels, minlength=k)
    aligned = _align(counts, sorted_targets)
    surplus = counts - aligned
    empty = np.empty(0, dtype=np.int64)
    no, fi = [empty] * k, [empty] * k
    vfi = [np.empty((0, X.shape[1]))] * k
    small = large = 0.0
    if np.any(surplus != 0):
        ratio = _transfer_ratio(np.sqrt(sq_dist), labels, centers)
        for h in np.flatnonzero(surplus < 0):
            outside = np.flatnonzero(labels != h)
            no[h] = outside[np.argsort(ratio[outside, h], kind="stable")[:-surplus[h]]]
            small += float(sq_dist[no[h], h].sum())
        for h in np.flatnonzero(surplus > 0):
            members = np.flatnonzero(labels == h)
            order = np.argsort(ratio[members].min(axis=1), kind="stable")
            fi[h] = members[order[:surplus[h]]]
            rest_mean = X[members[order[surplus[h]:]]].mean(axis=0)
            vfi[h] = 2.0 * rest_mean - X[fi[h]]
            large += float(((vfi[h] - centers[h]) ** 2).sum())
    with np.errstate(divide="ignore"):
        # N * JSD of (9)-(11) with p = E'/N, q = F/N: (1/2) sum (E' - F) log(E'/F).
        divergence = 0.5 * float(np.sum((aligned - counts) * (np.log(aligned) - np.log(counts))))
    return _SizeTerms(aligned, no, fi, vfi, divergence, small, large)


def _centroid_rule(X: np.ndarray, labels: np.ndarray, centers: np.ndarray, terms: _SizeTerms,
                   beta: float, gamma: float) -> np.ndarray:
    """Eq. (19); a cluster with nothing to average keeps its centroid."""
    k = centers.shape[0]
    sums = np.asarray(membership(labels, k) @ X)
    mass = np.bincount(labels, minlength=k).astype(np.float64)
    for h in range(k):
        if beta and terms.no[h].size:
            sums[h] += beta * X[terms.no[h]].sum(axis=0)
            mass[h] += beta * terms.no[h].size
        if gamma and terms.vfi[h].shape[0]:
            sums[h] += gamma * terms.vfi[h].sum(axis=0)
            mass[h] += gamma * terms.vfi[h].shape[0]
    new = centers.copy()
    filled = mass > 0
    new[filled] = sums[filled] / mass[filled, None]
    return new


# ---------------------------------------------------------------------------- runs
@dataclass
class _Run:
    labels: np.ndarray
    centers: np.ndarray
    objective: float
    terms: _SizeTerms
    history: list
    n_iter: int
    status: Status


def _kmeans_s_run(X, centers, sorted_targets, *, alpha, beta, gamma, filter_refinement,
                  exact, max_iter, deadline, bar) -> _Run:
    """Fig. 2: optional k-means (filter), then assign / centroid rule (19) until labels settle."""
    interrupted = False
    if filter_refinement:
        filtered = _lloyd(X, np.ones(X.shape[0]), centers, max_iter=max_iter, tol_abs=0.0,
                          deadline=deadline)
        centers = filtered.centers
        # The filter caught a Ctrl-C and kept its labelling: answer from its centroids at once.
        interrupted = filtered.status is Status.INTERRUPTED
    rows = np.arange(X.shape[0])
    previous = state = prices = None
    history: list = []
    status = Status.ITERATION_LIMIT
    n_iter = 0
    try:
        while True:
            sq_dist = squared_distances(X, centers)
            labels = sq_dist.argmin(axis=1)
            if exact:
                # Align (7) on the sizes of the nearest assignment once; afterwards the sizes
                # are the aligned targets themselves and the alignment stays put, which makes
                # this size-constrained Lloyd (cost never increases).
                basis = labels if previous is None else previous
                counts = np.bincount(basis, minlength=centers.shape[0])
                try:
                    # The first assignment runs to the end whatever the clock says: without
                    # it the run has no labelling that meets the sizes. A later one cut
                    # short leaves the previous step's labelling, the best so far.
                    labels, prices = assign_exact_sizes(
                        sq_dist, _align(counts, sorted_targets), prices,
                        stop=None if previous is None else deadline.expired)
                except AssignmentStopped:
                    status = Status.TIME_LIMIT
                    break
            terms = _size_terms(X, labels, centers, sq_dist, sorted_targets)
            objective = float(sq_dist[rows, labels].sum()) + terms.penalty(alpha, beta, gamma)
            state = (labels, centers, objective, terms)
            history.append(objective)
            if interrupted:
                status = Status.INTERRUPTED
                break
            if previous is not None and np.array_equal(labels, previous):
                status = Status.CONVERGED
                break
            if n_iter >= max_iter:
                break
            if deadline.expired():
                status = Status.TIME_LIMIT
                break
            previous = labels
            centers = _centroid_rule(X, labels, centers, terms, beta, gamma)
            n_iter += 1
            bar.update(1)
    except KeyboardInterrupt:
        if state is None:  # nothing to return yet
            raise
        status = Status.INTERRUPTED
    labels, centers, objective, terms = state
    return _Run(labels, centers, objective, terms, history, n_iter, status)


def _pcs_run(X, model: _PCKModel, centers, sorted_targets, rng, *, alpha, beta, gamma, threshold,
             filter_refinement, max_iter, deadline, bar):
    """Fig. 3: optional PCKmeans (filter), then prioritised assignment with acceptance test.

    Returns a :class:`_Run`, or the :class:`_DeadEnd` that stopped it (hard cannot-links only).
    """
    component = model.closure.component
    n_constrained = model.m  # PCKmeans visits its constrained super-instances by local number
    last = None
    interrupted = False
    if filter_refinement:
        out = _alternate(partial(model.assign, order=rng.permutation(n_constrained)), model.points,
                         model.sizes, centers, max_iter=max_iter, tol_abs=0.0, deadline=deadline)
        if isinstance(out, _DeadEnd):
            return out
        last, centers = out.labels, out.centers
        # The filter caught a Ctrl-C and kept its labelling: one pass from it, then stop.
        interrupted = out.status is Status.INTERRUPTED
    priority = rng.random(n_constrained)
    # ``last`` seeds PCKmeans's assignment with the current labels; ``previous`` is the last
    # refinement pass, for "until Y converges" (the filter's fixed point would stop at once).
    previous = best = dead = None
    history: list = []
    status = Status.ITERATION_LIMIT
    n_iter = 0
    try:
        while n_iter < max_iter:
            if n_iter > 0 and interrupted:  # at least one pass, so a run has an answer
                status = Status.INTERRUPTED
                break
            if n_iter > 0 and deadline.expired():
                status = Status.TIME_LIMIT
                break
            order = np.argsort(priority, kind="stable")
            super_labels = model.assign(centers, last, order=order)
            n_iter += 1
            bar.update(1)
            if isinstance(super_labels, _DeadEnd):  # hard cannot-links blocked this order
                dead = super_labels
                priority = rng.random(n_constrained)
                continue
            labels = super_labels[component]
            terms = _size_terms(X, labels, centers, squared_distances(X, centers), sorted_targets)
            objective = model.objective(super_labels, centers) + terms.penalty(alpha, beta, gamma)
            history.append(objective)
            if best is None or objective < best.objective:
                best = _Run(labels, centers, objective, terms, history, n_iter, status)
                centers = _centroid_rule(X, labels, centers, terms, beta, gamma)
                moved = np.bincount(component, weights=terms.transferred(X.shape[0]),
                                    minlength=model.closure.n_super) > 0
                priority = rng.random(n_constrained) + threshold * moved[model.nodes]
            else:
                priority = rng.random(n_constrained)
            if previous is not None and np.array_equal(super_labels, previous):
                status = Status.CONVERGED
                break
            last = previous = super_labels
    except KeyboardInterrupt:
        if best is None:  # nothing to return yet
            raise
        status = Status.INTERRUPTED
    if best is None:
        if interrupted:  # the one pass was blocked: this run has no answer to give
            raise KeyboardInterrupt
        return dead
    best.history, best.n_iter, best.status = history, n_iter, status
    return best


# ---------------------------------------------------------------------------- estimators
class _SizeConstrainedBase(ConstrainedClusterer):
    """Shared driver of KMeansS and PCS: checks, seeding, restarts, fitted attributes."""

    _name = ""
    _single_blas_thread = True

    def _check_common(self, problem: ClusteringProblem) -> None:
        self._sizes = _check_sizes(self.sizes, problem.n_samples, problem.n_clusters, self._name)
        self._init = _check_init(self.init, ("k-means++", "random"), problem)
        self._alpha = check_nonnegative(self.alpha, "alpha")
        self._beta = check_nonnegative(self.beta, "beta")
        self._gamma = check_nonnegative(self.gamma, "gamma")
        check_positive_int(self.n_init, "n_init")
        check_positive_int(self.max_iter, "max_iter")
        if not isinstance(self.filter_refinement, (bool, np.bool_)):
            raise InvalidParameterError(
                f"filter_refinement must be True or False, got {self.filter_refinement!r}."
            )

    def _start(self, X: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
        if isinstance(self._init, np.ndarray):
            return self._init.copy()
        if self._init == "random":
            return X[rng.choice(X.shape[0], size=k, replace=False)].copy()
        return kmeanspp(X, k, rng)

    def _check(self, problem: ClusteringProblem) -> _PCKModel | None:
        """Check the parameters; return what the runs of this fit share (PCS: its model)."""
        raise NotImplementedError

    def _one_run(self, problem, model, start, rng, deadline, bar) -> _Run | _DeadEnd:
        raise NotImplementedError

    def _dead_end_error(self, problem, model, dead: _DeadEnd, n_tried: int,
                        deadline: Deadline) -> ClusteringDeadEndError:
        raise NotImplementedError

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        # The model stays local to the fit: predict needs only the centres, and an estimator
        # that kept it would carry the whole training problem into every copy and pickle.
        model = self._check(problem)
        X, k = problem.X, problem.n_clusters
        runs = 1 if isinstance(self._init, np.ndarray) else self.n_init  # given centres: one run
        dead_ends: list[_DeadEnd] = []

        def one_run(bar):
            out = self._one_run(problem, model, self._start(X, k, rng), rng, deadline, bar)
            if isinstance(out, _DeadEnd):  # this restart found no clustering; the next may
                dead_ends.append(out)
                return None
            return out

        best = _best_run(one_run, runs, self.max_iter, self.progress, self._name, deadline)
        if best is None:
            raise self._dead_end_error(problem, model, dead_ends[-1], len(dead_ends), deadline)
        return FitOutcome(labels=best.labels, centers=best.centers, objective=best.objective,
                          n_iter=best.n_iter, status=best.status,
                          extra={"objective_history": list(best.history),
                                 "aligned_sizes": best.terms.aligned.copy()})


class KMeansS(_SizeConstrainedBase):
    """k-means with a size constraint (KmeansS, Zhang et al., Fig. 2).

    Minimises (12)

    .. math::

        J_{KMS} = \\sum_{h=1}^k \\sum_{x_i \\in X_h} \\lVert x_i - \\mu_h \\rVert^2
        + \\alpha J_A + \\beta J_S + \\gamma J_L

    by alternating nearest-centroid assignment and the centroid rule (19), which pulls the
    centroid of a cluster that is too small towards its nearest out-class points and pushes
    the centroid of a cluster that is too large away from its farthest in-class points (see
    the module docstring for the terms and the readings chosen). With the filter-refinement
    scheme (KMS2 in the paper) plain k-means runs first from the initial centroids.

    The sizes are *not* enforced: the result's sizes approach the targets but need not equal
    them. ``size_assignment="exact"`` (ccopt's extension, not in the paper) assigns by a
    transportation problem with the aligned targets as capacities, so the sizes equal the
    targets (up to which cluster gets which). Each step solves it exactly in O(n k) memory,
    from the previous step's dual prices (``ccopt.cluster._transport``); the first
    assignment of a run always runs to the end, a later one that ``time_limit`` cuts short
    leaves the previous step's labelling and status ``time_limit``.

    KMeansS uses only the size constraint; passing pairwise constraints is an error (use
    :class:`PCS`).

    Parameters
    ----------
    n_clusters : int
    sizes : array-like of int, shape (n_clusters,)
        Target cluster sizes ``E_h``: positive, adding up to ``n_samples``. Their order does
        not matter (they are aligned to the clusters by rank, (7)).
    alpha, beta, gamma : float, default=1.0
        Weights of ``J_A``, ``J_S`` and ``J_L`` (the paper uses 1). ``beta = gamma = 0``
        gives k-means.
    filter_refinement : bool, default=True
        Run k-means first (the paper's KMS2; False is KMS1).
    size_assignment : {"nearest", "exact"}, default="nearest"
        ``"nearest"``: the paper's step 4. ``"exact"``: sizes met exactly (see above).
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), default="k-means++"
        Initial centroids: k-means++ (:func:`~ccopt.cluster._init_centers.kmeanspp`), ``k``
        distinct objects drawn uniformly, or given centroids (then one run).
    n_init : int, default=1
        Runs from different initial centroids; the lowest ``J_KMS`` is kept.
    max_iter : int, default=400
        Maximum iterations ``T`` (of the k-means filter and of the refinement each).
    random_state : int, numpy.random.Generator or None, default=None
    time_limit : float or None, default=None
    progress : bool or "always", default=True
        A progress bar over the iterations of the runs, drawn on a terminal at the first step that
        ends after a second (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_ : ndarray of int, shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centroids ``labels_`` was assigned to.
    objective_ : float
        ``J_KMS`` of the result (infinite if a cluster is empty and ``alpha > 0``).
    inertia_ : float
        Within-cluster sum of squares of ``labels_``.
    aligned_sizes_ : ndarray of int, shape (n_clusters,)
        Target aligned to each cluster, ``E'_h``.
    objective_history_ : list of float
        ``J_KMS`` after every assignment.
    n_violations_, constraints_, violations_, violated_, n_iter_, status_
        See :class:`~ccopt.cluster._base.ConstrainedClusterer`.

    Raises
    ------
    InvalidParameterError
        Missing or bad ``sizes`` (wrong length, not positive integers, not adding up to
        ``n_samples``), pairwise constraints given, or another parameter out of range.
    MemoryBudgetError
        ``size_assignment="exact"`` when its work arrays (a few of shape
        ``(n_samples, n_clusters)``) exceed the dense-memory bound.

    Examples
    --------
    >>> from ccopt import KMeansS
    >>> import numpy as np
    >>> X = np.r_[np.zeros((6, 1)), np.ones((2, 1)) * 0.4, np.ones((4, 1)) * 3]
    >>> est = KMeansS(2, sizes=[8, 4], size_assignment="exact", random_state=0, progress=False)
    >>> sorted(np.bincount(est.fit(X).labels_).tolist())
    [4, 8]
    """

    _name = "KMeansS"

    def __init__(self, n_clusters, *, sizes=None, alpha=1.0, beta=1.0, gamma=1.0,
                 filter_refinement=True, size_assignment="nearest", init="k-means++", n_init=1,
                 max_iter=400, random_state=None, time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.sizes = sizes
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.filter_refinement = filter_refinement
        self.size_assignment = size_assignment
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _check(self, problem: ClusteringProblem) -> None:
        if len(problem.constraints):
            raise InvalidParameterError(
                f"KMeansS uses only the size constraint, but {len(problem.constraints)} pairwise "
                "constraint(s) were given; use PCS for pairwise and size constraints together."
            )
        self._check_common(problem)
        self._exact = check_choice(self.size_assignment, "size_assignment", ("nearest", "exact")) == "exact"
        if self._exact:
            # Once per fit: every assignment of every run needs arrays of the same size.
            check_dense_memory((EXACT_WORK_ARRAYS, problem.n_samples, problem.n_clusters),
                               what="exact size assignment's work arrays")

    def _one_run(self, problem, model, start, rng, deadline, bar):
        return _kmeans_s_run(problem.X, start, np.sort(self._sizes), alpha=self._alpha,
                             beta=self._beta, gamma=self._gamma,
                             filter_refinement=bool(self.filter_refinement), exact=self._exact,
                             max_iter=self.max_iter, deadline=deadline, bar=bar)


class PCS(_SizeConstrainedBase):
    """PCKmeans with a size constraint (PCS, Zhang et al., Fig. 3).

    Minimises (20)

    .. math::

        J_{PCS} = \\frac12 \\sum_{h=1}^k \\sum_{x_i \\in X_h} \\lVert x_i - \\mu_h \\rVert^2
        + \\sum_{(i,j) \\in S} \\phi_{ij} [l_i \\ne l_j]
        + \\sum_{(i,j) \\in D} \\varphi_{ij} [l_i = l_j]
        + \\alpha J_A + \\beta J_S + \\gamma J_L

    (must-links ``S``, cannot-links ``D``, soft). Each iteration places the objects with the
    PCKmeans rule (4), constrained objects in ascending order of priority; if ``J_PCS``
    dropped, the centroids move by (19) and the priorities are redrawn by (21) --
    ``r ~ U[0, 1)``, plus ``t`` for the objects the size terms would transfer (NO and FI
    points, (23)) so that they tend to be placed later (last only if ``t >= 1``; the
    paper's ``t = 0.8`` lets them mix with the others); otherwise only the priorities are
    redrawn.
    With the filter-refinement scheme (PCS2 in the paper) PCKmeans runs first. See the
    module docstring for the readings chosen.

    Parameters
    ----------
    n_clusters : int
    sizes : array-like of int, shape (n_clusters,)
        Target cluster sizes (positive, adding up to ``n_samples``; order irrelevant).
    weight : float or None, default=None
        Scale of the pairwise penalties, ``phi_ij = weight * w_ij`` with ``w_ij`` the
        constraint weights (as :class:`~ccopt.cluster.PCKMeans`'s ``weight``); ``None`` means
        ``sqrt(n_features)`` (Sec. III-C).
    alpha, beta, gamma : float, default=1.0
        Weights of the size terms (the paper uses 1).
    threshold : float, default=0.8
        The priority penalty ``t`` of (21).
    filter_refinement : bool, default=True
        Run PCKmeans first (the paper's PCS2; False is PCS1).
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), default="k-means++"
    n_init : int, default=1
        Runs from different initial centroids; the lowest ``J_PCS`` is kept.
    max_iter : int, default=400
        Maximum iterations ``T`` (of the PCKmeans filter and of the refinement each).
    random_state : int, numpy.random.Generator or None, default=None
    time_limit : float or None, default=None
    progress : bool or "always", default=True
        A progress bar over the iterations of the runs, drawn on a terminal at the first step that
        ends after a second (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_ : ndarray of int, shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centroids ``labels_`` was assigned to.
    objective_ : float
        ``J_PCS`` of the result (the lowest accepted value); infinite if a cluster is empty
        and ``alpha > 0`` (the size term ``J_A``), which happens when soft must-links or
        coincident points leave fewer groups than clusters.
    inertia_ : float
    aligned_sizes_ : ndarray of int, shape (n_clusters,)
    objective_history_ : list of float
        ``J_PCS`` of every pass, accepted or not.
    n_violations_, constraints_, violations_, violated_, n_iter_, status_
        See :class:`~ccopt.cluster._base.ConstrainedClusterer`.

    Raises
    ------
    InvalidParameterError
        Missing or bad ``sizes`` or another parameter out of range, or ``weight`` times the
        soft constraint weights so large that the penalties overflow float64.
    InfeasibleConstraintsError
        A hard cannot-link inside a group of hard must-links, or every run was blocked and
        :func:`~ccopt.constraints.check_feasibility` or the bounded complete search that
        follows it (:mod:`ccopt._dead_end`, at most 10 s or the rest of ``time_limit``)
        proves that no labelling satisfies the hard constraints.
    ClusteringDeadEndError
        Hard cannot-links blocked every pass of every run (only constraints flagged
        ``hard`` can); a blocked run is followed by the next of the ``n_init`` runs.

    Examples
    --------
    >>> from ccopt import PCS
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.2], [0.4], [3.0], [3.2], [9.0]])
    >>> est = PCS(2, sizes=[3, 3], weight=100.0, random_state=0, progress=False)
    >>> labels = est.fit(X, ml=[(3, 5)]).labels_
    >>> bool(labels[3] == labels[5]), np.bincount(labels).tolist()
    (True, [3, 3])
    """

    _name = "PCS"

    def __init__(self, n_clusters, *, sizes=None, weight=None, alpha=1.0, beta=1.0,
                 gamma=1.0, threshold=0.8, filter_refinement=True, init="k-means++", n_init=1,
                 max_iter=400, random_state=None, time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.sizes = sizes
        self.weight = weight
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.threshold = threshold
        self.filter_refinement = filter_refinement
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _check(self, problem: ClusteringProblem) -> _PCKModel:
        self._check_common(problem)
        self._threshold = check_nonnegative(self.threshold, "threshold")
        weight = (np.sqrt(problem.n_features) if self.weight is None
                  else check_nonnegative(self.weight, "weight"))
        return _PCKModel(problem, float(weight))

    def _one_run(self, problem, model, start, rng, deadline, bar):
        return _pcs_run(problem.X, model, start, np.sort(self._sizes), rng, alpha=self._alpha,
                        beta=self._beta, gamma=self._gamma, threshold=self._threshold,
                        filter_refinement=bool(self.filter_refinement), max_iter=self.max_iter,
                        deadline=deadline, bar=bar)

    def _dead_end_error(self, problem, model, dead, n_tried, deadline):
        return model.dead_end_error(problem, dead, n_tried, deadline.expired(), "PCS", deadline=deadline)


def kmeans_s(X, n_clusters, *, sizes, **params):
    """Function twin of :class:`KMeansS`: fit and return labels, centres and a summary.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    sizes : array-like of int, shape (n_clusters,)
        Target cluster sizes.
    **params
        Other keyword parameters of :class:`KMeansS`.
    """
    return fit_summary(KMeansS(n_clusters, sizes=sizes, **params), X, None, None, None)


def pcs(X, n_clusters, *, sizes, ml=None, cl=None, constraints=None, **params):
    """Function twin of :class:`PCS`: fit and return labels, centres and a summary.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    sizes : array-like of int, shape (n_clusters,)
        Target cluster sizes.
    ml, cl : array-like of int, shape (m, 2), optional
    constraints : Constraints, optional
    **params
        Other keyword parameters of :class:`PCS`.
    """
    return fit_summary(PCS(n_clusters, sizes=sizes, **params), X, ml, cl, constraints)


kmeans_s.__doc__ += TWIN_RETURNS
pcs.__doc__ += TWIN_RETURNS
