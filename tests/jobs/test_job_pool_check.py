"""The job pool's checkout check (issue 26): procrastinate's pool sent one empty statement
at every checkout (each fetch, each finish); ats.jobs.session checks the socket first and
sends it only when the server may have ended the session. A dead connection must still
never reach a fetch or a finish, and a live one must not pay the round trip."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import psycopg_pool
import pytest
from django.db import connection

from ats.jobs import session
from tests.jobs.helpers import defer, token, wait_for, wait_status
from tests.testapp.models import Marker


def _params() -> dict[str, Any]:
    from procrastinate.contrib.django.utils import connector_params

    return connector_params()


class _Counted:
    """Counts the upstream check (the empty statement) while delegating to it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        upstream = psycopg_pool.AsyncConnectionPool.check_connection

        async def counted(conn: Any) -> None:
            self.calls += 1
            await upstream(conn)

        monkeypatch.setattr(psycopg_pool.AsyncConnectionPool, "check_connection", staticmethod(counted))


def _pool() -> psycopg_pool.AsyncConnectionPool[Any]:
    # As procrastinate builds it (PsycopgConnector._create_pool): its own check passed in.
    return session._job_pool(
        kwargs=_params(), min_size=1, max_size=1, open=False, check=psycopg_pool.AsyncConnectionPool.check_connection
    )


async def _backend_pid(pool: psycopg_pool.AsyncConnectionPool[Any]) -> int:
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT pg_backend_pid()")).fetchone()
        return int(row[0])


@pytest.mark.django_db(transaction=True)
def test_a_live_pooled_connection_is_handed_out_without_the_empty_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    counted = _Counted(monkeypatch)

    async def go() -> list[int]:
        async with _pool() as pool:
            return [await _backend_pid(pool) for _ in range(5)]

    pids = asyncio.run(go())
    assert len(set(pids)) == 1  # the same connection each time, and it worked
    assert counted.calls == 0


@pytest.mark.django_db(transaction=True)
def test_a_pooled_connection_whose_backend_was_terminated_is_replaced_at_checkout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counted = _Counted(monkeypatch)

    async def go() -> tuple[int, int, bool]:
        async with _pool() as pool:
            first = await _backend_pid(pool)
            # Another session ends the pooled one (plain psycopg: Django's connection is
            # not for an event loop's thread).
            with psycopg.connect(**_params(), autocommit=True) as other:
                row = other.execute("SELECT pg_terminate_backend(%s, 5000)", [first]).fetchone()
                ended = bool(row and row[0])  # waited for: the backend has exited
            # Terminated while idle in the pool: its FATAL and the close are on the socket.
            second = await _backend_pid(pool)
            return first, second, ended

    first, second, ended = asyncio.run(go())
    assert ended
    assert second != first  # a new session, and the statement on it succeeded
    assert counted.calls >= 1  # the dead one was found by the empty statement, not by the fetch


def _pool_connections(worker_name: str) -> list[int]:
    """The worker's idle connections other than its LISTEN: the job pool's (last statement
    a fetch or a finish) and its task connection."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s AND state = 'idle'"
            " AND query NOT ILIKE 'LISTEN%%'",
            [worker_name],
        )
        return [r[0] for r in cur.fetchall()]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_whose_job_pool_connections_died_between_jobs_runs_the_next_job_once(start_worker: Any) -> None:
    w = start_worker("default", extra=["--queues=test", "--concurrency=1"])
    first = defer("tests.slow_marker", token=token(), seconds=0)
    wait_status(first, {"succeeded"}, timeout=30)
    pids = wait_for(lambda: _pool_connections(w.name), 10, "the worker's connections to be idle")
    with connection.cursor() as cur:
        for pid in pids:
            cur.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
    time.sleep(0.2)
    tok = token()
    second = defer("tests.slow_marker", token=tok, seconds=0)
    final = wait_status(second, {"succeeded", "failed"}, timeout=30)
    assert final["status"] == "succeeded", w.tail()
    assert Marker.objects.get(token=tok).runs == 1
    assert w.proc.poll() is None, w.tail()  # the worker is still running
    assert "Traceback" not in w.tail(), w.tail()
