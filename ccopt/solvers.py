"""The one place that turns a solver name and options into a Pyomo solve.

Every Pyomo solve in ccopt goes through :func:`solve` (one-off) or :class:`PersistentSolver`
(re-solves after mutable parameters change). This module alone knows solver names, how each
solver takes ``time_limit``, ``mip_gap`` and ``threads``, how to read the best bound, and
what to install when a solver is missing.

Solver names are Pyomo's:

===================  ===========================================  ==============================
name                 interface                                    install
===================  ===========================================  ==============================
``appsi_highs``      APPSI HiGHS, persistent (default)            ``pip install highspy``
``highs``            ``pyomo.contrib.solver`` HiGHS, persistent   ``pip install highspy``
``scip_direct``      ``pyomo.contrib.solver`` SCIP (also MINLP)   ``pip install pyscipopt``
``scip_persistent``  persistent SCIP                              ``pip install pyscipopt``
``scip``             alias of ``scip_direct`` when no ``scip``    ``pip install pyscipopt``
                     executable is on the PATH
``cbc``              CBC executable                               ``apt-get install coinor-cbc``
``glpk``             GLPK executable                              ``apt-get install glpk-utils``
``gurobi``, ...      whatever Pyomo offers when installed         the vendor's package/licence
===================  ===========================================  ==============================

A time-limited MIP returns its incumbent with status ``Status.TIME_LIMIT``, not an
exception; a solve without any solution raises :class:`~ccopt.exceptions.SolverError`
unless ``require_solution=False``.
"""

from __future__ import annotations

import math
import shutil
import time
from dataclasses import dataclass, field

import pyomo.environ as pyo
from pyomo.contrib.solver.common.factory import SolverFactory as NewSolverFactory
from pyomo.opt import TerminationCondition as LegacyTC

from ccopt._validation import check_nonnegative, check_positive_int, check_time_limit
from ccopt.exceptions import InvalidParameterError, SolverError, SolverNotAvailableError
from ccopt.status import Status

__all__ = [
    "DEFAULT_SOLVER",
    "PersistentSolver",
    "SolveResult",
    "SolverOptions",
    "available_solvers",
    "check_solver",
    "solve",
]

DEFAULT_SOLVER = "appsi_highs"

# Interfaces of pyomo.contrib.solver (new API); everything else is a classic SolverFactory name.
_NEW_API = {"highs", "scip_direct", "scip_persistent", "gurobi_direct", "gurobi_persistent",
            "gurobi_direct_minlp", "ipopt", "knitro_direct"}
_INSTALL_HINTS = {
    "appsi_highs": "pip install highspy",
    "highs": "pip install highspy",
    "scip_direct": "pip install pyscipopt   (or: pip install 'ccopt[scip]')",
    "scip_persistent": "pip install pyscipopt   (or: pip install 'ccopt[scip]')",
    "scip": "pip install pyscipopt   (or: pip install 'ccopt[scip]')",
    "cbc": "apt-get install -y coinor-cbc   (or conda install -c conda-forge coincbc)",
    "appsi_cbc": "apt-get install -y coinor-cbc",
    "glpk": "apt-get install -y glpk-utils   (or conda install -c conda-forge glpk)",
    "gurobi": "pip install gurobipy, plus a Gurobi licence",
    "gurobi_direct": "pip install gurobipy, plus a Gurobi licence",
    "gurobi_persistent": "pip install gurobipy, plus a Gurobi licence",
    "cplex": "pip install cplex (or the CPLEX Studio binary), plus a licence",
    "cplex_direct": "pip install cplex, plus a licence",
    "ipopt": "conda install -c conda-forge ipopt",
}
# Option names per classic solver: (time limit, relative MIP gap, threads).
_LEGACY_OPTION_NAMES = {
    "cbc": ("sec", "ratio", "threads"),
    "glpk": ("tmlim", "mipgap", None),
    "gurobi": ("TimeLimit", "MIPGap", "Threads"),
    "gurobi_direct": ("TimeLimit", "MIPGap", "Threads"),
    "gurobi_persistent": ("TimeLimit", "MIPGap", "Threads"),
    "cplex": ("timelimit", "mipgap", "threads"),
    "cplex_direct": ("timelimit", "mipgap", "threads"),
    "cplex_persistent": ("timelimit", "mipgap", "threads"),
    "appsi_cbc": ("seconds", "ratio", "threads"),
}


