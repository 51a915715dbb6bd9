"""Data set loaders: scikit-learn's bundled sets, benchmark folders and user CSV files.

Every loader returns a :class:`Dataset`. ccopt does not bundle the benchmark files of the
papers; it reads them where the user keeps them, in the folder format of
``shared/datasets``::

    <root>/<name>/data.csv             header row, feature columns, an integer ``label`` column
    <root>/<name>/constraints*.csv     i,j,kind rows (0-based indices, kind ML or CL)

The root is given explicitly, or by the environment variable ``CCOPT_DATASETS``, or (in a
development checkout) found as ``shared/datasets`` next to the repository.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ccopt._validation import check_data, check_delimiter, not_utf8_error, parses_as, separator_hint
from ccopt._warnings import warn_user
from ccopt.constraints import Constraints
from ccopt.exceptions import CcoptWarning, DataFormatError, InvalidDataError, InvalidParameterError

__all__ = [
    "Dataset",
    "datasets_root",
    "iter_lagrangian_synthetic",
    "load_benchmark",
    "load_breast_cancer",
    "load_csv",
    "load_digits",
    "load_folder",
    "load_iris",
    "load_lagrangian_synthetic",
    "load_sklearn",
    "load_wine",
]

ENV_VAR = "CCOPT_DATASETS"
_MISSING = frozenset({"", "na", "nan", "?"})
# Values converted at once by load_csv: the strings of one chunk are all it holds beside the result.
_CHUNK_CELLS = 1 << 16


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data matrix with optional ground truth and named constraint sets.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Read-only.
    labels : ndarray of int64, shape (n_samples,), or None
        Ground-truth classes as integers (read-only): integer labels as given, other values
        coded 0..k-1 (see ``label_names``); None when the data has none.
    name : str
    feature_names : tuple of str, length n_features
    constraint_sets : mapping of str to Constraints
        Read-only mapping, e.g. ``{"p15": ..., "p20": ...}``; every set is bound to
        ``n_samples``.
    label_names : tuple or None
        Original label values, ``label_names[c]`` for code ``c``, when they were recoded.

    Raises
    ------
    InvalidDataError
        ``X`` not a finite, non-empty 2-D numeric array, ``labels`` not one integer per row,
        not one feature name per column, or a constraint set that is not a
        :class:`~ccopt.constraints.Constraints`, names an object beyond ``X``'s rows or was
        built for another ``n_samples``. A set built without ``n_samples`` is bound to
        ``X``'s rows.
    """

    X: np.ndarray
    labels: np.ndarray | None
    name: str
    feature_names: tuple
    constraint_sets: Mapping[str, Constraints] = field(default_factory=dict)
    label_names: tuple | None = None

    def __post_init__(self):
        # The loaders check their files; these checks catch a Dataset built by hand, whose
        # mistakes would otherwise surface later as IndexErrors or truncated labels.
        X = np.array(check_data(self.X), dtype=np.float64)  # a copy: the caller's array stays theirs
        X.setflags(write=False)
        object.__setattr__(self, "X", X)
        if self.labels is not None:
            labels = np.asarray(self.labels).reshape(-1)
            integral = labels.dtype.kind in "iu" or (
                labels.dtype.kind == "f" and bool(np.all(np.isfinite(labels) & (labels == np.round(labels)))))
            if not integral:
                raise InvalidDataError(
                    f"labels must be integer class codes, got dtype {labels.dtype}; code other values "
                    "0..k-1 and keep the originals in label_names.")
            if labels.shape[0] != X.shape[0]:
                raise InvalidDataError(f"labels has {labels.shape[0]} entries, X has {X.shape[0]} rows.")
            # astype wraps codes beyond int64 (1e20 and 2e20 would both become -2**63: two
            # classes merged without a word), so those are refused.
            if labels.size and (labels.max() >= 2**63 or labels.min() < -(2**63)):
                raise InvalidDataError(
                    "labels must fit in int64 (|code| < 2**63); code the classes 0..k-1 and keep the "
                    "originals in label_names.")
            labels = labels.astype(np.int64)
            labels.setflags(write=False)
            object.__setattr__(self, "labels", labels)
        names = tuple(str(f) for f in self.feature_names)
        if len(names) != X.shape[1]:
            raise InvalidDataError(f"feature_names has {len(names)} names, X has {X.shape[1]} columns.")
        object.__setattr__(self, "feature_names", names)
        bound = {}
        for name, cons in self.constraint_sets.items():
            if not isinstance(cons, Constraints):
                raise InvalidDataError(f"constraint set {name!r} is a {type(cons).__name__}, not Constraints.")
            if len(cons) and int(cons.pairs.max()) >= X.shape[0]:
                raise InvalidDataError(
                    f"constraint set {name!r} names object {int(cons.pairs.max())}, but X has only "
                    f"{X.shape[0]} rows (indices 0..{X.shape[0] - 1}).")
            if cons.n_samples is not None and cons.n_samples != X.shape[0]:
                raise InvalidDataError(
                    f"constraint set {name!r} was built for n_samples={cons.n_samples}, but X has "
                    f"{X.shape[0]} rows; build it for this data or rebind it with with_n_samples.")
            # Bound here so that, as documented, every set knows n_samples: an unbound set would
            # let is_correct and the models accept labels of any length.
            bound[name] = cons.with_n_samples(X.shape[0])
        object.__setattr__(self, "constraint_sets", MappingProxyType(bound))

    @property
    def n_samples(self) -> int:
        """Number of objects."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features."""
        return int(self.X.shape[1])

    @property
    def n_clusters(self) -> int | None:
        """Number of ground-truth classes, or None without labels."""
        return None if self.labels is None else int(np.unique(self.labels).shape[0])

    def __repr__(self) -> str:
        return (f"Dataset(name={self.name!r}, n_samples={self.n_samples}, n_features={self.n_features}, "
                f"n_clusters={self.n_clusters}, constraint_sets={list(self.constraint_sets)})")


