"""The one place that turns a solver name and options into a solve.

Every Pyomo solve in ccopt goes through :func:`solve` (one-off) or :class:`PersistentSolver`
(re-solves after mutable parameters change); programs already in matrix form go through
:class:`HighsMatrixSolver`. This module alone knows solver names, how each solver takes
``time_limit``, ``mip_gap`` and ``threads``, how to read the best bound, and what to
install when a solver is missing.

Solver names are Pyomo's, plus one of ccopt's own (``highs_matrix``):

===================  ===========================================  ==============================
name                 interface                                    install
===================  ===========================================  ==============================
``appsi_highs``      APPSI HiGHS, persistent (default)            ``pip install highspy``
``highs``            ``pyomo.contrib.solver`` HiGHS, persistent   ``pip install highspy``
``highs_matrix``     the model compiled to sparse matrices and    ``pip install highspy``
                     passed to highspy in one call (linear
                     models only; the fast hand-off for large
                     LPs, see below; the default of the
                     re-solve loops, DEFAULT_RESOLVE_SOLVER)
``scip_direct``      ``pyomo.contrib.solver`` SCIP (also MINLP)   ``pip install pyscipopt``
``scip_persistent``  persistent SCIP                              ``pip install pyscipopt``
``scip``             alias of ``scip_direct`` when no ``scip``    ``pip install pyscipopt``
                     executable is on the PATH
``cbc``              CBC executable                               ``apt-get install coinor-cbc``
``glpk``             GLPK executable                              ``apt-get install glpk-utils``
``gurobi``, ...      whatever Pyomo offers when installed         the vendor's package/licence
===================  ===========================================  ==============================

Hand-off cost. APPSI hands a model to HiGHS row by row (tens of microseconds per row);
``highs_matrix`` walks each row once into CSC matrices (a fast path for linear sums of
variables, Pyomo's ``LinearRepnVisitor`` for anything else) and passes them in one call:
end to end about 4x faster than APPSI on the k-medoids LPs of ``benchmarks/bench_models.py``.
It takes one row per constraint (ranged rows keep both bounds) and loads duals
``d(objective)/d(rhs)`` like the other interfaces. Its persistent re-solve updates the
costs and the row bounds in place when the mutable Params sit only there (the Lagrangian
models of :mod:`ccopt.models.lagrangian`; BH-kmeans' program P, row (3)'s right-hand sides
included), reading the costs from an image of the objective kept at compile time
(:mod:`ccopt._objective_image`); a Param in a row's coefficients, in a variable bound or in
a row without variables makes it recompile the whole model. A MIP with at least half its columns fixed by their bounds (BH-kmeans with
``n_candidates``) goes to HiGHS without them and without the rows they settle
(:mod:`ccopt._reduction`): HiGHS's presolve would take seconds to find that on a large matrix.

A time-limited MIP returns its incumbent with status ``Status.TIME_LIMIT``, not an
exception; a solve without any solution raises :class:`~ccopt.exceptions.SolverError`
unless ``require_solution=False``. Options set on a persistent HiGHS object stick across
solves, so every solve sets the time limit and MIP gap again (HiGHS's defaults when not
given).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import logging
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from pyomo.common.gc_manager import PauseGC
from pyomo.common.tee import capture_output
from pyomo.contrib.solver.common.factory import SolverFactory as NewSolverFactory
from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression, SumExpression
from pyomo.core.expr.visitor import identify_mutable_parameters
from pyomo.opt import SolverStatus
from pyomo.opt import TerminationCondition as LegacyTC

from ccopt._objective_image import NATIVE_NUMBERS as _NATIVE_NUMBERS
from ccopt._objective_image import VAR_TYPES as _VAR_TYPES
from ccopt._objective_image import ObjectiveImage
from ccopt._reduction import Reduction, reduce_fixed
from ccopt._validation import check_nonnegative, check_positive_int, check_time_limit
from ccopt.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    SolverError,
    SolverNotAvailableError,
)
from ccopt.status import Status

__all__ = [
    "DEFAULT_RESOLVE_SOLVER",
    "DEFAULT_SOLVER",
    "MATRIX_SOLVER",
    "HighsMatrixSolver",
    "PersistentSolver",
    "SolveResult",
    "SolverOptions",
    "available_solvers",
    "check_solver",
    "check_solver_options",
    "solve",
]

DEFAULT_SOLVER = "appsi_highs"
#: ccopt's own interface: a linear model handed to highspy as matrices.
MATRIX_SOLVER = "highs_matrix"
#: Default of ccopt's loops that re-solve one linear model with new Params many times (the
#: impact score's LP routes, BH-kmeans' program P): the same HiGHS, with costs and right-hand
#: sides changed in place. Measured: Lagrangian re-solve 0.155 s against APPSI's 0.86 s
#: (n = 150); BH-kmeans the same labels as ``appsi_highs`` on 28 table runs, 1.2-3x faster on
#: the small ones, Letter with ``n_candidates=5`` 31 s against 249 s (BENCHMARKS.md).
DEFAULT_RESOLVE_SOLVER = MATRIX_SOLVER
# Tuples of variables whose column positions a compiled model keeps (values()).
_POSITION_CACHE = 8
# bounds_changed() without a list: every variable may have new bounds.
_EVERY_VARIABLE = object()

# Interfaces of pyomo.contrib.solver (new API); everything else is a classic SolverFactory name.
_NEW_API = {"highs", "scip_direct", "scip_persistent", "gurobi_direct", "gurobi_persistent",
            "gurobi_direct_minlp", "ipopt", "knitro_direct"}
_HIGHS_NAMES = {"appsi_highs", "highs"}
_PYOMO_HIGHS_LOGGERS = ("pyomo.contrib.appsi.solvers.highs", "pyomo.contrib.solver.solvers.highs")
_INSTALL_HINTS = {
    "appsi_highs": "pip install highspy",
    "highs": "pip install highspy",
    MATRIX_SOLVER: "pip install highspy",
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
    "cplex_persistent": "pip install cplex, plus a licence",
    "appsi_gurobi": "pip install gurobipy, plus a Gurobi licence",
    "appsi_cplex": "pip install cplex, plus a licence",
    "xpress": "pip install xpress, plus a FICO Xpress licence",
    "xpress_direct": "pip install xpress, plus a FICO Xpress licence",
    "xpress_persistent": "pip install xpress, plus a FICO Xpress licence",
    "mosek": "pip install mosek, plus a MOSEK licence",
    "mosek_direct": "pip install mosek, plus a MOSEK licence",
    "mosek_persistent": "pip install mosek, plus a MOSEK licence",
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
# glpsol takes --tmlim in whole seconds and rejects "0.2".
_WHOLE_SECONDS = {"glpk"}
# CBC's -sec counts CPU seconds by default: given 6 s, its runs returned after 4.8-11.5 s of
# wall time (1-2 threads, a loaded machine; 6.1 s on the wall clock). APPSI's CBC asks for it.
_WALL_CLOCK_OPTION = {"cbc": ("timeMode", "elapsed")}
# Solvers that report a run stopped at the MIP gap as merely feasible, with the options of
# theirs that could have stopped it early otherwise.
_GAP_STOP_REPORTED_FEASIBLE = {"glpk": {"tmlim", "memlim"}}
# CBC says only that "a limit was hit" when its time limit stops a MIP without an incumbent
# (intermediateNonInteger) or an LP (maxIterations). With a time limit and none of CBC's other
# limits (options starting "max": maxNodes, maxSolutions, maxIterations) set, it was the time.
_LIMIT_HIT_TERMINATIONS = {"cbc": {LegacyTC.intermediateNonInteger, LegacyTC.maxIterations}}
# APPSI interfaces that hand the model over as an LP file: their writer drops a nonlinear
# objective without a word (CBC then "solves" another model), so ccopt checks linearity first.
_LP_FILE_APPSI = {"appsi_cbc"}


def _time_limit(time_limit) -> float | None:
    """A checked time limit; ``inf`` means no limit (glpsol and SCIP reject an infinite one)."""
    time_limit = check_time_limit(time_limit)
    return None if time_limit is None or math.isinf(time_limit) else time_limit


@dataclass(frozen=True)
class SolverOptions:
    """Options every solve understands.

    Parameters
    ----------
    time_limit : float, optional
        Seconds. A MIP that hits it returns its incumbent with status ``time_limit``.
        ``inf`` means no limit (stored as None). It bounds the solver's run: on
        ``highs_matrix`` the compilation of a Pyomo model counts against it too, while
        Pyomo's interfaces (``appsi_highs``, ``highs``, ``cbc``, ``glpk``, ``scip_direct``,
        ...) hand the model over first, which adds its own time (about 1-2 s for a
        k-medoids program on 80-150 objects).
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
        object.__setattr__(self, "time_limit", _time_limit(self.time_limit))
        if self.mip_gap is not None:
            object.__setattr__(self, "mip_gap", check_nonnegative(self.mip_gap, "mip_gap"))
        if self.threads is not None:
            object.__setattr__(self, "threads", check_positive_int(self.threads, "threads"))
        if not isinstance(self.extra, dict):
            raise InvalidParameterError(f"extra solver options must be a dict, got {self.extra!r}.")
        if not isinstance(self.tee, (bool, np.bool_)):
            raise InvalidParameterError(f"tee must be True or False, got {self.tee!r}.")

    @property
    def requested_threads(self) -> int | None:
        """The thread count a solve asks for, as ``threads`` or as the solver option ``"threads"``."""
        return self.threads if self.threads is not None else self.extra.get("threads")


@dataclass(frozen=True)
class SolveResult:
    """The outcome of one solve.

    Attributes
    ----------
    status : Status
        ``optimal``, ``time_limit``, ``iteration_limit``, ``interrupted``, ``infeasible``,
        ``feasible`` or ``error``.
    objective : float or None
        Objective of the loaded solution (None when no solution was found).
    bound : float or None
        Best proven bound (for minimisation a lower bound); for an optimal LP equal to the
        objective, for an LP stopped early (time or iteration limit) None.
    wall_time : float
        Seconds spent in the call, hand-off included.
    solver : str
        The solver name used.
    termination : str
        The solver's own termination condition.
    has_solution : bool
        Whether variable values were loaded.
    timing : dict of str to float
        Seconds per step where the route measures them (``highs_matrix``: ``"compile"``
        (Pyomo to matrices, or ``"update"`` on a persistent re-solve), ``"pass"`` (into
        HiGHS), ``"solve"`` (HiGHS), ``"load"`` (values and duals back into the model));
        empty for the other solvers.
    """

    status: Status
    objective: float | None
    bound: float | None
    wall_time: float
    solver: str
    termination: str
    has_solution: bool
    timing: dict = field(default_factory=dict, compare=False)

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


def _highspy():
    """Import highspy or say how to install it."""
    try:
        import highspy
    except ImportError as exc:
        raise SolverNotAvailableError(
            f"Solver {MATRIX_SOLVER!r} needs the highspy package. Install it with: pip install highspy."
        ) from exc
    return highspy


