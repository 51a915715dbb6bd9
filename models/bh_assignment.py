"""The BH-kmeans assignment program P (Baumann and Hochbaum 2022, (1)-(8)).

Pyomo command file: P depends on the cluster centres and on per-constraint weights, so the
model is built by ``pyomo_create_model`` with ccopt.models.bh_assignment (the builder
BH-kmeans uses) from a JSON instance given as the data file::

    pyomo solve models/bh_assignment.py models/data/bh_tiny.json --solver=cbc
    pyomo convert --output=bh_assignment.mps models/bh_assignment.py models/data/bh_tiny.json

The JSON object holds ``X`` (rows of coordinates), ``n_clusters``, ``centers`` (one row per
cluster), optional ``ml`` and ``cl`` (lists of index pairs) and ``penalty`` (default 1).
"""

import json

from ccopt import ClusteringProblem
from ccopt.exceptions import DataFormatError
from ccopt.models.bh_assignment import build_bh_assignment_model

_KEYS = ("X", "n_clusters", "centers")


def pyomo_create_model(options=None, model_options=None):
    """Build P from the JSON instance named on the command line (pyomo's data file)."""
    files = list(getattr(getattr(options, "data", None), "files", None) or [])
    if len(files) != 1 or not str(files[0]).endswith(".json"):
        raise DataFormatError(f"give exactly one JSON instance as the data file, got {files}")
    path = str(files[0])
    try:
        with open(path) as handle:
            data = json.load(handle)
    except OSError as exc:
        raise DataFormatError(f"cannot read file: {exc.strerror}", path=path) from None
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    missing = [key for key in _KEYS if key not in data]
    if missing:
        raise DataFormatError(f"missing key(s) {missing}; expected {list(_KEYS)}", path=path)
    problem = ClusteringProblem.create(data["X"], data["n_clusters"], ml=data.get("ml"),
                                       cl=data.get("cl"), require_closure=False)
    return build_bh_assignment_model(problem, data["centers"], penalty=data.get("penalty", 1.0))
