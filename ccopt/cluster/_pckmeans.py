"""PCKmeans (Basu, Banerjee, Mooney 2004): k-means with soft, penalised pairwise constraints.

PCKmeans minimises (Basu et al. 2004; eq. (4) of Zhang, Wong, Xie)

.. math::

    J = \\frac12 \\sum_{h=1}^k \\sum_{x_i \\in X_h} \\lVert x_i - \\mu_h \\rVert^2
      + \\sum_{(i,j) \\in ML} w_{ij} \\, [l_i \\ne l_j]
      + \\sum_{(i,j) \\in CL} \\bar w_{ij} \\, [l_i = l_j]

by alternating two steps until no label changes:

- *assignment*: visit the objects in a random order (drawn once per run) and give each the
  cluster ``h`` that minimises ``1/2 ||x_i - mu_h||^2`` plus the penalties of its
  constraints with the other objects' current labels (in the first pass, objects not
  visited yet have no label and add no penalty). Each move lowers ``J`` given the other
  labels, so ``J`` never increases (this is tested);
- *update*: move every centre to the mean of its objects (an empty cluster keeps its
  centre).

The penalty of a constraint is ``weight * constraints.weights[c]``. At ``weight=0`` the
assignment is the nearest centre and PCKmeans is exactly k-means (Lloyd) from the same
starting centres.

Constraints flagged ``hard`` are never violated: hard must-links are contracted into
super-instances (which move as one, with the summed cost of their objects) and a cluster
holding a hard cannot-link partner is closed to an object. If hard cannot-links leave an
object no open cluster in every restart, :class:`~ccopt.exceptions.ClusteringDeadEndError`
is raised.

Initialisation (``init="neighborhoods"``, Basu et al.'s step 1; their Explore/Consolidate
phases are active learning and are not part of this estimator): the *neighbourhoods* are
the connected components of the must-link graph (the objects in at least one must-link).
With ``lambda`` neighbourhoods, if ``lambda >= k`` the centres are the centroids of the
``k`` largest (ties: the one with the smaller first object); otherwise the ``lambda``
centroids, then an object outside the neighbourhoods that is cannot-linked to every one
of them, if there is one (drawn at random among such objects), then distinct random
objects outside the neighbourhoods (neighbourhood members when too few remain outside,
so that no two centres are the same object). Readings: "the k largest neighbourhoods"
(the weighted farthest-first variant belongs to MPCKmeans); must-links are used whether
soft or hard.
"""

from __future__ import annotations

import logging
from functools import partial

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ccopt._progress import progress_bar
from ccopt._timing import Deadline
from ccopt._validation import check_n_clusters, check_nonnegative, check_positive_int
from ccopt._warnings import warn_user
from ccopt.cluster._base import ConstrainedClusterer, FitOutcome, function_twin
from ccopt.cluster._cop_kmeans import _DeadEnd, dead_end_error, revisit_in_order
from ccopt.cluster._init_centers import kmeanspp, squared_distances
from ccopt.cluster._kmeans import (
    _absolute_tol,
    _adjacency,
    _alternate,
    _check_init,
    _check_tol,
    _restarts,
    _subset_row_name,
)
from ccopt.constraints import Constraints
from ccopt.exceptions import ClusteringDeadEndError, ConvergenceWarning, InvalidParameterError
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["PCKMeans", "pckmeans"]

logger = logging.getLogger(__name__)

_INIT_CHOICES = ("neighborhoods", "k-means++")
_INF = float("inf")


