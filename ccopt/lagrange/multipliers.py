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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ccopt.constraints import Constraints

__all__ = ["Multipliers", "PairwiseOperator", "Subgradient"]


@dataclass
class Multipliers:
    """Multipliers of the relaxed pairwise rows; all entries are ``<= 0``.

    Attributes
    ----------
    eta : ndarray of shape (n_cl, K)
        Cannot-link rows (3').
    lam : ndarray of shape (n_ml, K)
        Must-link rows (4').
    gamma : ndarray of shape (n_ml, K)
        Must-link rows (4'').
    """

    eta: np.ndarray
    lam: np.ndarray
    gamma: np.ndarray

    @classmethod
    def zeros(cls, n_cl: int, n_ml: int, n_clusters: int) -> Multipliers:
        """Algorithm 1 starts from zero multipliers.

        Parameters
        ----------
        n_cl : int
            Number of cannot-link constraints (rows of ``eta``).
        n_ml : int
            Number of must-link constraints (rows of ``lam`` and ``gamma``).
        n_clusters : int
            Number of columns ``K`` (clusters, or candidate medoids for k-medoids).

        Returns
        -------
        Multipliers
            ``eta`` of shape (n_cl, K), ``lam`` and ``gamma`` of shape (n_ml, K), all zero.
        """
        return cls(np.zeros((n_cl, n_clusters)), np.zeros((n_ml, n_clusters)), np.zeros((n_ml, n_clusters)))

    def copy(self) -> Multipliers:
        """Independent copy."""
        return Multipliers(self.eta.copy(), self.lam.copy(), self.gamma.copy())

    def cl_scores(self) -> np.ndarray:
        """Impact score (17) of each cannot-link: the sum of its multipliers over clusters."""
        return self.eta.sum(axis=1)

    def ml_scores(self) -> np.ndarray:
        """Impact score (17) of each must-link: the sum of its two rows' multipliers."""
        return self.lam.sum(axis=1) + self.gamma.sum(axis=1)

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


@dataclass
class Subgradient:
    """Subgradient of the Lagrangian with respect to each multiplier family."""

    eta: np.ndarray
    lam: np.ndarray
    gamma: np.ndarray


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
        # Only the objects named by a constraint have a non-zero row in P. The row slices keep
        # each row's entries in their order, so penalty_rows repeats penalty's sums exactly.
        self.constrained_rows = np.unique(np.concatenate([self.cl_u, self.cl_v, self.ml_u, self.ml_v]))
        self._cl_incidence_rows = self._cl_incidence[self.constrained_rows]
        self._ml_incidence_rows = self._ml_incidence[self.constrained_rows]

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
        return _penalty(self._cl_incidence, self._ml_incidence, mult)

    def penalty_rows(self, mult: Multipliers) -> np.ndarray:
        """The rows :attr:`constrained_rows` of :meth:`penalty`, the only ones that can be non-zero.

        Bit for bit ``penalty(mult)[constrained_rows]``, in O(m K) memory instead of
        O(n K): for k-medoids ``K = n`` and most rows of ``P`` are zero.

        Parameters
        ----------
        mult : Multipliers
            Rows for this operator's constraints (``n_cl`` and ``n_ml``), ``K`` columns.

        Returns
        -------
        ndarray of float, shape (len(constrained_rows), K)
        """
        return _penalty(self._cl_incidence_rows, self._ml_incidence_rows, mult)

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
        """:meth:`subgradient` of an assignment that is zero outside a few columns.

        Bit for bit ``subgradient(x)`` for the ``(n_samples, n_clusters)`` matrix ``x`` that
        holds ``x_columns`` in ``columns`` and zeros elsewhere, without forming ``x``: the
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
            ``eta`` of shape (n_cl, K), ``lam`` and ``gamma`` of shape (n_ml, K).
        """
        eps = self.epsilon
        g_cl = np.full((self.n_cl, n_clusters), 1.0 + eps)
        g_cl[:, columns] = (1.0 + eps) - x_columns[self.cl_u] - x_columns[self.cl_v]
        diff = x_columns[self.ml_u] - x_columns[self.ml_v]
        g_lam = np.full((self.n_ml, n_clusters), eps)
        g_lam[:, columns] = eps + diff
        g_gamma = np.full((self.n_ml, n_clusters), eps)
        g_gamma[:, columns] = eps - diff
        return Subgradient(g_cl, g_lam, g_gamma)

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


def _penalty(cl_incidence, ml_incidence, mult: Multipliers) -> np.ndarray:
    """``P`` (or its rows) from the incidence matrices of the cannot-links and the must-links."""
    return np.asarray(cl_incidence @ (-mult.eta)) + np.asarray(ml_incidence @ (mult.lam - mult.gamma))