def _highs_instance(output: bool = False):
    """A ``highspy.Highs`` object whose ``output_flag`` is ``output``.

    highspy 1.16 prints HiGHS's banner on standard output from inside the constructor, before
    any option can be set, which corrupted output redirected from ``ccopt score -q``. Without
    output the constructor runs with file descriptor 1 captured (as Pyomo's HiGHS interface
    does), so a quiet solve prints nothing at all. The capture redirects the process's
    descriptor 1, so two threads must not do it at once.
    """
    highspy = _highspy()
    if output:
        return highspy.Highs()
    with _banner_capture_lock, capture_output(capture_fd=True):
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


_banner_capture_lock = threading.Lock()


@contextlib.contextmanager
def _ctrl_c_stops(find_highs, quiet_loggers=()):
    """Turn Ctrl-C during a HiGHS run into a clean HiGHS stop, then a KeyboardInterrupt.

    Python raises KeyboardInterrupt inside whichever highspy callback runs next; HiGHS takes
    that for a failed callback and ends the run as ``kSolveError``, and the interrupt is
    lost, so a user's Ctrl-C surfaced as a solver error. Instead the handler asks HiGHS to
    stop (``cancelSolve``: the run ends as ``kInterrupt``) and the interrupt is raised once
    the run has returned, also when the code around the run (Pyomo's) then fails on the
    stopped run. ``find_highs()`` gives the HiGHS object at the moment of the Ctrl-C: Pyomo's
    interfaces make theirs inside their solve, and before there is one the interrupt is
    raised at once (Python code is running). Only Python's default handler is replaced, and
    only from the main thread (the one signals reach); elsewhere nothing changes. The loggers
    of ``quiet_loggers`` drop their warning about the stopped run ("unhandled status
    kInterrupt"): the KeyboardInterrupt says what happened.
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    stopped = []

    def cancel(signum, frame):
        h = find_highs()
        if h is None:
            raise KeyboardInterrupt
        stopped.append(h)
        h.cancelSolve()

    def not_the_stop(record: logging.LogRecord) -> bool:
        return not (stopped and "kInterrupt" in record.getMessage())

    loggers = [logging.getLogger(name) for name in quiet_loggers]
    for logger in loggers:
        logger.addFilter(not_the_stop)
    signal.signal(signal.SIGINT, cancel)
    try:
        yield
    except Exception:
        if not stopped:
            raise
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for logger in loggers:
            logger.removeFilter(not_the_stop)
    if stopped:
        for h in {id(h): h for h in stopped}.values():
            _clear_stop_request(h)
        raise KeyboardInterrupt


def _clear_stop_request(h) -> None:
    """Let a HiGHS object stopped by ``cancelSolve`` run again.

    Both sides keep the request: highspy until its own threaded solve starts, HiGHS until its
    callbacks are set anew; without this every later run of the object stopped at once
    (``kInterrupt``).
    """
    if getattr(h, "_Highs__solver_should_stop", None) is True:
        h._Highs__solver_should_stop = False
    h.disableCallbacks()
    h.enableCallbacks()


# The thread count ccopt last gave HiGHS's process-wide scheduler (None: not sized by ccopt).
_scheduler_threads: int | None = None
_scheduler_lock = threading.Lock()


def _size_highs_scheduler(threads, *, force: bool = False) -> None:
    """Let the next HiGHS run use ``threads`` threads (``None``: whatever the scheduler has).

    HiGHS runs every solve of a process on one global thread scheduler, created by the first
    run. A later run whose ``threads`` option asks for another size stops at once with an
    error ("the scheduler has already been initialized") and no solution. The size a run
    without the option creates is HiGHS's choice and changed between releases: highspy
    1.15 created one thread on a 2-core machine, 1.16 creates two. So after any default run,
    an exact solve asking for one thread failed. Before a run that sets ``threads``, the
    scheduler is therefore rebuilt, unless ccopt last built it with that size itself. The lock
    keeps two threads of one process from rebuilding it at once.
    """
    global _scheduler_threads
    if threads is None:
        return
    threads = int(threads)
    with _scheduler_lock:
        if _scheduler_threads == threads and not force:
            return
        reset = getattr(_highspy().Highs, "resetGlobalScheduler", None)
        if reset is not None:
            reset(True)
        _scheduler_threads = threads


@functools.cache
def _highs_defaults() -> dict:
    """HiGHS's own defaults of the options a solve may have changed on a persistent object."""
    h = _highs_instance()
    return {key: h.getOptionValue(key)[1] for key in ("time_limit", "mip_rel_gap")}


def _check_highs_options(extra: dict) -> None:
    """Raise if HiGHS would refuse one of ``extra``'s options.

    HiGHS answers an unknown name or a value of the wrong type or range with an error status
    that every route (Pyomo's HiGHS interfaces, highspy) ignores, so a misspelt option, e.g.
    ``time_limt``, was silently dropped. Tried on a scratch instance, which prints nothing.
    """
    if not extra:
        return
    highspy = _highspy()
    scratch = _highs_instance()
    for key, value in extra.items():
        try:
            status = scratch.setOptionValue(key, value)
        except (TypeError, ValueError, RuntimeError):
            status = highspy.HighsStatus.kError
        if status == highspy.HighsStatus.kError:
            raise InvalidParameterError(
                f"HiGHS rejects the option {key!r} = {value!r}: unknown name, or a value of the wrong "
                "type or range. See https://ergo-code.github.io/HiGHS/stable/options/definitions/."
            )


def check_solver_options(solver: str, options: dict | None) -> None:
    """Raise :class:`InvalidParameterError` if ``solver``, a HiGHS route, would refuse one of
    ``options`` (other solvers are not asked: their interfaces give no such check).

    For callers that may finish without building a solver (BH-kmeans solves small programs
    by enumeration), so that a misspelt option is reported whatever the instance.

    Parameters
    ----------
    solver : str
        A solver name (see the module docstring), resolved as :func:`check_solver` does
        (``"scip"`` may become ``"scip_direct"``). Only ``appsi_highs``, ``highs`` and
        ``highs_matrix`` have their options checked; the solver's availability is not.
    options : dict or None
        Solver-specific options, as ``SolverOptions.extra`` or the ``options`` of
        :func:`solve`. ``None`` or an empty dict checks nothing.

    Raises
    ------
    InvalidParameterError
        If ``solver`` is not a non-empty string, or HiGHS refuses an option of ``options``
        (unknown name, or a value of the wrong type or range).
    SolverNotAvailableError
        If ``options`` is non-empty for a HiGHS route and highspy is not installed.
    """
    name = _resolve_name(solver)
    if options and (name in _HIGHS_NAMES or name == MATRIX_SOLVER):
        _check_highs_options(dict(options))


def _lp_time_limit(h, time_limit: float | None, is_mip: bool) -> float | None:
    """The ``time_limit`` option that gives HiGHS instance ``h`` ``time_limit`` more seconds.

    HiGHS's LP solvers compare the limit with the instance's run clock, which keeps counting
    across runs (``getRunTime``; highspy 1.15 cannot reset it), so an LP re-solved with the
    time left of a budget stopped at once, as time-limited, when the earlier runs had taken
    more than that (measured: a warm re-solve after a 0.97 s solve, limit 0.77 s, stopped
    after 0.004 s). Its MIP solver measures its own run, so a MIP's limit is left alone.
    """
    if time_limit is None or is_mip or h is None:
        return time_limit
    return time_limit + float(h.getRunTime())


def _factory(name: str):
    """Create the Pyomo solver object, or raise SolverNotAvailableError saying what to install."""
    hint = _INSTALL_HINTS.get(name)
    how = f" Install it with: {hint}." if hint else ""
    if name == MATRIX_SOLVER:
        return _highspy()
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
    """Return the name that ``solver`` resolves to, or raise if it cannot run here.

    Parameters
    ----------
    solver : str, default="appsi_highs"
        A solver name (see the module docstring).

    Returns
    -------
    str
        The name used for the solve: ``solver`` itself, except ``"scip"``, which resolves
        to ``"scip_direct"`` when no ``scip`` executable is on the PATH.

    Raises
    ------
    InvalidParameterError
        If ``solver`` is not a non-empty string.
    SolverNotAvailableError
        If Pyomo knows no solver of that name (the message lists common names), or the
        solver is not installed or not usable here (the message says what to install).
    """
    name = _resolve_name(solver)
    _factory(name)
    return name


def available_solvers(candidates=("appsi_highs", "highs", MATRIX_SOLVER, "scip_direct", "cbc", "glpk",
                                  "gurobi", "cplex")) -> list[str]:
    """The names among ``candidates`` that can run on this machine.

    Parameters
    ----------
    candidates : iterable of str, optional
        Solver names to try with :func:`check_solver`; default ``("appsi_highs", "highs",
        "highs_matrix", "scip_direct", "cbc", "glpk", "gurobi", "cplex")``. A name that is
        unknown or not installed is left out.

    Returns
    -------
    list of str
        The usable candidates as given (not resolved: ``"scip"`` stays ``"scip"``), in
        their order.

    Raises
    ------
    InvalidParameterError
        If a candidate is not a non-empty string.
    """
    found = []
    for name in candidates:
        try:
            check_solver(name)
        except SolverNotAvailableError:
            continue
        found.append(name)
    return found


def _check_linear(model, name: str, objective_degree: int = 1) -> None:
    """Raise :class:`SolverError` if a row of ``model`` is nonlinear, or its objective of a
    degree above ``objective_degree`` (2 for HiGHS, which solves QPs)."""
    parts = itertools.chain(
        ((f"Objective {o.name}", o.expr, objective_degree)
         for o in model.component_data_objects(pyo.Objective, active=True, descend_into=True)),
        ((f"Constraint {c.name}", c.body, 1)
         for c in model.component_data_objects(pyo.Constraint, active=True, descend_into=True)))
    for what, expr, allowed in parts:
        degree = expr.polynomial_degree()
        if degree is None or degree > allowed:
            raise SolverError(f"{what} is nonlinear; {name!r} takes linear models only (use 'scip_direct').")


def _active_objective(model):
    objectives = list(model.component_data_objects(pyo.Objective, active=True))
    return objectives[0] if len(objectives) == 1 else None


def _objective_value(model) -> float | None:
    objective = _active_objective(model)
    if objective is None:
        return None
    try:
        return float(pyo.value(objective))
    except (ValueError, TypeError):
        return None


def _is_minimize(model) -> bool:
    objective = _active_objective(model)
    return objective is None or objective.sense == pyo.minimize


def _dual_suffix(model):
    suffix = model.component("dual")
    if isinstance(suffix, pyo.Suffix) and suffix.import_enabled():
        return suffix
    return None


_MIP_DUALS_MESSAGE = ("The model has a 'dual' Suffix and integer variables: duals exist only for LPs "
                      "(relax the model first).")


def _forget_solution(model) -> None:
    """Clear the values and duals an earlier solve left in ``model``.

    After a solve without a solution they would still be there, and the readers (labels,
    duals) would return the earlier solve's answer as this one's. Fixed variables are data
    and keep their values.
    """
    for var in model.component_data_objects(pyo.Var, active=True, descend_into=True):
        if not var.fixed:
            var.set_value(None, skip_validation=True)
    suffix = _dual_suffix(model)
    if suffix is not None:
        suffix.clear()


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

