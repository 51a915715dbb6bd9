"""k-means with must-link sets and disjoint cannot-link sets (Jia, Guo, Liao, Lu).

Two estimators and the seeding they share:

- :func:`ml_kmeanspp_init` -- Algorithm 1 of the paper: k-means++ "D² weighting" where
  every must-link (ML) set is one "big point" at its mass centre, weighted by its size.
- :class:`MLKMeans` -- Algorithm 1, then the iterative phase (Algorithms 2-3): unconstrained
  objects and ML sets go to their nearest centre, the objects of each disjoint cannot-link
  (DCL) set are matched to pairwise different centres by a min-sum assignment
  (:func:`scipy.optimize.linear_sum_assignment`), centres are re-centred on the cluster
  means, until the cost stops decreasing. Every constraint is hard.
- :class:`GreedyMLKMeans` -- the greedy baseline of Sec. 6.1.1 (after Wagstaff et al.):
  uniform random centres, each ML set follows the nearest centre of its first object, the
  objects of each cannot-link set take, in input order, the nearest centre not yet used in
  that set.

Input and the reading chosen for general cannot-link pairs
----------------------------------------------------------
The paper takes ML *sets* and DCL *sets*: each DCL set's objects must lie in pairwise
different clusters, ``|Y| <= k``, DCL sets are disjoint and -- its generator (Sec. 6.1.3)
merges each ML set into one point before sampling -- every ML set meets at most one DCL set.
ccopt passes constraints as pairs, so the sets are recovered from the pairs:

* ML sets are the connected components of the must-link graph (the closure), as in the paper.
* The cannot-link pairs are mapped onto those components; each connected component of the
  resulting cannot-link graph that is a *clique* is one DCL set. Input generated as the paper
  does (every pair inside every set) always has this form, and then the algorithm is exactly
  the paper's: the assignment step is optimal for fixed centres and the cost never increases
  (Lemma 6). A clique larger than ``k`` is infeasible and rejected.
* A component that is not a clique (general cannot-link pairs, outside the paper's input) is
  still handled, never dropped: it is split greedily into disjoint cliques that are matched
  one after the other, each forbidden the clusters its already-placed cannot-link neighbours
  took. The result is feasible but need not be optimal for the fixed centres, so the new
  labelling of such a component is kept only when it costs no more than the component's
  previous labelling under the new centres. Components are independent given the centres, so
  the cost still never increases; only the optimality of the assignment step is lost.

Greedy baseline: an ML set that meets a cannot-link set is placed once, as a whole, when its
first object comes up in input order, and ranks the centres by that object's distances (the
order of COP-kmeans, which step (2)'s "first data point encountered/processed" describes),
not by the distances of the member named in the cannot-link set.

Other readings: step 1 of Algorithm 1 picks an *object* uniformly and, if it lies in an ML
set, uses that set's mass centre (the proof of Lemma 3 charges the ML set's mass centre);
an ML set whose mass centre already is a centre gets probability zero (the printed rule would
give it ``sum ||x - mean||²`` and could pick the same centre twice); an empty cluster keeps
its previous centre (the cost of the other clusters is unchanged, so Lemma 6 still holds).
"""

from __future__ import annotations

import heapq
import logging
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csgraph
from scipy.spatial.distance import cdist

from ccopt._dead_end import feasibility_note
from ccopt._progress import progress_bar
from ccopt._timing import Deadline
from ccopt._validation import check_nonnegative, check_positive_int, check_random_state
from ccopt._warnings import warn_user
from ccopt.cluster._base import ConstrainedClusterer, FitOutcome, function_twin
from ccopt.cluster._kmeans import _check_init, _partition_key, _weighted_means
from ccopt.constraints import MustLinkClosure
from ccopt.exceptions import (
    ClusteringDeadEndError,
    ConvergenceWarning,
    InfeasibleConstraintsError,
)
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["GreedyMLKMeans", "MLKMeans", "greedy_ml_kmeans", "ml_kmeans", "ml_kmeanspp_init"]

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- data on ML sets
@dataclass(frozen=True)
class _SuperInstances:
    """The must-link sets as weighted points (Lemma 2: an ML set costs as its mass centre).

    Attributes
    ----------
    means : ndarray, shape (n_super, n_features)
        Mass centre of each ML set (the object itself for a singleton).
    weights : ndarray, shape (n_super,)
        Number of objects in each ML set.
    spread : ndarray, shape (n_super,)
        ``sum_{x in X} ||x - mean(X)||²`` per ML set (zero for singletons).
    first : ndarray of int, shape (n_super,)
        Smallest object index of each ML set (its first object in input order).
    component : ndarray of int, shape (n_samples,)
        ML set of each object.
    """

    means: np.ndarray
    weights: np.ndarray
    spread: np.ndarray
    first: np.ndarray
    component: np.ndarray

    @classmethod
    def from_closure(cls, X: np.ndarray, closure: MustLinkClosure) -> _SuperInstances:
        means, weights = closure.super_instances(X)
        component = np.asarray(closure.component)
        spread = np.bincount(component, weights=((X - means[component]) ** 2).sum(axis=1),
                             minlength=weights.shape[0])
        # Super-instances are numbered by their smallest member, so first occurrences are it.
        _, first = np.unique(component, return_index=True)
        return cls(means=means, weights=weights, spread=spread, first=first.astype(np.int64),
                   component=component)

    @property
    def n_super(self) -> int:
        return int(self.weights.shape[0])

    @property
    def total_spread(self) -> float:
        return float(self.spread.sum())


