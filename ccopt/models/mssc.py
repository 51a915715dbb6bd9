"""The constrained MSSC program (2)-(6) of Randel et al. (2021), in two forms.

``x[i, c]`` = object ``i`` is in cluster ``c`` (``c = 0..k-1``). Both forms share the rows

.. math::

    & \\sum_{c \\in C} x_{ic} = 1 && i \\in I && \\texttt{assign[i]} \\\\
    & \\sum_{i \\in I} x_{ic} \\ge 1 && c \\in C && \\texttt{nonempty[c]} \\\\
    & x_{uc} + x_{vc} \\le 1 + \\epsilon && (u,v) \\in CL,\\ c \\in C && \\texttt{cl\\_rows[c', c]} && (3'),(3) \\\\
    & x_{uc} - x_{vc} \\le \\epsilon,\\ \\ x_{vc} - x_{uc} \\le \\epsilon && (u,v) \\in ML,\\ c \\in C
        && \\texttt{ml\\_rows\\_fwd}, \\texttt{ml\\_rows\\_bwd} && (4'),(4''),(4) \\\\
    & x_{ic} \\in \\{0, 1\\} && && && (5)

and differ in how they write the objective.

``form="fractional"`` -- the paper's objective (6), through Huygens' theorem:

.. math::

    \\min \\sum_{c \\in C} \\frac{\\sum_{i < j} \\lVert o_i - o_j \\rVert^2 x_{ic} x_{jc}}
                                 {\\sum_{i} x_{ic}}                                  \\qquad (6)

a non-convex fractional quadratic objective. Solvers: global MINLP solvers (SCIP through
``scip_direct``: exact at ``n`` about 12; Gurobi with ``NonConvex=2``). HiGHS, CBC and GLPK
reject it.

``form="convex"`` -- a convex mixed-integer quadratically constrained reformulation with
centroid variables :math:`\\mu_c` and the distance :math:`\\delta_i` of each object to its
centroid:

.. math::

    \\min\\ & \\sum_{i \\in I} \\delta_i \\\\
    \\text{s.t.}\\ & \\delta_i \\ge \\lVert o_i - \\mu_c \\rVert^2 - M_i (1 - x_{ic})
        && i \\in I,\\ c \\in C && \\texttt{bigm\\_rows[i, c]}

with :math:`M_i = \\max_j \\lVert o_i - o_j \\rVert^2`. At an optimum :math:`\\mu_c` is the
mean of cluster ``c`` and the objective is the WCSS, equal to (6). The big-M is valid
because a cluster mean lies in the convex hull of the data, where
:math:`\\lVert o_i - \\mu \\rVert^2 \\le M_i` (a convex function peaks at a vertex of the
hull, i.e. at a data point). Solvers: any MIQCP solver -- SCIP (``scip_direct``), Gurobi,
CPLEX; HiGHS, CBC and GLPK reject quadratic constraints.

Symmetry breaking (both forms, on by default): ``x[i, c]`` is fixed to 0 for ``c > i``
(upper bound 0). Numbering the clusters in the order of their first object is a relabelling,
so every partition keeps one representative and the optimum is unchanged.

Tiny instances only: both forms are NP-hard programs that general solvers close at a few
dozen objects. The working route for real data is the k-means-like heuristic of the
impact-score paper (Sec. 4.3), in :mod:`ccopt.lagrange`.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression
from scipy.spatial.distance import cdist

from ccopt._validation import check_bool, check_choice
from ccopt.config import check_dense_memory
from ccopt.models._common import (
    CheckedAbstractModel,
    ModelData,
    assignment_values,
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

__all__ = ["MSSC_FORMS", "abstract_mssc_model", "build_mssc_model", "declare_mssc", "mssc_labels"]

#: The two ways of writing the MSSC objective.
MSSC_FORMS = ("fractional", "convex")

# Resident bytes per pair of objects in the fractional form: its d2 Param entry (about 100 B)
# and a term per cluster of the objective (about 105 B each), measured at n = 200, k = 2 and
# 6 (327 and 730 B); the numpy matrix alone would be 8 B.
_FRACTIONAL_BYTES_PER_PAIR_AND_CLUSTER = 128


def declare_mssc(m, *, form: str = "convex", relax: bool = False,
                 symmetry_breaking: bool = True, pairwise_rows: bool = True) -> None:
    """Declare the clusters, variables, rows and objective of the MSSC program on ``m``.

    ``m`` must hold the data components of :func:`ccopt.models._common.declare_data`; this
    works on a concrete model (the builder) and on an abstract one (``models/mssc.py``).
    The fractional form also needs ``d2[i, j]`` (squared distances) and the convex form
    ``bigM[i]``; :func:`build_mssc_model` and :func:`abstract_mssc_model` declare them.

    Parameters
    ----------
    m : pyomo.environ.ConcreteModel or AbstractModel
    form : {"fractional", "convex"}, default="convex"
    relax : bool, default=False
        Continuous ``x`` in [0, 1].
    symmetry_breaking : bool, default=True
        Fix ``x[i, c] = 0`` for ``c > i``.
    pairwise_rows : bool, default=True
        Write the pairwise rows (False: the unconstrained program, or the Lagrangian).
    """
    check_choice(form, "form", MSSC_FORMS)
    m.C = counting_set("k")

    def bounds(m, i, c):
        return (0, 0 if symmetry_breaking and c > i else 1)

    # Rules read every component from their block argument (see declare_kmedoids).
    m.x = pyo.Var(m.I, m.C, domain=pyo.UnitInterval if relax else pyo.Binary, bounds=bounds)
    m.assign = pyo.Constraint(m.I, rule=lambda m, i: LinearExpression([m.x[i, c] for c in m.C]) == 1)
    m.nonempty = pyo.Constraint(m.C, rule=lambda m, c: LinearExpression([m.x[i, c] for i in m.I]) >= 1)
    declare_size_rows(m, "x", "C")
    if pairwise_rows:
        declare_pairwise_rows(m, "x", "C")

    if form == "fractional":
        def cluster_cost(m, c):
            x = m.x
            pairs = sum(m.d2[i, j] * x[i, c] * x[j, c]
                        for i in m.I for j in m.I if i < j and m.d2[i, j] != 0)
            return pairs / LinearExpression([x[i, c] for i in m.I])

        m.cost = pyo.Expression(rule=lambda m: sum(cluster_cost(m, c) for c in m.C))
    else:
        def box(m, c, f):
            column = [m.X[i, f] for i in m.I]
            return (min(column), max(column))

        m.mu = pyo.Var(m.C, m.F, bounds=box)
        m.delta = pyo.Var(m.I, domain=pyo.NonNegativeReals)
        m.bigm_rows = pyo.Constraint(m.I, m.C, rule=lambda m, i, c: (
            sum((m.X[i, f] - m.mu[c, f]) ** 2 for f in m.F) - m.bigM[i] * (1 - m.x[i, c])
            <= m.delta[i]))
        m.cost = pyo.Expression(rule=lambda m: LinearExpression(list(m.delta.values())))
    m.objective = pyo.Objective(rule=lambda m: m.cost, sense=pyo.minimize)


def build_mssc_model(problem: ClusteringProblem, *, form: str = "convex", pairwise: str = "exact",
                     epsilon: float = 0.5, relax: bool = False,
                     symmetry_breaking: bool = True) -> pyo.ConcreteModel:
    """Build the constrained MSSC program as a Pyomo model; never solves.

    Parameters
    ----------
    problem : ClusteringProblem
        Data, ``k``, constraints and optional size bounds.
    form : {"convex", "fractional"}, default="convex"
        The convex MIQCP reformulation or the paper's fractional objective (6) (see the
        module docstring for which solvers take which).
    pairwise : {"exact", "epsilon", "none"}, default="exact"
        The exact rows (3)(4), the epsilon rows (3')(4')(4''), or none.
    epsilon : float, default=0.5
        Slack of the epsilon rows, in ]0, 1[.
    relax : bool, default=False
        Continuous ``x`` in [0, 1].
    symmetry_breaking : bool, default=True
        Fix ``x[i, c] = 0`` for ``c > i``.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Components:

        ==========================  ====================================================
        ``I``, ``C``, ``F``         objects, clusters ``0..k-1``, features
        ``X[i, f]``                 coordinates
        ``ML``, ``CL``, ``ml_u``, ...  the pairs, as in :func:`build_kmedoids_model`
        ``x[i, c]``                 assignment variables
        ``cost``                    Expression: the objective's value (the WCSS)
        ``objective``               minimise ``cost``
        ``assign[i]``, ``nonempty[c]``  partition rows
        ``size_min[c]``, ``size_max[c]``  size rows (empty without bounds)
        ``cl_rows[c', c]``, ``ml_rows_fwd[c', c]``, ``ml_rows_bwd[c', c]``  pairwise rows
        ``d2[i, j]``                fractional form: squared distances
        ``mu[c, f]``, ``delta[i]``  convex form: centroids, squared distance to own centroid
        ``bigM[i]``, ``bigm_rows[i, c]``  convex form: big-M and its rows
        ==========================  ====================================================

    Raises
    ------
    InfeasibleConstraintsError
        The integer program (``relax=False``) would be infeasible, as
        :func:`~ccopt.constraints.check_feasibility` proves (a cannot-link clique of k + 1
        objects or must-link groups, a cannot-link inside a must-link chain); the certificate
        is on the exception.
    InvalidParameterError
        Unknown ``form`` or ``pairwise``, ``epsilon`` outside ]0, 1[, ``relax`` or
        ``symmetry_breaking`` not a bool.
    MemoryBudgetError
        Fractional form: when the model (about ``128 (k + 1)`` bytes per pair of objects)
        exceeds the memory bound.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt import ClusteringProblem
    >>> from ccopt.models import build_mssc_model
    >>> X = np.array([[0.0], [0.2], [5.0], [5.3]])
    >>> m = build_mssc_model(ClusteringProblem.create(X, 2, ml=[(0, 1)]))
    >>> len(m.bigm_rows), len(m.ml_rows_fwd)
    (8, 2)
    """
    check_choice(form, "form", MSSC_FORMS)
    data = ModelData.from_problem(problem, pairwise, epsilon)
    relax = check_bool(relax, "relax")
    if not relax and data.rows:  # without pairwise rows (pairwise="none") nothing is infeasible
        refuse_proven_infeasible(problem)
    return build_from_data(data, form, relax, check_bool(symmetry_breaking, "symmetry_breaking"))


def build_from_data(data: ModelData, form: str, relax: bool,
                    symmetry_breaking: bool) -> pyo.ConcreteModel:
    """:func:`build_mssc_model` from checked :class:`~ccopt.models._common.ModelData`."""
    problem = data.problem
    m = pyo.ConcreteModel(name=f"constrained MSSC ({form} form)")
    declare_data(m, data)
    if form == "fractional":
        n, k = problem.n_samples, problem.n_clusters
        check_dense_memory((n, n), itemsize=_FRACTIONAL_BYTES_PER_PAIR_AND_CLUSTER * (k + 1),
                           what="fractional MSSC Pyomo model")
        d2 = distance_matrix(problem.X, squared=True, what="MSSC squared-distance matrix")
        m.d2 = pyo.Param(m.I, m.I, initialize=matrix_initializer(d2), within=pyo.Any)
    else:
        m.bigM = pyo.Param(m.I, initialize=dict(enumerate(_big_m(problem.X).tolist())),
                           within=pyo.Any)
    declare_mssc(m, form=form, relax=relax, symmetry_breaking=symmetry_breaking,
                 pairwise_rows=data.rows)
    return m


def _big_m(X: np.ndarray) -> np.ndarray:
    """``M_i = max_j ||x_i - x_j||^2`` without an ``n x n`` matrix, in row blocks of about
    ``2^22`` distances (a block of ``rows x n x n_features`` differences grew with the
    number of features: 8 GB at ``n = d = 1000``)."""
    out = np.empty(X.shape[0])
    block = max(1, 2**22 // max(1, X.shape[0]))
    for start in range(0, X.shape[0], block):
        out[start:start + block] = cdist(X[start:start + block], X, metric="sqeuclidean").max(axis=1)
    return out


def abstract_mssc_model(*, form: str = "convex", relax: bool = False,
                        symmetry_breaking: bool = True, pairwise_rows: bool = True) -> pyo.AbstractModel:
    """The MSSC program as an AbstractModel, for the ``pyomo`` command and ``.dat`` data.

    Data components as in :func:`ccopt.models.kmedoids.abstract_kmedoids_model`
    (``epsilon`` defaults to 0.5; set it to 0 in the ``.dat`` file for the exact rows);
    ``d2`` and ``bigM`` are computed from ``X``.

    Parameters
    ----------
    form : {"convex", "fractional"}, default="convex"
    relax, symmetry_breaking : bool
        As in :func:`build_mssc_model`.
    pairwise_rows : bool, default=True

    Returns
    -------
    pyomo.environ.AbstractModel

    Raises
    ------
    InvalidParameterError
        Unknown ``form``; ``relax``, ``symmetry_breaking`` or ``pairwise_rows`` not a bool.

    Notes
    -----
    Creating an instance checks the data as :func:`ccopt.models.kmedoids.abstract_kmedoids_model`
    does.
    """
    check_choice(form, "form", MSSC_FORMS)
    relax = check_bool(relax, "relax")
    symmetry_breaking = check_bool(symmetry_breaking, "symmetry_breaking")
    pairwise_rows = check_bool(pairwise_rows, "pairwise_rows")
    m = CheckedAbstractModel(name=f"constrained MSSC ({form} form)")
    declare_data(m)
    if pairwise_rows:
        declare_epsilon_check(m, exact=True)
    if form == "fractional":
        m.d2 = pyo.Param(m.I, m.I, initialize=lambda m, i, j: float(
            sum((m.X[i, f] - m.X[j, f]) ** 2 for f in m.F)))
    else:
        m.bigM = pyo.Param(m.I, initialize=lambda m, i: float(max(
            sum((m.X[i, f] - m.X[j, f]) ** 2 for f in m.F) for j in m.I)))
    declare_mssc(m, form=form, relax=relax, symmetry_breaking=symmetry_breaking,
                 pairwise_rows=pairwise_rows)
    return m


def mssc_labels(model) -> np.ndarray:
    """Labels ``0..k-1`` from a solved MSSC model (largest ``x[i, c]`` per object).

    Parameters
    ----------
    model : ConcreteModel
        Built by :func:`build_mssc_model` and solved.

    Returns
    -------
    ndarray of int64, shape (n_samples,)

    Raises
    ------
    InvalidParameterError
        If ``model`` is not an MSSC model (e.g. a k-medoids model: use
        :func:`ccopt.models.kmedoids_labels`).
    SolverError
        If no solution is loaded.
    """
    expect_assignment_var(model, "x")
    n, k = int(pyo.value(model.n)), int(pyo.value(model.k))
    return np.argmax(assignment_values(model.x, n, k), axis=1).astype(np.int64)
