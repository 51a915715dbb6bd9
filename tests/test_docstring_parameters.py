"""Every public callable documents exactly the parameters its signature takes (numpydoc).

For each public function, class and public method reachable from the modules below, the
"Parameters" section of the docstring must name every parameter of the signature (except
``self``/``cls``, ``*args``/``**kwargs`` and names starting with ``_``, which are internal),
and must name nothing the signature lacks. A class documents its constructor in the class
docstring (numpydoc); a record type (dataclass or NamedTuple), whose constructor takes its
fields, may document them under "Attributes" instead. ``*args``/``**kwargs`` need not be
documented but may be. Callables without parameters need no section; properties are not
callables, and an Enum's "constructor" is a value lookup, so enums are skipped.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import re

import pytest

MODULES = [
    "ccopt",  # ccopt.__all__
    "ccopt.lagrange",
    "ccopt.cluster",
    "ccopt.metrics",
    "ccopt.datasets",
    "ccopt.generators",
    "ccopt.plotting",
    "ccopt.experiments",
    "ccopt.constraints",
    "ccopt.problem",
    "ccopt.solvers",
    "ccopt.models",
    "ccopt.models.duals",
    "ccopt.models.highs_direct",
    "ccopt.models.kmedoids",
    "ccopt.models.lagrangian",
    "ccopt.models.mssc",
    "ccopt.models.bh_assignment",
]

# Known defects in files outside this change, one per line: "module.qualname",  # what is wrong.
# Each entry is an xfail(strict=True): once it is documented the test XPASSes and fails, and
# the entry must be removed.
KNOWN_GAPS: set[str] = set()

_HEADER_RULE = re.compile(r"^\s*-{3,}\s*$")
_PARAMETER_SECTIONS = {"Parameters", "Other Parameters"}


def _sections(doc: str) -> dict[str, list[str]]:
    """Split a cleaned numpydoc docstring into {section title: body lines}."""
    lines = doc.splitlines()
    starts = [i for i in range(len(lines) - 1)
              if lines[i].strip() and _HEADER_RULE.match(lines[i + 1])]
    out: dict[str, list[str]] = {}
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        out.setdefault(lines[start].strip(), []).extend(lines[start + 2:end])
    return out


def _names(body: list[str]) -> set[str]:
    """Names at the section's indentation: ``name : type``, ``a, b : type`` or a bare ``name``."""
    entries = [line for line in body if line.strip()]
    if not entries:
        return set()
    indent = min(len(line) - len(line.lstrip()) for line in entries)
    names = set()
    for line in entries:
        if len(line) - len(line.lstrip()) != indent:
            continue  # a description line
        head = line.split(" :", 1)[0].split(":", 1)[0] if ":" in line else line
        names.update(part.strip().lstrip("*") for part in head.split(",") if part.strip())
    return names


def _documented(doc: str | None, titles) -> set[str]:
    sections = _sections(doc or "")
    return set().union(*(_names(sections[t]) for t in titles if t in sections))


def _signature_names(obj) -> tuple[list[str], set[str]]:
    """(parameters that must be documented, every name the docstring may document)."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin without a signature
        return [], set()
    skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    params = signature.parameters.values()
    wanted = [p.name for p in params
              if p.kind not in skip and p.name not in ("self", "cls") and not p.name.startswith("_")]
    return wanted, {p.name for p in params}


def _ours(obj) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module.startswith("ccopt")


def _public_names(module) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name in vars(module) if not name.startswith("_")]


def _methods(cls):
    """Public functions, classmethods and staticmethods of ``cls`` (inherited ones too)."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, (classmethod, staticmethod)):
            func = raw.__func__
            bound = getattr(cls, name)  # drops cls from a classmethod's signature
        elif inspect.isfunction(raw):
            func = bound = raw
        else:
            continue  # properties, cached properties, data, nested classes
        if _ours(func):
            yield func, bound


def _is_record(cls) -> bool:
    """A dataclass or NamedTuple: the constructor takes the documented attributes."""
    return dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))


def _collect() -> dict[str, tuple[object, bool]]:
    """{"module.qualname": (callable whose signature to read, is a record type)}."""
    found: dict[str, tuple[object, bool]] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in _public_names(module):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not _ours(obj):
                continue
            if inspect.isclass(obj) and issubclass(obj, enum.Enum):
                continue  # Status("optimal") looks a member up; its signature is EnumMeta's
            found.setdefault(f"{obj.__module__}.{obj.__qualname__}",
                             (obj, inspect.isclass(obj) and _is_record(obj)))
            if inspect.isclass(obj):
                for func, bound in _methods(obj):
                    found.setdefault(f"{func.__module__}.{func.__qualname__}", (bound, False))
    return found


CALLABLES = _collect()


def _problems(obj, is_record: bool) -> list[str]:
    wanted, allowed = _signature_names(obj)
    if not wanted:
        return []
    doc = obj.__doc__ if inspect.isclass(obj) else inspect.getdoc(obj)
    doc = inspect.cleandoc(doc or "")
    documented = _documented(doc, _PARAMETER_SECTIONS)
    covered = documented | (_documented(doc, {"Attributes"}) if is_record else set())
    problems = []
    missing = [n for n in wanted if n not in covered]
    if missing:
        problems.append(f"not in the Parameters section: {missing}")
    extra = sorted(documented - allowed)
    if extra:
        problems.append(f"documented but not in the signature: {extra}")
    return problems


def _param(name):
    marks = [pytest.mark.xfail(strict=True, reason="listed in KNOWN_GAPS")] if name in KNOWN_GAPS else []
    return pytest.param(name, id=name, marks=marks)


def test_the_check_sees_the_public_api():
    assert len(CALLABLES) > 100
    assert "ccopt.constraints.Constraints.from_csv" in CALLABLES
    assert "ccopt.solvers.check_solver_options" in CALLABLES
    assert "ccopt.models.duals.PairwiseDuals.from_row_duals" in CALLABLES


def test_known_gaps_name_checked_callables():
    assert not KNOWN_GAPS - set(CALLABLES)


def test_the_parser_reads_numpydoc():
    doc = inspect.cleandoc("""Summary.

        Parameters
        ----------
        a, b : int
            Text with ``c : d`` in it.
        *args
        e

        Returns
        -------
        f : int
        """)
    assert _documented(doc, _PARAMETER_SECTIONS) == {"a", "b", "args", "e"}


@pytest.mark.parametrize("name", [_param(name) for name in sorted(CALLABLES)])
def test_parameters_section_matches_signature(name):
    obj, is_record = CALLABLES[name]
    assert _problems(obj, is_record) == []
