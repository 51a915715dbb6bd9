"""Pieces shared by the Pyomo models: data components, pairwise rows, distances, checks.

Every model is declared by functions that read its data from Pyomo components with fixed
names, so one declaration serves both entry points: the builders of :mod:`ccopt.models`
fill those components from a :class:`~ccopt.problem.ClusteringProblem`, and the files in
the top-level ``models/`` folder leave them abstract, to be filled from a ``.dat`` file by
the ``pyomo`` command.

Data components (all immutable):

==================  ==========================================================================
``n``, ``k``        number of objects and of clusters
``I``               objects ``0..n-1``
``F``               features ``0..d-1``
``X[i, f]``         coordinates
``ML``, ``CL``      positions ``0..m-1`` in the must-link and cannot-link lists
``ml_u[c]``,        the two objects of must-link ``c``; position ``c`` is the ``c``-th
``ml_v[c]``         must-link of :attr:`Constraints.ml_indices` (likewise for ``CL``)
``cl_u[c]``,
``cl_v[c]``
``ml_index[c]``,    position of must-link ``c`` (cannot-link ``c``) in the order of the
``cl_index[c]``     :class:`~ccopt.constraints.Constraints` object (for ``.dat`` data: the
                    must-links first, then the cannot-links)
``epsilon``         right-hand-side slack of the pairwise rows (0 for the exact rows)
``min_size``,       cluster-size bounds; 0 and ``n`` (the defaults) add no rows
``max_size``
==================  ==========================================================================

An abstract model also holds ``BuildAction`` components, ``check_n`` and ``check_data``
(:func:`declare_data`) and ``check_epsilon`` (:func:`declare_epsilon_check`), that run the
checks of :meth:`ClusteringProblem.create` and of the builders on the data of the instance
as it is created, so that a ``.dat`` file gets the same errors as the builders. It is a
:class:`CheckedAbstractModel`, so that such an error is not preceded by Pyomo's log line
about the component that raised it.
"""

from __future__ import annotations

import contextlib
import logging
import numbers
import sys
import threading
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
from pyomo.core.base.block import BlockData
from pyomo.core.expr.numeric_expr import LinearExpression
from scipy.spatial.distance import cdist

from ccopt._validation import check_choice, check_positive_int
from ccopt.config import check_dense_memory
from ccopt.exceptions import (
    CcoptError,
    InvalidConstraintError,
    InvalidDataError,
    InvalidParameterError,
    SolverError,
)
from ccopt.problem import ClusteringProblem

__all__ = [
    "PAIRWISE_MODES",
    "CheckedAbstractModel",
    "ModelData",
    "assignment_matrix",
    "assignment_values",
    "assignment_var",
    "check_distances",
    "check_model",
    "check_pairwise",
    "check_problem",
    "counting_set",
    "declare_data",
    "declare_epsilon_check",
    "declare_pairwise_rows",
    "declare_size_rows",
    "distance_matrix",
    "expect_assignment_var",
    "matrix_initializer",
    "refuse_proven_infeasible",
]

#: How the pairwise constraints enter a model: the epsilon rows (3')(4')(4''), the exact
#: rows (3)(4), or not at all (the unconstrained program, or the Lagrangian (10)).
PAIRWISE_MODES = ("epsilon", "exact", "none")


def check_problem(problem) -> ClusteringProblem:
    """Return ``problem`` if it is a :class:`ClusteringProblem`, else say how to build one."""
    if not isinstance(problem, ClusteringProblem):
        raise InvalidParameterError(
            f"Expected a ccopt.ClusteringProblem, got {type(problem).__name__}; build one with "
            "ClusteringProblem.create(X, n_clusters, ml=..., cl=...)."
        )
    return problem


def refuse_proven_infeasible(problem: ClusteringProblem) -> None:
    """Raise before building an integer program that the constraints provably make infeasible.

    The solver would only say "infeasible" (a bare SolverError); a cannot-link clique of
    k + 1 objects or must-link components, or a cannot-link inside a must-link chain, is
    named here with its certificate.

    Raises
    ------
    InfeasibleConstraintsError
        :func:`~ccopt.constraints.check_feasibility` proves that no labelling into
        ``problem.n_clusters`` clusters satisfies the constraints.
    """
    from ccopt.constraints import check_feasibility

    check_feasibility(problem.constraints, problem.n_clusters,
                      max_cluster_size=problem.max_size).raise_if_infeasible()


