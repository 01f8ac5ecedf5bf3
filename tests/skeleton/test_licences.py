"""The project's licence is compatible with PyMuPDF's AGPL, and NOTICE is current."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_project_is_agpl_and_ships_the_licence_text() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "AGPL-3.0-or-later"
    assert (REPO / "LICENSE").read_text().startswith("GNU AFFERO GENERAL PUBLIC LICENSE\nVersion 3")


def test_notice_lists_every_runtime_dependency_of_the_lock() -> None:
    generated = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "make_notice.py")], check=True, capture_output=True, text=True
    ).stdout
    assert generated.strip() == (REPO / "NOTICE").read_text().strip(), (
        "NOTICE is stale: run `/opt/ats/venv/bin/python scripts/make_notice.py > NOTICE`"
    )
    assert "pymupdf" in generated.lower() and "AGPL" in generated


def test_states_page_documents_every_state() -> None:
    from ats.intake.states import State

    page = (REPO / "docs" / "states.md").read_text()
    missing = [s.value for s in State if f"`{s.value}`" not in page]
    assert missing == []
