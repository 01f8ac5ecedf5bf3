"""The session path: what a transaction-mode pooler cannot carry goes straight to Postgres.

Behind PgBouncer in transaction mode (`ATS_DB_POOLER=transaction`, DATABASE_URL the
pooler's) a client holds a server connection only for one transaction; the next one may
run on another backend. Two things in a worker need one backend for the process's whole
life, so they connect to `ATS_SESSION_DATABASE_URL` (direct to Postgres) instead:

- procrastinate's LISTEN (ADR 0004 §5, risk R5): through the pooler the LISTEN would be
  registered on a backend that is handed to another client after the statement, and the
  NOTIFY of a new job would reach nobody - pickup would fall back to the polling interval;
- the watchdog's fence (ats.jobs.watchdog): a *session* advisory lock that must live
  exactly as long as this process's connection; on a pooled backend it would outlive the
  process (or be held by whichever client gets that backend next).

Everything else - the job pool (fetch, finish, heartbeats, defer) and the task threads'
Django connections - goes through the pooler: each of those is one transaction at a time.
Without a pooler there is one URL and this module changes nothing but the pool's
autocommit and its checkout check (below).

The job pool's connections are in autocommit (issue 26, paced latency): every statement
procrastinate sends on its pool - the fetch, the finish, a retry, a heartbeat - is one
statement in one `_get_cursor()` block, and psycopg wrapped each in BEGIN and COMMIT of
its own: two round trips more per fetch and per finish, with the fetch's on every hop's
pickup. One statement in autocommit is one transaction, the same as BEGIN; statement;
COMMIT: the fetch's advisory locks and row locks still end with it, and a failed
statement still leaves nothing behind. Through a transaction-mode pooler too.
"""

from __future__ import annotations

import contextlib
import select
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import psycopg
import psycopg_pool
from procrastinate.psycopg_connector import PsycopgConnector

from ats.config import settings_db
from ats.jobs.errors import JobError


class PoolerConfigError(JobError, RuntimeError):
    """A worker that would lose its guarantees behind the pooler refuses to start: a pooled
    worker-default without a direct URL (its LISTEN would lose every wake-up, silently), or
    a pooled worker-untrusted (its row-level security keys on the client address)."""


def _session_wrapper() -> Any:
    """A Django connection (not yet connected) to the direct URL: the default database's
    settings with the server, role and database of ATS_SESSION_DATABASE_URL."""
    from django.db import connections

    url = settings_db.session_url()
    if url is None:
        raise PoolerConfigError(
            f"{settings_db.POOLER_ENV}=transaction needs {settings_db.SESSION_URL_ENV} (a direct URL) for "
            "procrastinate's LISTEN, the watchdog's fence and the erasure's VACUUM: a transaction-mode "
            "pooler cannot carry them"
        )
    default = connections["default"]
    direct = settings_db.database_from_url(url, deployable="session")
    settings_dict = {
        **default.settings_dict,
        **{k: direct[k] for k in ("NAME", "USER", "PASSWORD", "HOST", "PORT")},
        "CONN_MAX_AGE": 0,
    }
    return type(default)(settings_dict, alias="ats_session")


def session_params() -> dict[str, Any]:
    """psycopg connect() keyword arguments for session-bound work: the worker's own
    database parameters, with the server, role and database of the direct URL."""
    from procrastinate.contrib.django.utils import connector_params

    if not settings_db.pooled():
        return connector_params()
    params = dict(_session_wrapper().get_connection_params())
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return params


@contextlib.contextmanager
def session_connection() -> Iterator[Any]:
    """A Django connection on which consecutive autocommit statements share one backend:
    the default connection when nothing pools it, else a direct one (closed after use).
    For a `SET` that must guard the next statement - the erasure's `SET lock_timeout`
    before a VACUUM, which cannot run inside a transaction (ats.retention.compaction)."""
    from django.db import connection

    if not settings_db.pooled():
        yield connection
        return
    wrapper = _session_wrapper()
    try:
        yield wrapper
    finally:
        wrapper.close()


