"""The browser journeys' fixtures: ONE stack (gunicorn on loopback, worker-default,
worker-untrusted) and ONE chromium (Debian's, through Playwright) for the whole package,
per xdist worker process that runs it.

Their start and stop were 25-40 s of each journey's 30-70 s under load (a stack per test),
then per module (eight modules); now once. Each journey stays apart from the others by its
own data, not by fresh processes: its own users and rows (the transactional flush after
each test), its own browser context (cookies, storage), and `web`'s teardown, which waits
until no job the test deferred still runs or is due before the flush. A journey that
breaks a process on purpose (stops a worker, needs an empty rollup table) does not belong
here: tests/web/test_browser_ops.py keeps its own worker-less web server.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.shared_stack import last_job_id, quiesce


@pytest.fixture(scope="package")
def _journey_stack(stack_env: dict[str, str], django_db_blocker: Any, state_dir: Any) -> Iterator[str]:
    """worker-default, worker-untrusted and gunicorn, once per package run. Safe to share
    because nothing in these processes outlives a test's rows: procrastinate's tables are
    not flushed between tests (unmanaged models) - a fresh worker would see the same jobs -
    and `web` lets the jobs in flight finish before the flush, as stopping a worker did; no
    process-level cache in shared/ats holds a row id (the functools caches hold blob-store
    clients and the sandbox deployment)."""
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
        with harness.web_server(stack_env, free_port(), state_dir / "web-journeys.log") as base:
            yield base
    finally:
        stop_all(started)
        # The workers outlived the last test's flush: their periodic jobs (the per-minute
        # rollup, depth samples) wrote rows since. Flush again, as TransactionTestCase
        # does, so the next test outside the package starts empty (the ops chart test
        # back-fills the rollup only into an empty table).
        from django.core.management import call_command

        with django_db_blocker.unblock():
            call_command("flush", verbosity=0, interactive=False, reset_sequences=False, allow_cascade=False)


@pytest.fixture
def web(_journey_stack: str, users: dict[str, Any], transactional_db: Any) -> Iterator[str]:
    floor = last_job_id()
    yield _journey_stack
    # The flush after the test must not pull rows from under a job, and a job the test left
    # due would otherwise run after it, against the next test's rows.
    quiesce(floor)


class _Chromium:
    """The package's browser, launched again if it ever disconnected (a crash must cost
    the journey it happened in, not every journey after it)."""

    def __init__(self, pw: Any) -> None:
        self._pw = pw
        self._browser: Any = None

    def get(self) -> Any:
        from ats.devtools import browser as harness

        if self._browser is None or not self._browser.is_connected():
            self._browser = harness.launch(self._pw)
        return self._browser

    def close(self) -> None:
        if self._browser is not None and self._browser.is_connected():
            self._browser.close()


@pytest.fixture(scope="package")
def _journey_chromium() -> Iterator[_Chromium]:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the tests' own ORM reads
    # (and the flush after each test) are plain blocking calls between browser steps.
    # Package-scoped like the browser: pytest tears it down before any test outside.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as pw:
            holder = _Chromium(pw)
            try:
                yield holder
            finally:
                holder.close()


@pytest.fixture
def chromium(_journey_chromium: _Chromium) -> Iterator[Any]:
    """One chromium per package run (a launch is 1-3 CPU s); each journey's pages live in
    contexts of its own (`tests.web.browser.login`), closed when it ends so nothing - a
    cookie, a page still refreshing itself - reaches the next journey."""
    browser = _journey_chromium.get()
    yield browser
    for context in list(browser.contexts):
        with contextlib.suppress(Exception):  # a context the crash already took
            context.close()
