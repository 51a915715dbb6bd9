"""Experiment runners: many independent runs, fanned out, saved as they finish, resumable.

An *experiment* is a list of task configurations (plain dicts of JSON values) and a
module-level *task function* that runs one configuration and returns a dict of results.
:func:`run_experiment` runs the tasks through :func:`ccopt._parallel.parallel_imap`
(joblib; a Dask cluster with ``backend="dask"``), gives every task a deterministic seed,
and appends one CSV row per task as soon as it finishes (its configuration, its seed, its
results; the file is put in task order when the run ends), so

* the same ``random_state`` gives the same rows, whatever ``n_jobs`` is;
* a run that was interrupted (Ctrl-C) or crashed resumes from its CSV without redoing the
  finished tasks (``resume=True``);
* a JSON file next to the CSV (``sweep.csv`` -> ``sweep.json``) records the experiment's
  configuration (task list, root seed, task function, versions: ``ccopt_versions`` lists
  every ccopt version that wrote rows of the file), so runs can be compared,
  and a resumed CSV is checked to hold rows of the same function and root seed. It is
  written when the tasks start and again when the run ends (``finished`` is null in the
  record of a run that was killed).

Seeds. A configuration that holds a ``"seed"`` key is run with that seed. Otherwise the
task's seed is derived from the root seed and the task's *key* (a hash of its canonical
JSON), with :func:`ccopt._parallel.keyed_seed`: it does not depend on the task's position,
so adding tasks to a sweep does not change the seeds of the others.

Task functions shipped here (each takes a config dict with a ``"seed"`` and returns a dict):

==============================  ==============================================================
function                        what one task does
==============================  ==============================================================
:func:`impact_score_task`       impact scores of one constraint set; detection F1, bounds
                                (Tables 1-3, Fig. 3 of the impact-score paper)
:func:`clustering_task`         one constrained clustering algorithm; ARI, NMI, violations
:func:`constraint_set_task`     one constraint set of the selection study (Figs. 9-10):
                                set score ``I(C)``, coherence, ARI of the constrained solution
==============================  ==============================================================

Task builders: :func:`synthetic_tasks` (the factorial design, Table 1), :func:`k_sweep_tasks`
(Fig. 3), :func:`grid_tasks` (any Cartesian product). :func:`constraint_set_selection`
turns constraint-set records into the groups of Figs. 9-10.

Data specifications (the ``"data"`` key of a configuration):

* ``"synthetic"`` — Gaussian clusters with ``n_samples``, ``n_classes``, ``cluster_std``,
  ``center_std``, seeded by ``instance_seed``; with ``constraint_fraction`` and
  ``error_fraction`` the whole instance (data and constraints) is
  :func:`ccopt.generators.synthetic_instance`, the paper's design;
* ``"iris"``, ``"wine"``, ``"breast_cancer"``, ``"digits"`` — scikit-learn's copies;
* ``"benchmark:<name>"`` — a folder of the benchmark data sets
  (:func:`ccopt.datasets.load_benchmark`);
* ``"csv:<path>"`` — a CSV file with a ``label`` column (:func:`ccopt.datasets.load_csv`).

Otherwise the constraints come from ``constraint_set`` (a set stored with a benchmark
folder, e.g. ``"p15"``) or are drawn by :func:`ccopt.generators.noisy_constraints`:
``n_constraints`` and ``n_erroneous``, or ``constraint_fraction`` (``p = ceil(f n)``) and
``error_fraction`` (``q = ceil(e p)``), seeded by ``instance_seed``: one of these three
ways, not a mix. Without any of these settings the task has no constraints. A task without
``instance_seed`` draws its synthetic data and its constraints from its own seed, which
differs from task to task: give ``instance_seed`` whenever tasks (e.g. algorithms) must see
the same data and constraints.

Each task function refuses a setting it does not read (a misspelt one would otherwise change
nothing), except the tags (``instance``, ``set``, ``repeat``,
``tag``): they only name a task, so that otherwise equal configurations are distinct tasks,
each with its own seed.
"""

from __future__ import annotations

import csv
import difflib
import functools
import hashlib
import itertools
import json
import logging
import math
import numbers
import os
import platform
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import import_module
from pathlib import Path

import numpy as np

from ccopt._parallel import keyed_seed, parallel_imap, root_seed
from ccopt._validation import (
    check_bool,
    check_choice,
    check_fraction,
    check_nonnegative,
    check_positive_int,
)
from ccopt.exceptions import InvalidParameterError

__all__ = [
    "ALGORITHMS",
    "Experiment",
    "ExperimentResult",
    "clustering_task",
    "constraint_set_ranking",
    "constraint_set_selection",
    "constraint_set_task",
    "grid_tasks",
    "impact_score_task",
    "k_sweep_tasks",
    "load_instance",
    "make_estimator",
    "read_results",
    "run_experiment",
    "synthetic_tasks",
    "task_key",
]

logger = logging.getLogger(__name__)

#: Columns :func:`run_experiment` writes besides the configuration and the results.
RESERVED = ("task", "seed", "seconds", "error")

#: Settings the task functions accept and ignore: they only name a task (its place in a
#: design, a repetition, a label), so that otherwise equal configurations are distinct tasks.
TAG_SETTINGS = ("instance", "set", "repeat", "tag")

#: Algorithm names (as the CLI spells them) and the estimator class of each.
ALGORITHMS = {
    "kmeans": "KMeans",
    "cop-kmeans": "COPKMeans",
    "pckmeans": "PCKMeans",
    "bh-kmeans": "BHKMeans",
    "lcc": "LCC",
    "kmeans-s": "KMeansS",
    "pcs": "PCS",
    "ml-kmeans": "MLKMeans",
    "greedy-ml-kmeans": "GreedyMLKMeans",
}


