"""Exceptions and warnings raised by ccopt.

Every error a user can cause is one of the classes below. Each subclasses the built-in
exception it refines, so ``except ValueError`` keeps working for code that does not know
ccopt, while ``except ccopt.CcoptError`` catches everything ccopt raises on purpose.

========================================  =========================================================
exception                                 raised when
========================================  =========================================================
:class:`InvalidDataError`                 the data matrix has the wrong shape or dtype, is empty,
                                          or holds NaN/inf (the message names the row and column)
:class:`DataFormatError`                  a data or constraint file is malformed (the message
                                          names the file and the line)
:class:`InvalidConstraintError`           a constraint row is malformed: non-integer, negative or
                                          out-of-range index, a self-pair ``i == j``, an unknown
                                          kind, a bad weight
:class:`ConflictingConstraintError`       the same pair is given both as must-link and cannot-link
:class:`InfeasibleConstraintsError`       no labelling satisfies the constraints for this ``k``:
                                          a cannot-link inside a must-link chain, a cannot-link
                                          clique larger than ``k``, fewer must-link components
                                          than ``k``, or a must-link component larger than the
                                          maximum cluster size; ``.certificate`` holds the proof
:class:`InvalidParameterError`            a parameter is out of range or of the wrong type
                                          (``n_clusters <= 0``, ``n_clusters > n_samples``,
                                          unknown method name, negative time limit, ...)
:class:`SolverNotAvailableError`          the requested solver is unknown to Pyomo or is not
                                          installed (the message says what to install)
:class:`SolverError`                      a solver ran but failed (error status, infeasible model
                                          that should be feasible, no solution loaded)
:class:`MemoryBudgetError`                a method would allocate a dense array larger than the
                                          configured bound (:func:`ccopt.set_config`)
:class:`ClusteringDeadEndError`           a greedy hard-constrained algorithm (COP-kmeans,
                                          PCKmeans/PCS with hard cannot-links, ML-kmeans) found
                                          an object with no admissible cluster in every restart
:class:`NotFittedError`                   an estimator's fitted attribute is read before ``fit``
========================================  =========================================================

Warnings: :class:`DuplicateConstraintWarning` (duplicate pairs were merged),
:class:`ConvergenceWarning` (an iterative method stopped on a limit before converging).
"""

from __future__ import annotations

__all__ = [
    "CcoptError",
    "CcoptWarning",
    "ClusteringDeadEndError",
    "ConflictingConstraintError",
    "ConvergenceWarning",
    "DataFormatError",
    "DuplicateConstraintWarning",
    "InfeasibleConstraintsError",
    "InvalidConstraintError",
    "InvalidDataError",
    "InvalidParameterError",
    "MemoryBudgetError",
    "NotFittedError",
    "SolverError",
    "SolverNotAvailableError",
]


class CcoptError(Exception):
    """Base class of every exception ccopt raises on purpose."""


class InvalidDataError(CcoptError, ValueError):
    """The data matrix is not a finite, non-empty 2-D numeric array."""


class DataFormatError(InvalidDataError):
    """A data or constraint file is malformed.

    Parameters
    ----------
    message : str
        What is wrong; the file and line are put in front of it (``path:line: message``).
    path : str, optional
        The file that was being read.
    line : int, optional
        1-based line number of the offending line.

    Attributes
    ----------
    path : str or None
        The file that was being read.
    line : int or None
        1-based line number of the offending line, when known.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{message}")
        self.path = path
        self.line = line


class InvalidConstraintError(CcoptError, ValueError):
    """A pairwise constraint is malformed (index, kind, weight).

    Parameters
    ----------
    message : str, default=""
        What is wrong, naming the offending rows.
    rows : iterable of int, default=()
        Positions of the offending constraints in the order they were given.

    Attributes
    ----------
    rows : tuple of int
        Positions of the offending constraints in the order they were given, when the check
        that failed names them (empty otherwise).
    """

    def __init__(self, message: str = "", *, rows=()):
        super().__init__(message)
        self.rows = tuple(int(r) for r in rows)


class ConflictingConstraintError(InvalidConstraintError):
    """The same pair of objects is given as must-link and as cannot-link.

    Parameters
    ----------
    message : str, default=""
        The message, naming both rows.
    rows : iterable of int, default=()
        Positions of the rows in conflict, when known.
    """


class InfeasibleConstraintsError(CcoptError, ValueError):
    """No labelling into ``k`` clusters satisfies the hard constraints.

    Parameters
    ----------
    message : str
        What makes the constraints infeasible.
    certificate : object, optional
        The proof of infeasibility (see Attributes).

    Attributes
    ----------
    certificate : object
        The proof of infeasibility: for a cannot-link inside a must-link component the
        must-link chain (list of object indices); for a cannot-link clique the clique
        (list of object indices, one per super-instance); otherwise a short description.
    """

    def __init__(self, message: str, *, certificate=None):
        super().__init__(message)
        self.certificate = certificate


class InvalidParameterError(CcoptError, ValueError):
    """A parameter has the wrong type or is out of its valid range."""


class SolverNotAvailableError(CcoptError, RuntimeError):
    """The requested solver is unknown to Pyomo or is not installed."""


class SolverError(CcoptError, RuntimeError):
    """A solver ran but did not return a usable result."""


class MemoryBudgetError(CcoptError, MemoryError):
    """A dense allocation would exceed the configured memory bound.

    Parameters
    ----------
    message : str
        ``summary`` followed by what to do, in Python terms.
    summary : str, optional
        What was refused and why, without the advice (the command line gives its own).

    Attributes
    ----------
    summary : str
        ``summary`` as given, else ``message``.
    """

    def __init__(self, message: str, *, summary: str | None = None):
        super().__init__(message)
        self.summary = message if summary is None else summary


class ClusteringDeadEndError(CcoptError, RuntimeError):
    """A greedy hard-constrained assignment found an object with no admissible cluster."""


class NotFittedError(CcoptError, ValueError, AttributeError):
    """An estimator is used before it was fitted.

    A ``ValueError`` and an ``AttributeError``, like scikit-learn's ``NotFittedError``. The
    estimators raise a subclass that is scikit-learn's ``NotFittedError`` as well, so code
    written for scikit-learn estimators catches it by that name too.
    """


class CcoptWarning(UserWarning):
    """Base class of ccopt's warnings."""


class DuplicateConstraintWarning(CcoptWarning):
    """Duplicate pairs were merged into one constraint (scores still map back to every row)."""


class ConvergenceWarning(CcoptWarning):
    """An iterative method stopped on a limit before meeting its convergence test."""
