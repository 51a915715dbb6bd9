"""The Lagrangian relaxation (10) of Randel et al. (2021), over the k-medoids or MSSC model.

The pairwise rows (3')(4')(4'') leave the constraints and enter the objective with
multipliers :math:`\\eta, \\lambda, \\gamma \\le 0`, one per constraint and cluster:

.. math::

    L(\\eta, \\lambda, \\gamma) = \\min_x\\ f(x)
      + \\sum_{(u,v) \\in CL} \\sum_{q} \\eta_{uv}^q (1 + \\epsilon - x_u^q - x_v^q)
      + \\sum_{(u,v) \\in ML} \\sum_{q} \\lambda_{uv}^q (\\epsilon + x_u^q - x_v^q)
      + \\sum_{(u,v) \\in ML} \\sum_{q} \\gamma_{uv}^q (\\epsilon + x_v^q - x_u^q)   \\qquad (10)

over the remaining rows (assignment, medoids or non-empty clusters, sizes). The clusters
``q`` are the candidate medoids ``j`` of the k-medoids model (``K = n``) or the clusters
``c = 0..k-1`` of the MSSC model (``K = k``).

Reading chosen: the text of the paper attaches :math:`\\lambda` to (4') and :math:`\\gamma`
to (4''), but (10) and the updates of Algorithm 1 multiply :math:`\\lambda` by
:math:`\\epsilon + x_u - x_v`, which is the slack of (4'') (:math:`x_v - x_u \\le \\epsilon`).
We follow the formulas: :math:`\\lambda` is the multiplier of ``ml_rows_bwd`` (4'') and
:math:`\\gamma` that of ``ml_rows_fwd`` (4'). The impact score (17) sums both, so it does
not depend on this choice; the subgradients of Algorithm 1 match (10) as printed
(:func:`lagrangian_subgradients`).

The multipliers are mutable Params, so after :func:`set_multipliers` a
:class:`ccopt.solvers.PersistentSolver` re-solves without rebuilding (``highs_matrix``
recompiles only the objective; ``appsi_highs`` pushes the changed costs).
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from pyomo.common.gc_manager import PauseGC
from pyomo.core.expr.numeric_expr import LinearExpression

from ccopt._validation import check_bool, check_choice
from ccopt.exceptions import InvalidParameterError
from ccopt.models import kmedoids, mssc
from ccopt.models._common import (
    ModelData,
    assignment_matrix,
    assignment_var,
    check_model,
    check_pairwise,
    check_problem,
    declare_epsilon_check,
)
from ccopt.problem import ClusteringProblem

__all__ = [
    "abstract_lagrangian_model",
    "assignment_matrix",
    "build_lagrangian_model",
    "check_multipliers",
    "declare_lagrangian",
    "lagrangian_subgradients",
    "set_multipliers",
]

_BASES = ("kmedoids", "mssc")


def build_lagrangian_model(problem: ClusteringProblem, *, base: str = "kmedoids",
                           epsilon: float = 0.5, relax: bool = True, distances=None,
                           form: str = "convex", symmetry_breaking: bool = True) -> pyo.ConcreteModel:
    """Build the Lagrangian relaxation (10) with all multipliers 0; never solves.

    Parameters
    ----------
    problem : ClusteringProblem
    base : {"kmedoids", "mssc"}, default="kmedoids"
        The clustering model whose pairwise rows are relaxed.
    epsilon : float, default=0.5
        The slack of (3')(4')(4''), in ]0, 1[.
    relax : bool, default=True
        Continuous assignment variables (the LP relaxation of (10) for k-medoids, used by
        the paper's experiments); False keeps them binary.
    distances : array-like of shape (n_samples, n_samples), optional
        k-medoids only: dissimilarities (default Euclidean).
    form : {"convex", "fractional"}, default="convex"
        MSSC only: the objective's form (see :mod:`ccopt.models.mssc`).
    symmetry_breaking : bool, default=True
        MSSC only. The rows that keep object ``i`` out of clusters ``c > i`` stay in the
        relaxation. The constrained problem keeps its optimum under them (its clusters are
        interchangeable), but the multipliers differ by cluster, so the relaxation with them
        minimises (10) over fewer assignments: its value is at least that of (10) and still
        a lower bound on the constrained optimum. False gives (10) exactly.

    Returns
    -------
    pyomo.environ.ConcreteModel
        The base model's components without the pairwise rows, plus:

        ======================  ==========================================================
        ``eta[c, q]``           mutable Param, cannot-link ``c``, cluster ``q`` (<= 0)
        ``lam[c, q]``           mutable Param, must-link ``c``, multiplies
                                ``epsilon + x[u, q] - x[v, q]`` (row (4''))
        ``gamma[c, q]``         mutable Param, must-link ``c``, multiplies
                                ``epsilon + x[v, q] - x[u, q]`` (row (4'))
        ``penalty``             Expression: the multiplier terms of (10)
        ``objective``           minimise ``cost + penalty``
        ======================  ==========================================================

        ``q`` ranges over ``J`` (k-medoids) or ``C`` (MSSC).

    Raises
    ------
    InvalidParameterError
        Unknown ``base`` or ``form``, ``epsilon`` outside ]0, 1[, ``relax`` or
        ``symmetry_breaking`` not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt import ClusteringProblem
    >>> from ccopt.models import build_lagrangian_model, set_multipliers
    >>> X = np.array([[0.0], [0.2], [5.0], [5.3]])
    >>> m = build_lagrangian_model(ClusteringProblem.create(X, 2, cl=[(0, 1)]))
    >>> set_multipliers(m, eta=np.full((1, 4), -0.5))
    >>> float(m.eta[0, 2].value)
    -0.5
    """
    check_choice(base, "base", _BASES)
    check_choice(form, "form", mssc.MSSC_FORMS)
    relax = check_bool(relax, "relax")
    symmetry_breaking = check_bool(symmetry_breaking, "symmetry_breaking")
    data = ModelData(check_problem(problem), check_pairwise("epsilon", epsilon, hint=None),
                     rows=False)
    if base == "kmedoids":
        m = kmedoids.build_from_data(data, relax, distances)
        if relax:
            # The Lagrangian has no pairwise rows to read duals from; skipping the Suffix
            # saves loading a dual per row on every re-solve.
            m.del_component(m.dual)
    else:
        if distances is not None:
            raise InvalidParameterError("distances apply to base='kmedoids' only; MSSC uses X.")
        m = mssc.build_from_data(data, form, relax, symmetry_breaking)
    with PauseGC():  # see kmedoids.build_from_data
        declare_lagrangian(m)
    return m


def declare_lagrangian(m) -> None:
    """Add the multipliers and the penalty of (10) to a model without pairwise rows.

    Declares ``eta``, ``lam``, ``gamma`` (mutable, 0 unless data say otherwise) and
    ``penalty``, and replaces ``objective`` by ``cost + penalty``. Works on a concrete model
    and on an abstract one (``models/lagrangian.py``, multipliers from the ``.dat`` file).

    Parameters
    ----------
    m : pyomo.environ.ConcreteModel or AbstractModel
        Modified in place. It must hold the data components of
        :func:`ccopt.models._common.declare_data` (``CL``, ``ML``, ``cl_u``, ``cl_v``,
        ``ml_u``, ``ml_v``, ``epsilon``) and a program declared by
        :func:`~ccopt.models.kmedoids.declare_kmedoids` or
        :func:`~ccopt.models.mssc.declare_mssc` with ``pairwise_rows=False``: the
        assignment ``z`` over ``J`` or ``x`` over ``C``, the Expression ``cost`` and the
        ``objective``. Its pairwise rows are not looked for: declared anyway, they would
        stay in the model next to their penalty.

    Raises
    ------
    InvalidParameterError
        If ``m`` is not a Pyomo model or has neither ``z`` over ``J`` nor ``x`` over ``C``.
    """
    clusters = assignment_var(m)[1]
    m.eta = pyo.Param(m.CL, clusters, mutable=True, initialize=0.0, within=pyo.NonPositiveReals)
    m.lam = pyo.Param(m.ML, clusters, mutable=True, initialize=0.0, within=pyo.NonPositiveReals)
    m.gamma = pyo.Param(m.ML, clusters, mutable=True, initialize=0.0, within=pyo.NonPositiveReals)

    def penalty(m):
        # Looked up on the block argument, which is the instance when m is abstract.
        var, clusters = assignment_var(m)
        coefs, variables = [], []
        for c in m.CL:
            u, v = m.cl_u[c], m.cl_v[c]
            for q in clusters:
                negated = -m.eta[c, q]
                coefs += [negated, negated]
                variables += [var[u, q], var[v, q]]
        for c in m.ML:
            u, v = m.ml_u[c], m.ml_v[c]
            for q in clusters:
                lam, gamma = m.lam[c, q], m.gamma[c, q]
                coefs += [lam - gamma, gamma - lam]
                variables += [var[u, q], var[v, q]]
        epsilon = pyo.value(m.epsilon)
        constant = ((1 + epsilon) * pyo.quicksum(m.eta.values())
                    + epsilon * (pyo.quicksum(m.lam.values()) + pyo.quicksum(m.gamma.values())))
        return LinearExpression(constant=constant, linear_coefs=coefs, linear_vars=variables)

    m.penalty = pyo.Expression(rule=penalty)
    m.del_component(m.objective)
    m.objective = pyo.Objective(rule=lambda m: m.cost + m.penalty, sense=pyo.minimize)


def abstract_lagrangian_model(*, base: str = "kmedoids", relax: bool = True,
                              form: str = "convex") -> pyo.AbstractModel:
    """The Lagrangian (10) as an AbstractModel, for the ``pyomo`` command and ``.dat`` data.

    The data are those of :func:`ccopt.models.kmedoids.abstract_kmedoids_model` plus,
    optionally, the multipliers ``eta``, ``lam``, ``gamma`` (default 0, must be ``<= 0``),
    indexed by constraint position and cluster (medoid), without brackets::

        param eta := 0 3 -0.25 ;      # cannot-link 0, medoid 3
        param lam := 1 6 -0.5 ;       # must-link 1, medoid 6: multiplies eps + z[u,6] - z[v,6]
        param gamma := 1 2 -0.5 ;     # must-link 1, medoid 2: multiplies eps + z[v,2] - z[u,2]

    ``epsilon`` must lie in ]0, 1[ (default 0.5), for (10) to be the paper's relaxation.
    Creating an instance checks the data as the k-medoids abstract model does, and
    ``epsilon``.

    Parameters
    ----------
    base : {"kmedoids", "mssc"}, default="kmedoids"
    relax : bool, default=True
    form : {"convex", "fractional"}, default="convex"
        MSSC only.

    Returns
    -------
    pyomo.environ.AbstractModel

    Raises
    ------
    InvalidParameterError
        Unknown ``base`` or ``form``, ``relax`` not a bool.
    """
    check_choice(base, "base", _BASES)
    check_choice(form, "form", mssc.MSSC_FORMS)  # read by the MSSC base only, but refused anywhere
    relax = check_bool(relax, "relax")
    if base == "kmedoids":
        m = kmedoids.abstract_kmedoids_model(relax=relax, pairwise_rows=False)
        if relax:
            m.del_component(m.dual)
    else:
        m = mssc.abstract_mssc_model(form=form, relax=relax, pairwise_rows=False)
    # Before the penalty, the first component that reads epsilon.
    declare_epsilon_check(m, exact=False)
    declare_lagrangian(m)
    return m


def check_multipliers(values, shape: tuple[int, int], name: str) -> np.ndarray:
    """Return ``values`` as a finite, non-positive float array of ``shape``, or raise.

    Parameters
    ----------
    values : array-like of float
        The multipliers of one family.
    shape : tuple of int
        The shape they must have: ``(n_constraints, n_clusters)`` of the family.
    name : str
        The family's name (``"eta"``, ``"lam"`` or ``"gamma"``), used in the messages.

    Returns
    -------
    ndarray of float64, shape ``shape``
        ``values`` as an array (not a copy when it already is one of float64).

    Raises
    ------
    InvalidParameterError
        If ``values`` cannot be read as a float array, has another shape, contains NaN or
        inf, or has a positive entry (the message names the first one).
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} could not be read as a float array: {exc}") from exc
    if arr.shape != shape:
        raise InvalidParameterError(f"{name} must have shape {shape} (constraints, clusters), "
                                    f"got {arr.shape}.")
    if not np.isfinite(arr).all():
        where = [int(t) for t in np.argwhere(~np.isfinite(arr))[0]]
        raise InvalidParameterError(f"{name} contains NaN or inf at {name}{where}.")
    if (arr > 0).any():
        where = tuple(int(t) for t in np.argwhere(arr > 0)[0])
        raise InvalidParameterError(
            f"{name} must be <= 0 (the sign convention of (10)-(11)); {name}{list(where)} = "
            f"{float(arr[where])!r}. Project the subgradient step with numpy.minimum(values, 0)."
        )
    return arr


def set_multipliers(model, eta=None, lam=None, gamma=None) -> None:
    """Set the multipliers of a Lagrangian model in place (``None`` keeps the current ones).

    Parameters
    ----------
    model : ConcreteModel
        From :func:`build_lagrangian_model`.
    eta : array-like of float, shape (n_cl, K), optional
        Row ``c`` is the ``c``-th cannot-link (``model.CL``), column ``q`` the cluster.
    lam, gamma : array-like of float, shape (n_ml, K), optional
        The must-link multipliers (see the module docstring for which row each belongs to).

    Raises
    ------
    InvalidParameterError
        ``model`` not a Lagrangian model; a wrong shape, a non-finite value, or a positive
        multiplier (they must be ``<= 0``). Nothing is changed then.
    """
    check_model(model)
    if model.component("eta") is None:
        raise InvalidParameterError("The model has no multipliers; build it with build_lagrangian_model.")
    n_clusters = len(assignment_var(model)[1])
    # All checked before any is stored: an error leaves the model as it was.
    checked = {name: check_multipliers(values, (len(rows), n_clusters), name)
               for name, values, rows in (("eta", eta, model.CL), ("lam", lam, model.ML),
                                          ("gamma", gamma, model.ML))
               if values is not None}
    for name, arr in checked.items():
        param = model.component(name)
        # One bulk store: the Params are dense over (rows x clusters) in row-major order.
        param.store_values(dict(zip(param.keys(), arr.ravel().tolist(), strict=True)), check=False)


def lagrangian_subgradients(model, x=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The slacks of the relaxed rows at ``x``: the subgradients of (10) in the multipliers.

    .. math::

        g^\\eta_{uv,q} = 1 + \\epsilon - x_u^q - x_v^q, \\quad
        g^\\lambda_{uv,q} = \\epsilon + x_u^q - x_v^q, \\quad
        g^\\gamma_{uv,q} = \\epsilon + x_v^q - x_u^q

    Parameters
    ----------
    model : ConcreteModel
        From :func:`build_lagrangian_model` (or any ccopt model: it supplies the pairs and
        ``epsilon``).
    x : ndarray of shape (n_samples, K), optional
        Assignment; default the model's loaded solution (:func:`assignment_matrix`).

    Returns
    -------
    g_eta : ndarray, shape (n_cl, K)
    g_lam, g_gamma : ndarray, shape (n_ml, K)

    Raises
    ------
    InvalidParameterError
        ``model`` not a ccopt model, or ``x`` of the wrong shape.
    """
    check_model(model)
    if x is None:
        x = assignment_matrix(model)
    x = np.asarray(x, dtype=np.float64)
    n_clusters = len(assignment_var(model)[1])
    if x.shape != (int(pyo.value(model.n)), n_clusters):
        raise InvalidParameterError(f"x must have shape ({int(pyo.value(model.n))}, {n_clusters}), "
                                    f"got {x.shape}.")
    epsilon = float(pyo.value(model.epsilon))
    cl = np.array([[model.cl_u[c], model.cl_v[c]] for c in model.CL], dtype=np.int64).reshape(-1, 2)
    ml = np.array([[model.ml_u[c], model.ml_v[c]] for c in model.ML], dtype=np.int64).reshape(-1, 2)
    g_eta = 1.0 + epsilon - x[cl[:, 0]] - x[cl[:, 1]]
    diff = x[ml[:, 0]] - x[ml[:, 1]]
    return g_eta, epsilon + diff, epsilon - diff