@dataclass(frozen=True)
class SolverOptions:
    """Options every solve understands.

    Parameters
    ----------
    time_limit : float, optional
        Seconds. A MIP that hits it returns its incumbent with status ``time_limit``.
    mip_gap : float, optional
        Relative MIP gap at which to stop.
    threads : int, optional
    tee : bool, default=False
        Show the solver log.
    extra : dict
        Solver-specific options passed through unchanged.
    """

    time_limit: float | None = None
    mip_gap: float | None = None
    threads: int | None = None
    tee: bool = False
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "time_limit", check_time_limit(self.time_limit))
        if self.mip_gap is not None:
            object.__setattr__(self, "mip_gap", check_nonnegative(self.mip_gap, "mip_gap"))
        if self.threads is not None:
            object.__setattr__(self, "threads", check_positive_int(self.threads, "threads"))
        if not isinstance(self.extra, dict):
            raise InvalidParameterError(f"extra solver options must be a dict, got {self.extra!r}.")


@dataclass(frozen=True)
class SolveResult:
    """The outcome of one solve.

    Attributes
    ----------
    status : Status
        ``optimal``, ``time_limit``, ``iteration_limit``, ``infeasible``, ``feasible`` or
        ``error``.
    objective : float or None
        Objective of the loaded solution (None when no solution was found).
    bound : float or None
        Best proven bound (for minimisation a lower bound); for an optimal LP equal to the
        objective.
    wall_time : float
        Seconds spent in the call, hand-off included.
    solver : str
        The Pyomo solver name used.
    termination : str
        The solver's own termination condition.
    has_solution : bool
        Whether variable values were loaded into the model.
    """

    status: Status
    objective: float | None
    bound: float | None
    wall_time: float
    solver: str
    termination: str
    has_solution: bool

    @property
    def gap(self) -> float | None:
        """Relative gap ``|objective - bound| / max(1e-10, |objective|)``, when both are known."""
        if self.objective is None or self.bound is None:
            return None
        return abs(self.objective - self.bound) / max(1e-10, abs(self.objective))


def _resolve_name(solver: str) -> str:
    if not isinstance(solver, str) or not solver:
        raise InvalidParameterError(f"solver must be a Pyomo solver name, got {solver!r}.")
    if solver == "scip" and shutil.which("scip") is None:
        return "scip_direct"
    return solver


def _factory(name: str):
    """Create the Pyomo solver object, or raise SolverNotAvailableError saying what to install."""
    hint = _INSTALL_HINTS.get(name)
    how = f" Install it with: {hint}." if hint else ""
    if name in _NEW_API:
        opt = NewSolverFactory(name)
        available = bool(opt.available()) if opt is not None else False
    else:
        if name not in pyo.SolverFactory:
            known = ", ".join(sorted(set(_INSTALL_HINTS)))
            raise SolverNotAvailableError(
                f"Pyomo knows no solver named {name!r}. Common names: {known}."
            )
        opt = pyo.SolverFactory(name)
        try:
            available = bool(opt.available(exception_flag=False))
        except Exception:
            available = False
        if available and hasattr(opt, "license_is_valid"):
            try:
                available = bool(opt.license_is_valid())
            except Exception:
                available = False
    if not available:
        raise SolverNotAvailableError(f"Solver {name!r} is not installed or not usable here.{how}")
    return opt


def check_solver(solver: str = DEFAULT_SOLVER) -> str:
    """Return the Pyomo name that ``solver`` resolves to, or raise if it cannot run here.

    Raises
    ------
    SolverNotAvailableError
        With the package or binary to install.
    """
    name = _resolve_name(solver)
    _factory(name)
    return name


def available_solvers(candidates=("appsi_highs", "highs", "scip_direct", "cbc", "glpk",
                                  "gurobi", "cplex")) -> list[str]:
    """The names among ``candidates`` that can run on this machine."""
    found = []
    for name in candidates:
        try:
            check_solver(name)
        except SolverNotAvailableError:
            continue
        found.append(name)
    return found


def _objective_value(model) -> float | None:
    objectives = list(model.component_data_objects(pyo.Objective, active=True))
    if len(objectives) != 1:
        return None
    try:
        return float(pyo.value(objectives[0]))
    except (ValueError, TypeError):
        return None


def _is_minimize(model) -> bool:
    objectives = list(model.component_data_objects(pyo.Objective, active=True))
    return not objectives or objectives[0].sense == pyo.minimize


def _dual_suffix(model):
    suffix = model.component("dual")
    if isinstance(suffix, pyo.Suffix) and suffix.import_enabled():
        return suffix
    return None


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


