"""Clustering quality measures: partition agreement, objectives, constraint violations.

==========================================  ===================================================
measure                                     what it compares
==========================================  ===================================================
:func:`adjusted_rand_score`                 two partitions (scikit-learn, validated input)
:func:`normalized_mutual_info_score`        two partitions (scikit-learn, validated input)
:func:`rand_score`                          two partitions: share of object pairs on which
                                            they agree (Jia et al., Sec. 6.1.4)
:func:`wcss`                                within-cluster sum of squares (k-means objective)
:func:`kmedoids_objective`                  sum of distances to the cluster medoids
:func:`violations`                          a labelling against ML/CL constraints
:func:`detection_scores`                    predicted vs. true erroneous constraints
                                            (impact-score paper, Sec. 4.1)
:func:`alignment_score`                     a partition against ground truth and size
                                            constraints (PCS paper, eq. 24)
==========================================  ===================================================
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ccopt._validation import check_bool_array, check_choice, check_data, check_labels
from ccopt.config import check_dense_memory
from ccopt.constraints import ViolationReport, as_constraints
from ccopt.exceptions import InvalidParameterError

__all__ = [
    "DetectionScores",
    "adjusted_rand_score",
    "alignment_score",
    "detection_scores",
    "kmedoids_objective",
    "normalized_mutual_info_score",
    "rand_score",
    "violations",
    "wcss",
]


def _check_pair(labels_true, labels_pred) -> tuple[np.ndarray, np.ndarray]:
    true = check_labels(labels_true, "labels_true")
    pred = check_labels(labels_pred, "labels_pred", true.shape[0])
    return true, pred


def adjusted_rand_score(labels_true, labels_pred) -> float:
    """Adjusted Rand index (Hubert and Arabie), 1 for identical partitions, ~0 for random.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
    """
    from sklearn.metrics import adjusted_rand_score as ari

    return float(ari(*_check_pair(labels_true, labels_pred)))


def normalized_mutual_info_score(labels_true, labels_pred, *, average_method: str = "arithmetic") -> float:
    """Normalised mutual information in [0, 1].

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
    average_method : {"arithmetic", "geometric", "min", "max"}, default="arithmetic"
        How the two entropies are averaged in the denominator (scikit-learn's default).

    Returns
    -------
    float
    """
    from sklearn.metrics import normalized_mutual_info_score as nmi

    method = check_choice(average_method, "average_method", ("arithmetic", "geometric", "min", "max"))
    return float(nmi(*_check_pair(labels_true, labels_pred), average_method=method))


def _contingency(true: np.ndarray, pred: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Non-zero cell counts, row sums and column sums of the contingency table."""
    _, t = np.unique(true, return_inverse=True)
    _, p = np.unique(pred, return_inverse=True)
    t, p = t.reshape(-1), p.reshape(-1)
    cells = np.unique(t * (p.max() + 1) + p, return_counts=True)[1]
    return cells, np.bincount(t), np.bincount(p)


def _pairs(counts: np.ndarray) -> int:
    counts = counts.astype(np.int64)
    return int((counts * (counts - 1) // 2).sum())


def rand_score(labels_true, labels_pred) -> float:
    """Rand index: the share of object pairs on which the two partitions agree.

    .. math::

        RI = \\frac{a + b}{n (n - 1) / 2}

    with ``a`` the pairs together in both partitions and ``b`` the pairs apart in both
    (Jia et al., Sec. 6.1.4). Computed from the contingency table in O(n log n).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        In [0, 1]; 1.0 when ``n_samples == 1`` (there is no pair to disagree on).
    """
    true, pred = _check_pair(labels_true, labels_pred)
    n = true.shape[0]
    total = n * (n - 1) // 2
    if total == 0:
        return 1.0
    cells, rows, cols = _contingency(true, pred)
    together_both = _pairs(cells)
    disagree = _pairs(rows) + _pairs(cols) - 2 * together_both
    return float((total - disagree) / total)


def wcss(X, labels) -> float:
    """Within-cluster sum of squares: squared distances of objects to their cluster mean.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    labels : array-like of int, shape (n_samples,)

    Returns
    -------
    float
    """
    X = check_data(X)
    labels = check_labels(labels, "labels", X.shape[0])
    _, inverse = np.unique(labels, return_inverse=True)
    inverse = inverse.reshape(-1)
    counts = np.bincount(inverse)
    sums = np.zeros((counts.size, X.shape[1]))
    np.add.at(sums, inverse, X)
    means = sums / counts[:, None]
    return float(((X - means[inverse]) ** 2).sum())


def _distances(A: np.ndarray, B: np.ndarray, metric: str) -> np.ndarray:
    from scipy.spatial.distance import cdist

    try:
        return cdist(A, B, metric=metric)
    except ValueError as exc:
        raise InvalidParameterError(f"Unknown or unusable metric {metric!r}: {exc}") from None


def kmedoids_objective(X, labels, medoids=None, *, metric: str = "euclidean",
                       return_medoids: bool = False):
    """The k-medoids objective: sum of distances of objects to their cluster's medoid.

    .. math::

        \\sum_{c} \\sum_{i \\in C_c} d(x_i, x_{m_c})

    Without ``medoids`` each cluster's medoid ``m_c`` is its best one, the member with the
    smallest sum of distances to the other members (this needs the dense distance matrix of
    the largest cluster, checked against :func:`ccopt.set_config`'s bound). With
    ``medoids``, object ``i`` is measured to ``medoids[labels[i]]``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    labels : array-like of int, shape (n_samples,)
        With ``medoids``, codes in ``0..len(medoids)-1``.
    medoids : array-like of int, shape (n_clusters,), optional
        Object index of each cluster's medoid.
    metric : str, default="euclidean"
        Any metric of :func:`scipy.spatial.distance.cdist` (the impact-score paper uses
        Euclidean distances).
    return_medoids : bool, default=False

    Returns
    -------
    objective : float
    medoids : ndarray of int64, shape (n_clusters,)
        Only with ``return_medoids``: the medoid of each cluster, clusters in sorted label
        order (or the given medoids).
    """
    X = check_data(X)
    n = X.shape[0]
    labels = check_labels(labels, "labels", n)
    if medoids is not None:
        med = np.asarray(medoids)
        if med.ndim != 1 or not np.issubdtype(med.dtype, np.integer):
            raise InvalidParameterError(f"medoids must be a 1-D array of object indices, got {med!r}.")
        if med.size and (med.min() < 0 or med.max() >= n):
            raise InvalidParameterError(f"medoids must be object indices in 0..{n - 1}, got {med.tolist()}.")
        if not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= med.shape[0]:
            raise InvalidParameterError(
                f"With {med.shape[0]} medoids, labels must be integers in 0..{med.shape[0] - 1}.")
        total = 0.0
        for c in np.unique(labels):
            members = np.flatnonzero(labels == c)
            total += float(_distances(X[members], X[med[c]][None, :], metric).sum())
        return (total, med.astype(np.int64)) if return_medoids else total

    _, inverse = np.unique(labels, return_inverse=True)
    inverse = inverse.reshape(-1)
    largest = int(np.bincount(inverse).max())
    check_dense_memory((largest, largest), what="within-cluster distance matrix")
    total = 0.0
    best = np.empty(int(inverse.max()) + 1, dtype=np.int64)
    for c in range(best.shape[0]):
        members = np.flatnonzero(inverse == c)
        sums = _distances(X[members], X[members], metric).sum(axis=0)
        arg = int(np.argmin(sums))
        best[c] = members[arg]
        total += float(sums[arg])
    return (total, best) if return_medoids else total


def violations(labels, constraints=None, *, ml=None, cl=None) -> ViolationReport:
    """Count and locate the constraints a labelling violates.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
    constraints : Constraints, optional
    ml, cl : array-like of shape (m, 2), optional
        Alternative to ``constraints``.

    Returns
    -------
    ViolationReport
        ``n_ml``, ``n_cl``, ``total`` and, aligned with the constraints' order, ``violated``.
    """
    labels = check_labels(labels, "labels")
    cons = as_constraints(constraints, ml=ml, cl=cl, n_samples=labels.shape[0])
    return cons.violations(labels)


@dataclass(frozen=True)
class DetectionScores:
    """How well erroneous constraints were detected (impact-score paper, Sec. 4.1).

    Counts use the paper's labels, in which the *correct* constraints are the positive
    class: ``tp`` correct predicted correct, ``tn`` erroneous predicted erroneous, ``fp``
    erroneous predicted correct, ``fn`` correct predicted erroneous. The scores treat
    *erroneous* as the class being detected:

    .. math::

        \\text{precision} = \\frac{TN}{TN + FN}, \\quad
        \\text{recall} = \\frac{TN}{TN + FP}, \\quad
        F_1 = \\frac{2\\,TN}{2\\,TN + FN + FP}

    (the harmonic mean of the two whenever both are defined), which equal scikit-learn's
    precision, recall and F1 with erroneous as the positive label.

    Attributes
    ----------
    tp, tn, fp, fn : int
    precision, recall, f1 : float
    """

    tp: int
    tn: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float

    def describe(self) -> str:
        """Precision, recall and F1 on one line, ``n/a`` where a denominator is zero.

        0.000 would read as a failure where there was nothing to find (no constraint
        erroneous) or nothing was claimed (none predicted erroneous).
        """
        erroneous, predicted = self.tn + self.fp, self.tn + self.fn

        def ratio(num: int, den: int) -> str:
            return f"{num / den:.3f}" if den else "n/a"

        if not erroneous and not predicted:
            why = "no constraint is erroneous and none is predicted erroneous: nothing to detect"
        else:
            why = f"{self.tn} of {erroneous} erroneous found, {predicted} predicted"
            if not erroneous:
                why += "; recall n/a: no constraint is erroneous"
            elif not predicted:
                why += "; precision n/a: no constraint is predicted erroneous"
        return (f"precision {ratio(self.tn, predicted)}, recall {ratio(self.tn, erroneous)}, "
                f"F1 {ratio(2 * self.tn, erroneous + predicted)} ({why})")


def detection_scores(erroneous, predicted_erroneous, *, zero_division: float = 0.0) -> DetectionScores:
    """Precision, recall and F1 of predicting which constraints are erroneous.

    Parameters
    ----------
    erroneous : array-like of bool, shape (n_constraints,)
        The truth (e.g. ``~constraints.is_correct(labels_true)``).
    predicted_erroneous : array-like of bool, shape (n_constraints,)
        The prediction (e.g. ``scores < -tol`` for impact scores).
    zero_division : float, default=0.0
        Value of a score whose denominator is zero: precision when nothing is predicted
        erroneous (``TN + FN = 0``), recall when nothing is erroneous (``TN + FP = 0``), F1
        when both hold (``2 TN + FN + FP = 0``). ``0.0`` is scikit-learn's convention;
        ``numpy.nan`` marks the score as undefined. If only one of precision and recall is
        undefined, ``TN = 0`` and F1 is 0.

    Returns
    -------
    DetectionScores
    """
    truth = check_bool_array(erroneous, "erroneous")
    pred = check_bool_array(predicted_erroneous, "predicted_erroneous", truth.shape[0])
    # numbers.Real, not (int, float): numpy scalars such as np.float32(1.0) are numbers too.
    if isinstance(zero_division, bool) or not isinstance(zero_division, numbers.Real):
        raise InvalidParameterError(f"zero_division must be a number or nan, got {zero_division!r}.")
    tn = int((truth & pred).sum())
    fp = int((truth & ~pred).sum())
    fn = int((~truth & pred).sum())
    tp = int((~truth & ~pred).sum())

    def ratio(num: int, den: int) -> float:
        return float(num / den) if den else float(zero_division)

    return DetectionScores(tp, tn, fp, fn, ratio(tn, tn + fn), ratio(tn, tn + fp),
                           ratio(2 * tn, 2 * tn + fn + fp))


def alignment_score(labels_true, labels_pred, sizes, *, aligned: bool = False,
                    normalize: bool = False) -> float:
    """Alignment Score of the PCS paper (Zhang, Wong, Xie; eq. 24).

    .. math::

        AS(X, Y, E') = \\frac{|Y|}{k} \\sum_{h=1}^{k}
            \\frac{|V_h| / |P_h|}{\\bigl|E'_h - |V_h|\\bigr| + \\bigl||P_h| - |V_h|\\bigr| + 1}

    For cluster ``h``, ``P_h`` is its dominant ground-truth class (the class with most
    members in the cluster; ties go to the smallest class label) and ``|P_h|`` that class's
    size in the whole data; ``V_h`` are the cluster's members of that class; ``E'_h`` is
    the size constraint aligned to the cluster. ``|Y|`` is the number of objects, as the
    paper states ("for a perfect clustering solution, AS will be equal to |Y|, the number of
    points"). An empty cluster contributes 0.

    Alignment (eq. 7): unless ``aligned``, the prior sizes are matched to the clusters by
    rank: the cluster with the ``s``-th smallest size receives the ``s``-th smallest prior
    size (ties by cluster index).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
    labels_pred : array-like of int, shape (n_samples,)
        Cluster codes in ``0..k-1`` with ``k = len(sizes)``.
    sizes : array-like of int, shape (k,)
        Prior cluster sizes ``E`` (or the aligned ``E'`` when ``aligned``).
    aligned : bool, default=False
        ``sizes[h]`` already belongs to cluster ``h``.
    normalize : bool, default=False
        Divide by ``|Y|``, giving a score in (0, 1] with 1 for a perfect solution.

    Returns
    -------
    float
    """
    true, pred = _check_pair(labels_true, labels_pred)
    E = np.asarray(sizes)
    if (E.ndim != 1 or E.size == 0 or not np.issubdtype(E.dtype, np.number) or np.iscomplexobj(E)
            or not np.isfinite(E).all() or (E < 0).any() or (np.round(E) != E).any()):
        raise InvalidParameterError(
            f"sizes must be a non-empty 1-D array of finite sizes, whole numbers >= 0, got {sizes!r}.")
    k = E.shape[0]
    if not np.issubdtype(pred.dtype, np.integer) or pred.min() < 0 or pred.max() >= k:
        raise InvalidParameterError(f"labels_pred must hold cluster codes 0..{k - 1} (k = len(sizes)).")
    n = true.shape[0]
    _, t = np.unique(true, return_inverse=True)
    t = t.reshape(-1)
    n_classes = int(t.max()) + 1
    table = np.zeros((k, n_classes), dtype=np.int64)
    np.add.at(table, (pred, t), 1)
    F = table.sum(axis=1)
    if aligned:
        E_aligned = E.astype(np.float64)
    else:
        E_aligned = np.empty(k)
        E_aligned[np.argsort(F, kind="stable")] = np.sort(E.astype(np.float64), kind="stable")
    dominant = np.argmax(table, axis=1)  # first maximum: the smallest class label
    V = table[np.arange(k), dominant]
    P = np.bincount(t, minlength=n_classes)[dominant]
    terms = np.where(F > 0, (V / P) / (np.abs(E_aligned - V) + np.abs(P - V) + 1), 0.0)
    score = float(n / k * terms.sum())
    return score / n if normalize else score