class _PCKModel:
    """The problem as PCKmeans sees it: super-instances of the hard must-links, penalties."""

    def __init__(self, problem: ClusteringProblem, weight: float):
        cons = problem.constraints
        _check_penalty_range(weight, cons)
        n, k = problem.n_samples, problem.n_clusters
        hard_idx = np.flatnonzero(cons.hard)
        hard = Constraints(cons.pairs[hard_idx], cons.kinds[hard_idx], n_samples=n,
                           _row_name=partial(_subset_row_name, cons, hard_idx),
                           _warn_duplicates=False)
        self.hard = hard
        self.closure = hard.closure  # raises on a hard cannot-link inside hard must-links
        check_n_clusters(k, n, n_super_instances=self.closure.n_super)
        self.points, self.sizes = self.closure.super_instances(problem.X)
        n_super = self.closure.n_super

        soft = np.flatnonzero(~cons.hard)
        self.soft_pairs = cons.pairs[soft]
        self.soft_ml = cons.ml_mask[soft]
        self.soft_penalty = weight * cons.weights[soft]
        # Moving super-instance s to cluster h costs sum_t a_st [l_t = h] (+ a constant):
        # a cannot-link adds its penalty, a must-link takes its penalty off (its penalty is
        # due for every other cluster).
        ends = self.closure.component[self.soft_pairs]
        between = ends[:, 0] != ends[:, 1]
        coef = np.where(self.soft_ml, -self.soft_penalty, self.soft_penalty)[between]
        a, b = ends[between, 0], ends[between, 1]
        matrix = sp.coo_matrix((np.concatenate([coef, coef]), (np.concatenate([a, b]), np.concatenate([b, a]))),
                               shape=(n_super, n_super)).tocsr()
        matrix.sum_duplicates()
        soft_degree = np.diff(matrix.indptr)

        hard_cl_positions = hard_idx[hard.cl_indices]
        h_indptr, h_indices, h_data = _adjacency(n_super, self.closure.cl_pairs, hard_cl_positions)
        hard_degree = np.diff(h_indptr)
        self.constrained_mask = (soft_degree > 0) | (hard_degree > 0)

        # Only the m constrained super-instances are visited one by one; they are
        # renumbered 0..m-1 (nodes[local] = super-instance) so per-pass lists have length m.
        self.nodes = np.flatnonzero(self.constrained_mask)
        self.m = int(self.nodes.size)
        local = np.full(n_super, -1, dtype=np.int64)
        local[self.nodes] = np.arange(self.m)
        soft_idx, soft_dat = local[matrix.indices].tolist(), matrix.data.tolist()
        hard_idx, hard_dat = local[h_indices].tolist(), h_data.tolist()
        sp_ptr, h_ptr = matrix.indptr.tolist(), h_indptr.tolist()
        self.soft_nb, self.soft_coef, self.hard_nb, self.hard_pos = [], [], [], []
        for s in self.nodes.tolist():
            self.soft_nb.append(soft_idx[sp_ptr[s]:sp_ptr[s + 1]])
            self.soft_coef.append(soft_dat[sp_ptr[s]:sp_ptr[s + 1]])
            self.hard_nb.append(hard_idx[h_ptr[s]:h_ptr[s + 1]])
            self.hard_pos.append(hard_dat[h_ptr[s]:h_ptr[s + 1]])
        # The same adjacency as flat edge arrays, for the sweep of :meth:`assign` that takes
        # every node at once. The edges keep the order of the lists above, and np.add.at adds
        # in array order, so each cost sums its penalties exactly as the loop over the lists.
        self.soft_src = local[np.repeat(np.arange(n_super), soft_degree)]
        self.soft_dst = local[matrix.indices]
        self.soft_val = matrix.data
        self.hard_src = local[np.repeat(np.arange(n_super), hard_degree)]
        self.hard_dst = local[h_indices]
        # Whom a change of node s's label can affect: its soft and hard neighbours.
        self.neighbours = [list(dict.fromkeys(soft + hard))
                           for soft, hard in zip(self.soft_nb, self.hard_nb, strict=True)]
        within = problem.X - self.points[self.closure.component]
        self.within = float(np.einsum("ij,ij->", within, within))

    def dead_end_error(self, problem: ClusteringProblem, dead: _DeadEnd, n_tried: int, timed_out: bool,
                       algorithm: str, deadline: Deadline | None = None) -> ClusteringDeadEndError:
        """The error when every run was blocked by hard cannot-links.

        ``deadline`` (the fit's) bounds the complete search that decides whether a labelling exists.

        Raises
        ------
        InfeasibleConstraintsError
            No labelling satisfies the hard constraints (so no run could succeed).
        """
        return dead_end_error(problem, self.hard, self.closure, dead, n_tried, timed_out, algorithm=algorithm,
                              advice="Only hard cannot-links can block an object; make some of them soft "
                                     "(hard=False) or use more runs (n_init).", deadline=deadline)

    def objective(self, labels: np.ndarray, centers: np.ndarray) -> float:
        """``J`` of super-instance ``labels`` with ``centers``."""
        diff = self.points - centers[labels]
        distance = 0.5 * (float(self.sizes @ np.einsum("ij,ij->i", diff, diff)) + self.within)
        obj_labels = labels[self.closure.component]
        same = obj_labels[self.soft_pairs[:, 0]] == obj_labels[self.soft_pairs[:, 1]]
        violated = np.where(self.soft_ml, ~same, same)
        return distance + float(self.soft_penalty[violated].sum())

    def assign(self, centers: np.ndarray, previous: np.ndarray | None, *, order: np.ndarray):
        """One assignment pass; returns super-instance labels or a :class:`_DeadEnd`.

        ``order`` lists the constrained super-instances (local numbers) in visiting order;
        ``previous`` holds the labels of the last pass (``None`` in the first pass, where
        objects not visited yet carry no label and add no penalty).

        The pass is sequential (iterated conditional modes): each super-instance sees the
        labels already given in this pass to those visited before it and ``previous`` for the
        others. With ``previous``, it is computed as :meth:`_revisit` describes; the result,
        dead ends included, is that of the plain loop to the last bit.
        """
        cost = 0.5 * self.sizes[:, None] * squared_distances(self.points, centers)
        labels = np.argmin(cost, axis=1)
        if self.m == 0:
            return labels
        node_cost = cost[self.nodes]
        if previous is None:
            # Every label is new in the first pass, so there is nothing to reuse.
            lab = [-1] * self.m
            rows = node_cost.tolist()
            for s in order.tolist():
                h = self._best_cluster(s, rows[s], lab)
                if h < 0:
                    return self._dead_end(s, lab)
                lab[s] = h
        else:
            lab = previous[self.nodes].tolist()
            dead = self._revisit(node_cost, lab, order)
            if dead is not None:
                return dead
        labels[self.nodes] = lab
        return labels

    def _best_cluster(self, s: int, cost: list[float], lab: list[int]) -> int:
        """The cluster of least cost for node ``s`` given the labels ``lab``, or ``-1``.

        ``cost`` holds the distance costs of ``s`` (a list, updated in place). ``-1`` means
        that hard cannot-links close every cluster. Ties go to the lowest cluster, as
        ``np.argmin``.
        """
        for t, a in zip(self.soft_nb[s], self.soft_coef[s], strict=True):
            if lab[t] >= 0:
                cost[lab[t]] += a
        for t in self.hard_nb[s]:
            if lab[t] >= 0:
                cost[lab[t]] = _INF
        h = min(range(len(cost)), key=cost.__getitem__)
        return -1 if cost[h] == _INF else h

    def _dead_end(self, s: int, lab: list[int]) -> _DeadEnd:
        """Node ``s`` has no open cluster under ``lab``: one blocking constraint per cluster."""
        blockers: dict[int, int] = {}
        for t, pos in zip(self.hard_nb[s], self.hard_pos[s], strict=True):
            if lab[t] >= 0:
                blockers.setdefault(lab[t], pos)
        return _DeadEnd(int(self.nodes[s]), blockers)

    def _revisit(self, node_cost: np.ndarray, lab: list[int], order: np.ndarray) -> _DeadEnd | None:
        """The sequential pass from the labels ``lab`` of the last pass, updated in place.

        A node's choice depends only on its neighbours' labels at its turn: the new label of
        those visited before it, the last pass's label of the others. So every node's choice
        is first computed at once from the last pass's labels alone (``node_cost`` rows with
        the same penalty additions in the same order, hence the same sums). That choice is
        the sequential one for every node none of whose earlier neighbours changed label.
        The nodes whose choice differs from their label or is blocked, and the later
        neighbours of a node that changes (*stale*: their choice must be computed again from
        the labels of this pass), are then visited in visiting order, the others keep their
        label. Returns the :class:`_DeadEnd` of the first blocked node in visiting order, or
        ``None``.
        """
        m = self.m
        before = np.asarray(lab, dtype=np.int64)
        cost = node_cost.copy()
        known = before[self.soft_dst] >= 0  # -1 (no label) adds no penalty, as in the loop
        np.add.at(cost, (self.soft_src[known], before[self.soft_dst[known]]), self.soft_val[known])
        known = before[self.hard_dst] >= 0
        cost[self.hard_src[known], before[self.hard_dst[known]]] = np.inf
        choice = np.argmin(cost, axis=1)
        blocked = np.isinf(cost[np.arange(m), choice])
        position = np.empty(m, dtype=np.int64)
        position[order] = np.arange(m)
        visit, where = order.tolist(), position.tolist()
        choice_l, blocked_l = choice.tolist(), blocked.tolist()

        def choose(s: int, p: int, stale: bool) -> int:
            if stale:
                return self._best_cluster(s, node_cost[s].tolist(), lab)
            return -1 if blocked_l[s] else choice_l[s]

        return revisit_in_order(visit, where, (choice != before) | blocked, self.neighbours, lab, choose,
                                lambda s, p: self._dead_end(s, lab))


