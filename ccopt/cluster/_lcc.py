"""LCC: Lagrangian constrained clustering (Ganji, Bailey, Stuckey 2016, SDM).

LCC gives top priority to satisfying the constraints. Must-links are contracted into
super-instances ``X_s`` with weights ``w_s`` (their sizes), so no must-link is ever
violated; the cannot-links become pairs of super-instances ``NL`` and are handled by
Lagrangian penalties. With ``swap(i, j, c) = w_i D(X_i, mu_j)^2 - w_i D(X_i, mu_{c_i})^2``
the problem solved is (3.2)/(3.3) of the paper:

.. math::

    \\min Z = \\sum_{j=1}^k \\sum_{c_i = j} w_i D(X_i, \\mu_j)^2
      + \\sum_{j=1}^k \\sum_{\\langle i, i' \\rangle \\in conf(j, c)}
        \\lambda_{(i,i')} \\, swap(i, j, c)                                   \\tag{3.3}

One iteration (Figure 1 of the paper):

1. assign every super-instance to its nearest centre (line 11);
2. for each pair ``(i, i')`` of ``NL`` in turn whose two ends share a cluster ``h``
   (checked when the pair's turn comes, so moves made for earlier pairs count): let
   ``c'_i``, ``c'_{i'}`` be the nearest centres other than ``h`` and ``i''`` the end with
   the smaller swap cost; compare (lines 22-26)

   - ``a`` = keep the pair violated: ``w_i D(X_i,mu_h)^2 + w_i' D(X_i',mu_h)^2 + lambda swap_{i''}``,
   - ``b`` = move ``i`` to ``c'_i``, ``c`` = move ``i'`` to ``c'_{i'}``;

   if ``a`` is smallest, multiply ``lambda`` by ``alpha`` and put ``<i'', i'''>`` into the
   conflict set of ``c'_{i''}`` (lines 27-31); otherwise make the cheaper move;
3. record the labelling if ``(violations, objective)`` beats the best lexicographically
   (lines 36-38);
4. update the centres by (3.4), the minimiser derived in Sec. 3 (line 39):

.. math::

    \\mu_j^* = \\frac{\\sum_{c_i=j} w_i X_i + \\sum_{\\langle i,i'\\rangle \\in conf(j,c)}
                     w_i \\lambda_{(i,i')} X_i}
                    {\\sum_{c_i=j} w_i + \\sum_{\\langle i,i'\\rangle \\in conf(j,c)}
                     w_i \\lambda_{(i,i')}}                                 \\tag{3.4}

Stopping (Sec. 4): ``max_no_improvement=25`` iterations without a better best solution, or
``max_iter=100`` iterations; ``alpha=2``.

Readings chosen where the paper is silent or garbled:

- **What (3.4) minimises.** Differentiating (3.3) the paper keeps only the
  ``w_i lambda D(X_i, mu_j)^2`` part of each swap term (the ``-w_i D(X_i, mu_{c_i})^2`` part
  also depends on a centre but is dropped). So (3.4) is the exact minimiser, for fixed
  assignment, conflict sets and multipliers, of the surrogate
  ``sum_i w_i D(X_i, mu_{c_i})^2 + sum_j sum_{conf(j)} lambda w_i D(X_i, mu_j)^2`` — a convex
  quadratic — and that is the property the tests check. The paper proves no descent for
  the whole iteration, and none is claimed here.
- **Violation count.** The pseudo-code's ``V`` counts only the pairs deliberately left
  violated; a move made for one pair can break another pair that was already processed.
  ``V`` here is the true number of violated cannot-link constraints of the labelling (what
  Table 2 reports), counted per given constraint.
- **Visiting order.** ``NL`` is a set, so the paper gives no order for line 12's loop.
  By default (``pair_order="random"``) every iteration visits the pairs in a new random
  order; ``pair_order="given"`` visits them in the order the constraints were given,
  every iteration alike. In the fixed order, 756 of the 1,320 runs of the Table 2 protocol
  ended at a fixed point that kept its violations; on its sets (and on two other draws of
  them) the random order left fewer cannot-links violated (BENCHMARKS.md).
- **Objective.** Line 5 writes ``D`` and line 36 ``D^2``; the k-means objective ``D^2`` is
  used in both. The best solution starts as the initial labelling with its own number of
  violations, not line 4's ``bestV = |NL|``: with that bound a run whose iterations all
  violated more than its initial labelling returned one of them, and ``n_init`` compared
  runs by the bound.
- **Initial multipliers** are not given in the paper: ``lambda_init`` (default 2). Since
  ``a - min(b, c) = (lambda - 1) swap_{i''}``, a pair whose ends sit at their nearest
  centre (swap costs ``> 0``) is left violated exactly when its multiplier is at most 1:
  with ``lambda_init = 1`` once (which pulls the second-nearest centre towards it, then
  ``lambda = 2``); with ``lambda_init = alpha^-m`` up to ``m + 1`` times; with
  ``lambda_init > 1`` never. Ties keep the pair violated, as ``a <= b`` is tested first;
  so a zero swap cost (an end as near ``c'`` as ``h``, e.g. two centres at one place) keeps
  the pair violated whatever its multiplier, until the conflict set has moved ``c'``. If
  every object sits at one point, the centres all coincide and no pair is ever separated.
  With ``lambda_init = 1`` every such pair is a tie on its first visit, so it is left
  violated by the tie rule rather than by its costs; the default 2 (the multiplier such a
  pair has after that first visit) lets the costs decide from the start, which suits an
  algorithm whose aim is to satisfy the constraints. Measured on the Table 2 protocol
  (33 rows, 5 sets x 8 runs each, on sets drawn with a base seed other than the
  benchmark's): mean violated cannot-links 2.48 with 1 against 2.19 with 2 (1.5 and 4
  give 2.15 and 2.20), rows at or below the paper 19 against 22.
- **Negative swap costs are kept as written.** A move made for an earlier pair can leave
  an object in a cluster that is not its nearest; its swap cost is then negative and, for
  ``lambda >= 1``, ``a`` is the cheapest option: the pair stays violated, its multiplier
  grows and the conflict set pulls the alternative centre towards the object, so that the
  next nearest-centre assignment tends to separate the pair. Clipping the degree of
  violation at 0 instead was tried: it settles sooner and left more cannot-links violated
  on most Table 2 sets tried (e.g. Ionosphere n/2: 11.2 vs 5.8, Yeast n: 12.0 vs 9.0, mean
  of 6 runs), so the literal rule is kept.
- **Initial labelling** (line 1, "random assignment"): uniform random clusters, with ``k``
  random super-instances placed one per cluster so that no cluster starts empty; the
  initial centres (line 3, printed ``sum X_i / sum w_i``) are the weighted means, (3.4)
  with empty conflict sets.
- An empty cluster (no member, no conflict entry) keeps its centre.
- Cannot-links given twice between the same pair of must-link groups form one ``NL`` pair
  (``NL`` is a set) with one multiplier.
- Extra stop: if an iteration leaves the multipliers and the centres unchanged, then with
  ``pair_order="given"`` every later iteration would repeat it without improvement; LCC
  stops there with status ``converged`` (the returned solution is the one the paper's loop
  would return). With the random order a later iteration visits the pairs otherwise and
  may repair more of them, so LCC stops there only when the labelling violates no
  cannot-link.
- Weights and ``hard`` flags of the constraints are not used: LCC treats every constraint
  as ground truth (and :meth:`LCC.fit` warns when either is given).
"""

