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
@pytest.fixture(scope="module")
def _journey_stack(stack_env: dict[str, str], django_db_blocker: Any, state_dir: Any) -> Iterator[str]:
    """worker-default, worker-untrusted and gunicorn, once per journey module: their start
    and stop were 25-40 s of each journey's 30-70 s on a loaded machine. Safe to share
    because nothing in these processes outlives a test's rows: procrastinate's tables are
    not flushed between tests (unmanaged models) - a fresh worker would see the same jobs -
    and `web` lets the jobs in flight finish before the flush, as stopping a worker did."""
    from ats.devtools import browser as harness
    from ats.devtools.pg_local import free_port
    from tests.conftest import _starter, stop_all

    started: list[Any] = []
    start = _starter(stack_env, django_db_blocker, started)
    workers = [start("default", wait=False), start("untrusted", wait=False)]
    try:
        with django_db_blocker.unblock():
            for w in workers:
                w.wait_registered()
        with harness.web_server(stack_env, free_port(), state_dir / "web.log") as base:
            yield base
    finally:
        stop_all(started)
        # The workers outlived the last test's flush: their periodic jobs (the per-minute
        # rollup, depth samples) wrote rows since. Flush again, as TransactionTestCase
        # does, so the next module's first test starts empty (the ops chart test
        # back-fills the rollup only into an empty table).
        from django.core.management import call_command

        with django_db_blocker.unblock():
            call_command("flush", verbosity=0, interactive=False, reset_sequences=False, allow_cascade=False)


def _last_job_id() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
        return int(cur.fetchone()[0])


def _quiesce(floor: int, timeout: float = 120.0) -> None:
    """Until no job the test deferred (id > floor) is running, or still due on a queue the
    stack's workers serve, unpaused (maintenance's periodic runs aside): the
    flush after the test must not pull rows from under a job, and a job the test left
    due would otherwise run after it, against the next test's rows."""
    import time

    from django.db import connection

    from ats.jobs import ops_api as jobs_ops
    from ats.jobs.data import DEFAULT_QUEUES, UNTRUSTED_QUEUES

    served = sorted(set(DEFAULT_QUEUES) | set(UNTRUSTED_QUEUES))
    deadline = time.monotonic() + timeout
    while True:
        unpaused = sorted(set(served) - jobs_ops.paused_queues() - {"maintenance"})
        with connection.cursor() as cur:
            cur.execute(
                "SELECT count(*) FROM procrastinate_jobs WHERE id > %s AND queue_name <> 'maintenance' AND"
                " (status = 'doing' OR (status = 'todo' AND queue_name = ANY(%s)"
                " AND coalesce(scheduled_at, now()) <= now()))",
                [floor, unpaused],
            )
            busy = cur.fetchone()[0]
        if not busy:
            return
        assert time.monotonic() < deadline, f"{busy} jobs still running or due {timeout:.0f} s after the test"
        time.sleep(0.2)


@pytest.fixture
def web(_journey_stack: str, users: dict[str, Any], transactional_db: Any) -> Iterator[str]:
    floor = _last_job_id()
    yield _journey_stack
    _quiesce(floor)


@pytest.fixture
def chromium(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Per test, unlike the stack: one chromium shared by a module's journeys lost its
    # target at a later module's first page once (a whole-directory run under load), and
    # a launch is only a few seconds.
    from ats.devtools import browser as harness

    # Playwright's sync API runs an event loop in this thread; the test's own ORM reads are
    # plain blocking calls between browser steps.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with harness.browser() as b:
        yield b
