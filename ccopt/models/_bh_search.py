"""Feasible assignments for the BH-kmeans program P without a solver.

:class:`~ccopt.models.bh_assignment.BHAssignmentProgram` falls back on these when a solve
stops on its time limit: a solver's first incumbents on dense constraint sets can be far
from optimal, and a solve that returns one steers every later BH-kmeans step.

* :func:`single_moves` moves one node at a time to its best cluster until no move lowers
  P's objective (1); every move keeps the assignment feasible for P (no cluster emptied,
  no hard cannot-link broken, size bounds kept, pinned nodes stay).
* :func:`improve` alternates single moves of units with single moves of *blocks*: the
  units of one soft must-link component that share a cluster. Moving a block keeps the
  must-links inside it satisfied, which no single-unit move can do once a must-link chain
  sits in the wrong cluster (a unit leaving its chain pays for every link it breaks).
* Both searches take an ``end`` (``time.perf_counter`` time): they stop there, between two
  nodes, with the labelling reached so far (every move kept it feasible and lowered (1)).
  At ``n = 100,000`` objects with 100,000 constraints one search ran for about 30 s without
  it, after the solver had used up the time limit.
* :func:`greedy_by_components` builds an assignment from scratch, as COP-kmeans does on
  super-instances: soft must-link components, largest first, each into the cluster where
  its distances plus the penalties of the cannot-links to components already placed are
  smallest.

Measured on the BH-kmeans table's hardest first steps (k-means++ centres; MILPs that HiGHS
does not close in 100-200 s; ``benchmarks/bench_bh_first_step.py``): Movement Libras CS20,
the old fallback (nearest-centre assignment, single moves) cost 3,600 with 33 violations,
this one 3,022 with none; Led7Digit CS20, 1,357 (88) against 908 (1); HiGHS's own
incumbents after 100 s were 3,211 and 2,128. On Vehicle CS10 (seed 2; a one-off
measurement) 11,907 (398) against 5,811 (1).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ccopt._sparse import membership

__all__ = ["MoveGraph", "greedy_by_components", "improve", "membership", "must_link_components",
           "single_moves", "symmetric_weights"]


# Nodes visited between two readings of the clock in single_moves: a visit took about 10 us
# (50,000 nodes, k = 10), so the search stops within a few milliseconds of its end.
_CLOCK_EVERY = 128


def _past(end: float | None) -> bool:
    """Whether the ``perf_counter`` time ``end`` has passed (never, for None)."""
    return end is not None and time.perf_counter() >= end


def symmetric_weights(pairs: np.ndarray, n_nodes: int, weights: np.ndarray | None = None) -> sp.csr_matrix:
    """Symmetric (n_nodes, n_nodes) matrix of pair weights (1 when ``weights`` is None), repeats summed."""
    w = np.ones(pairs.shape[0]) if weights is None else weights
    a = sp.coo_matrix((w, (pairs[:, 0], pairs[:, 1])), shape=(n_nodes, n_nodes))
    return (a + a.T).tocsr()


def _contract(matrix: sp.csr_matrix, members: sp.csr_matrix) -> sp.csr_matrix:
    """Summed weights between groups; the weight inside a group (the diagonal) is dropped."""
    out = (members @ matrix @ members.T).tocsr()
    out.setdiag(0)
    out.eliminate_zeros()
    return out


@dataclass(frozen=True)
class MoveGraph:
    """Nodes that move between clusters and the pairwise rows joining them.

    Attributes
    ----------
    n_clusters : int
    sizes : ndarray of float64, shape (n_nodes,)
        Objects per node (a unit of contracted hard must-links counts its objects).
    ml, cl, hard_cl : scipy.sparse.csr_matrix, shape (n_nodes, n_nodes)
        Symmetric weights of the soft must-links, soft cannot-links and hard cannot-links
        between different nodes.
    movable : ndarray of bool, shape (n_nodes,)
        Nodes a move may relocate.
    min_size, max_size : int or None
        Cluster-size bounds (in objects).
    """

    n_clusters: int
    sizes: np.ndarray
    ml: sp.csr_matrix
    cl: sp.csr_matrix
    hard_cl: sp.csr_matrix
    movable: np.ndarray
    min_size: int | None
    max_size: int | None

    @classmethod
    def of_units(cls, plan) -> MoveGraph:
        """The units of a :class:`~ccopt.models.bh_assignment.BHAssignmentPlan`.

        Units a hard must-link row mentions (only without contraction) are pinned, and so
        are units no row mentions (their best cluster is the nearest one, where the caller
        puts them; see ``BHAssignmentProgram._polish``).
        """
        u = plan.n_units
        movable = np.zeros(u, dtype=bool)
        movable[plan.constrained_units] = True
        movable[plan.hard_ml.reshape(-1)] = False
        return cls(n_clusters=plan.n_clusters, sizes=plan.unit_sizes.astype(np.float64),
                   ml=symmetric_weights(plan.soft_ml, u, plan.soft_ml_weight),
                   cl=symmetric_weights(plan.soft_cl, u, plan.soft_cl_weight),
                   hard_cl=symmetric_weights(plan.hard_cl, u), movable=movable,
                   min_size=plan.min_size, max_size=plan.max_size)

    @property
    def n_nodes(self) -> int:
        return int(self.sizes.shape[0])

    def blocks(self, labels: np.ndarray,
               components: np.ndarray) -> tuple[MoveGraph, np.ndarray, sp.csr_matrix]:
        """Contract the nodes of one must-link component and one cluster into a block.

        Returns the graph of blocks, the block of every node and the (n_blocks, n_nodes)
        membership matrix. Only blocks of two or more nodes, all movable, may move (a
        block of one node is a single move).
        """
        _, block = np.unique(components * self.n_clusters + labels, return_inverse=True)
        n_blocks = int(block.max()) + 1
        members = membership(block, n_blocks)
        count = np.bincount(block, minlength=n_blocks)
        all_movable = np.bincount(block, weights=self.movable, minlength=n_blocks) == count
        graph = MoveGraph(n_clusters=self.n_clusters, sizes=members @ self.sizes,
                          ml=_contract(self.ml, members), cl=_contract(self.cl, members),
                          hard_cl=_contract(self.hard_cl, members),
                          movable=all_movable & (count > 1),
                          min_size=self.min_size, max_size=self.max_size)
        return graph, block, members


def must_link_components(graph: MoveGraph) -> np.ndarray:
    """Connected component of every node in the soft must-link graph."""
    return csgraph.connected_components(graph.ml, directed=False)[1]


def single_moves(graph: MoveGraph, labels: np.ndarray, cost: np.ndarray, penalty_coef: float,
                 max_sweeps: int = 50, end: float | None = None) -> np.ndarray:
    """Move single nodes to their best cluster until no move lowers (1), or until ``end``.

    Parameters
    ----------
    graph : MoveGraph
    labels : ndarray of int64, shape (n_nodes,)
        A labelling feasible for P.
    cost : ndarray of float64, shape (n_nodes, n_clusters)
        Distance cost of every node in every cluster.
    penalty_coef : float
        ``M p``: the price of one unit of violated soft weight.
    max_sweeps : int, default=50
    end : float or None, default=None
        ``time.perf_counter()`` time at which to stop, between two nodes (None: no limit).

    Returns
    -------
    ndarray of int64, shape (n_nodes,)
        Deterministic (nodes in increasing order): the same input gives the same output
        when ``end`` is not reached. Stopped at ``end``, the labelling reached so far, which
        is feasible for P and no worse than ``labels``.
    """
    k = graph.n_clusters
    labels = labels.copy()
    sizes = graph.sizes
    counts = np.bincount(labels, minlength=k)
    loads = np.bincount(labels, weights=sizes, minlength=k)
    ml, cl, hard = graph.ml, graph.cl, graph.hard_cl
    ml_total = np.asarray(ml.sum(axis=1)).reshape(-1)
    min_size = graph.min_size if graph.min_size is not None else 0
    max_size = graph.max_size if graph.max_size is not None else np.inf
    movable = np.flatnonzero(graph.movable).tolist()
    for _ in range(max_sweeps):
        moved = 0
        for visited, u in enumerate(movable):
            if visited % _CLOCK_EVERY == 0 and _past(end):
                return labels
            here = labels[u]
            if counts[here] == 1 or loads[here] - sizes[u] < min_size:
                continue
            lo, hi = ml.indptr[u], ml.indptr[u + 1]
            apart = ml_total[u] - np.bincount(labels[ml.indices[lo:hi]], ml.data[lo:hi], k)
            lo, hi = cl.indptr[u], cl.indptr[u + 1]
            together = np.bincount(labels[cl.indices[lo:hi]], cl.data[lo:hi], k)
            total = cost[u] + penalty_coef * (apart + together)
            lo, hi = hard.indptr[u], hard.indptr[u + 1]
            total[np.bincount(labels[hard.indices[lo:hi]], minlength=k) > 0] = np.inf
            total[loads + sizes[u] > max_size] = np.inf
            total[here] = cost[u, here] + penalty_coef * (apart[here] + together[here])
            best = int(np.argmin(total))
            if total[best] < total[here] - 1e-9 * (1.0 + abs(total[here])):
                labels[u] = best
                counts[here] -= 1
                counts[best] += 1
                loads[here] -= sizes[u]
                loads[best] += sizes[u]
                moved += 1
        if not moved:
            break
    return labels


def improve(graph: MoveGraph, components: np.ndarray, labels: np.ndarray, cost: np.ndarray,
            penalty_coef: float, max_rounds: int = 20, end: float | None = None) -> np.ndarray:
    """Alternate single-node moves and block moves until neither changes the labelling.

    ``components`` are the soft must-link components of the nodes
    (:func:`must_link_components`). The objective never rises and feasibility for P is
    kept (every move is a :func:`single_moves` move of a node or of a block), also when
    the search stops at ``end`` (``time.perf_counter()`` time; None: no limit).
    """
    labels = single_moves(graph, labels, cost, penalty_coef, end=end)
    if graph.ml.nnz == 0:
        return labels
    for _ in range(max_rounds):
        if _past(end):
            break
        blocks, block, members = graph.blocks(labels, components)
        if not blocks.movable.any():
            break
        block_labels = np.zeros(blocks.n_nodes, dtype=np.int64)
        block_labels[block] = labels
        moved = single_moves(blocks, block_labels, members @ cost, penalty_coef, end=end)
        if np.array_equal(moved, block_labels):
            break
        labels = single_moves(graph, moved[block], cost, penalty_coef, end=end)
    return labels


def greedy_by_components(graph: MoveGraph, components: np.ndarray, cost: np.ndarray,
                         penalty_coef: float) -> np.ndarray:
    """Place must-link components one by one, largest first, where they cost least.

    A component's price in cluster ``j`` is its members' distances to ``j`` plus
    ``penalty_coef`` times the weight of its soft cannot-links to components already in
    ``j``; clusters holding a hard cannot-link partner, or without room under
    ``max_size``, are closed. Ties in size go to the component with the larger regret
    (second-cheapest minus cheapest cluster). The result breaks no soft must-link but may
    leave a cluster empty or break a size bound (then P excludes it; callers check).

    Returns
    -------
    ndarray of int64, shape (n_nodes,)
    """
    k = graph.n_clusters
    n_comp = int(components.max()) + 1 if components.size else 0
    members = membership(components, n_comp)
    comp_cost = members @ cost
    cl = _contract(graph.cl, members)
    hard = _contract(graph.hard_cl, members)
    sizes = members @ graph.sizes
    placed = np.argmin(comp_cost, axis=1)
    linked = (np.diff(cl.indptr) > 0) | (np.diff(hard.indptr) > 0)
    if graph.max_size is not None:
        linked[:] = True   # every placement competes for room
    sorted_cost = np.sort(comp_cost, axis=1)
    regret = sorted_cost[:, 1] - sorted_cost[:, 0] if k > 1 else np.zeros(n_comp)
    order = np.flatnonzero(linked)
    order = order[np.lexsort((-regret[order], -sizes[order]))]
    loads = np.bincount(placed[~linked], weights=sizes[~linked], minlength=k)
    max_size = graph.max_size if graph.max_size is not None else np.inf
    together = np.zeros((n_comp, k))
    closed = np.zeros((n_comp, k), dtype=bool)
    for c in order.tolist():
        price = comp_cost[c] + penalty_coef * together[c]
        price[closed[c] | (loads + sizes[c] > max_size)] = np.inf
        j = int(np.argmin(price))
        placed[c] = j
        loads[j] += sizes[c]
        lo, hi = cl.indptr[c], cl.indptr[c + 1]
        together[cl.indices[lo:hi], j] += cl.data[lo:hi]
        lo, hi = hard.indptr[c], hard.indptr[c + 1]
        closed[hard.indices[lo:hi], j] = True
    return placed[components]