from __future__ import annotations

import heapq
import logging

import numpy as np
import scipy.sparse as sp

from ccopt._progress import progress_bar
from ccopt._timing import Deadline
from ccopt._validation import check_choice, check_positive_int
from ccopt._warnings import warn_user
from ccopt.cluster._base import ConstrainedClusterer, FitOutcome, function_twin
from ccopt.cluster._init_centers import kmeanspp, squared_distances
from ccopt.cluster._kmeans import (
    _adjacency,
    _check_init,
    _check_real_at_least,
    _cut_short,
    _weighted_means,
    _within_scatter,
)
from ccopt.exceptions import ConvergenceWarning
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["LCC", "lcc"]

logger = logging.getLogger(__name__)

_INIT_CHOICES = ("random", "k-means++")
_PAIR_ORDERS = ("random", "given")


def _lcc_centers(points: np.ndarray, sizes: np.ndarray, labels: np.ndarray, conf_cluster: np.ndarray,
                 conf_member: np.ndarray, conf_weight: np.ndarray, previous: np.ndarray) -> np.ndarray:
    """Centre update (3.4).

    Parameters
    ----------
    points : ndarray of shape (n_super, n_features)
    sizes : ndarray of shape (n_super,)
        Super-instance weights ``w_i``.
    labels : ndarray of int, shape (n_super,)
        Assignment ``c`` after the repairs of the iteration.
    conf_cluster, conf_member : ndarray of int, shape (m,)
        Conflict-set entries: super-instance ``conf_member[e]`` is in ``conf(conf_cluster[e], c)``.
    conf_weight : ndarray of shape (m,)
        ``w_i * lambda_(i,i')`` of each entry.
    previous : ndarray of shape (k, n_features)
        Centres kept for clusters with no member and no conflict entry.

    Returns
    -------
    ndarray of shape (k, n_features)
    """
    k = previous.shape[0]
    n = points.shape[0]
    rows = np.concatenate([labels, conf_cluster])
    weights = np.concatenate([sizes, conf_weight])
    member = sp.csr_matrix((weights, (rows, np.concatenate([np.arange(n), conf_member]))), shape=(k, n))
    num = np.asarray(member @ points)
    den = np.bincount(rows, weights=weights, minlength=k)
    centers = previous.copy()
    filled = den > 0
    centers[filled] = num[filled] / den[filled, None]
    return centers


