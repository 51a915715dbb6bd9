"""The subgradient driver: Algorithm 1 of Randel et al. (2021).

The loop reads like Pyomo's gdpopt drivers: each iteration times its steps, updates the
bounds in one place (:meth:`_Run.record_lower`, :meth:`_Run.record_upper`), checks
termination through one small helper per reason, and appends one history row.

Step rule, as written in Algorithm 1: with :math:`\\alpha_\\ell = 1/\\sqrt{\\ell}`, the
current Lagrangian value :math:`Z` and the best feasible value :math:`\\bar Z^*`, every
multiplier family ``f`` (eta, lambda, gamma, and any family the oracle owns) moves by

.. math::

    w_f \\leftarrow w_f + \\alpha_\\ell \\frac{\\bar Z^* - Z}{\\lVert g_f \\rVert^2} g_f

followed by the projection onto :math:`w \\le 0` (free families are not projected). The
multipliers of the largest lower bound are kept; they give the impact scores (17). The
p-median oracle's families (``K = n`` columns) are kept sparse and moved without forming
them densely (:meth:`~ccopt.lagrange.multipliers.ColumnSubgradient.projected_step`).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ccopt._progress import check_progress, progress_bar
from ccopt._timing import Deadline
from ccopt._validation import check_choice, check_nonnegative, check_positive_int, check_time_limit
from ccopt.exceptions import SolverError
from ccopt.lagrange.multipliers import ColumnSubgradient, Multipliers, Subgradient
from ccopt.lagrange.oracles import OracleSolution
from ccopt.status import Status

__all__ = ["History", "SubgradientConfig", "SubgradientOutcome", "run_subgradient"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SubgradientConfig:
    """Settings of Algorithm 1.

    Parameters
    ----------
    max_iter : int, default=1000
        The paper's ``m``.
    time_limit : float, optional
        Seconds for the whole loop.
    gap_tol : float, default=1e-4
        Stop when ``(UB - LB) / |UB|`` falls to this (1e-4 is 0.01 %). A heuristic oracle's
        value above the best feasible value is not kept as a lower bound (weak duality
        excludes it), so such a run does not stop at a negative gap; a value within a
        relative 1e-9 of it (summation rounding) counts as equal to it. A run whose gap is
        closed stops as ``optimal`` when every lower value was a bound, ``converged`` when
        one came from a heuristic oracle (its labelling is then not proven optimal).
    stagnation_iter : int or None, default=300
        Stop when the best lower bound has not improved by more than ``stagnation_tol``
        (relative) for this many iterations. None disables the test.
    stagnation_tol : float, default=1e-7
    repair_every : int, default=1
        Run the repair routine on every ``repair_every``-th lower-bound solution; 0 runs it
        never (the paper's MSSC experiments computed the upper bound once, at the start).
    step_norm : {"full", "active"}, default="full"
        ``"full"`` divides by the squared norm of the whole family subgradient, as
        written; ``"active"`` leaves out the components that the projection would cancel
        (multiplier at 0 and subgradient pushing up), a common refinement.
    progress : bool or "always", default=False
        Progress bar over the iterations (off in this low-level configuration;
        :func:`ccopt.impact_scores` turns it on by default).
    """

    max_iter: int = 1000
    time_limit: float | None = None
    gap_tol: float = 1e-4
    stagnation_iter: int | None = 300
    stagnation_tol: float = 1e-7
    repair_every: int = 1
    step_norm: str = "full"
    progress: bool = False

    def __post_init__(self):
        check_positive_int(self.max_iter, "max_iter")
        object.__setattr__(self, "time_limit", check_time_limit(self.time_limit))
        check_nonnegative(self.gap_tol, "gap_tol")
        if self.stagnation_iter is not None:
            check_positive_int(self.stagnation_iter, "stagnation_iter")
        check_nonnegative(self.stagnation_tol, "stagnation_tol")
        check_positive_int(self.repair_every, "repair_every", minimum=0)
        check_choice(self.step_norm, "step_norm", ("full", "active"))
        object.__setattr__(self, "progress", check_progress(self.progress))


@dataclass
class History:
    """One row per iteration: the columns are numpy arrays of equal length.

    Parameters
    ----------
    columns : dict of str to list, optional
        The columns, by name: ``iteration``, ``lower_bound`` (this iteration's Lagrangian
        value), ``best_lower_bound``, ``upper_bound`` (best feasible so far), ``gap``,
        ``step`` (``alpha_l``), ``seconds`` (since the start), and ``f1`` when the truth is
        known. Read a column as an array with ``history["gap"]``.

    Notes
    -----
    ``f1`` is that of the best multipliers so far (``score_from="best"``), whatever
    ``score_from`` the scores are read with. On a heuristic route ``best_lower_bound`` can
    fall, even to ``-inf``: a better incumbent shows that a kept heuristic value lay above
    it, so it was no bound (weak duality), and it is dropped.
    """

    columns: dict[str, list] = field(default_factory=dict)

    def append(self, **row) -> None:
        for key, value in row.items():
            self.columns.setdefault(key, []).append(value)

    def __len__(self) -> int:
        return len(self.columns.get("iteration", []))

    def __getitem__(self, key: str) -> np.ndarray:
        return np.asarray(self.columns[key])

    @property
    def names(self) -> list[str]:
        """Column names."""
        return list(self.columns)

    def to_csv(self, path) -> None:
        """Write the table as CSV, one row per iteration, integers without a decimal point.

        Parameters
        ----------
        path : str or path-like
            The file to write (replaced if it exists).
        """
        names = self.names
        with open(path, "w") as handle:
            handle.write(",".join(names) + "\n")
            for i in range(len(self)):
                handle.write(",".join(_csv_cell(self.columns[n][i]) for n in names) + "\n")


def _csv_cell(value) -> str:
    """An iteration number as an integer (not ``1.0``); any other value as a float that reads back exactly."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    return repr(float(value))


@dataclass
class SubgradientOutcome:
    """What :func:`run_subgradient` returns.

    Attributes
    ----------
    best_multipliers : Multipliers
        The multipliers of the largest lower bound (Algorithm 1's ``eta_best``, ...).
    lower_bound : float
        The largest Lagrangian value kept; ``-inf`` if none was.
    upper_bound : float
        The best feasible value ``Z*`` at the end.
    best_labels : ndarray of int or None
        The feasible labelling of ``upper_bound``.
    lower_labels : ndarray of int or None
        The oracle's labelling at ``lower_bound``.
    status : Status
        ``optimal`` (gap met by a proven bound), ``converged`` (gap met by a heuristic
        value), ``iteration_limit``, ``time_limit``, ``stagnation`` or ``interrupted``.
    n_iter : int
        Completed iterations (rows of ``history``).
    history : History
        One row per iteration.
    seconds : float
        Wall-clock time of the loop.
    lower_is_bound : bool
        Whether every oracle value was a proven lower bound.
    average_multipliers : Multipliers or None
        Mean of the iterates over about the last half of the run (``average_tail=True``).
    best_oracle_multipliers : dict of str to ndarray
        The oracle's own multiplier families at ``lower_bound``.
    """

    best_multipliers: Multipliers
    lower_bound: float
    upper_bound: float
    best_labels: np.ndarray | None
    lower_labels: np.ndarray | None
    status: Status
    n_iter: int
    history: History
    seconds: float
    lower_is_bound: bool
    average_multipliers: Multipliers | None = None
    best_oracle_multipliers: dict = field(default_factory=dict)


UpperBound = Callable[[OracleSolution], "tuple[float, np.ndarray] | None"]


class _TailAverage:
    """Mean of the multiplier iterates over roughly the last half of the run.

    The run length is unknown in advance (time limits), so accumulators restart at
    iterations 1, 2, 4, 8, ...; the older of the two live ones always covers between the
    last half and the last three quarters of the iterations so far.
    """

    def __init__(self):
        self._windows: list[tuple[int, Multipliers, int]] = []  # (start, sum, count)

    def add(self, mult: Multipliers, iteration: int) -> None:
        if iteration & (iteration - 1) == 0:  # a power of two: open a new window
            self._windows.append((iteration, Multipliers.zeros(0, 0, 0), 0))
            self._windows = self._windows[-2:]
        updated = []
        for start, total, count in self._windows:
            if count == 0:
                total = mult.copy()
            else:
                total.eta += mult.eta
                total.lam += mult.lam
                total.gamma += mult.gamma
            updated.append((start, total, count + 1))
        self._windows = updated

    def mean(self) -> Multipliers | None:
        if not self._windows:
            return None
        _, total, count = self._windows[0]
        return Multipliers(total.eta / count, total.lam / count, total.gamma / count)


class _Run:
    """State of one run of Algorithm 1."""

    def __init__(self, oracle, config: SubgradientConfig, initial_ub: float, initial_labels,
                 f1_of: Callable[[Multipliers], float] | None, mult: Multipliers):
        self.oracle = oracle
        self.config = config
        self.mult = mult
        self.best_mult = mult.copy()
        self.best_oracle_mult = _copy_families(oracle.extra)
        self.best_lb = -math.inf
        self.best_lb_labels = None
        self.ub = float(initial_ub)
        self.ub_labels = initial_labels
        self.f1_of = f1_of
        self.history = History()
        self.deadline = Deadline(config.time_limit)
        self.last_improvement = 0
        self.status: Status | None = None
        self.lower_is_bound = True

    # -- bounds, updated in one place
    def _rounding(self) -> float:
        """How far a value may lie above the incumbent and still equal it.

        The oracles and the upper-bounding step sum the same objective in different orders,
        so a heuristic value at the incumbent itself (zero multipliers on an optimum) comes
        out an ulp or two above it.
        """
        return 1e-9 * abs(self.ub)

    def missed_minimum(self, solution: OracleSolution) -> bool:
        """Whether a heuristic value lies above the incumbent, so the oracle missed the minimum.

        Weak duality puts the Lagrangian minimum at or below every feasible value.
        """
        return not solution.is_bound and solution.value > self.ub + self._rounding()

    def record_lower(self, solution: OracleSolution, iteration: int) -> bool:
        self.lower_is_bound = self.lower_is_bound and solution.is_bound
        value = solution.value
        if not solution.is_bound:
            if self.missed_minimum(solution):
                # Kept as the best, it would end the run as "optimal" at a negative gap with the
                # multipliers of that iteration (all zero at the first).
                return False
            value = min(value, self.ub)
        improved = value > self.best_lb
        if improved:
            scale = abs(self.best_lb) if math.isfinite(self.best_lb) else 1.0
            if value - self.best_lb > self.config.stagnation_tol * scale:
                self.last_improvement = iteration
            self.best_lb = value
            self.best_mult = self.mult.copy()
            # The families the oracle owns (the lagrangian route's mu) belong to the bound too.
            self.best_oracle_mult = _copy_families(self.oracle.extra)
            self.best_lb_labels = solution.labels
        return improved

    def record_upper(self, candidate) -> bool:
        if candidate is None:
            return False
        value, labels = candidate
        if value < self.ub:
            self.ub, self.ub_labels = float(value), labels
            if not self.lower_is_bound and self.best_lb > self.ub:
                # The new incumbent shows that the kept heuristic value was no bound (weak
                # duality); the next value at or below the incumbent replaces it and its
                # multipliers. A value equal to it up to rounding stays, at the incumbent.
                self.best_lb = self.ub if self.best_lb <= self.ub + self._rounding() else -math.inf
            return True
        return False

    def gap(self) -> float:
        if not math.isfinite(self.best_lb) or not math.isfinite(self.ub):
            return math.inf
        return (self.ub - self.best_lb) / max(1e-12, abs(self.ub))

    # -- one helper per termination reason
    def reached_gap(self) -> bool:
        if self.gap() <= self.config.gap_tol:
            # A heuristic oracle's value (capped at the incumbent) proves nothing: its runs
            # that meet the incumbent are "converged", never "optimal".
            self.status = Status.OPTIMAL if self.lower_is_bound else Status.CONVERGED
            logger.info("stop: gap %.3g <= %.3g", self.gap(), self.config.gap_tol)
            return True
        return False

    def reached_time_limit(self) -> bool:
        if self.deadline.expired():
            self.status = Status.TIME_LIMIT
            logger.info("stop: time limit of %.1f s", self.config.time_limit)
            return True
        return False

    def reached_stagnation(self, iteration: int) -> bool:
        patience = self.config.stagnation_iter
        if patience is not None and iteration - self.last_improvement >= patience:
            self.status = Status.STAGNATION
            logger.info("stop: no lower-bound improvement in %d iterations", patience)
            return True
        return False

    # -- the multiplier update of Algorithm 1
    def update(self, solution: OracleSolution, iteration: int) -> float:
        alpha = 1.0 / math.sqrt(iteration)
        if not math.isfinite(solution.value) or not math.isfinite(self.ub):
            # A MIP stopped before proving any bound has no value, and without a feasible
            # solution there is no Z*: an infinite step would leave the multipliers at -inf
            # and NaN.
            return 0.0
        # A heuristic oracle can overshoot the upper bound; keep the step pointing uphill.
        numerator = max(self.ub - solution.value, 1e-9 * abs(self.ub))
        g: Subgradient = solution.subgradient
        for name, grad in (("eta", g.eta), ("lam", g.lam), ("gamma", g.gamma)):
            values = getattr(self.mult, name)
            if math.prod(values.shape):  # not .size: a sparse array's is its stored entries
                setattr(self.mult, name, self._move(values, grad, alpha * numerator, project=True))
        for name, grad in solution.extra_subgradients.items():
            self._move(self.oracle.extra[name], grad, alpha * numerator, project=False)
        return alpha

    def _move(self, values, grad, scale: float, *, project: bool):
        """Move ``values`` along ``grad``; dense ones in place. Returns the moved values."""
        if sp.issparse(values):
            return self._move_sparse(values, grad, scale)
        grad = np.asarray(grad)
        if self.config.step_norm == "active" and project:
            active = ~((values >= 0.0) & (grad > 0.0))
            norm2 = float((grad[active] ** 2).sum())
        else:
            norm2 = float((grad * grad).sum())
        if norm2 <= 0.0:
            return values
        values += (scale / norm2) * grad
        if project:
            np.minimum(values, 0.0, out=values)
        return values

    def _move_sparse(self, values: sp.csr_array, grad, scale: float) -> sp.csr_array:
        """The projected move of a sparse family (:mod:`ccopt.lagrange.multipliers`)."""
        if not isinstance(grad, ColumnSubgradient):
            # A dense subgradient moves every entry: the family is dense for this step.
            return sp.csr_array(self._move(values.toarray(), grad, scale, project=True))
        norm2 = grad.squared_norm(values if self.config.step_norm == "active" else None)
        if norm2 <= 0.0:
            return values
        return grad.projected_step(values, scale / norm2)


def run_subgradient(oracle, mult: Multipliers, *, config: SubgradientConfig, initial_upper: float,
                    initial_labels: np.ndarray | None, upper_bound: UpperBound | None = None,
                    f1_of: Callable[[Multipliers], float] | None = None,
                    average_tail: bool = False) -> SubgradientOutcome:
    """Maximise the Lagrangian dual (11) by the subgradient method (Algorithm 1).

    Parameters
    ----------
    oracle : object
        Lower-bounding oracle with ``solve(mult) -> OracleSolution`` and an ``extra`` dict
        of the multiplier families it owns (see :mod:`ccopt.lagrange.oracles`). A heuristic
        oracle may offer ``restart_from(labels)``: when its value lies above the incumbent,
        the driver restarts it from the incumbent and solves again. An oracle with
        ``sparse_multipliers = True`` has its multipliers kept as CSR arrays.
    mult : Multipliers
        Starting multipliers (Algorithm 1 starts from zero); updated in place: dense
        families array by array, sparse ones (:meth:`Multipliers.sparsify`, done here for
        an oracle with ``sparse_multipliers``) by replacing the attribute.
    config : SubgradientConfig
    initial_upper : float
        Value of the best available feasible solution (``Z*``); ``math.inf`` if none is
        known, and then the multipliers stay where they are until ``upper_bound`` finds one.
    initial_labels : ndarray or None
        That solution.
    upper_bound : callable, optional
        The repair routine ``R``: lower-bound solution -> ``(value, feasible labels)`` or None.
    f1_of : callable, optional
        Multipliers -> F1 of the predicted erroneous constraints (history column ``f1``).
    average_tail : bool, default=False
        Also return the mean of the multiplier iterates over about the last half of the run.

    Returns
    -------
    SubgradientOutcome
        ``status`` is ``optimal`` (gap met by a proven bound), ``converged`` (gap met by a
        heuristic value), ``iteration_limit``, ``time_limit``, ``stagnation`` or
        ``interrupted`` (KeyboardInterrupt: the best so far is returned).
    """
    if getattr(oracle, "sparse_multipliers", False):
        mult.sparsify()
    run = _Run(oracle, config, initial_upper, initial_labels, f1_of, mult)
    tail = _TailAverage() if average_tail else None
    bar = progress_bar(config.max_iter, enabled=config.progress, desc="subgradient")
    iteration = 0
    start = time.perf_counter()
    try:
        for iteration in range(1, config.max_iter + 1):
            if tail is not None:
                tail.add(run.mult, iteration)
            try:
                solution = oracle.solve(run.mult)
            except SolverError:
                # A solve cut short by the time limit has nothing to load; anything else is real.
                if run.reached_time_limit():
                    break
                raise
            if run.missed_minimum(solution) and run.ub_labels is not None and hasattr(oracle, "restart_from"):
                # A descent stuck at a local minimum above the incumbent would be rejected on
                # every iteration: its tiny steps leave the multipliers where they are, and the
                # run would end without a lower value. The incumbent is a start below it.
                oracle.restart_from(run.ub_labels)
                solution = oracle.solve(run.mult)
            run.record_lower(solution, iteration)
            if upper_bound is not None and config.repair_every and iteration % config.repair_every == 0:
                run.record_upper(upper_bound(solution))
            done = run.reached_gap()
            alpha = 0.0 if done else run.update(solution, iteration)
            run.history.append(
                iteration=iteration, lower_bound=solution.value, best_lower_bound=run.best_lb,
                upper_bound=run.ub, gap=run.gap(), step=alpha, seconds=time.perf_counter() - start,
                **({"f1": f1_of(run.best_mult)} if f1_of is not None else {}),
            )
            bar.update(1)
            bar.set_postfix(LB=f"{run.best_lb:.6g}", UB=f"{run.ub:.6g}", gap=f"{run.gap():.2e}", refresh=False)
            if done or run.reached_time_limit() or run.reached_stagnation(iteration):
                break
        else:
            run.status = Status.ITERATION_LIMIT
    except KeyboardInterrupt:
        run.status = Status.INTERRUPTED
        # The iteration under way when Ctrl-C came is not in the history: count finished ones.
        logger.warning("interrupted after %d iterations; returning the best multipliers so far",
                       len(run.history))
    finally:
        bar.close()
    return SubgradientOutcome(
        best_multipliers=run.best_mult, lower_bound=run.best_lb, upper_bound=run.ub,
        best_labels=run.ub_labels, lower_labels=run.best_lb_labels, status=run.status or Status.ITERATION_LIMIT,
        n_iter=len(run.history), history=run.history, seconds=time.perf_counter() - start,
        lower_is_bound=run.lower_is_bound,
        average_multipliers=tail.mean() if tail is not None else None,
        best_oracle_multipliers=run.best_oracle_mult,
    )


def _copy_families(families: dict) -> dict:
    return {name: values.copy() for name, values in families.items()}