def _check_penalty_range(weight: float, constraints: Constraints) -> None:
    """Refuse penalties whose total overflows float64 once added to the distance term.

    ``weight`` and every constraint weight are finite on their own, but their products and
    sums need not be: an infinite penalty turns the assignment costs into ``inf - inf =
    nan`` (no run is ever kept) or closes clusters like a hard cannot-link (false dead
    ends). The distance term is at most half the float64 maximum (the data passed
    :func:`~ccopt._validation.check_distance_range`), so a total penalty below the other
    half keeps ``J`` and every assignment cost finite.

    Raises
    ------
    InvalidParameterError
        If ``2 * weight * sum(soft constraint weights)`` is not a finite float64.
    """
    if weight == 0.0:
        return
    with np.errstate(over="ignore"):
        soft_total = float(np.sum(constraints.weights[~constraints.hard]))
        doubled = 2.0 * (weight * soft_total)
    if not np.isfinite(doubled):
        raise InvalidParameterError(
            f"The constraint penalties overflow float64: weight={weight:g} times the total "
            f"weight {soft_total:g} of the soft constraints must stay below "
            f"{np.finfo(np.float64).max / 2:.3g}. Use a smaller weight or rescale the "
            "constraint weights."
        )


def _neighbourhood_centers(problem: ClusteringProblem, rng: np.random.Generator) -> np.ndarray:
    """Basu et al.'s initial centres from the must-link neighbourhoods (module docstring)."""
    cons, X, k, n = problem.constraints, problem.X, problem.n_clusters, problem.n_samples
    centers: list[np.ndarray] = []
    ml = cons.ml_pairs
    in_hood = np.unique(ml.reshape(-1))
    hood_of = np.full(n, -1, dtype=np.int64)
    n_hoods = 0
    if in_hood.size:
        graph = sp.coo_matrix((np.ones(ml.shape[0]), (ml[:, 0], ml[:, 1])), shape=(n, n)).tocsr()
        _, component = csgraph.connected_components(graph, directed=False)
        _, hood_of[in_hood] = np.unique(component[in_hood], return_inverse=True)
        n_hoods = int(hood_of.max()) + 1
        members = hood_of[in_hood]
        sizes = np.bincount(members, minlength=n_hoods)
        sums = np.zeros((n_hoods, X.shape[1]))
        np.add.at(sums, members, X[in_hood])
        centroids = sums / sizes[:, None]
        first_member = np.full(n_hoods, n, dtype=np.int64)
        np.minimum.at(first_member, members, in_hood)
        by_size = np.lexsort((first_member, -sizes))
        if n_hoods >= k:
            return centroids[by_size[:k]].copy()
        centers.extend(centroids[by_size])
    used = np.zeros(n, dtype=bool)
    used[in_hood] = True
    if n_hoods and cons.n_cl:
        cl = cons.cl_pairs
        objects = np.concatenate([cl[:, 0], cl[:, 1]])
        hoods = np.concatenate([hood_of[cl[:, 1]], hood_of[cl[:, 0]]])
        keep = (hoods >= 0) & (hood_of[objects] < 0)
        links = np.unique(np.column_stack([objects[keep], hoods[keep]]), axis=0)
        linked_to_all = np.flatnonzero(np.bincount(links[:, 0], minlength=n) == n_hoods)
        if linked_to_all.size:
            x = int(rng.choice(linked_to_all))
            centers.append(X[x])
            used[x] = True
    missing = k - len(centers)
    if missing > 0:
        pool = np.flatnonzero(~used)
        centers.extend(X[rng.choice(pool, size=min(missing, pool.size), replace=False)])
        missing = k - len(centers)
        if missing > 0:
            # Too few objects outside the neighbourhoods: draw the rest from their members.
            # Drawing from all objects could take the cannot-linked object again; of two
            # equal centres the higher one loses every distance tie and its cluster can stay
            # empty for the whole run.
            centers.extend(X[rng.choice(in_hood, size=missing, replace=False)])
    return np.array(centers[:k], dtype=np.float64)