class _NL:
    """Cannot-links between super-instances, merged into the set NL, with adjacency lists."""

    def __init__(self, cl_super: np.ndarray, n_super: int):
        self.n_constraints = cl_super.shape[0]
        if cl_super.shape[0] == 0:
            self.pairs = np.empty((0, 2), dtype=np.int64)
            self.of_constraint = np.empty(0, dtype=np.int64)
        else:
            canon = np.sort(cl_super, axis=1)
            _, first, inverse = np.unique(canon, axis=0, return_index=True, return_inverse=True)
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            self.pairs = canon[first[order]]
            self.of_constraint = rank[inverse.reshape(-1)]
        self.multiplicity = np.bincount(self.of_constraint, minlength=self.pairs.shape[0])
        # The super-instances in some pair, renumbered 0..m-1 (nodes[local] = super-instance),
        # so that the repair loop works on lists of length m, not n.
        self.nodes = np.unique(self.pairs.reshape(-1))
        local = np.full(n_super, -1, dtype=np.int64)
        local[self.nodes] = np.arange(self.nodes.size)
        local_pairs = local[self.pairs]
        indptr, _, positions = _adjacency(self.nodes.size, local_pairs, np.arange(self.pairs.shape[0]))
        ptr, pos = indptr.tolist(), positions.tolist()
        self.pairs_of = [pos[ptr[v]:ptr[v + 1]] for v in range(self.nodes.size)]
        self.local_pairs = local_pairs
        self.a = local_pairs[:, 0].tolist()
        self.b = local_pairs[:, 1].tolist()

    def violations(self, labels: np.ndarray) -> int:
        """Number of violated cannot-link constraints (with multiplicity)."""
        same = labels[self.pairs[:, 0]] == labels[self.pairs[:, 1]]
        return int(self.multiplicity[same].sum())


