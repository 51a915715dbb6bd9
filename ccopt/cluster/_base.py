"""The estimator contract shared by every clustering algorithm in ccopt.cluster.

Subclasses store their keyword-only parameters in ``__init__`` (nothing else) and implement
``_fit(problem, rng, deadline) -> FitOutcome`` on a validated :class:`ClusteringProblem`.
:meth:`ConstrainedClusterer.fit` validates once, runs the kernel, and sets the fitted
attributes common to all algorithms.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

from ccopt._threads import single_blas_thread
from ccopt._timing import Deadline
from ccopt._validation import (
    check_data,
    check_feature_names,
    check_random_state,
    check_time_limit,
    feature_names,
)
from ccopt._warnings import warn_user
from ccopt.cluster._init_centers import squared_distances
from ccopt.constraints import Constraints, _cannot_links_in_chains, _listing, _unread_settings
from ccopt.exceptions import (
    CcoptWarning,
    ConvergenceWarning,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
)
from ccopt.metrics import wcss
from ccopt.problem import ClusteringProblem
from ccopt.status import Status

__all__ = ["ConstrainedClusterer", "EstimatorNotFittedError", "FitOutcome", "function_twin"]


class EstimatorNotFittedError(NotFittedError, SklearnNotFittedError):
    """What an unfitted estimator raises: ccopt's and scikit-learn's ``NotFittedError``.

    Defined here rather than in :mod:`ccopt.exceptions`, which does not import scikit-learn
    (``import ccopt`` stays light); every estimator imports it anyway.
    """


@dataclass
class FitOutcome:
    """What a kernel returns.

    Attributes
    ----------
    labels : ndarray of int, shape (n_samples,)
        Cluster of each object, in ``0..n_clusters-1``.
    centers : ndarray of shape (n_clusters, n_features)
    objective : float
        The algorithm's own objective (penalised cost, WCSS, ...).
    n_iter : int
    status : Status
    extra : dict
        Algorithm-specific fitted attributes, set on the estimator as ``<key>_``.
    """

    labels: np.ndarray
    centers: np.ndarray
    objective: float
    n_iter: int
    status: Status
    extra: dict | None = None


class ConstrainedClusterer(ClusterMixin, BaseEstimator):
    """Base class: ``fit(X, y=None, *, ml=None, cl=None, constraints=None)`` sets the common attributes.

    Fitted attributes
    -----------------
    labels_ : ndarray of int, shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    objective_ : float
        The algorithm's own objective.
    inertia_ : float
        Within-cluster sum of squares of ``labels_`` (to compare algorithms on one scale).
    n_violations_ : dict
        ``{"ml": int, "cl": int, "total": int}`` violated constraints; a pair given more
        than once counts once.
    constraints_ : Constraints
        The validated constraints of the fit: the distinct pairs (duplicate rows merged),
        ML pairs before CL pairs when given as ``ml=``/``cl=``; ``constraints_.given_index``
        maps every row as given to its pair.
    violations_ : ViolationReport
        Which constraints ``labels_`` violates, as positions in ``constraints_`` (the
        distinct pairs), not in the rows as given: ``constraints_.pairs[violations_.cl_violated]``
        are the violated cannot-link pairs. With ``ml=``/``cl=`` the cannot-link positions
        come after every must-link one, so they do not index ``cl``; use ``violated_``.
    violated_ : ndarray of bool, shape (n_given,)
        Whether ``labels_`` violates each constraint row *as given*, aligned as
        :func:`~ccopt.lagrange.impact_scores` aligns its scores: with ``ml=``/``cl=``, the
        ``ml`` rows in their order and then the ``cl`` rows (``violated_[len(ml):]`` is
        aligned with ``cl``); with ``constraints=``, that object's given rows. A pair given
        twice is marked at both rows.
    n_iter_ : int
    status_ : Status

    Examples
    --------
    >>> import numpy as np
    >>> from ccopt.cluster import KMeans
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> ml, cl = [(0, 1)], [(2, 3), (0, 2)]
    >>> import warnings
    >>> from ccopt import CcoptWarning
    >>> with warnings.catch_warnings():  # KMeans warns that it ignores the cannot-links
    ...     warnings.simplefilter("ignore", CcoptWarning)
    ...     km = KMeans(2, random_state=0).fit(X, ml=ml, cl=cl)
    >>> km.violated_.tolist()
    [False, True, False]
    >>> [cl[r] for r in np.flatnonzero(km.violated_[len(ml):])]
    [(2, 3)]
    >>> km.constraints_.pairs[km.violations_.cl_violated].tolist()
    [[2, 3]]
    """

    #: Hard-constraint algorithms need a closure without cannot-links inside must-link
    #: components and at least ``n_clusters`` components; soft ones do not.
    _requires_feasible_closure = False

    #: Soft algorithms that keep every must-link but read neither the ``hard`` flags of the
    #: cannot-links nor the constraint weights (KMeans, LCC) set this: fit then warns when
    #: either is given, rather than return a labelling the user believes respects them.
    _ignores_hard_and_weights = False

    #: KMeans keeps the must-links and ignores every cannot-link. Its own warning says so and
    #: counts the hard ones, so fit skips the warnings that would repeat it: hard cannot-links
    #: not honoured, cannot-links inside must-link chains.
    _ignores_cannot_links = False

    #: Kernels built on thin ``(n, d) x (d, k)`` products run with one BLAS thread (see
    #: :func:`ccopt._threads.single_blas_thread`); solver-driven ones keep the default.
    _single_blas_thread = False

    def _size_bounds(self) -> dict:
        """Cluster-size bounds to validate with the problem (algorithms with sizes override)."""
        return {}

    def _fit(self, problem: ClusteringProblem, rng: np.random.Generator, deadline: Deadline) -> FitOutcome:
        raise NotImplementedError

    def fit(self, X, y=None, *, ml=None, cl=None, constraints=None):
        """Cluster ``X`` under the given constraints.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : None or array-like of shape (n_samples,)
            Ignored, as in scikit-learn's clustering estimators (a pipeline may pass class
            labels). Anything else is refused: pairs given here would be lost.
        ml, cl : array-like of int, shape (m, 2), optional
            Must-link and cannot-link pairs (0-based object indices).
        constraints : Constraints, optional
            Alternative to ``ml``/``cl``.

        Returns
        -------
        self

        Warns
        -----
        ConvergenceWarning
            When ``labels_`` leaves a cluster empty (fewer than ``n_clusters`` clusters).
        CcoptWarning
            From an estimator that does not read them, when a constraint has a weight
            other than 1 (KMeans, LCC) or a cannot-link is flagged ``hard`` (LCC; KMeans'
            own warning about the cannot-links it ignores counts the hard ones). From a soft
            algorithm (PCKMeans, BHKMeans, PCS), when a cannot-link joins two
            objects that must-links tie together (a noisy set): no clustering satisfies
            every constraint, and the fit violates that cannot-link or a must-link of its
            chain. Hard-constraint algorithms (COPKMeans, MLKMeans, GreedyMLKMeans, LCC)
            raise :class:`~ccopt.exceptions.InfeasibleConstraintsError` instead, and so do
            the soft ones when the cannot-link and the must-links of its chain are all hard.
        """
        names = feature_names(X)
        problem = ClusteringProblem.create(
            X, self.n_clusters, constraints, ml=ml, cl=cl,
            require_closure=self._requires_feasible_closure, **self._size_bounds(),
        )
        _check_ignored_y(y, problem.n_samples)
        if self._ignores_hard_and_weights:
            _warn_ignored_hard_and_weights(type(self).__name__, problem.constraints,
                                           cannot_links_read=not self._ignores_cannot_links)
        rng = check_random_state(getattr(self, "random_state", None))
        deadline = Deadline(check_time_limit(getattr(self, "time_limit", None)))
        with single_blas_thread() if self._single_blas_thread else nullcontext():
            outcome = self._fit(problem, rng, deadline)
        if not (self._requires_feasible_closure or self._ignores_cannot_links):
            # After the kernel, which may still refuse such a set (a hard cannot-link inside
            # hard must-links): the warning is for a fit that runs on a contradictory set.
            _warn_cannot_links_in_chains(type(self).__name__, problem.constraints)
        self._set_fitted(problem, outcome, names)
        return self

    def _set_fitted(self, problem: ClusteringProblem, outcome: FitOutcome,
                    names: np.ndarray | None = None) -> None:
        labels = np.asarray(outcome.labels, dtype=np.int64)
        constraints = problem.constraints
        report = constraints.violations(labels)
        self.labels_ = labels
        self.constraints_ = constraints
        self.violated_ = constraints.to_given(report.violated)
        self.cluster_centers_ = np.asarray(outcome.centers, dtype=np.float64)
        self.objective_ = float(outcome.objective)
        self.inertia_ = wcss(problem.X, labels)
        self.violations_ = report
        self.n_violations_ = {"ml": report.n_ml, "cl": report.n_cl, "total": report.total}
        self.n_iter_ = int(outcome.n_iter)
        self.status_ = Status(outcome.status)
        self._set_features(problem.n_features, names)
        for key, value in (outcome.extra or {}).items():
            setattr(self, f"{key}_", value)
        _warn_empty_clusters(type(self).__name__, problem, labels)

    def fit_predict(self, X, y=None, *, ml=None, cl=None, constraints=None) -> np.ndarray:
        """Fit and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : None or array-like of shape (n_samples,)
            Ignored, as in :meth:`fit` (anything else is refused).
        ml, cl : array-like of int, shape (m, 2), optional
            Must-link and cannot-link pairs (0-based object indices).
        constraints : Constraints, optional
            Alternative to ``ml``/``cl``.

        Returns
        -------
        labels : ndarray of int64, shape (n_samples,)
            The fitted ``labels_``.

        Warns
        -----
        ConvergenceWarning, CcoptWarning
            As :meth:`fit`.
        """
        return self.fit(X, y, ml=ml, cl=cl, constraints=constraints).labels_

    def _set_features(self, n_features: int, names: np.ndarray | None) -> None:
        """Record the shape and column names of the training data, as scikit-learn does."""
        self.n_features_in_ = n_features
        if names is not None:
            self.feature_names_in_ = names
        else:
            # A refit on a plain array must not keep the names of an earlier DataFrame.
            self.__dict__.pop("feature_names_in_", None)

    def _check_new_data(self, X) -> np.ndarray:
        """Validate data given after fit: the columns must be those of the training data.

        The one check of new data, shared by every method that takes it (so far
        :meth:`predict`): the values first (a 1-D ``X`` is refused as such, not warned about
        for lacking column names), then the names, which say more than a count when columns
        differ.

        Raises
        ------
        InvalidDataError
            As :func:`~ccopt._validation.check_data` and
            :func:`~ccopt._validation.check_feature_names`, or when the number of features
            differs from the training data's.
        """
        values = check_data(X)
        check_feature_names(X, self.__dict__.get("feature_names_in_"), fitted_by=type(self).__name__)
        if values.shape[1] != self.n_features_in_:
            raise InvalidDataError(
                f"X has {values.shape[1]} features, but {type(self).__name__} was fitted on "
                f"{self.n_features_in_}; pass the same feature columns as to fit."
            )
        return values

    def predict(self, X) -> np.ndarray:
        """Nearest fitted centre of each object of ``X``: how new data joins the clusters.

        New objects carry no constraints (the pairs given to :meth:`fit` name rows of the
        training data), so each one goes to the centre of ``cluster_centers_`` nearest in
        Euclidean distance, as scikit-learn's ``KMeans.predict`` does. Size constraints
        (``KMeansS``, ``PCS``, ``BHKMeans`` with ``min_size``/``max_size``) are not applied
        to new objects either. Predicting the training data does not in general give
        ``labels_``: an object placed by a constraint sits away from its nearest centre.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Same features, in the same order, as the data given to :meth:`fit`.

        Returns
        -------
        labels : ndarray of int64, shape (n_samples,)
            Index of the nearest centre; ties go to the lower index.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            ``X`` is not a finite 2-D numeric array, its number of features differs from
            the training data's, its column names differ from ``feature_names_in_`` (in
            names or order), or its distances to the centres overflow float64.

        Warns
        -----
        CcoptWarning
            When the estimator was fitted on a DataFrame and ``X`` has no column names.
        """
        self._check_fitted()
        X = self._check_new_data(X)
        with np.errstate(over="ignore", invalid="ignore"):
            dist = squared_distances(X, self.cluster_centers_)
        if not np.isfinite(dist).all():
            # argmin would send every such row to the first nan or inf column silently.
            row = int(np.flatnonzero(~np.isfinite(dist).all(axis=1))[0])
            raise InvalidDataError(
                f"The squared distance of X row {row} to the fitted centres overflows float64; "
                "rescale X as the training data was."
            )
        return np.argmin(dist, axis=1).astype(np.int64)

    def _check_fitted(self) -> None:
        if not hasattr(self, "labels_"):
            raise EstimatorNotFittedError(f"This {type(self).__name__} is not fitted yet; call fit first.")

    def __getattr__(self, name: str):
        # Only reached when normal lookup fails: a public name ending in "_" is a fitted
        # attribute read before fit. NotFittedError subclasses AttributeError, so hasattr()
        # and getattr(..., default) keep working (scikit-learn's checks rely on them).
        if name == "feature_names_in_" and "labels_" in self.__dict__:
            raise AttributeError(f"This {type(self).__name__} was fitted on X without string column "
                                 "names, so it has no feature_names_in_.")
        if name.endswith("_") and not name.startswith("_"):
            raise EstimatorNotFittedError(f"This {type(self).__name__} is not fitted yet, so it has no {name}; "
                                 "call fit first.")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def _check_ignored_y(y, n_samples: int) -> None:
    """Refuse a ``y`` that is not ``None`` or one value per object (likely misplaced pairs)."""
    if y is None:
        return
    try:
        shape = np.shape(y)
    except ValueError:  # ragged, e.g. pairs of different lengths
        shape = "ragged"
    if shape != (n_samples,):
        raise InvalidParameterError(
            f"y is ignored, but it was given with shape {shape} where X has {n_samples} rows; "
            "pass constraints by keyword: fit(X, ml=..., cl=...) or fit(X, constraints=...)."
        )


def _warn_ignored_hard_and_weights(name: str, constraints: Constraints, *, cannot_links_read: bool = True) -> None:
    """Say that hard cannot-links and weights, which estimator ``name`` does not read, change nothing.

    Its must-links always hold, so only the ``hard`` flags of cannot-links go unheeded; with
    ``cannot_links_read=False`` (KMeans) not even those are counted here, since the
    estimator's own warning about ignored cannot-links names them.
    """
    hard_mask = constraints.cl_mask if cannot_links_read else np.zeros(len(constraints), dtype=bool)
    unread = _unread_settings(constraints, hard="cannot-link(s) marked hard", hard_mask=hard_mask)
    if unread:
        warn_user(
            f"{name} does not honour hard flags or use per-constraint weights ({unread} "
            f"of {len(constraints)} constraints): it keeps every must-link and may violate any "
            "cannot-link, hard or not. COPKMeans, MLKMeans and GreedyMLKMeans (every constraint "
            "hard), PCKMeans, BHKMeans and PCS honour hard flags; PCKMeans, BHKMeans and PCS use "
            "the weights.", CcoptWarning)


def _warn_cannot_links_in_chains(name: str, constraints: Constraints) -> None:
    """Say how many cannot-links lie inside must-link chains, and which, when a soft algorithm runs on them.

    Such a set contradicts itself (noisy constraints do), so at least one constraint of
    every such chain-and-cannot-link cycle is violated whatever the labelling.
    """
    inside = _cannot_links_in_chains(constraints)
    if not inside.size:
        return
    pairs = [f"({i}, {j}) [{constraints.row_name(p)}]"
             for p, (i, j) in zip(inside.tolist(), constraints.pairs[inside].tolist(), strict=True)]
    warn_user(
        f"{name}: {inside.size} of the {constraints.n_cl} cannot-link(s) lie inside must-link chains "
        f"(their two objects are tied together by must-links): {_listing(pairs)}. No clustering "
        "satisfies every constraint; the fit violates each such cannot-link or at least one "
        "must-link of its chain (n_violations_ counts them). Remove the contradicting pairs if "
        "the set should be consistent.", CcoptWarning)


def _warn_empty_clusters(name: str, problem: ClusteringProblem, labels: np.ndarray) -> None:
    """Say so when a fit hands back fewer than ``n_clusters`` clusters (scikit-learn's KMeans does)."""
    k = problem.n_clusters
    empty = np.flatnonzero(np.bincount(labels, minlength=k) == 0)
    if not empty.size:
        return
    n_distinct = np.unique(problem.X, axis=0).shape[0]
    why = (f"the data has only {n_distinct} distinct point{'s' * (n_distinct != 1)}" if n_distinct < k
           else "from this start; try another random_state or init, or n_init > 1")
    warn_user(f"{name} ended with {empty.size} empty cluster(s) of n_clusters={k} "
              f"(cluster(s) {empty.tolist()}): {why}.", ConvergenceWarning)


# --------------------------------------------------------------------------- function twins
def fit_summary(estimator: ConstrainedClusterer, X, ml, cl, constraints):
    """Fit and return ``(labels, centers, info)`` (the form of every function twin)."""
    estimator.fit(X, ml=ml, cl=cl, constraints=constraints)
    info = {
        "objective": estimator.objective_,
        "inertia": estimator.inertia_,
        "n_violations": estimator.n_violations_,
        "n_iter": estimator.n_iter_,
        "status": estimator.status_,
        "estimator": estimator,
    }
    return estimator.labels_, estimator.cluster_centers_, info


TWIN_RETURNS = """
    Returns
    -------
    labels : ndarray of int64, shape (n_samples,)
    centers : ndarray of shape (n_clusters, n_features)
    info : dict
        ``objective``, ``inertia``, ``n_violations`` (dict ``ml``/``cl``/``total``),
        ``n_iter``, ``status`` and ``estimator`` (the fitted estimator, for the
        algorithm-specific attributes).
"""

_TWIN_DOC = """Function twin of :class:`{cls}`: fit and return labels, centres and a summary.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    ml, cl : array-like of int, shape (m, 2), optional
    constraints : Constraints, optional
    **params
        Keyword parameters of :class:`{cls}`.
"""


def function_twin(estimator_class: type[ConstrainedClusterer], name: str):
    """The function twin of ``estimator_class`` (as ``k_means`` is of scikit-learn's ``KMeans``).

    The twin is ``name(X, n_clusters, *, ml=None, cl=None, constraints=None, **params)``; it
    fits ``estimator_class(n_clusters, **params)`` and returns :func:`fit_summary`'s triple.
    """

    def twin(X, n_clusters, *, ml=None, cl=None, constraints=None, **params):
        return fit_summary(estimator_class(n_clusters, **params), X, ml, cl, constraints)

    twin.__name__ = twin.__qualname__ = name
    twin.__module__ = estimator_class.__module__
    twin.__doc__ = _TWIN_DOC.format(cls=estimator_class.__name__) + TWIN_RETURNS
    return twin