_LEGACY_STATUS = {
    LegacyTC.optimal: Status.OPTIMAL,
    LegacyTC.globallyOptimal: Status.OPTIMAL,
    LegacyTC.locallyOptimal: Status.OPTIMAL,
    LegacyTC.maxTimeLimit: Status.TIME_LIMIT,
    LegacyTC.maxIterations: Status.ITERATION_LIMIT,
    LegacyTC.maxEvaluations: Status.ITERATION_LIMIT,
    LegacyTC.infeasible: Status.INFEASIBLE,
    LegacyTC.infeasibleOrUnbounded: Status.INFEASIBLE,
    LegacyTC.userInterrupt: Status.INTERRUPTED,
    LegacyTC.feasible: Status.FEASIBLE,
}


def _new_status(termination) -> Status:
    name = getattr(termination, "name", str(termination))
    return {
        "convergenceCriteriaSatisfied": Status.OPTIMAL,
        "maxTimeLimit": Status.TIME_LIMIT,
        "iterationLimit": Status.ITERATION_LIMIT,
        "objectiveLimit": Status.FEASIBLE,
        "minStepLength": Status.FEASIBLE,
        "provenInfeasible": Status.INFEASIBLE,
        "locallyInfeasible": Status.INFEASIBLE,
        "infeasibleOrUnbounded": Status.INFEASIBLE,
        "interrupted": Status.INTERRUPTED,
    }.get(name, Status.ERROR)


class PersistentSolver:
    """A solver bound to one model, for repeated solves after mutable Params change.

    With HiGHS (``appsi_highs`` or ``highs``) a re-solve pushes only the changed
    coefficients and warm-starts LPs from the previous basis. Other solvers rebuild on
    every call, which is correct but slower.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
    solver : str, default="appsi_highs"
    options : SolverOptions, optional
        Defaults for every :meth:`solve`; ``time_limit`` may be overridden per call.
    only_params_change : bool, default=True
        Promise that between solves only mutable Param values change (no new variables,
        constraints or bounds), which lets APPSI skip its structural checks.
    """

    def __init__(self, model, solver: str = DEFAULT_SOLVER, options: SolverOptions | None = None,
                 *, only_params_change: bool = True):
        self.model = model
        self.name = _resolve_name(solver)
        self.options = options or SolverOptions()
        self._opt = _factory(self.name)
        self._new_api = self.name in _NEW_API
        self._only_params_change = only_params_change
        self._n_solves = 0

    def solve(self, *, time_limit: float | None = None, require_solution: bool = True) -> SolveResult:
        """Solve the model as it is now; see :func:`solve` for the result and errors."""
        time_limit = check_time_limit(time_limit) if time_limit is not None else self.options.time_limit
        start = time.perf_counter()
        try:
            if self._new_api:
                result = self._solve_new(time_limit)
            else:
                result = self._solve_legacy(time_limit)
        except (SolverError, SolverNotAvailableError, InvalidParameterError):
            raise
        except Exception as exc:  # solver plugins raise bare RuntimeError/ValueError
            raise SolverError(f"Solver {self.name!r} failed: {exc}") from exc
        self._n_solves += 1
        result = SolveResult(result[0], result[1], result[2], time.perf_counter() - start,
                             self.name, result[3], result[4])
        if require_solution and not result.has_solution:
            raise SolverError(
                f"Solver {self.name!r} returned no solution (termination: {result.termination}, "
                f"status: {result.status}). "
                + ("Raise the time limit." if result.status is Status.TIME_LIMIT else
                   "The model is infeasible." if result.status is Status.INFEASIBLE else "")
            )
        return result

    # -- classic SolverFactory interfaces (appsi_highs, cbc, glpk, gurobi, cplex, ...)
    def _solve_legacy(self, time_limit):
        opts, kwargs = dict(self.options.extra), {}
        model = self.model
        if self.name.startswith("appsi_"):
            if self.options.mip_gap is not None:
                opts["mip_rel_gap"] = self.options.mip_gap
            if self.options.threads is not None:
                opts["threads"] = self.options.threads
            # APPSI overwrites config.time_limit inside solve(): it must be passed as timelimit=.
            kwargs["timelimit"] = time_limit
            if self._n_solves and self._only_params_change:
                cfg = self._opt.update_config
                cfg.check_for_new_or_removed_constraints = False
                cfg.check_for_new_or_removed_vars = False
                cfg.check_for_new_or_removed_params = False
                cfg.check_for_new_objective = False
                cfg.update_constraints = False
                cfg.update_vars = False
                cfg.update_named_expressions = False
        else:
            names = _LEGACY_OPTION_NAMES.get(self.name, (None, None, None))
            for value, key in zip((time_limit, self.options.mip_gap, self.options.threads), names):
                if value is not None and key is not None:
                    opts[key] = value
        run = dict(tee=self.options.tee, load_solutions=False, **kwargs)
        if opts:
            run["options"] = opts
        results = self._opt.solve(model, **run)
        termination = results.solver.termination_condition
        status = _LEGACY_STATUS.get(termination, Status.ERROR)
        minimize = _is_minimize(model)
        lower, upper = _finite(results.problem.lower_bound), _finite(results.problem.upper_bound)
        incumbent, bound = (upper, lower) if minimize else (lower, upper)
        has_solution = status in (Status.OPTIMAL, Status.FEASIBLE) or (
            status in (Status.TIME_LIMIT, Status.ITERATION_LIMIT, Status.INTERRUPTED) and incumbent is not None
        )
        if self.name.startswith("appsi_"):
            if has_solution:
                self._opt.load_vars()
                suffix = _dual_suffix(model)
                if suffix is not None:
                    suffix.clear()
                    suffix.update(self._opt.get_duals())
        elif has_solution:
            if len(results.solution) == 0:
                has_solution = False
            else:
                model.solutions.load_from(results)
        objective = _objective_value(model) if has_solution else None
        if status is Status.OPTIMAL and bound is None:
            bound = objective
        return status, objective, bound, str(termination), has_solution

    # -- pyomo.contrib.solver interfaces (highs, scip_direct, ...)
    def _solve_new(self, time_limit):
        config = dict(tee=self.options.tee, raise_exception_on_nonoptimal_result=False,
                      load_solutions=False)
        if time_limit is not None:
            config["time_limit"] = time_limit
        if self.options.mip_gap is not None:
            config["rel_gap"] = self.options.mip_gap
        if self.options.threads is not None:
            config["threads"] = self.options.threads
        if self.options.extra:
            config["solver_options"] = dict(self.options.extra)
        results = self._opt.solve(self.model, **config)
        status = _new_status(results.termination_condition)
        solution_name = getattr(results.solution_status, "name", "")
        has_solution = solution_name in ("optimal", "feasible")
        if has_solution:
            results.solution_loader.load_vars()
            suffix = _dual_suffix(self.model)
            if suffix is not None:
                suffix.clear()
                suffix.update(results.solution_loader.get_duals())
            if status is Status.ERROR:
                status = Status.FEASIBLE
        objective = _objective_value(self.model) if has_solution else None
        bound = _finite(results.objective_bound)
        if status is Status.OPTIMAL and bound is None:
            bound = objective
        return (status, objective, bound, getattr(results.termination_condition, "name", str(results.termination_condition)),
                has_solution)


