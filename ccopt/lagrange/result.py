"""The result of an impact-score computation."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field

import numpy as np

from ccopt._validation import check_bool_array, check_positive_int
from ccopt.constraints import Constraints
from ccopt.exceptions import InvalidParameterError
from ccopt.lagrange.driver import History
from ccopt.lagrange.multipliers import Multipliers
from ccopt.metrics import DetectionScores
from ccopt.status import Status

__all__ = ["ImpactScoreResult", "normalize_scores"]


def normalize_scores(scores: np.ndarray, ml_mask: np.ndarray) -> np.ndarray:
    """Sec. 4.2: divide each score by the smallest score of its kind (ML or CL).

    Normalised scores of scores ``<= 0`` lie in [0, 1]; 1 marks the most suspicious
    constraint of its kind. A kind whose scores are all ``>= 0`` stays at 0. A positive
    score (which a heuristic baseline's independent runs can give) becomes negative, so no
    threshold ``tau >= 0`` predicts it erroneous.

    Parameters
    ----------
    scores : array-like of float, shape (m,)
        Impact scores, finite (normally ``<= 0``).
    ml_mask : array-like of bool, shape (m,)
        True for the must-links (0/1 values are read as False/True).

    Returns
    -------
    ndarray of shape (m,)

    Raises
    ------
    InvalidParameterError
        Scores that are not finite numbers, a mask that is not boolean (or 0/1), or
        lengths that differ.
    """
    try:
        scores = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"scores must be numbers: {exc}") from None
    if not np.isfinite(scores).all():
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InvalidParameterError(f"scores must be finite; score {bad} is {scores[bad]}.")
    ml_mask = check_bool_array(ml_mask, "ml_mask")
    if ml_mask.shape != scores.shape:
        raise InvalidParameterError(
            f"ml_mask must have one entry per score ({scores.size}), got shape {ml_mask.shape}.")
    out = np.zeros_like(scores)
    for mask in (ml_mask, ~ml_mask):
        if mask.any():
            lowest = scores[mask].min()
            if lowest < 0:
                out[mask] = scores[mask] / lowest
    return out + 0.0  # turns -0.0 into 0.0 for display


@dataclass
class ImpactScoreResult:
    """Impact scores (17) of a constraint set, with the evidence behind them.

    Per-constraint arrays are aligned with the constraints *as the user gave them*: with
    ``ml=`` and ``cl=`` the ML pairs in their order, then the CL pairs; with a
    :class:`~ccopt.Constraints` object, its row order (duplicate rows each get the score of
    their merged constraint).

    Attributes
    ----------
    constraints : Constraints
        The validated constraints (duplicate rows merged; ``given_index`` maps back).
    scores : ndarray of shape (n_given,)
        Impact score of every constraint; ``<= 0``. Negative: likely erroneous.
    normalized_scores : ndarray of shape (n_given,)
        Scores divided by the smallest score of their kind (Sec. 4.2), in [0, 1].
    tau : float
        Threshold on the normalised scores: predicted erroneous iff ``normalized > tau``
        (``tau = 0`` is the paper's rule "score < 0").
    predicted_erroneous : ndarray of bool, shape (n_given,)
        ``normalized_scores > tau``.
    lower_bound, upper_bound : float
        Best Lagrangian value and best feasible objective (``-inf`` / ``inf`` when none).
    lower_is_bound : bool
        Whether ``lower_bound`` is a proven lower bound on the constrained optimum (the
        ``lagrangian``, ``lp``, ``exact`` and ``lp-dual`` methods); the heuristic oracles
        (``voronoi`` and the MSSC route) only estimate it.
    gap : float
        ``(upper - lower) / |upper|``; ``inf`` unless both bounds are finite.
    scored : bool
        False when the run was stopped before any iteration improved on the first lower
        bound (see the property), so that the zero scores say nothing.
    multipliers : Multipliers
        The multipliers behind the scores (``eta``, ``lam``, ``gamma``; rows in the order of
        ``constraints.cl_indices`` and ``constraints.ml_indices``). With
        ``method="lagrangian"`` the families are ``scipy.sparse.csr_array`` (nearly all of the
        n columns stay 0, and dense they took more memory than the distance matrix).
    oracle_multipliers : dict of str to ndarray
        Multiplier families the lower-bounding oracle relaxes besides the pairwise rows, at
        the best lower bound: ``{"mu": ...}`` (one per object, the assignment rows) for
        ``method="lagrangian"``, empty for the other methods. With the best multipliers
        (``score_from="best"``) they reproduce ``lower_bound``.
    labels : ndarray of int or None
        The best feasible clustering found (None if no feasible one was found).
    history : History
        Iteration log (lower/upper bound, step, seconds, F1 when the truth is known).
    set_score : float
        ``I(C)``, the sum of the scores (Sec. 4.4).
    status : Status
        Why the computation stopped: ``optimal`` when a proven lower bound met the gap
        tolerance (the labelling is then optimal within it); ``converged`` when a heuristic
        lower value (the ``voronoi`` and ``mssc`` routes) met it, which proves nothing, or
        when ``lp-dual``'s one LP solve left a larger gap.
    n_iter : int
        Iterations done (rows of ``history``; one LP solve for ``lp-dual``).
    seconds : float
        Wall-clock time of the whole call (less the one-off import of scikit-learn on the
        first call, which ``time_limit`` does not count either).
    criterion, method, score_from : str
        The options the scores were computed with.
    detection : DetectionScores or None
        When the truth was given (``labels_true`` or ``erroneous``).
    erroneous : ndarray of bool or None
        The truth used for ``detection``.
    """

    constraints: Constraints
    scores: np.ndarray
    normalized_scores: np.ndarray
    tau: float
    predicted_erroneous: np.ndarray
    lower_bound: float
    upper_bound: float
    lower_is_bound: bool
    multipliers: Multipliers
    labels: np.ndarray | None
    history: History
    status: Status
    n_iter: int
    seconds: float
    criterion: str
    method: str
    score_from: str
    detection: DetectionScores | None = None
    erroneous: np.ndarray | None = None
    oracle_multipliers: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """Relative duality gap ``(upper - lower) / |upper|``."""
        if not np.isfinite(self.upper_bound) or not np.isfinite(self.lower_bound):
            return float("inf")
        return (self.upper_bound - self.lower_bound) / max(1e-12, abs(self.upper_bound))

    @property
    def scored(self) -> bool:
        """Whether the scores say something about the constraints.

        False when the run was stopped (time, iteration limit, Ctrl-C) before any iteration
        improved on the first lower bound: its best multipliers are then the starting zeros,
        and every score is 0 whatever the constraints. Also False for ``lp-dual`` before its
        LP solve. Zero scores are a finding when the gap was closed (``optimal``, or
        ``converged`` on a heuristic route), when the run gave up improving (``stagnation``)
        or after a bound better than the first (some oracles also move multipliers of their
        own, such as ``lagrangian``'s ``mu``).
        """
        if self.method == "lp-dual":
            return self.n_iter >= 1
        if self.status in (Status.OPTIMAL, Status.CONVERGED, Status.STAGNATION):
            return True
        if len(self.history) == 0:
            return False
        best = self.history["best_lower_bound"]
        return bool(best[-1] > best[0])

    @property
    def set_score(self) -> float:
        """``I(C)``: the sum of the impact scores of the distinct constraints (Sec. 4.4).

        The sum of ``scores`` with each merged duplicate counted once, so that it adds up the
        reported scores (with the scores within round-off of 0 set to 0), not the raw multipliers.
        """
        distinct = np.zeros(len(self.constraints))
        distinct[self.constraints.given_index] = self.scores
        return float(distinct.sum())

    @property
    def pairs(self) -> np.ndarray:
        """The constrained pairs as given, aligned with ``scores``."""
        return self.constraints.given_pairs

    @property
    def kinds(self) -> np.ndarray:
        """``"ML"``/``"CL"`` aligned with ``scores``."""
        return self.constraints.to_given(self.constraints.kind_names)

    def ranking(self) -> np.ndarray:
        """Indices of the constraints, most suspicious (most negative score) first.

        By the raw score, as the paper ranks them; the prediction divides each score by the
        most negative of its kind (Sec. 4.2), so a constraint predicted erroneous can rank
        below one that is not, when the kinds' scores differ in scale.
        """
        return np.argsort(self.scores, kind="stable")

    def table(self, *, limit: int | None = None) -> str:
        """A readable table: pair, kind, score, normalised score, prediction (and truth).

        Rows are ranked as by :meth:`ranking`, most suspicious first; the truth column
        appears when ``erroneous`` is known.

        Parameters
        ----------
        limit : int, optional
            Keep only the ``limit`` most suspicious rows (a positive int); all rows by default.

        Returns
        -------
        str

        Raises
        ------
        InvalidParameterError
            ``limit`` is not a positive integer.
        """
        header = f"{'rank':>4}  {'i':>6} {'j':>6}  {'kind':4}  {'score':>12}  {'norm':>6}  predicted"
        if self.erroneous is not None:
            header += "  truth"
        lines = [header, "-" * len(header)]
        order = self.ranking()
        if limit is not None:
            order = order[:check_positive_int(limit, "limit")]
        pairs, kinds = self.pairs, self.kinds
        for rank, idx in enumerate(order, start=1):
            line = (f"{rank:>4}  {pairs[idx, 0]:>6} {pairs[idx, 1]:>6}  {kinds[idx]:4}  "
                    f"{self.scores[idx]:>12.4g}  {self.normalized_scores[idx]:>6.3f}  "
                    f"{'ERRONEOUS' if self.predicted_erroneous[idx] else 'ok':9}")
            if self.erroneous is not None:
                line += f"  {'erroneous' if self.erroneous[idx] else 'correct'}"
            lines.append(line)
        return "\n".join(lines)

    def summary(self) -> str:
        """A few lines: bounds, gap, status, counts, detection quality."""
        lines = [
            f"criterion={self.criterion} method={self.method} scores from "
            + ("the LP duals" if self.method == "lp-dual" else f"{self.score_from} multipliers"),
            f"status={self.status} after {self.n_iter} iterations in {self.seconds:.2f} s",
            f"lower bound {self.lower_bound:.6g}{'' if self.lower_is_bound else ' (heuristic)'}, "
            f"upper bound {self.upper_bound:.6g}, gap {100 * self.gap:.4f} %",
            f"{int(self.predicted_erroneous.sum())} of {self.scores.size} constraints predicted erroneous "
            f"(tau={self.tau:g}); set score I(C) = {self.set_score:.6g}",
        ]
        if self.detection is not None:
            lines.append(f"detection: {self.detection.describe()}")
        return "\n".join(lines)

    def to_csv(self, path, *, ranked: bool = False) -> None:
        """Write one row per given constraint.

        Columns: ``i``, ``j``, ``kind`` (``ML``/``CL``), ``score``, ``normalized_score``,
        ``predicted_erroneous`` (1/0), and ``erroneous`` (1/0) when the truth is known.

        Parameters
        ----------
        path : str or path-like
            File to write (overwritten).
        ranked : bool, default=False
            False: the rows in the order the constraints were given, aligned with
            ``scores``. True: most suspicious first (:meth:`ranking`), led by the columns
            ``rank`` (1-based) and ``row`` (the constraint's 0-based position as given), as
            ``ccopt score --out`` writes them.
        """
        order = self.ranking() if ranked else range(self.scores.size)
        head = ["i", "j", "kind", "score", "normalized_score", "predicted_erroneous"]
        if self.erroneous is not None:
            head.append("erroneous")
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["rank", "row", *head] if ranked else head)
            pairs, kinds = self.pairs, self.kinds
            for rank, idx in enumerate(order, start=1):
                # "+ 0.0" writes 0.0 for the -0.0 that a division can leave.
                row = [int(pairs[idx, 0]), int(pairs[idx, 1]), kinds[idx], repr(float(self.scores[idx]) + 0.0),
                       repr(float(self.normalized_scores[idx]) + 0.0), int(self.predicted_erroneous[idx])]
                if self.erroneous is not None:
                    row.append(int(self.erroneous[idx]))
                writer.writerow([rank, int(idx), *row] if ranked else row)