def _check_path(value, name: str) -> str:
    """A file or folder name given as ``str`` or path-like (``open(3)`` would read file descriptor 3)."""
    if isinstance(value, str | PathLike):
        return os.fspath(value)
    raise InvalidParameterError(f"{name} must be a file or folder name (str or path-like), got {value!r}.")


# ----------------------------------------------------------------------------- scikit-learn
_SKLEARN = {"iris": "load_iris", "wine": "load_wine", "breast_cancer": "load_breast_cancer",
            "digits": "load_digits"}


def load_sklearn(name: str) -> Dataset:
    """Load one of scikit-learn's bundled data sets (no download).

    Parameters
    ----------
    name : {"iris", "wine", "breast_cancer", "digits"}

    Returns
    -------
    Dataset
        Without constraint sets. Note scikit-learn's Iris has the two corrected rows of
        UCI's errata; the benchmark folder ``iris`` keeps the original rows.
    """
    if name not in _SKLEARN:
        valid = ", ".join(repr(k) for k in _SKLEARN)
        raise InvalidParameterError(f"Unknown scikit-learn data set {name!r}; valid values are {valid}.")
    from sklearn import datasets as skd

    bunch = getattr(skd, _SKLEARN[name])()
    names = getattr(bunch, "feature_names", None)
    if names is None or len(names) != bunch.data.shape[1]:
        names = [f"x{c}" for c in range(bunch.data.shape[1])]
    label_names = tuple(str(t) for t in bunch.target_names) if hasattr(bunch, "target_names") else None
    return Dataset(bunch.data, bunch.target, name, tuple(names), {}, label_names)


def load_iris() -> Dataset:
    """Iris (150 x 4, 3 classes) from scikit-learn.

    Returns
    -------
    Dataset
        See :func:`load_sklearn`.
    """
    return load_sklearn("iris")


def load_wine() -> Dataset:
    """Wine (178 x 13, 3 classes) from scikit-learn.

    Returns
    -------
    Dataset
        See :func:`load_sklearn`.
    """
    return load_sklearn("wine")


def load_breast_cancer() -> Dataset:
    """Breast cancer Wisconsin diagnostic (569 x 30, 2 classes) from scikit-learn.

    Returns
    -------
    Dataset
        See :func:`load_sklearn`.
    """
    return load_sklearn("breast_cancer")


