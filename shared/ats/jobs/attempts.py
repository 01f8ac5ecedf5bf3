"""Per-attempt records (issue 24 item 1), written by the job machinery around every run.

The task wrapper (ats.jobs.runtime.task) records the start, then the end with the
outcome, the exception line and a trimmed, scrubbed traceback. A run whose process dies
(SIGKILL, out-of-memory, the watchdog's overrun exit) never writes its end: the rescue
closes it as `lost` (ats.jobs.maintenance), and so does the next run's start.

Both worker roles write through ats_jobs_attempt_v1() (migration 0003): the parse role
has no grant on the table. A failure to record never fails the job itself.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection

from ats.jobs import scrub

logger = logging.getLogger(__name__)

LOST_ERROR = "WorkerLost: the process running this attempt stopped before it ended"


def _call(job: Any, attempt: int, event: str, worker: str, *, error: str = "", traceback: str = "") -> None:
    if job.id is None or job.worker_id is None:
        return
    try:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT ats_jobs_attempt_v1(%s, %s, %s, %s, %s, %s, %s)",
                [job.id, job.worker_id, attempt, event, worker[:128], error, traceback],
            )
    except Exception:
        logger.warning("could not record %s of attempt %s of job %s", event, attempt, job.id, exc_info=True)
        if connection.in_atomic_block:
            raise  # never inside the body's transaction: a caller bug, not an outage


def record_start(job: Any, attempt: int, worker: str) -> None:
    _call(job, attempt, "start", worker)


def record_success(job: Any, attempt: int, worker: str) -> None:
    _call(job, attempt, "succeeded", worker)


def record_failure(job: Any, attempt: int, worker: str, exc: BaseException) -> None:
    _call(job, attempt, "failed", worker, error=scrub.error_line(exc), traceback=scrub.trimmed_traceback(exc))


def close_lost(cur: Any, job_id: int) -> None:
    """Close the open run of a job the rescue takes over (its process is gone)."""
    cur.execute(
        "UPDATE jobs_attempt SET ended_at = now(), status = 'lost', error = %s WHERE job_id = %s AND ended_at IS NULL",
        [LOST_ERROR, job_id],
    )


def attempt_log(job_id: int) -> list[dict[str, Any]]:
    """The job's runs, oldest first, as `/api/jobs/<id>` shows them (`attempt_log`)."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT attempt, started_at, ended_at, worker, status, error, traceback
                 FROM jobs_attempt WHERE job_id = %s ORDER BY attempt""",
            [job_id],
        )
        rows = cur.fetchall()
    return [
        {
            "attempt": attempt,
            "started_at": started.isoformat() if started else None,
            "ended_at": ended.isoformat() if ended else None,
            "worker": worker,
            "status": status,
            # Scrubbed again on the way out: the parse role wrote some of these rows.
            "error": scrub.scrub(error)[: scrub.MAX_ERROR_CHARS],
            "traceback": scrub.scrub(tb)[: scrub.MAX_TRACEBACK_CHARS + 4],
        }
        for attempt, started, ended, worker, status, error, tb in rows
    ]