#: What the error on ``epsilon`` suggests to the callers that take ``pairwise``.
EXACT_HINT = "use pairwise='exact' for the rows without slack"


def check_pairwise(pairwise: str, epsilon, *, hint: str | None = EXACT_HINT) -> float:
    """Validate the pairwise mode and return the right-hand-side slack it implies.

    ``hint`` ends the error on an ``epsilon`` outside ]0, 1[: what the caller can do
    instead. The default points to ``pairwise='exact'``; callers without that parameter
    pass their own hint, or ``None`` (the Lagrangian needs the epsilon rows).
    """
    check_choice(pairwise, "pairwise", PAIRWISE_MODES)
    if pairwise != "epsilon":
        return 0.0
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise InvalidParameterError(f"epsilon must be a real number in ]0, 1[, got {epsilon!r}.")
    epsilon = float(epsilon)
    if not 0.0 < epsilon < 1.0:
        tail = f"; {hint}" if hint else ""
        raise InvalidParameterError(f"epsilon must lie strictly between 0 and 1, got {epsilon}{tail}.")
    return epsilon


def distance_matrix(X, *, squared: bool = False, what: str = "distance matrix") -> np.ndarray:
    """Dense Euclidean (or squared Euclidean) distances between all objects.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    squared : bool, default=False
    what : str
        Named in the error when the matrix would exceed the memory bound.

    Returns
    -------
    ndarray of float64, shape (n_samples, n_samples)

    Raises
    ------
    MemoryBudgetError
        When ``n_samples^2 * 8`` bytes exceed :func:`ccopt.get_config` ``max_dense_bytes``.
    """
    n = X.shape[0]
    check_dense_memory((n, n), what=what)
    # cdist computes each difference directly, so identical objects get exactly 0.
    return cdist(X, X, metric="sqeuclidean" if squared else "euclidean")