def load_digits() -> Dataset:
    """Optical digits, 8 x 8 (1797 x 64, 10 classes) from scikit-learn.

    Returns
    -------
    Dataset
        See :func:`load_sklearn`.
    """
    return load_sklearn("digits")


# ----------------------------------------------------------------------------- CSV reader
def _records(path: str, delimiter: str):
    """Yield each record of a CSV file that is not blank, with its first and last 1-based line.

    Blank lines, also those holding only spaces or tabs, are skipped, and so are rows of empty
    fields (``,,``) before the header. After the header such a row is not blank: it is a data row
    whose values are all missing and is reported as such, since skipping it would shift the number
    of every later object (constraints refer to objects by data row). In a file with one column a
    missing value must therefore be written ``NA``, ``NaN`` or ``?``.
    """
    start = 1
    header_seen = False
    try:
        # utf-8-sig: a spreadsheet's byte-order mark must not glue onto the first column name
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            for fields in reader:
                # A record with a quoted line break spans several lines; errors name its first one.
                end = reader.line_num
                blank = not fields or (len(fields) == 1 and not fields[0].strip())
                if not (blank or (not header_seen and all(not f.strip() for f in fields))):
                    header_seen = True
                    yield fields, start, end
                start = end + 1
    except OSError as exc:
        raise DataFormatError(f"cannot read file: {exc.strerror}", path=path) from None
    except csv.Error as exc:
        raise DataFormatError(f"not a readable CSV file: {exc}", path=path, line=start) from None
    except UnicodeDecodeError as exc:
        raise not_utf8_error(path, exc) from None


def _read_header(path: str, delimiter: str = ",") -> tuple[list[str], int]:
    """The column names of a CSV file as :func:`load_csv` reads them, and their 1-based line.

    Raises
    ------
    DataFormatError
        An unreadable, non-UTF-8 or empty file.
    """
    for fields, start, _ in _records(path, delimiter):
        return [f.strip() for f in fields], start
    raise DataFormatError("the file is empty; expected a header row and data rows", path=path, line=1)


def _read_table(path: str, delimiter: str,
                label_column: str | None = None) -> tuple[list[str], int, Iterator[tuple[list, list[int]]]]:
    """Header, its 1-based line, and the data rows a chunk at a time.

    The header is checked here; the field counts and "no data rows" as the chunks are read
    (blank lines: see :func:`_records`). Each chunk is a list of rows (lists of strings) and
    the line on which each row starts.
    """
    records = _records(path, delimiter)
    for fields, start, _ in records:
        header = [h.strip() for h in fields]
        _check_header(header, label_column, path, start)
        return header, start, _data_chunks(records, header, start, path, delimiter)
    raise DataFormatError("the file is empty; expected a header row and data rows", path=path, line=1)