class PCKMeans(ConstrainedClusterer):
    """PCKmeans (Basu et al. 2004): soft must-links and cannot-links with penalty weights.

    See the module docstring for the objective, the algorithm and the initialisation.

    Parameters
    ----------
    n_clusters : int
    weight : float, default=1.0
        Global penalty weight ``w``; a constraint's penalty is ``weight`` times its
        ``Constraints.weights`` entry. The distance term is ``1/2 ||x - mu||^2`` in the
        units of ``X``, so scale ``weight`` with the data. ``0`` gives k-means.
    init : {"neighborhoods", "k-means++"} or array-like of shape (n_clusters, n_features), \
default="neighborhoods"
        Basu et al.'s neighbourhood initialisation, weighted k-means++ on the hard must-link
        super-instances, or given centres.
    n_init : int, default=1
        Runs (each with a new random visiting order; ``init`` is random only in its last
        steps); the run with the lowest ``J`` is kept. Basu et al. run once. Given centres
        mean a single run.
    max_iter : int, default=300
    tol : float, default=1e-4
        Stop when no label changes or the centres move by at most ``tol`` times the mean
        feature variance.
    random_state : int, numpy.random.Generator or None, default=None
    time_limit : float or None, default=None
    progress : bool or "always", default=True
        A progress bar over the runs, drawn on a terminal at the first step that ends after a second
        (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    objective_ : float
        ``J`` of ``labels_`` with ``cluster_centers_``.
    inertia_ : float
    n_violations_ : dict
    constraints_, violations_, violated_
        The constraints used and which of them ``labels_`` violates: ``violations_`` by
        position in ``constraints_`` (duplicates merged), ``violated_`` per row as given;
        see :class:`~ccopt.cluster._base.ConstrainedClusterer`.
    n_iter_ : int
    status_ : Status
        ``converged``, ``stagnation`` (labels back to an earlier state with the same ``J``),
        ``iteration_limit``, ``time_limit`` or ``interrupted`` (Ctrl-C: the best run so far).
    objective_history_ : list of float
        ``J`` after each assignment pass of the kept run (with the centres it used);
        non-increasing.

    Raises
    ------
    ClusteringDeadEndError
        Hard cannot-links left an object no cluster in every run.
    InfeasibleConstraintsError
        A hard cannot-link joins two objects tied by hard must-links, the hard must-links
        leave fewer groups than clusters, or every run was blocked and
        :func:`~ccopt.constraints.check_feasibility` or the bounded complete search that
        follows it (:mod:`ccopt._dead_end`, at most 10 s or the rest of ``time_limit``)
        proves that no labelling satisfies the hard constraints.
    InvalidParameterError
        A bad parameter, or ``weight`` times the soft constraint weights so large that the
        penalties overflow float64.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.cluster import PCKMeans
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> pck = PCKMeans(2, weight=10.0, random_state=0).fit(X, ml=[(0, 1)], cl=[(1, 2)])
    >>> pck.n_violations_["total"]
    0
    """

    _single_blas_thread = True

    def __init__(self, n_clusters, *, weight=1.0, init="neighborhoods", n_init=1, max_iter=300,
                 tol=1e-4, random_state=None, time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.weight = weight
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        k = problem.n_clusters
        init = _check_init(self.init, _INIT_CHOICES, problem)
        weight = check_nonnegative(self.weight, "weight")
        n_init = check_positive_int(self.n_init, "n_init")
        max_iter = check_positive_int(self.max_iter, "max_iter")
        tol_abs = _absolute_tol(problem.X, _check_tol(self.tol))
        model = _PCKModel(problem, weight)
        runs = 1 if not isinstance(init, str) else n_init

        def one_run():
            if isinstance(init, np.ndarray):
                start = init
            elif init == "k-means++":
                start = kmeanspp(model.points, k, rng, model.sizes)
            else:
                start = _neighbourhood_centers(problem, rng)
            order = rng.permutation(model.m)
            return _alternate(partial(model.assign, order=order), model.points, model.sizes, start,
                              max_iter=max_iter, tol_abs=tol_abs, deadline=deadline,
                              record=model.objective)

        with progress_bar(runs, enabled=self.progress, desc="PCKmeans runs", unit="run") as bar:
            done = _restarts(runs, one_run, lambda run: model.objective(run.labels, run.centers),
                             deadline, bar)
        best, best_cost = done.best, done.cost
        if best is None:
            raise model.dead_end_error(problem, done.last_dead, done.tried, done.timed_out, "PCKmeans",
                                       deadline=deadline)
        status = done.status
        if status is Status.ITERATION_LIMIT:
            warn_user(f"PCKmeans stopped after max_iter={max_iter} iterations before its labels "
                      "settled.", ConvergenceWarning)
        logger.debug("PCKmeans: J = %.6g after %d iterations (%s)", best_cost, best.n_iter, status)
        return FitOutcome(labels=model.closure.expand(best.labels), centers=best.centers,
                          objective=best_cost, n_iter=best.n_iter, status=status,
                          extra={"objective_history": best.history})


pckmeans = function_twin(PCKMeans, "pckmeans")