_NEW_STATUS = {
    "convergenceCriteriaSatisfied": Status.OPTIMAL,
    "maxTimeLimit": Status.TIME_LIMIT,
    "iterationLimit": Status.ITERATION_LIMIT,
    "objectiveLimit": Status.FEASIBLE,
    "minStepLength": Status.FEASIBLE,
    "provenInfeasible": Status.INFEASIBLE,
    "locallyInfeasible": Status.INFEASIBLE,
    "infeasibleOrUnbounded": Status.INFEASIBLE,
    "interrupted": Status.INTERRUPTED,
}

_HIGHS_STATUS = {
    "kOptimal": Status.OPTIMAL,
    "kTimeLimit": Status.TIME_LIMIT,
    "kIterationLimit": Status.ITERATION_LIMIT,
    "kInfeasible": Status.INFEASIBLE,
    "kUnboundedOrInfeasible": Status.INFEASIBLE,
    "kInterrupt": Status.INTERRUPTED,
    "kHighsInterrupt": Status.INTERRUPTED,
    "kSolutionLimit": Status.FEASIBLE,
    "kObjectiveBound": Status.FEASIBLE,
    "kObjectiveTarget": Status.FEASIBLE,
}
_HIGHS_PRIMAL_FEASIBLE = 2  # HiGHS's kSolutionStatusFeasible
# A MIP with at least this share of its columns fixed by their bounds is solved without them
# (ccopt._reduction): HiGHS's own presolve takes seconds to remove them from a large matrix.
_REDUCE_FIXED_SHARE = 0.5
# A MIP run in a child process (HighsMatrixSolver's isolate_from) that has not returned this
# long after its time limit is stopped. Waiting longer buys little: the child has reported
# every improving solution, which is what HiGHS returns on its own limit (only the dual bound
# is lost); HiGHS overran a 9.8-s limit by 2.3 s in presolve and the root LP at 100,000 objects.
_CHILD_GRACE_SECONDS = 1.0
_CHILD_GRACE_SHARE = 0.02
_CHILD_GRACE_MAX = 3.0
# Run by path, so that the child does not import the ccopt package (see the file).
_HIGHS_CHILD = str(Path(__file__).with_name("_highs_child.py"))


def _require(result: SolveResult, require_solution: bool) -> SolveResult:
    if require_solution and not result.has_solution:
        hint = {Status.TIME_LIMIT: " Raise the time limit.",
                Status.INFEASIBLE: " The model is infeasible."}.get(result.status, "")
        termination = result.termination.lower()
        if termination in ("kunbounded", "unbounded"):
            hint = " The model is unbounded."
        elif "unbounded" in termination:  # HiGHS's presolve may not tell which: "infeasible" says too much
            hint = " The model is infeasible or unbounded."
        elif termination == "other":  # Pyomo could not read a reason from the solver's output
            hint = (" The solver's reason did not reach Pyomo (GLPK ends an infeasible LP so); run "
                    "with tee=True to see its log.")
        raise SolverError(
            f"Solver {result.solver!r} returned no solution (termination: {result.termination}, "
            f"status: {result.status}).{hint}"
        )
    return result


def _refuse_unknown_cbc_options(log: str | None, given: dict) -> None:
    """Raise when CBC's log says it ignored an option ("No match for ..."), as HiGHS refuses one.

    CBC goes on without it, so a HiGHS option name (``mip_rel_gap``) meant no gap at all.
    """
    # CBC then reads the option's value as a command too: only the names given count.
    refused = set(re.findall(r"^No match for (\S+)", log or "", flags=re.MULTILINE))
    unknown = [name for name in given if name in refused]
    if unknown:
        raise InvalidParameterError(
            f"CBC does not know the option(s) {', '.join(map(repr, unknown))} (options given: "
            f"{given}) and solved without them. CBC's own names: ratioGap (or ratio) for the "
            "relative MIP gap, seconds (or sec) for the time limit, threads; `cbc -?` lists them. "
            "SolverOptions' mip_gap, time_limit and threads are translated for every solver.")


def _check_finite_entries(matrix, name: str) -> None:
    """Refuse NaN or infinite coefficients: HiGHS dropped a NaN in silence and solved another program."""
    bad = np.flatnonzero(~np.isfinite(matrix.data))
    if bad.size:
        outer = int(np.searchsorted(matrix.indptr, bad[0], side="right") - 1)
        inner = int(matrix.indices[bad[0]])
        row, col = (inner, outer) if matrix.format == "csc" else (outer, inner)
        raise InvalidDataError(f"{name} holds {bad.size} non-finite coefficient(s), the first "
                               f"{matrix.data[bad[0]]} in row {row}, column {col}.")


def _check_given_once(name: str, options: SolverOptions) -> None:
    """Refuse a limit given both as a parameter and, with another value, as the solver's option.

    The option won: ``time_limit=1`` with ``extra={"time_limit": 4}`` ran for 4 s. HiGHS's
    time limit is refused as an option altogether: ccopt sets it on every solve.
    """
    highs = name in _HIGHS_NAMES or name == MATRIX_SOLVER
    keys = ("time_limit", "mip_rel_gap", "threads") if highs else _LEGACY_OPTION_NAMES.get(name, (None,) * 3)
    if highs and "time_limit" in options.extra:
        # ccopt sets HiGHS's limit on every solve (a per-solve limit, an LP's clock), and the
        # option overwrote it: solve(time_limit=0.5) ran for the option's 4 s.
        raise InvalidParameterError(
            f"Give the time limit as time_limit=, not as the {name} option 'time_limit': ccopt sets "
            "HiGHS's limit on every solve itself."
        )
    given = {"time_limit": options.time_limit, "mip_gap": options.mip_gap, "threads": options.threads}
    for (label, value), key in zip(given.items(), keys, strict=True):
        if value is not None and key is not None and key in options.extra and options.extra[key] != value:
            raise InvalidParameterError(
                f"{label}={value} and the {name} option {key!r}={options.extra[key]!r} disagree; give it once."
            )


def _check_bound_directions(lower: np.ndarray, upper: np.ndarray, kind: str, positions: np.ndarray) -> None:
    """Refuse a lower bound of +inf or an upper bound of -inf: no value satisfies it."""
    bad = np.flatnonzero(np.isposinf(lower) | np.isneginf(upper))
    if bad.size:
        raise InvalidDataError(f"a {kind} lower bound of +inf or upper bound of -inf leaves no value "
                               f"({kind} {int(positions[bad[0]])}).")


def _options_type_message(options) -> str:
    return (f"options must be a SolverOptions, e.g. SolverOptions(time_limit=10, extra={{...}}), "
            f"got {type(options).__name__}.")


