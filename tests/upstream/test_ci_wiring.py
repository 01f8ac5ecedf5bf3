"""`just test` (CI's gate, .ci/run) runs the upstream contract: a recipe nobody calls
would let an upgrade that breaks the Worker overrides pass CI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

JUSTFILE = Path(__file__).resolve().parents[2] / "Justfile"


def _recipe(name: str) -> tuple[str, list[str]]:
    """(dependency line, body lines) of a recipe."""
    lines = JUSTFILE.read_text().splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"{re.escape(name)}( \*?\w+)*:", line):
            body = []
            for later in lines[i + 1 :]:
                if not later.startswith("    "):
                    break
                body.append(later.strip())
            return line, body
    raise AssertionError(f"no recipe {name!r} in the Justfile")


def test_just_test_runs_the_upstream_contract_first() -> None:
    deps, _ = _recipe("test")
    assert "test-upstream" in deps.split(":", 1)[1].split()
    _, body = _recipe("test-upstream")
    assert any("pytest tests/upstream" in line for line in body)
