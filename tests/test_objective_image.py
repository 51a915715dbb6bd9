"""Param-weighted objectives: the objective image from which highs_matrix refreshes its costs
after Param changes, and bulk Param reads and writes.

Gold standard: Pyomo's own evaluation of the objective (``pyo.value``) and a fresh solve.
"""

from __future__ import annotations

import math

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyomo.core.expr.numeric_expr import LinearExpression

from ccopt._objective_image import ObjectiveImage, _param_form
from ccopt._params import read_values, write_values
from ccopt.exceptions import SolverError
from ccopt.solvers import PersistentSolver, solve


# ----------------------------------------------------------------------------- refresh of the costs
def image_lp(shape: str):
    """min sum c_i x_i + (M w) y + (k + 1) s.t. x_0 + x_1 + x_2 + y >= 2, in one of three shapes."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, 2)
    m.x = pyo.Var(m.I, bounds=(0, 1))
    m.y = pyo.Var(bounds=(0, 5))
    m.c = pyo.Param(m.I, mutable=True, initialize={0: 1.0, 1: 2.0, 2: 3.0})
    m.M = pyo.Param(mutable=True, initialize=2.0)
    m.w = pyo.Param(initialize=3.0)
    m.k = pyo.Param(mutable=True, initialize=1.0)
    m.cover = pyo.Constraint(expr=sum(m.x.values()) + m.y >= 2)
    if shape == "linear":  # the models' shape: a LinearExpression of Param-weighted terms
        expr = LinearExpression(constant=m.k + 1.0, linear_coefs=[m.c[i] for i in m.I] + [m.M * m.w],
                                linear_vars=[m.x[i] for i in m.I] + [m.y])
    elif shape == "sum":  # by hand; M * w_mutable, a product of two Params, is evaluated as is
        m.w_mutable = pyo.Param(mutable=True, initialize=3.0)  # never changed
        expr = sum(m.c[i] * m.x[i] for i in m.I) + m.M * m.w_mutable * m.y + m.k + 1.0
    elif shape == "named":  # the Lagrangian models' shape: named expressions, Param combinations
        m.cost = pyo.Expression(expr=sum((2 * m.c[i] - m.c[i]) * m.x[i] for i in m.I))
        m.penalty = pyo.Expression(expr=(m.M * m.w) * m.y + (m.k / 2 + m.k / 2 + 1.0))
        expr = m.cost + m.penalty
    else:  # a fixed variable and a nested sum: walked on every refresh
        m.f = pyo.Var(initialize=1.0)
        m.f.fix()
        expr = sum(m.c[i] * m.x[i] for i in m.I) + m.M * m.w * (m.y + m.f) + m.k
    m.objective = pyo.Objective(expr=expr)
    return m


@pytest.mark.parametrize("shape", ["linear", "sum", "named", "other"])
def test_highs_matrix_refresh_reads_new_param_values_into_the_costs(shape):
    m = image_lp(shape)
    persistent = PersistentSolver(m, "highs_matrix")
    persistent.solve()
    assert (persistent._compiled._image is None) == (shape == "other")
    for step, (costs, big_m, k) in enumerate([((-1.0, 2.0, 0.5), 0.1, 4.0), ((3.0, 3.0, 3.0), 0.2, -2.0)]):
        fresh = image_lp(shape)
        for model in (m, fresh):
            for i, value in enumerate(costs):
                model.c[i] = value
            model.M = big_m
            model.k = k
        again = persistent.solve()
        assert "update" in again.timing, step  # refreshed in place, not recompiled
        expected = solve(fresh, "appsi_highs")
        assert again.objective == pytest.approx(expected.objective)
        assert pyo.value(m.objective) == pytest.approx(expected.objective)


def test_highs_matrix_refresh_names_a_cost_param_set_to_none():
    m = pyo.ConcreteModel()
    m.q = pyo.Param(mutable=True, initialize=1.0, within=pyo.Any)
    m.x = pyo.Var(bounds=(0, 1))
    m.row = pyo.Constraint(expr=m.x >= 0.5)
    m.objective = pyo.Objective(expr=m.q * m.x + m.x)
    persistent = PersistentSolver(m, "highs_matrix")
    assert persistent.solve().objective == pytest.approx(1.0)
    assert persistent._compiled._image is not None  # the costs come from the image
    m.q = None
    with pytest.raises(SolverError, match="No value for uninitialized ScalarParam object q"):
        persistent.solve()


# ----------------------------------------------------------------------------- the image against Pyomo
def random_objective(rng):
    """A random linear objective over x[0..3], its coefficients random expressions of four
    mutable Params (products, repeated terms, divisions, functions, named expressions)."""
    m = pyo.ConcreteModel()
    m.P = pyo.Param(range(4), mutable=True, initialize=1.0)
    m.fixed = pyo.Param(initialize=2.5)
    m.x = pyo.Var(range(4))
    params = [m.P[i] for i in range(4)]
    names = iter(range(10**6))

    def param():
        return params[rng.integers(4)]

    def coefficient(depth=0):
        kind = rng.integers(0, 11 if depth < 3 else 3)
        if kind == 0:
            return float(rng.integers(-3, 4))
        if kind in (1, 2):
            return param()
        if kind == 3:
            return -coefficient(depth + 1)
        if kind == 4:
            return coefficient(depth + 1) + coefficient(depth + 1)
        if kind == 5:
            return coefficient(depth + 1) * coefficient(depth + 1)
        if kind == 6:
            return coefficient(depth + 1) / float(rng.choice([2.0, -4.0, 3.0]))
        if kind == 7:
            return coefficient(depth + 1) / (param() + 10.0)
        if kind == 8:
            return param() ** 2 + m.fixed * coefficient(depth + 1)
        if kind == 9:
            return pyo.exp(coefficient(depth + 1) / 10.0)
        named = pyo.Expression(expr=coefficient(depth + 1))
        m.add_component(f"e{next(names)}", named)
        return named

    def term(depth=0):
        kind = rng.integers(0, 5 if depth < 2 else 4)
        var = m.x[int(rng.integers(4))]
        if kind == 0:
            return var
        if kind == 1:
            return coefficient() * var
        if kind == 2:
            return coefficient()
        if kind == 3:
            return var * coefficient()
        return sum(term(depth + 1) for _ in range(rng.integers(1, 4)))

    return m, params, sum(term() for _ in range(rng.integers(2, 7)))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_objective_image_matches_pyomo_after_param_changes(seed):
    rng = np.random.default_rng(seed)
    m, params, expr = random_objective(rng)
    columns: dict = {}
    image = ObjectiveImage.of(expr, lambda var: columns.setdefault(id(var), len(columns)))
    if image is None:  # a shape the compiler walks on every refresh instead
        return
    for _ in range(3):
        for p in params:
            p.value = float(rng.normal() * 3)
        point = rng.normal(size=4)
        for i, value in enumerate(point):
            m.x[i].value = float(value)
        cost, offset = image.evaluate(len(columns))
        got = offset + sum(cost[columns[id(m.x[i])]] * point[i] for i in range(4) if id(m.x[i]) in columns)
        assert math.isclose(got, pyo.value(expr), rel_tol=1e-9, abs_tol=1e-9)


def test_param_forms_of_coefficients():
    m = pyo.ConcreteModel()
    m.p = pyo.Param(mutable=True, initialize=2.0)
    m.q = pyo.Param(mutable=True, initialize=5.0)
    m.fixed = pyo.Param(initialize=7.0)  # immutable: a number
    cases = {"-p": (-m.p, 0.0, {"p": -1.0}), "p - q": (m.p - m.q, 0.0, {"p": 1.0, "q": -1.0}),
             "2p/4 + 1": (2 * m.p / 4 + 1, 1.0, {"p": 0.5}),
             "1.5 (p + q) + fixed": (1.5 * (m.p + m.q) + m.fixed, 7.0, {"p": 1.5, "q": 1.5}),
             "p alone": (m.p, 0.0, {"p": 1.0}), "a number": (3, 3.0, {}),
             "p q 3 (BH's M p w)": (m.p * m.q * 3.0, 0.0, {"p*q": 3.0}),
             "(p + 1)(q - 2)": ((m.p + 1) * (m.q - 2), -2.0, {"p*q": 1.0, "p": -2.0, "q": 1.0}),
             "p p": (m.p * m.p, 0.0, {"p*p": 1.0})}
    for name, (expr, constant, weights) in cases.items():
        got_constant, terms = _param_form(expr)
        assert got_constant == pytest.approx(constant), name
        named = {"*".join(sorted(p.local_name for p in params)): weight for params, weight in terms.values()}
        assert named == pytest.approx(weights), name
        # The form reproduces the expression's value.
        value = got_constant + sum(weight * np.prod([pyo.value(p) for p in params])
                                   for params, weight in terms.values())
        assert value == pytest.approx(pyo.value(expr)), name
    assert _param_form(m.p / m.q) is None
    assert _param_form(pyo.exp(m.p)) is None


# ----------------------------------------------------------------------------- Param reads and writes
def test_bulk_param_writes_and_reads_agree_with_pyomo():
    m = pyo.ConcreteModel()
    m.p = pyo.Param(range(4), mutable=True, initialize=0.0)
    m.empty = pyo.Param(mutable=True)
    params = [m.p[i] for i in range(4)]
    write_values(params, [1.5, -2.0, 0.0, 7.25])
    assert [pyo.value(p) for p in params] == [1.5, -2.0, 0.0, 7.25]
    assert read_values(params).tolist() == [1.5, -2.0, 0.0, 7.25]
    with pytest.raises(ValueError, match="empty"):
        read_values([m.empty])


def test_a_param_set_to_none_is_refused_by_name():
    m = pyo.ConcreteModel()
    m.q = pyo.Param(mutable=True, initialize=1.0, within=pyo.Any)
    m.nan = pyo.Param(mutable=True, initialize=float("nan"))
    m.q = None
    with pytest.raises(ValueError, match="No value for uninitialized ScalarParam object q"):
        read_values([m.q])
    assert np.isnan(read_values([m.nan])).all()  # a NaN value is a value: read as it is