def _repair(dist_w: np.ndarray, labels: np.ndarray, nl: _NL, lam: list, alpha: float,
            order: np.ndarray | None = None):
    """Lines 12-35 of Figure 1.

    ``dist_w[i, j] = w_i D(X_i, mu_j)^2`` and ``labels`` is the nearest-centre assignment
    (lines 10-11). Pairs are visited in the order ``order`` (a permutation of the NL
    pairs; NL order when None); a pair whose end moved is (re)visited only if it comes
    later than the current pair, so each pair is looked at once per iteration, with the
    labels of that moment. ``lam`` is updated in place. Returns the repaired labels and the
    conflict entries (cluster, member super-instance, pair) in visiting order.
    """
    k = dist_w.shape[1]
    if k < 2 or not nl.a:
        return labels, [], [], []
    sub = dist_w[nl.nodes]
    sub_labels = labels[nl.nodes]
    # Nearest and second-nearest centre of every involved super-instance, lower index on a
    # tie (indexmin): the nearest centre other than h is one of the two.
    masked = sub.copy()
    masked[np.arange(sub.shape[0]), sub_labels] = np.inf
    first, second = sub_labels.tolist(), np.argmin(masked, axis=1).tolist()
    cl = sub_labels.tolist()
    a_end, b_end, pairs_of = nl.a, nl.b, nl.pairs_of
    same = np.flatnonzero(sub_labels[nl.local_pairs[:, 0]] == sub_labels[nl.local_pairs[:, 1]])
    # The heap holds visiting ranks; rank r is pair pair_at[r] (the identity in NL order).
    if order is None:
        pair_at = rank_of = None
        heap = same.tolist()  # sorted, hence already a heap
    else:
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        pair_at, rank_of = order.tolist(), rank.tolist()
        heap = np.sort(rank[same]).tolist()
    queued = set(heap)
    conf_cluster, conf_member, conf_pair = [], [], []
    rows: dict[int, list] = {}  # rows of ``sub`` as lists, fetched when a pair needs them

    while heap:
        r = heapq.heappop(heap)
        queued.discard(r)
        p = r if pair_at is None else pair_at[r]
        i, i2 = a_end[p], b_end[p]
        h = cl[i]
        if cl[i2] != h:
            continue
        ci = first[i] if first[i] != h else second[i]
        ci2 = first[i2] if first[i2] != h else second[i2]
        row_i = rows.get(i)
        if row_i is None:
            row_i = rows[i] = sub[i].tolist()
        row_i2 = rows.get(i2)
        if row_i2 is None:
            row_i2 = rows[i2] = sub[i2].tolist()
        stay_i, stay_i2 = row_i[h], row_i2[h]
        move_i, move_i2 = row_i[ci], row_i2[ci2]
        swap_i, swap_i2 = move_i - stay_i, move_i2 - stay_i2
        if swap_i < swap_i2:
            low, low_target, low_swap = i, ci, swap_i
        else:
            low, low_target, low_swap = i2, ci2, swap_i2
        keep = stay_i + stay_i2 + lam[p] * low_swap
        force_i = move_i + stay_i2
        force_i2 = stay_i + move_i2
        if keep <= force_i and keep <= force_i2:
            lam[p] *= alpha
            conf_cluster.append(low_target)
            conf_member.append(low)
            conf_pair.append(p)
            continue
        moved, target = (i, ci) if force_i <= keep and force_i <= force_i2 else (i2, ci2)
        cl[moved] = target
        for q in pairs_of[moved]:
            rq = q if rank_of is None else rank_of[q]
            if rq > r and rq not in queued:
                heapq.heappush(heap, rq)
                queued.add(rq)
    repaired = labels.copy()
    repaired[nl.nodes] = cl
    members = nl.nodes[np.asarray(conf_member, dtype=np.int64)].tolist()
    return repaired, conf_cluster, members, conf_pair


