"""The documentation runs: README's python blocks, and docs/API.md covers the public API."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
API = ROOT / "docs" / "API.md"


def _python_blocks(text: str) -> list[tuple[str, str | None]]:
    """Each python block, with the text block right after it (its printed output) if any."""
    found = re.findall(r"^```python\n(.*?)^```\n(?:\n```text\n(.*?)^```)?", text, flags=re.S | re.M)
    return [(code, output if output and not output.startswith("$") else None) for code, output in found]


def _masked(text: str) -> list[str]:
    """Lines with run times masked: the README shows one run on a loaded machine."""
    return [re.sub(r"\d+(\.\d+)? s\b", "<t> s", line.rstrip()) for line in text.strip().splitlines()]


def test_readme_keeps_the_set_up_commands():
    text = README.read_text()
    assert "pip install . && python examples/impact_score_iris.py" in text
    assert 'pip install -e ".[dev,scip]" && python -m pytest' in text


def test_readme_python_blocks_run_in_order_and_print_what_it_shows(tmp_path, monkeypatch, capsys):
    _run_blocks(tmp_path, monkeypatch, capsys, with_dask=False)


@pytest.mark.slow
def test_readme_python_blocks_with_the_dask_example(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    _run_blocks(tmp_path, monkeypatch, capsys, with_dask=True)
    assert (tmp_path / "sweep_dask.csv").is_file()


def _run_blocks(tmp_path, monkeypatch, capsys, *, with_dask: bool) -> None:
    """Run every python block in one namespace, like a notebook; check the outputs shown."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    blocks = _python_blocks(README.read_text())
    assert len(blocks) >= 5
    assert sum(output is not None for _, output in blocks) >= 2
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    try:
        for number, (block, shown) in enumerate(blocks, start=1):
            if "dask" in block and not with_dask:
                continue  # a local Dask cluster takes seconds to start: the slow tier runs it
            capsys.readouterr()
            exec(compile(block, f"README.md python block {number}", "exec"), namespace)
            if shown is not None:
                assert _masked(capsys.readouterr().out) == _masked(shown), f"python block {number}"
    finally:
        plt.close("all")
        client = namespace.get("client")
        if client is not None:
            client.close()
    # What the blocks say they produce.
    assert (tmp_path / "iris.csv").is_file() and (tmp_path / "constraints.csv").is_file()
    assert (tmp_path / "convergence.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "sweep.csv").is_file() and (tmp_path / "sweep.json").is_file()
    assert namespace["cop"].n_violations_["total"] == 0
    assert namespace["result"].predicted_erroneous.any()


MODULES = ["ccopt", "ccopt.constraints", "ccopt.problem", "ccopt.status", "ccopt.config", "ccopt.cluster",
           "ccopt.lagrange", "ccopt.lagrange.baselines", "ccopt.solvers", "ccopt.models", "ccopt.datasets",
           "ccopt.generators", "ccopt.metrics", "ccopt.plotting", "ccopt.experiments", "ccopt.cli",
           "ccopt.exceptions"]


@pytest.mark.parametrize("module", MODULES)
def test_api_overview_names_every_public_name(module):
    text = API.read_text()
    names = list(importlib.import_module(module).__all__)
    missing = [n for n in names if not re.search(rf"`{re.escape(n)}\b", text)]
    assert not missing, f"docs/API.md does not mention {module} names {missing}"


def test_api_overview_has_every_exception_in_its_table():
    from ccopt import exceptions

    table = API.read_text().split("## Exceptions", 1)[1]
    for name in exceptions.__all__:
        assert f"| `{name}`" in table, name
