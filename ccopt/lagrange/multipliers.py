"""Lagrange multipliers of the pairwise rows (3'), (4'), (4'') and the algebra around them.

With the epsilon rows of Randel et al. (2021) relaxed as in (10), the Lagrangian of a
labelling matrix ``x`` (objects x clusters) is

.. math::

    L(x; \\eta, \\lambda, \\gamma) = f(x)
        + \\sum_{(u,v) \\in CL} \\sum_c \\eta_{uv}^c (1 + \\epsilon - x_u^c - x_v^c)
        + \\sum_{(u,v) \\in ML} \\sum_c \\lambda_{uv}^c (\\epsilon + x_u^c - x_v^c)
        + \\gamma_{uv}^c (\\epsilon + x_v^c - x_u^c),

with :math:`\\eta, \\lambda, \\gamma \\le 0`. The penalty part is linear in ``x``: object
``i`` placed in cluster ``c`` pays ``P[i, c]`` independently of where its partners are,
plus a constant. :class:`PairwiseOperator` computes ``P`` for all objects at once through
sparse incidence matrices, and the subgradients of every row family from ``x``.

Clusters are indexed by ``c = 0..K-1``: ``K = k`` for the cluster-indexed MSSC model and
``K = n`` (candidate medoids) for the p-median form of k-medoids (:mod:`ccopt.models.kmedoids`).

Sparse multipliers. With ``K = n`` a family is an ``m x n`` array, as large as the distance
matrix for ``m = n`` constraints, but almost all of it stays zero. The vectorised p-median
oracle (:class:`~ccopt.lagrange.oracles.KMedoidsLagrangianOracle`) opens ``k`` candidate
medoids a step, and its assignment is zero on every other column ``c``, where the row
activities are the constants ``1 + eps`` (CL) and ``eps`` (ML), both positive. Algorithm 1
moves a multiplier along its subgradient and projects it onto ``<= 0``, so an entry that is
``0`` stays ``0`` on a column that is not open, and one that is negative only rises there.
An entry ``(uv, c)`` is non-zero only if column ``c`` was open at some step and the row
was violated there (``x_u^c = x_v^c = 1`` for a CL row; ``x_v^c = 1 > x_u^c`` for
``lambda``, the reverse for ``gamma``). Such families are stored as CSR arrays
(:meth:`Multipliers.sparsify`), the oracle hands back its subgradient column by column
(:class:`ColumnSubgradient`), and :meth:`ColumnSubgradient.projected_step` makes the
step without forming either densely. Every entry is computed by the same floating-point
operations as the dense step; only the sums over a whole family (the step's norm, the
constant of :meth:`PairwiseOperator.constant`, the scores) are summed in another order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ccopt.constraints import Constraints

__all__ = ["ColumnSubgradient", "Multipliers", "PairwiseOperator", "Subgradient"]


@dataclass
class Multipliers:
    """Multipliers of the relaxed pairwise rows; all entries are ``<= 0``.

    Each family is a dense array or, for the p-median form (``K = n``), a
    :class:`scipy.sparse.csr_array` of the same shape holding the non-zero entries only
    (module docstring; :meth:`sparsify`).

    Attributes
    ----------
    eta : ndarray or csr_array of shape (n_cl, K)
        Cannot-link rows (3').
    lam : ndarray or csr_array of shape (n_ml, K)
        Must-link rows (4').
    gamma : ndarray or csr_array of shape (n_ml, K)
        Must-link rows (4'').
    """

    eta: np.ndarray | sp.csr_array
    lam: np.ndarray | sp.csr_array
    gamma: np.ndarray | sp.csr_array

    @classmethod
    def zeros(cls, n_cl: int, n_ml: int, n_clusters: int, *, sparse: bool = False) -> Multipliers:
        """Algorithm 1 starts from zero multipliers.

        Parameters
        ----------
        n_cl : int
            Number of cannot-link constraints (rows of ``eta``).
        n_ml : int
            Number of must-link constraints (rows of ``lam`` and ``gamma``).
        n_clusters : int
            Number of columns ``K`` (clusters, or candidate medoids for k-medoids).
        sparse : bool, default=False
            Empty CSR arrays instead of dense zeros: no memory for the ``K`` columns.

        Returns
        -------
        Multipliers
            ``eta`` of shape (n_cl, K), ``lam`` and ``gamma`` of shape (n_ml, K), all zero.
        """
        if sparse:
            return cls(sp.csr_array((n_cl, n_clusters)), sp.csr_array((n_ml, n_clusters)),
                       sp.csr_array((n_ml, n_clusters)))
        return cls(np.zeros((n_cl, n_clusters)), np.zeros((n_ml, n_clusters)), np.zeros((n_ml, n_clusters)))

    @property
    def is_sparse(self) -> bool:
        """Whether the families are stored as CSR arrays."""
        return any(sp.issparse(values) for values in (self.eta, self.lam, self.gamma))

    def sparsify(self) -> None:
        """Store every family as a CSR array of its non-zero entries, in place.

        The same numbers: what a step or the penalty computes from them does not change.
        """
        for name in ("eta", "lam", "gamma"):
            values = getattr(self, name)
            if not isinstance(values, sp.csr_array):
                setattr(self, name, sp.csr_array(values))

    def copy(self) -> Multipliers:
        """Independent copy."""
        return Multipliers(self.eta.copy(), self.lam.copy(), self.gamma.copy())

    def cl_scores(self) -> np.ndarray:
        """Impact score (17) of each cannot-link: the sum of its multipliers over clusters."""
        return _row_sums(self.eta)

    def ml_scores(self) -> np.ndarray:
        """Impact score (17) of each must-link: the sum of its two rows' multipliers."""
        return _row_sums(self.lam) + _row_sums(self.gamma)

    def scores(self, constraints: Constraints) -> np.ndarray:
        """Impact scores in the order of ``constraints`` (ML and CL interleaved as given).

        Parameters
        ----------
        constraints : Constraints
            The constraints these multipliers belong to: the rows of ``eta`` follow
            ``constraints.cl_indices``, those of ``lam`` and ``gamma`` ``ml_indices``.

        Returns
        -------
        ndarray of float, shape (n_constraints,)
            One score per distinct constraint; :meth:`Constraints.to_given` maps them onto
            the rows the user gave.
        """
        out = np.zeros(len(constraints))
        out[constraints.ml_indices] = self.ml_scores()
        out[constraints.cl_indices] = self.cl_scores()
        return out


def _row_sums(values) -> np.ndarray:
    # A sparse family sums its stored entries only: the same total up to rounding.
    if sp.issparse(values):
        return np.asarray(values.sum(axis=1)).reshape(-1)
    return values.sum(axis=1)


@dataclass
class Subgradient:
    """Subgradient of the Lagrangian with respect to each multiplier family.

    Each family is a dense array or a :class:`ColumnSubgradient`.
    """

    eta: np.ndarray | ColumnSubgradient
    lam: np.ndarray | ColumnSubgradient
    gamma: np.ndarray | ColumnSubgradient


@dataclass(frozen=True)
class ColumnSubgradient:
    """A family's subgradient that equals one constant outside a few columns.

    The p-median oracle opens ``k`` of ``K = n`` columns; on the others every row activity
    is ``1 + eps`` (CL) or ``eps`` (ML). Stored as that constant and the open columns, in
    ``O(m k)`` memory instead of ``O(m n)``. ``np.asarray`` gives the dense array.

    Attributes
    ----------
    constant : float
        The value outside ``columns``.
    columns : ndarray of int, shape (p,)
        Distinct column indices.
    block : ndarray of shape (n_rows, p)
        The values in ``columns``.
    n_columns : int
        Number of columns ``K`` of the family.
    """

    constant: float
    columns: np.ndarray
    block: np.ndarray
    n_columns: int

    @property
    def shape(self) -> tuple[int, int]:
        """Shape of the dense subgradient, ``(n_rows, K)``."""
        return self.block.shape[0], self.n_columns

    def toarray(self) -> np.ndarray:
        """The dense subgradient, shape (n_rows, K)."""
        out = np.full(self.shape, self.constant)
        out[:, self.columns] = self.block
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.toarray()
        return out if dtype is None else out.astype(dtype, copy=False)

    def squared_norm(self, values: sp.csr_array | None = None) -> float:
        """``||g||^2``, or over the entries a projected step can move when ``values`` is given.

        With ``values`` (the family's multipliers) an entry whose multiplier is ``>= 0`` and
        whose subgradient is ``> 0`` is left out: the projection would cancel its move
        (the driver's ``step_norm="active"``). Summed in another order than the dense
        ``(g * g).sum()``, so equal to it up to rounding.

        Parameters
        ----------
        values : csr_array of shape (n_rows, K), optional

        Returns
        -------
        float
        """
        n_rows, n_shut = self.block.shape[0], self.n_columns - self.columns.size
        square = self.constant * self.constant
        if values is None:
            return float(n_rows * n_shut * square + (self.block * self.block).sum())
        coo = sp.coo_array(values)
        shut = self._open_position()[coo.col] < 0
        # Outside the columns a positive constant leaves only the negative multipliers active.
        n_active = int(np.count_nonzero(~(coo.data[shut] >= 0.0))) if self.constant > 0.0 else n_rows * n_shut
        inside = np.asarray(values[:, self.columns].toarray()) if self.columns.size else self.block[:, :0]
        active = ~((inside >= 0.0) & (self.block > 0.0))
        return float(n_active * square + (self.block[active] ** 2).sum())

    def projected_step(self, values: sp.csr_array, step: float) -> sp.csr_array:
        """``min(values + step * g, 0)``, the projected move of Algorithm 1, as a CSR array.

        Every entry is ``min(v + step * g, 0)`` computed as the dense update computes it.
        Outside ``columns`` an entry at 0 stays at 0 when the constant is ``>= 0`` (the
        p-median oracle's ``1 + eps`` and ``eps``), so only the stored ones move there.

        Parameters
        ----------
        values : csr_array of shape (n_rows, K)
            The family's multipliers.
        step : float
            ``alpha * (Z* - Z) / ||g||^2``.

        Returns
        -------
        csr_array of shape (n_rows, K)
        """
        if self.constant < 0.0:
            # Every entry would move: nothing is left to store sparsely.
            moved = values.toarray() + step * self.toarray()
            return sp.csr_array(np.minimum(moved, 0.0, out=moved))
        coo = sp.coo_array(values)
        position = self._open_position()[coo.col]
        shut = position < 0
        outside = coo.data[shut] + step * self.constant
        np.minimum(outside, 0.0, out=outside)
        kept = outside != 0.0
        inside = np.zeros(self.block.shape)
        inside[coo.row[~shut], position[~shut]] = coo.data[~shut]
        inside += step * self.block
        np.minimum(inside, 0.0, out=inside)
        rows, at = np.nonzero(inside)
        return sp.csr_array(
            (np.concatenate([outside[kept], inside[rows, at]]),
             (np.concatenate([coo.row[shut][kept], rows]), np.concatenate([coo.col[shut][kept], self.columns[at]]))),
            shape=self.shape)

    def _open_position(self) -> np.ndarray:
        """Position of every column in ``columns``, -1 for the others."""
        position = np.full(self.n_columns, -1, dtype=np.intp)
        position[self.columns] = np.arange(self.columns.size)
        return position


class PairwiseOperator:
    """Sparse incidence of the constraints, for penalties and subgradients in O(m K).

    Parameters
    ----------
    constraints : Constraints
        Bound to ``n_samples``.
    epsilon : float
        The epsilon of rows (3'), (4'), (4''), in ]0, 1[.
    """

    def __init__(self, constraints: Constraints, epsilon: float):
        n = constraints.n_samples
        self.n_samples = n
        self.epsilon = float(epsilon)
        self.cl_u, self.cl_v = constraints.cl_pairs.T.copy() if constraints.n_cl else (np.empty(0, int),) * 2
        self.ml_u, self.ml_v = constraints.ml_pairs.T.copy() if constraints.n_ml else (np.empty(0, int),) * 2
        n_cl, n_ml = self.cl_u.size, self.ml_u.size
        self.n_cl, self.n_ml = n_cl, n_ml
        cols_cl = np.arange(n_cl)
        self._cl_incidence = sp.csr_matrix(
            (np.ones(2 * n_cl), (np.concatenate([self.cl_u, self.cl_v]), np.concatenate([cols_cl, cols_cl]))),
            shape=(n, n_cl),
        )
        cols_ml = np.arange(n_ml)
        self._ml_incidence = sp.csr_matrix(
            (np.concatenate([np.ones(n_ml), -np.ones(n_ml)]),
             (np.concatenate([self.ml_u, self.ml_v]), np.concatenate([cols_ml, cols_ml]))),
            shape=(n, n_ml),
        )

    def penalty(self, mult: Multipliers) -> np.ndarray:
        """Per-object, per-cluster linear cost ``P`` of shape (n_samples, K).

        ``P[i, c]`` is the coefficient of ``x_i^c`` in the penalty terms of (10).

        Parameters
        ----------
        mult : Multipliers
            Rows for this operator's constraints (``n_cl`` and ``n_ml``), ``K`` columns.

        Returns
        -------
        ndarray of float, shape (n_samples, K)
        """
        if mult.is_sparse:
            return self.penalty_sparse(mult).toarray()
        return np.asarray(self._cl_incidence @ (-mult.eta)) + np.asarray(self._ml_incidence @ (mult.lam - mult.gamma))

    def penalty_sparse(self, mult: Multipliers) -> sp.csr_array:
        """:meth:`penalty` as a CSR array of its non-zero entries.

        Bit for bit :meth:`penalty` (up to the sign of a zero): the sparse product adds the
        terms of an entry in the order the dense product adds them and only skips the zero
        ones, which add nothing. ``P[i, c]`` is non-zero only for an object ``i`` named by a
        constraint whose multipliers are non-zero in column ``c``, so with sparse
        multipliers (``K = n``) this takes ``O(nnz)`` memory instead of ``O(n K)``.

        Parameters
        ----------
        mult : Multipliers
            Dense or sparse; rows for this operator's constraints, ``K`` columns.

        Returns
        -------
        csr_array of shape (n_samples, K)
        """
        eta, lam, gamma = (sp.csr_array(values) for values in (mult.eta, mult.lam, mult.gamma))
        return sp.csr_array(self._cl_incidence @ (-eta)) + sp.csr_array(self._ml_incidence @ (lam - gamma))

    def constant(self, mult: Multipliers) -> float:
        """The part of the penalty terms of (10) that does not depend on ``x``.

        Parameters
        ----------
        mult : Multipliers
            Rows for this operator's constraints.

        Returns
        -------
        float
            ``(1 + eps) * sum(eta) + eps * (sum(lam) + sum(gamma))``.
        """
        eps = self.epsilon
        return float((1.0 + eps) * mult.eta.sum() + eps * (mult.lam.sum() + mult.gamma.sum()))

    def subgradient(self, x) -> Subgradient:
        """Row activities ``1 + eps - x_u - x_v`` (CL), ``eps + x_u - x_v``, ``eps + x_v - x_u`` (ML).

        Parameters
        ----------
        x : ndarray of shape (n_samples, K)
            Assignment (possibly fractional). For int labels of shape (n_samples,) use
            :meth:`subgradient_from_labels`; labels here raise ``TypeError``.
        """
        eps = self.epsilon
        if x.ndim == 1:
            raise TypeError("subgradient needs an assignment matrix; use subgradient_from_labels")
        g_cl = (1.0 + eps) - x[self.cl_u] - x[self.cl_v]
        diff = x[self.ml_u] - x[self.ml_v]
        return Subgradient(g_cl, eps + diff, eps - diff)


    def subgradient_from_columns(self, x_columns: np.ndarray, columns: np.ndarray, n_clusters: int) -> Subgradient:
        """:meth:`subgradient` of an assignment that is zero outside a few columns, by columns.

        Bit for bit ``subgradient(x)`` (``np.asarray`` of each family) for the
        ``(n_samples, n_clusters)`` matrix ``x`` that holds ``x_columns`` in ``columns`` and
        zeros elsewhere, without forming ``x`` or the ``m x n_clusters`` families: the
        k-medoids oracle opens ``k`` of ``K = n`` columns. Outside ``columns`` every row
        activity is the constant ``1 + eps`` (CL) or ``eps`` (ML), which is what
        ``1 + eps - 0 - 0`` and ``eps +/- (0 - 0)`` give exactly.

        Parameters
        ----------
        x_columns : ndarray of shape (n_samples, len(columns))
            The assignment restricted to ``columns``.
        columns : ndarray of int
            Distinct column indices in ``0 .. n_clusters - 1`` (not checked).
        n_clusters : int
            Number of columns ``K`` of the full assignment.

        Returns
        -------
        Subgradient
            Of :class:`ColumnSubgradient` families: ``eta`` of shape (n_cl, K), ``lam`` and
            ``gamma`` of shape (n_ml, K).
        """
        eps = self.epsilon
        columns = np.asarray(columns)
        g_cl = (1.0 + eps) - x_columns[self.cl_u] - x_columns[self.cl_v]
        diff = x_columns[self.ml_u] - x_columns[self.ml_v]
        return Subgradient(ColumnSubgradient(1.0 + eps, columns, g_cl, n_clusters),
                           ColumnSubgradient(eps, columns, eps + diff, n_clusters),
                           ColumnSubgradient(eps, columns, eps - diff, n_clusters))

    def subgradient_from_labels(self, labels: np.ndarray, n_clusters: int) -> Subgradient:
        """Subgradient for a 0/1 assignment given as labels, without forming x densely.

        Equal to :meth:`subgradient` of the one-hot assignment matrix of ``labels``.

        Parameters
        ----------
        labels : ndarray of int, shape (n_samples,)
            Cluster of every object, in ``0 .. n_clusters - 1`` (not checked).
        n_clusters : int
            Number of columns ``K`` of the assignment.

        Returns
        -------
        Subgradient
            ``eta`` of shape (n_cl, K), ``lam`` and ``gamma`` of shape (n_ml, K).
        """
        eps = self.epsilon
        g_cl = np.full((self.n_cl, n_clusters), 1.0 + eps)
        rows = np.arange(self.n_cl)
        np.subtract.at(g_cl, (rows, labels[self.cl_u]), 1.0)
        np.subtract.at(g_cl, (rows, labels[self.cl_v]), 1.0)
        diff = np.zeros((self.n_ml, n_clusters))
        rows = np.arange(self.n_ml)
        np.add.at(diff, (rows, labels[self.ml_u]), 1.0)
        np.subtract.at(diff, (rows, labels[self.ml_v]), 1.0)
        return Subgradient(g_cl, eps + diff, eps - diff)

