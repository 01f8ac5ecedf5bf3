"""Per-attempt records (issue 24 item 1), written by the job machinery around every run.

The task wrapper (ats.jobs.runtime.task) records the start, and the end of a run that
failed with the exception line and a trimmed, scrubbed traceback. The end of a run that
succeeded is written by procrastinate's finish itself (the trigger of migration 0005, in
the finish's statement: no round trip of its own). A run whose process dies (SIGKILL,
out-of-memory, the watchdog's overrun exit) - or dies after its body but before the
finish - never writes its end: the rescue closes it as `lost` (ats.jobs.maintenance),
and so does the next run's start.

Both worker roles write through ats_jobs_attempt_v1() (migration 0003) and that trigger
(SECURITY DEFINER both): the parse role has no grant on the table. A failure to record
never fails the job itself.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection

from ats.jobs import scrub

logger = logging.getLogger(__name__)

LOST_ERROR = "WorkerLost: the process running this attempt stopped before it ended"


def _call(
    job: Any, attempt: int, event: str, worker: str, *, error: str = "", traceback: str = "", check: bool = False
) -> None:
    if job.id is None or job.worker_id is None:
        return
    args = [job.id, job.worker_id, attempt, event, worker[:128], error, traceback]
    # `check`: this statement stands in for CONN_HEALTH_CHECKS' `SELECT 1` on a persistent
    # connection reused by a new run (issue 26: one round trip fewer per job). Django runs
    # that check before the first statement after close_old_connections() and, when it
    # fails, reconnects; here the record itself goes first and, only when it failed on a
    # connection that is no longer usable, is sent again once on a fresh one. The same
    # outcome as the check (a dead connection never reaches the body), without its round
    # trip when the connection is fine. The start is an upsert: sending it twice is safe.
    db: Any = connection  # the health_check_* attributes are not in django-stubs
    checking = (
        check
        and db.connection is not None
        and db.health_check_enabled
        and not db.health_check_done
        and not db.in_atomic_block
    )
    if checking:
        db.health_check_done = True
    # Sent once; when checking, once more on a fresh connection if the first found it dead.
    for last in (not checking, True):
        try:
            _send(args)
            return
        except Exception:
            if last or connection.in_atomic_block or connection.is_usable():
                logger.warning("could not record %s of attempt %s of job %s", event, attempt, job.id, exc_info=True)
                if connection.in_atomic_block:
                    raise  # never inside the body's transaction: a caller bug, not an outage
                return
            connection.close()  # what the failed health check would have done


def _send(args: list[Any]) -> None:
    with connection.cursor() as cur:
        cur.execute("SELECT ats_jobs_attempt_v1(%s, %s, %s, %s, %s, %s, %s)", args)


def record_start(job: Any, attempt: int, worker: str) -> None:
    # The first statement of every run: it is also the connection's health check.
    _call(job, attempt, "start", worker, check=True)


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