class HighsMatrixSolver:
    """A linear or mixed-integer program in matrix form, solved by highspy, re-solvable.

    .. math::

        \\min\\ (\\text{or } \\max)\\ c^\\top x + c_0 \\quad \\text{s.t.}\\quad
        r^{lo} \\le A x \\le r^{up},\\ \\ l \\le x \\le u,\\ \\ x_j \\in \\mathbb{Z}
        \\text{ where integrality}_j

    The program is passed to HiGHS once (one ``passModel`` call); :meth:`set_costs`,
    :meth:`set_row_bounds` and :meth:`set_col_bounds` change it in place, and an LP re-solve
    warm-starts from the previous basis.

    Parameters
    ----------
    cost : array-like of float, shape (n_cols,)
    A : scipy.sparse matrix or array-like, shape (n_rows, n_cols)
    row_lower, row_upper : array-like of float, shape (n_rows,)
        ``-inf``/``inf`` for a missing side.
    col_lower, col_upper : array-like of float, shape (n_cols,)
    integrality : array-like of bool, shape (n_cols,), optional
        Integer columns; default none (an LP).
    offset : float, default=0.0
        Constant added to the objective.
    maximize : bool, default=False
    options : SolverOptions, optional
        ``time_limit`` and ``mip_gap`` apply to every :meth:`solve` (``time_limit`` may be
        overridden per call); ``threads`` is set once; ``extra`` holds HiGHS option names.
    name : str, default="highs_matrix"
        Reported as :attr:`SolveResult.solver`.
    isolate_from : int or None, default=None
        A MIP solve with a time limit and at least this many integer columns left free by
        their bounds (after the fixed-column reduction) runs in a child process, stopped
        when it has not returned shortly after its limit (its best solution so far is kept).
        HiGHS 1.16 does not check its time limit inside the central-rounding heuristic of
        the root node, which ran for 300 s on a MIP of 123,000 binaries (BH-kmeans' program
        P at 100,000 objects) whose limit was 60 s; only a process can be stopped there.
        The child costs a few tenths of a second per solve. None: never.

    Raises
    ------
    InvalidDataError
        If the shapes disagree or a bound or cost is NaN.
    InvalidParameterError
        If HiGHS refuses an option of ``options.extra`` (unknown name, wrong type or range).
    SolverNotAvailableError
        If highspy is not installed.
    """

    def __init__(self, cost, A, row_lower, row_upper, col_lower, col_upper, *, integrality=None,
                 offset: float = 0.0, maximize: bool = False, options: SolverOptions | None = None,
                 name: str = MATRIX_SOLVER, isolate_from: int | None = None):
        _highspy()  # raises SolverNotAvailableError first
        if options is not None and not isinstance(options, SolverOptions):
            raise InvalidParameterError(_options_type_message(options))
        matrix = sp.csc_array(A, dtype=np.float64)
        matrix.sort_indices()
        _check_finite_entries(matrix, "A")
        n_rows, n_cols = matrix.shape
        cost = self._vector(cost, n_cols, "cost")
        row_lower = self._vector(row_lower, n_rows, "row_lower")
        row_upper = self._vector(row_upper, n_rows, "row_upper")
        col_lower = self._vector(col_lower, n_cols, "col_lower")
        col_upper = self._vector(col_upper, n_cols, "col_upper")
        # HiGHS said only "passModel failed".
        _check_bound_directions(row_lower, row_upper, "row", np.arange(n_rows))
        _check_bound_directions(col_lower, col_upper, "column", np.arange(n_cols))
        integer = (np.zeros(n_cols, dtype=bool) if integrality is None
                   else np.asarray(integrality, dtype=bool).reshape(-1))
        if integer.shape[0] != n_cols:
            raise InvalidDataError(f"integrality must have {n_cols} entries, got {integer.shape[0]}.")
        self.options = options or SolverOptions()
        _check_highs_options(self.options.extra)
        _check_given_once(MATRIX_SOLVER, self.options)
        self.name = name
        self.isolate_from = None if isolate_from is None else check_positive_int(isolate_from, "isolate_from")
        self.n_rows, self.n_cols = n_rows, n_cols
        self.is_mip = bool(integer.any())
        self._maximize = bool(maximize)
        # The program as numpy arrays as well: a MIP with many fixed columns is reduced from
        # them before each solve (_reduction).
        self._A, self._cost, self._offset = matrix, cost, float(offset)
        self._row_lower, self._row_upper = row_lower, row_upper
        self._col_lower, self._col_upper = col_lower, col_upper
        self._integer = integer
        self._h = self._new_highs()
        started = time.perf_counter()
        status = self._h.passModel(self._highs_lp(matrix, cost, offset, row_lower, row_upper,
                                                  col_lower, col_upper, integer))
        self.pass_time = time.perf_counter() - started
        if status == _highspy().HighsStatus.kError:
            raise SolverError("HiGHS rejected the model passed as matrices (passModel failed).")
        self._indices = np.arange(n_cols, dtype=np.int32)
        self._solution: dict | None = None
        self._start: np.ndarray | None = None

    def _new_highs(self):
        h = _highs_instance(output=bool(self.options.tee))
        if self.options.threads is not None:
            h.setOptionValue("threads", int(self.options.threads))
        h.HandleKeyboardInterrupt = True
        return h

    def _highs_lp(self, matrix, cost, offset, row_lower, row_upper, col_lower, col_upper, integer):
        highspy = _highspy()
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = matrix.shape[1], matrix.shape[0]
        lp.col_cost_, lp.offset_ = cost, float(offset)
        lp.col_lower_, lp.col_upper_ = col_lower, col_upper
        lp.row_lower_, lp.row_upper_ = row_lower, row_upper
        lp.sense_ = highspy.ObjSense.kMaximize if self._maximize else highspy.ObjSense.kMinimize
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = matrix.indptr.astype(np.int32)
        lp.a_matrix_.index_ = matrix.indices.astype(np.int32)
        lp.a_matrix_.value_ = matrix.data
        if integer.any():
            lp.integrality_ = [highspy.HighsVarType.kInteger if flag else highspy.HighsVarType.kContinuous
                               for flag in integer]
        return lp

    @staticmethod
    def _vector(values, size: int, name: str) -> np.ndarray:
        # A copy: the solver keeps these arrays and changes them in place (set_*_bounds).
        arr = np.array(values, dtype=np.float64).reshape(-1)
        if arr.shape[0] != size:
            raise InvalidDataError(f"{name} must have {size} entries, got {arr.shape[0]}.")
        if np.isnan(arr).any():
            raise InvalidDataError(f"{name} contains NaN at position {int(np.flatnonzero(np.isnan(arr))[0])}.")
        return arr

    def set_costs(self, cost, offset: float | None = None) -> None:
        """Replace the whole cost vector (one ``changeColsCost`` call) and optionally the offset.

        The last solution is dropped (:attr:`col_value` and the other readers raise until
        the next :meth:`solve`).

        Parameters
        ----------
        cost : array-like of float, shape (n_cols,)
            The new cost of every column.
        offset : float, optional
            The new constant of the objective; ``None`` keeps the current one.

        Raises
        ------
        InvalidDataError
            If ``cost`` does not have ``n_cols`` entries or contains NaN.
        """
        cost = self._vector(cost, self.n_cols, "cost")
        self._h.changeColsCost(self.n_cols, self._indices, cost)
        self._cost = cost
        if offset is not None:
            self._h.changeObjectiveOffset(float(offset))
            self._offset = float(offset)
        self._solution = None

    def set_row_bounds(self, rows, lower, upper) -> None:
        """Change the bounds of the rows at positions ``rows``.

        The last solution is dropped (the readers raise until the next :meth:`solve`). A
        lower bound above the upper one is accepted: the program is then infeasible.

        Parameters
        ----------
        rows : int or array-like of int, shape (n_changed,)
            Row positions, each in ``[0, n_rows)`` and given once.
        lower, upper : float or array-like of float, shape (n_changed,)
            New bounds of ``A x`` on those rows, a scalar applying to every one;
            ``-inf``/``inf`` for a missing side.

        Raises
        ------
        InvalidDataError
            A position outside ``[0, n_rows)`` or given twice, a NaN bound, a lower bound of
            ``+inf`` or an upper bound of ``-inf``.
        SolverError
            If HiGHS refuses the new bounds (the program is then unchanged).
        """
        self._set_bounds("row", rows, lower, upper)

    def set_col_bounds(self, cols, lower, upper) -> None:
        """Change the bounds of the columns at positions ``cols`` (raises as :meth:`set_row_bounds`).

        The last solution is dropped (the readers raise until the next :meth:`solve`).

        Parameters
        ----------
        cols : int or array-like of int, shape (n_changed,)
            Column positions, each in ``[0, n_cols)`` and given once.
        lower, upper : float or array-like of float, shape (n_changed,)
            New bounds of those columns, a scalar applying to every one; ``-inf``/``inf``
            for a missing side. Equal bounds fix a column.
        """
        self._set_bounds("column", cols, lower, upper)

    def _set_bounds(self, kind: str, positions, lower, upper) -> None:
        rows = kind == "row"
        count, positions, lower, upper = self._positions_and_bounds(
            positions, lower, upper, self.n_rows if rows else self.n_cols, kind)
        change = self._h.changeRowsBounds if rows else self._h.changeColsBounds
        # The numpy copies of the bounds (read by the fixed-column reduction) must never
        # disagree with the program HiGHS holds.
        if change(count, positions, lower, upper) == _highspy().HighsStatus.kError:
            raise SolverError(f"HiGHS refused the new {kind} bounds; the program is unchanged.")
        lower_copy, upper_copy = (self._row_lower, self._row_upper) if rows else (self._col_lower, self._col_upper)
        lower_copy[positions], upper_copy[positions] = lower, upper
        self._solution = None

    def col_bounds(self, cols) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the lower and upper bounds of the columns at positions ``cols``.

        Parameters
        ----------
        cols : int or array-like of int
            Column positions. They are not checked: numpy indexing applies (a negative
            position counts from the end, one ``>= n_cols`` raises ``IndexError``).

        Returns
        -------
        lower, upper : ndarray of float64, shape (n_given,)
            The bounds as the program holds them now (``-inf``/``inf`` for a missing side).
        """
        cols = np.asarray(cols, dtype=np.int64).reshape(-1)
        return self._col_lower[cols].copy(), self._col_upper[cols].copy()

    def add_rows(self, rows, lower, upper) -> None:
        """Append rows ``lower <= rows @ x <= upper`` (one ``addRows`` call).

        Parameters
        ----------
        rows : scipy.sparse matrix, shape (n_new, n_cols)
        lower, upper : array-like of float, shape (n_new,)
        """
        rows = sp.csr_array(rows, dtype=np.float64)
        if rows.shape[1] != self.n_cols:
            raise InvalidDataError(f"rows must have {self.n_cols} columns, got {rows.shape[1]}.")
        n_new = rows.shape[0]
        if n_new == 0:
            return
        rows.sort_indices()
        _check_finite_entries(rows, "rows")
        lower = self._vector(np.broadcast_to(lower, (n_new,)), n_new, "lower")
        upper = self._vector(np.broadcast_to(upper, (n_new,)), n_new, "upper")
        self._h.addRows(n_new, lower, upper, rows.nnz, rows.indptr.astype(np.int32),
                        rows.indices.astype(np.int32), rows.data)
        self._A = sp.vstack([self._A, rows], format="csc")
        self._row_lower = np.concatenate([self._row_lower, lower])
        self._row_upper = np.concatenate([self._row_upper, upper])
        self.n_rows += n_new
        self._solution = None

    def delete_rows(self, rows) -> None:
        """Remove the rows at positions ``rows`` (one ``deleteRows`` call).

        The rows after them move up. An LP re-solve still starts from the basis of the rows
        that remain, so deleting rows that are not binding keeps the warm start.

        Parameters
        ----------
        rows : array-like of int
        """
        rows = np.unique(np.asarray(rows, dtype=np.int64).reshape(-1))
        if rows.size == 0:
            return
        if rows[0] < 0 or rows[-1] >= self.n_rows:
            bad = int(rows[0] if rows[0] < 0 else rows[-1])
            raise InvalidDataError(f"row {bad} is out of range for a program of {self.n_rows} rows.")
        self._h.deleteRows(rows.size, rows.astype(np.int32))
        keep = np.ones(self.n_rows, dtype=bool)
        keep[rows] = False
        self._A = self._A[keep]
        self._row_lower, self._row_upper = self._row_lower[keep], self._row_upper[keep]
        self.n_rows = int(keep.sum())
        self._solution = None

    def set_start(self, col_value) -> None:
        """Offer HiGHS a solution to start the next MIP solve from (``setSolution``).

        Used once, by the next :meth:`solve`; HiGHS ignores a start that is infeasible.

        Parameters
        ----------
        col_value : array-like of float, shape (n_cols,)
        """
        self._start = self._vector(col_value, self.n_cols, "col_value")

    def relaxation(self) -> HighsMatrixSolver:
        """A new solver holding this program's LP relaxation as it is now (integrality dropped)."""
        return HighsMatrixSolver(self._cost, self._A, self._row_lower, self._row_upper,
                                 self._col_lower, self._col_upper, offset=self._offset,
                                 maximize=self._maximize, options=self.options,
                                 name=f"{self.name} (LP relaxation)")

    def _positions_and_bounds(self, positions, lower, upper, size: int, kind: str) -> tuple:
        positions = np.asarray(positions, dtype=np.int64).reshape(-1)
        outside = np.flatnonzero((positions < 0) | (positions >= size))
        if outside.size:
            raise InvalidDataError(
                f"{kind} position {int(positions[outside[0]])} is out of range: the program has {size} {kind}s."
            )
        values, counts = np.unique(positions, return_counts=True)
        if (counts > 1).any():
            raise InvalidDataError(f"{kind} position {int(values[counts > 1][0])} is given twice.")
        lower = self._vector(np.broadcast_to(lower, positions.shape), positions.shape[0], "lower")
        upper = self._vector(np.broadcast_to(upper, positions.shape), positions.shape[0], "upper")
        _check_bound_directions(lower, upper, kind, positions)
        return positions.shape[0], positions.astype(np.int32), lower, upper

    def solve(self, *, time_limit: float | None = None, require_solution: bool = True) -> SolveResult:
        """Solve the program as it is now.

        Parameters
        ----------
        time_limit : float, optional
            Seconds for this solve (default: the options' time limit).
        require_solution : bool, default=True
            Raise :class:`~ccopt.exceptions.SolverError` when no solution was found.

        Returns
        -------
        SolveResult

        Raises
        ------
        KeyboardInterrupt
            When Ctrl-C stopped the run (HiGHS is stopped cleanly first), so the caller can
            return its best result so far.
        """
        time_limit = _time_limit(time_limit) if time_limit is not None else self.options.time_limit
        start = time.perf_counter()
        timing = {}
        reduction = self._reduction()
        if reduction is None:
            h = self._h
        else:
            h = self._highs_for(reduction)
            timing["reduce"] = time.perf_counter() - start
        if time_limit is not None:  # the reduction counts against the limit
            time_limit = max(time_limit - (time.perf_counter() - start), 1e-3)
        if self._isolated(reduction, time_limit):
            return _require(self._solve_in_child(reduction, time_limit, start, timing), require_solution)
        self._configure(h, time_limit)
        if self._start is not None:
            self._offer_start(h, reduction)
        threads = self.options.requested_threads
        _size_highs_scheduler(threads)
        run_start = time.perf_counter()
        with _ctrl_c_stops(lambda: h):
            ran = h.run()
            if threads is not None and ran == _highspy().HighsStatus.kError and \
                    getattr(h.getModelStatus(), "name", "") == "kNotset":
                # Sized by code outside ccopt since (the user's own HiGHS run): rebuild and rerun.
                _size_highs_scheduler(threads, force=True)
                h.run()
        timing["solve"] = time.perf_counter() - run_start
        model_status = h.getModelStatus()
        termination = getattr(model_status, "name", str(model_status))
        if termination == "kModelEmpty":
            return _require(self._empty_result(start, timing), require_solution)
        status = _HIGHS_STATUS.get(termination, Status.ERROR)
        info = h.getInfo()
        # An unbounded program has feasible points but no optimum: none of them is an answer.
        has_solution = (int(info.primal_solution_status) == _HIGHS_PRIMAL_FEASIBLE
                        and termination != "kUnbounded")
        objective = float(info.objective_function_value) if has_solution else None
        # A MIP whose integer columns the reduction all fixed reaches HiGHS as an LP, whose
        # mip_dual_bound means nothing.
        solved_mip = self.is_mip and (reduction is None or bool(self._integer[reduction.keep_cols].any()))
        if solved_mip:
            # An infeasible MIP has no bound to report (HiGHS leaves a stale value there).
            bound = None if status is Status.INFEASIBLE else _finite(info.mip_dual_bound)
        else:
            bound = objective if status is Status.OPTIMAL else None
        if has_solution and status is Status.ERROR:
            status = Status.FEASIBLE
        self._solution = self._read_solution(h, reduction) if has_solution else None
        result = SolveResult(status, objective, bound, time.perf_counter() - start, self.name,
                             termination, has_solution, timing)
        return _require(result, require_solution)

    def _empty_result(self, start: float, timing: dict) -> SolveResult:
        """The result of a program without columns (a Pyomo model whose variables are all
        fixed), which HiGHS leaves without a solution: the empty point, of objective
        ``offset``, is optimal when every row admits 0, and the program infeasible otherwise."""
        feasible = bool((self._row_lower <= 1e-9).all() and (self._row_upper >= -1e-9).all())
        objective = self._offset if feasible else None
        self._solution = None if not feasible else {
            "col_value": np.zeros(0), "row_value": np.zeros(self.n_rows), "col_dual": np.zeros(0),
            "row_dual": np.zeros(self.n_rows)}
        return SolveResult(Status.OPTIMAL if feasible else Status.INFEASIBLE, objective, objective,
                           time.perf_counter() - start, self.name, "kModelEmpty", feasible, timing)

    def _reduction(self) -> Reduction | None:
        """The program without its fixed columns, when it is a MIP and most columns are fixed.

        Only for MIPs: an LP re-solve warm-starts from the previous basis of the whole
        program, which a fresh reduced program would lose (and its duals would need mapping).
        """
        if not self.is_mip:
            return None
        fixed = self._col_lower == self._col_upper
        if fixed.all() or fixed.mean() < _REDUCE_FIXED_SHARE:
            return None
        return reduce_fixed(self._A, self._cost, self._offset, self._row_lower, self._row_upper,
                            self._col_lower, self._col_upper)

    def _highs_for(self, reduction: Reduction):
        """A new HiGHS instance holding the reduced program."""
        keep = reduction.keep_cols
        h = self._new_highs()
        passed = h.passModel(self._highs_lp(reduction.A, self._cost[keep], reduction.offset,
                                            reduction.row_lower, reduction.row_upper,
                                            self._col_lower[keep], self._col_upper[keep],
                                            self._integer[keep]))
        if passed == _highspy().HighsStatus.kError:
            raise SolverError("HiGHS rejected the reduced model (passModel failed).")
        return h

    def _offer_start(self, h, reduction: Reduction | None) -> None:
        start, self._start = self._start, None
        if reduction is not None:
            start = start[reduction.keep_cols]
        solution = _highspy().HighsSolution()
        solution.col_value = start
        solution.value_valid = True
        h.setSolution(solution)

    def _isolated(self, reduction: Reduction | None, time_limit: float | None) -> bool:
        """Whether this solve runs in a child process (``isolate_from``)."""
        if self.isolate_from is None or not self.is_mip or time_limit is None:
            return False
        free = self._integer & (self._col_lower < self._col_upper)
        if reduction is not None:
            free = free[reduction.keep_cols]
        return int(free.sum()) >= self.isolate_from

    def _solve_in_child(self, reduction: Reduction | None, time_limit: float, start: float,
                        timing: dict) -> SolveResult:
        """Solve the MIP in a child process, killed when it has not returned a grace period
        (``_CHILD_GRACE_*``) after ``time_limit``.

        The child streams every improving solution to a file, so a killed run still returns
        the best solution HiGHS had, as a run stopped by its own limit does (without a bound).
        """
        keep = slice(None) if reduction is None else reduction.keep_cols
        program = {
            "A": self._A if reduction is None else reduction.A,
            "cost": self._cost[keep], "col_lower": self._col_lower[keep], "col_upper": self._col_upper[keep],
            "row_lower": self._row_lower if reduction is None else reduction.row_lower,
            "row_upper": self._row_upper if reduction is None else reduction.row_upper,
            "integer": self._integer[keep],
        }
        offset = self._offset if reduction is None else reduction.offset
        offered, self._start = self._start, None
        grace = min(_CHILD_GRACE_SECONDS + _CHILD_GRACE_SHARE * time_limit, _CHILD_GRACE_MAX)
        run_start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="ccopt-highs-") as folder:
            out = _run_highs_child(folder, program, offset, self._maximize, self.options, time_limit,
                                   None if offered is None else offered[keep], grace)
        timing["solve"] = time.perf_counter() - run_start
        col_value = out.get("col_value")
        if out["termination"] == "killed" and col_value is None and offered is not None \
                and self._feasible(offered):
            # HiGHS takes a feasible start as its incumbent without reporting it as improving.
            col_value = offered[keep]
        if out["termination"] == "killed":
            logging.getLogger(__name__).info(
                "%s: HiGHS had not returned %.1f s after its %.1f-s limit; its process was stopped "
                "(best solution kept: %s)", self.name, grace, time_limit, col_value is not None)
            status, bound = Status.TIME_LIMIT, None
        else:
            status = _HIGHS_STATUS.get(out["termination"], Status.ERROR)
            solved_mip = reduction is None or bool(program["integer"].any())
            bound = (None if status is Status.INFEASIBLE or not solved_mip
                     else _finite(out["bound"]))
            if col_value is not None and status is Status.ERROR:
                status = Status.FEASIBLE
        objective = None
        self._solution = None
        if col_value is not None:
            full = col_value if reduction is None else reduction.expand(col_value)
            self._solution = {"col_value": full, "row_value": self._A @ full}
            objective = float(self._cost @ full + self._offset)
        return SolveResult(status, objective, bound, time.perf_counter() - start, self.name,
                           out["termination"], col_value is not None, timing)

    def _feasible(self, col_value: np.ndarray, tol: float = 1e-6) -> bool:
        """Whether ``col_value`` satisfies the bounds, the rows and the integrality (within ``tol``)."""
        rows = self._A @ col_value
        return bool((col_value >= self._col_lower - tol).all() and (col_value <= self._col_upper + tol).all()
                    and (rows >= self._row_lower - tol).all() and (rows <= self._row_upper + tol).all()
                    and (np.abs(col_value[self._integer] - np.round(col_value[self._integer])) <= tol).all())

    def _configure(self, h, time_limit: float | None) -> None:
        defaults = _highs_defaults()
        h.setOptionValue("output_flag", bool(self.options.tee))
        time_limit = _lp_time_limit(h, time_limit, self.is_mip)
        h.setOptionValue("time_limit", float(time_limit) if time_limit is not None else defaults["time_limit"])
        gap = self.options.mip_gap
        h.setOptionValue("mip_rel_gap", float(gap) if gap is not None else defaults["mip_rel_gap"])
        for key, value in self.options.extra.items():
            h.setOptionValue(key, value)

    def _read_solution(self, h, reduction: Reduction | None) -> dict:
        solution = h.getSolution()  # a copy: later changes and solves leave it as it is
        if reduction is None:
            # Converted when first read (_values): the four lists cost 42 ms per solve at
            # n = 600 (k-medoids LP), and the re-solve loops read the column values only.
            return {"highs": solution}
        col_value = reduction.expand(np.asarray(solution.col_value, dtype=np.float64))
        return {"col_value": col_value, "row_value": self._A @ col_value}

    def _values(self, attribute: str) -> np.ndarray:
        if self._solution is None:
            raise SolverError("No solution is loaded: call solve() first (and check has_solution).")
        values = self._solution.get(attribute)
        if values is None:
            values = np.asarray(getattr(self._solution["highs"], attribute), dtype=np.float64)
            self._solution[attribute] = values
        return values

    @property
    def col_value(self) -> np.ndarray:
        """Column values of the last solution, shape (n_cols,)."""
        return self._values("col_value")

    @property
    def row_value(self) -> np.ndarray:
        """Row activities ``A x`` of the last solution, shape (n_rows,)."""
        return self._values("row_value")

    @property
    def row_dual(self) -> np.ndarray:
        """Row duals ``d(objective)/d(rhs)`` of the last LP solution, shape (n_rows,).

        In a minimisation a binding ``<=`` row has a dual ``<= 0``.

        Raises
        ------
        SolverError
            For a MIP (no duals) or before a solve.
        """
        if self.is_mip:
            raise SolverError("A mixed-integer program has no row duals; relax it to an LP first.")
        return self._values("row_dual")

    @property
    def col_dual(self) -> np.ndarray:
        """Reduced costs of the last LP solution, shape (n_cols,)."""
        if self.is_mip:
            raise SolverError("A mixed-integer program has no reduced costs; relax it to an LP first.")
        return self._values("col_dual")


