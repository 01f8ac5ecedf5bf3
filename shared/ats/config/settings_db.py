"""DATABASES from DATABASE_URL: shared by the trusted settings and worker-untrusted's own."""

from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit

from ats.config import env


def database_from_url(url: str, *, deployable: str) -> dict[str, object]:
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ValueError(f"DATABASE_URL must be a postgresql:// URL, got scheme {parts.scheme!r}")
    db: dict[str, object] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "ats",
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        # Web and workers keep connections (ADR §5 budget: web 2 workers x 4 threads,
        # a worker one per task thread). procrastinate's DjangoApp middleware keeps a
        # healthy persistent connection between tasks (close_old_connections honours
        # CONN_MAX_AGE); with 0 every task paid a fresh connect, i.e. a new backend process
        # (~20 ms under load, 4 times on a document's critical path - docs/benchmarks.md).
        # Short-lived processes (CLI, migrations) gain nothing and close at exit.
        "CONN_MAX_AGE": env.integer(
            "ATS_CONN_MAX_AGE", default=60 if deployable in {"web", "default", "untrusted"} else 0
        ),
        # Before the first statement after a checkout. A job's first statement is its start
        # record, which stands in for the check's `SELECT 1` (ats.jobs.attempts: one round
        # trip fewer per job); web requests and everything else still pay the check.
        "CONN_HEALTH_CHECKS": True,
        # Names connections in pg_stat_activity: ops see which process holds what.
        "OPTIONS": {"application_name": os.environ.get("ATS_PROCESS_NAME", f"ats-{deployable}")[:63]},
        "TEST": {"NAME": os.environ.get("ATS_TEST_DB_NAME") or None},
    }
    # Behind PgBouncer in transaction mode (ATS_PGBOUNCER=1 just up; k8s/components/pgbouncer:
    # web and worker-default's task connections): consecutive transactions may land on
    # different server connections, so no server-side cursors (they live across transactions)
    # and no prepared statements (psycopg prepares per server connection, and Debian's
    # PgBouncer 1.18 cannot carry them in transaction mode; 1.21 can). Forced here, whatever
    # OPTIONS or a speed-up elsewhere asks for: procrastinate's job pool is built from these
    # same parameters (connector_params), so it inherits prepare_threshold=None too.
    if pooled():
        db["DISABLE_SERVER_SIDE_CURSORS"] = True
        db["OPTIONS"]["prepare_threshold"] = None  # type: ignore[index]
    return db


def with_statement_binding(db: dict[str, object], *, deployable: str) -> dict[str, object]:
    """`db` (database_from_url's) with server-side binding and prepared statements when this
    process is a worker connecting directly to Postgres (change set h50perf, issue 26 item 1);
    unchanged through a transaction-mode pooler (see database_from_url) and elsewhere.

    Client-side binding sent every statement as text, which Postgres parsed, analysed and
    planned again each time - a task thread runs the same few dozen shapes per document -
    and psycopg quoted every value in Python first. In process, the trusted hops of one
    document: Postgres 9.4 -> 5.6 ms CPU (docs/benchmarks.md, "Change set h50perf"). The
    job pool is built from the same parameters (connector_params), so procrastinate's
    fetch, finish and the attempt records are prepared too."""
    if pooled() or not server_binding(deployable):
        return db
    options = dict(db["OPTIONS"])  # type: ignore[call-overload]
    options.update(server_side_binding=True, prepare_threshold=PREPARE_THRESHOLD)
    return {**db, "OPTIONS": options}


# A worker's statements prepared from their second execution on a connection: one it sends
# once (a rare path, a periodic task's read) takes no slot of psycopg's cache of 100.
PREPARE_THRESHOLD = 1
SERVER_BINDING_ENV = "ATS_DB_SERVER_BINDING"
# The long-running task processes, whose threads repeat the same statements. Web and the
# CLI keep Django's default (client-side binding, nothing prepared): what was measured and
# run under the workers' settings is the task code (ATS_DB_SERVER_BINDING=1 runs a test
# process that way; the fast suite passes with it).
_SERVER_BINDING_DEPLOYABLES = frozenset({"default", "untrusted"})


def server_binding(deployable: str) -> bool:
    """Server-side binding and prepared statements for this process's direct connections:
    on for the workers, off elsewhere; ATS_DB_SERVER_BINDING=1/0 overrides (1 in a test
    process runs the task bodies as the workers run them). Never through a transaction-mode
    pooler (see database_from_url)."""
    return env.flag(SERVER_BINDING_ENV, default=deployable in _SERVER_BINDING_DEPLOYABLES)


POOLER_ENV = "ATS_DB_POOLER"
# The direct (session) path beside a pooled DATABASE_URL: what needs one session for its
# whole life connects here - procrastinate's LISTEN and the watchdog's fence (ats.jobs.session).
SESSION_URL_ENV = "ATS_SESSION_DATABASE_URL"


def pooled() -> bool:
    """DATABASE_URL points at a transaction-mode pooler (PgBouncer)."""
    return os.environ.get(POOLER_ENV, "") == "transaction"


def session_url() -> str | None:
    """The direct URL for session-bound work, when DATABASE_URL is pooled (else None: the
    one URL is direct and serves both)."""
    return os.environ.get(SESSION_URL_ENV) or None if pooled() else None
