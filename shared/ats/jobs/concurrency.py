"""ADR §1's per-queue concurrency, held across every worker process, and queue pause.

procrastinate 3.10 has one concurrency per worker process and none per queue: worker-
default ran one pool of 4, so two `maintenance` jobs could overlap, and a second
worker-default process doubled every queue. Each worker process now fetches through
ats_jobs_fetch_v1() (migration 0003; v2 since 0007, which also says whether another
fetch could find a job) instead of procrastinate_fetch_job_v2(): under one
advisory lock per queue it counts the queue's `doing` rows - every process's - and
fetches only from queues below their cap (QUEUE_CONCURRENCY, the policy table) and not
paused (jobs_queue_state); the rescue is exempt (CAP_EXEMPT_TASKS). Same single round
trip as upstream's fetch, no poll delay: pickup stays LISTEN/NOTIFY driven. A worker that
finds its queues full sleeps until a notification or its own job's end (ats.jobs.wakeup
wakes it then) or the polling
interval; another process's end does not notify, so a queue at cap served by two
processes can idle for up to one polling interval (5 s) - a wait, never an overlap.

Installed in worker processes only (ats.jobs.apps); ATS_QUEUE_CAPS=0 turns it off (the
overlap test proves the caps are what prevents the overlap).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from procrastinate import manager as procrastinate_manager
from procrastinate.jobs import Job

from ats.jobs.policy import QUEUE_CONCURRENCY, QUEUES

logger = logging.getLogger(__name__)

FETCH_SQL = """SELECT (f.job).id, (f.job).status, (f.job).task_name, (f.job).priority, (f.job).lock,
       (f.job).queueing_lock, (f.job).args, (f.job).scheduled_at, (f.job).queue_name, (f.job).attempts,
       (f.job).worker_id, f.more
  FROM ats_jobs_fetch_v2(%(queues)s::varchar[], %(caps)s::integer[], %(exempt)s::varchar[], %(worker_id)s) AS f"""
# The previous release's function (0006's, which migration 0007 keeps beside v2): what a
# worker of that release calls, and what the tests compare against 0003's scan and v2.
FETCH_V1_SQL = """SELECT id, status, task_name, priority, lock, queueing_lock, args, scheduled_at, queue_name,
       attempts, worker_id
  FROM ats_jobs_fetch_v1(%(queues)s::varchar[], %(caps)s::integer[], %(exempt)s::varchar[], %(worker_id)s)"""

# The job machinery's own rescue (ats.jobs.maintenance) runs whatever the cap or pause of
# its queue: a dead `doing` job holding maintenance's only slot is exactly what it clears,
# and pausing maintenance must not stop stalled parse jobs from being rescued.
CAP_EXEMPT_TASKS = ("jobs.rescue_and_sweep",)

# sha256 of procrastinate 3.10's procrastinate_fetch_job_v2 body, which ats_jobs_fetch_v1
# copies (migration 0003); a test fails when an upgrade changes it.
UPSTREAM_FETCH_SHA256 = "a6170a2fbaa231b50dc75f9c57acc24fb573b8961b79295da2f1c6fbc28900ac"

_upstream_fetch_job = procrastinate_manager.JobManager.fetch_job


UNCAPPED = 10_000  # a queue outside the ADR table (tests' own): only the process bounds it


def cap_of(queue: str) -> int:
    return QUEUE_CONCURRENCY.get(queue, UNCAPPED)


async def capped_fetch_job(self: Any, queues: Iterable[str] | None, worker_id: int) -> Job | None:
    names = sorted(set(queues)) if queues is not None else sorted({*QUEUES, *QUEUE_CONCURRENCY})
    row = await self.connector.execute_query_one_async(
        query=FETCH_SQL,
        queues=names,
        caps=[cap_of(q) for q in names],
        exempt=list(CAP_EXEMPT_TASKS),
        worker_id=worker_id,
    )
    # Migration 0007's flag: false when a fetch right after this one could find nothing;
    # ats.jobs.wakeup's loop reads it (fetch_may_find_more).
    more = bool(row.pop("more"))
    if row["id"] is None:
        return None
    remember_fetch_more(self, worker_id, more)
    return Job.from_row(row)


def remember_fetch_more(manager: Any, worker_id: int, more: bool) -> None:
    """Keep a worker's last fetch's flag on its job manager (one fetch at a time per worker)."""
    manager.__dict__.setdefault("_ats_fetch_more", {})[worker_id] = more


def fetch_may_find_more(manager: Any, worker_id: int | None) -> bool:
    """Whether this worker's last fetch said another fetch could find a job (true unknown)."""
    return bool(manager.__dict__.get("_ats_fetch_more", {}).get(worker_id, True))


def install() -> None:
    """Every fetch of this process goes through the caps. Idempotent."""
    procrastinate_manager.JobManager.fetch_job = capped_fetch_job  # type: ignore[method-assign]


def installed() -> bool:
    return procrastinate_manager.JobManager.fetch_job is capped_fetch_job  # type: ignore[comparison-overlap]


def uninstall() -> None:
    procrastinate_manager.JobManager.fetch_job = _upstream_fetch_job  # type: ignore[method-assign]


def wake_workers(queue: str) -> None:
    """Tell listening workers to fetch (a resumed queue sends no job_inserted of its own)."""
    from django.db import connection

    payload = json.dumps({"type": "job_inserted", "job_id": 0})
    with connection.cursor() as cur:
        cur.execute(
            "SELECT pg_notify(%s, %s), pg_notify('procrastinate_any_queue_v1', %s)",
            [f"procrastinate_queue_v1#{queue}", payload, payload],
        )


def upstream_fetch_sha256() -> str:
    """sha256 of the installed procrastinate's procrastinate_fetch_job_v2 (its schema.sql)."""
    import hashlib
    import re
    from pathlib import Path

    import procrastinate

    schema = (Path(procrastinate.__file__).parent / "sql" / "schema.sql").read_text()
    match = re.search(r"CREATE FUNCTION procrastinate_fetch_job_v2\(.*?\n\$\$;", schema, re.S)
    return hashlib.sha256(match.group(0).encode()).hexdigest() if match else ""
