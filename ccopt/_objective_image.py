"""The costs of a linear Pyomo objective as a function of its mutable Params.

A persistent re-solve after a Param change needs the new cost of every column. Walking the
objective again costs microseconds a term and dominated the re-solves: BH-kmeans on Letter
(5 x 10^5 terms a step) and the impact score's LP route (on Iris three quarters of its
time went to walking and evaluating the objective, not to HiGHS). :class:`ObjectiveImage`
walks it once, at compile time, and keeps

* the column of every term;
* every coefficient (and the constant) written as ``c0 + sum_m a_m m`` over monomials ``m``
  of the mutable Params (a Param, ``-eta``, ``lam - gamma``, ``2 * p``, ``p / 4``, BH-kmeans'
  ``M * p * w``, sums and small products of those), so a refresh is one bulk read of the
  Params, one product per monomial and one sparse product;
* the few coefficients of any other form (a division by a Param, a function of one), which
  are evaluated one by one.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from pyomo.common.numeric_types import native_numeric_types
from pyomo.core.base.param import ParamData, ScalarParam
from pyomo.core.base.var import ScalarVar, VarData
from pyomo.core.expr.numeric_expr import (
    DivisionExpression,
    LinearExpression,
    MonomialTermExpression,
    NegationExpression,
    ProductExpression,
    SumExpression,
)

from ccopt._params import read_values

NATIVE_NUMBERS = frozenset(native_numeric_types)
VAR_TYPES = frozenset({VarData, ScalarVar})
PARAM_TYPES = frozenset({ParamData, ScalarParam})


class ObjectiveImage:
    """Column and Param-linear coefficient of every term of a linear objective.

    Build it with :meth:`of`; :meth:`evaluate` gives the costs at the current Param values.
    """

    def __init__(self, positions: list[int], coefficients: list, constants: list):
        self.positions = np.asarray(positions, dtype=np.int64)
        self._params: list = []
        self._param_index: dict[int, int] = {}
        self._monomials: list[tuple[int, ...]] = []
        self._monomial_index: dict[tuple, int] = {}
        forms = [_param_form(c) for c in coefficients]
        self._generic_at = np.array([i for i, form in enumerate(forms) if form is None], dtype=np.int64)
        self._generic = [coefficients[i] for i in self._generic_at.tolist()]
        self._base, weights = self._stack([form or (0.0, {}) for form in forms])
        constant_forms = [_param_form(c) for c in constants]
        self._constant_generic = [c for c, form in zip(constants, constant_forms, strict=True) if form is None]
        constant_base, constant_weights = self._stack([_summed([f for f in constant_forms if f is not None])])
        self._constant_base = float(constant_base[0])
        # Shaped once every monomial is registered.
        self._weights, self._constant_weights = (
            sp.csr_array((data, (rows, cols)), shape=(n_rows, len(self._monomials)))
            for rows, cols, data, n_rows in (weights, constant_weights))
        # Each monomial's Params, padded with a slot that reads 1.
        degree = max((len(m) for m in self._monomials), default=1)
        one = len(self._params)
        self._monomial_table = np.array([m + (one,) * (degree - len(m)) for m in self._monomials],
                                        dtype=np.int64).reshape(len(self._monomials), degree)

    def _stack(self, forms) -> tuple[np.ndarray, tuple]:
        """Constant parts, and the (row, monomial, weight) entries of the forms; registers
        the Params and monomials met."""
        rows, cols, weights = [], [], []
        for row, (_, terms) in enumerate(forms):
            for key, (params, weight) in terms.items():
                index = self._monomial_index.get(key)
                if index is None:
                    index = self._monomial_index[key] = len(self._monomials)
                    self._monomials.append(tuple(self._register(param) for param in params))
                rows.append(row)
                cols.append(index)
                weights.append(weight)
        base = np.array([form[0] for form in forms], dtype=np.float64)
        return base, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
                      np.asarray(weights, dtype=np.float64), len(forms))

    def _register(self, param) -> int:
        index = self._param_index.get(id(param))
        if index is None:
            index = self._param_index[id(param)] = len(self._params)
            self._params.append(param)
        return index

    @classmethod
    def of(cls, expr, column) -> ObjectiveImage | None:
        """The image of ``expr``, registering its variables through ``column``.

        None when ``expr`` is not a sum (possibly nested, possibly through named
        expressions) of free variables, monomials and variable-free terms.
        """
        positions, coefficients, constants = [], [], []
        if not _collect(expr, column, positions, coefficients, constants):
            return None
        return cls(positions, coefficients, constants)

    def evaluate(self, n_cols: int) -> tuple[np.ndarray, float]:
        """Cost per column (``n_cols`` of them) and the constant, at the current Param values."""
        values = np.append(read_values(self._params) if self._params else np.zeros(0), 1.0)
        monomials = values[self._monomial_table].prod(axis=1)
        coef = self._base + self._weights @ monomials
        if self._generic:
            coef[self._generic_at] = np.fromiter((pyo.value(e) for e in self._generic), dtype=np.float64,
                                                 count=len(self._generic))
        cost = np.bincount(self.positions, weights=coef, minlength=n_cols).astype(np.float64)
        offset = (self._constant_base + float((self._constant_weights @ monomials)[0])
                  + sum(pyo.value(c) for c in self._constant_generic))
        return cost, float(offset)


def _collect(expr, column, positions: list, coefficients: list, constants: list) -> bool:
    """Add the terms of a linear sum to the lists; False when ``expr`` has another shape."""
    while expr.is_named_expression_type():
        expr = expr.expr
    if type(expr) not in (LinearExpression, SumExpression):
        return False
    for arg in expr.args:
        kind = type(arg)
        if kind in NATIVE_NUMBERS:
            constants.append(arg)
        elif kind in VAR_TYPES and not arg.fixed:
            positions.append(column(arg))
            coefficients.append(1.0)
        elif kind is MonomialTermExpression and not arg.args[1].fixed:
            coef, var = arg.args
            positions.append(column(var))
            coefficients.append(coef)
        elif not arg.is_potentially_variable():
            constants.append(arg)
        elif not _collect(arg, column, positions, coefficients, constants):
            return False  # a fixed variable, a scaled sum: the caller walks the whole objective
    return True


# A product of two forms multiplies out their terms; beyond these sizes the coefficient is
# evaluated as it is instead.
_MAX_PRODUCT_TERMS = 64
_MAX_DEGREE = 4


def _param_form(expr) -> tuple[float, dict] | None:
    """``expr`` (variable-free) as ``(c0, {key: (params, a)})``: ``c0`` plus ``a`` times the
    product of ``params`` for each monomial (``key``: the sorted ids of its Params).

    None when ``expr`` is not such a polynomial of modest size in its mutable Params (a
    division by a Param, a function of one).
    """
    kind = type(expr)
    if kind in NATIVE_NUMBERS:
        return float(expr), {}
    if kind in PARAM_TYPES:
        if expr.is_constant():  # an immutable scalar Param
            return float(pyo.value(expr)), {}
        return 0.0, {(id(expr),): ((expr,), 1.0)}
    if isinstance(expr, NegationExpression):
        inner = _param_form(expr.args[0])
        return None if inner is None else _scaled(inner, -1.0)
    if isinstance(expr, SumExpression):
        parts = [_param_form(arg) for arg in expr.args]
        return None if any(part is None for part in parts) else _summed(parts)
    if isinstance(expr, ProductExpression):
        left, right = (_param_form(arg) for arg in expr.args)
        return None if left is None or right is None else _product(left, right)
    if isinstance(expr, DivisionExpression):
        numerator, denominator = (_param_form(arg) for arg in expr.args)
        if numerator is None or denominator is None or denominator[1] or denominator[0] == 0:
            return None
        return _scaled(numerator, 1.0 / denominator[0])
    return None


def _scaled(form: tuple[float, dict], factor: float) -> tuple[float, dict]:
    constant, terms = form
    return constant * factor, {key: (params, weight * factor) for key, (params, weight) in terms.items()}


def _summed(forms) -> tuple[float, dict]:
    total, terms = 0.0, {}
    for constant, parts in forms:
        total += constant
        for key, (params, weight) in parts.items():
            terms[key] = (params, terms.get(key, (params, 0.0))[1] + weight)
    return total, {key: term for key, term in terms.items() if term[1] != 0.0}


def _product(left: tuple[float, dict], right: tuple[float, dict]) -> tuple[float, dict] | None:
    (c1, terms1), (c2, terms2) = left, right
    if not terms1:
        return _scaled(right, c1)
    if not terms2:
        return _scaled(left, c2)
    if len(terms1) * len(terms2) > _MAX_PRODUCT_TERMS:
        return None
    parts = [(c1 * c2, {}), _scaled((0.0, terms1), c2), _scaled((0.0, terms2), c1)]
    for params1, w1 in terms1.values():
        for params2, w2 in terms2.values():
            params = tuple(sorted(params1 + params2, key=id))
            if len(params) > _MAX_DEGREE:
                return None
            parts.append((0.0, {tuple(id(p) for p in params): (params, w1 * w2)}))
    return _summed(parts)
