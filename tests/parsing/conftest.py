"""Fixtures for the pure extractor tests: no database, no clamd, no Django.

Run: python -m pytest -p no:django -p no:cacheprovider tests/parsing -q
"""

from __future__ import annotations

import pytest

from ats.parsing.api import ParseLimits, prewarm


@pytest.fixture(autouse=True, scope="session")
def _settings_for_in_process_calls() -> None:
    """Overrides tests/conftest.py's autouse fixture, which starts clamd and needs
    Django settings; ats.parsing must work (and be tested) without either."""


@pytest.fixture(scope="session")
def limits() -> ParseLimits:
    return ParseLimits()


@pytest.fixture(scope="session", autouse=True)
def _prewarmed() -> None:
    prewarm()
