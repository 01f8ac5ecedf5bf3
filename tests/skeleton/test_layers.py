"""The one-way layers of shared/ats (pyproject.toml's `layers` contract, issue 22).

import-linter checks the static imports (including those under `if TYPE_CHECKING:`:
grimp counts them unless told not to, and this file checks it is not told). What it
cannot see is checked here: every package in exactly one layer, and the imports made at
run time from a string - `import_module(...)`, `import_string(...)`, a dotted path
handed to Django or a registry - which may not reach a layer above either.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ATS = REPO / "shared" / "ats"
DOTTED = re.compile(r"^ats(\.[a-z_][a-z0-9_]*)+(:[A-Za-z_]\w*)?$")
DYNAMIC_CALLS = {"import_module", "import_string", "__import__", "autodiscover_modules"}

# Dotted strings that name a module on a higher layer, and why each is not an import
# by the module that holds it. Keyed (holding module, named module or callable).
COMPOSITION_ROOT = {"ats.config.settings", "ats.config.urls", "ats.config.log_config", "ats.parse_worker.settings"}
REVIEWED_STRINGS = {
    ("ats.devtools.up", "ats.cli"): "starts `python -m ats.cli` as a child process; imports nothing",
    ("ats.devtools.browser", "ats.cli"): "starts `python -m ats.cli` as a child process; imports nothing",
}
# import_module / import_string calls whose argument is not a literal, and what they load.
REVIEWED_DYNAMIC = {
    ("ats.sandbox.inprocess", "parser"): "the parser module, default ats.parsing.api (below sandbox)",
    ("ats.sandbox.zygote", "config.get('parser', 'ats.parsing.api')"): "the parser module (below sandbox)",
    ("ats.sandbox.zygote", "config['probes']"): "a test's probe module, named by the test (tests/sandbox)",
}


def _config() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]


def _layers() -> list[list[str]]:
    [contract] = [c for c in _config()["contracts"] if c["type"] == "layers"]
    return [[p.strip() for p in layer.split("|")] for layer in contract["layers"]]


def _rank() -> dict[str, int]:
    """package -> layer index, 0 at the top."""
    return {p: i for i, layer in enumerate(_layers()) for p in layer}


def _top_level() -> set[str]:
    packages = {p.parent.name for p in ATS.glob("*/__init__.py")}
    modules = {p.stem for p in ATS.glob("*.py") if p.stem != "__init__"}
    return packages | modules


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(ATS.rglob("*.py")):
        rel = path.relative_to(REPO / "shared").with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), ast.parse(path.read_text(), filename=str(path))


def _package(dotted: str) -> str:
    return dotted.split(":", maxsplit=1)[0].split(".")[1]


def _upward(holder: str, target: str, rank: dict[str, int]) -> bool:
    """True where `holder` may not import `target`: a layer above, or a sibling."""
    src, dst = _package(holder), _package(target)
    if src == dst or dst not in rank or src not in rank:
        return False
    return rank[dst] <= rank[src]


def test_every_package_sits_in_exactly_one_layer() -> None:
    named = [p for layer in _layers() for p in layer]
    assert len(named) == len(set(named)), "a package named in two layers"
    present = _top_level()
    assert {"pipeline", "monitoring", "jobs", "web", "cli"} <= present  # the check sees real code
    assert present - set(named) == set(), "packages in no layer: add them to the layers contract"
    assert set(named) - present == set(), "layers name packages that no longer exist"
    [contract] = [c for c in _config()["contracts"] if c["type"] == "layers"]
    assert contract.get("exhaustive") is True
    assert contract["containers"] == ["ats"]


def test_type_checking_imports_count() -> None:
    # grimp skips `if TYPE_CHECKING:` imports only when told to; they may not go upward either.
    assert not _config().get("exclude_type_checking_imports", False)
    rank = _rank()
    found = []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and inner.module and inner.module.startswith("ats."):
                        found.append((name, inner.module))
    assert [(h, t) for h, t in found if _upward(h, t, rank)] == []


def _strings_and_calls() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    strings, calls = [], []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and DOTTED.match(node.value):
                strings.append((name, node.value))
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                arg = node.args[0]
                if called in DYNAMIC_CALLS and not isinstance(arg, ast.Constant):
                    calls.append((name, ast.unparse(arg)))
    return strings, calls


def test_dotted_strings_do_not_reach_a_layer_above() -> None:
    rank = _rank()
    strings, _ = _strings_and_calls()
    assert any(h == "ats.sandbox.zygote" and t == "ats.parsing.api" for h, t in strings)  # the scan sees them
    upward = sorted(
        {
            (holder, target)
            for holder, target in strings
            if _upward(holder, target, rank) and holder not in COMPOSITION_ROOT
        }
    )
    assert upward == sorted(REVIEWED_STRINGS), (
        "a dotted path names a module on a higher layer (or a sibling): register the callable "
        "from its owner instead (like the exhaustion handlers), or review it here"
    )


def test_dynamic_imports_of_computed_names_are_reviewed() -> None:
    _, calls = _strings_and_calls()
    # Migrations load an earlier migration of their own app by name (a module name can
    # start with a digit): same package, same layer.
    calls = [(h, a) for h, a in calls if ".migrations." not in h]
    assert sorted(set(calls)) == sorted(REVIEWED_DYNAMIC)


def test_the_check_catches_an_upward_string() -> None:
    # What the scan would report for the handler table as it was before issue 22.
    assert _upward("ats.jobs.policy", "ats.intake.api.parse_exhausted", _rank())
    assert not _upward("ats.intake.services", "ats.jobs.api", _rank())
    assert _upward("ats.candidates.services", "ats.channels.api", _rank())  # siblings too


def _docs_script() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("architecture_layers", REPO / "scripts" / "architecture_layers.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_show_the_layers_of_the_contract() -> None:
    script = _docs_script()
    for path in script.DOCS:
        assert script.rendered(path) == path.read_text(), (
            f"{path.name} drifted from the layers contract: run scripts/architecture_layers.py"
        )
    architecture = (REPO / "docs" / "architecture.md").read_text()
    contracts = (REPO / "docs" / "contracts.md").read_text()
    for name in _top_level():
        assert f"| `ats.{name}` |" in architecture
        assert f"- `ats.{name}`: " in contracts


def test_the_docs_check_sees_a_moved_package() -> None:
    # The same rendering with two layers swapped differs from the committed doc.
    script = _docs_script()
    original = script.layers
    script.layers = lambda: list(reversed(original()))
    try:
        path = REPO / "docs" / "architecture.md"
        assert script.rendered(path) != path.read_text()
    finally:
        script.layers = original
