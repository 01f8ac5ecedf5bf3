"""Rescue of stalled jobs and the exhaustion sweep (procrastinate has neither).

- A job `doing` on a worker whose heartbeat is gone (SIGKILL, OOM, node loss), or
  `doing` far past its policy's wall timeout, is retried - but only once the process that
  ran it is provably dead: its fence (ats.jobs.watchdog) is free. A job whose first run
  may still be alive is left `doing` and reported as fenced, never run twice at once.
  The rescue counts as an attempt, so a document that kills its worker every time runs
  out of attempts and ends in its domain terminal state instead of looping.
- A `failed` job (attempts exhausted, or permanent failure) gets its policy's exhaustion
  handler run once more and is recorded as swept: anything that slipped past the
  in-task handler (a crash between the failure and the write) still reaches a domain state.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from django.db import connection, transaction

from ats.jobs import attempts as attempts_module
from ats.jobs.handlers import exhaustion_handler
from ats.jobs.models import SweptJob
from ats.jobs.policy import policy_for
from ats.jobs.queries import stalled_after_s
from ats.jobs.watchdog import FENCE_NAMESPACE, fence_key

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class SweepReport:
    rescued: list[int] = dataclasses.field(default_factory=list)
    exhausted: list[int] = dataclasses.field(default_factory=list)
    swept_failed: list[int] = dataclasses.field(default_factory=list)
    superseded: list[int] = dataclasses.field(default_factory=list)
    fenced: list[int] = dataclasses.field(default_factory=list)


def _has_waiting_twin(job_id: int) -> bool:
    with connection.cursor() as cur:
        cur.execute(
            """SELECT 1 FROM procrastinate_jobs t JOIN procrastinate_jobs j ON j.queueing_lock = t.queueing_lock
                WHERE j.id = %s AND t.id <> j.id AND t.status = 'todo' LIMIT 1""",
            [job_id],
        )
        return cur.fetchone() is not None


def _args(raw: Any) -> dict[str, Any]:
    # Django's cursor hands jsonb back as text (the ORM decodes it, raw SQL does not).
    return json.loads(raw) if isinstance(raw, str) else dict(raw)


def _handle(task_name: str, args: Any, code: str, reason: str) -> str:
    try:
        policy = policy_for(task_name)
    except LookupError:
        return "no_handler"
    handler = exhaustion_handler(policy)
    if handler is None:
        return "no_handler"
    payload = {k: v for k, v in _args(args).items() if k not in {"v", "timestamp", "rid"}}
    with transaction.atomic():  # savepoint: one bad handler must not stop the sweep
        handler(reason_code=code, reason=reason, **payload)
    return "handled"


# A job still `doing` this long after it started is not running any more (its retry was
# lost): the watchdog ends a process whose job overruns `timeout_s` + its slack, so this
# backstop only matters for a process that died without its heartbeat going stale. The
# fence below still refuses to re-queue a job whose process lives.
OVERDUE_FACTOR = 3
OVERDUE_GRACE_S = 90.0


def _overdue(task_name: str, running_s: float | None) -> bool:
    if running_s is None:
        return False
    try:
        timeout = policy_for(task_name).timeout_s
    except LookupError:
        return False
    return float(running_s) > OVERDUE_FACTOR * timeout + OVERDUE_GRACE_S


def _first_run_may_be_alive(cur: Any, worker_id: int | None) -> bool:
    """True unless the process that ran the job is provably gone.

    With a worker row: its fence key is free, so no session holds it (taking it here also
    keeps it until this transaction commits). Without one (the row was pruned or the
    worker deleted it on its way out): no live session holds a fence whose worker row is
    gone - any such orphan may be running this very job.
    """
    if worker_id is not None:
        cur.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [FENCE_NAMESPACE, fence_key(worker_id)])
        return not cur.fetchone()[0]
    cur.execute(
        """SELECT EXISTS (
               SELECT 1 FROM pg_locks l
                WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted
                  AND l.classid = %s::bigint::oid AND l.pid <> pg_backend_pid()
                  AND NOT EXISTS (SELECT 1 FROM procrastinate_workers w
                                   WHERE w.id %% 2147483648 = l.objid::bigint))""",
        [FENCE_NAMESPACE],
    )
    return bool(cur.fetchone()[0])


def rescue_stalled_jobs(*, stalled_after: float | None = None, limit: int = 500) -> SweepReport:
    report = SweepReport()
    stalled_after = stalled_after_s() if stalled_after is None else stalled_after
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute(
                """
                SELECT j.id, j.task_name, j.attempts, j.args, j.priority, j.queue_name, j.lock, j.worker_id,
                       (j.worker_id IS NULL OR w.id IS NULL
                        OR w.last_heartbeat < now() - make_interval(secs => %s)) AS worker_gone,
                       EXTRACT(EPOCH FROM now() - s.started) AS running_s
                  FROM procrastinate_jobs j
                  LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
                  LEFT JOIN LATERAL (
                      SELECT max(e.at) AS started FROM procrastinate_events e
                       WHERE e.job_id = j.id AND e.type = 'started') s ON true
                 WHERE j.status = 'doing'
                 ORDER BY j.id
                 LIMIT %s
                 FOR UPDATE OF j SKIP LOCKED
                """,
                [stalled_after, limit],
            )
            rows = [r for r in cur.fetchall() if r[8] or _overdue(r[1], r[9])]
        for job_id, task_name, attempts, args, priority, queue, lock, worker_id, _gone, _running in rows:
            with connection.cursor() as cur:
                if _first_run_may_be_alive(cur, worker_id):
                    report.fenced.append(job_id)
                    logger.warning(
                        "stalled job %s (%s) left alone: the process running it may still be alive (fenced)",
                        job_id,
                        task_name,
                    )
                    continue
                # Its process is gone: the run it never finished is recorded as lost.
                attempts_module.close_lost(cur, job_id)
            try:
                total = policy_for(task_name).attempts
            except LookupError:
                total = 1
            with connection.cursor() as cur:
                if attempts + 1 < total and not _has_waiting_twin(job_id):
                    # retry_job_v2 increments attempts: the lost run counts as one.
                    cur.execute(
                        "SELECT procrastinate_retry_job_v2(%s, now(), %s, %s, %s)", [job_id, priority, queue, lock]
                    )
                    report.rescued.append(job_id)
                    outcome = "rescued"
                elif attempts + 1 < total:
                    # A waiting job with the same queueing lock will do this work; retrying
                    # would collide with it (unique among todo jobs) and abort the batch.
                    cur.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [job_id])
                    SweptJob.objects.update_or_create(
                        job_id=job_id, defaults={"task_name": task_name, "outcome": "superseded"}
                    )
                    report.superseded.append(job_id)
                    continue
                else:
                    cur.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [job_id])
                    try:
                        _handle(
                            task_name,
                            args,
                            "worker_lost",
                            "This step stalled on every attempt (worker crash, out-of-memory or a hang).",
                        )
                    except Exception:
                        # Left unswept: sweep_failed_jobs retries the handler next run.
                        logger.exception("exhaustion handler failed for stalled job %s", job_id)
                        report.exhausted.append(job_id)
                        continue
                    report.exhausted.append(job_id)
                    outcome = "exhausted"
            if outcome == "exhausted":
                SweptJob.objects.update_or_create(job_id=job_id, defaults={"task_name": task_name, "outcome": outcome})
            logger.warning("stalled job %s (%s) %s after %s attempts", job_id, task_name, outcome, attempts + 1)
    return report


def sweep_failed_jobs(*, limit: int = 500) -> list[int]:
    """Run the exhaustion handler for failed jobs not yet swept. Idempotent."""
    done: list[int] = []
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute(
                """
                SELECT j.id, j.task_name, j.args FROM procrastinate_jobs j
                 WHERE j.status = 'failed'
                   AND NOT EXISTS (SELECT 1 FROM jobs_swept_job s WHERE s.job_id = j.id)
                 ORDER BY j.id LIMIT %s
                 FOR UPDATE OF j SKIP LOCKED
                """,
                [limit],
            )
            rows = cur.fetchall()
        for job_id, task_name, args in rows:
            # Two sweeps (the rescue runs on every worker-default process) can both select a
            # job: the row lock is free again once the first commits, and the second's
            # NOT EXISTS was read before that commit. A fresh statement sees the first's
            # record: the job is done, not handled twice.
            if SweptJob.objects.filter(job_id=job_id).exists():
                continue
            try:
                outcome = _handle(task_name, args, "exhausted", "Every attempt at this step failed.")
            except Exception:
                logger.exception("exhaustion handler failed for job %s", job_id)
                continue  # not recorded: retried by the next sweep, and visible as lost
            # and a record another sweep committed meanwhile is kept (the handlers are
            # idempotent): a duplicate key here failed the whole sweep job before
            _, created = SweptJob.objects.get_or_create(
                job_id=job_id, defaults={"task_name": task_name, "outcome": outcome}
            )
            if created:
                done.append(job_id)
    return done


def prune_swept_failed_jobs(*, max_hours: int) -> int:
    """Delete failed jobs older than max_hours whose domain state is recorded (swept)."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            """
            DELETE FROM procrastinate_jobs j
             USING jobs_swept_job s
             WHERE s.job_id = j.id AND j.status = 'failed'
               AND s.swept_at < now() - make_interval(hours => %s)
            """,
            [max_hours],
        )
        return cur.rowcount
