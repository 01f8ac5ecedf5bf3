"""Fixtures for ats.scanning: a real clamd (/usr/sbin/clamd) on a free loopback port and a
unix socket, loaded with the project's EICAR-only signature DB. No Django."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ats.devtools.api import ClamdLocal
from ats.scanning.api import ClamdEndpoint

# Small on purpose so the "stream too large" path is cheap to exercise.
STREAM_MAX = 4 * 1024 * 1024


@pytest.fixture(autouse=True, scope="session")
def _settings_for_in_process_calls() -> None:
    """Override the root conftest's autouse fixture: these tests need neither Django nor
    the root clamd."""


@pytest.fixture(scope="session")
def clamd_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClamdLocal]:
    daemon = ClamdLocal(
        state_dir=tmp_path_factory.mktemp("clamd"), port=0, unix_socket=True, stream_max_bytes=STREAM_MAX
    )
    with daemon:
        yield daemon


@pytest.fixture(scope="session", params=["tcp", "unix"])
def endpoint(request: pytest.FixtureRequest, clamd_daemon: ClamdLocal) -> ClamdEndpoint:
    return clamd_daemon.endpoint(via=request.param, timeout=10)
