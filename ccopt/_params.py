"""Bulk reads and writes of mutable Pyomo Params.

The persistent models re-solve after changing up to 10^6 Param values (BH-kmeans' distances
on Letter: about 20,000 units x 26 clusters per step). ``ParamData.set_value`` checks the
domain and the index on every call: on Letter that push took 0.67 s a step, and 0.02 s with
:func:`write_values`. ``value(p)`` dispatches through Pyomo's numeric protocol (0.24 s for
260,000 Params, against 0.008 s read directly). Both functions here go straight to the stored
value, as Pyomo's own ``IndexedParam.store_values(..., check=False)`` does; they are only
for Params the caller declared itself (mutable, no units, no domain or validation rule), so
the checks they skip could not fail.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyomo.environ as pyo


def write_values(params: Sequence, values: Sequence[float]) -> None:
    """Set ``params[i]`` to ``values[i]`` without Pyomo's per-value validation.

    Parameters
    ----------
    params : sequence of pyomo ParamData
        Mutable Params without units, domain or validation rule.
    values : sequence of float
        Same length as ``params`` (a list: numpy scalars would end up in the model).
    """
    for param, value in zip(params, values, strict=True):
        param._value = value


def read_values(params: Sequence) -> np.ndarray:
    """The values of ``params`` as a float array.

    Raises
    ------
    ValueError
        A Param has no value, or was set to None (Pyomo's own message, naming the Param).
    """
    try:
        values = np.fromiter((param._value for param in params), dtype=np.float64, count=len(params))
    except (TypeError, ValueError):
        values = None
    # A Param without a value (or a non-numeric one; one set to None reads as NaN above):
    # let Pyomo say which.
    if values is None or np.isnan(values).any():
        values = np.fromiter((pyo.value(param) for param in params), dtype=np.float64, count=len(params))
    return values
