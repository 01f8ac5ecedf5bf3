"""The fast loop's `slow` lists name real modules, tests and fixtures: a renamed test would
otherwise silently slip back into `just test-fast` (or a renamed module out of the lists)."""

from __future__ import annotations

import ast

from tests.conftest import _SLOW_FIXTURES, _SLOW_MODULES, _SLOW_TESTS, REPO


def _functions(module: str) -> set[str]:
    tree = ast.parse((REPO / module).read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_slow_module_exists() -> None:
    assert [m for m in sorted(_SLOW_MODULES) if not (REPO / m).is_file()] == []


def test_every_slow_test_exists() -> None:
    missing = [t for t in sorted(_SLOW_TESTS) if t.split("::")[1] not in _functions(t.split("::")[0])]
    assert missing == []


def test_every_slow_fixture_is_defined() -> None:
    defined = _functions("tests/conftest.py") | _functions("tests/observability/conftest.py")
    assert sorted(_SLOW_FIXTURES - defined) == []
