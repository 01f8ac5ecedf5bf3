"""One worker-default + worker-untrusted pair per test module, for modules whose tests
use `stack` and never kill, freeze, pause or reconfigure its workers.

A module opts in with

    _module_stack, stack = module_stack_fixtures()

which overrides `tests/conftest.py`'s per-test `stack` in that module only (same name, so
the test signatures and the `slow` marker stay as they are). The pair lives from the
module's first `stack` test to the module's end: a module whose other tests expect no
worker must keep them before its `stack` tests. Each boot of the pair is a
Python + Django start twice, the untrusted one warming its sandbox: 5-8 CPU s and 10-30 s
of wall under load, paid once per module instead of once per test.

Why sharing is safe (the same argument as the browser journeys', tests/web/conftest.py):
the transactional flush between tests truncates the Django tables, not procrastinate's
(unmanaged models), so a fresh worker saw the same jobs a living one sees; no
process-level cache in `shared/ats` holds a row id. What stopping the workers used to
guarantee - no job of the test still running when its rows are flushed, none left due to
run against the next test's rows - the per-test fixture waits for before the flush. At
the module's end the workers stop and the database is flushed once more: their periodic
jobs (rollup, depth samples) wrote rows after the last test's flush.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest


def last_job_id() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
        return int(cur.fetchone()[0])


def quiesce(floor: int, timeout: float = 120.0, workers: dict[str, Any] | None = None) -> None:
    """Until no job deferred after `floor` is running, or due on a queue the stack serves
    (maintenance's periodic runs aside). On failure the workers' log tails say why."""
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
        if time.monotonic() >= deadline:
            tails = "\n".join(f"--- {w.name}:\n{w.tail()}" for w in (workers or {}).values())
            raise AssertionError(f"{busy} jobs still running or due {timeout:.0f} s after the test\n{tails}")
        time.sleep(0.2)


def module_stack_fixtures() -> tuple[Callable[..., Any], Callable[..., Any]]:
    @pytest.fixture(scope="module")
    def _module_stack(stack_env: dict[str, str], django_db_blocker: Any) -> Iterator[dict[str, Any]]:
        from django.core.management import call_command

        from tests.conftest import _starter, stop_all

        started: list[Any] = []
        start = _starter(stack_env, django_db_blocker, started)
        workers = {"default": start("default", wait=False), "untrusted": start("untrusted", wait=False)}
        try:
            with django_db_blocker.unblock():
                for w in workers.values():
                    w.wait_registered()
            yield workers
        finally:
            stop_all(started)
            with django_db_blocker.unblock():
                call_command("flush", verbosity=0, interactive=False, reset_sequences=False, allow_cascade=False)

    @pytest.fixture
    def stack(_module_stack: dict[str, Any], transactional_db: Any) -> Iterator[dict[str, Any]]:
        """The module's workers for this test; its jobs are done before its rows are flushed
        (transactional_db is set up first, so torn down after this)."""
        for w in _module_stack.values():
            assert w.proc.poll() is None, f"the module's {w.name} died: {w.tail()}"
        floor = last_job_id()
        yield _module_stack
        quiesce(floor, workers=_module_stack)

    return _module_stack, stack