def _lcc_run(points, sizes, nl: _NL, c0, mu0, *, alpha, lambda_init, max_iter, patience,
             deadline: Deadline, bar, order_rng: np.random.Generator | None = None):
    """One LCC run (Figure 1) from labelling ``c0`` and centres ``mu0``.

    With ``order_rng`` the NL pairs are visited in a new random order every iteration.
    """
    n_super = points.shape[0]
    rows = np.arange(n_super)
    lam = [float(lambda_init)] * nl.pairs.shape[0]
    mu = mu0
    # The initial labelling competes with its true count: with line 4's bestV = |NL| a run
    # whose iterations all violated more than it did returned one of them, and n_init
    # compared that bound, not the labelling, across runs.
    best_v = nl.violations(c0)
    # Summed exactly as each iteration's O is, so that an iteration reproducing the initial
    # labelling ties with it instead of beating it by a rounding difference.
    best_o = float((sizes[:, None] * squared_distances(points, mu))[rows, c0].sum())
    best_c, best_mu, best_iter = c0, mu, 0
    history = {"violations": [], "objective": [], "improved": [], "n_conflicts": []}
    status = Status.ITERATION_LIMIT
    since_best = 0
    n_iter = 0
    try:
        for n_iter in range(1, max_iter + 1):
            dist_w = sizes[:, None] * squared_distances(points, mu)
            nearest = np.argmin(dist_w, axis=1)
            order = None if order_rng is None else order_rng.permutation(nl.pairs.shape[0])
            c, conf_cluster, conf_member, conf_pair = _repair(dist_w, nearest, nl, lam, alpha, order)
            v = nl.violations(c)
            o = float(dist_w[rows, c].sum())
            improved = v < best_v or (v == best_v and o < best_o)
            if improved:
                best_v, best_o, best_c, best_mu, best_iter = v, o, c, mu, n_iter
                since_best = 0
            else:
                since_best += 1
            history["violations"].append(v)
            history["objective"].append(o)
            history["improved"].append(improved)
            history["n_conflicts"].append(len(conf_pair))
            members = np.asarray(conf_member, dtype=np.int64)
            weights = sizes[members] * np.asarray([lam[p] for p in conf_pair], dtype=np.float64)
            new_mu = _lcc_centers(points, sizes, c, np.asarray(conf_cluster, dtype=np.int64), members,
                                  weights, mu)
            bar.update()
            if since_best >= patience:
                status = Status.STAGNATION
                break
            if n_iter == max_iter:
                break
            # Under a random order a fixed point that still violates a pair may move on with
            # another order; with one cluster no order can repair anything.
            settled = order_rng is None or v == 0 or mu.shape[0] < 2
            if not conf_pair and np.array_equal(new_mu, mu) and settled:
                status = Status.CONVERGED
                break
            if deadline.expired():
                status = Status.TIME_LIMIT
                break
            mu = new_mu
    except KeyboardInterrupt:  # the best labelling so far stands (the initial one at worst)
        status = Status.INTERRUPTED
        done = min(len(values) for values in history.values())  # drop a half-recorded iteration
        history = {key: values[:done] for key, values in history.items()}
    return {
        "labels": best_c, "centers": best_mu, "violations": best_v, "objective": best_o,
        "best_iter": best_iter, "n_iter": n_iter, "status": status,
        "history": {key: np.asarray(val) for key, val in history.items()},
        "multipliers": np.asarray(lam, dtype=np.float64),
    }