def solve(model, solver: str = DEFAULT_SOLVER, *, time_limit: float | None = None,
          mip_gap: float | None = None, threads: int | None = None, tee: bool = False,
          options: dict | None = None, require_solution: bool = True) -> SolveResult:
    """Solve a Pyomo model once and load its solution.

    If the model has an import ``Suffix`` named ``dual`` (only allowed on LPs), the row
    duals are loaded into it: ``d(objective)/d(rhs)``, so in a minimisation a binding
    ``<=`` row has a dual ``<= 0``.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
    solver : str, default="appsi_highs"
        A Pyomo solver name (see the module docstring).
    time_limit : float, optional
        Seconds. A MIP stopped by it returns its incumbent with ``Status.TIME_LIMIT``.
    mip_gap : float, optional
        Relative MIP gap.
    threads : int, optional
    tee : bool, default=False
        Show the solver log.
    options : dict, optional
        Solver-specific options passed through unchanged.
    require_solution : bool, default=True
        Raise :class:`~ccopt.exceptions.SolverError` when no solution could be loaded
        (infeasible model, time limit before any incumbent).

    Returns
    -------
    SolveResult

    Raises
    ------
    SolverNotAvailableError
        Unknown or uninstalled solver; the message says what to install.
    SolverError
        The solver failed, or returned no solution and ``require_solution`` is True.
    """
    opts = SolverOptions(time_limit=time_limit, mip_gap=mip_gap, threads=threads, tee=tee,
                         extra=dict(options or {}))
    return PersistentSolver(model, solver, opts).solve(require_solution=require_solution)