# ============================================================================ configurations
def _plain(value, where: str, *, finite: bool = True):
    """A JSON-compatible copy of a configuration value (numpy scalars become Python ones).

    ``finite=False`` (task results) lets NaN and infinities through: an undefined F1 or an
    unbounded gap is a result, while a setting that is NaN could not identify its task.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if finite and not math.isfinite(value):
            raise InvalidParameterError(f"{where} is {value!r}; configurations hold finite numbers only.")
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v, f"{where}[{i}]", finite=finite) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}[{k!r}]", finite=finite) for k, v in value.items()}
    kind = "configurations" if finite else "task results"
    raise InvalidParameterError(
        f"{where} is a {type(value).__name__}; {kind} hold None, bool, numbers, strings, "
        "and lists or dicts of those."
    )


def _check_config(config, index: int) -> dict:
    if not isinstance(config, Mapping):
        raise InvalidParameterError(f"task {index} must be a dict of settings, got {type(config).__name__}.")
    out = {}
    for name, value in config.items():
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"task {index} has a setting named {name!r}; names must be non-empty strings.")
        if name in RESERVED and name != "seed":
            raise InvalidParameterError(
                f"task {index} uses the reserved name {name!r} (reserved: {', '.join(RESERVED)})."
            )
        out[name] = _plain(value, f"task {index} setting {name!r}")
    if "seed" in out and (isinstance(out["seed"], bool) or not isinstance(out["seed"], int) or out["seed"] < 0):
        raise InvalidParameterError(f"task {index} has seed={out['seed']!r}; a seed is a non-negative int.")
    return out


def _canonical(config: dict) -> str:
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def task_key(config: Mapping) -> str:
    """The name of a task: the first 16 hex digits of the SHA-256 of its canonical JSON.

    Two configurations with the same settings (in any key order) have the same key; this is
    how :func:`run_experiment` recognises finished tasks when it resumes.

    Parameters
    ----------
    config : dict

    Returns
    -------
    str
    """
    return _key(_check_config(config, 0))


def _key(config: dict) -> str:
    return hashlib.sha256(_canonical(config).encode("utf-8")).hexdigest()[:16]


def grid_tasks(base: Mapping | None = None, **axes: Sequence) -> list[dict]:
    """Every combination of the given settings, on top of ``base``.

    Parameters
    ----------
    base : dict, optional
        Settings shared by every task.
    **axes : sequence
        One list of values per varied setting; the last one varies fastest.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> from ccopt.experiments import grid_tasks
    >>> grid_tasks({"data": "iris"}, n_clusters=[2, 3], instance_seed=[0, 1])[1]
    {'data': 'iris', 'n_clusters': 2, 'instance_seed': 1}
    """
    names = list(axes)
    for name in names:
        if isinstance(axes[name], (str, bytes)) or not isinstance(axes[name], Iterable):
            raise InvalidParameterError(f"grid axis {name!r} must be a list of values, got {axes[name]!r}.")
    return [{**dict(base or {}), **dict(zip(names, combo, strict=True))}
            for combo in itertools.product(*(list(axes[n]) for n in names))]


# ============================================================================ CSV log
def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def _parse_cell(text: str):
    """Best-effort types for a CSV cell: '' -> None, bools, ints, floats, JSON lists/dicts."""
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        pass
    if text[:1] in "[{":
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def read_results(path: str | os.PathLike) -> list[dict]:
    """Read the rows of an experiment CSV (see :func:`run_experiment`), with types restored.

    Empty cells become ``None``; ``True``/``False``, integers, floats and JSON lists are
    parsed; everything else stays a string.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    list of dict
        One dict per row, in file order.

    Raises
    ------
    DataFormatError
        If the file cannot be read or a row has the wrong number of fields.
    """
    header, rows = _read_csv(Path(path))
    return [{name: _parse_cell(cell) for name, cell in zip(header, row, strict=True)} for row in rows]


_CSV_FIELD_LIMIT = 2**31 - 1  # the largest the csv module takes on every platform (a C long)


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    from ccopt.exceptions import DataFormatError

    # The writer puts no limit on a cell (a task may return a long list); the reader's default
    # of 131,072 characters would lock such rows in a file that could no longer be resumed.
    limit = csv.field_size_limit()
    csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            rows = []
            for fields in reader:
                if not fields:
                    continue
                if header is None or len(fields) != len(header):
                    raise DataFormatError(
                        f"expected {len(header or [])} fields like the header, got {len(fields)}",
                        path=str(path), line=reader.line_num)
                rows.append(fields)
    except OSError as exc:
        raise DataFormatError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise DataFormatError(f"not a readable CSV file: {exc}", path=str(path)) from None
    finally:
        csv.field_size_limit(limit)
    return header or [], rows



class _CsvLog:
    """Append-only CSV of result rows, one per task.

    A row with new columns rewrites the file once. A task run again (it failed before)
    replaces its earlier row, so the file never holds two rows of one task.
    """

    def __init__(self, path: Path, header: list[str], rows: list[list[str]]):
        self.path = path
        self.header = list(header)
        self.rows = [dict(zip(header, row, strict=True)) for row in rows]
        self._index()
        if not self.path.exists() or not self.header:
            self._rewrite()

    def _index(self) -> None:
        self.position = {row.get("task", ""): r for r, row in enumerate(self.rows)}

    def _rewrite(self) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            if self.header:
                writer.writerow(self.header)
            for row in self.rows:
                writer.writerow([row.get(name, "") for name in self.header])
        os.replace(temporary, self.path)

    def append(self, record: dict) -> None:
        cells = {name: _cell(value) for name, value in record.items()}
        earlier = self.position.get(cells.get("task", ""))
        if earlier is None:
            self.position[cells.get("task", "")] = len(self.rows)
            self.rows.append(cells)
        else:
            self.rows[earlier] = cells
        new = [name for name in cells if name not in self.header]
        if new or not self.header or earlier is not None:
            self.header += new
            self._rewrite()
            return
        with open(self.path, "a", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerow([cells.get(name, "") for name in self.header])

    def sort(self, keys: Sequence[str]) -> None:
        """Rewrite the rows in the order of ``keys`` (rows of other tasks last), if they are not."""
        rank = {key: r for r, key in enumerate(keys)}
        order = sorted(range(len(self.rows)), key=lambda r: rank.get(self.rows[r].get("task", ""), len(rank)))
        if order != sorted(order):
            self.rows = [self.rows[r] for r in order]
            self._index()
            self._rewrite()


# ============================================================================ runner
@dataclass
class ExperimentResult:
    """The rows of a run of :func:`run_experiment`.

    Attributes
    ----------
    records : list of dict
        One record per task of the task list that has a row (finished now or earlier), in
        task order: ``task`` (key), ``seed``, the configuration, the results, ``seconds``
        and ``error`` (``None`` unless the task failed with ``on_error="record"``).
    path : pathlib.Path or None
        The CSV file (None when the run was not saved).
    n_run : int
        Tasks run by this call.
    n_skipped : int
        Tasks found finished in the CSV and not run again.
    n_failed : int
        Tasks of this call that raised (recorded with ``on_error="record"``).
    interrupted : bool
        True when a KeyboardInterrupt stopped the run; the finished rows are saved.
    root_seed : int
        The root seed the task seeds were derived from.
    config : dict
        What the JSON file next to the CSV records: name, task function, root seed, task
        list, versions, start and end times.
    """

    records: list[dict]
    path: Path | None = None
    n_run: int = 0
    n_skipped: int = 0
    n_failed: int = 0
    interrupted: bool = False
    root_seed: int = 0
    config: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.records)

    def column(self, name: str) -> np.ndarray:
        """The values of one column, in record order (``None`` where a record lacks it).

        Parameters
        ----------
        name : str

        Returns
        -------
        ndarray
            Numeric dtype when every value is a number, else object.
        """
        values = [record.get(name) for record in self.records]
        if values and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
            return np.asarray(values, dtype=np.float64)
        return np.asarray(values, dtype=object)

    def where(self, **settings) -> list[dict]:
        """The records whose values equal all the given ``settings``.

        Parameters
        ----------
        **settings
            Column name to required value.

        Returns
        -------
        list of dict
        """
        return [r for r in self.records if all(r.get(k) == v for k, v in settings.items())]


def _error_text(exc: Exception) -> str:
    """A task's error as one line of the ``error`` column."""
    return f"{type(exc).__name__}: {exc}".replace("\n", " ")


def _call_task(payload: tuple) -> tuple:
    """Run one task in a worker: (results or None, seconds, error message or None)."""
    function, config, on_error = payload
    start = time.perf_counter()
    try:
        result = function(dict(config))
    except Exception as exc:  # recorded or re-raised below, per on_error
        if on_error == "raise":
            if hasattr(exc, "add_note"):  # Python 3.11+: the traceback names the task
                exc.add_note(f"in the task {_describe(config, width=300)}")
            raise
        return None, time.perf_counter() - start, _error_text(exc)
    return result, time.perf_counter() - start, None