def _run_highs_child(folder: str, program: dict, offset: float, maximize: bool, options: SolverOptions,
                     time_limit: float, start: np.ndarray | None, grace: float) -> dict:
    """Run ``ccopt/_highs_child.py`` on ``program`` in ``folder``; kill it ``grace`` after the limit.

    Returns ``{"termination": ..., "col_value": ndarray or absent, "bound": float}``;
    ``termination`` is ``"killed"`` when the child was stopped, and ``col_value`` then holds
    the last improving solution it reported, if any.
    """
    A = sp.csc_array(program["A"])
    arrays = {"shape": np.array(A.shape), "indptr": A.indptr.astype(np.int32),
              "indices": A.indices.astype(np.int32), "data": A.data,
              **{key: program[key] for key in ("cost", "col_lower", "col_upper", "row_lower", "row_upper",
                                                "integer")}}
    if start is not None:
        arrays["start"] = start
    np.savez(f"{folder}/program.npz", **arrays)
    deadline = time.time() + time_limit  # the wall clock: the child's perf_counter is its own
    with open(f"{folder}/options.json", "w") as handle:
        json.dump({"tee": bool(options.tee), "threads": options.threads, "mip_gap": options.mip_gap,
                   "extra": options.extra, "offset": float(offset), "maximize": bool(maximize),
                   "deadline": deadline}, handle)
    with open(f"{folder}/stderr.txt", "wb") as errors:
        child = subprocess.Popen([sys.executable, _HIGHS_CHILD, folder], stdin=subprocess.DEVNULL,
                                 stdout=None if options.tee else subprocess.DEVNULL, stderr=errors)
        try:
            child.wait(timeout=max(deadline + grace - time.time(), 0.0))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            incumbent = f"{folder}/incumbent.npy"
            found = {"col_value": np.load(incumbent)} if os.path.exists(incumbent) else {}
            return {"termination": "killed", "bound": None, **found}
        except KeyboardInterrupt:
            child.kill()
            child.wait()
            raise
    if child.returncode != 0 or not os.path.exists(f"{folder}/termination.txt"):
        with open(f"{folder}/stderr.txt", errors="replace") as handle:
            tail = handle.read()[-2000:]
        raise SolverError(f"The HiGHS child process failed (exit code {child.returncode}): {tail}")
    result = np.load(f"{folder}/result.npz")
    with open(f"{folder}/termination.txt") as handle:
        termination = handle.read()
    found = {"col_value": result["col_value"]} if bool(result["feasible"]) else {}
    return {"termination": termination, "bound": float(result["bound"]), **found}


