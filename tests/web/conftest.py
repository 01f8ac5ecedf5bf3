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


# The browser journeys' fixtures (tests/web/test_*browser*.py): gunicorn on loopback with
# real workers, and Debian's chromium through Playwright.
@pytest.fixture
def web(stack: Any, stack_env: dict[str, str], users: dict[str, Any], state_dir: Any) -> Iterator[str]:
    from ats.devtools import browser as harness
    from ats.devtools.pg_local import free_port

    with harness.web_server(stack_env, free_port(), state_dir / "web.log") as base:
        yield base


@pytest.fixture(scope="module")
def _chromium_for_module() -> Iterator[Any]:
    """One chromium (and Playwright's node driver) per journey module, not per test: a
    launch is seconds on a loaded machine. Tests stay apart by their own browser contexts
    (cookies, storage, pages), which `chromium` closes after each test."""
    from ats.devtools import browser as harness

    # Playwright's sync API runs an event loop in this thread; the test's own ORM reads are
    # plain blocking calls between browser steps. Only while this module's browser lives.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with harness.browser() as b:
            yield b


@pytest.fixture
def chromium(_chromium_for_module: Any) -> Iterator[Any]:
    yield _chromium_for_module
    for context in list(_chromium_for_module.contexts):
        context.close()
