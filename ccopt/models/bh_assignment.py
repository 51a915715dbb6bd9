"""The BH-kmeans assignment program P (Baumann and Hochbaum 2022, Sec. 3, (1)-(8)).

For fixed cluster centres :math:`\\bar c_1, \\dots, \\bar c_k`, P assigns every object to a
centre, charging the Euclidean (not squared) distance of the object to its centre, and
``M p w`` for every soft constraint it violates:

.. math::

    \\min\\ & \\sum_{i=1}^{n} \\sum_{j=1}^{k} d_{ij} x_{ij}
        + M p \\Big( \\sum_{(i,i') \\in CL} w_{ii'} y_{ii'}
                  + \\sum_{(i,i') \\in ML} w_{ii'} z_{ii'} \\Big)        && (1) \\\\
    \\text{s.t.}\\ & \\sum_{j=1}^{k} x_{ij} = 1              && i = 1..n              && (2) \\\\
    & \\sum_{i=1}^{n} x_{ij} \\ge 1                          && j = 1..k              && (3) \\\\
    & x_{ij} + x_{i'j} \\le 1 + y_{ii'}                      && (i,i') \\in CL,\\ j    && (4) \\\\
    & x_{ij} - x_{i'j} \\le z_{ii'}                          && (i,i') \\in ML,\\ j    && (5) \\\\
    & x_{ij} \\in \\{0, 1\\},\\ y_{ii'} \\ge 0,\\ z_{ii'} \\ge 0                        && (6)-(8)

with :math:`d_{ij} = \\lVert v_i - \\bar c_j \\rVert_2` and
:math:`M = \\max_{i,j} d_{ij}`, recomputed for every set of centres (``M = 1`` when every
distance is 0, i.e. every object sits on every centre: the paper's ``M`` would make the
constraints free there). The per-constraint
weights :math:`w` (``Constraints.weights``, default 1) are the extension announced in the
paper's conclusion; with all weights 1 this is exactly (1).

Readings chosen (the PDF text writes the slack indices as ``y_{i'i'}``, a garbled
``y_{ii'}``):

* Because :math:`x` is binary and (2) holds, the smallest feasible slack is
  :math:`y_{ii'} = 1` when ``i`` and ``i'`` share a cluster and 0 otherwise, and
  :math:`z_{ii'} = 1` when they are apart (if ``i`` is in ``a`` and ``i'`` in ``b != a``,
  row (5) for ``j = a`` reads ``1 <= z``). So P charges each violated constraint exactly
  ``M p w`` once, and :math:`y, z` can be continuous. One direction of (5) is
  enough for this; the paper writes only that one.
* A *hard* constraint is its row without slack: ``x_ij + x_i'j <= 1`` for cannot-link and
  ``x_ij - x_i'j <= 0`` (hence equality, by (2)) for must-link.
* Optional cluster sizes add :math:`\\text{min\\_size} \\le \\sum_i x_{ij} \\le
  \\text{max\\_size}`; row (3) stays (a ``min_size`` of 0 or 1 adds nothing to it).
* Soft constraints of weight 0 cost nothing whatever the assignment; their rows are left out.

Two exact reductions, both on by default (``contract=True, eliminate_free=True``):

*Contraction of hard must-links.* The components of the hard must-link graph
(super-instances) are assigned as one unit: its cost is the sum of its members' distances,
:math:`d_{uj} = \\sum_{i \\in u} d_{ij}`, and the hard must-link rows disappear. A soft
must-link inside a unit is always satisfied (dropped), a soft cannot-link inside a unit is
always violated (its ``M p w`` becomes a constant), and constraints joining the same two
units are merged with summed weights (each is violated exactly when the units are
apart/together). A hard cannot-link inside a unit makes P infeasible and raises
:class:`~ccopt.exceptions.InfeasibleConstraintsError` with the must-link chain. Soft
must-links are *not* contracted: a soft must-link may be violated at a price, and merging
its objects would turn it into a hard one (a different problem).

*Elimination of free units.* A unit that no remaining row mentions (no constraint, no size
bound) matters only through (3). Let :math:`r_{uj} = d_{uj} - \\min_{j'} d_{uj'}` be its
regret for cluster ``j`` and :math:`C` the union, over ``j``, of the ``k`` free units of
smallest regret for ``j``. Some optimum of P puts every free unit outside :math:`C` at its
nearest centre: if such a unit ``i`` sits elsewhere, in ``j``, and ``j`` keeps another
member, moving ``i`` home does not raise the cost; if ``i`` is alone in ``j``, two of the
``k`` candidates for ``j`` share one of the other ``k - 1`` clusters (pigeonhole), and
swapping one of them (regret ``<= r_ij``) into ``j`` while ``i`` goes home does not raise
the cost either. So the program keeps variables only for the constrained units and for
``S = min(#free, k^2)`` *slots* filled with :math:`C` (padded with further free units); the
other free units are fixed at their nearest centre, their distances enter as a constant
and they count towards (3), whose right-hand side becomes ``1 - (fixed units at j)``. With
cluster-size bounds the reduction does not hold and every unit keeps its variables. At
``n = 100,000`` objects with 10,000 random constraints this keeps about 20,000 of the
objects in the program.

The program's structure depends only on the constraints; new centres change only mutable
Params (distances, ``M``, the slot costs, the right-hand sides of (3), the constant), so
:class:`BHAssignmentProgram` builds it once and re-solves it persistently, which is what
BH-kmeans does every iteration: with ``highs_matrix`` (the default) as numpy matrices handed
to HiGHS, with any other solver as a Pyomo model (:mod:`ccopt.models._bh_rows`; both give
the same program, and :attr:`BHAssignmentProgram.model` is the Pyomo one either way).

*Decomposition* (:meth:`BHAssignmentProgram.solve`, without size bounds). Row (3) is the
only row that couples objects that no chain of constraints joins. Dropping it leaves one
independent problem per connected component of the constraint graph (on units), and the
free units at their nearest centre. Each component is a pairwise labelling problem, solved
exactly in three ways: a unit with a single neighbour ``v`` is eliminated (variable
elimination: ``v``'s cost for label ``j`` grows by :math:`\\min_i (d_{ui} + \\text{pair
cost}(i, j))`, and ``u``'s label is read back from ``v``'s), repeatedly, so trees vanish
and only the 2-core remains; 2-core components with few labellings (``k^s <=
max_labellings``) are enumerated; the rest form a smaller program (rows (2), (4),
(5) and the hard rows over those components with the eliminated units' costs folded in,
no (3)), solved the same way. This relaxation's optimum is a lower bound on
P's; when its assignment leaves no cluster empty it is feasible for P, hence optimal.
Otherwise the full program above is solved. At ``n = 100,000``, ``k = 10`` with 10,000
random constraints the constraint graph is a forest and no solver call is needed (HiGHS
spent 20-40 s per solve of the full program there, mostly in presolve and symmetry
detection over 180,000 binaries).

*Time-limited solves.* When a solve stops on its time limit, the solver's incumbent is
improved by a local search (:mod:`ccopt.models._bh_search`: single units, then whole
blocks of must-linked units, moved to their best cluster, every move feasible), and so are
the previous assignment and, when feasible, the nearest-centre assignment and a greedy
placement of the must-link components, within the caller's ``search_time_limit`` (at least
``_SEARCH_FLOOR`` seconds: the search is what makes a stopped solve's answer usable); the
best is returned with status ``time_limit``
(``feasible`` when the solver stopped on another limit, e.g. a node or solution limit
given in ``solver_options``: its incumbent is unproven too). On dense constraint sets
HiGHS's first incumbents were up to 15 times the optimum (vehicle, 14,365 constraints,
first k-means++ centres: 69,768 against about 4,200).

*Clique rows* (``cuts_after``, ``highs_matrix`` only). P's LP relaxation lets must-linked
objects spread evenly over two clusters and cannot-linked groups share the same halves
without paying anything, so on dense noise-free sets its bound stays far under the optimum
(vehicle CS20, first step: 3,897 against 4,158) and HiGHS did not close the first step in
200 s. A solve still running after ``cuts_after`` seconds is stopped; P gets the valid rows of
:mod:`ccopt.models._bh_cuts` (cannot-link cliques over must-link components, found by
separation on the LP relaxation) and is solved again in the time left, from the better of
the first solve's incumbent and a solution near the strengthened LP point (P with the objects
that point assigns integrally fixed, except the neighbours of its fractional ones); if the
strengthened LP's optimum is integral it is taken as P's optimum without a MIP solve. The
rows cut off no assignment, so the step stays exact; they depend on the constraints only
and stay in the program for later steps. The Pyomo twin
(:attr:`BHAssignmentProgram.model`) does not carry them.

*Candidate centres* (``n_candidates``, off by default; PCCC's ``n_neighbors``). Each
constrained unit may take only its ``q`` nearest centres (units joined by must-links share
the ``q`` nearest of their group, by summed cost): the other ``x`` are bounded by 0
(so the solver's presolve drops them) and their costs are infinite in the leaf elimination and the
enumeration; slots keep every cluster. It is not exact, but it pays on large ``k`` with
sparse constraints: on Letter (k = 26, 19,900 constraints, ``q = 5``, ``highs_matrix``)
the first three steps reach P's optimum in 22 / 4 / 4 s, against 86 s for the first
unrestricted step. It does not help the dense sets whose first step HiGHS cannot close
within 100 s (vehicle CS20 with ``q = 3`` of 4, movement libras and led7digit CS20 with
``q = 5``: still open; with ``q = 2`` vehicle's restricted optimum is above P's best known
assignment). When no restricted assignment exists, P is solved unrestricted.
"""