async def _autocommit(conn: psycopg.AsyncConnection[Any]) -> None:
    await conn.set_autocommit(True)


def _socket_quiet(conn: psycopg.AsyncConnection[Any]) -> bool:
    """Nothing has arrived on an idle connection's socket: no EOF, no error, no message.

    A server that ends a session - Postgres restarted or shut down, the backend terminated,
    PgBouncer closing an idle client - sends a FATAL error and closes the socket, and both
    make it readable; an idle connection of the job pool is otherwise sent nothing (it
    LISTENs to nothing: the LISTEN has its own connection)."""
    if conn.closed or conn.broken:
        return False
    poller = select.poll()
    poller.register(conn.pgconn.socket, select.POLLIN | select.POLLPRI)
    return not poller.poll(0)


async def _check_unless_quiet(conn: psycopg.AsyncConnection[Any]) -> None:
    """The job pool's checkout check (issue 26 item 1): upstream's only when the socket
    shows the session may be gone.

    procrastinate gives its pool psycopg_pool's `check_connection`, one empty statement
    - a round trip - at every checkout: each fetch (an empty one too) and each finish, ~3
    per job: 13% of worker-default's event-loop time in a backlog, 7% of the process's
    (py-spy --gil, stop 44). A server-side end shows on the socket without asking
    (`_socket_quiet`), so the empty statement is sent only then; it fails on a dead
    session and the pool replaces the connection, as before (without any check, a fetch
    on a dead connection stalled the worker: tests/jobs/test_job_pool_check.py). What
    neither notices is a peer that vanished without a word (a cut network): the empty
    statement waited on it exactly as the fetch now does, until TCP gives up."""
    if _socket_quiet(conn):
        return
    await psycopg_pool.AsyncConnectionPool.check_connection(conn)


def _job_pool(**kwargs: Any) -> psycopg_pool.AsyncConnectionPool[Any]:
    """The pool procrastinate builds for the worker (its `pool_factory`): every new
    connection in autocommit (module docstring), checked at checkout by the socket first."""
    kwargs["check"] = _check_unless_quiet
    return psycopg_pool.AsyncConnectionPool(configure=_autocommit, **kwargs)


def _worker_connector(self: Any) -> Any:
    """DjangoConnector.get_worker_connector: upstream's connector and parameters, the job
    pool in autocommit; pooled, the job pool through the pooler and the LISTEN connection
    on the session path."""
    from procrastinate.contrib.django.utils import connector_params

    if not settings_db.pooled():
        return PsycopgConnector(kwargs=connector_params(), pool_factory=_job_pool)
    return SessionListenConnector(session_kwargs=session_params(), kwargs=connector_params(), pool_factory=_job_pool)


class SessionListenConnector(PsycopgConnector):
    """upstream's connector, but its one standalone connection (LISTEN: the only user of
    `_get_standalone_connection` in procrastinate 3.10) goes to the session path."""

    def __init__(self, *, session_kwargs: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session_kwargs = session_kwargs

    @contextlib.asynccontextmanager
    async def _get_standalone_connection(self) -> AsyncGenerator[psycopg.AsyncConnection[Any]]:
        async with await psycopg.AsyncConnection.connect(**self.session_kwargs, autocommit=True) as conn:
            yield conn


def install() -> None:
    """Worker processes: `procrastinate worker` builds its connector through ours (the job
    pool in autocommit). Pooled, checks the session URL at once, so a misconfigured worker
    fails at start, not silently."""
    if settings_db.pooled() and settings_db.session_url() is None:
        session_params()  # raises PoolerConfigError with the explanation
    from procrastinate.contrib.django.django_connector import DjangoConnector

    DjangoConnector.get_worker_connector = _worker_connector  # type: ignore[method-assign]
