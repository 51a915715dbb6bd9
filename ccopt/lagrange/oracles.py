"""Lower-bounding oracles: solve (10) for fixed multipliers.

Each oracle maps multipliers to a solution ``x`` of the Lagrangian problem and its value.
The subgradient driver (:mod:`ccopt.lagrange.driver`) only talks to this interface:

* :class:`MSSCLloydOracle` — the paper's MSSC route (Sec. 4.3): a k-means-like descent in
  which each object goes to the cluster with the smallest squared distance plus its
  Lagrangian penalty. A heuristic: its value estimates ``L`` from above.
* :class:`KMedoidsLagrangianOracle` — a vectorised k-medoids oracle that needs no LP
  solver: the assignment rows of the p-median form are relaxed too, so the subproblem
  splits per candidate medoid (pick the ``k`` most negative column sums). By the
  integrality property of that subproblem its dual reaches the LP bound. Besides the
  distance matrix it keeps its memory in ``O(n k + m k)`` and a block of rows
  (:func:`check_lagrangian_memory`), its multipliers sparse.
* :class:`~ccopt.lagrange.lp_routes.KMedoidsModelOracle` (in :mod:`ccopt.lagrange.lp_routes`)
  re-solves the Pyomo model of (10), LP or integer, through :mod:`ccopt.solvers`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from ccopt._sparse import membership
from ccopt.config import check_dense_memory
from ccopt.lagrange._medoids import MedoidFinder, cluster_members, rows_per_block
from ccopt.lagrange.multipliers import Multipliers, PairwiseOperator, Subgradient

__all__ = ["KMedoidsLagrangianOracle", "KMedoidsVoronoiOracle", "MSSCLloydOracle", "OracleSolution",
           "check_lagrangian_memory", "starting_multipliers"]


@dataclass
class OracleSolution:
    """What a lower-bounding step returns.

    Attributes
    ----------
    value : float
        ``L(multipliers)`` (or the oracle's estimate of it).
    labels : ndarray of int, shape (n_samples,)
        A labelling read from the solution, the input of the repair routine: cluster index
        in ``0..k-1`` for MSSC, the object serving as medoid for k-medoids.
    subgradient : Subgradient
        Row activities of the relaxed pairwise rows at the solution.
    extra_subgradients : dict
        Subgradients of multiplier families the oracle owns (e.g. ``"mu"``).
    is_bound : bool
        Whether ``value`` is a valid lower bound on the constrained optimum.
    open_clusters : ndarray of int or None
        For k-medoids, the ``k`` medoids the solution opened.
    """

    value: float
    labels: np.ndarray
    subgradient: Subgradient
    extra_subgradients: dict = field(default_factory=dict)
    is_bound: bool = True
    open_clusters: np.ndarray | None = None


def squared_distances(X: np.ndarray, centers: np.ndarray, x_norms: np.ndarray | None = None) -> np.ndarray:
    """``||x_i - c_j||^2`` for all objects and centres, shape (n, k), clipped at 0.

    ``x_norms`` (the squared row norms of ``X``) can be passed to avoid recomputing them.
    """
    sq = X @ centers.T
    sq *= -2.0
    sq += (centers * centers).sum(axis=1)[None, :]
    sq += ((X * X).sum(axis=1) if x_norms is None else x_norms)[:, None]
    np.maximum(sq, 0.0, out=sq)
    return sq


class _LloydTypeOracle:
    """Descent for "criterion + linear cost per object and cluster", clusters indexed ``0..k-1``.

    For fixed multipliers the Lagrangian (10) is the clustering criterion plus a linear
    cost ``P[i, c]`` per object and cluster (:class:`PairwiseOperator`). Alternating
    "assign every object to ``argmin_c cost(i, c) + P[i, c]``" and "re-fit each cluster's
    representative" never increases that value. A heuristic: its value estimates the
    Lagrangian from above, so it is not a proven lower bound.

    The descent starts from the previous solution's representatives, so cluster ``c`` keeps
    its meaning from one multiplier update to the next (the multipliers are indexed by
    ``c``); the driver restarts it from the incumbent's when it ends above the incumbent
    (:meth:`restart_from`). An empty cluster takes the object that is cheapest to move, so every cluster
    stays non-empty.
    """

    is_exact = False

    def __init__(self, operator: PairwiseOperator, n_clusters: int, max_inner_iter: int):
        self.op = operator
        self.n_clusters = n_clusters
        self.max_inner_iter = max_inner_iter
        self.extra: dict[str, np.ndarray] = {}

    @property
    def n_index(self) -> int:
        """Number of cluster indices of the multipliers (``k``)."""
        return self.n_clusters

    def cost(self) -> np.ndarray:
        """Criterion cost of every object in every cluster, shape (n, k)."""
        raise NotImplementedError

    def refit(self, labels: np.ndarray) -> None:
        """Move each cluster's representative to its best position for ``labels``."""
        raise NotImplementedError

    def criterion(self, labels: np.ndarray) -> float:
        """The clustering criterion of ``labels`` (representatives re-fitted)."""
        raise NotImplementedError

    def restart_from(self, labels: np.ndarray) -> None:
        """Move the representatives to those of ``labels``, a labelling into ``0..k-1``.

        The driver restarts the descent from the incumbent when the descent ends above it:
        a feasible labelling's Lagrangian value is at most its criterion (the relaxed rows
        hold, the multipliers are ``<= 0``), so the restarted descent ends at or below the
        incumbent and its value can be kept. Each cluster of ``labels`` takes the index of the
        current representative that serves its members at least total cost (a matching), so
        the cluster-indexed multipliers keep their meaning.
        """
        k = self.n_clusters
        clusters, indices = linear_sum_assignment(np.asarray(membership(labels, k) @ self.cost()))
        relabel = np.empty(k, dtype=np.int64)
        relabel[clusters] = indices
        self.refit(relabel[labels])

    def solve(self, mult: Multipliers) -> OracleSolution:
        k = self.n_clusters
        penalty = self.op.penalty(mult)
        labels = None
        for _ in range(self.max_inner_iter):
            total = self.cost() + penalty
            new_labels = _fill_empty_clusters(np.argmin(total, axis=1), total, k)
            if labels is not None and np.array_equal(new_labels, labels):
                break
            labels = new_labels
            self.refit(labels)
        value = self.criterion(labels) + float(penalty[np.arange(labels.size), labels].sum()) + self.op.constant(mult)
        return OracleSolution(value, labels, self.op.subgradient_from_labels(labels, k), is_bound=False,
                              open_clusters=np.arange(k))


class MSSCLloydOracle(_LloydTypeOracle):
    """The k-means-like lower-bounding heuristic of Randel et al. (2021), Sec. 4.3.

    Objects go to ``argmin_c ||x_i - mu_c||^2 + P[i, c]``; centres move to their cluster's
    mean. Reading chosen: the paper's "largest reduction of the expression" is taken with
    the centres held fixed during the assignment (Lloyd), which vectorises; the exact
    Hartigan move would update centres after every object.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    operator : PairwiseOperator
    initial_centers : ndarray of shape (n_clusters, n_features)
    max_inner_iter : int, default=50
    """

    def __init__(self, X: np.ndarray, operator: PairwiseOperator, initial_centers: np.ndarray,
                 max_inner_iter: int = 50):
        super().__init__(operator, initial_centers.shape[0], max_inner_iter)
        self.X = X
        self.centers = np.array(initial_centers, dtype=np.float64)
        self._x_norms = (X * X).sum(axis=1)

    def cost(self) -> np.ndarray:
        return squared_distances(self.X, self.centers, self._x_norms)

    def refit(self, labels: np.ndarray) -> None:
        self.centers = _cluster_means(self.X, labels, self.n_clusters, self.centers)

    def criterion(self, labels: np.ndarray) -> float:
        return float(((self.X - self.centers[labels]) ** 2).sum())


class KMedoidsVoronoiOracle(_LloydTypeOracle):
    """Cluster-indexed k-medoids Lagrangian heuristic (Voronoi iteration with costs).

    The paper's k-medoids model (7)-(9) indexes clusters by ``c = 1..k``, each with a
    medoid; its objective is bilinear in ``x`` and ``y``, so relaxing integrality keeps
    integral optima and the relaxed (10) is, in effect, the integer Lagrangian subproblem.
    This oracle solves that subproblem by the Voronoi iteration: objects go to
    ``argmin_c d(i, m_c) + P[i, c]``; each medoid ``m_c`` moves to the member of cluster
    ``c`` with the least total distance to the cluster.

    Parameters
    ----------
    distances : ndarray of shape (n_samples, n_samples)
    operator : PairwiseOperator
    initial_medoids : ndarray of int, shape (n_clusters,)
    max_inner_iter : int, default=50
    finder : MedoidFinder, optional
        Finds (and remembers) the medoids; pass the one the upper-bounding step uses, so
        that the clusters the two meet are computed once.
    """

    def __init__(self, distances: np.ndarray, operator: PairwiseOperator, initial_medoids,
                 max_inner_iter: int = 50, finder: MedoidFinder | None = None):
        super().__init__(operator, len(initial_medoids), max_inner_iter)
        self.d = distances
        self.medoids = np.array(initial_medoids, dtype=np.int64)
        self.finder = finder if finder is not None else MedoidFinder(distances)

    def cost(self) -> np.ndarray:
        return self.d[:, self.medoids]

    def refit(self, labels: np.ndarray) -> None:
        for c, members in zip(*cluster_members(labels), strict=True):
            self.medoids[c] = self.finder.best(members)[0]

    def criterion(self, labels: np.ndarray) -> float:
        return float(self.d[np.arange(labels.size), self.medoids[labels]].sum())

    def solve(self, mult: Multipliers) -> OracleSolution:
        solution = super().solve(mult)
        # Clusters are named by their medoids, as the other k-medoids oracles name them: the
        # upper-bounding step repairs around the open medoids, and cluster indices 0..k-1
        # would name objects 0..k-1 instead.
        solution.open_clusters = self.medoids.copy()
        solution.labels = self.medoids[solution.labels]
        return solution


def _cluster_means(X: np.ndarray, labels: np.ndarray, k: int, previous: np.ndarray) -> np.ndarray:
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    sums = np.asarray(membership(labels, k) @ X)
    centers = previous.copy()
    nonempty = counts > 0
    centers[nonempty] = sums[nonempty] / counts[nonempty, None]
    return centers


def _fill_empty_clusters(labels: np.ndarray, cost: np.ndarray, k: int) -> np.ndarray:
    counts = np.bincount(labels, minlength=k)
    if counts.min() > 0:
        return labels
    labels = labels.copy()
    own = cost[np.arange(labels.size), labels]
    for c in np.flatnonzero(counts == 0):
        counts = np.bincount(labels, minlength=k)
        movable = counts[labels] > 1
        # The object whose move to c hurts least relative to where it is now.
        regret = np.where(movable, cost[:, c] - own, np.inf)
        i = int(np.argmin(regret))
        labels[i] = c
        own[i] = cost[i, c]
    return labels


def check_lagrangian_memory(n_samples: int, n_clusters: int, n_cl: int, n_ml: int) -> None:
    """Refuse a ``method="lagrangian"`` run whose working arrays exceed the memory bound.

    Besides the ``n x n`` distance matrix (checked where it is made) and the sparse
    multipliers, :class:`KMedoidsLagrangianOracle` and the driver's steps allocate a block
    of rows of the reduced costs, the reduced costs on the ``k`` open medoids and each
    family's subgradient on them. Each is checked against ``max_dense_bytes``
    (:func:`ccopt.set_config`) before any work; every allowed one is logged with its size.

    Parameters
    ----------
    n_samples : int
        ``n``: objects, and candidate medoids.
    n_clusters : int
        ``k``: medoids opened a step.
    n_cl, n_ml : int
        Number of cannot-link and must-link constraints.

    Raises
    ------
    MemoryBudgetError
        Naming the array and its shape, when one exceeds the bound.
    """
    check_dense_memory((rows_per_block(n_samples) + 1, n_samples), what="row block of the p-median reduced costs")
    check_dense_memory((n_samples, n_clusters), what="p-median reduced costs on the open medoids")
    check_dense_memory((max(n_cl, n_ml), n_clusters), what="subgradient of the pairwise rows on the open medoids")


def starting_multipliers(oracle, n_cl: int, n_ml: int) -> Multipliers:
    """Zero multipliers in the form ``oracle`` works with (Algorithm 1's start).

    Sparse for an oracle with ``sparse_multipliers = True`` (:class:`KMedoidsLagrangianOracle`):
    its ``n_cl x n`` and ``n_ml x n`` families are then never formed densely.

    Parameters
    ----------
    oracle : object
        A lower-bounding oracle with an ``n_index`` (the number of columns ``K``).
    n_cl, n_ml : int
        Number of cannot-link and must-link constraints.

    Returns
    -------
    Multipliers
    """
    return Multipliers.zeros(n_cl, n_ml, oracle.n_index, sparse=getattr(oracle, "sparse_multipliers", False))


class KMedoidsLagrangianOracle:
    """Vectorised k-medoids lower bound with the assignment rows relaxed as well.

    The p-median form (:mod:`ccopt.models.kmedoids`) has ``z[i, j]`` (object ``i`` served
    by medoid ``j``), ``y[j]``, rows ``sum_j z[i, j] = 1``, ``z[i, j] <= y[j]`` (``i != j``),
    ``z[j, j] = y[j]`` (a medoid belongs to its own cluster), ``sum_j y[j] = k``. Relaxing
    the assignment rows with free multipliers ``mu`` in addition to the pairwise rows gives

    .. math::

        L(\\mu, \\eta, \\lambda, \\gamma) = \\sum_i \\mu_i + C(\\eta, \\lambda, \\gamma)
            + \\min_{|S| = k} \\sum_{j \\in S} \\rho_j, \\qquad
        \\rho_j = r_{jj} + \\sum_{i \\ne j} \\min(0, r_{ij}), \\quad
        r_{ij} = d_{ij} + P_{ij} - \\mu_i,

    so the subproblem is a column sum and a partial sort: choose the ``k`` candidate
    medoids with the most negative ``rho``. An open medoid pays its own reduced cost
    ``r_jj`` whatever its sign (the diagonal row ``z[j, j] = y[j]``; without it the
    maximum can stay below the LP bound, as measured with ``epsilon = 0.2``). The
    subproblem has the integrality property, hence the maximum over all multipliers equals
    the LP relaxation bound of (2)-(5) with the epsilon rows — the bound of the paper's LP
    route — without an LP solver. Every value is a valid lower bound on the k-medoids
    optimum.

    Memory: besides ``distances``, ``O(n k + m k)`` and one block of rows of ``r``
    (:func:`check_lagrangian_memory`, checked here). ``z`` is zero outside the ``k`` open
    columns, so the subgradient comes column by column
    (:class:`~ccopt.lagrange.multipliers.ColumnSubgradient`), and the driver keeps the
    multipliers sparse (``sparse_multipliers``; see :mod:`ccopt.lagrange.multipliers`).

    Parameters
    ----------
    distances : ndarray of shape (n_samples, n_samples)
    n_clusters : int
    operator : PairwiseOperator
    initial_mu : ndarray of shape (n_samples,)
        Start of the assignment multipliers, e.g. each object's distance to its medoid in a
        feasible solution (then the first bound is already close to that solution's cost).

    Raises
    ------
    MemoryBudgetError
        When a working array exceeds ``max_dense_bytes`` (:func:`check_lagrangian_memory`).
    """

    is_exact = True
    # The multipliers have K = n columns and stay zero outside the columns opened so far.
    sparse_multipliers = True

    def __init__(self, distances: np.ndarray, n_clusters: int, operator: PairwiseOperator,
                 initial_mu: np.ndarray):
        n = distances.shape[0]
        check_lagrangian_memory(n, n_clusters, operator.n_cl, operator.n_ml)
        self.d = distances
        self.n_clusters = n_clusters
        self.op = operator
        self.extra: dict[str, np.ndarray] = {"mu": np.array(initial_mu, dtype=np.float64)}
        self.extra_projection: dict[str, str] = {"mu": "free"}
        self._block_rows = rows_per_block(n)
        self._block: np.ndarray | None = None

    @property
    def n_index(self) -> int:
        """Number of cluster indices of the multipliers (``n``: candidate medoids)."""
        return self.d.shape[0]

    def solve(self, mult: Multipliers) -> OracleSolution:
        mu = self.extra["mu"]
        d, k = self.d, self.n_clusters
        n = d.shape[0]
        # P is zero outside the constrained rows and the columns with non-zero multipliers,
        # and z outside the k medoid columns, so neither is formed densely, and r is summed
        # a block of rows at a time. Every entry is computed by the same operations in the
        # same order as with the dense arrays, so value, labels and subgradients are the same
        # bit for bit (tests/lagrange/test_oracle_speed_equivalence.py); with sparse
        # multipliers the constant C sums their stored entries only, and the value agrees
        # to rounding.
        penalty = self.op.penalty_sparse(mult)
        rho = self._column_sums(penalty, mu)
        medoids = np.argpartition(rho, k - 1)[:k] if k < rho.size else np.arange(rho.size)
        value = float(mu.sum() + self.op.constant(mult) + rho[medoids].sum())
        # r on the medoid columns, (P + d) - mu as the dense form sums it; P + d is d where P is 0.
        reduced_open = penalty[:, medoids].toarray()
        reduced_open += d[:, medoids]
        reduced_open -= mu[:, None]
        z_open = (reduced_open < 0.0).astype(np.float64)
        z_open[medoids, np.arange(medoids.size)] = 1.0
        # Sums of 0/1 entries are exact in any order: the zero columns of z change nothing.
        g_mu = 1.0 - z_open.sum(axis=1)
        # A labelling for the repair step: each medoid in its own cluster, every other object
        # to the open medoid of least reduced cost.
        labels = medoids[np.argmin(reduced_open, axis=1)]
        labels[medoids] = medoids
        return OracleSolution(value, labels, self.op.subgradient_from_columns(z_open, medoids, n), {"mu": g_mu},
                              is_bound=True, open_clusters=np.sort(medoids))

    def _column_sums(self, penalty, mu: np.ndarray) -> np.ndarray:
        """``rho``: every column's ``r_jj + sum_{i != j} min(0, r_ij)``, a block of rows at a time.

        Bit for bit the ``sum(axis=0)`` of the whole ``n x n`` array: numpy reduces a
        C-contiguous array along axis 0 one row after the other, so a block whose first row
        holds the sums of the rows before it continues the same additions in the same order.
        """
        d = self.d
        n = d.shape[0]
        buffer = self._buffer()
        rho = None
        for start in range(0, n, self._block_rows):
            stop = min(start + self._block_rows, n)
            carried = 0 if rho is None else 1
            block = buffer[carried:carried + stop - start]
            if penalty.indptr[start] == penalty.indptr[stop]:
                np.subtract(d[start:stop], mu[start:stop, None], out=block)
            else:
                # (P + d) - mu, as the dense r was summed; an exact 0.0 of P adds nothing.
                np.copyto(block, d[start:stop])
                rows = penalty[start:stop].tocoo()
                block[rows.row, rows.col] += rows.data
                block -= mu[start:stop, None]
            local, diagonal = np.arange(stop - start), np.arange(start, stop)
            own = block[local, diagonal]
            np.minimum(block, 0.0, out=block)
            # z[j, j] = y[j]: an open medoid serves itself whatever the sign of r_jj.
            block[local, diagonal] = own
            if rho is not None:
                buffer[0] = rho
            rho = buffer[:carried + stop - start].sum(axis=0)
        return rho

    def _buffer(self) -> np.ndarray:
        # Kept between steps: a fresh array costs a page fault per 4 KiB page on its first
        # write, every step. One row more than a block carries the sums so far.
        if self._block is None:
            self._block = np.empty((self._block_rows + 1, self.d.shape[0]))
        return self._block