def check_distances(distances, n: int) -> np.ndarray:
    """Validate a user-given ``(n, n)`` dissimilarity matrix (finite, non-negative)."""
    try:
        arr = np.asarray(distances, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidDataError(f"distances could not be read as a float array: {exc}") from exc
    if arr.shape != (n, n):
        raise InvalidDataError(f"distances must have shape (n_samples, n_samples) = ({n}, {n}), "
                               f"got {arr.shape}.")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidDataError(
            f"distances must be finite and >= 0; distances[{i}, {j}] = {float(arr[i, j])!r}."
        )
    return arr


@dataclass(frozen=True)
class ModelData:
    """The numbers a model is declared from, taken from a validated problem.

    Attributes
    ----------
    problem : ClusteringProblem
    epsilon : float
        Right-hand-side slack of the pairwise rows (0 for the exact rows).
    rows : bool
        Whether the pairwise rows are written (False for ``pairwise="none"``; the pairs are
        still declared, e.g. for the Lagrangian's multipliers).
    """

    problem: ClusteringProblem
    epsilon: float
    rows: bool

    @classmethod
    def from_problem(cls, problem: ClusteringProblem, pairwise: str, epsilon) -> ModelData:
        problem = check_problem(problem)
        return cls(problem, check_pairwise(pairwise, epsilon), pairwise != "none")


def _column(pairs: np.ndarray, column: int) -> dict:
    return dict(enumerate(pairs[:, column].tolist()))


class _DropReportsOfCcoptErrors(logging.Filter):
    """Drop the ERROR records Pyomo writes while a ccopt error passes through its construction.

    Pyomo logs "Constructing component ... failed" (and "Rule failed ...") from inside the
    ``except`` clause that re-raises, so the exception in flight is the one reported. The
    filter stays on Pyomo's logger and acts only in a thread that is inside
    :meth:`CheckedAbstractModel.load`: adding and removing it around each load let one
    thread's load remove it while another's was still running.
    """

    def __init__(self) -> None:
        super().__init__()
        self._loading = threading.local()

    def loading(self) -> contextlib.AbstractContextManager:
        return _depth(self._loading)

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(self._loading, "depth", 0):
            return True
        return not (record.levelno >= logging.ERROR and isinstance(sys.exc_info()[1], CcoptError))


@contextlib.contextmanager
def _depth(state: threading.local):
    state.depth = getattr(state, "depth", 0) + 1
    try:
        yield
    finally:
        state.depth -= 1


_DROP_REPORTS_OF_CCOPT_ERRORS = _DropReportsOfCcoptErrors()
logging.getLogger("pyomo.core").addFilter(_DROP_REPORTS_OF_CCOPT_ERRORS)


class CheckedAbstractModel(pyo.AbstractModel):
    """An ``AbstractModel`` whose data errors from ccopt's checks reach the user alone.

    The checks run in ``BuildAction`` components (:func:`declare_data`); Pyomo logs every
    component whose construction fails before re-raising, so a user of ``create_instance``
    or of the ``pyomo`` command saw a Pyomo ERROR line ahead of ccopt's message. While data
    are loaded, those log records are dropped when the error is ccopt's; Pyomo's own errors
    are still logged. ``create_instance`` loads through :meth:`load` and then turns the
    instance into a plain ``ConcreteModel``.
    """

    def load(self, *args, **kwargs) -> None:
        """Load data as :meth:`pyomo.environ.AbstractModel.load` does.

        Parameters
        ----------
        *args, **kwargs
            Those of :meth:`pyomo.environ.AbstractModel.load` (data file, dict or
            ``DataPortal``, ``namespaces``, ``profile_memory``).
        """
        with _DROP_REPORTS_OF_CCOPT_ERRORS.loading():
            super().load(*args, **kwargs)


def declare_data(m, data: ModelData | None = None) -> None:
    """Declare the data components listed in the module docstring.

    With ``data`` they are filled from it (a concrete model); without, they stay abstract
    and a ``.dat`` file fills them (``ML``/``CL`` default to empty, ``epsilon`` to 0.5,
    ``min_size`` to 0 and ``max_size`` to ``n``).
    """
    if data is None:
        # The Params take any value (within=Any) and check_n / check_data check them: a
        # Pyomo domain error is a bare RuntimeError, and an error raised in a Param's
        # validate rule comes out wrapped in one.
        m.n = pyo.Param(within=pyo.Any)
        m.check_n = pyo.BuildAction(rule=_check_n)  # before I, which is built from n
        m.k = pyo.Param(within=pyo.Any)
        m.I = counting_set("n")
        m.F = pyo.Set(ordered=True)
        # X's rows and the pair columns are indexed by all numbers, not by I, ML and CL: an
        # index outside those (a row beyond n) then reaches check_data, which names it,
        # instead of failing the Param's construction with a bare RuntimeError. X's columns
        # stay F, whose names may be words (`set F := x y ;`); the .dat reader needs every
        # index set to have one dimension, which pyo.Any has not.
        m.X = pyo.Param(pyo.Reals, m.F, within=pyo.Any)
        m.ML = pyo.Set(ordered=True, within=pyo.NonNegativeIntegers, initialize=[])
        m.CL = pyo.Set(ordered=True, within=pyo.NonNegativeIntegers, initialize=[])
        m.ml_u = pyo.Param(pyo.Reals, within=pyo.Any)
        m.ml_v = pyo.Param(pyo.Reals, within=pyo.Any)
        m.cl_u = pyo.Param(pyo.Reals, within=pyo.Any)
        m.cl_v = pyo.Param(pyo.Reals, within=pyo.Any)
        m.ml_index = pyo.Param(m.ML, within=pyo.NonNegativeIntegers,
                               initialize=lambda m, c: m.ML.ord(c) - 1)
        m.cl_index = pyo.Param(m.CL, within=pyo.NonNegativeIntegers,
                               initialize=lambda m, c: len(m.ML) + m.CL.ord(c) - 1)
        m.epsilon = pyo.Param(within=pyo.Any, initialize=0.5)
        m.min_size = pyo.Param(within=pyo.Any, initialize=0)
        m.max_size = pyo.Param(within=pyo.Any, initialize=lambda m: pyo.value(m.n))
        m.check_data = pyo.BuildAction(rule=_check_data)
        return
    problem = data.problem
    n, d = problem.n_samples, problem.n_features
    m.n = pyo.Param(initialize=n, within=pyo.PositiveIntegers)
    m.k = pyo.Param(initialize=problem.n_clusters, within=pyo.PositiveIntegers)
    m.I = pyo.RangeSet(0, n - 1)
    m.F = pyo.Set(ordered=True, initialize=range(d))
    m.X = pyo.Param(m.I, m.F, initialize=matrix_initializer(problem.X), within=pyo.Any)
    cons = problem.constraints
    ml, cl = cons.ml_pairs, cons.cl_pairs
    m.ML = pyo.Set(ordered=True, initialize=range(ml.shape[0]))
    m.CL = pyo.Set(ordered=True, initialize=range(cl.shape[0]))
    m.ml_u = pyo.Param(m.ML, initialize=_column(ml, 0))
    m.ml_v = pyo.Param(m.ML, initialize=_column(ml, 1))
    m.cl_u = pyo.Param(m.CL, initialize=_column(cl, 0))
    m.cl_v = pyo.Param(m.CL, initialize=_column(cl, 1))
    m.ml_index = pyo.Param(m.ML, initialize=dict(enumerate(cons.ml_indices.tolist())))
    m.cl_index = pyo.Param(m.CL, initialize=dict(enumerate(cons.cl_indices.tolist())))
    m.epsilon = pyo.Param(initialize=data.epsilon, within=pyo.NonNegativeReals)
    m.min_size = pyo.Param(initialize=problem.min_size or 0, within=pyo.NonNegativeIntegers)
    m.max_size = pyo.Param(initialize=problem.max_size or n, within=pyo.PositiveIntegers)


def _given(param, index=None):
    """The value of ``param[index]`` in the data of an abstract model's instance."""
    if index not in param:
        shown = ", ".join(map(str, index)) if isinstance(index, tuple) else index
        where = param.local_name if index is None else f"{param.local_name}[{shown}]"
        raise InvalidDataError(f"{where} is missing from the model data (the .dat file).")
    # A scalar Param is its own data object: its value is .value, not param[None].
    return param.value if index is None else param[index]


def _check_n(m) -> None:
    """BuildAction of an abstract model: ``n``, before the objects ``0..n-1`` are built from it."""
    check_positive_int(_given(m.n), "n (the number of objects in the model data)")


def _check_data(m) -> None:
    """BuildAction of an abstract model: the checks of :meth:`ClusteringProblem.create`.

    Raises the errors of the builders (``InvalidParameterError``, ``InvalidDataError``,
    ``InvalidConstraintError``, ``ConflictingConstraintError``, ``InfeasibleConstraintsError``
    for size bounds no partition meets) on the data of the instance. The closure is not
    required: whether the must-links and cannot-links admit a clustering is the solver's
    finding, as on a model built from ``ClusteringProblem.create(..., require_closure=False)``.
    """
    _check_keys(m)
    rows = []
    for i in m.I:
        row = []
        for f in m.F:
            value = _given(m.X, (i, f))
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise InvalidDataError(f"X[{i}, {f}] = {value!r} in the model data is not a number.")
            row.append(value)
        rows.append(row)
    X = np.array(rows, dtype=np.float64).reshape(len(m.I), len(m.F))
    ml = [(_given(m.ml_u, c), _given(m.ml_v, c)) for c in m.ML]
    cl = [(_given(m.cl_u, c), _given(m.cl_v, c)) for c in m.CL]
    k = check_positive_int(_given(m.k), "k (the number of clusters in the model data)")
    ClusteringProblem.create(X, k, ml=ml or None, cl=cl or None, min_size=_given(m.min_size),
                             max_size=_given(m.max_size), require_closure=False)


def _check_keys(m) -> None:
    """Refuse rows of ``X`` outside ``I`` and pair entries outside ``ML``/``CL``.

    (A column outside ``F`` is refused by Pyomo itself: ``X`` is indexed by ``F``.)

    Raises
    ------
    InvalidDataError
        An ``X[i, f]`` whose row ``i`` is not one of the ``n`` objects.
    InvalidConstraintError
        An ``ml_u[c]`` (``ml_v``, ``cl_u``, ``cl_v``) whose ``c`` is not in ``ML`` (``CL``).
    """
    n = pyo.value(m.n)
    for i, f in m.X:
        if i not in m.I:
            raise InvalidDataError(
                f"X[{i}, {f}] is in the model data (the .dat file), but row {i} is not an "
                f"object: n = {n} gives the objects 0..{n - 1}. Correct n or remove the row.")
    for positions, kind, columns in ((m.ML, "must-link", (m.ml_u, m.ml_v)),
                                     (m.CL, "cannot-link", (m.cl_u, m.cl_v))):
        for column in columns:
            for c in column:
                if c not in positions:
                    raise InvalidConstraintError(
                        f"{column.local_name}[{c}] is in the model data (the .dat file), but "
                        f"{c} is not a {kind} position: {positions.local_name} = "
                        f"{list(positions)}. Add it to {positions.local_name} or remove the "
                        "entry.")


def declare_epsilon_check(m, *, exact: bool) -> None:
    """Add the BuildAction ``check_epsilon`` to an abstract model: ``epsilon`` in ]0, 1[.

    Declared apart from ``check_data`` because the range depends on the model: ``exact``
    also accepts 0 (the exact rows (3)(4)); the Lagrangian (10) needs the epsilon rows.
    Declare it before the first component that reads ``epsilon``.
    """
    def check_epsilon(m):
        epsilon = _given(m.epsilon)
        if exact and not isinstance(epsilon, bool) and epsilon == 0:
            return
        check_pairwise("epsilon", epsilon, hint="0 gives the exact rows (3)(4) instead" if exact else None)

    m.check_epsilon = pyo.BuildAction(rule=check_epsilon)


def counting_set(size: str) -> pyo.Set:
    """Ordered set ``0..N-1`` with ``N`` the Param named ``size`` (a RangeSet over a Param
    of an abstract model warns that it is not constant)."""
    return pyo.Set(initialize=lambda m: range(pyo.value(m.component(size))), ordered=True,
                   within=pyo.NonNegativeIntegers)


def matrix_initializer(values: np.ndarray):
    """An ``initialize`` rule reading a 2-D array (cheaper than a dict of n*m tuples)."""
    return lambda m, i, j: float(values[i, j])


def declare_pairwise_rows(m, var: str, clusters: str) -> None:
    """Declare the pairwise rows per cluster, with right-hand-side slack ``m.epsilon``.

    .. math::

        x_u^q + x_v^q &\\le 1 + \\epsilon  && (u,v) \\in CL   && \\texttt{cl\\_rows[c, q]}  && (3') \\\\
        x_u^q - x_v^q &\\le \\epsilon      && (u,v) \\in ML   && \\texttt{ml\\_rows\\_fwd[c, q]} && (4') \\\\
        x_v^q - x_u^q &\\le \\epsilon      && (u,v) \\in ML   && \\texttt{ml\\_rows\\_bwd[c, q]} && (4'')

    With ``epsilon = 0`` these are the exact rows (3) and (4) (the equality (4) written as
    two inequalities, so the rows of both variants carry the same names).

    Parameters
    ----------
    m : Block
        With the data components of :func:`declare_data`.
    var : str
        Name of the assignment variable, indexed by (object, cluster): ``"z"`` or ``"x"``.
    clusters : str
        Name of the cluster index set: ``"J"`` (medoids) or ``"C"``.
    """
    def cannot_link(m, c, q):
        x = m.component(var)
        return LinearExpression([x[m.cl_u[c], q], x[m.cl_v[c], q]]) <= 1 + m.epsilon

    def must_link_fwd(m, c, q):
        x = m.component(var)
        return x[m.ml_u[c], q] - x[m.ml_v[c], q] <= m.epsilon

    def must_link_bwd(m, c, q):
        x = m.component(var)
        return x[m.ml_v[c], q] - x[m.ml_u[c], q] <= m.epsilon

    index = m.component(clusters)
    m.cl_rows = pyo.Constraint(m.CL, index, rule=cannot_link)
    m.ml_rows_fwd = pyo.Constraint(m.ML, index, rule=must_link_fwd)
    m.ml_rows_bwd = pyo.Constraint(m.ML, index, rule=must_link_bwd)


def declare_size_rows(m, var: str, clusters: str, scale: str | None = None) -> None:
    """Cluster-size rows ``min_size * s_q <= sum_i x[i, q] <= max_size * s_q``.

    ``var`` and ``clusters`` name the assignment variable and the cluster set; ``scale``
    names the cluster's indicator (``"y"`` for a medoid) or is ``None`` for 1. Rows whose
    bound cannot bind (``min_size = 0``, ``max_size >= n``) are skipped.
    """
    def size(m, q):
        assign = m.component(var)
        return LinearExpression([assign[i, q] for i in m.I])

    def factor(m, q):
        return 1 if scale is None else m.component(scale)[q]

    def lower(m, q):
        if pyo.value(m.min_size) <= 0:
            return pyo.Constraint.Skip
        # Written as "body >= 0", so the row reads sum_i x[i, q] - min_size * s_q.
        return size(m, q) - m.min_size * factor(m, q) >= 0

    def upper(m, q):
        if pyo.value(m.max_size) >= pyo.value(m.n):
            return pyo.Constraint.Skip
        return size(m, q) - m.max_size * factor(m, q) <= 0

    m.size_min = pyo.Constraint(m.component(clusters), rule=lower)
    m.size_max = pyo.Constraint(m.component(clusters), rule=upper)


def assignment_values(var, n: int, n_clusters: int) -> np.ndarray:
    """Loaded values of an ``(object, cluster)``-indexed variable as an ``(n, K)`` array.

    Raises
    ------
    SolverError
        When some value is missing (the model was not solved or no solution was loaded).
    """
    values = np.fromiter((v.value if v.value is not None else np.nan for v in var.values()),
                         dtype=np.float64, count=n * n_clusters)
    if np.isnan(values).any():
        raise SolverError("The model holds no solution: solve it first (ccopt.solvers.solve).")
    return values.reshape(n, n_clusters)


def check_model(model) -> None:
    """Raise unless ``model`` is a Pyomo model (or block).

    Raises
    ------
    InvalidParameterError
        For anything else (a dict, ``None``, a problem, ...).
    """
    if not isinstance(model, BlockData):
        raise InvalidParameterError(
            f"Expected a Pyomo model built by ccopt.models, got {type(model).__name__}.")


def assignment_var(model):
    """The (object, cluster) assignment variable and the cluster set of a ccopt model.

    Raises
    ------
    InvalidParameterError
        If ``model`` is not a Pyomo model (:func:`check_model`) or has neither ``z`` over
        ``J`` nor ``x`` over ``C``.
    """
    check_model(model)
    if model.component("z") is not None and model.component("J") is not None:
        return model.z, model.J
    if model.component("x") is not None and model.component("C") is not None:
        return model.x, model.C
    raise InvalidParameterError(
        "The model is not a ccopt clustering model (no z[i, j] over medoids J nor x[i, c] over "
        "clusters C); build it with ccopt.models."
    )


#: Each label reader's model, by the name of its assignment variable.
_MODEL_KINDS = {
    "z": ("a k-medoids model (z[i, j] over medoids J)", "kmedoids_labels"),
    "x": ("an MSSC model (x[i, c] over clusters C)", "mssc_labels"),
}


def expect_assignment_var(model, name: str) -> None:
    """Refuse a model whose assignment variable is not ``name`` ("z" or "x"), naming its reader.

    Raises
    ------
    InvalidParameterError
        If ``model`` is the other kind of ccopt model (or none, as :func:`assignment_var`).
    """
    found = assignment_var(model)[0].local_name
    if found != name:
        (wanted, reader), (got, other) = _MODEL_KINDS[name], _MODEL_KINDS[found]
        raise InvalidParameterError(f"{reader} expects {wanted}, got {got}; read its labels with {other}.")


def assignment_matrix(model) -> np.ndarray:
    """The loaded solution of a solved ccopt model as an array ``x`` of shape (n, K).

    ``x[i, q]`` is the (possibly fractional) assignment of object ``i`` to cluster ``q``:
    ``z[i, j]`` (``K = n`` candidate medoids) for the k-medoids model, ``x[i, c]``
    (``K = k``) for MSSC.

    Parameters
    ----------
    model : ConcreteModel
        A solved model from :mod:`ccopt.models` (including Lagrangian models).

    Returns
    -------
    ndarray of float64, shape (n_samples, K)

    Raises
    ------
    SolverError
        If no solution is loaded.
    """
    var, clusters = assignment_var(model)
    return assignment_values(var, int(pyo.value(model.n)), len(clusters))