from __future__ import annotations

import logging
import math
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csgraph
from scipy.spatial.distance import cdist

from ccopt._validation import (
    check_bool,
    check_n_clusters,
    check_nonnegative,
    check_positive_int,
    check_time_limit,
)
from ccopt.constraints import CL, ML
from ccopt.exceptions import (
    InfeasibleConstraintsError,
    InvalidDataError,
    InvalidParameterError,
    SolverError,
)
from ccopt.models._bh_rows import MatrixRows, PyomoRows
from ccopt.models._bh_search import (
    MoveGraph,
    greedy_by_components,
    improve,
    membership,
    must_link_components,
    symmetric_weights,
)
from ccopt.models._common import check_problem
from ccopt.problem import ClusteringProblem
from ccopt.solvers import (
    DEFAULT_RESOLVE_SOLVER,
    DEFAULT_SOLVER,
    MATRIX_SOLVER,
    SolveResult,
    SolverOptions,
    check_solver,
    check_solver_options,
)
from ccopt.status import Status

__all__ = [
    "BHAssignmentPlan",
    "BHAssignmentProgram",
    "BHAssignmentResult",
    "bh_objective",
    "build_bh_assignment_model",
    "euclidean_distances",
]

logger = logging.getLogger(__name__)

# Seconds of a plain HiGHS solve before P is strengthened by clique rows (BHAssignmentProgram).
# Every solve of the BH-kmeans table outside the 16 runs with time-limited solves finishes well
# within it; those 16 spend their time at HiGHS's root node, which the rows close.
DEFAULT_CUTS_AFTER = 10.0
# Seconds the local search after a stopped solve (BHAssignmentProgram._polish) may run even
# when the time limit is spent: it is what makes a stopped solve's answer usable (HiGHS's first
# incumbents on dense sets were up to 15 times the optimum, module docstring). Without a limit
# it ran for 30 s after the solver at 100,000 objects with 100,000 constraints.
_SEARCH_FLOOR = 0.5


def euclidean_distances(X, centers) -> np.ndarray:
    """Euclidean (not squared) distance of every object to every centre.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_clusters, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_clusters)
    """
    # cdist computes each distance directly (no |x|^2 - 2x.c + |c|^2 cancellation), so an
    # object sitting on a centre gets exactly 0; memory stays n x k.
    return cdist(np.asarray(X, dtype=np.float64), np.asarray(centers, dtype=np.float64))


def _big_m(dist: np.ndarray) -> float:
    """The paper's ``M``, the largest distance; 1 when all are 0, so violations still cost."""
    largest = float(dist.max())
    return largest if largest > 0 else 1.0


def _check_penalty_total(problem: ClusteringProblem, big_m: float, penalty: float) -> None:
    """Refuse penalties whose total ``M * penalty * sum(soft weights)`` overflows float64.

    An infinite violation cost silently made a soft constraint hard (numpy's overflow warning
    was the only sign), where PCKMeans and PCS refuse the same penalties.
    """
    if penalty == 0.0:
        return
    cons = problem.constraints
    with np.errstate(over="ignore"):
        total = float(np.sum(cons.weights[~cons.hard])) * penalty * big_m
    if not np.isfinite(2.0 * total):
        raise InvalidParameterError(
            f"The constraint penalties overflow float64: penalty={penalty:g} times M={big_m:g} (the largest "
            f"object-centre distance) times the total weight {float(np.sum(cons.weights[~cons.hard])):g} of the "
            "soft constraints. Use a smaller penalty, rescale the constraint weights, or mark the constraints hard."
        )