def _data_chunks(records, header: list[str], header_line: int, path: str,
                 delimiter: str) -> Iterator[tuple[list, list[int]]]:
    """The rows after the header, about ``_CHUNK_CELLS`` values at a time (see :func:`_read_table`)."""
    size = max(1, _CHUNK_CELLS // len(header))
    rows: list[list[str]] = []
    lines: list[int] = []
    given = False
    for fields, start, end in records:
        if len(fields) != len(header):
            span = "" if end == start else f" (the row runs on to line {end}: is a closing quote missing?)"
            raise DataFormatError(
                f"expected {len(header)} fields like the header, got {len(fields)}{span}."
                + (separator_hint(delimiter.join(header), delimiter) if len(header) == 1 else ""),
                path=path, line=start)
        rows.append(fields)
        lines.append(start)
        if len(rows) == size:
            yield rows, lines
            rows, lines, given = [], [], True
    if rows:
        yield rows, lines
    elif not given:
        raise DataFormatError("the file has a header but no data rows", path=path, line=header_line + 1)


def _check_header(header: list[str], label_column: str | None, path: str, line: int) -> None:
    """Every column needs a name of its own.

    An unnamed first column is what ``pandas.DataFrame.to_csv`` writes for the row index (and R's
    ``write.csv`` for row names): read as a feature it would silently join every distance. A name
    given twice makes columns impossible to tell apart (``--predict`` matches columns by name).
    """
    unnamed = [c + 1 for c, h in enumerate(header) if not h]
    if unnamed:
        hint = (" (a row index written by pandas? save with index=False)" if unnamed == [1] else "")
        raise DataFormatError(f"column(s) {unnamed} of the header have no name{hint}; name every column",
                              path=path, line=line)
    if label_column is not None and label_column not in header:
        raise DataFormatError(f"no label column {label_column!r} in header {header}", path=path, line=line)
    if label_column is not None and header.count(label_column) > 1:
        raise DataFormatError(f"the header names the label column {label_column!r} more than once",
                              path=path, line=line)
    if header == [label_column]:
        raise DataFormatError("the file has no feature columns", path=path, line=line)
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise DataFormatError(f"the header names column(s) {twice} more than once; column names must differ",
                              path=path, line=line)


_STRIP = np.frompyfunc(str.strip, 1, 1)
_IS_MISSING = np.frompyfunc(lambda text: text.lower() in _MISSING, 1, 1)
_PARSES = np.frompyfunc(parses_as, 1, 1)


class _Numbers:
    """The feature values of a CSV table, converted to float64 a chunk of rows at a time.

    Missing markers become NaN; a value that is neither a number nor a marker is an error. The
    errors are noted, not raised, until :meth:`result`: the file is read to its end first, so
    that a wrong field count or a missing label further down is still the error reported, as
    when the whole file was read before any value was converted.

    Parameters
    ----------
    columns : list of str
        Names of the feature columns.
    path : str
    delimiter : str
    """

    def __init__(self, columns: list[str], path: str, delimiter: str):
        self.columns, self.path, self.delimiter = columns, path, delimiter
        self.parts: list[np.ndarray] = []
        self.n_rows = 0
        # Per column, whether some value reads as a number: a column of words is a label column.
        self.parses = np.zeros(len(columns), dtype=bool)
        self.non_numeric: tuple[str, int, int] | None = None  # text, column, line of the first
        self.non_finite: tuple[int, int, str, int, bool] | None = None  # data row, column, text, line, NaN
        self.n_non_finite = 0

    def add(self, rows: list[list[str]], lines: list[int]) -> None:
        """Convert the next rows (lists of strings, one per feature column)."""
        try:
            # Each str read by float(), which strips blanks; a missing marker fails ("nan"
            # aside, which float reads as NaN, the value a marker becomes).
            values = np.array(rows, dtype=np.float64)
            self.parses[:] = True
        except ValueError:
            values = self._convert_with_markers(rows, lines)
        if values is None or self.non_numeric is not None:
            return  # past a non-numeric value only the columns' parses matter
        finite = np.isfinite(values)
        if not finite.all():
            self.n_non_finite += int((~finite).sum())
            if self.non_finite is None:
                r, c = (int(v) for v in np.argwhere(~finite)[0])
                self.non_finite = (self.n_rows + r, c, rows[r][c].strip(), lines[r], bool(np.isnan(values[r, c])))
        self.parts.append(values)
        self.n_rows += values.shape[0]

    def _convert_with_markers(self, rows: list[list[str]], lines: list[int]) -> np.ndarray | None:
        """The slow way, for rows with missing markers or words: a cell at a time."""
        cells = np.array(rows, dtype=object)
        stripped = _STRIP(cells)
        missing = _IS_MISSING(stripped).astype(bool)
        parsed = _PARSES(stripped).astype(bool)
        self.parses |= parsed.any(axis=0)
        words = ~(parsed | missing)
        if words.any():
            if self.non_numeric is None:
                r, c = (int(v) for v in np.argwhere(words)[0])
                self.non_numeric = (rows[r][c], c, lines[r])
            return None
        values = np.full(stripped.shape, np.nan)
        values[~missing] = np.array(stripped[~missing].tolist(), dtype=np.float64)
        return values

    def result(self) -> np.ndarray:
        """The values, shape (n_rows, n_columns).

        Raises
        ------
        DataFormatError
            A value that is neither a number nor a missing marker (the first, in file order).
        InvalidDataError
            A missing or non-finite value (the first, with the count of all).
        """
        columns, delimiter = self.columns, self.delimiter
        if self.non_numeric is not None:
            text, c, line = self.non_numeric
            hint = separator_hint(text, delimiter) or separator_hint(columns[c], delimiter)
            if not hint and not self.parses[c]:
                hint = (f" If {columns[c]!r} holds the classes, name it as the label column "
                        f"(label_column={columns[c]!r}; command line: --label-column {columns[c]}).")
            raise DataFormatError(f"non-numeric value {text!r} in column {columns[c]!r}." + hint,
                                  path=self.path, line=line)
        if self.non_finite is not None:
            r, c, text, line, is_nan = self.non_finite
            advice = "Impute or drop those rows first."
            if is_nan:
                what = "a missing value (NaN)"
            elif text.lower().lstrip("+-") in ("inf", "infinity"):
                what = "an infinite value"
            else:  # a number written out whose magnitude float64 cannot hold
                what = f"the value {text!r}, beyond the float64 range (|x| <= {np.finfo(np.float64).max:.4g})"
                advice = "Rescale that column (or impute or drop those rows) first."
            raise InvalidDataError(
                f"{self.path}: {what} at data row {r} (line {line}), column {columns[c]!r}; "
                f"{self.n_non_finite} non-finite value(s) in all. {advice}"
            )
        values = np.concatenate(self.parts)
        self.parts.clear()  # the caller's copy into a Dataset must not hold three of them at once
        return values


def _encode_labels(raw: np.ndarray, path: str, lines: np.ndarray, column: str):
    """Integer labels stay as they are; other values are coded 0..k-1 in sorted order.

    Labels are compared as numbers when they all are: pandas writes an integer column with a
    missing value as ``1.0, 2.0``, and ``2`` and ``2.0`` are one class, not two.
    """
    stripped = np.char.strip(raw)
    # The markers a feature column reads as missing ("NA", "nan", "?") are missing here too,
    # not a class of their own.
    missing = np.flatnonzero(np.isin(np.char.lower(stripped), list(_MISSING)))
    if missing.size:
        value = str(stripped[missing[0]])
        what = "empty value" if value == "" else f"missing value {value!r}"
        raise DataFormatError(f"{what} in label column {column!r}: every object needs its class",
                              path=path, line=int(lines[missing[0]]))
    try:
        as_int = stripped.astype(np.int64)
        return as_int, None
    except (ValueError, OverflowError):  # beyond int64, integers are names like any other
        pass
    try:
        as_float = stripped.astype(np.float64)
    except ValueError:
        as_float = None
    # Beyond 2**53 floats merge distinct integers: such labels stay names, compared as written.
    if as_float is not None and np.isfinite(as_float).all() and (np.abs(as_float) < 2.0**53).all():
        if (as_float == np.round(as_float)).all():
            return as_float.astype(np.int64), None
        values, codes = np.unique(as_float, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), tuple(repr(float(v)) for v in values)
    names, codes = np.unique(stripped, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), tuple(str(v) for v in names)


def _looks_like_data(header: list[str]) -> bool:
    """True when every column name is a number, unless the names are exactly ``0, 1, ..., d-1``.

    Those are what pandas writes for unnamed columns. Any other all-numeric header, integer
    values included (a headerless file of counts), is most likely the first object.
    """
    if not all(parses_as(h) for h in header):
        return False
    return [h.strip() for h in header] != [str(c) for c in range(len(header))]


def load_csv(path: str | PathLike, *, label_column: str | None = None, name: str | None = None,
             delimiter: str = ",", numeric_header: bool = False) -> Dataset:
    """Load a user's data from a CSV file with a header row.

    Parameters
    ----------
    path : str or path-like
    label_column : str, optional
        Name of the ground-truth column; the other columns are the features. Integer
        labels are kept; other values are coded 0..k-1 in sorted order (``label_names``).
    name : str, optional
        Defaults to the file name without extension.
    delimiter : str, default=","
    numeric_header : bool, default=False
        True when the column names are numbers (wavelengths such as ``400.5``, years): the
        header is then neither refused nor warned about as a first object.

    Returns
    -------
    Dataset
        Without constraint sets.

    Raises
    ------
    DataFormatError
        Unreadable, non-UTF-8 or empty file, a header without data rows, a column without a
        name (such as the row index pandas writes by default) or a name given twice, a row
        with the wrong number of fields (an unclosed quote shows as one), a non-numeric
        feature value, a missing label column, an empty or missing (``NA``, ``NaN``, ``?``) label
        value (the message names the file and the line), a header of numbers of which one
        has a fraction (a file without a header: its first object would be lost).
    InvalidDataError
        A missing (empty, ``NA``, ``NaN``, ``?``) or infinite feature value (the message
        names the data row, the line and the column).
    InvalidParameterError
        ``path`` not a str or path-like, or ``delimiter`` not a single character.

    Warns
    -----
    CcoptWarning
        When every column name is an integer (other than pandas' unnamed ``0,1,...``): the
        names may be years, or the file has no header and its first object was taken for
        one. A header of numbers of which one has a fraction is refused (DataFormatError).

    Notes
    -----
    The file is converted a chunk of rows at a time: beside the float64 result (and its copy
    into the Dataset) only one chunk's strings are held, whatever the file's size. Errors are
    reported as if the file were read whole first: a wrong field count anywhere, then the
    header, the labels, a non-numeric value and a non-finite one, each the first in the file.
    """
    path = _check_path(path, "path")
    delimiter = check_delimiter(delimiter)
    header, header_line, chunks = _read_table(path, delimiter, label_column)
    at = None if label_column is None else header.index(label_column)
    columns = [h for c, h in enumerate(header) if c != at]
    numbers = _Numbers(columns, path, delimiter)
    label_parts, line_parts = [], []
    # A chunk at a time: the whole file as lists of strings and then a fixed-width string
    # array took about 370 bytes a value (1.9 GiB for 100,000 x 50); now the strings of one
    # chunk and the float64 result.
    for rows, lines in chunks:
        if at is not None:
            label_parts.append(np.array([row.pop(at) for row in rows], dtype=str))
            line_parts.append(np.array(lines, dtype=np.int64))
        numbers.add(rows, lines)
    if not numeric_header and _looks_like_data(header):
        if not all(parses_as(name, int) for name in header):  # written as integers: 1990, not 2.0
            # A number with a fraction is no column name: the file has no header, and reading
            # on would lose its first object and number every later one one too low.
            raise DataFormatError(
                f"the header row {header[:5]} holds only numbers: the file seems to have no header, "
                "and its first object would be read as column names. Add a header row (e.g. "
                "x0,x1,...), or pass numeric_header=True if these numbers name the columns.",
                path=path, line=header_line)
        warn_user(
            f"{path}: the header row {header[:5]} holds only numbers; if the file has no header, its "
            "first object was read as column names and every later object is numbered one too low. "
            "Add a header row (numeric_header=True says the numbers name the columns).", CcoptWarning)
    labels = label_names = None
    if at is not None:
        labels, label_names = _encode_labels(np.concatenate(label_parts), path, np.concatenate(line_parts),
                                             label_column)
    X = numbers.result()
    return Dataset(X, labels, name or Path(path).stem, tuple(columns), {}, label_names)


# ----------------------------------------------------------------------------- folders
def datasets_root(root: str | PathLike | None = None) -> Path:
    """The folder that holds the benchmark data sets.

    Parameters
    ----------
    root : str or path-like, optional
        Used when given; otherwise ``$CCOPT_DATASETS``; otherwise ``shared/datasets`` next to
        a development checkout of ccopt.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidParameterError
        If no such folder exists.
    """
    if root is not None:
        where, folder = "root", Path(_check_path(root, "root"))
    elif os.environ.get(ENV_VAR):
        where, folder = f"${ENV_VAR}", Path(os.environ[ENV_VAR])
    else:
        where, folder = "the development checkout", Path(__file__).resolve().parents[2] / "shared" / "datasets"
    if not folder.is_dir():
        raise InvalidParameterError(
            f"No data set folder at {str(folder)!r} (from {where}). Pass root=... or set the "
            f"environment variable {ENV_VAR} to the folder holding <name>/data.csv."
        )
    return folder


def load_folder(path: str | PathLike, *, name: str | None = None, label_column: str = "label") -> Dataset:
    """Load a folder ``data.csv`` + ``constraints*.csv`` (the ``shared/datasets`` format).

    Parameters
    ----------
    path : str or path-like
        The folder.
    name : str, optional
        Defaults to the folder name.
    label_column : str, default="label"

    Returns
    -------
    Dataset
        ``constraint_sets`` keyed by what follows ``constraints_`` in each file name
        (``constraints_p15.csv`` -> ``"p15"``); a file named ``constraints.csv`` gets the key
        ``"constraints"``. A folder without constraint files gives an empty mapping.
    """
    folder = Path(_check_path(path, "path"))
    if not folder.is_dir():
        raise InvalidParameterError(f"{str(folder)!r} is not a folder.")
    data = load_csv(folder / "data.csv", label_column=label_column, name=name or folder.name)
    sets = {}
    for file in sorted(folder.glob("constraints*.csv"), key=_natural_key):
        stem = file.stem
        key = stem[len("constraints_"):] if stem.startswith("constraints_") else stem
        sets[key] = Constraints.from_csv(file, n_samples=data.n_samples)
    return Dataset(data.X, data.labels, data.name, data.feature_names, sets, data.label_names)


def _natural_key(path: Path):
    """Sort constraints_CS5 before constraints_CS10."""
    digits = "".join(ch for ch in path.stem if ch.isdigit())
    return (path.stem.rstrip("0123456789"), int(digits) if digits else -1, path.stem)


def load_benchmark(name: str, *, root: str | PathLike | None = None) -> Dataset:
    """Load ``<root>/<name>`` (see :func:`datasets_root` and :func:`load_folder`).

    Parameters
    ----------
    name : str
        The folder name, e.g. ``"iris"`` (UCI row order, sets ``p15``/``p20`` of the
        impact-score paper), ``"iris_keel"`` (KEEL order, BH-kmeans sets ``CS5``..``CS20``),
        ``"glass"``, ...
    root : str or path-like, optional

    Returns
    -------
    Dataset
    """
    if not isinstance(name, str) or not name:
        raise InvalidParameterError(f"name must be the name of a data set folder (a non-empty str), got {name!r}.")
    base = datasets_root(root)
    folder = base / name
    if not (folder / "data.csv").is_file():
        known = sorted(p.name for p in base.iterdir() if (p / "data.csv").is_file())
        raise InvalidParameterError(
            f"No data set {name!r} in {str(base)!r}; available: {', '.join(known) or 'none'}.")
    return load_folder(folder)


def load_lagrangian_synthetic(instance: int, *, root: str | PathLike | None = None) -> Dataset:
    """One of the 500 published synthetic instances of the impact-score paper.

    Parameters
    ----------
    instance : int
        0..499; the folder ``lagrangian_synthetic/NNN``.
    root : str or path-like, optional
        See :func:`datasets_root`.

    Returns
    -------
    Dataset
        ``X`` of shape (n, 2); ``constraint_sets["constraints"]`` unless the instance has no
        constraints file (instances 141, 142, 260, 342, 456), then an empty mapping. The
        erroneous constraints are those that disagree with ``labels``
        (``constraints.is_correct(labels)``).
    """
    if isinstance(instance, bool) or not isinstance(instance, (int, np.integer)) or instance < 0:
        raise InvalidParameterError(f"instance must be a non-negative int, got {instance!r}.")
    folder = datasets_root(root) / "lagrangian_synthetic" / f"{int(instance):03d}"
    if not (folder / "data.csv").is_file():
        raise InvalidParameterError(f"No synthetic instance {instance} at {str(folder)!r}.")
    return load_folder(folder, name=f"lagrangian_synthetic/{int(instance):03d}")


def iter_lagrangian_synthetic(*, root: str | PathLike | None = None) -> Iterator[Dataset]:
    """Every published synthetic instance, in instance order.

    Parameters
    ----------
    root : str or path-like, optional
        See :func:`datasets_root`.

    Yields
    ------
    Dataset
        As :func:`load_lagrangian_synthetic` returns it.
    """
    base = datasets_root(root) / "lagrangian_synthetic"
    if not base.is_dir():
        raise InvalidParameterError(f"No folder lagrangian_synthetic in {str(base.parent)!r}.")
    for folder in sorted(p for p in base.iterdir() if p.name.isdigit() and (p / "data.csv").is_file()):
        yield load_folder(folder, name=f"lagrangian_synthetic/{folder.name}")