# ---------------------------------------------------------------------------- Algorithm 1
def _ml_kmeanspp(sup: _SuperInstances, k: int, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1: D² sampling over objects, an ML set represented by its mass centre.

    Sampling an object ``p`` with probability proportional to ``D²(p)`` and mapping it to its
    ML set ``X`` is the same as sampling ``X`` with probability proportional to
    ``sum_{p in X} D²(p) = |X| d²_min(mean(X), C) + sum_{p in X} ||p - mean(X)||²``
    (steps 4-8 of Algorithm 1 summed over ``X``), which is what is drawn here.
    """
    n_super = sup.n_super
    centers = np.empty((k, sup.means.shape[1]))
    first = rng.choice(n_super, p=sup.weights / sup.weights.sum())
    centers[0] = sup.means[first]
    d2min = cdist(sup.means, centers[:1], "sqeuclidean").ravel()
    for c in range(1, k):
        mass = sup.weights * d2min + sup.spread
        # An ML set whose mass centre is already a centre would add that centre again.
        mass[d2min <= 0.0] = 0.0
        total = mass.sum()
        if total > 0.0:
            pick = rng.choice(n_super, p=mass / total)
        else:
            # Fewer distinct positions than k: any further centre duplicates one; pick uniformly.
            pick = rng.choice(n_super, p=sup.weights / sup.weights.sum())
        centers[c] = sup.means[pick]
        d2min = np.minimum(d2min, cdist(sup.means, centers[c:c + 1], "sqeuclidean").ravel())
    return centers


def ml_kmeanspp_init(X, n_clusters, *, ml=None, constraints=None, random_state=None) -> np.ndarray:
    """ML-aware k-means++ seeding (Jia et al., Algorithm 1).

    Every must-link set (connected component of the must-link pairs) acts as one point at its
    mass centre with weight ``|X|``; the first centre is drawn uniformly over objects, every
    further centre with probability proportional to the object's cost

    .. math::

        D^2(p) = \\begin{cases} d^2_{\\min}(\\bar X, C) + \\lVert p - \\bar X\\rVert^2
        & p \\in X \\text{ (an ML set with mass centre } \\bar X) \\\\
        d^2_{\\min}(p, C) & \\text{otherwise,} \\end{cases}

    and when ``p`` lies in an ML set the new centre is that set's mass centre. The expected
    cost of these centres is at most :math:`8(\\ln k + 2)` times the optimum of k-means with
    must-links (Theorem 1; the extracted text reads "8(nk + 2)", a garbled ``ln k`` given the
    O(log k) claim). Cannot-links play no part in the seeding (Sec. 6).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
        Number of centres ``k``; at most the number of must-link sets.
    ml : array-like of int, shape (m, 2), optional
        Must-link pairs (0-based object indices).
    constraints : Constraints, optional
        Alternative to ``ml``; only its must-links are used.
    random_state : int, numpy.random.Generator or None, default=None

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
        Each row is a data point or the mass centre of a must-link set.

    Raises
    ------
    InvalidDataError, InvalidConstraintError, InvalidParameterError

    Examples
    --------
    >>> from ccopt.cluster import ml_kmeanspp_init
    >>> import numpy as np
    >>> X = np.array([[0.0], [2.0], [10.0], [11.0]])
    >>> C = ml_kmeanspp_init(X, 2, ml=[(0, 1), (2, 3)], random_state=0)
    >>> sorted(C.ravel().tolist())
    [1.0, 10.5]
    """
    # The cannot-links play no part in the seeding, but the constraints must be consistent.
    problem = ClusteringProblem.create(X, n_clusters, constraints, ml=ml)
    rng = check_random_state(random_state)
    sup = _SuperInstances.from_closure(problem.X, problem.closure)
    return _ml_kmeanspp(sup, problem.n_clusters, rng)


# ---------------------------------------------------------------------------- DCL sets
@dataclass(frozen=True)
class _MixedComponent:
    """A cannot-link component that is not a clique (outside the paper's DCL input).

    Attributes
    ----------
    nodes : ndarray of int
        Its super-instances.
    cliques : list of ndarray of int
        Disjoint cliques covering ``nodes``, as local positions into ``nodes``, in the order
        they are matched.
    neighbours : list of ndarray of int
        Cannot-link neighbours of each node, as local positions.
    """

    nodes: np.ndarray
    cliques: list
    neighbours: list


@dataclass(frozen=True)
class _CannotLinkSets:
    """Cannot-link constraints on super-instances, as DCL sets plus any non-clique parts.

    Attributes
    ----------
    dcl_sets : list of ndarray of int
        Components that are cliques: the paper's disjoint cannot-link sets.
    mixed : list of _MixedComponent
        Components that are not cliques.
    involved : ndarray of bool, shape (n_super,)
        Super-instances with at least one cannot-link.
    adjacency : scipy.sparse.csr_matrix, shape (n_super, n_super)
        Symmetric cannot-link adjacency between super-instances.
    """

    dcl_sets: list
    mixed: list
    involved: np.ndarray
    adjacency: sp.csr_matrix


def _cannot_link_sets(closure: MustLinkClosure, first: np.ndarray, k: int) -> _CannotLinkSets:
    """Recover the DCL sets from cannot-link pairs (see the module docstring)."""
    n_super = closure.n_super
    pairs = np.sort(np.asarray(closure.cl_pairs, dtype=np.int64), axis=1)
    if pairs.shape[0] == 0:
        empty = sp.csr_matrix((n_super, n_super))
        return _CannotLinkSets([], [], np.zeros(n_super, dtype=bool), empty)
    # Two object pairs can join the same two ML sets; count each edge once.
    pairs = np.unique(pairs, axis=0)
    ones = np.ones(pairs.shape[0])
    adjacency = sp.coo_matrix((ones, (pairs[:, 0], pairs[:, 1])), shape=(n_super, n_super))
    adjacency = (adjacency + adjacency.T).tocsr()
    degree = np.diff(adjacency.indptr)
    involved = degree > 0
    _, comp = csgraph.connected_components(adjacency, directed=False)
    comp_nodes = np.bincount(comp[involved])
    comp_edges = np.bincount(comp[pairs[:, 0]], minlength=comp_nodes.shape[0])
    is_clique = comp_edges == comp_nodes * (comp_nodes - 1) // 2

    too_big = np.flatnonzero(is_clique & (comp_nodes > k))
    if too_big.size:
        members = np.flatnonzero(comp == too_big[0])
        objects = sorted(int(o) for o in first[members])
        raise InfeasibleConstraintsError(
            f"Objects {objects} (or their must-link groups) pairwise cannot-link each other: "
            f"{members.size} objects need {members.size} clusters, only n_clusters={k} allowed.",
            certificate=objects,
        )
    nodes_of = _group_by(comp, involved)
    dcl_sets = [nodes_of[c] for c in np.flatnonzero(is_clique & (comp_nodes > 0))]
    mixed = [_split_into_cliques(nodes_of[c], adjacency, k)
             for c in np.flatnonzero(~is_clique & (comp_nodes > 0))]
    if mixed:
        logger.info("%d cannot-link component(s) are not cliques (not disjoint cannot-link sets); "
                    "they are split greedily into cliques.", len(mixed))
    return _CannotLinkSets(dcl_sets, mixed, involved, adjacency)


def _group_by(comp: np.ndarray, mask: np.ndarray) -> dict:
    """Map each component id to its (masked) nodes, ascending."""
    nodes = np.flatnonzero(mask)
    order = np.argsort(comp[nodes], kind="stable")
    nodes = nodes[order]
    ids, starts = np.unique(comp[nodes], return_index=True)
    return dict(zip(ids.tolist(), np.split(nodes, starts[1:]), strict=True))


def _split_into_cliques(nodes: np.ndarray, adjacency: sp.csr_matrix, k: int) -> _MixedComponent:
    """Greedy partition of one component into disjoint cliques of at most ``k`` nodes.

    Repeatedly start from the unplaced node of largest degree and add unplaced neighbours
    (largest degree first) that are adjacent to every node taken so far.
    """
    local = {int(v): i for i, v in enumerate(nodes)}
    neighbours = [np.array([local[int(u)] for u in adjacency.indices[adjacency.indptr[v]:adjacency.indptr[v + 1]]],
                           dtype=np.int64) for v in nodes]
    neighbour_sets = [set(nb.tolist()) for nb in neighbours]
    degree = np.array([nb.size for nb in neighbours])
    order = np.argsort(-degree, kind="stable")
    placed = np.zeros(nodes.size, dtype=bool)
    cliques = []
    for start in order:
        if placed[start]:
            continue
        clique = [int(start)]
        candidates = [u for u in neighbours[start] if not placed[u]]
        candidates.sort(key=lambda u: -degree[u])
        for u in candidates:
            if len(clique) >= k:
                break
            if all(w in neighbour_sets[u] for w in clique):
                clique.append(int(u))
        placed[clique] = True
        cliques.append(np.array(clique, dtype=np.int64))
    return _MixedComponent(nodes=nodes, cliques=cliques, neighbours=neighbours)


# ---------------------------------------------------------------------------- Algorithm 2
def _jia_assign(cost: np.ndarray, cls: _CannotLinkSets, previous: np.ndarray | None) -> np.ndarray:
    """Assignment step (Algorithm 2) for fixed centres.

    Parameters
    ----------
    cost : ndarray, shape (n_super, k)
        ``w_s ||mean_s - c||²``: the cost of putting ML set ``s`` in cluster ``c``, up to a
        constant (Lemma 2).
    cls : _CannotLinkSets
    previous : ndarray of int, shape (n_super,) or None
        The previous labelling (feasible), used for the non-clique components only.

    Returns
    -------
    labels : ndarray of int, shape (n_super,)
    """
    labels = cost.argmin(axis=1)
    for members in cls.dcl_sets:
        # Min-sum matching of the set's ML sets to pairwise different centres (steps 10-17).
        rows, cols = linear_sum_assignment(cost[members])
        labels[members[rows]] = cols
    for part in cls.mixed:
        labels[part.nodes] = _assign_mixed(part, cost[part.nodes],
                                           None if previous is None else previous[part.nodes])
    return labels


def _assign_mixed(part: _MixedComponent, cost: np.ndarray, previous: np.ndarray | None) -> np.ndarray:
    """Clique-by-clique matching of a non-clique component; never worse than ``previous``."""
    k = cost.shape[1]
    labels = np.full(part.nodes.size, -1, dtype=np.int64)
    feasible = True
    for clique in part.cliques:
        sub = cost[clique].copy()
        for row, node in enumerate(clique):
            taken = labels[part.neighbours[node]]
            sub[row, taken[taken >= 0]] = np.inf
        try:
            rows, cols = linear_sum_assignment(sub)
        except ValueError:  # every matching uses a forbidden cluster
            feasible = False
            break
        labels[clique[rows]] = cols
    local = np.arange(part.nodes.size)
    if previous is not None:
        if not feasible or cost[local, labels].sum() > cost[local, previous].sum():
            return previous
        return labels
    if feasible:
        return labels
    return _colour_component(part, cost, k)


def _colour_component(part: _MixedComponent, cost: np.ndarray, k: int) -> np.ndarray:
    """First feasible labelling of a component where the clique matching got stuck (DSATUR)."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(part.nodes.size))
    graph.add_edges_from((i, int(j)) for i, nb in enumerate(part.neighbours) for j in nb if i < j)
    colouring = nx.greedy_color(graph, strategy="DSATUR")
    colours = np.array([colouring[i] for i in range(part.nodes.size)], dtype=np.int64)
    n_colours = int(colours.max()) + 1
    if n_colours > k:
        raise ClusteringDeadEndError(
            f"Found no labelling with n_clusters={k} of the cannot-link component on ML sets "
            f"{part.nodes[:10].tolist()}{' ...' if part.nodes.size > 10 else ''} (greedy colouring "
            f"needs {n_colours} clusters). Its cannot-links are not disjoint sets; give them as "
            "disjoint cannot-link sets if they are meant to be."
        )
    # Colour classes are interchangeable: give each the cluster that makes it cheapest.
    class_cost = np.zeros((n_colours, k))
    np.add.at(class_cost, colours, cost)
    _, cluster_of = linear_sum_assignment(class_cost)
    return cluster_of[colours]


# ---------------------------------------------------------------------------- Algorithm 3
@dataclass
class _Run:
    """One seeded run: labels per ML set, centres, cost and its history."""

    labels: np.ndarray
    centers: np.ndarray
    objective: float
    history: list
    n_iter: int
    status: Status
    seeds: np.ndarray


def _recentre(sup: _SuperInstances, labels: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """Mass centres of the clusters (step 5); an empty cluster keeps its centre."""
    return _weighted_means(sup.means, sup.weights, labels, centers.shape[0], centers)


def _weighted_cost(sup: _SuperInstances, centers: np.ndarray) -> np.ndarray:
    return sup.weights[:, None] * cdist(sup.means, centers, "sqeuclidean")


def _at_own_means(sup: _SuperInstances, state: tuple) -> tuple:
    """``(labels, centers, cost)`` with the centres moved to the clusters' means and the cost there."""
    labels, centers, _ = state
    centers = _recentre(sup, labels, centers)
    cost = sup.total_spread + float(_weighted_cost(sup, centers)[np.arange(labels.size), labels].sum())
    return labels, centers, cost


def _alternate_runs(sup: _SuperInstances, seeds: np.ndarray, assign, *, max_iter: int,
                    deadline: Deadline, bar, tol: float | None = None) -> _Run:
    """Assign, recentre, repeat from ``seeds``; ``cost`` is ``sum_p ||p - c(p)||²`` (eq. 6).

    ``assign(centers, cost_matrix, previous_labels)`` returns the labels of the super-instances
    (``previous_labels`` is None at the start). Stops when the clusters settle (the same
    groups, even under other cluster numbers) or, with ``tol``, when the cost no longer
    decreases by more than ``tol * cost`` (Jia et al. step 8).
    """
    cost_matrix = _weighted_cost(sup, seeds)
    labels = assign(seeds, cost_matrix, None)
    rows = np.arange(labels.size)
    # (labels, the centres they were assigned to, their cost): replaced whole, so an interrupt
    # never leaves a labelling paired with other centres.
    state = (labels, seeds, sup.total_spread + float(cost_matrix[rows, labels].sum()))
    history = [state[2]]
    status = Status.ITERATION_LIMIT
    n_iter = 0
    seen = {_partition_key(labels): 0}  # each partition met, by canonical form: its step
    states = [state]
    try:
        while n_iter < max_iter:
            if deadline.expired():
                status = Status.TIME_LIMIT
                break
            labels, centers, cost = state
            centers = _recentre(sup, labels, centers)  # step 5
            cost_matrix = _weighted_cost(sup, centers)
            new_labels = assign(centers, cost_matrix, labels)  # step 7
            state = (new_labels, centers, sup.total_spread + float(cost_matrix[rows, new_labels].sum()))
            n_iter += 1
            bar.update(1)
            history.append(state[2])
            # The greedy pass can hand the same groups round the centres (each group's first
            # object nearest another group's mean), renumbering the clusters at every step
            # with nothing else changing; comparing label vectors would never stop that.
            key = _partition_key(new_labels)
            settled = seen.get(key) == n_iter - 1  # the partition of the step before
            if settled or (tol is not None and cost - state[2] <= tol * cost):
                status = Status.CONVERGED
                break
            if key in seen:
                # The greedy pass need not lower the cost, and it can hand partitions round a
                # cycle for ever; which one max_iter stopped on was then a matter of where it
                # fell in the cycle. Stop at once and keep the cycle's partition of lowest cost
                # at its own means (each state's cost is measured at the centres it was
                # assigned to).
                state = min((_at_own_means(sup, candidate) for candidate in states[seen[key]:]),
                            key=lambda candidate: candidate[2])
                status = Status.STAGNATION
                break
            seen[key] = n_iter
            states.append(state)
    except KeyboardInterrupt:
        status = Status.INTERRUPTED
    labels, centers, cost = state
    return _Run(labels, centers, cost, history[:n_iter + 1], n_iter, status, seeds)


def _jia_run(sup: _SuperInstances, cls: _CannotLinkSets, seeds: np.ndarray, *, max_iter: int,
             tol: float, deadline: Deadline, bar) -> _Run:
    """Algorithm 3 from the given centres: min-sum matching per cannot-link set each step."""
    return _alternate_runs(sup, seeds, lambda centers, cost, previous: _jia_assign(cost, cls, previous),
                           max_iter=max_iter, deadline=deadline, bar=bar, tol=tol)


# ---------------------------------------------------------------------------- greedy baseline
def _greedy_assign(X: np.ndarray, sup: _SuperInstances, cls: _CannotLinkSets,
                   centers: np.ndarray) -> np.ndarray:
    """Sec. 6.1.1 steps (2)-(3): each ML set follows its first object's nearest centre; the
    ML sets in cannot-links take, in input order, the nearest centre none of their
    already-placed cannot-link partners uses.

    Equivalent to visiting every ML set in a cannot-link in input order, but visits only
    those that can move. A set keeps its nearest centre unless an earlier partner (smaller
    id, i.e. placed before it) ends up there; an earlier partner that kept its own nearest
    centre is seen at once, so only sets clashing with such a partner, and later partners
    of a set that moved, are visited, smallest id first.
    """
    dist = cdist(X[sup.first], centers, "sqeuclidean")
    labels = dist.argmin(axis=1)
    if not cls.involved.any():
        return labels
    indptr, indices = cls.adjacency.indptr, cls.adjacency.indices
    owner = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    clash = (indices < owner) & (labels[indices] == labels[owner])
    to_visit = np.unique(owner[clash]).tolist()
    queued = set(to_visit)
    # Visits pop in ascending id and only push larger ids, so when a set is popped every
    # earlier partner already has its final label, as in the input-order loop.
    heapq.heapify(to_visit)
    while to_visit:
        s = heapq.heappop(to_visit)
        partners = indices[indptr[s]:indptr[s + 1]]
        taken = set(labels[partners[partners < s]].tolist())
        if labels[s] not in taken:
            continue
        # Stable ranking: among equally near centres the lowest number wins, as argmin.
        for c in np.argsort(dist[s], kind="stable"):
            if c not in taken:
                labels[s] = c
                break
        else:
            raise ClusteringDeadEndError(
                f"Greedy assignment dead end: object {int(sup.first[s])} cannot-links objects that "
                f"already use all {centers.shape[0]} clusters. The cannot-links are not disjoint "
                "sets of at most n_clusters objects; use MLKMeans or check the constraints."
            )
        # It moved: its later partners may now clash with it.
        for u in partners[partners > s].tolist():
            if u not in queued:
                queued.add(u)
                heapq.heappush(to_visit, u)
    return labels


def _greedy_run(X: np.ndarray, sup: _SuperInstances, cls: _CannotLinkSets, seeds: np.ndarray, *,
                max_iter: int, deadline: Deadline, bar) -> _Run:
    """The greedy baseline iterated like k-means until the clusters stop changing."""
    return _alternate_runs(sup, seeds, lambda centers, cost, previous: _greedy_assign(X, sup, cls, centers),
                           max_iter=max_iter, deadline=deadline, bar=bar)


def _best_run(one_run, runs: int, max_iter: int, progress, name: str, deadline: Deadline | None = None):
    """Call ``one_run(bar)`` ``runs`` times and keep the lowest ``objective``.

    Stops early when a run ran out of time or was interrupted (the kept run then carries that
    status), also when Ctrl-C comes before a restart has a labelling of its own (it propagates
    only when no earlier run has one), and warns when the kept run stopped on ``max_iter``.
    A run may return ``None``
    (PCS: hard cannot-links blocked it); the next restart is tried unless ``deadline`` has
    expired, and ``None`` is returned when no run gave a clustering. Shared with
    :mod:`ccopt.cluster._pcs`.
    """
    best = None
    with progress_bar(runs * max_iter, enabled=progress, desc=name, unit="iter") as bar:
        for restart in range(runs):
            try:
                run = one_run(bar)
            except KeyboardInterrupt:
                if best is None:
                    raise
                best.status = Status.INTERRUPTED
                break
            if run is None:
                logger.debug("%s run %d: no clustering", name, restart)
                if deadline is not None and deadline.expired():
                    break
                continue
            bar.update(max_iter - run.n_iter)
            logger.debug("%s run %d: objective %.6g after %d iterations (%s)", name, restart,
                         run.objective, run.n_iter, run.status)
            if best is None or run.objective < best.objective:
                best = run
            if run.status in (Status.TIME_LIMIT, Status.INTERRUPTED):
                best.status = run.status
                break
    if best is not None and best.status is Status.ITERATION_LIMIT:
        warn_user(f"{name} stopped after max_iter={max_iter} iterations before the labels "
                  "settled.", ConvergenceWarning)
    return best


# ---------------------------------------------------------------------------- estimators
class _JiaBase(ConstrainedClusterer):
    """Shared driver: validation, restarts, progress, fitted attributes."""

    _requires_feasible_closure = True
    _single_blas_thread = True
    _init_names: tuple = ()
    _name = ""

    def _check_params(self, problem: ClusteringProblem) -> None:
        check_positive_int(self.n_init, "n_init")
        check_positive_int(self.max_iter, "max_iter", minimum=0)
        self._init = _check_init(self.init, self._init_names, problem)

    def _seed(self, sup: _SuperInstances, k: int, rng: np.random.Generator, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _run(self, X, sup, cls, seeds, deadline, bar) -> _Run:
        raise NotImplementedError

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        self._check_params(problem)
        k = problem.n_clusters
        sup = _SuperInstances.from_closure(problem.X, problem.closure)
        cls = _cannot_link_sets(problem.closure, sup.first, k)
        runs = 1 if isinstance(self._init, np.ndarray) else self.n_init  # given centres: one run

        def one_run(bar):
            seeds = self._init.copy() if isinstance(self._init, np.ndarray) else self._seed(sup, k, rng, problem.X)
            return self._run(problem.X, sup, cls, seeds, deadline, bar)

        try:
            best = _best_run(one_run, runs, self.max_iter, self.progress, self._name)
        except ClusteringDeadEndError as exc:
            # A dead end may only be this greedy pass's (or colouring's) failure; when no
            # labelling exists at all, say that instead, with its proof, as COP-kmeans does.
            # Raises InfeasibleConstraintsError when the constraints are proven infeasible.
            note = feasibility_note(problem.constraints, k, deadline=deadline)
            raise ClusteringDeadEndError(f"{exc} {note}") from None
        return FitOutcome(
            labels=best.labels[sup.component],
            centers=best.centers,
            objective=best.objective,
            n_iter=best.n_iter,
            status=best.status,
            extra={"cost_history": list(best.history), "seed_centers": best.seeds},
        )


class MLKMeans(_JiaBase):
    """k-means with must-link sets and disjoint cannot-link sets (Jia et al.).

    Seeds with :func:`ml_kmeanspp_init` (Algorithm 1), then alternates (Algorithm 3)

    * **assignment** (Algorithm 2): every must-link set goes, as one point of weight ``|X|``
      at its mass centre, to its nearest centre; the must-link sets of each disjoint
      cannot-link set ``Y`` are matched to pairwise different centres by the min-sum
      assignment :math:`\\min \\sum_{p \\in Y} |X_p|\\, \\lVert \\bar X_p - c(p)\\rVert^2`;
    * **re-centring**: every centre moves to the mean of its cluster,

    while the constrained k-means cost

    .. math::

        \\psi(\\mathcal A, C) = \\sum_{i=1}^{k} \\sum_{p \\in A_i} \\lVert p - c_i \\rVert_2^2
        \\qquad \\text{(eq. 6)}

    never increases (Lemma 6): both steps are optimal for the other's output. The loop stops
    when a step does not lower it. Every must-link and cannot-link is hard; weights
    and ``hard`` flags of the constraints are not used. See the module docstring for how
    cannot-link pairs that do not form disjoint sets are handled.

    Parameters
    ----------
    n_clusters : int
        Number of clusters ``k``.
    init : {"k-means++"} or array-like of shape (n_clusters, n_features), default="k-means++"
        ``"k-means++"``: Algorithm 1 (:func:`ml_kmeanspp_init`); an array: these centres
        (then a single run whatever ``n_init``).
    n_init : int, default=1
        Number of seeded runs; the one with the lowest cost is kept.
    max_iter : int, default=300
        Maximum number of re-centring steps per run.
    tol : float, default=0.0
        Stop once a step lowers the cost by at most ``tol * cost``; 0 is the paper's rule
        (stop when the cost does not strictly decrease).
    random_state : int, numpy.random.Generator or None, default=None
    time_limit : float or None, default=None
        Seconds; on expiry the best labelling so far is returned with status ``time_limit``.
    progress : bool or "always", default=True
        A progress bar over the iterations of the runs, drawn on a terminal at the first step that
        ends after a second (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_ : ndarray of int, shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centres the final labelling was assigned to.
    objective_ : float
        Final cost (eq. 6).
    inertia_ : float
        Within-cluster sum of squares of ``labels_``.
    cost_history_ : list of float
        Cost after the first assignment and after every iteration; never increasing.
    seed_centers_ : ndarray of shape (n_clusters, n_features)
        Starting centres of the kept run.
    n_violations_, constraints_, violations_, violated_, n_iter_, status_
        See :class:`~ccopt.cluster._base.ConstrainedClusterer`.

    Raises
    ------
    InfeasibleConstraintsError
        A cannot-link inside a must-link set, fewer must-link sets than ``n_clusters``, a
        cannot-link clique larger than ``n_clusters``, or no labelling found and
        :func:`~ccopt.constraints.check_feasibility` or the bounded complete search of
        :func:`ccopt._dead_end.feasibility_note` proves that none exists (e.g.
        ``n_clusters=1`` with any cannot-link, or an odd wheel of cannot-links with
        ``n_clusters=3``).
    ClusteringDeadEndError
        Only for cannot-links that are not disjoint sets: no labelling found, though one
        may exist (the message says that one does, or that the search stopped at its bound).

    Examples
    --------
    >>> from ccopt import MLKMeans
    >>> import numpy as np
    >>> X = np.array([[0.0, 0], [0, 1], [5, 5], [5, 6], [0, 0.5], [5, 5.5]])
    >>> est = MLKMeans(2, random_state=0, progress=False).fit(X, ml=[(0, 1)], cl=[(4, 5)])
    >>> est.labels_[0] == est.labels_[1], est.labels_[4] != est.labels_[5]
    (np.True_, np.True_)
    """

    _init_names = ("k-means++",)
    _name = "MLKMeans"

    def __init__(self, n_clusters, *, init="k-means++", n_init=1, max_iter=300, tol=0.0,
                 random_state=None, time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _check_params(self, problem):
        super()._check_params(problem)
        self._tol = check_nonnegative(self.tol, "tol")

    def _seed(self, sup, k, rng, X):
        return _ml_kmeanspp(sup, k, rng)

    def _run(self, X, sup, cls, seeds, deadline, bar):
        return _jia_run(sup, cls, seeds, max_iter=self.max_iter, tol=self._tol, deadline=deadline,
                        bar=bar)


class GreedyMLKMeans(_JiaBase):
    """The greedy baseline of Jia et al., Sec. 6.1.1 (after Wagstaff et al.'s COP-kmeans).

    (1) ``k`` centres are drawn uniformly from the objects; (2) every must-link set is put,
    whole, in the cluster of the centre nearest to its first object (input order); (3) the
    objects of each cannot-link set are placed in input order, each in its nearest centre
    not yet used by the set (second nearest, and so on). Centres then move to the cluster
    means and (2)-(3) repeat until the clusters stop changing (the same groups, even under
    other cluster numbers: the greedy pass can swap the numbers of two clusters from one
    step to the next, as when each of two must-link sets has its first object nearer the
    other's mean). Nothing guarantees the cost decreases or the loop settles; ``max_iter``
    bounds it. An ML set in a cannot-link set is placed by its first object, at that
    object's turn (module docstring). For general cannot-link pairs, an object avoids the
    clusters of all already-placed cannot-link partners; a dead end raises
    :class:`~ccopt.exceptions.ClusteringDeadEndError` (it cannot happen for disjoint
    cannot-link sets of at most ``k`` objects).

    Parameters
    ----------
    n_clusters : int
    init : {"random"} or array-like of shape (n_clusters, n_features), default="random"
        ``k`` distinct objects drawn uniformly (step (1)), or given centres (then one run).
    n_init : int, default=1
        Runs; the one with the lowest cost (eq. 6) is kept.
    max_iter : int, default=300
    random_state : int, numpy.random.Generator or None, default=None
    time_limit : float or None, default=None
    progress : bool or "always", default=True
        A progress bar over the iterations of the runs, drawn on a terminal at the first step that
        ends after a second (``"always"``: drawn at once, terminal or not).

    Attributes
    ----------
    labels_, cluster_centers_, objective_, inertia_, cost_history_, seed_centers_,
    n_violations_, constraints_, violations_, violated_, n_iter_, status_
        As for :class:`MLKMeans` (``cost_history_`` need not decrease). ``status_`` is
        ``stagnation`` when the passes came back to an earlier partition (the run stops there
        and keeps the cycle's partition of lowest cost at its own means, which
        ``objective_`` and ``cluster_centers_`` then give; ``cost_history_`` records the
        passes), besides ``converged``, ``iteration_limit``,
        ``time_limit`` and ``interrupted``.

    Raises
    ------
    InfeasibleConstraintsError
        As for :class:`MLKMeans`: the constraints are proven infeasible, before the runs
        or when a run reached a dead end.
    ClusteringDeadEndError
        A run reached a dead end and no proof of infeasibility was found (the message says
        whether a labelling is known to exist).

    Examples
    --------
    >>> from ccopt import GreedyMLKMeans
    >>> import numpy as np
    >>> X = np.array([[0.0, 0], [0, 1], [5, 5], [5, 6]])
    >>> GreedyMLKMeans(2, random_state=1, progress=False).fit(X, cl=[(0, 1)]).n_violations_["cl"]
    0
    """

    _init_names = ("random",)
    _name = "GreedyMLKMeans"

    def __init__(self, n_clusters, *, init="random", n_init=1, max_iter=300, random_state=None,
                 time_limit=None, progress=True):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.time_limit = time_limit
        self.progress = progress

    def _seed(self, sup, k, rng, X):
        return X[rng.choice(X.shape[0], size=k, replace=False)].copy()

    def _run(self, X, sup, cls, seeds, deadline, bar):
        return _greedy_run(X, sup, cls, seeds, max_iter=self.max_iter, deadline=deadline, bar=bar)


ml_kmeans = function_twin(MLKMeans, "ml_kmeans")
greedy_ml_kmeans = function_twin(GreedyMLKMeans, "greedy_ml_kmeans")
