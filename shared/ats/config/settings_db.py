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
        # Web keeps connections (ADR §5 budget: 2 workers x 4 threads); workers do not,
        # because procrastinate's DjangoApp closes them around each task anyway.
        "CONN_MAX_AGE": env.integer("ATS_CONN_MAX_AGE", default=60 if deployable == "web" else 0),
        "CONN_HEALTH_CHECKS": True,
        # Names connections in pg_stat_activity: ops see which process holds what.
        "OPTIONS": {"application_name": os.environ.get("ATS_PROCESS_NAME", f"ats-{deployable}")[:63]},
        "TEST": {"NAME": os.environ.get("ATS_TEST_DB_NAME") or None},
    }
    # Behind PgBouncer in transaction mode (k8s/components/pgbouncer, web only): consecutive
    # transactions may land on different server connections, so no server-side cursors (they
    # live across transactions) and no prepared statements (psycopg prepares per connection).
    if os.environ.get("ATS_DB_POOLER", "") == "transaction":
        db["DISABLE_SERVER_SIDE_CURSORS"] = True
        db["OPTIONS"]["prepare_threshold"] = None  # type: ignore[index]
    return db