def _linear_terms(expr, terms: list, scale: float = 1.0, varying: list | None = None) -> float | None:
    """Append ``(var, coef)`` of a linear expression to ``terms``; return its constant.

    A fast path for the shapes Pyomo builds from sums of variables (``LinearExpression``
    of variables and monomials, named expressions, sums of those); anything else goes
    through Pyomo's ``LinearRepnVisitor``. Returns None when the expression is nonlinear.
    Fixed variables count as constants. Every coefficient or constant that had to be
    evaluated (a Param, an expression of Params) is appended to ``varying`` when given: a
    Param change may change it.
    """
    kind = type(expr)
    if kind in _NATIVE_NUMBERS:
        return scale * expr
    if kind in _VAR_TYPES:
        if expr.fixed:
            return scale * expr.value
        terms.append((expr, scale))
        return 0.0
    if kind is MonomialTermExpression:
        coef, var = expr.args
        coef = scale * _evaluated(coef, varying)
        if var.fixed:
            return coef * var.value
        terms.append((var, coef))
        return 0.0
    if kind is LinearExpression or kind is SumExpression:
        constant = 0.0
        append = terms.append
        for arg in expr.args:
            # Inline the two commonest shapes: this loop runs once per row of a large model.
            arg_kind = type(arg)
            if arg_kind in _VAR_TYPES and not arg.fixed:
                append((arg, scale))
            elif arg_kind is MonomialTermExpression and not arg.args[1].fixed:
                coef, var = arg.args
                append((var, scale * (coef if type(coef) in _NATIVE_NUMBERS else _evaluated(coef, varying))))
            else:
                part = _linear_terms(arg, terms, scale, varying)
                if part is None:
                    return None
                constant += part
        return constant
    if expr.is_named_expression_type():
        return _linear_terms(expr.expr, terms, scale, varying)
    if not expr.is_potentially_variable():
        return scale * _evaluated(expr, varying)
    visitor = _repn_visitor()
    repn = visitor.walk_expression(expr)
    if repn.nonlinear is not None:
        return None
    if varying is not None:  # the visitor folds Params into its numbers: assume some were there
        varying.append(expr)
    var_map = visitor.var_map
    terms.extend((var_map[key], scale * coef) for key, coef in repn.linear.items())
    return scale * pyo.value(repn.constant)


def _evaluated(value, varying: list | None) -> float:
    """``value`` as a number; noted in ``varying`` when it is not one already."""
    if type(value) in _NATIVE_NUMBERS:
        return value
    if varying is not None:
        varying.append(value)
    return pyo.value(value)


def _repn_visitor():
    from pyomo.repn.linear import LinearRepnVisitor

    return LinearRepnVisitor({})


def _is_number(bound) -> bool:
    """True for a missing bound or a constant one (nothing a Param change could move)."""
    if bound is None or type(bound) in _NATIVE_NUMBERS:
        return True
    return next(iter(identify_mutable_parameters(bound)), None) is None


def _row_bounds(lb: float | None, ub: float | None, constant: float) -> tuple[float, float]:
    """HiGHS's bounds of ``lb <= body <= ub`` once the body's constant moves to the sides."""
    return (-np.inf if lb is None else lb - constant), (np.inf if ub is None else ub - constant)


def _bound_value(bound) -> float | None:
    if bound is None or type(bound) in _NATIVE_NUMBERS:
        return bound
    return float(pyo.value(bound))


def _fixed_variables(model) -> list:
    """The fixed variables of ``model`` (through each Var component: 8 times quicker than
    ``component_data_objects`` on 90,000 variables)."""
    return [var for component in model.component_objects(pyo.Var, active=True, descend_into=True)
            for var in component.values() if var.fixed]