def _function_name(function: Callable) -> str:
    """``module.qualname`` of a task function; the same in every process (no memory addresses).

    A resumed run is checked against it, so a callable object is named by its class and a
    partial by the function it wraps.
    """
    if isinstance(function, functools.partial):
        return f"functools.partial({_function_name(function.func)})"
    named = function if hasattr(function, "__qualname__") else type(function)
    return f"{getattr(named, '__module__', '?')}.{named.__qualname__}"


def _sidecar(path: Path) -> Path:
    """The JSON record beside an experiment CSV: ``sweep.csv`` -> ``sweep.json``, ``rows.txt`` -> ``rows.txt.json``."""
    return path.with_suffix(".json") if path.suffix.lower() == ".csv" else path.with_name(path.name + ".json")


def _same_function(recorded: str, current: str) -> bool:
    """Do two :func:`_function_name` names denote the same task function?

    A benchmark script's function is ``__main__.task`` when the script is run and
    ``benchmarks.bench_x.task`` when ``ccopt bench`` imports it: one function, resumable
    either way.
    """
    if recorded == current:
        return True
    for script, imported in ((recorded, current), (current, recorded)):
        if script.startswith("__main__.") and imported.endswith("." + script.removeprefix("__main__.")):
            return True
    return False


#: Keys every record :func:`run_experiment` writes: a JSON without them is someone else's file.
_RECORD_KEYS = ("ccopt_version", "function", "tasks")


def _load_meta(path: Path) -> dict | None:
    """The record beside ``path`` (None if there is none); refuses a JSON file ccopt did not write.

    The record is rewritten at the start and end of every run, so a file that is not one of ours would
    be lost; an unreadable record cannot be told from a foreign file either.
    """
    meta_path = _sidecar(path)
    if not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = None
    if not isinstance(meta, dict) or not all(key in meta for key in _RECORD_KEYS):
        raise InvalidParameterError(
            f"{str(meta_path)!r} is not the record of a ccopt experiment (a JSON object with the keys "
            f"{', '.join(_RECORD_KEYS)}), and writing rows to {str(path)!r} would overwrite it; move it away "
            "or choose another out_csv."
        )
    return meta


def _recorded_root(meta: dict | None) -> int | None:
    """The root seed a record names, or None when there is no record or it has no usable one."""
    value = None if meta is None else meta.get("random_state")
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _check_reused_seeds(path: Path, done: dict, configs: list, keys: list, seeds: list, root: int,
                        no_root: str | None) -> None:
    """Refuse to reuse rows whose seeds the root seed of this run would not give.

    The seeds are the one part of a row that says which root it ran under, so this holds even
    when the JSON record is missing (a run killed before it could write it) or was replaced.
    ``no_root`` says why the record names no root (None when it does).
    """
    for config, key, seed in zip(configs, keys, seeds, strict=True):
        found = done.get(key, {}).get("seed", seed)
        if found != seed:
            why = (f"; its record {str(_sidecar(path))!r} {no_root}, so the random_state it was run with is unknown"
                   if no_root else "")
            source = " (the seed of its configuration)" if "seed" in config else ""
            raise InvalidParameterError(
                f"{str(path)!r} holds rows with seeds that random_state={root} does not give: task {key} has "
                f"seed {found!r} in the file, {seed} expected{source}{why}. Resume with the random_state "
                "it was run with, write to another out_csv, or pass resume=False to start afresh."
            )