class LCC(ConstrainedClusterer):
    """Lagrangian constrained clustering (Ganji, Bailey, Stuckey 2016).

    Must-links are always satisfied (super-instances); cannot-links are satisfied as far as
    the Lagrangian penalties manage. See the module docstring for the algorithm, its
    equations and the readings chosen.

    LCC does not honour ``hard`` flags: a cannot-link flagged hard is penalised like any
    other and may be violated, and even an infeasible hard set (a cannot-link triangle with
    ``n_clusters=2``) gets a labelling, where COPKMeans, PCKMeans, BHKMeans and PCS raise
    :class:`~ccopt.exceptions.InfeasibleConstraintsError`. Per-constraint weights are not
    used either (every multiplier starts at ``lambda_init``). :meth:`fit` warns when either
    is given.

    Parameters
    ----------
    n_clusters : int
    alpha : float, default=2.0
        Growth factor (> 1) of the multiplier of a pair left violated.
    lambda_init : float, default=2.0
        Initial multiplier of every cannot-link pair (> 0); 1 is the neutral Lagrangian
        weight, with which every pair at its nearest centres is left violated once (module
        docstring).
    max_iter : int, default=100
        Iterations in all (the paper's 100, a cap "for cases with slow convergence or
        inconsistent/infeasible constraints"). A run that reaches it before
        ``max_no_improvement`` ends with status ``iteration_limit`` and a
        :class:`~ccopt.exceptions.ConvergenceWarning`; with the defaults no run of the
        Table 2 protocol on Iris or Wine did (240 runs, at most 69 iterations).
    max_no_improvement : int, default=25
        Stop after this many iterations without a better best solution (the paper's 25).
    init : {"random", "k-means++"} or array-like of shape (n_clusters, n_features), default="random"
        The paper's random assignment (line 1), or starting centres (weighted k-means++ on
        the super-instances, or given) with the nearest-centre assignment.
    n_init : int, default=1
        Independent runs; the best by (violations, objective) is kept. Given centres mean
        one run. The default is the paper's single run; on its Table 2 constraint sets
        ``n_init=5`` cut the mean number of violated cannot-links from 1.93 to 1.36 (the
        paper: 2.82; BENCHMARKS.md).
    pair_order : {"random", "given"}, default="random"
        The order in which each iteration visits the cannot-link pairs (the paper's NL is
        a set): a new random order every iteration, or the order the constraints were
        given. On the Table 2 protocol the random order cut the mean number of violated
        cannot-links from 2.26 to 1.93, and the rows above the paper's from 15 to 9 of 33
        (BENCHMARKS.md).
    random_state : int, numpy.random.Generator or None, default=None
        Draws the initial labellings and, with ``pair_order="random"``, the visiting orders.
    time_limit : float or None, default=None
    progress : bool or "always", default=True
        A progress bar over the iterations, drawn on a terminal at the first step that ends
        after a second (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_samples,)
        The best labelling found (fewest violated cannot-links, then lowest objective).
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centres that labelling was computed with.
    objective_ : float
        Its k-means objective: squared distances of the objects to those centres.
    inertia_ : float
    n_violations_ : dict
        ``ml`` is always 0.
    constraints_, violations_, violated_
        The constraints used and which of them ``labels_`` violates: ``violations_`` by
        position in ``constraints_`` (duplicates merged), ``violated_`` per row as given;
        see :class:`~ccopt.cluster._base.ConstrainedClusterer`.
    n_iter_ : int
    status_ : Status
        ``stagnation`` (no improvement for ``max_no_improvement`` iterations),
        ``iteration_limit``, ``converged`` (a fixed point; with the random order, one whose
        labelling violates nothing), ``time_limit`` or ``interrupted`` (KeyboardInterrupt:
        the best labelling so far is returned).
    best_iter_ : int
        Iteration that produced ``labels_`` (0: the initial labelling).
    history_ : dict of ndarray
        Per iteration of the kept run: ``violations``, ``objective`` (super-instance part),
        ``improved`` (new best), ``n_conflicts`` (pairs left violated on purpose).
    multipliers_ : ndarray of shape (n_cl,)
        Final multiplier of each cannot-link, in the order of ``constraints.cl_indices``.

    Raises
    ------
    InfeasibleConstraintsError
        A cannot-link inside a must-link group, or fewer must-link groups than clusters.
    InvalidParameterError
        A bad ``alpha``, ``lambda_init``, ``max_iter``, ``init``, ...

    Warns
    -----
    CcoptWarning
        A cannot-link is flagged ``hard`` or a constraint has a weight other than 1 (both
        are ignored).
    ConvergenceWarning
        The kept run stopped on ``max_iter`` (status ``iteration_limit``), or ``labels_``
        leaves a cluster empty.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.cluster import LCC
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> lcc = LCC(2, random_state=0).fit(X, ml=[(2, 3)], cl=[(0, 2)])
    >>> lcc.n_violations_
    {'ml': 0, 'cl': 0, 'total': 0}
    """

    _requires_feasible_closure = True
    _single_blas_thread = True
    _ignores_hard_and_weights = True

    def __init__(self, n_clusters, *, alpha=2.0, lambda_init=2.0, max_iter=100,
                 max_no_improvement=25, init="random", n_init=1, pair_order="random",
                 random_state=None, time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.lambda_init = lambda_init
        self.max_iter = max_iter
        self.max_no_improvement = max_no_improvement
        self.init = init
        self.n_init = n_init
        self.pair_order = pair_order
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        k = problem.n_clusters
        alpha = _check_real_at_least(self.alpha, "alpha", 1.0, strict=True)
        lambda_init = _check_real_at_least(self.lambda_init, "lambda_init", 0.0, strict=True)
        max_iter = check_positive_int(self.max_iter, "max_iter")
        patience = check_positive_int(self.max_no_improvement, "max_no_improvement")
        n_init = check_positive_int(self.n_init, "n_init")
        init = _check_init(self.init, _INIT_CHOICES, problem)
        random_order = check_choice(self.pair_order, "pair_order", _PAIR_ORDERS) == "random"
        closure = problem.closure
        points, sizes = closure.super_instances(problem.X)
        n_super = closure.n_super
        nl = _NL(closure.cl_pairs, n_super)
        runs = 1 if not isinstance(init, str) else n_init

        best = None
        with progress_bar(runs * max_iter, enabled=self.progress, desc="LCC", unit="it") as bar:
            try:
                for _ in range(runs):
                    if isinstance(init, str) and init == "random":
                        c0 = rng.integers(0, k, size=n_super)
                        c0[rng.permutation(n_super)[:k]] = np.arange(k)
                        mu0 = _weighted_means(points, sizes, c0, k, np.zeros((k, points.shape[1])))
                    else:
                        # A copy: the initial centres can be returned as cluster_centers_.
                        mu0 = init.copy() if not isinstance(init, str) else kmeanspp(points, k, rng, sizes)
                        c0 = np.argmin(squared_distances(points, mu0), axis=1)
                    run = _lcc_run(points, sizes, nl, c0, mu0, alpha=alpha, lambda_init=lambda_init,
                                   max_iter=max_iter, patience=patience, deadline=deadline, bar=bar,
                                   order_rng=rng if random_order else None)
                    if best is None or (run["violations"], run["objective"]) < (best["violations"], best["objective"]):
                        best = run
                    cut_short = _cut_short(run["status"], deadline)
                    if cut_short is not None:
                        best["status"] = cut_short
                        break
            except KeyboardInterrupt:
                if best is None:  # nothing to return yet
                    raise
                best["status"] = Status.INTERRUPTED
        if best["status"] is Status.ITERATION_LIMIT:
            # The paper's cap "for cases with slow convergence or inconsistent/infeasible
            # constraints" (Sec. 3); default runs on its data stop on their own (stagnation or
            # a fixed point), so reaching it is worth a word, as for the other estimators.
            warn_user(f"LCC stopped after max_iter={max_iter} iterations before its stopping rule "
                      f"(max_no_improvement={patience} iterations without a better solution, or a "
                      "fixed point); increase max_iter.", ConvergenceWarning)
        logger.debug("LCC: %d violated cannot-links, objective %.6g, %d iterations (%s)",
                     best["violations"], best["objective"], best["n_iter"], best["status"])
        within = _within_scatter(problem.X, closure, points)
        return FitOutcome(
            labels=closure.expand(best["labels"]), centers=best["centers"],
            objective=best["objective"] + within, n_iter=best["n_iter"], status=best["status"],
            extra={"best_iter": best["best_iter"], "history": best["history"],
                   "multipliers": best["multipliers"][nl.of_constraint]},
        )


lcc = function_twin(LCC, "lcc")
