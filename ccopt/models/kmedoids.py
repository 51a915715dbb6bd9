"""The constrained k-medoids program (2)-(5), (7)-(9) of Randel et al. (2021), p-median form.

The paper writes k-medoids with cluster-indexed variables :math:`x_i^c, y_i^c`
(:math:`c = 1..k`); its text is garbled in (8)-(9). We use the p-median form:
a cluster is named by its medoid, so the clusters are indexed by the candidate medoids
:math:`j \\in J = \\{0..n-1\\}` and the per-cluster pairwise rows are written per medoid.

.. math::

    \\min\\ & \\sum_{i \\in I} \\sum_{j \\in J} d_{ij} z_{ij}
        && && \\texttt{objective} && (2), (7) \\\\
    \\text{s.t.}\\ & \\sum_{j \\in J} z_{ij} = 1 && i \\in I && \\texttt{assign[i]} \\\\
    & z_{ij} \\le y_j \\ (i \\ne j), \\quad z_{jj} = y_j && i \\in I,\\ j \\in J
        && \\texttt{link[i, j]} && (8) \\\\
    & \\sum_{j \\in J} y_j = k && && \\texttt{n\\_medoids} && (9) \\\\
    & z_{uj} + z_{vj} \\le 1 + \\epsilon && (u,v) \\in CL,\\ j \\in J
        && \\texttt{cl\\_rows[c, j]} && (3') \\\\
    & z_{uj} - z_{vj} \\le \\epsilon && (u,v) \\in ML,\\ j \\in J
        && \\texttt{ml\\_rows\\_fwd[c, j]} && (4') \\\\
    & z_{vj} - z_{uj} \\le \\epsilon && (u,v) \\in ML,\\ j \\in J
        && \\texttt{ml\\_rows\\_bwd[c, j]} && (4'') \\\\
    & z_{ij}, y_j \\in \\{0, 1\\} \\ (\\text{or } [0, 1] \\text{ relaxed}) && && && (5)

with :math:`\\epsilon \\in ]0, 1[` (default 0.5, the paper's value) or :math:`\\epsilon = 0`
for the exact rows (3), (4). Readings chosen:

* ``z[i, j]`` = object ``i`` is assigned to medoid ``j``; ``y[j]`` = ``j`` is a medoid.
  The diagonal of (8) is an equality, :math:`z_{jj} = y_j`: a medoid belongs to its own
  cluster, as in the k-medoids definition (the cost of a cluster is the smallest sum of
  distances to one of *its members*). Without it a cannot-link could push a medoid out of
  the cluster it serves, and the optimum could fall below every k-medoids labelling.
* Clusters are the ``k`` medoids with ``y[j] = 1``; they are non-empty because of the
  diagonal of (8).
* ``d[i, j]`` is the Euclidean distance (the paper's :math:`\\lVert o_i - o_j \\rVert`)
  unless a dissimilarity matrix is given.
* Optional size bounds add ``size_min[j]``: :math:`\\sum_i z_{ij} \\ge \\text{min\\_size}\\,
  y_j` and ``size_max[j]``: :math:`\\sum_i z_{ij} \\le \\text{max\\_size}\\, y_j`.

Why not the paper's cluster-indexed form: it is symmetric in the cluster labels, and its LP
relaxation is weak (:math:`x_i^c = 1/k` satisfies every cannot-link row), which leaves the
pairwise rows without dual information. The p-median LP relaxation is tight on clustered
data and its row duals are the multipliers of the Lagrangian dual (11) (see
:mod:`ccopt.models.duals`).

Size: ``n`` assignment rows, ``n^2`` link rows, ``n (n_cl + 2 n_ml)`` pairwise rows and
``n^2 + n`` variables; at ``n = 500`` with 50 + 50 constraints about 325,000 rows.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from pyomo.common.gc_manager import PauseGC
from pyomo.core.expr.numeric_expr import LinearExpression

from ccopt._validation import check_bool
from ccopt.config import check_dense_memory
from ccopt.models._common import (
    CheckedAbstractModel,
    ModelData,
    assignment_values,
    check_distances,
    counting_set,
    declare_data,
    declare_epsilon_check,
    declare_pairwise_rows,
    declare_size_rows,
    distance_matrix,
    expect_assignment_var,
    matrix_initializer,
    refuse_proven_infeasible,
)
from ccopt.problem import ClusteringProblem

__all__ = ["abstract_kmedoids_model", "build_kmedoids_model", "declare_kmedoids", "kmedoids_labels"]

# Resident bytes per (object, medoid) pair: the variable z[i, j], its link row and objective
# term take 1.3 kB in the built model, 3.7 kB once handed to HiGHS (measured at n = 300
# with highs_matrix); the bound refuses models whose solve would exceed the memory budget.
_BYTES_PER_ENTRY = 4096


def declare_kmedoids(m, *, relax: bool = False, pairwise_rows: bool = True) -> None:
    """Declare the variables, rows and objective of the k-medoids program on ``m``.

    ``m`` must already hold the data components of :func:`ccopt.models._common.declare_data`,
    the medoid set ``J`` and the dissimilarities ``d[i, j]``; this works on a concrete model
    (the builder) and on an abstract one (``models/kmedoids.py``).

    Parameters
    ----------
    m : pyomo.environ.ConcreteModel or AbstractModel
    relax : bool, default=False
        Continuous ``z, y`` in [0, 1] (the LP relaxation) instead of binaries; an LP gets an
        import Suffix ``dual`` for the row duals.
    pairwise_rows : bool, default=True
        Write the pairwise rows (False: the unconstrained program, or the Lagrangian).
    """
    domain = pyo.UnitInterval if relax else pyo.Binary
    # Rules read every component from their block argument: an abstract model is cloned
    # into its instance, and a closure would still point at the abstract components.
    m.z = pyo.Var(m.I, m.J, domain=domain)
    m.y = pyo.Var(m.J, domain=domain)

    # d and z are both dense over I x J, so their values come in the same order.
    m.cost = pyo.Expression(rule=lambda m: LinearExpression(
        constant=0.0, linear_coefs=list(m.d.values()), linear_vars=list(m.z.values())))
    m.objective = pyo.Objective(rule=lambda m: m.cost, sense=pyo.minimize)

    m.assign = pyo.Constraint(m.I, rule=lambda m, i: LinearExpression([m.z[i, j] for j in m.J]) == 1)

    def link(m, i, j):
        if i == j:
            return m.z[j, j] - m.y[j] == 0
        return m.z[i, j] - m.y[j] <= 0

    m.link = pyo.Constraint(m.I, m.J, rule=link)
    m.n_medoids = pyo.Constraint(rule=lambda m: LinearExpression(list(m.y.values())) == m.k)
    declare_size_rows(m, "z", "J", scale="y")
    if pairwise_rows:
        declare_pairwise_rows(m, "z", "J")
    if relax:
        m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)


def build_kmedoids_model(problem: ClusteringProblem, *, pairwise: str = "epsilon",
                         epsilon: float = 0.5, relax: bool = False,
                         distances=None) -> pyo.ConcreteModel:
    """Build the constrained k-medoids program (p-median form) as a Pyomo model; never solves.

    Parameters
    ----------
    problem : ClusteringProblem
        Data, ``k``, constraints and optional size bounds.
    pairwise : {"epsilon", "exact", "none"}, default="epsilon"
        The epsilon rows (3')(4')(4''), the exact rows (3)(4), or no pairwise rows (the
        unconstrained program).
    epsilon : float, default=0.5
        Slack of the epsilon rows, in ]0, 1[ (ignored unless ``pairwise="epsilon"``).
    relax : bool, default=False
        Build the LP relaxation (``z, y`` in [0, 1]) with a ``dual`` Suffix.
    distances : array-like of shape (n_samples, n_samples), optional
        Dissimilarities ``d[i, j]`` (object ``i`` to medoid ``j``); default Euclidean.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Components:

        ==========================  ====================================================
        ``I``, ``J``                objects and candidate medoids (both ``0..n-1``)
        ``ML``, ``CL``              positions in the must-link / cannot-link lists
        ``ml_u[c]``, ``ml_v[c]``    objects of must-link ``c`` (likewise ``cl_u``, ``cl_v``)
        ``ml_index[c]``             position of must-link ``c`` in ``problem.constraints``
                                    (likewise ``cl_index``)
        ``d[i, j]``                 dissimilarity
        ``epsilon``, ``k``          slack of the pairwise rows, number of medoids
        ``z[i, j]``, ``y[j]``       assignment and medoid variables
        ``cost``                    Expression :math:`\\sum d_{ij} z_{ij}`
        ``objective``               minimise ``cost``
        ``assign[i]``, ``link[i, j]``, ``n_medoids``  rows of (8), (9)
        ``size_min[j]``, ``size_max[j]``  size rows (empty without bounds)
        ``cl_rows[c, j]``           (3') / (3) of the ``c``-th cannot-link, medoid ``j``
        ``ml_rows_fwd[c, j]``       (4'): ``z[u, j] - z[v, j] <= epsilon``
        ``ml_rows_bwd[c, j]``       (4''): ``z[v, j] - z[u, j] <= epsilon``
        ``dual``                    import Suffix (only with ``relax=True``)
        ==========================  ====================================================

        The ``c``-th must-link is the constraint at position
        ``problem.constraints.ml_indices[c]`` (likewise ``cl_indices`` for cannot-links).

    Raises
    ------
    InfeasibleConstraintsError
        The integer program (``relax=False``) would be infeasible, as
        :func:`~ccopt.constraints.check_feasibility` proves (a cannot-link clique of k + 1
        objects or must-link groups, a cannot-link inside a must-link chain); the certificate
        is on the exception.
    InvalidParameterError
        Unknown ``pairwise``, ``epsilon`` outside ]0, 1[, ``problem`` not a
        :class:`ClusteringProblem`, ``relax`` not a bool.
    InvalidDataError
        ``distances`` of the wrong shape, negative or non-finite.
    MemoryBudgetError
        When the ``n x n`` distance matrix or the model (about 4 kB per object-medoid pair)
        would exceed the configured memory bound.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt import ClusteringProblem
    >>> from ccopt.models import build_kmedoids_model
    >>> X = np.array([[0.0], [0.2], [5.0], [5.3]])
    >>> problem = ClusteringProblem.create(X, 2, cl=[(0, 1)])
    >>> m = build_kmedoids_model(problem, relax=True)
    >>> len(m.cl_rows), len(m.link)
    (4, 16)
    """
    data = ModelData.from_problem(problem, pairwise, epsilon)
    relax = check_bool(relax, "relax")
    if not relax and data.rows:  # without pairwise rows (pairwise="none") nothing is infeasible
        refuse_proven_infeasible(problem)
    return build_from_data(data, relax, distances)


def build_from_data(data: ModelData, relax: bool, distances) -> pyo.ConcreteModel:
    """:func:`build_kmedoids_model` from checked :class:`~ccopt.models._common.ModelData`
    (used by the Lagrangian builder, which keeps the pairs but not their rows)."""
    problem = data.problem
    n = problem.n_samples
    check_dense_memory((n, n), itemsize=_BYTES_PER_ENTRY, what="k-medoids Pyomo model")
    if distances is None:
        dist = distance_matrix(problem.X, what="k-medoids distance matrix")
    else:
        dist = check_distances(distances, n)
    # Building allocates millions of small objects; collecting garbage in between (none of
    # it is garbage yet) took about half of the build time.
    with PauseGC():
        m = pyo.ConcreteModel(name="constrained k-medoids (p-median form)")
        declare_data(m, data)
        m.J = pyo.RangeSet(0, n - 1)
        # Checked above as a whole array: a per-entry domain check would double the build time.
        m.d = pyo.Param(m.I, m.J, initialize=matrix_initializer(dist), within=pyo.Any)
        declare_kmedoids(m, relax=relax, pairwise_rows=data.rows)
    return m


def _euclidean_rule(m, i, j):
    """``d[i, j]`` of an abstract model, from its coordinates ``X``."""
    return float(np.sqrt(sum((m.X[i, f] - m.X[j, f]) ** 2 for f in m.F)))


def abstract_kmedoids_model(*, relax: bool = False, pairwise_rows: bool = True) -> pyo.AbstractModel:
    """The k-medoids program as an AbstractModel, for the ``pyomo`` command and ``.dat`` data.

    The data components are those of :mod:`ccopt.models._common` (``n``, ``k``, ``F``,
    ``X``, ``ML``/``ml_u``/``ml_v``, ``CL``/``cl_u``/``cl_v``, ``epsilon`` (default 0.5;
    0 gives the exact rows), ``min_size``, ``max_size``); ``d`` is the Euclidean distance
    between the rows of ``X``. The rows are declared by :func:`declare_kmedoids`, as in
    :func:`build_kmedoids_model`.

    Creating an instance checks the data as :meth:`ccopt.ClusteringProblem.create` and
    :func:`build_kmedoids_model` do (the must-link closure is left to the solver) and
    raises their errors.

    Parameters
    ----------
    relax : bool, default=False
    pairwise_rows : bool, default=True

    Returns
    -------
    pyomo.environ.AbstractModel

    Raises
    ------
    InvalidParameterError
        ``relax`` or ``pairwise_rows`` not a bool.
    """
    relax = check_bool(relax, "relax")
    pairwise_rows = check_bool(pairwise_rows, "pairwise_rows")
    m = CheckedAbstractModel(name="constrained k-medoids (p-median form)")
    declare_data(m)
    if pairwise_rows:
        declare_epsilon_check(m, exact=True)
    m.J = counting_set("n")
    m.d = pyo.Param(m.I, m.J, initialize=_euclidean_rule, within=pyo.NonNegativeReals)
    declare_kmedoids(m, relax=relax, pairwise_rows=pairwise_rows)
    return m


def kmedoids_labels(model) -> tuple[np.ndarray, np.ndarray]:
    """Labels and medoids from a solved k-medoids model.

    Each object takes the medoid with its largest ``z[i, j]`` (exact for an integral
    solution); clusters are numbered ``0..k-1`` in increasing medoid index.

    Parameters
    ----------
    model : ConcreteModel
        Built by :func:`build_kmedoids_model` (or an instance of the abstract model) and
        solved.

    Returns
    -------
    labels : ndarray of int64, shape (n_samples,)
    medoids : ndarray of int64, shape (n_used,)
        The object index of each cluster's medoid.

    Raises
    ------
    InvalidParameterError
        If ``model`` is not a k-medoids model (e.g. an MSSC model: use
        :func:`ccopt.models.mssc_labels`).
    SolverError
        If no solution is loaded.
    """
    expect_assignment_var(model, "z")
    n = int(pyo.value(model.n))
    z = assignment_values(model.z, n, n)
    medoid_of = np.argmax(z, axis=1)
    medoids, labels = np.unique(medoid_of, return_inverse=True)
    return labels.astype(np.int64), medoids.astype(np.int64)

