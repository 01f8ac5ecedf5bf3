"""`ats healthcheck --deployable X`: is this pod's process doing its job?

Checks, cheapest first; every failure is named on stderr:
- the database answers (web and both workers);
- no migration the code ships is missing (`ats_missing_migrations()`, SECURITY DEFINER:
  the parse role cannot read django_migrations);
- workers: this worker holds a database connection, has written its status file, and
  the database has its heartbeat within the stalled-worker timeout (a wedged worker,
  process alive, fails here);
- worker-untrusted: every idle sandbox zygote is alive and the policy they loaded is the
  one shipped in the image.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.migrations.loader import MigrationLoader

from ats.jobs import worker_api as jobs_worker
from ats.sandbox import api as sandbox_api


def expected_migrations() -> list[str]:
    """The newest migration of every app, from the code (no database read)."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return sorted(f"{app}.{name}" for app, name in loader.graph.leaf_nodes())


def missing_migrations() -> list[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT ats_missing_migrations(%s::text[])", [expected_migrations()])
        return list(cur.fetchone()[0] or [])


def worker_problems(name: str) -> list[str]:  # noqa: PLR0911 - one return per health problem, checked cheapest first
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [name])
        if cur.fetchone()[0] == 0:
            return ["the worker holds no database connection"]
    status: dict[str, Any] | None = jobs_worker.read_status(jobs_worker.status_path(name))
    if status is None:
        return ["the worker has not registered (no status file)"]
    age = jobs_worker.worker_heartbeat_age(int(status["worker_id"]))
    limit = jobs_worker.stalled_after_s()
    if age is None:
        return [f"worker {status['worker_id']} is no longer registered (pruned as stalled?)"]
    if age > limit:
        return [f"heartbeat stale: {age:.1f} s old (stalled after {limit:g} s)"]
    sandbox = status.get("sandbox")
    if isinstance(sandbox, dict):
        if "error" in sandbox:
            return [f"sandbox status unavailable: {sandbox['error']}"]
        return sandbox_api.status_problems(sandbox)
    return []


def problems(deployable: str, name: str) -> list[str]:
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    except Exception as exc:
        return [f"database unreachable ({type(exc).__name__})"]
    found: list[str] = []
    if deployable != "web":
        found += worker_problems(name)
    try:
        missing = missing_migrations()
    except Exception as exc:
        found.append(f"cannot check migrations ({type(exc).__name__}): run `ats migrate`")
    else:
        if missing:
            found.append(f"migrations missing: {', '.join(missing)}")
    return found
