from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

PASSWORD = "pw-for-tests-1234"
ROLES = ("recruiter", "hiring_manager", "operator", "operator_readonly", "admin")


@pytest.fixture
def users(django_user_model: Any) -> dict[str, Any]:
    from ats.iam import api as iam_api

    return {role: iam_api.user_create(username=role, password=PASSWORD, role=role) for role in ROLES}


@pytest.fixture
def login(client: Any, users: dict[str, Any]) -> Any:
    def as_role(role: str) -> Any:
        client.force_login(users[role])
        return client

    return as_role


@pytest.fixture(autouse=True)
def _no_document_lost(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every web test, every document is terminal or backed by a live job."""
    yield
    if "django_db_setup" not in request.fixturenames or request.node.get_closest_marker("breaks_detector"):
        return
    from ats.intake import api as intake_api

    assert intake_api.lost_documents() == []


# The browser fixtures: chromium for the journeys outside tests/web/journeys (which share
# one per package run, tests/web/journeys/conftest.py); the journeys' stack lives there too.
@pytest.fixture
def chromium(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from ats.devtools import browser as harness

    # Playwright's sync API runs an event loop in this thread; the test's own ORM reads are
    # plain blocking calls between browser steps.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with harness.browser() as b:
        yield b
        # With that loop running, Django keeps the test's connections apart from the ones
        # opened before it (asgiref's Local): closed here, or the test database's teardown
        # finds a session still open ("being accessed by other users").
        from django.db import connections

        connections.close_all()
