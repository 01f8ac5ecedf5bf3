"""Fixtures for the deployment tests: rendered kustomize overlays and the parsed compose file.

These tests read files and run `kubectl kustomize`; they need no database, no Django and
no container engine. Run them on their own with
    /opt/ats/venv/bin/python -m pytest -p no:django -p no:cacheprovider tests/deploy -q
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.deploy.helpers import OVERLAYS, REPO, render


@pytest.fixture(scope="session")
def _settings_for_in_process_calls() -> None:
    """Override tests/conftest.py's autouse fixture: nothing here needs Django or clamd."""
    return None


@pytest.fixture(scope="session", params=OVERLAYS)
def overlay(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def rendered() -> dict[str, list[dict[str, Any]]]:
    """Every overlay rendered once per session: {overlay: [object, ...]} in output order."""
    return {name: render(name) for name in OVERLAYS}


@pytest.fixture(scope="session")
def docs(overlay: str, rendered: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return rendered[overlay]


@pytest.fixture(scope="session")
def compose_text() -> str:
    return (REPO / "compose.yaml").read_text()


@pytest.fixture(scope="session")
def compose(compose_text: str) -> dict[str, Any]:
    data = yaml.safe_load(compose_text)
    assert isinstance(data, dict) and isinstance(data.get("services"), dict), "compose.yaml has no services"
    return data