def _check_centers(centers, k: int, d: int) -> np.ndarray:
    try:
        arr = np.asarray(centers, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidDataError(f"centers could not be read as a float array: {exc}") from exc
    if arr.shape != (k, d):
        raise InvalidDataError(
            f"centers must have shape (n_clusters, n_features) = ({k}, {d}), got {arr.shape}."
        )
    if not np.isfinite(arr).all():
        row = int(np.argwhere(~np.isfinite(arr))[0, 0])
        raise InvalidDataError(f"centers contains NaN or inf in row {row}.")
    return arr


def _group_pairs(pairs: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge rows with the same unordered pair, summing their weights."""
    if pairs.shape[0] == 0:
        return np.empty((0, 2), dtype=np.int64), np.empty(0)
    canon = np.sort(pairs, axis=1)
    unique, inverse = np.unique(canon, axis=0, return_inverse=True)
    summed = np.bincount(inverse.reshape(-1), weights=weights, minlength=unique.shape[0])
    return unique.astype(np.int64), summed


@dataclass(frozen=True, eq=False)
class BHAssignmentPlan:
    """The centre-independent structure of P for one problem: units, rows, components.

    Build it with :meth:`from_problem`. Units are the objects, or with ``contract=True``
    the components of the hard must-link graph. Rows are given as pairs of *unit* ids.

    Attributes
    ----------
    n_clusters : int
    unit : ndarray of int64, shape (n_samples,)
        Unit of every object.
    unit_sizes : ndarray of int64, shape (n_units,)
    constrained_units : ndarray of int64, shape (n_constrained,)
        Units some row mentions (every unit when size bounds are set), increasing.
    free_units : ndarray of int64, shape (n_free,)
        The other units, increasing.
    component : ndarray of int64, shape (n_constrained,)
        Connected component (of the graph of rows) of each constrained unit.
    soft_cl, soft_ml : ndarray of int64, shape (m, 2)
        Soft cannot-/must-link rows, merged per pair of units.
    soft_cl_weight, soft_ml_weight : ndarray of float64, shape (m,)
        Summed weights of the constraints merged into each row.
    hard_cl, hard_ml : ndarray of int64, shape (m, 2)
        Hard rows (``hard_ml`` is empty when contracting).
    constant_weight : float
        Summed weights of soft constraints violated by every assignment (soft cannot-links
        inside a hard must-link component); P charges ``M p constant_weight`` for them.
    min_size, max_size : int or None
        Size bounds that give rows (a ``min_size <= 1`` is implied by (3) and dropped).
    """

    n_clusters: int
    unit: np.ndarray
    unit_sizes: np.ndarray
    constrained_units: np.ndarray
    free_units: np.ndarray
    component: np.ndarray
    soft_cl: np.ndarray
    soft_cl_weight: np.ndarray
    soft_ml: np.ndarray
    soft_ml_weight: np.ndarray
    hard_cl: np.ndarray
    hard_ml: np.ndarray
    constant_weight: float
    min_size: int | None
    max_size: int | None

    @classmethod
    def from_problem(cls, problem: ClusteringProblem, *, contract: bool = True) -> BHAssignmentPlan:
        """Work out units, rows and components for ``problem``.

        Parameters
        ----------
        problem : ClusteringProblem
        contract : bool, default=True
            Merge the objects of each hard must-link component into one unit.

        Raises
        ------
        InfeasibleConstraintsError
            A hard cannot-link inside a hard must-link component (certificate: the chain),
            a hard must-link component larger than ``max_size``, or fewer hard must-link
            components than ``n_clusters``.
        """
        cons = problem.constraints
        n, k = problem.n_samples, problem.n_clusters
        # The closure of the hard subset raises, with the must-link chain, when a hard
        # cannot-link joins two objects of one hard must-link component: then P is
        # infeasible whatever the centres, with or without contraction.
        hard_closure = cons.subset(np.flatnonzero(cons.hard)).closure
        check_n_clusters(k, n, n_super_instances=hard_closure.n_super)
        max_size = problem.max_size
        if max_size is not None and hard_closure.sizes.max() > max_size:
            big = int(np.argmax(hard_closure.sizes))
            members = hard_closure.members(big)
            raise InfeasibleConstraintsError(
                f"A hard must-link component of {int(hard_closure.sizes[big])} objects exceeds "
                f"max_size={max_size}: objects {members[:10].tolist()}.",
                certificate=members.tolist(),
            )
        min_size = problem.min_size if problem.min_size is not None and problem.min_size > 1 else None

        if contract:
            unit = np.asarray(hard_closure.component, dtype=np.int64)
            unit_sizes = np.asarray(hard_closure.sizes, dtype=np.int64)
        else:
            unit = np.arange(n, dtype=np.int64)
            unit_sizes = np.ones(n, dtype=np.int64)
        n_units = unit_sizes.shape[0]

        pairs_u = unit[cons.pairs] if len(cons) else np.empty((0, 2), dtype=np.int64)
        same = pairs_u[:, 0] == pairs_u[:, 1]
        soft = ~cons.hard & (cons.weights > 0)
        soft_ml = soft & (cons.kinds == ML) & ~same   # a soft ML inside a unit always holds
        soft_cl = soft & (cons.kinds == CL) & ~same
        constant_weight = float(cons.weights[soft & (cons.kinds == CL) & same].sum())
        hard_cl = cons.hard & (cons.kinds == CL)     # never inside a unit (closure checked)
        hard_ml = cons.hard & (cons.kinds == ML) & ~same

        soft_ml_pairs, soft_ml_w = _group_pairs(pairs_u[soft_ml], cons.weights[soft_ml])
        soft_cl_pairs, soft_cl_w = _group_pairs(pairs_u[soft_cl], cons.weights[soft_cl])
        hard_cl_pairs, _ = _group_pairs(pairs_u[hard_cl], np.ones(int(hard_cl.sum())))
        hard_ml_pairs, _ = _group_pairs(pairs_u[hard_ml], np.ones(int(hard_ml.sum())))

        all_rows = np.vstack([soft_ml_pairs, soft_cl_pairs, hard_cl_pairs, hard_ml_pairs])
        mentioned = np.zeros(n_units, dtype=bool)
        mentioned[all_rows.reshape(-1)] = True
        if min_size is not None or max_size is not None:
            # Every unit counts towards the size rows, so every unit is "constrained".
            mentioned[:] = True
        constrained = np.flatnonzero(mentioned)
        free = np.flatnonzero(~mentioned)

        position = np.full(n_units, -1, dtype=np.int64)
        position[constrained] = np.arange(constrained.size)
        local = position[all_rows]
        graph = sp.coo_matrix((np.ones(local.shape[0]), (local[:, 0], local[:, 1])),
                              shape=(constrained.size, constrained.size))
        _, component = csgraph.connected_components(graph, directed=False)

        plan = cls(
            n_clusters=k, unit=unit, unit_sizes=unit_sizes, constrained_units=constrained,
            free_units=free, component=component.astype(np.int64),
            soft_cl=soft_cl_pairs, soft_cl_weight=soft_cl_w,
            soft_ml=soft_ml_pairs, soft_ml_weight=soft_ml_w,
            hard_cl=hard_cl_pairs, hard_ml=hard_ml_pairs,
            constant_weight=constant_weight, min_size=min_size, max_size=max_size,
        )
        for value in plan.__dict__.values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
        return plan

    @property
    def n_units(self) -> int:
        """Number of units (objects, or hard must-link components)."""
        return int(self.unit_sizes.shape[0])

    @cached_property
    def must_link_group(self) -> np.ndarray:
        """Group of every unit in the graph of the must-link rows (soft ones, and the hard
        ones left when not contracting)."""
        ml = np.vstack([self.soft_ml, self.hard_ml])
        graph = sp.coo_matrix((np.ones(ml.shape[0]), (ml[:, 0], ml[:, 1])),
                              shape=(self.n_units, self.n_units))
        return csgraph.connected_components(graph, directed=False)[1]

    @property
    def sized(self) -> bool:
        """Whether size rows couple all units (then neither elimination nor decomposition hold)."""
        return self.min_size is not None or self.max_size is not None

    def unit_distances(self, dist: np.ndarray) -> np.ndarray:
        """Cost ``d_uj`` of every unit: the summed distances of its objects, shape (n_units, k).

        Parameters
        ----------
        dist : ndarray of float64, shape (n_samples, n_clusters)
            Distance of every object to every centre (:func:`euclidean_distances`); not
            checked.

        Returns
        -------
        ndarray of float64, shape (n_units, n_clusters)
            Row ``u`` sums the rows of ``dist`` of the objects of unit ``u``. When every
            unit is one object, ``dist`` itself (not a copy).
        """
        if self.n_units == self.unit.shape[0]:
            return dist
        return np.asarray(membership(self.unit, self.n_units) @ dist)


@dataclass(frozen=True)
class _SmallGroup:
    """Components of one size ``s`` solved by enumerating their ``k^s`` labellings."""

    units: np.ndarray     # (C, s) unit ids
    w_ml: np.ndarray      # (C, P) summed soft must-link weight per local pair (P = s(s-1)/2)
    w_cl: np.ndarray      # (C, P)
    hard_cl: np.ndarray   # (C, P) bool
    hard_ml: np.ndarray   # (C, P) bool
    pair_a: np.ndarray    # (P,) local index of each pair's first unit
    pair_b: np.ndarray    # (P,)


def _small_groups(plan: BHAssignmentPlan, nodes: np.ndarray, comp: np.ndarray,
                  max_labellings: int) -> tuple[list[_SmallGroup], np.ndarray]:
    """Split components into enumerable groups (by size) and the rest (units for the MILP).

    ``nodes`` are unit ids and ``comp`` their component labels (0..C-1); only rows with both
    ends among ``nodes`` are read.
    """
    k = plan.n_clusters
    if nodes.size == 0:
        return [], np.empty(0, dtype=np.int64)
    sizes = np.bincount(comp)
    # Compare logarithms: k ** s overflows for large components.
    enumerable = sizes * np.log(k) <= np.log(max_labellings) + 1e-9
    # Position of every node inside its component (0..s-1), in node order.
    order = np.argsort(comp, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    local = np.empty(comp.size, dtype=np.int64)
    local[order] = np.arange(comp.size) - np.repeat(starts, sizes)
    position = np.full(plan.n_units, -1, dtype=np.int64)
    position[nodes] = np.arange(nodes.size)

    groups = []
    for s in np.unique(sizes[enumerable]):
        s = int(s)
        comps = np.flatnonzero(enumerable & (sizes == s))
        slot = np.full(sizes.size, -1, dtype=np.int64)
        slot[comps] = np.arange(comps.size)
        units = np.empty((comps.size, s), dtype=np.int64)
        members = np.flatnonzero(slot[comp] >= 0)
        units[slot[comp[members]], local[members]] = nodes[members]
        pair_a, pair_b = np.triu_indices(s, k=1)
        pair_index = np.full((s, s), -1, dtype=np.int64)
        pair_index[pair_a, pair_b] = np.arange(pair_a.size)
        pair_index[pair_b, pair_a] = np.arange(pair_a.size)

        def per_pair(rows, weights, dtype, slot=slot, pair_index=pair_index, n_comps=comps.size,
                     n_pairs=pair_a.size):
            out = np.zeros((n_comps, n_pairs), dtype=dtype)
            if rows.shape[0] == 0:
                return out
            pos = position[rows]
            inside = (pos >= 0).all(axis=1)
            pos, weights = pos[inside], weights[inside]
            c = slot[comp[pos[:, 0]]]
            mine = c >= 0
            idx = pair_index[local[pos[mine, 0]], local[pos[mine, 1]]]
            np.add.at(out, (c[mine], idx), weights[mine])
            return out

        groups.append(_SmallGroup(
            units=units,
            w_ml=per_pair(plan.soft_ml, plan.soft_ml_weight, np.float64),
            w_cl=per_pair(plan.soft_cl, plan.soft_cl_weight, np.float64),
            hard_cl=per_pair(plan.hard_cl, np.ones(plan.hard_cl.shape[0], dtype=np.int64), np.int64) > 0,
            hard_ml=per_pair(plan.hard_ml, np.ones(plan.hard_ml.shape[0], dtype=np.int64), np.int64) > 0,
            pair_a=pair_a, pair_b=pair_b,
        ))
    rest = nodes[~enumerable[comp]]
    return groups, rest


@dataclass(frozen=True)
class _Decomposition:
    """How the relaxation without (3) is solved: leaves eliminated, small parts enumerated.

    Leaves of the constraint graph are eliminated one by one (a unit with a single neighbour
    ``v`` contributes ``min_i (d_ui + pair cost(i, j))`` to ``v``'s cost for label ``j``: exact
    variable elimination); what is left (the 2-core) splits into components that are
    enumerated when small and otherwise go to the MILP.
    """

    peeled: np.ndarray      # units in elimination order
    parent: np.ndarray      # the neighbour of each when it was eliminated
    levels: list            # positions in ``peeled`` by height: every child before its parent
    w_ml: np.ndarray        # soft must-link weight between each peeled unit and its parent
    w_cl: np.ndarray        # soft cannot-link weight
    hard_cl: np.ndarray     # bool
    hard_ml: np.ndarray     # bool
    roots: np.ndarray       # units left without neighbours (whole trees eliminated)
    groups: list            # _SmallGroup per component size
    core_units: np.ndarray  # units of the components solved by the MILP

    @classmethod
    def from_plan(cls, plan: BHAssignmentPlan, max_labellings: int) -> _Decomposition:
        u = plan.n_units
        kinds = [symmetric_weights(plan.soft_ml, u, plan.soft_ml_weight),
                 symmetric_weights(plan.soft_cl, u, plan.soft_cl_weight),
                 symmetric_weights(plan.hard_cl, u), symmetric_weights(plan.hard_ml, u)]
        pattern = (abs(kinds[0]) + abs(kinds[1]) + kinds[2] + kinds[3]).tocsr()
        pattern.data[:] = 1.0
        pattern.eliminate_zeros()
        indptr, indices = pattern.indptr, pattern.indices
        degree = np.diff(indptr).astype(np.int64)
        alive = np.zeros(u, dtype=bool)
        alive[plan.constrained_units] = True
        peeled, parent = [], []
        stack = plan.constrained_units[degree[plan.constrained_units] == 1].tolist()[::-1]
        while stack:
            leaf = stack.pop()
            if not alive[leaf] or degree[leaf] != 1:
                continue
            neighbours = indices[indptr[leaf]:indptr[leaf + 1]]
            other = int(neighbours[alive[neighbours]][0])
            alive[leaf] = False
            degree[other] -= 1
            peeled.append(leaf)
            parent.append(other)
            if degree[other] == 1:
                stack.append(other)
        peeled = np.asarray(peeled, dtype=np.int64)
        parent = np.asarray(parent, dtype=np.int64)

        def entries(matrix):
            if peeled.size == 0:
                return np.empty(0)
            return np.asarray(matrix[peeled, parent]).reshape(-1)

        remaining = plan.constrained_units[alive[plan.constrained_units]]
        roots = remaining[degree[remaining] == 0]
        core = remaining[degree[remaining] > 0]
        sub = pattern[core][:, core]
        _, comp = csgraph.connected_components(sub, directed=False)
        groups, rest = _small_groups(plan, core, comp.astype(np.int64), max_labellings)
        return cls(peeled=peeled, parent=parent, levels=_heights(peeled, parent, u),
                   w_ml=entries(kinds[0]), w_cl=entries(kinds[1]),
                   hard_cl=entries(kinds[2]) > 0, hard_ml=entries(kinds[3]) > 0, roots=roots,
                   groups=groups, core_units=rest)

    def eliminate(self, unary: np.ndarray, penalty_coef: float) -> np.ndarray:
        """Fold every peeled unit into its parent's costs (in place); return the choice table.

        ``choice[t, j]`` is the best label of the ``t``-th peeled unit when its parent has
        label ``j``.
        """
        k = unary.shape[1]
        labels = np.arange(k)[None, :]
        # The pair costs only two values per peeled unit: apart (labels differ) and together.
        apart = penalty_coef * self.w_ml + np.where(self.hard_ml, np.inf, 0.0)
        together = penalty_coef * self.w_cl + np.where(self.hard_cl, np.inf, 0.0)
        choice = np.empty((self.peeled.size, k), dtype=np.int64)
        # A height's units have all their children folded in already, and no two of them
        # are parent and child: each height is one vectorised step.
        for level in self.levels:
            own = unary[self.peeled[level]]
            # For the parent's label j the unit takes j itself, or its cheapest label other
            # than j: its cheapest label unless that is j, then its second cheapest.
            order = np.argsort(own, axis=1, kind="stable")
            if k > 1:
                other = np.where(labels == order[:, :1], order[:, 1:2], order[:, :1])
                other_cost = np.take_along_axis(own, other, axis=1) + apart[level][:, None]
            else:  # one cluster: there is no other label
                other, other_cost = order, np.full_like(own, np.inf)
            same_cost = own + together[level][:, None]
            # Ties go to the smaller label, as an argmin over all labels would.
            stay = (same_cost < other_cost) | ((same_cost == other_cost) & (labels <= other))
            choice[level] = np.where(stay, labels, other)
            np.add.at(unary, self.parent[level], np.where(stay, same_cost, other_cost))
        return choice

    def back_substitute(self, labels: np.ndarray, choice: np.ndarray) -> None:
        """Labels of the peeled units, from their parents' labels (highest first, in place)."""
        for level in reversed(self.levels):
            labels[self.peeled[level]] = choice[level, labels[self.parent[level]]]


def _heights(peeled: np.ndarray, parent: np.ndarray, n_units: int) -> list[np.ndarray]:
    """Positions in ``peeled`` grouped by height (0: no peeled child), lowest first.

    A unit is peeled only after all its children, so one pass in peeling order sees every
    child's height before its parent's.
    """
    if peeled.size == 0:
        return []
    height_of_unit = np.zeros(n_units, dtype=np.int64)
    height = np.empty(peeled.size, dtype=np.int64)
    for t, (leaf, other) in enumerate(zip(peeled.tolist(), parent.tolist(), strict=True)):
        height[t] = height_of_unit[leaf]
        height_of_unit[other] = max(height_of_unit[other], height[t] + 1)
    order = np.argsort(height, kind="stable")
    bounds = np.searchsorted(height[order], np.arange(height.max() + 2))
    return [order[bounds[h]:bounds[h + 1]] for h in range(height.max() + 1)]


class _UnlabellableUnits(Exception):
    """Units (not objects) whose hard rows admit no labelling; translated by the caller."""

    def __init__(self, units: list[int], n_clusters: int):
        super().__init__(units, n_clusters)
        self.units, self.n_clusters = units, n_clusters


def _objects_certificate(err: _UnlabellableUnits, unit: np.ndarray) -> InfeasibleConstraintsError:
    """The error users see: one object per unit (its smallest index), as every certificate does."""
    first_object = np.full(int(unit.max()) + 1, -1, dtype=np.int64)
    first_object[unit[::-1]] = np.arange(unit.size - 1, -1, -1)
    objects = first_object[err.units].tolist()
    return InfeasibleConstraintsError(
        f"The hard constraints among objects {objects} (one per hard must-link group) admit no "
        f"labelling with {err.n_clusters} clusters.",
        certificate=objects,
    )


def _enumerate(group: _SmallGroup, unit_cost: np.ndarray, penalty_coef: float,
               chunk_elements: int = 4_000_000) -> np.ndarray:
    """Best labelling of every component of ``group``, shape (C, s); exact.

    Raises InfeasibleConstraintsError when the hard rows of a component admit no labelling.
    """
    n_comps, s = group.units.shape
    k = unit_cost.shape[1]
    labellings = np.stack(np.unravel_index(np.arange(k ** s), (k,) * s), axis=1)  # (L, s)
    same = (labellings[:, group.pair_a] == labellings[:, group.pair_b]).astype(np.float64)  # (L, P)
    apart = 1.0 - same
    best = np.empty((n_comps, s), dtype=np.int64)
    step = max(1, chunk_elements // labellings.shape[0])
    for lo in range(0, n_comps, step):
        hi = min(n_comps, lo + step)
        units = group.units[lo:hi]
        cost = np.zeros((hi - lo, labellings.shape[0]))
        for u in range(s):
            cost += unit_cost[units[:, u]][:, labellings[:, u]]
        cost += penalty_coef * (group.w_ml[lo:hi] @ apart.T + group.w_cl[lo:hi] @ same.T)
        banned = (group.hard_cl[lo:hi].astype(np.float64) @ same.T
                  + group.hard_ml[lo:hi].astype(np.float64) @ apart.T) > 0
        cost[banned] = np.inf
        choice = np.argmin(cost, axis=1)
        if not np.isfinite(cost[np.arange(hi - lo), choice]).all():
            bad = int(np.flatnonzero(~np.isfinite(cost[np.arange(hi - lo), choice]))[0]) + lo
            raise _UnlabellableUnits(group.units[bad].tolist(), k)
        best[lo:hi] = labellings[choice]
    return best


@dataclass(frozen=True)
class BHAssignmentResult:
    """One solve of P.

    Attributes
    ----------
    labels : ndarray of int64, shape (n_samples,)
        Centre assigned to every object.
    objective : float
        Value of (1) for ``labels`` (distances plus ``M p`` per violated weight).
    big_m : float
        The ``M`` used (largest object-centre distance).
    status : Status
        ``optimal`` (within the MIP gap), ``time_limit`` when a solver stopped on its time
        limit, or ``feasible`` when it stopped with an unproven incumbent for another reason
        (e.g. a node or solution limit in ``solver_options``). In the last two cases the
        labels are the best of its incumbent (if any), the previous assignment and the
        nearest-centre assignment (if feasible), each after local search.
    route : str
        ``"decomposed"`` (the relaxation without (3) was solved and its assignment was
        feasible, hence optimal when that solve finished; see ``status``) or ``"full"``.
    solves : tuple of SolveResult
        The raw results of :mod:`ccopt.solvers` (empty when enumeration sufficed).
    wall_time : float
        Seconds spent in :meth:`BHAssignmentProgram.solve`.
    restricted : bool
        Whether the assignments were restricted to each unit's ``n_candidates`` nearest
        centres; ``status`` then refers to that restricted program.
    """

    labels: np.ndarray
    objective: float
    big_m: float
    status: Status
    route: str
    solves: tuple
    wall_time: float
    restricted: bool = False


class BHAssignmentProgram:
    """P for one problem, built once; new centres change only mutable Params.

    Parameters
    ----------
    problem : ClusteringProblem
    penalty : float, default=1.0
        The paper's ``p`` (>= 0). The penalty of a violated constraint is ``M p w``.
    centers : array-like of shape (n_clusters, n_features), optional
        First centres (else call :meth:`set_centers` before solving).
    contract, eliminate_free : bool, default=True
        The exact reductions described in the module docstring.
    decompose : bool, default=True
        Try the relaxation without (3) first (module docstring); ignored with size bounds.
    max_labellings : int, default=10000
        Components with at most this many labellings (``k^s``) are enumerated.
    solver : str, default="highs_matrix"
        Any Pyomo solver name, or ccopt's ``highs_matrix`` (:mod:`ccopt.solvers`).
    mip_gap : float, optional
        Relative MIP gap (solver default when None; HiGHS: 1e-4).
    threads : int, optional
    tee : bool, default=False
    solver_options : dict, optional
        Passed to the solver unchanged.
    n_candidates : int, optional
        Let every constrained unit go only to its ``n_candidates`` nearest centres (by
        distance cost; must-linked units share the nearest centres of their group), the
        other ``x`` bounded by 0: PCCC's restriction (Baumann and
        Hochbaum's successor to BH-kmeans, parameter ``n_neighbors``). A heuristic: the
        program is smaller, its optimum can be worse than P's. When the restriction leaves
        no feasible assignment (hard constraints, row (3)), P is solved unrestricted. None,
        or a value >= ``k``, solves P exactly.
    cuts_after : float or None, default=10.0
        ``highs_matrix`` only: seconds a solve of P may run before it is stopped, P is
        strengthened by cannot-link clique rows over must-link components (valid rows that
        change neither the feasible assignments nor the optimum; module docstring) and
        solved again in the time left. 0 strengthens before every solve; None never does.

    Raises
    ------
    InvalidParameterError
        ``problem`` not a :class:`ClusteringProblem`, a flag not a bool, or another bad
        parameter.
    SolverNotAvailableError
        Unknown or uninstalled ``solver`` (checked here, although a decomposed solve may
        need no solver call).
    InfeasibleConstraintsError
        As :meth:`BHAssignmentPlan.from_problem`.

    Attributes
    ----------
    plan : BHAssignmentPlan
    model : pyomo.environ.ConcreteModel
        The full program P (built on first access). Components (``R`` program rows: the
        constrained units, then the slots; ``K`` clusters):

        ===========================  ==================================================
        ``R``, ``K``                 index sets of program rows and clusters
        ``x[r, j]``                  binary, row ``r`` assigned to cluster ``j`` (6)
        ``y[c]``, ``z[c]``           soft cannot-/must-link slack, >= 0 (7), (8)
        ``d[r, j]``                  mutable Param, distance cost of row ``r`` to ``j``
        ``M``, ``p``                 mutable Params: largest distance, penalty
        ``w_cl[c]``, ``w_ml[c]``     weights of the soft rows
        ``offset``                   mutable Param: distances of the fixed free units
        ``w_const``                  weight of soft constraints every assignment violates
        ``nonempty_rhs[j]``          mutable Param, right-hand side of (3)
        ``objective``                (1)
        ``assign[r]``                (2)
        ``nonempty[j]``              (3)
        ``cannot_link[c, j]``        (4)
        ``must_link[c, j]``          (5)
        ``hard_cannot_link[h, j]``   hard cannot-link rows (no slack)
        ``hard_must_link[h, j]``     hard must-link rows (no slack; empty when contracting)
        ``min_size[j]``              size rows, only when bounds are given
        ``max_size[j]``
        ===========================  ==================================================
    """

    def __init__(self, problem: ClusteringProblem, *, penalty: float = 1.0, centers=None,
                 contract: bool = True, eliminate_free: bool = True, decompose: bool = True,
                 max_labellings: int = 10_000, solver: str = DEFAULT_RESOLVE_SOLVER,
                 mip_gap: float | None = None, threads: int | None = None, tee: bool = False,
                 solver_options: dict | None = None, n_candidates: int | None = None,
                 cuts_after: float | None = DEFAULT_CUTS_AFTER):
        self.problem = check_problem(problem)
        contract = check_bool(contract, "contract")
        eliminate_free = check_bool(eliminate_free, "eliminate_free")
        decompose = check_bool(decompose, "decompose")
        # Checked now: the decomposition or the enumeration often finish without a solver
        # call, and a misspelt or missing solver would then pass unnoticed until a later step.
        check_solver(solver)
        self.plan = BHAssignmentPlan.from_problem(problem, contract=contract)
        self._penalty = check_nonnegative(penalty, "penalty")
        self._options = SolverOptions(mip_gap=mip_gap, threads=threads, tee=tee,
                                      extra=dict(solver_options or {}))
        check_solver_options(solver, self._options.extra)
        self._solver_name = solver
        k = self.plan.n_clusters
        n_free = self.plan.free_units.size
        self._eliminate = eliminate_free and not self.plan.sized and n_free > k * k
        self._n_slots = k * k if self._eliminate else int(n_free)
        self._decompose = decompose and not self.plan.sized
        self._max_labellings = check_positive_int(max_labellings, "max_labellings")
        self._n_candidates = (None if n_candidates is None
                              else check_positive_int(n_candidates, "n_candidates"))
        self._cuts_after = None if cuts_after is None else check_nonnegative(cuts_after, "cuts_after")
        if self._decompose:
            self._decomposition = _Decomposition.from_plan(self.plan, self._max_labellings)
        self._full: PyomoRows | MatrixRows | None = None
        self._core: PyomoRows | MatrixRows | None = None
        self._state = None
        self._last_unit_labels: np.ndarray | None = None
        self._moves: tuple[MoveGraph, np.ndarray] | None = None
        self._pushed: dict[str, object] = {}
        self._version = 0
        self._on_phase: Callable[[str], None] | None = None
        if centers is not None:
            self.set_centers(centers)

    # ------------------------------------------------------------------ models
    @property
    def model(self) -> pyo.ConcreteModel:
        """The full program P (rows (1)-(8) with the reductions), built on first access."""
        return self._full_rows().model

    def _full_rows(self) -> PyomoRows | MatrixRows:
        if self._full is None:
            self._full = self._rows(self.plan.constrained_units, self._n_slots, nonempty=True,
                                    name="BH-kmeans assignment P")
        return self._full

    def _core_rows(self) -> PyomoRows | MatrixRows:
        if self._core is None:
            self._core = self._rows(self._decomposition.core_units, 0, nonempty=False,
                                    name="BH-kmeans assignment P without (3), large components")
        return self._core

    def _rows(self, units: np.ndarray, n_slots: int, *, nonempty: bool, name: str) -> PyomoRows | MatrixRows:
        """A program over ``units``: as matrices for ``highs_matrix``, in Pyomo otherwise."""
        common = dict(nonempty=nonempty, penalty=self._penalty, name=name, options=self._options)
        if self._solver_name == MATRIX_SOLVER:
            return MatrixRows(self.plan, units, n_slots, cuts_after=self._cuts_after, **common)
        return PyomoRows(self.plan, units, n_slots, solver=self._solver_name, **common)

    # ------------------------------------------------------------------ centres
    @property
    def penalty(self) -> float:
        """The penalty ``p``; setting it keeps the structure (only Params change)."""
        return self._penalty

    @penalty.setter
    def penalty(self, value: float) -> None:
        value = check_nonnegative(value, "penalty")
        if self._state is not None:
            _check_penalty_total(self.problem, self._state[1], value)
        self._penalty = value
        self._version += 1

    def set_centers(self, centers) -> None:
        """Recompute distances, ``M`` and unit costs for new centres.

        Parameters
        ----------
        centers : array-like of shape (n_clusters, n_features)
        """
        plan, problem = self.plan, self.problem
        centers = _check_centers(centers, plan.n_clusters, problem.n_features)
        dist = euclidean_distances(problem.X, centers)
        big_m = _big_m(dist)
        _check_penalty_total(problem, big_m, self._penalty)
        self._state = (dist, big_m, plan.unit_distances(dist))
        self._version += 1

    def _push_full(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Fill the slots for the current centres and write the full program's Params."""
        plan = self.plan
        k = plan.n_clusters
        _, big_m, unit_cost = self._state
        free = plan.free_units
        if self._eliminate:
            free_cost = unit_cost[free]
            nearest = np.argmin(free_cost, axis=1)
            regret = free_cost - free_cost[np.arange(free.size), nearest][:, None]
            # The k free units of smallest regret for each cluster (module docstring).
            chosen = np.unique(np.argpartition(regret, k - 1, axis=0)[:k].reshape(-1))
            if chosen.size < self._n_slots:
                others = np.setdiff1d(np.arange(free.size), chosen, assume_unique=True)
                chosen = np.concatenate([chosen, others[: self._n_slots - chosen.size]])
            in_slot = np.zeros(free.size, dtype=bool)
            in_slot[chosen] = True
            slot_units, fixed_units = free[chosen], free[~in_slot]
            fixed_labels = nearest[~in_slot]
            offset = float(free_cost[~in_slot][np.arange(fixed_units.size), fixed_labels].sum())
            rhs = 1.0 - np.bincount(fixed_labels, minlength=k)
        else:
            slot_units, fixed_units = free, free[:0]
            fixed_labels = np.empty(0, dtype=np.int64)
            offset, rhs = 0.0, np.ones(k)
        rows = self._full_rows()
        row_cost = unit_cost[np.concatenate([plan.constrained_units, slot_units])]
        rows.push(row_cost, big_m, self._penalty, offset, rhs.astype(np.float64))
        self._pushed["full"] = self._version
        self._slots = (slot_units, fixed_units, fixed_labels)
        return self._slots

    # ------------------------------------------------------------------ solve
    def solve(self, *, time_limit: float | None = None, search_time_limit: float | None = None,
              on_phase: Callable[[str], None] | None = None) -> BHAssignmentResult:
        """Solve P for the current centres.

        Parameters
        ----------
        time_limit : float, optional
            Seconds for the solver calls of this call (None or ``inf``: no limit); a MIP
            stopped by it returns its incumbent, improved by a local search. 0 is a spent
            budget: no solver call, the best of the previous and the nearest-centre
            assignments (after that local search), status ``time_limit``.
        search_time_limit : float, optional
            Seconds from the start of this call within which that local search must end
            (it still gets ``_SEARCH_FLOOR`` seconds); None or ``inf``: no limit. It is not
            ``time_limit``: a solve stopped by a per-solve limit leaves a caller's overall
            time to the search (BH-kmeans passes its overall time left).
        on_phase : callable, optional
            Called with a short description of each long phase as it starts (a solver call
            and its size, the local search): BH-kmeans shows them on its progress bar.

        Returns
        -------
        BHAssignmentResult

        Raises
        ------
        InvalidParameterError
            ``time_limit`` negative, NaN or not a number, or no centres set.
        InfeasibleConstraintsError
            The hard constraints and size bounds admit no assignment into ``k`` non-empty
            clusters (P's feasible set does not depend on the centres).
        SolverError
            No solution was found (e.g. the time limit came before any incumbent).
        """
        # 0 is a spent budget, which BH-kmeans's driver hands over when its Deadline has run
        # out (remaining() stops at 0): no solver call, the best known assignment. Anything
        # else is checked as ccopt.solvers.solve checks it; inf means no limit, as there.
        spent = (isinstance(time_limit, numbers.Real) and not isinstance(time_limit, bool)
                 and time_limit == 0)
        time_limit = 0.0 if spent else check_time_limit(time_limit)
        if self._state is None:
            raise InvalidParameterError("Call set_centers(centers) before solve().")
        plan = self.plan
        start = time.perf_counter()
        # Building a program (first call) and filling its Params count against the limit.
        end = None if time_limit is None or math.isinf(time_limit) else start + time_limit
        solves: list[SolveResult] = []
        self._on_phase = on_phase
        try:
            allowed = self._candidates()
            if allowed is not None:
                try:
                    unit_labels, status, route = self._solve_routes(end, solves, allowed)
                except InfeasibleConstraintsError:
                    logger.debug("No assignment within the %d nearest centres; solving P unrestricted.",
                                 self._n_candidates)
                    allowed = None
            if allowed is None:
                unit_labels, status, route = self._solve_routes(end, solves, None)
            if status is not Status.OPTIMAL:
                self._phase("local search")
                search_end = (None if search_time_limit is None or math.isinf(search_time_limit)
                              else max(start + search_time_limit, time.perf_counter() + _SEARCH_FLOOR))
                unit_labels = self._polish(unit_labels, search_end)
        finally:
            self._on_phase = None
        if status is not Status.OPTIMAL and unit_labels is None:
            raise SolverError(
                f"The time limit (time_limit={time_limit} s) ran out before the solver found "
                "an assignment, and neither the previous nor the nearest-centre assignment is "
                "feasible to start from; raise the time limit."
            )
        self._last_unit_labels = unit_labels
        labels = unit_labels[plan.unit]
        dist, big_m, _ = self._state
        objective = _objective(self.problem, labels, dist, big_m, self._penalty)
        logger.debug("P solved by the %s route in %.3f s (%s, %d solver calls), objective %.6g",
                     route, time.perf_counter() - start, status, len(solves), objective)
        return BHAssignmentResult(labels=labels, objective=objective, big_m=big_m, status=status,
                                  route=route, solves=tuple(solves),
                                  wall_time=time.perf_counter() - start,
                                  restricted=allowed is not None)

    def _candidates(self) -> np.ndarray | None:
        """Mask of the labels each unit may take under ``n_candidates`` (None: all).

        Units joined by must-links share their candidates, the ``q`` nearest centres of the
        group as a whole (summed cost), so that no must-link is violated for want of a
        common candidate.
        """
        plan, q = self.plan, self._n_candidates
        if q is None or q >= plan.n_clusters:
            return None
        group = plan.must_link_group
        group_cost = (membership(group, int(group.max()) + 1) @ self._state[2])[group]
        nearest = np.argpartition(group_cost, q - 1, axis=1)[:, :q]
        allowed = np.zeros(group_cost.shape, dtype=bool)
        np.put_along_axis(allowed, nearest, True, axis=1)
        return allowed

    def _solve_routes(self, end, solves, allowed) -> tuple[np.ndarray | None, Status, str]:
        """The decomposed route, then the full program if needed; labels, status, route."""
        if self._decompose:
            relaxed, status = self._solve_relaxation(end, solves, allowed)
            if relaxed is not None and np.bincount(relaxed[self.plan.unit],
                                                   minlength=self.plan.n_clusters).min() > 0:
                return relaxed, status, "decomposed"
            if status is Status.TIME_LIMIT:
                return None, status, "decomposed"
        unit_labels, status = self._solve_full(end, solves, allowed)
        return unit_labels, status, "full"

    def _phase(self, description: str) -> None:
        """Tell the caller of :meth:`solve` that a long phase starts (its ``on_phase``)."""
        if self._on_phase is not None:
            self._on_phase(description)

    def _polish(self, incumbent: np.ndarray | None, end: float | None = None) -> np.ndarray | None:
        """Best of a few feasible assignments, each improved by local search (None if none).

        Only used when a solve stopped without proving optimality (its time limit, or
        another limit: status ``feasible``): the solver's incumbent can be far from optimal
        (module docstring). The other starts are the previous assignment
        (feasible for P whatever the centres), the nearest-centre assignment and the greedy
        placement of must-link components (:mod:`ccopt.models._bh_search`), the last two
        when P admits them. The search stops at ``end`` (``perf_counter`` time; None: never),
        keeping what it reached; the starts it did not get to are compared as they are.
        """
        _, big_m, unit_cost = self._state
        if self._moves is None:
            graph = MoveGraph.of_units(self.plan)
            self._moves = (graph, must_link_components(graph))
        graph, components = self._moves
        coef = big_m * self._penalty
        starts = [incumbent] if incumbent is not None else []
        if self._last_unit_labels is not None:
            starts.append(self._last_unit_labels)
        for built in (np.argmin(unit_cost, axis=1),
                      greedy_by_components(graph, components, unit_cost, coef)):
            if np.isfinite(self._unit_objective(built)):
                starts.append(built)
        best, best_cost = incumbent, np.inf
        for labels in starts:
            # Before and after: the search pins the free units, and its moves can empty
            # a cluster that kept a free unit away from its nearest centre.
            improved = self._free_units_nearest(
                improve(graph, components, self._free_units_nearest(labels), unit_cost, coef, end=end))
            cost = self._unit_objective(improved)
            if cost < best_cost:
                best, best_cost = improved, cost
        return best

    def _free_units_nearest(self, unit_labels: np.ndarray) -> np.ndarray:
        """``unit_labels`` with every free unit (no row mentions it; none when size bounds
        are set) in its cheapest cluster, the other units left where they are.

        The local search pins those units, since their best cluster is the nearest; a start
        such as the previous assignment leaves them where the earlier centres put them.
        Only P's non-empty clusters tie them together: a cluster that no other unit holds
        needs one free unit, so each such cluster takes the free unit that is cheapest to
        divert there (an assignment problem, solved exactly) and the rest go to their
        nearest centres. Unchanged when the free units cannot fill those clusters.
        """
        free = self.plan.free_units
        if not free.size:
            return unit_labels
        cost = self._state[2][free]
        nearest = np.argmin(cost, axis=1)
        placed = unit_labels.copy()
        placed[free] = nearest
        held = np.ones(unit_labels.size, dtype=bool)
        held[free] = False
        unheld = np.setdiff1d(np.arange(self.plan.n_clusters), unit_labels[held])
        if unheld.size > free.size:
            return unit_labels
        if unheld.size:
            diversion = cost[:, unheld].T - cost[np.arange(free.size), nearest]
            clusters, units = linear_sum_assignment(diversion)
            placed[free[units]] = unheld[clusters]
        return placed

    def _unit_objective(self, unit_labels: np.ndarray) -> float:
        dist, big_m, _ = self._state
        return _objective(self.problem, unit_labels[self.plan.unit], dist, big_m, self._penalty)

    def _run(self, rows: PyomoRows | MatrixRows, end: float | None, solves) -> tuple[Status, bool]:
        """Solve one program until ``end`` (perf_counter time); status, and values loaded?

        The status is ``optimal`` only when the solver proved it (within the MIP gap),
        ``time_limit`` when it stopped on its time limit, and ``feasible`` when it stopped
        with an unproven incumbent for another reason (e.g. a node limit in
        ``solver_options``).
        """
        time_limit = None if end is None else end - time.perf_counter()
        if time_limit is not None and time_limit <= 0:
            return Status.TIME_LIMIT, False
        result = rows.solve(time_limit)
        solves.append(result)
        if result.status is Status.INTERRUPTED:
            # HiGHS catches Ctrl-C itself and returns; pass it on so callers (BH-kmeans)
            # can stop with their best result so far.
            raise KeyboardInterrupt
        if result.status is Status.INFEASIBLE:
            raise InfeasibleConstraintsError(
                "The hard constraints and cluster-size bounds admit no assignment into "
                f"{self.plan.n_clusters} non-empty clusters (the assignment program P is "
                "infeasible). Check the hard cannot-links (a clique larger than n_clusters?) and "
                "the size bounds."
            )
        if not result.has_solution:
            if result.status is Status.TIME_LIMIT:
                return Status.TIME_LIMIT, False
            raise SolverError(
                f"The solver {result.solver!r} found no assignment (termination: "
                f"{result.termination}, status: {result.status})."
            )
        if result.status in (Status.OPTIMAL, Status.TIME_LIMIT):
            return result.status, True
        # Stopped with an unproven incumbent on another limit (a node, solution or iteration
        # limit from solver_options, or an error after a solution was found): not optimal.
        return Status.FEASIBLE, True

    def _solve_relaxation(self, end, solves, allowed) -> tuple[np.ndarray | None, Status]:
        """P without (3): free units at their nearest centre, components independently."""
        plan, dec = self.plan, self._decomposition
        _, big_m, unit_cost = self._state
        coef = big_m * self._penalty
        unary = unit_cost.copy()
        if allowed is not None:
            unary[~allowed] = np.inf
        choice = dec.eliminate(unary, coef)
        if not np.isfinite(unary.min(axis=1)).all():
            bad = int(np.flatnonzero(~np.isfinite(unary.min(axis=1)))[0])
            raise InfeasibleConstraintsError(
                f"The hard constraints around unit {bad} (objects "
                f"{np.flatnonzero(plan.unit == bad)[:10].tolist()}) admit no labelling with "
                f"{plan.n_clusters} clusters.")
        unit_labels = np.argmin(unary, axis=1)
        for group in dec.groups:
            try:
                unit_labels[group.units] = _enumerate(group, unary, coef)
            except _UnlabellableUnits as err:
                raise _objects_certificate(err, plan.unit) from None
        status = Status.OPTIMAL
        if dec.core_units.size:
            rows = self._core_rows()
            if self._pushed.get("core") != (self._version, allowed is not None):
                cost = unary[dec.core_units]
                finite = np.isfinite(cost)
                # Restricted: the labels it rules out leave the program (x bounded by 0).
                rows.forbid(None if allowed is None else ~finite)
                if not finite.all():
                    # A label a leaf's hard row forbids: a cost above any feasible total.
                    ceiling = np.where(finite, cost, 0.0).max(axis=1).sum()
                    ceiling += coef * (plan.soft_ml_weight.sum() + plan.soft_cl_weight.sum()) + 1.0
                    cost = np.where(finite, cost, ceiling)
                rows.push(cost, big_m, self._penalty, 0.0, None)
                self._pushed["core"] = (self._version, allowed is not None)
            self._phase(f"solver: {dec.core_units.size:,} units")
            status, loaded = self._run(rows, end, solves)
            if not loaded:
                return None, status
            core_labels = rows.row_labels()
            if not np.isfinite(unary[dec.core_units, core_labels]).all():
                raise InfeasibleConstraintsError(
                    "The hard constraints admit no assignment into "
                    f"{plan.n_clusters} clusters (the assignment program P is infeasible).")
            unit_labels[dec.core_units] = core_labels
        dec.back_substitute(unit_labels, choice)
        return unit_labels, status

    def _solve_full(self, end, solves, allowed) -> tuple[np.ndarray | None, Status]:
        plan = self.plan
        if self._pushed.get("full") != self._version:
            self._push_full()
        slot_units, fixed_units, fixed_labels = self._slots
        rows = self._full_rows()
        if allowed is None:
            rows.forbid(None)
        else:
            # Slots keep every label: they are there for row (3).
            mask = np.zeros((rows.n_rows, plan.n_clusters), dtype=bool)
            mask[:plan.constrained_units.size] = ~allowed[plan.constrained_units]
            rows.forbid(mask)
        self._phase(f"solver: full P, {rows.n_rows:,} units")
        status, loaded = self._run(rows, end, solves)
        if not loaded:
            return None, status
        row_labels = rows.row_labels()
        unit_labels = np.empty(plan.n_units, dtype=np.int64)
        n_con = plan.constrained_units.size
        unit_labels[plan.constrained_units] = row_labels[:n_con]
        unit_labels[slot_units] = row_labels[n_con:]
        unit_labels[fixed_units] = fixed_labels
        return unit_labels, status

    def objective(self, labels) -> float:
        """Value of (1) for ``labels`` at the current centres (``inf`` if P excludes them).

        Parameters
        ----------
        labels : array-like of int, shape (n_samples,)
        """
        if self._state is None:
            raise InvalidParameterError("Call set_centers(centers) before objective().")
        dist, big_m, _ = self._state
        return _objective(self.problem, np.asarray(labels), dist, big_m, self._penalty)


def _objective(problem: ClusteringProblem, labels: np.ndarray, dist: np.ndarray, big_m: float,
               penalty: float) -> float:
    """(1) for a labelling; ``inf`` when it breaks a hard constraint, (3) or a size bound."""
    k = problem.n_clusters
    counts = np.bincount(labels, minlength=k)
    if counts.shape[0] > k or (counts == 0).any():
        return float("inf")
    if (problem.min_size is not None and counts.min() < problem.min_size) or (
            problem.max_size is not None and counts.max() > problem.max_size):
        return float("inf")
    distance = float(dist[np.arange(labels.shape[0]), labels].sum())
    cons = problem.constraints
    if not len(cons):
        return distance
    violated = ~cons.satisfied(labels)
    if (violated & cons.hard).any():
        return float("inf")
    weight = float(cons.weights[violated & ~cons.hard].sum())
    return distance + big_m * penalty * weight


def bh_objective(problem: ClusteringProblem, labels, centers, *, penalty: float = 1.0) -> float:
    """Objective (1) of P for a labelling and centres.

    The sum of Euclidean distances of the objects to their centres plus ``M p w`` for every
    violated soft constraint of weight ``w``, with ``M`` the largest object-centre distance.

    Parameters
    ----------
    problem : ClusteringProblem
    labels : array-like of int, shape (n_samples,)
        Centre index of every object, in ``0..n_clusters-1``.
    centers : array-like of shape (n_clusters, n_features)
    penalty : float, default=1.0

    Returns
    -------
    float
        ``inf`` when the labelling is outside P's feasible set: an empty cluster, a violated
        hard constraint, or a cluster size outside ``[min_size, max_size]``.
    """
    k = problem.n_clusters
    centers = _check_centers(centers, k, problem.n_features)
    labels = np.asarray(labels).reshape(-1)
    if labels.shape[0] != problem.n_samples or not np.issubdtype(labels.dtype, np.integer):
        raise InvalidParameterError(
            f"labels must be {problem.n_samples} integers, got shape {labels.shape} and dtype "
            f"{labels.dtype}."
        )
    if labels.size and (labels.min() < 0 or labels.max() >= k):
        raise InvalidParameterError(
            f"labels must lie in 0..{k - 1}, got values {labels.min()}..{labels.max()}."
        )
    dist = euclidean_distances(problem.X, centers)
    return _objective(problem, labels.astype(np.int64), dist, _big_m(dist),
                      check_nonnegative(penalty, "penalty"))


def build_bh_assignment_model(problem: ClusteringProblem, centers, *, penalty: float = 1.0,
                              contract: bool = True, eliminate_free: bool = True) -> pyo.ConcreteModel:
    """Build P (1)-(8) for ``problem`` and ``centers`` as a Pyomo model (never solves it).

    Parameters
    ----------
    problem : ClusteringProblem
        Data, ``k``, constraints (weights, hard flags) and size bounds.
    centers : array-like of shape (n_clusters, n_features)
    penalty : float, default=1.0
        The paper's ``p``.
    contract : bool, default=True
        Assign every hard must-link component as one unit (exact).
    eliminate_free : bool, default=True
        Keep variables only for constrained objects and ``k^2`` candidate free objects
        (exact; see the module docstring). With ``contract=False, eliminate_free=False``
        and no constraints the rows are the objects in order; in general row ``r`` is the
        ``r``-th constrained unit, then the free units.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Components as listed in :class:`BHAssignmentProgram`. Solve it with
        :func:`ccopt.solvers.solve`; :class:`BHAssignmentProgram` owns the same model and
        maps ``x`` back to objects.

    Raises
    ------
    InvalidParameterError
        ``problem`` not a :class:`ClusteringProblem`, ``contract`` or ``eliminate_free`` not
        a bool, a negative ``penalty``.
    InvalidDataError
        ``centers`` of the wrong shape or not finite.
    InfeasibleConstraintsError
        As :meth:`BHAssignmentPlan.from_problem`.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt import ClusteringProblem
    >>> from ccopt.models.bh_assignment import build_bh_assignment_model
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> problem = ClusteringProblem.create(X, 2, ml=[(0, 2)], require_closure=False)
    >>> m = build_bh_assignment_model(problem, [[0.0], [5.0]], eliminate_free=False)
    >>> len(m.x), len(m.must_link), len(m.nonempty)
    (8, 2, 2)
    """
    # A Pyomo solver's name, so that the program is built in Pyomo only (not also as matrices).
    program = BHAssignmentProgram(problem, penalty=penalty, contract=contract,
                                  eliminate_free=eliminate_free, decompose=False, solver=DEFAULT_SOLVER)
    program.set_centers(centers)
    program._push_full()
    return program.model
