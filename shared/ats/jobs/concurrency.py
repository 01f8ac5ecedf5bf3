"""ADR §1's per-queue concurrency, held across every worker process, and queue pause.

procrastinate 3.10 has one concurrency per worker process and none per queue: worker-
default ran one pool of 4, so two `maintenance` jobs could overlap, and a second
worker-default process doubled every queue. Each worker process now fetches through
ats_jobs_fetch_v1() (migration 0003) instead of procrastinate_fetch_job_v2(): under one
advisory lock per queue it counts the queue's `doing` rows - every process's - and
fetches only from queues below their cap (QUEUE_CONCURRENCY, the policy table) and not
paused (jobs_queue_state). Same single round trip as upstream's fetch, no poll delay:
pickup stays LISTEN/NOTIFY driven. A worker that finds its queues full sleeps until a
notification or its own job's end (ats.jobs.wakeup wakes it then) or the polling
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

FETCH_SQL = """SELECT id, status, task_name, priority, lock, queueing_lock, args, scheduled_at, queue_name,
       attempts, worker_id
  FROM ats_jobs_fetch_v1(%(queues)s::varchar[], %(caps)s::integer[], %(worker_id)s)"""

_upstream_fetch_job = procrastinate_manager.JobManager.fetch_job


UNCAPPED = 10_000  # a queue outside the ADR table (tests' own): only the process bounds it


def cap_of(queue: str) -> int:
    return QUEUE_CONCURRENCY.get(queue, UNCAPPED)


async def capped_fetch_job(self: Any, queues: Iterable[str] | None, worker_id: int) -> Job | None:
    names = sorted(set(queues)) if queues is not None else sorted({*QUEUES, *QUEUE_CONCURRENCY})
    row = await self.connector.execute_query_one_async(
        query=FETCH_SQL, queues=names, caps=[cap_of(q) for q in names], worker_id=worker_id
    )
    if row["id"] is None:
        return None
    return Job.from_row(row)


def install() -> None:
    """Every fetch of this process goes through the caps. Idempotent."""
    procrastinate_manager.JobManager.fetch_job = capped_fetch_job  # type: ignore[method-assign]


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