def _write_meta(path: Path, meta: dict) -> None:
    temporary = _sidecar(path).with_name(_sidecar(path).name + ".tmp")
    temporary.write_text(json.dumps(meta, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(temporary, _sidecar(path))


def _result_record(config: dict, key: str, seed: int, result, seconds: float, error) -> dict:
    record = {"task": key, "seed": seed}
    record.update({k: v for k, v in config.items() if k != "seed"})
    if result is not None:
        if not isinstance(result, Mapping):
            raise InvalidParameterError(
                f"The task function must return a dict of results, got {type(result).__name__} "
                f"for task {key} ({_canonical(config)})."
            )
        clash = sorted(set(result) & (set(record) | set(RESERVED)))
        if clash:
            raise InvalidParameterError(
                f"The task function returned result(s) named like settings or reserved columns: "
                f"{clash}; rename them."
            )
        record.update({str(k): _plain(v, f"result {k!r} of task {key}", finite=False)
                       for k, v in result.items()})
    record["seconds"] = round(float(seconds), 6)
    record["error"] = error
    return record


def _describe(config: Mapping, width: int = 100) -> str:
    """The scalar settings of a task as ``key=value`` pairs, cut to ``width`` characters."""
    text = " ".join(f"{k}={v}" for k, v in config.items() if not isinstance(v, (dict, list)))
    return text if len(text) <= width else text[: width - 3] + "..."


def run_experiment(tasks: Iterable[Mapping], function: Callable, out_csv: str | os.PathLike | None = None,
                   *, n_jobs: int | None = 1, backend: str | None = None, resume: bool = True,
                   random_state=0, on_error: str = "raise", progress: bool | str = True,
                   name: str | None = None) -> ExperimentResult:
    """Run ``function`` on every task configuration; save one CSV row per finished task.

    Parameters
    ----------
    tasks : iterable of dict
        Task configurations: dicts of JSON values (None, bool, numbers, strings, lists,
        dicts). Two tasks with the same settings are the same task (listed once).
    function : callable
        ``function(config) -> dict`` of results (JSON values). Module-level, so workers can
        import it. It receives the configuration plus its ``"seed"``.
    out_csv : str or path-like, optional
        Where to write the rows, and beside them a JSON record of the experiment's
        configuration: ``sweep.csv`` -> ``sweep.json`` (a name not ending in ``.csv`` gets
        ``.json`` appended: ``rows.txt`` -> ``rows.txt.json``). A JSON file of that name that
        is not such a record is never overwritten: the run is refused. None keeps the
        results in memory only.
    n_jobs : int or None, default=1
        Parallel workers (``-1``: all cores). The rows do not depend on it.
    backend : {"loky", "threading", "dask"} or None, default=None
        joblib backend; "dask" runs the tasks on the workers of the running
        ``dask.distributed.Client`` (``pip install 'ccopt[dask]'``).
    resume : bool, default=True
        Keep the finished rows of an existing ``out_csv`` and run only the other tasks
        (failed tasks are run again, their new row replacing the failed one). The rows must be
        of the same experiment: the same ``function`` (as the JSON record names it) and seeds
        that ``random_state`` gives (checked on the ``seed`` column, so also when the record is
        missing). False starts the file afresh.
    random_state : int, numpy.random.Generator or None, default=0
        Root of the task seeds. On resume, ``None`` reuses the root recorded in the JSON file
        (an error when rows are resumed without a record of their root).
    on_error : {"raise", "record"}, default="raise"
        "raise": a failing task stops the run (finished rows stay saved). "record": the
        error message is saved in the ``error`` column and the run goes on; a task whose
        result is not a dict of JSON values counts as failing.
    progress : bool or "always", default=True
        Progress bar over the tasks (on a terminal only unless "always").
    name : str, optional
        Name recorded in the JSON file (default: the function's name).

    Returns
    -------
    ExperimentResult
        ``interrupted=True`` if a KeyboardInterrupt stopped the run: the rows finished until
        then are saved and returned, and a later call with ``resume=True`` does the rest. A
        task that returns ``status="interrupted"`` (a task that caught Ctrl-C itself and
        kept its best so far) stops the run the same way, its row not saved.

    Raises
    ------
    InvalidParameterError
        Bad tasks or options; resuming an ``out_csv`` whose rows come from another task
        function or another ``random_state``; a JSON file beside ``out_csv`` that is not an
        experiment record.

    Examples
    --------
    >>> from ccopt.experiments import grid_tasks, impact_score_task, run_experiment
    >>> tasks = grid_tasks({"data": "synthetic", "n_samples": 20, "n_classes": 2,
    ...                     "constraint_fraction": 0.2, "error_fraction": 0.2, "max_iter": 5},
    ...                    instance_seed=[0, 1])
    >>> result = run_experiment(tasks, impact_score_task, progress=False)
    >>> len(result), result.column("f1").shape
    (2, (2,))
    """
    on_error = check_choice(on_error, "on_error", ("raise", "record"))
    if not callable(function):
        raise InvalidParameterError(f"function must be callable, got {type(function).__name__}.")
    configs, keys, seen = [], [], set()
    for index, raw in enumerate(tasks):
        config = _check_config(raw, index)
        key = _key(config)
        if key in seen:
            continue
        seen.add(key)
        configs.append(config)
        keys.append(key)
    path = None if out_csv is None else Path(out_csv)
    if path is not None and not path.parent.is_dir():
        raise InvalidParameterError(f"out_csv {str(path)!r}: the folder {str(path.parent)!r} does not exist.")

    done: dict[str, dict] = {}
    header: list[str] = []
    rows: list[list[str]] = []
    # Read even with resume=False: the record is rewritten below, and a foreign file must survive.
    meta_old = _load_meta(path) if path is not None else None
    if not resume:
        meta_old = None
    if path is not None and resume and path.is_file():
        header, rows = _read_csv(path)
        if header and "task" not in header:
            raise InvalidParameterError(
                f"{str(path)!r} is not an experiment CSV (no 'task' column); choose another file or "
                "pass resume=False to overwrite it."
            )
        for record in (dict(zip(header, row, strict=True)) for row in rows):
            if record.get("error", "") == "":
                done[record.get("task", "")] = {k: _parse_cell(v) for k, v in record.items()}
    recorded = _recorded_root(meta_old)
    no_root = None if recorded is not None else "is missing" if meta_old is None else "records no random_state"
    if random_state is None and recorded is not None:
        root = recorded
    elif random_state is None and rows:
        raise InvalidParameterError(
            f"cannot resume {str(path)!r} with random_state=None: its record {str(_sidecar(path))!r} {no_root}, "
            "so the root seed of its rows is unknown; pass the random_state it was run with, or "
            "resume=False to start afresh."
        )
    else:
        root = root_seed(random_state)
    if rows and meta_old is not None:
        if recorded is not None and recorded != root:
            raise InvalidParameterError(
                f"{str(path)!r} holds rows of random_state={recorded}, not {root}; "
                "resume with that random_state (or None), or pass resume=False to start afresh."
            )
        if not _same_function(meta_old["function"], _function_name(function)):
            raise InvalidParameterError(
                f"{str(path)!r} holds rows of {meta_old['function']}, not {_function_name(function)} "
                f"(recorded in {str(_sidecar(path))!r}); write to another out_csv, or pass resume=False "
                "to replace its rows."
            )
    seeds = [config["seed"] if "seed" in config else keyed_seed(root, _canonical(config)) for config in configs]
    if done:
        _check_reused_seeds(path, done, configs, keys, seeds, root, no_root)

    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    # A resumed run keeps the first start (its rows date from then) and says when it resumed.
    started = meta_old.get("started", now) if done and meta_old is not None else now
    # Every version that wrote rows of this file, oldest first: a resume after an upgrade
    # mixes rows of two versions, which the record must not hide.
    versions = list(meta_old.get("ccopt_versions", [meta_old["ccopt_version"]])) if done and meta_old else []
    current = _version()
    experiment = name or getattr(function, "__name__", "experiment")
    if versions and current not in versions:
        logger.warning("experiment %s: resuming rows written by ccopt %s with ccopt %s", experiment,
                       ", ".join(versions), current)
    meta = {
        "name": experiment,
        "function": _function_name(function),
        "random_state": root,
        "n_tasks": len(configs),
        "tasks": [{"task": k, "config": c} for k, c in zip(keys, configs, strict=True)],
        "started": started,
        **({"resumed": now} if done else {}),
        "ccopt_version": current,
        "ccopt_versions": versions if current in versions else [*versions, current],
        "python": platform.python_version(),
        "platform": platform.platform(),
        "n_jobs": n_jobs,
        "backend": backend,
    }

    todo = [i for i, key in enumerate(keys) if key not in done]
    n_skipped = len(configs) - len(todo)
    payloads = [(function, {**configs[i], "seed": seeds[i]}, on_error) for i in todo]
    fresh: dict[str, dict] = {}
    n_failed = 0
    interrupted = False
    logger.info("experiment %s: %d tasks, %d already done, %d to run", meta["name"], len(configs),
                n_skipped, len(todo))
    # In the order they finish: a finished row is saved at once, not held back behind a slower
    # task that may yet fail or be interrupted.
    results = parallel_imap(_call_task, payloads, n_jobs=n_jobs, backend=backend, progress=progress,
                            desc=meta["name"], ordered=False)
    # After parallel_imap has checked n_jobs, backend and progress: a bad option leaves no file.
    log = _CsvLog(path, header, rows) if path is not None else None
    if path is not None:
        # Written now as well as at the end: a run killed outright (no ``finally``) still leaves its
        # root seed and task list beside its rows; ``finished: null`` says it never ended.
        _write_meta(path, {**meta, "finished": None, "n_done": n_skipped, "interrupted": False})
    try:
        for position, (result, seconds, error) in results:
            i = todo[position]
            if error is None and isinstance(result, Mapping) and str(result.get("status")) == "interrupted":
                # The task caught Ctrl-C itself (impact_scores and the estimators return their
                # best so far): saved, its cut-short row would pass for finished on resume.
                raise KeyboardInterrupt
            try:
                record = _result_record(configs[i], keys[i], seeds[i], result, seconds, error)
            except InvalidParameterError as exc:  # the task returned something unusable
                if on_error == "raise":
                    if hasattr(exc, "add_note"):
                        exc.add_note(f"in the task {_describe(configs[i], width=300)}")
                    raise
                error = _error_text(exc)
                record = _result_record(configs[i], keys[i], seeds[i], None, seconds, error)
            n_failed += error is not None
            fresh[keys[i]] = record
            if log is not None:
                log.append(record)
            # One line per task: the progress of a long run whose bar is hidden (stderr not a
            # terminal, e.g. a benchmark writing to a log file).
            logger.info("experiment %s: %d of %d tasks done (%.1f s%s: %s)", meta["name"],
                        n_skipped + len(fresh), len(configs), seconds,
                        ", failed" if error is not None else "", _describe(configs[i]))
    except Exception as exc:
        if not any(note.startswith("in the task") for note in getattr(exc, "__notes__", ())):
            # Not raised by a task (which names itself) but by the workers, e.g. joblib's
            # TerminatedWorkerError when the system kills a worker for its memory.
            _note_unfinished(exc, [configs[i] for position, i in enumerate(todo)
                                   if keys[i] not in fresh], path)
        raise
    except KeyboardInterrupt:
        interrupted = True
        logger.warning("experiment %s interrupted: %d of %d tasks finished%s", meta["name"],
                       n_skipped + len(fresh), len(configs),
                       f"; saved in {path}, run again with resume=True to finish" if path else "")
    finally:
        results.close()
        if log is not None:
            log.sort(keys)
        if path is not None:
            meta.update(finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        n_done=n_skipped + len(fresh), interrupted=interrupted)
            _write_meta(path, meta)

    records = []
    for config, key in zip(configs, keys, strict=True):
        if key in fresh:
            records.append(fresh[key])
        elif key in done:
            # Settings come from the task list (exact types); results from the CSV.
            records.append({**done[key], **{k: v for k, v in config.items() if k != "seed"}})
    return ExperimentResult(records=records, path=path, n_run=len(fresh), n_skipped=n_skipped,
                            n_failed=n_failed, interrupted=interrupted, root_seed=root, config=meta)


def _note_unfinished(exc: Exception, unfinished: list, path) -> None:
    """Tell, on an error from the workers, which tasks it left unfinished (Python 3.11+)."""
    if not hasattr(exc, "add_note"):
        return
    shown = "; ".join(_describe(config) for config in unfinished[:5])
    more = f"; and {len(unfinished) - 5} more" if len(unfinished) > 5 else ""
    saved = f" The finished rows are saved in {path}; run again with resume=True to finish." if path else ""
    exc.add_note(f"{len(unfinished)} task(s) unfinished when the workers failed, one of them the cause: "
                 f"{shown}{more}.{saved}")


def _version() -> str:
    from ccopt import __version__

    return __version__


@dataclass(frozen=True)
class Experiment:
    """A named experiment: task configurations and the module-level function that runs one.

    Parameters
    ----------
    name : str
    function : callable
        ``function(config) -> dict``; see :func:`run_experiment`.
    tasks : sequence of dict
    description : str, default=""

    Examples
    --------
    >>> from ccopt.experiments import Experiment, k_sweep_tasks, impact_score_task
    >>> sweep = Experiment("fig3", impact_score_task,
    ...                    k_sweep_tasks({"data": "synthetic", "n_samples": 30, "n_classes": 3,
    ...                                   "constraint_fraction": 0.2, "error_fraction": 0.2,
    ...                                   "max_iter": 5}, ks=[2, 3], n_instances=1))
    >>> len(sweep.tasks)
    2
    """

    name: str
    function: Callable
    tasks: tuple = ()
    description: str = ""

    def __post_init__(self):
        object.__setattr__(self, "tasks", tuple(dict(t) for t in self.tasks))

    def run(self, out_csv: str | os.PathLike | None = None, **options) -> ExperimentResult:
        """Run the tasks with :func:`run_experiment` (same options); the name is recorded.

        Parameters
        ----------
        out_csv : str or path-like, optional
        **options
            ``n_jobs``, ``backend``, ``resume``, ``random_state``, ``on_error``, ``progress``.

        Returns
        -------
        ExperimentResult
        """
        return run_experiment(self.tasks, self.function, out_csv, name=self.name, **options)


# ============================================================================ task builders
def synthetic_tasks(n_instances: int = 500, *, sizes: Sequence[int] = (100, 200, 300, 400, 500),
                    n_classes: Sequence[int] = (2, 5, 10, 15),
                    constraint_fractions: Sequence[float] = (0.05, 0.10, 0.15, 0.20),
                    error_fractions: Sequence[float] = (0.05, 0.10, 0.15, 0.20),
                    cluster_std: float = 0.5, center_std: float = 5.0, random_state=0,
                    **settings) -> list[dict]:
    """The factorial design of the impact-score paper (Table 1) as task configurations.

    Draws ``n``, ``k``, ``p / n`` and ``q / p`` per instance exactly as
    :func:`ccopt.generators.synthetic_design` does (same ``random_state``, same instances)
    but without building the data: each task rebuilds its instance from ``instance_seed``.

    Parameters
    ----------
    n_instances : int, default=500
    sizes, n_classes, constraint_fractions, error_fractions : sequences
        The levels of Table 1.
    cluster_std, center_std : float
        See :func:`ccopt.generators.make_gaussian_clusters`.
    random_state : int, Generator or None, default=0
    **settings
        Added to every task (``criterion``, ``method``, ``max_iter``, ``time_limit``, ...).

    Returns
    -------
    list of dict
        With ``data="synthetic"``, ``instance`` (position in the design), ``n_samples``,
        ``n_classes``, ``constraint_fraction``, ``error_fraction``, ``cluster_std``,
        ``center_std``, ``instance_seed`` and the settings.
    """
    from ccopt.generators import synthetic_design

    count = check_positive_int(n_instances, "n_instances")
    # Building the instances is cheap next to scoring them, and reusing the generator keeps
    # one definition of the design's random draws.
    design = synthetic_design(count, sizes=sizes, n_clusters=n_classes,
                              constraint_fractions=constraint_fractions, error_fractions=error_fractions,
                              cluster_std=cluster_std, center_std=center_std, random_state=random_state)
    return [{"data": "synthetic", "instance": i, "n_samples": inst.n_samples, "n_classes": inst.n_clusters,
             "constraint_fraction": inst.constraint_fraction, "error_fraction": inst.error_fraction,
             "cluster_std": float(cluster_std), "center_std": float(center_std),
             "instance_seed": int(inst.seed), **settings}
            for i, inst in enumerate(design)]


def k_sweep_tasks(base: Mapping, ks: Iterable[int] = range(2, 11), *, n_instances: int = 1,
                  first_instance_seed: int = 0) -> list[dict]:
    """Tasks of the k sweep of Fig. 3: the same instances scored with ``k`` clusters each.

    Read the fraction of constraints with a negative score, i.e. put ``"tau": 0`` in
    ``base``: on the published five-cluster instances its mean is lowest at the true k,
    while with the calibrated ``tau = 0.1`` it is flat from k = 5 to 8 and lowest at k = 6
    (``benchmarks/bench_impact_k_sweep.py``). F1 peaks at the true k either way.

    Parameters
    ----------
    base : dict
        Settings of every task (data specification, constraint settings, options of
        :func:`impact_score_task`).
    ks : iterable of int, default=range(2, 11)
        The numbers of clusters (the paper: 2..10).
    n_instances : int, default=1
        Instances (``instance_seed = first_instance_seed + i``), each scored at every ``k``.
    first_instance_seed : int, default=0

    Returns
    -------
    list of dict
    """
    ks = [check_positive_int(k, "ks") for k in ks]
    count = check_positive_int(n_instances, "n_instances")
    return grid_tasks(base, instance_seed=[first_instance_seed + i for i in range(count)], n_clusters=ks)


# ============================================================================ data of a task
def load_instance(config: Mapping):
    """Data, ground truth, constraints and erroneous mask described by a task configuration.

    See the module docstring for the ``"data"`` specifications and constraint settings.

    Parameters
    ----------
    config : dict

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of int of shape (n_samples,) or None
    constraints : Constraints
    erroneous : ndarray of bool of shape (n_constraints,) or None
        Which constraints disagree with the ground truth (None without labels).

    Raises
    ------
    InvalidParameterError
        An unknown data specification, a missing setting, constraint settings that mix two
        ways of giving constraints (or give half of one, ``n_erroneous`` without
        ``n_constraints``), or settings of synthetic data with other data. Settings it does
        not read are left to the task functions to check.
    """
    from ccopt.constraints import Constraints
    from ccopt.generators import make_gaussian_clusters, noisy_constraints, synthetic_instance

    data = config.get("data", "synthetic")
    _check_instance_settings(config, data)
    seed = _instance_seed(config)
    if data == "synthetic":
        missing = [k for k in ("n_samples", "n_classes") if k not in config]
        if "n_constraints" not in config:
            missing += [k for k in ("constraint_fraction", "error_fraction") if k not in config]
        if missing:
            raise InvalidParameterError(f"data='synthetic' needs the setting(s) {missing}.")
        shape = {"cluster_std": config.get("cluster_std", 0.5), "center_std": config.get("center_std", 5.0)}
        if "n_constraints" not in config:
            # The paper's design (Sec. 4.1): one seed makes both the data and the constraints.
            inst = synthetic_instance(config["n_samples"], config["n_classes"], config["constraint_fraction"],
                                      config["error_fraction"], random_state=seed, **shape)
            return inst.X, inst.labels, inst.constraints, np.asarray(inst.erroneous)
        X, labels = make_gaussian_clusters(config["n_samples"], config["n_classes"], random_state=seed, **shape)
        stored = {}
    else:
        dataset = _load_dataset(data)
        X, labels, stored = dataset.X, dataset.labels, dataset.constraint_sets

    if "constraint_set" in config:
        if config["constraint_set"] not in stored:
            raise InvalidParameterError(
                f"data {data!r} has no constraint set {config['constraint_set']!r}; "
                f"available: {', '.join(stored) or 'none'}."
            )
        cons = stored[config["constraint_set"]]
        return X, labels, cons, None if labels is None else ~cons.is_correct(labels)
    n = X.shape[0]
    if "n_constraints" in config:
        p = check_positive_int(config["n_constraints"], "n_constraints", minimum=0)
        q = check_positive_int(config.get("n_erroneous", 0), "n_erroneous", minimum=0)
    elif "constraint_fraction" in config:
        # A fraction of n, which may exceed 1 (more constraints than objects); q is a share of p.
        p = math.ceil(check_nonnegative(config["constraint_fraction"], "constraint_fraction") * n - 1e-9)
        q = math.ceil(check_fraction(config.get("error_fraction", 0.0), "error_fraction", allow_zero=True) * p - 1e-9)
    else:
        return X, labels, Constraints.empty(n), None if labels is None else np.zeros(0, dtype=bool)
    if labels is None:
        raise InvalidParameterError(f"data {data!r} has no labels to generate constraints from.")
    # A generator of its own: the data of a synthetic instance already used ``seed``.
    cons, erroneous = noisy_constraints(labels, p, q, random_state=np.random.default_rng([seed, 1]))
    return X, labels, cons, np.asarray(erroneous)


# The settings load_instance reads: the data, then each way of giving constraints.
_DATA_SETTINGS = ("data", "n_samples", "n_classes", "cluster_std", "center_std", "instance_seed", "seed")
_SYNTHETIC_ONLY = ("n_samples", "cluster_std", "center_std")
_CONSTRAINT_WAYS = (("constraint_set",), ("n_constraints", "n_erroneous"), ("constraint_fraction", "error_fraction"))
_INSTANCE_SETTINGS = (*_DATA_SETTINGS, *itertools.chain.from_iterable(_CONSTRAINT_WAYS))


def _check_instance_settings(config: Mapping, data) -> None:
    """Refuse settings :func:`load_instance` would ignore: a second way of giving constraints, half of one."""
    if data != "synthetic":
        extra = [name for name in _SYNTHETIC_ONLY if name in config]
        if extra:
            raise InvalidParameterError(f"{extra} describe data='synthetic' only; data {data!r} brings its own objects.")
    ways = [[name for name in way if name in config] for way in _CONSTRAINT_WAYS]
    given = [way for way in ways if way]
    if len(given) > 1:
        raise InvalidParameterError(
            f"the settings {list(itertools.chain.from_iterable(given))} mix ways of giving constraints; use one: constraint_set (a stored "
            "set), n_constraints with n_erroneous (counts), or constraint_fraction with error_fraction (fractions)."
        )
    if ways[1] == ["n_erroneous"]:
        raise InvalidParameterError("n_erroneous needs n_constraints (of which n_erroneous are wrong).")
    if ways[2] == ["error_fraction"]:
        raise InvalidParameterError(
            "error_fraction needs constraint_fraction (ceil(f n) constraints, of which a share error_fraction "
            "is wrong)."
        )


def _check_task_settings(config: Mapping, task: str, accepted: Sequence[str], hint: str = "") -> None:
    """Refuse the settings a task function does not read: a misspelt one would change nothing."""
    accepted = sorted({*accepted, *TAG_SETTINGS})
    unknown = sorted(set(config) - set(accepted))
    if not unknown:
        return
    guesses = [(name, difflib.get_close_matches(name, accepted, n=1)) for name in unknown]
    guesses = [f"{match[0]!r}" + (f" for {name!r}" if len(unknown) > 1 else "") for name, match in guesses if match]
    guess = f" (did you mean {', '.join(guesses)}?)" if guesses else ""
    raise InvalidParameterError(f"{task} takes no setting(s) {unknown}{guess}; its settings are {accepted}{hint}.")


def _instance_seed(config: Mapping) -> int:
    """The seed that draws a task's data and constraints (``instance_seed``, else ``seed``, else 0)."""
    name = "instance_seed" if "instance_seed" in config else "seed"
    return check_positive_int(config.get(name, 0), name, minimum=0)


def _load_dataset(data: str):
    from ccopt import datasets

    if not isinstance(data, str):
        raise InvalidParameterError(f"data must be a string specification, got {data!r}.")
    if data.startswith("benchmark:"):
        return datasets.load_benchmark(data.split(":", 1)[1])
    if data.startswith("csv:"):
        return datasets.load_csv(data.split(":", 1)[1], label_column="label")
    if data in ("iris", "wine", "breast_cancer", "digits"):
        return datasets.load_sklearn(data)
    raise InvalidParameterError(
        f"Unknown data specification {data!r}; use 'synthetic', 'iris', 'wine', 'breast_cancer', "
        "'digits', 'benchmark:<folder>' or 'csv:<path>'."
    )


def _n_clusters(config: Mapping, labels) -> int:
    if "n_clusters" in config:
        return check_positive_int(config["n_clusters"], "n_clusters")
    if "n_classes" in config:
        return check_positive_int(config["n_classes"], "n_classes")
    if labels is None:
        raise InvalidParameterError("n_clusters is needed when the data has no labels.")
    return int(np.unique(labels).shape[0])


# ============================================================================ task functions
_SCORE_OPTIONS = ("criterion", "method", "epsilon", "max_iter", "time_limit", "gap_tol",
                  "stagnation_iter", "solver", "score_from", "tau", "repair_every", "step_norm")


def impact_score_task(config: Mapping) -> dict:
    """One impact-score run: detection quality and bounds for one constraint set.

    Parameters
    ----------
    config : dict
        A data specification (module docstring), optional ``n_clusters`` (default: the
        number of classes), the options of :func:`ccopt.impact_scores` among
        ``criterion, method, epsilon, max_iter, time_limit, gap_tol, stagnation_iter,
        solver, score_from, tau, repair_every, step_norm``, and ``seed``.

    Returns
    -------
    dict
        ``n_constraints``, ``n_erroneous``, ``n_predicted``, ``fraction_predicted``,
        ``precision``, ``recall``, ``f1`` (of detecting the erroneous constraints; None
        without ground truth), ``lower_bound``, ``upper_bound``, ``gap``, ``set_score``,
        ``ari`` (best feasible clustering against the classes), ``n_iter``, ``status``,
        ``run_seconds``.

    Raises
    ------
    InvalidParameterError
        A setting it does not read (the tags of :data:`TAG_SETTINGS` aside), or data and
        constraint settings that :func:`load_instance` refuses.
    """
    from ccopt.lagrange import impact_scores
    from ccopt.metrics import adjusted_rand_score

    _check_task_settings(config, "impact_score_task", (*_INSTANCE_SETTINGS, "n_clusters", *_SCORE_OPTIONS))
    X, labels, cons, erroneous = load_instance(config)
    k = _n_clusters(config, labels)
    options = {name: config[name] for name in _SCORE_OPTIONS if name in config}
    truth = None if erroneous is None else cons.to_given(erroneous)
    result = impact_scores(X, k, constraints=cons, erroneous=truth, random_state=config.get("seed"),
                           progress=False, **options)
    predicted = np.asarray(result.predicted_erroneous)
    detection = result.detection
    return {
        "n_constraints": int(predicted.size),
        "n_erroneous": None if truth is None else int(np.sum(truth)),
        "n_predicted": int(predicted.sum()),
        "fraction_predicted": float(predicted.mean()) if predicted.size else 0.0,
        "precision": None if detection is None else float(detection.precision),
        "recall": None if detection is None else float(detection.recall),
        "f1": None if detection is None else float(detection.f1),
        "lower_bound": _finite_or_none(result.lower_bound),
        "upper_bound": _finite_or_none(result.upper_bound),
        "gap": _finite_or_none(result.gap),
        "set_score": float(result.set_score),
        "ari": None if labels is None or result.labels is None else adjusted_rand_score(labels, result.labels),
        "n_iter": int(result.n_iter),
        "status": str(result.status),
        "run_seconds": float(result.seconds),
    }


def _finite_or_none(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def make_estimator(algorithm: str, n_clusters: int, **params):
    """An estimator of :mod:`ccopt.cluster` by its command-line name.

    Parameters
    ----------
    algorithm : str
        One of :data:`ALGORITHMS` (``"bh-kmeans"``, ``"lcc"``, ``"pcs"``, ``"cop-kmeans"``,
        ``"pckmeans"``, ``"ml-kmeans"``, ``"greedy-ml-kmeans"``, ``"kmeans"``,
        ``"kmeans-s"``).
    n_clusters : int
    **params
        Constructor parameters of that estimator.

    Returns
    -------
    ConstrainedClusterer
        Not fitted.

    Raises
    ------
    InvalidParameterError
        Unknown algorithm, or a parameter the estimator does not take.
    """
    algorithm = check_choice(algorithm, "algorithm", ALGORITHMS)
    cls = getattr(import_module("ccopt.cluster"), ALGORITHMS[algorithm])
    valid = set(cls._get_param_names())
    unknown = sorted(set(params) - valid)
    if unknown:
        raise InvalidParameterError(
            f"{cls.__name__} takes no parameter(s) {unknown}; its parameters are {sorted(valid)}."
        )
    return cls(n_clusters, **params)


def clustering_task(config: Mapping) -> dict:
    """One constrained clustering run and its quality.

    Parameters
    ----------
    config : dict
        ``algorithm`` (a name of :data:`ALGORITHMS`), a data specification (module
        docstring), optional ``n_clusters`` (default: the number of classes), optional
        ``params`` (a dict of estimator parameters; ``random_state`` comes from ``seed``,
        ``progress`` is off).

    Returns
    -------
    dict
        ``ari``, ``nmi`` (None without labels), ``wcss``, ``objective``, ``violations``,
        ``ml_violations``, ``cl_violations``, ``n_constraints``, ``n_iter``, ``status``,
        ``run_seconds``.

    Raises
    ------
    InvalidParameterError
        A setting it does not read (the tags of :data:`TAG_SETTINGS` aside; estimator
        parameters go in ``params``), or data and constraint settings that
        :func:`load_instance` refuses.
    """
    from ccopt.metrics import adjusted_rand_score, normalized_mutual_info_score

    if "algorithm" not in config:
        raise InvalidParameterError(f"clustering_task needs an 'algorithm' (one of {', '.join(ALGORITHMS)}).")
    _check_task_settings(config, "clustering_task", (*_INSTANCE_SETTINGS, "n_clusters", "algorithm", "params"),
                         " (estimator parameters go in 'params')")
    X, labels, cons, _ = load_instance(config)
    k = _n_clusters(config, labels)
    params = dict(config.get("params") or {})
    params.setdefault("random_state", config.get("seed"))
    params.setdefault("progress", False)
    estimator = make_estimator(config["algorithm"], k, **params)
    start = time.perf_counter()
    estimator.fit(X, constraints=cons)
    seconds = time.perf_counter() - start
    return {
        "ari": None if labels is None else adjusted_rand_score(labels, estimator.labels_),
        "nmi": None if labels is None else normalized_mutual_info_score(labels, estimator.labels_),
        "wcss": float(estimator.inertia_),
        "objective": float(estimator.objective_),
        "violations": int(estimator.n_violations_["total"]),
        "ml_violations": int(estimator.n_violations_["ml"]),
        "cl_violations": int(estimator.n_violations_["cl"]),
        "n_constraints": len(cons),
        "n_iter": int(estimator.n_iter_),
        "status": str(estimator.status_),
        "run_seconds": seconds,
    }


# ============================================================================ constraint sets (Figs. 9-10)
def constraint_set_task(config: Mapping) -> dict:
    """One constraint set of the selection study of Figs. 9-10 (impact-score paper, Sec. 4.4).

    Draws ``n_constraints`` constraints (default 25) that are all correct, or all erroneous
    when ``erroneous`` is true, scores them, and reports the set score ``I(C)``, the
    coherence and the informativeness of Davidson et al.
    (:func:`ccopt.lagrange.baselines.coherence`, :func:`~ccopt.lagrange.baselines.informativeness`
    with the run's criterion), and the ARI of the constrained clustering: ``ari`` reads it
    from the best feasible solution of (2)-(5) that the impact-score run found (its upper
    bound, no second solve), ``ari_exact`` (with ``exact``) from the optimum.

    Parameters
    ----------
    config : dict
        A data specification with labels, ``n_constraints`` (default 25), ``erroneous``
        (default False), ``sampling`` (default ``"pairs"``: uniformly random pairs, kinds
        from the classes, :func:`ccopt.generators.random_pair_constraints`, the proportions
        of the paper's Table 4; ``"balanced"``: half must-links,
        :func:`ccopt.generators.noisy_constraints`), optional ``n_clusters``, the options of
        :func:`impact_score_task`, ``instance_seed`` (which set) and ``seed``. With
        ``exact`` true (k-medoids only) the k-medoids integer program with the set's exact
        rows (3)-(4) is also solved to optimality (HiGHS, one thread, at most
        ``exact_time_limit`` seconds), the paper's reading of "the partition obtained by
        solving (2)-(5)".

    Returns
    -------
    dict
        ``set_score``, ``coherence``, ``informativeness``, ``ari``, ``upper_bound`` (the
        run's best feasible value), ``n_ml``, ``n_cl``, ``status``, ``run_seconds``; with
        ``exact``, also ``ari_exact``, ``exact_objective``, ``exact_status`` and
        ``exact_seconds``.

    Raises
    ------
    InvalidParameterError
        A setting it does not read (the tags of :data:`TAG_SETTINGS` aside), among them the
        other tasks' ``n_erroneous``, ``constraint_fraction``, ``error_fraction`` and
        ``constraint_set``: the set is drawn here.
    """
    from ccopt.generators import random_pair_constraints
    from ccopt.lagrange import impact_scores
    from ccopt.lagrange.baselines import coherence, informativeness
    from ccopt.metrics import adjusted_rand_score

    _check_task_settings(config, "constraint_set_task", (*_DATA_SETTINGS, *_SCORE_OPTIONS, "n_constraints",
                                                         "erroneous", "sampling", "n_clusters", "exact",
                                                         "exact_time_limit"))
    p = check_positive_int(config.get("n_constraints", 25), "n_constraints")
    wrong = check_bool(config.get("erroneous", False), "erroneous")
    sampling = check_choice(config.get("sampling", "pairs"), "sampling", ("pairs", "balanced"))
    settings = dict(config)
    balanced = sampling == "balanced"
    # With "pairs", load_instance only loads the data: the set is drawn below.
    settings.update(n_constraints=p if balanced else 0, n_erroneous=p if wrong and balanced else 0)
    X, labels, cons, _ = load_instance(settings)
    if labels is None:
        raise InvalidParameterError("constraint_set_task needs data with ground-truth labels.")
    if not balanced:
        seed = _instance_seed(config)
        # Its own stream per kind: the correct and the erroneous collections are drawn independently.
        cons = random_pair_constraints(labels, p, erroneous=wrong,
                                       random_state=np.random.default_rng([seed, 2 + wrong])).constraints
    k = _n_clusters(config, labels)
    options = {name: config[name] for name in _SCORE_OPTIONS if name in config}
    criterion = options.get("criterion", "kmedoids")
    exact = check_bool(config.get("exact", False), "exact")
    if exact and criterion != "kmedoids":
        raise InvalidParameterError(f"exact=True solves the k-medoids program; criterion is {criterion!r}.")
    result = impact_scores(X, k, constraints=cons, random_state=config.get("seed"), progress=False, **options)
    row = {
        "set_score": float(result.set_score),
        "coherence": coherence(X, constraints=cons).value,
        "informativeness": informativeness(X, k, constraints=cons, criterion=criterion,
                                           random_state=config.get("seed")).value,
        "ari": None if result.labels is None else adjusted_rand_score(labels, result.labels),
        "upper_bound": _finite_or_none(result.upper_bound),
        "n_ml": int(cons.n_ml),
        "n_cl": int(cons.n_cl),
        "status": str(result.status),
        "run_seconds": float(result.seconds),
    }
    if exact:
        row.update(_exact_kmedoids_row(X, k, cons, labels, config.get("exact_time_limit")))
    return row


def _exact_kmedoids_row(X, k, cons, labels, time_limit) -> dict:
    """ARI, objective, status and time of the k-medoids integer program with the exact pairwise rows."""
    from ccopt.metrics import adjusted_rand_score
    from ccopt.models.kmedoids import build_kmedoids_model, kmedoids_labels
    from ccopt.problem import ClusteringProblem
    from ccopt.solvers import solve

    model = build_kmedoids_model(ClusteringProblem.create(X, k, cons), pairwise="exact")
    solved = solve(model, "highs_matrix", time_limit=time_limit, mip_gap=0.0, threads=1, require_solution=False)
    found = solved.has_solution
    return {"ari_exact": adjusted_rand_score(labels, kmedoids_labels(model)[0]) if found else None,
            "exact_objective": _finite_or_none(solved.objective) if found else None,
            "exact_status": str(solved.status), "exact_seconds": float(solved.wall_time)}


def constraint_set_selection(records: Sequence[Mapping], *, top: int = 50, erroneous: bool = False,
                             value: str = "ari") -> dict[str, np.ndarray]:
    """The groups of Figs. 9-10: all sets, the top sets by impact score, by coherence (and by informativeness).

    Correct sets (Fig. 9): the ``top`` sets with the *smallest* (most negative) set score,
    and the ``top`` with the *highest* coherence. Erroneous sets (Fig. 10): the ``top`` with
    the *highest* set score and the ``top`` with the *smallest* coherence (the paper's text).
    When every record has ``informativeness`` (not in the paper; the share of the set that
    unconstrained clustering violates, the naive baseline of the Table 3 benchmark read per
    set), a fourth group holds the ``top`` sets with the *highest* informativeness among
    correct sets (they correct the clustering most) and the *smallest* among erroneous ones
    (they disturb it least). Ties keep the records' order.

    Parameters
    ----------
    records : sequence of dict
        Rows of :func:`constraint_set_task` (``set_score``, ``coherence``, optionally
        ``informativeness``, and ``value``).
    top : int, default=50
    erroneous : bool, default=False
    value : str, default="ari"
        The column collected in each group.

    Returns
    -------
    dict of str to ndarray
        ``{"all": ..., "impact score": ..., "coherence": ...}`` and ``"informativeness"``
        when the records have it, ready for :func:`ccopt.plotting.plot_selection_boxplots`.
    """
    top = check_positive_int(top, "top")
    rows = [r for r in records if r.get(value) is not None and r.get("set_score") is not None]
    if not rows:
        raise InvalidParameterError(f"no record has both 'set_score' and {value!r}.")
    values = np.array([float(r[value]) for r in rows])
    measures = ["impact score", "coherence"]
    if all(r.get("informativeness") is not None for r in rows):
        measures.append("informativeness")
    groups = {"all": values}
    for measure in measures:
        groups[measure] = values[constraint_set_ranking(rows, measure, erroneous=erroneous)[:top]]
    return groups


# Column of each selection measure, and whether a correct set is chosen for a high value.
_SET_MEASURES = {"impact score": ("set_score", False), "coherence": ("coherence", True),
                 "informativeness": ("informativeness", True)}


def constraint_set_ranking(records: Sequence[Mapping], measure: str, *, erroneous: bool = False) -> np.ndarray:
    """Positions of ``records`` in the order ``measure`` chooses them (Figs. 9-10).

    Correct sets: the most negative set score, the highest coherence, the highest
    informativeness first; erroneous sets the other way round. Ties keep the records' order.

    Parameters
    ----------
    records : sequence of dict
        Rows of :func:`constraint_set_task`.
    measure : {"impact score", "coherence", "informativeness"}
    erroneous : bool, default=False

    Returns
    -------
    ndarray of int
    """
    if measure not in _SET_MEASURES:
        raise InvalidParameterError(f"measure must be one of {list(_SET_MEASURES)}, got {measure!r}.")
    column, high_first = _SET_MEASURES[measure]
    values = np.array([float(r[column]) for r in records])
    return np.argsort(-values if high_first != erroneous else values, kind="stable")