class _CompiledModel:
    """A linear Pyomo model compiled to matrices and bound to a :class:`HighsMatrixSolver`.

    One HiGHS row per active constraint (ranged constraints keep both bounds), one column per
    variable that appears, in order of first appearance. Constraints without variables are
    checked and dropped.
    """

    def __init__(self, model, options: SolverOptions):
        # Compiling creates a tuple per matrix entry; pausing the garbage collector (as
        # Pyomo's own writers do) saves about a third of the time on large models.
        with PauseGC():
            self._compile(model, options)

    def _compile(self, model, options: SolverOptions) -> None:
        started = time.perf_counter()
        objective = _active_objective(model)
        if objective is None:
            raise SolverError(f"Solver {MATRIX_SOLVER!r} needs exactly one active objective.")
        self.objective = objective
        self._column_of: dict[int, int] = {}
        self._positions_of: dict[int, tuple] = {}
        self.columns: list = []
        self._image = ObjectiveImage.of(objective.expr, self._column)
        cost, offset = self._objective_costs()
        rows, cols, values, lower, upper, self.rows = [], [], [], [], [], []
        column_of = self._column_of
        # Rows whose bounds depend on Params: (position, lower, upper, body constant), their
        # bounds re-evaluated by refresh(). A Param in a row's body (a coefficient) or in a
        # row without variables needs a recompile instead.
        self._varying_rows: list = []
        varying: list = []
        for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
            lb_expr, body, ub_expr = con.to_bounded_expression()
            lb, ub = _bound_value(lb_expr), _bound_value(ub_expr)
            terms: list = []
            constant = _linear_terms(body, terms, varying=varying)
            if constant is None:
                raise SolverError(f"Constraint {con.name} is nonlinear; {MATRIX_SOLVER!r} takes linear "
                                  "models only (use 'scip_direct' for quadratic rows).")
            bounds_vary = not (_is_number(lb_expr) and _is_number(ub_expr))
            if not terms:
                if (lb is not None and constant < lb - 1e-9) or (ub is not None and constant > ub + 1e-9):
                    raise SolverError(f"Constraint {con.name} has no variables and is violated.")
                if bounds_vary:
                    varying.append(con)
                continue
            position = len(self.rows)
            self.rows.append(con)
            if bounds_vary:
                self._varying_rows.append((position, lb_expr, ub_expr, constant))
            rows.extend([position] * len(terms))
            for var, coef in terms:
                column = column_of.get(id(var))
                cols.append(self._column(var) if column is None else column)
                values.append(coef)
            row_lower, row_upper = _row_bounds(lb, ub, constant)
            lower.append(row_lower)
            upper.append(row_upper)
        n_cols = len(self.columns)
        # Columns met only in constraints have no cost yet.
        cost = np.concatenate([cost, np.zeros(n_cols - cost.shape[0])])
        A = sp.csc_array((np.asarray(values, dtype=np.float64),
                          (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                         shape=(len(self.rows), n_cols))
        col_lower, col_upper = self._column_bounds(self.columns)
        # Fixed variables were compiled in as constants; refresh_bounds() must recompile when
        # one of them is freed or fixed at another value.
        self._fixed = {id(var): (var, var.value) for var in _fixed_variables(model)}
        integer = np.fromiter((var.is_integer() or var.is_binary() for var in self.columns),
                              dtype=bool, count=n_cols)
        if integer.any() and _dual_suffix(model) is not None:
            raise SolverError(_MIP_DUALS_MESSAGE)
        self.compile_time = time.perf_counter() - started
        self.solver = HighsMatrixSolver(
            cost, A, np.asarray(lower), np.asarray(upper), col_lower, col_upper,
            integrality=integer, offset=offset, maximize=objective.sense == pyo.maximize,
            options=options)
        # Refreshable in place: Params only in the objective, in row bounds and in no
        # variable bound.
        self._refreshable = not varying and all(
            _is_number(var.lower) and _is_number(var.upper) for var in self.columns)

    def _column(self, var) -> int:
        key = id(var)
        position = self._column_of.get(key)
        if position is None:
            position = self._column_of[key] = len(self.columns)
            self.columns.append(var)
        return position

    def _objective_costs(self) -> tuple[np.ndarray, float]:
        """Cost per known column (new columns are added in order) and the constant."""
        if self._image is not None:
            return self._image.evaluate(len(self.columns))
        terms: list = []
        offset = _linear_terms(self.objective.expr, terms)
        if offset is None:
            raise SolverError(f"The objective is nonlinear; {MATRIX_SOLVER!r} takes linear models only "
                              "(use 'scip_direct').")
        positions = np.fromiter((self._column(var) for var, _ in terms), dtype=np.int64, count=len(terms))
        cost = np.zeros(len(self.columns))
        np.add.at(cost, positions, np.fromiter((coef for _, coef in terms), dtype=np.float64, count=len(terms)))
        return cost, float(offset)

    def refresh(self) -> bool:
        """Push Param changes (costs, row bounds) to HiGHS; False when a recompile is needed."""
        if not self._refreshable:
            return False
        known = len(self.columns)
        cost, offset = self._objective_costs()
        if len(self.columns) != known:  # a variable that was in no row and had no cost before
            return False
        self.solver.set_costs(cost, offset=offset)
        if self._varying_rows:
            positions = np.array([row[0] for row in self._varying_rows], dtype=np.int64)
            bounds = np.array([_row_bounds(_bound_value(lb), _bound_value(ub), constant)
                               for _, lb, ub, constant in self._varying_rows])
            self.solver.set_row_bounds(positions, bounds[:, 0], bounds[:, 1])
        return True

    def refresh_bounds(self, variables=None) -> bool:
        """Push the current bounds of ``variables`` (default: every column) to HiGHS.

        A fixed variable's bounds are its value. Returns False, pushing nothing, when a
        variable that was fixed when the model was compiled (and so compiled in as a
        constant) is now free or fixed at another value: the model must be recompiled.
        """
        fixed = self._fixed
        suspects = fixed.values() if variables is None else (fixed[id(var)] for var in variables
                                                             if id(var) in fixed)
        if any(not var.fixed or var.value != value for var, value in suspects):
            return False
        if variables is None:
            columns = self.columns
            positions = np.arange(len(columns))
        else:
            # A variable in no row and not in the objective has no column.
            columns = [var for var in variables if id(var) in self._column_of]
            positions = np.fromiter((self._column_of[id(var)] for var in columns), dtype=np.int64,
                                    count=len(columns))
        lower, upper = self._column_bounds(columns)
        self.solver.set_col_bounds(positions, lower, upper)
        return True

    @staticmethod
    def _column_bounds(columns) -> tuple[np.ndarray, np.ndarray]:
        lower, upper = np.empty(len(columns)), np.empty(len(columns))
        for position, var in enumerate(columns):
            lb, ub = (var.value, var.value) if var.fixed else var.bounds
            lower[position] = -np.inf if lb is None else lb
            upper[position] = np.inf if ub is None else ub
        return lower, upper

    def values(self, variables) -> np.ndarray:
        """The last solution's values of ``variables``; NaN for a variable without a column
        (in no row and not in the objective), its value for a fixed one.

        The column positions of a tuple (which cannot change) are kept for later calls with
        the same tuple: the impact score's LP route reads its 22,650 variables on Iris at
        every iteration.
        """
        cached, positions = self._positions_of.get(id(variables), (None, None))
        if variables is not cached:
            positions = np.fromiter((self._column_of.get(id(var), -1) for var in variables),
                                    dtype=np.int64, count=len(variables))
            if isinstance(variables, tuple) and len(self._positions_of) < _POSITION_CACHE:
                # The tuple is kept with its positions, so its id cannot be reused meanwhile.
                self._positions_of[id(variables)] = (variables, positions)
        known = positions >= 0
        values = np.full(positions.shape, np.nan)
        values[known] = self.solver.col_value[positions[known]]
        for position in np.flatnonzero(~known).tolist():  # compiled in as constants
            if variables[position].fixed:
                values[position] = variables[position].value
        return values

    def load(self, model) -> None:
        """Copy the last solution (and the row duals, if asked for) into the model."""
        for var, value in zip(self.columns, self.solver.col_value.tolist(), strict=True):
            if not var.fixed:  # a fixed column keeps its value, not HiGHS's rounding of it
                var.set_value(value, skip_validation=True)
        suffix = _dual_suffix(model)
        if suffix is not None:
            suffix.clear()
            with PauseGC():
                suffix.update(zip(self.rows, self.solver.row_dual.tolist(), strict=True))


class PersistentSolver:
    """A solver bound to one model, for repeated solves after mutable Params change.

    With HiGHS (``appsi_highs``, ``highs``, ``highs_matrix``) a re-solve pushes only the
    changed data and warm-starts LPs from the previous basis. Other solvers rebuild on every
    call, which is correct but slower.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
    solver : str, default="appsi_highs"
    options : SolverOptions, optional
        Defaults for every :meth:`solve`; ``time_limit`` may be overridden per call.
    only_params_change : bool, default=True
        Promise that between solves only mutable Param values change (no new variables,
        constraints, bounds or fixed variables), which lets APPSI skip its structural checks
        and ``highs_matrix`` keep its compiled matrices. Changed variable bounds, and
        variables fixed or freed, can be announced with :meth:`bounds_changed`.

    Raises
    ------
    SolverNotAvailableError
        Unknown or uninstalled solver; the message says what to install.
    InvalidParameterError
        ``model`` not a Pyomo model; with HiGHS: an option of ``options.extra`` that HiGHS
        refuses (CBC's unknown options are refused by :meth:`solve`, once CBC has said so).
    """

    def __init__(self, model, solver: str = DEFAULT_SOLVER, options: SolverOptions | None = None,
                 *, only_params_change: bool = True):
        if not isinstance(model, pyo.Block):
            raise InvalidParameterError(f"model must be a Pyomo model (ConcreteModel), got {type(model).__name__}.")
        if options is not None and not isinstance(options, SolverOptions):
            raise InvalidParameterError(_options_type_message(options))
        self.model = model
        self.name = _resolve_name(solver)
        self.options = options or SolverOptions()
        self._opt = _factory(self.name)
        check_solver_options(self.name, self.options.extra)
        _check_given_once(self.name, self.options)
        self._new_api = self.name in _NEW_API
        self._only_params_change = only_params_change
        self._n_solves = 0
        self._compiled: _CompiledModel | None = None
        self._is_mip: bool | None = None  # read from the model when first needed
        # Variables whose bounds changed since the last solve: None (none), a dict by id,
        # or _EVERY_VARIABLE.
        self._changed_bounds: dict | object | None = None
        # With APPSI: ids of the variables fixed at the last solve (see _fixing_changed).
        self._fixed_ids: set[int] = set()

    def bounds_changed(self, variables=None) -> None:
        """Announce that the bounds of ``variables`` (default: any variable) changed.

        The next :meth:`solve` then pushes those bounds as well (``highs_matrix`` in place,
        APPSI through its variable updates); later solves go back to pushing only Param
        changes.

        Parameters
        ----------
        variables : iterable of pyomo variables, optional
            The variables whose bounds changed; naming them saves reading every variable.
        """
        if variables is None or self._changed_bounds is _EVERY_VARIABLE:
            self._changed_bounds = _EVERY_VARIABLE
            return
        pending = self._changed_bounds if isinstance(self._changed_bounds, dict) else {}
        pending.update((id(var), var) for var in variables)
        self._changed_bounds = pending

    def _note_fixed(self, variables) -> None:
        """Record which of ``variables`` (None: every variable of the model) are fixed now."""
        if variables is None:
            self._fixed_ids = {id(var) for var in _fixed_variables(self.model)}
            return
        for var in variables:
            (self._fixed_ids.add if var.fixed else self._fixed_ids.discard)(id(var))

    def _fixing_changed(self, variables) -> bool:
        """Whether one of ``variables`` was fixed or freed since the last solve."""
        return any(var.fixed != (id(var) in self._fixed_ids) for var in variables)

    def _changed_variables(self):
        """The variables announced by :meth:`bounds_changed` (None: every one)."""
        changed = self._changed_bounds
        return None if changed is _EVERY_VARIABLE else list(changed.values())

    def solve(self, *, time_limit: float | None = None, require_solution: bool = True,
              load: bool = True) -> SolveResult:
        """Solve the model as it is now; see :func:`solve` for the result and errors.

        ``load=False`` lets ``highs_matrix`` keep the solution to itself (read it with
        :meth:`values`) instead of writing every variable of the model: on BH-kmeans' Letter
        program in Pyomo (254,000 variables) that writing, and reading the values back, took
        longer than HiGHS. The other interfaces load the model either way.

        Parameters
        ----------
        time_limit : float, optional
            Seconds for this solve; default the ``time_limit`` of the constructor's
            ``options``. ``inf`` means no limit for this solve. With ``highs_matrix``,
            compiling or updating the matrices counts against it.
        require_solution : bool, default=True
            Raise :class:`~ccopt.exceptions.SolverError` when no solution could be loaded
            (infeasible model, time limit before any incumbent).
        load : bool, default=True
            ``highs_matrix`` only: write the solution's values (and the row duals, if the
            model has a ``dual`` Suffix) into the model. With False the model's variables
            and ``dual`` Suffix are left as they were (stale after an earlier solve), and
            :meth:`values` reads the solution. A solve without a solution clears the
            model's values and duals either way.

        Returns
        -------
        SolveResult

        Raises
        ------
        SolverError
            The solver failed, returned no solution and ``require_solution`` is True, or
            the model has a ``dual`` Suffix and integer variables (duals exist only for LPs).
        InvalidParameterError
            A bad ``time_limit``; with ``cbc``, an option of ``options.extra`` that CBC's log
            reports as unknown (raised after the solve, which ran without it).
        KeyboardInterrupt
            With HiGHS, when Ctrl-C stopped the run (HiGHS is stopped cleanly first).
        """
        time_limit = _time_limit(time_limit) if time_limit is not None else self.options.time_limit
        if self.name in _HIGHS_NAMES:  # Pyomo's HiGHS interfaces; highs_matrix sizes its own runs
            _size_highs_scheduler(self.options.requested_threads)
        if not self._only_params_change:
            self._is_mip = None  # variables may have changed domain since the last solve
        if self.name != MATRIX_SOLVER and _dual_suffix(self.model) is not None and self._model_is_mip():
            # CBC returned "duals" of a MIP (zeros), and the readers took them for scores.
            raise SolverError(_MIP_DUALS_MESSAGE)
        start = time.perf_counter()
        try:
            if self.name == MATRIX_SOLVER:
                result = self._solve_matrix(time_limit, load)
            elif self.name in _HIGHS_NAMES:
                with _ctrl_c_stops(lambda: getattr(self._opt, "_solver_model", None), _PYOMO_HIGHS_LOGGERS):
                    result = self._solve_new(time_limit) if self._new_api else self._solve_legacy(time_limit)
            elif self._new_api:
                result = self._solve_new(time_limit)
            else:
                result = self._solve_legacy(time_limit)
        except (SolverError, SolverNotAvailableError, InvalidParameterError, InvalidDataError):
            raise
        except Exception as exc:  # solver plugins raise bare RuntimeError/ValueError
            if self.name in _HIGHS_NAMES:
                # Pyomo's HiGHS interfaces refuse a nonlinear model with "does not support
                # expressions of degree None"; say which part is nonlinear and what to use.
                _check_linear(self.model, self.name, objective_degree=2)
            # SCIP says only "Not a valid parameter name", glpsol only that it did not exit
            # normally: name what was passed through, the likely culprit.
            given = (f" Options passed to it unchanged: {self.options.extra}; check their names and "
                     "values for this solver (run with tee=True to see its log)."
                     if self.options.extra else "")
            raise SolverError(f"Solver {self.name!r} failed: {str(exc).rstrip('.')}.{given}") from exc
        self._n_solves += 1
        self._changed_bounds = None
        status, objective, bound, termination, has_solution, timing = result
        if not has_solution:
            _forget_solution(self.model)
        if status is not Status.OPTIMAL and self.name != MATRIX_SOLVER and not self._model_is_mip():
            # An LP stopped early proves nothing, though APPSI reports the value of the point
            # it stopped at as its bound (highs_matrix already leaves it out).
            bound = None
        result = SolveResult(status, objective, bound, time.perf_counter() - start, self.name,
                             termination, has_solution, timing)
        return _require(result, require_solution)

    def values(self, variables) -> np.ndarray:
        """The last solution's values of ``variables`` (a sequence of Pyomo variables).

        Read from HiGHS's solution with ``highs_matrix`` (whether or not it was loaded), from
        the variables otherwise; a variable without a value (or, with ``highs_matrix``, in
        no row and not in the objective) gives NaN.

        Parameters
        ----------
        variables : sequence of pyomo variables
            Variables (``VarData``) of the model, e.g. ``list(model.x.values())``; a
            sequence with a length, not a generator. With ``highs_matrix`` the column
            positions of a tuple are kept, so passing the same tuple again is cheaper.

        Returns
        -------
        ndarray of float64, shape (len(variables),)

        Raises
        ------
        SolverError
            With ``highs_matrix``, when the last solve found no solution (the other solvers
            give NaN then: the model's values were cleared).
        """
        if self.name == MATRIX_SOLVER and self._compiled is not None:
            return self._compiled.values(variables)
        return np.fromiter((np.nan if var.value is None else var.value for var in variables),
                           dtype=np.float64, count=len(variables))

    # -- matrices compiled by Pyomo, solved by highspy
    def _solve_matrix(self, time_limit, load: bool = True):
        compiled = self._compiled
        started = time.perf_counter()
        if (compiled is not None and self._only_params_change and compiled.refresh()
                and (self._changed_bounds is None or compiled.refresh_bounds(self._changed_variables()))):
            timing = {"update": time.perf_counter() - started}
        else:
            compiled = self._compiled = _CompiledModel(self.model, self.options)
            timing = {"compile": compiled.compile_time, "pass": compiled.solver.pass_time}
        if time_limit is not None:  # compiling and refreshing count against the limit
            time_limit = max(time_limit - (time.perf_counter() - started), 1e-3)
        out = compiled.solver.solve(time_limit=time_limit, require_solution=False)
        timing.update(out.timing)
        if out.has_solution and load:
            started = time.perf_counter()
            compiled.load(self.model)
            timing["load"] = time.perf_counter() - started
        return out.status, out.objective, out.bound, out.termination, out.has_solution, timing

    def _highs_time_limit(self, time_limit: float | None) -> float | None:
        """``time_limit`` for Pyomo's HiGHS object, which keeps one HiGHS instance across
        solves (:func:`_lp_time_limit`); other solvers get it unchanged."""
        if self.name not in _HIGHS_NAMES:
            return time_limit
        return _lp_time_limit(getattr(self._opt, "_solver_model", None), time_limit, self._model_is_mip())

    def _model_is_mip(self) -> bool:
        """Whether the model has a discrete variable (read once)."""
        if self._is_mip is None:
            self._is_mip = any(not var.is_continuous()
                               for var in self.model.component_data_objects(pyo.Var, active=True))
        return self._is_mip

    # -- classic SolverFactory interfaces (appsi_highs, cbc, glpk, gurobi, cplex, ...)
    def _solve_legacy(self, time_limit):
        opts, kwargs = dict(self.options.extra), {}
        model = self.model
        if self.name.startswith("appsi_"):
            # APPSI hands these options to the solver as they are named here: CBC wants its own
            # names (given "mip_rel_gap" it printed "No match" and ignored the gap).
            _, gap_key, threads_key = _LEGACY_OPTION_NAMES.get(self.name, (None, "mip_rel_gap", "threads"))
            if self.options.mip_gap is not None:
                opts[gap_key] = self.options.mip_gap
            if self.options.threads is not None:
                opts[threads_key] = self.options.threads
            if self.name in _LP_FILE_APPSI and not (self._n_solves and self._only_params_change):
                _check_linear(model, self.name)
            if self.name in _HIGHS_NAMES:
                # HiGHS keeps options between solves; a solve without a limit must clear them.
                defaults = _highs_defaults()
                if time_limit is None:
                    opts.setdefault("time_limit", defaults["time_limit"])
                opts.setdefault("mip_rel_gap", defaults["mip_rel_gap"])
            # APPSI overwrites config.time_limit inside solve(): it must be passed as timelimit=.
            kwargs["timelimit"] = self._highs_time_limit(time_limit)
            if self._n_solves and self._only_params_change:
                cfg = self._opt.update_config
                cfg.check_for_new_or_removed_constraints = False
                cfg.check_for_new_or_removed_vars = False
                cfg.check_for_new_or_removed_params = False
                cfg.check_for_new_objective = False
                cfg.update_constraints = False
                cfg.update_vars = False
                cfg.update_named_expressions = False
                if self._changed_bounds is not None:
                    changed = self._changed_variables()
                    # APPSI's update_variables() pushes new bounds and fixings but not a
                    # variable freed after it was fixed (it compiled it into its rows as a
                    # constant): only its full update re-reads those rows.
                    if (changed is None or not hasattr(self._opt, "update_variables")
                            or self._fixing_changed(changed)):
                        cfg.update_vars = True
                    else:
                        self._opt.update_variables(changed)
            if self._only_params_change and (self._n_solves == 0 or self._changed_bounds is not None):
                self._note_fixed(None if self._n_solves == 0 else self._changed_variables())
        else:
            names = _LEGACY_OPTION_NAMES.get(self.name, (None, None, None))
            if time_limit is not None and self.name in _WHOLE_SECONDS:
                time_limit = max(1, math.ceil(time_limit))
            if time_limit is not None and self.name in _WALL_CLOCK_OPTION:
                key, value = _WALL_CLOCK_OPTION[self.name]
                if not any(name.lower() == key.lower() for name in opts):
                    opts[key] = value
            for value, key in zip((time_limit, self.options.mip_gap, self.options.threads), names, strict=True):
                if value is not None and key is not None:
                    opts[key] = value
        run = dict(tee=self.options.tee, load_solutions=False, **kwargs)
        if opts:
            run["options"] = opts
        started = time.perf_counter()
        results = self._opt.solve(model, **run)
        if self.name == "cbc":
            _refuse_unknown_cbc_options(getattr(self._opt, "_log", None), opts)
        termination = results.solver.termination_condition
        status = _LEGACY_STATUS.get(termination, Status.ERROR)
        minimize = _is_minimize(model)
        lower, upper = _finite(results.problem.lower_bound), _finite(results.problem.upper_bound)
        incumbent, bound = (upper, lower) if minimize else (lower, upper)
        has_solution = status in (Status.OPTIMAL, Status.FEASIBLE) or (
            status in (Status.TIME_LIMIT, Status.ITERATION_LIMIT, Status.INTERRUPTED) and incumbent is not None
        )
        if (status is Status.FEASIBLE and time_limit is not None
                and time.perf_counter() - started >= time_limit):
            # GLPK reports a run stopped by --tmlim only as 'feasible' (an unproven incumbent).
            status = Status.TIME_LIMIT
        elif (termination in _LIMIT_HIT_TERMINATIONS.get(self.name, ()) and time_limit is not None
              and not any(key.lower().startswith("max") for key in self.options.extra)):
            status = Status.TIME_LIMIT
            # intermediateNonInteger means no integer point was found; the 'upper bound' CBC
            # reports then is not one.
            has_solution = has_solution and termination is not LegacyTC.intermediateNonInteger
        elif (status is Status.FEASIBLE and self.name in _GAP_STOP_REPORTED_FEASIBLE
              and self.options.mip_gap
              and not _GAP_STOP_REPORTED_FEASIBLE[self.name] & set(self.options.extra)):
            # glpsol also calls a run stopped at --mipgap 'feasible'. It did not run out of time
            # (above) and had no other limit, so the gap stopped it: HiGHS and CBC say optimal.
            status = Status.OPTIMAL
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
                # CBC reports a time-limited run as solver status 'aborted', and Pyomo's loader
                # warns about loading it. The status above already says what happened, so the
                # results are marked ok for loading instead of logging a misleading warning.
                if results.solver.status in (SolverStatus.aborted, SolverStatus.warning):
                    results.solver.status = SolverStatus.ok
                model.solutions.load_from(results)
        objective = _objective_value(model) if has_solution else None
        if status is Status.INFEASIBLE:
            bound = None  # CBC reports the last node's bound of a model it proved infeasible
        if status is Status.OPTIMAL and bound is None and not (self.options.mip_gap and self._model_is_mip()):
            # Without a reported bound the incumbent is one only if no MIP gap was allowed
            # (APPSI's CBC reports none, also when it stopped at the gap).
            bound = objective
        return status, objective, bound, str(termination), has_solution, {}

    # -- pyomo.contrib.solver interfaces (highs, scip_direct, ...)
    def _solve_new(self, time_limit):
        config = dict(tee=self.options.tee, raise_exception_on_nonoptimal_result=False,
                      load_solutions=False)
        if time_limit is not None:
            config["time_limit"] = self._highs_time_limit(time_limit)
        if self.options.mip_gap is not None:
            config["rel_gap"] = self.options.mip_gap
        if self.options.threads is not None:
            config["threads"] = self.options.threads
        extra = dict(self.options.extra)
        if self.name.startswith("scip") and not self.options.tee:
            # Pyomo reads SCIP's log from a pipe in a thread that pyscipopt's optimize() keeps
            # from running (it holds the GIL): once the log filled the pipe, SCIP blocked, far
            # past its time limit. A quiet SCIP writes nothing there.
            extra.setdefault("display/verblevel", 0)
        if self.name in _HIGHS_NAMES:
            # HiGHS keeps options between solves; a solve without a limit must clear them.
            defaults = _highs_defaults()
            if time_limit is None:
                extra.setdefault("time_limit", defaults["time_limit"])
            if self.options.mip_gap is None:
                extra.setdefault("mip_rel_gap", defaults["mip_rel_gap"])
        if extra:
            config["solver_options"] = extra
        results = self._opt.solve(self.model, **config)
        status = _NEW_STATUS.get(getattr(results.termination_condition, "name", ""), Status.ERROR)
        solution_name = getattr(results.solution_status, "name", "")
        # An unbounded program has feasible points but no optimum: none of them is an answer.
        has_solution = (solution_name in ("optimal", "feasible")
                        and getattr(results.termination_condition, "name", "") != "unbounded")
        if has_solution:
            suffix = _dual_suffix(self.model)
            if suffix is not None:
                try:  # before loading anything: a failed solve leaves no values behind
                    duals = results.solution_loader.get_duals()
                except NotImplementedError as exc:
                    _forget_solution(self.model)
                    raise SolverError(
                        f"Solver {self.name!r} does not return duals; solve the LP with "
                        f"'appsi_highs', 'highs', '{MATRIX_SOLVER}', 'cbc' or 'glpk' instead."
                    ) from exc
                suffix.clear()
                suffix.update(duals)
            results.solution_loader.load_vars()
            if status is Status.ERROR:
                status = Status.FEASIBLE
        objective = _objective_value(self.model) if has_solution else None
        bound = _finite(results.objective_bound)
        if status is Status.OPTIMAL and bound is None:
            bound = objective
        termination = getattr(results.termination_condition, "name", str(results.termination_condition))
        return status, objective, bound, termination, has_solution, {}


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
        A solver name (see the module docstring).
    time_limit : float, optional
        Seconds. A MIP stopped by it returns its incumbent with ``Status.TIME_LIMIT``;
        ``inf`` means no limit. Pyomo's interfaces hand the model over before the solver's
        clock starts (see :class:`SolverOptions`). ``glpk`` takes whole seconds: a
        fractional limit is rounded up (0.2 s runs for 1 s).
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
    InvalidParameterError
        ``model`` not a Pyomo model, a bad ``time_limit``, ``mip_gap`` or ``threads``, an
        option HiGHS refuses, or one CBC's log reports as unknown (raised after the solve).
    SolverError
        The solver failed, or returned no solution and ``require_solution`` is True.
    """
    if options is not None and not isinstance(options, dict):
        raise InvalidParameterError(f"options must be a dict of solver options, got {type(options).__name__}.")
    opts = SolverOptions(time_limit=time_limit, mip_gap=mip_gap, threads=threads, tee=tee,
                         extra=dict(options or {}))
    return PersistentSolver(model, solver, opts).solve(require_solution=require_solution)
