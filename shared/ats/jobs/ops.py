"""The operator's view of the queue (Oban Web / Flower style) and its two actions.

Reads go straight to procrastinate's tables (only this module may); actions go through
procrastinate's JobManager bound to Django's connection - never a raw `UPDATE` - so they
commit or roll back with the caller's transaction (and its audit row).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from typing import Any

import croniter
from django.db import connection, transaction
from django.utils import timezone
from procrastinate.contrib.django import app as procrastinate_app
from procrastinate.contrib.django.django_connector import DjangoConnector
from procrastinate.manager import JobManager

from ats.errors import Refused
from ats.jobs.errors import JobError
from ats.jobs.policy import BUILTIN_QUEUE, BY_NAME, QUEUES
from ats.jobs.queries import stalled_after_s

_manager = JobManager(connector=DjangoConnector())

STATUSES = ("todo", "doing", "succeeded", "failed", "cancelled", "aborted")
# What `ats jobs delete` / the console's delete-finished may remove: never a waiting or
# running job, and a failed one only once the sweep has recorded its document's state.
FINISHED_STATUSES = ("succeeded", "failed", "cancelled", "aborted")
FAILED_WINDOW_S = 15 * 60
THROUGHPUT_WINDOW_S = 5 * 60
TASK_STATS_WINDOW_H = 24


def _rows(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cur:
        cur.execute(sql, params or [])
        return list(cur.fetchall())


def _args(raw: Any) -> dict[str, Any]:
    # Django's raw cursor hands jsonb back as text.
    return json.loads(raw) if isinstance(raw, str) else dict(raw or {})


def queue_overview() -> list[dict[str, Any]]:
    """Per queue: depth (todo), oldest pending age, running, failed in the last 15 min and
    throughput (jobs finished per minute over the last 5 min)."""

    def blank(q: str) -> dict[str, Any]:
        return {
            "queue": q,
            "todo": 0,
            "doing": 0,
            "oldest_pending_age_s": None,
            "failed_15m": 0,
            "throughput_per_min": 0.0,
        }

    out: dict[str, dict[str, Any]] = {q: blank(q) for q in (*QUEUES, BUILTIN_QUEUE)}
    for queue, status, count, oldest in _rows(
        """SELECT queue_name, status::text, count(*),
                  EXTRACT(EPOCH FROM now() - min(COALESCE(scheduled_at, e.at)))
             FROM procrastinate_jobs j
             LEFT JOIN LATERAL (SELECT min(at) AS at FROM procrastinate_events ev
                                 WHERE ev.job_id = j.id AND ev.type = 'deferred') e ON true
            WHERE status IN ('todo', 'doing')
            GROUP BY queue_name, status"""
    ):
        row = out.setdefault(queue, blank(queue))
        row[status] = count
        if status == "todo" and oldest is not None:
            row["oldest_pending_age_s"] = max(float(oldest), 0.0)
    for queue, failed, finished in _rows(
        """SELECT j.queue_name,
                  count(*) FILTER (WHERE ev.type = 'failed' AND ev.at > now() - make_interval(secs => %s)),
                  count(*) FILTER (WHERE ev.type IN ('succeeded', 'failed')
                                     AND ev.at > now() - make_interval(secs => %s))
             FROM procrastinate_events ev JOIN procrastinate_jobs j ON j.id = ev.job_id
            WHERE ev.at > now() - make_interval(secs => %s) AND ev.type IN ('succeeded', 'failed')
            GROUP BY j.queue_name""",
        [FAILED_WINDOW_S, THROUGHPUT_WINDOW_S, max(FAILED_WINDOW_S, THROUGHPUT_WINDOW_S)],
    ):
        row = out.setdefault(queue, blank(queue))
        row["failed_15m"] = failed
        row["throughput_per_min"] = round(finished / (THROUGHPUT_WINDOW_S / 60), 2)
    return list(out.values())


def task_stats(*, window_hours: int = TASK_STATS_WINDOW_H) -> list[dict[str, Any]]:
    """Per task (with its policy class): runs, failed runs, failure rate, p50/p95 duration.

    A run is a `started` event; its end is the job's next event (succeeded, failed or
    deferred_for_retry), so each retry counts as its own run with its own duration.
    """
    rows = _rows(
        """WITH ev AS (
               SELECT j.task_name, ev.type::text AS type, ev.at,
                      lead(ev.type::text) OVER w AS next_type, lead(ev.at) OVER w AS next_at
                 FROM procrastinate_events ev JOIN procrastinate_jobs j ON j.id = ev.job_id
                WHERE ev.at > now() - make_interval(hours => %s)
                  AND ev.type IN ('started', 'succeeded', 'failed', 'deferred_for_retry')
               WINDOW w AS (PARTITION BY ev.job_id ORDER BY ev.at, ev.id))
           SELECT task_name, count(*),
                  count(*) FILTER (WHERE next_type IN ('failed', 'deferred_for_retry')),
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM next_at - at))
                      FILTER (WHERE next_at IS NOT NULL),
                  percentile_cont(0.95) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM next_at - at))
                      FILTER (WHERE next_at IS NOT NULL)
             FROM ev WHERE type = 'started'
            GROUP BY task_name ORDER BY task_name""",
        [window_hours],
    )
    out = []
    for task_name, runs, failed, p50, p95 in rows:
        policy = BY_NAME.get(task_name)
        out.append(
            {
                "task_name": task_name,
                "task_class": policy.task_class if policy else "",
                "queue": policy.queue if policy else "",
                "runs": runs,
                "failed_runs": failed,
                "failure_rate": round(failed / runs, 4) if runs else 0.0,
                "p50_s": float(p50) if p50 is not None else None,
                "p95_s": float(p95) if p95 is not None else None,
            }
        )
    return out


def workers() -> list[dict[str, Any]]:
    stalled = stalled_after_s()
    return [
        {
            "worker_id": wid,
            "heartbeat_age_s": float(age),
            "alive": float(age) <= stalled,
            "running": running,
        }
        for wid, age, running in _rows(
            """SELECT w.id, EXTRACT(EPOCH FROM now() - w.last_heartbeat),
                      (SELECT count(*) FROM procrastinate_jobs j WHERE j.worker_id = w.id AND j.status = 'doing')
                 FROM procrastinate_workers w ORDER BY w.id"""
        )
    ]


def stalled_jobs() -> list[dict[str, Any]]:
    """`doing` jobs whose worker is gone or silent past the stalled timeout (the rescue's input)."""
    return [
        {
            "id": jid,
            "task_name": task,
            "queue": queue,
            "attempts": attempts,
            "worker_id": wid,
            "heartbeat_age_s": float(age) if age is not None else None,
        }
        for jid, task, queue, attempts, wid, age in _rows(
            """SELECT j.id, j.task_name, j.queue_name, j.attempts, j.worker_id,
                      EXTRACT(EPOCH FROM now() - w.last_heartbeat)
                 FROM procrastinate_jobs j LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
                WHERE j.status = 'doing'
                  AND (w.id IS NULL OR w.last_heartbeat < now() - make_interval(secs => %s))
                ORDER BY j.id""",
            [stalled_after_s()],
        )
    ]


def periodic_schedule() -> list[dict[str, Any]]:
    """Every periodic task registered in this process, its cron, last and next run."""
    last = {
        (task, pid): (ts, job_id)
        for task, pid, ts, job_id in _rows(
            """SELECT DISTINCT ON (task_name, periodic_id) task_name, periodic_id, defer_timestamp, job_id
                 FROM procrastinate_periodic_defers ORDER BY task_name, periodic_id, defer_timestamp DESC"""
        )
    }
    now = timezone.now()
    out = []
    for (task_name, periodic_id), pt in sorted(procrastinate_app.periodic_registry.periodic_tasks.items()):
        ts, job_id = last.get((task_name, periodic_id), (None, None))
        # A fresh iterator (procrastinate's is cached and stateful); same cron dialect.
        next_run = croniter.croniter(pt.cron, now).get_next(datetime.datetime)
        out.append(
            {
                "task_name": task_name,
                "cron": pt.cron,
                "last_run_at": datetime.datetime.fromtimestamp(ts, tz=datetime.UTC) if ts else None,
                "last_job_id": job_id,
                "next_run_at": next_run,
            }
        )
    return out


def periodic_start_lateness(*, window_h: int = 1) -> dict[str, float]:
    """Per periodic task, the worst delay over the last `window_h` hours between the time a
    run was due (its defer timestamp) and its start (ADR 0004 trigger T8's signal: the
    in-database scheduler is not keeping the precision the schedule asks for)."""
    return {
        task: float(late)
        for task, late in _rows(
            """SELECT d.task_name, max(EXTRACT(EPOCH FROM ev.at - to_timestamp(d.defer_timestamp)))
                 FROM procrastinate_periodic_defers d
                 JOIN procrastinate_events ev ON ev.job_id = d.job_id AND ev.type = 'started'
                WHERE ev.at > now() - make_interval(hours => %s)
                GROUP BY d.task_name""",
            [window_h],
        )
    }


@dataclasses.dataclass(frozen=True)
class JobFilter:
    job_id: int | None = None
    task_name: str = ""
    status: str = ""
    queue: str = ""
    args_key: str = ""
    args_value: str = ""
    since: datetime.datetime | None = None  # the job's latest event at or after this


def _where(f: JobFilter, *, with_status: bool = True) -> tuple[list[str], list[Any]]:
    where: list[str] = ["true"]
    params: list[Any] = []
    if f.job_id is not None:
        where.append("j.id = %s")
        params.append(f.job_id)
    if f.task_name:
        where.append("j.task_name ILIKE %s")
        params.append(f"%{f.task_name}%")
    if f.status and with_status:
        where.append("j.status::text = %s")
        params.append(f.status)
    if f.queue:
        where.append("j.queue_name = %s")
        params.append(f.queue)
    if f.since is not None:
        where.append("(SELECT max(at) FROM procrastinate_events e WHERE e.job_id = j.id) >= %s")
        params.append(f.since)
    if f.args_key:
        where.append("j.args ? %s")
        params.append(f.args_key)
        if f.args_value:
            where.append("j.args->>%s = %s")
            params.extend([f.args_key, f.args_value])
    return where, params


def job_status_counts(f: JobFilter) -> dict[str, int]:
    """How many jobs match the filter in each status (the job list's tabs)."""
    where, params = _where(f, with_status=False)
    counts = dict.fromkeys(STATUSES, 0)
    for status, n in _rows(
        f"SELECT j.status::text, count(*) FROM procrastinate_jobs j WHERE {' AND '.join(where)} GROUP BY 1", params
    ):
        counts[status] = int(n)
    return counts


def job_search(f: JobFilter, *, limit: int = 100, before_id: int | None = None) -> list[dict[str, Any]]:
    """Newest first; `before_id` is the cursor of the next page (ids below it), so paging
    has no cap and no OFFSET scan."""
    where, params = _where(f)
    if before_id is not None:
        where.append("j.id < %s")
        params.append(before_id)
    params.append(limit)
    rows = _rows(
        f"""SELECT j.id, j.queue_name, j.task_name, j.status::text, j.attempts, j.args, j.scheduled_at,
                   (SELECT max(at) FROM procrastinate_events e WHERE e.job_id = j.id)
              FROM procrastinate_jobs j WHERE {" AND ".join(where)} ORDER BY j.id DESC LIMIT %s""",
        params,
    )
    return [
        {
            "id": jid,
            "queue": queue,
            "task_name": task,
            "status": status,
            "attempts": attempts,
            "args": _args(args),
            "scheduled_at": scheduled_at,
            "last_event_at": last_at,
        }
        for jid, queue, task, status, attempts, args, scheduled_at, last_at in rows
    ]


def job_events_for(key: str, ids: list[int]) -> list[dict[str, Any]]:
    """Every event of every job whose payload carries `key` in `ids`, oldest first, with
    the run number each event belongs to (1 for the first `started`, 2 after a retry...)."""
    if not ids:
        return []
    rows = _rows(
        """SELECT j.id, j.task_name, j.status::text, ev.type::text, ev.at,
                  count(*) FILTER (WHERE ev.type = 'started') OVER (PARTITION BY ev.job_id ORDER BY ev.at, ev.id)
             FROM procrastinate_events ev JOIN procrastinate_jobs j ON j.id = ev.job_id
            WHERE j.args ? %s AND (j.args->>%s)::bigint = ANY(%s)
            ORDER BY ev.at, ev.id""",
        [key, key, ids],
    )
    return [
        {"job_id": jid, "task_name": task, "job_status": status, "type": etype, "at": at, "attempt": max(int(n), 1)}
        for jid, task, status, etype, at, n in rows
    ]


def job_row(job_id: int) -> dict[str, Any] | None:
    rows = job_search(JobFilter(job_id=job_id), limit=1)
    return rows[0] if rows else None


# Keeps its builtin base (ValueError) so every `except ValueError` still catches it.
class JobActionRefused(JobError, Refused, ValueError):
    pass


def job_cancel(*, job_id: int) -> None:
    """Cancel a waiting (`todo`) job. A running job is not aborted: sync tasks cannot be
    interrupted and abort notifications can be forged (docs/runbook/queue.md)."""
    with transaction.atomic():
        row = job_row(job_id)
        if row is None:
            raise LookupError(f"job {job_id} does not exist")
        if row["status"] != "todo":
            raise JobActionRefused(f"job {job_id} is {row['status']}; only a waiting job can be cancelled")
        if not _manager.cancel_job_by_id(job_id, abort=False):
            raise JobActionRefused(f"job {job_id} could not be cancelled (it started meanwhile)")


def job_retry(*, job_id: int) -> None:
    """Retry a `failed` job as it is (for jobs that belong to no document; document jobs
    are retried through their domain action by the caller)."""
    with transaction.atomic():
        row = job_row(job_id)
        if row is None:
            raise LookupError(f"job {job_id} does not exist")
        if row["status"] != "failed":
            raise JobActionRefused(f"job {job_id} is {row['status']}; only a failed job can be retried")
        try:
            with transaction.atomic():  # savepoint: a queueing-lock twin must not abort the caller
                _manager.retry_job_by_id(job_id, retry_at=timezone.now())
        except Exception as exc:
            if "unique" in str(exc).lower() or type(exc).__name__ in {"UniqueViolation", "IntegrityError"}:
                raise JobActionRefused(f"job {job_id}: an identical job is already waiting") from exc
            raise


def job_delete(*, job_id: int) -> None:
    """Delete a finished job with its events and attempt records (an operator clearing
    history early; the nightly pruning does the same after 30 days). A failed job goes only
    once the sweep has made sure of its document's terminal state (jobs_swept_job), so a
    failure never vanishes before a recruiter can see it."""
    with transaction.atomic():
        rows = _rows(
            """SELECT j.status::text, EXISTS (SELECT 1 FROM jobs_swept_job s WHERE s.job_id = j.id)
                 FROM procrastinate_jobs j WHERE j.id = %s FOR UPDATE""",
            [job_id],
        )
        if not rows:
            raise LookupError(f"job {job_id} does not exist")
        status, swept = rows[0]
        if status not in FINISHED_STATUSES:
            raise JobActionRefused(f"job {job_id} is {status}; only a finished job can be deleted")
        if status == "failed" and not swept:
            raise JobActionRefused(f"job {job_id} failed and its document's state is not recorded yet; kept")
        with connection.cursor() as cur:
            cur.execute("DELETE FROM jobs_attempt WHERE job_id = %s", [job_id])
            cur.execute("DELETE FROM procrastinate_jobs WHERE id = %s", [job_id])


# --- ADR §1 caps and queue pause (issue 24 items 3-4) ----------------------------------


def queue_list() -> list[dict[str, Any]]:
    """`ats queues --json`: per queue its global cap, pause state, waiting (todo), running
    (doing, every process) and the oldest waiting job's age in seconds (None: none waits)."""
    from ats.jobs.concurrency import cap_of

    paused = dict(_rows("SELECT queue, paused FROM jobs_queue_state"))
    return [
        {
            "queue": q["queue"],
            "concurrency": cap_of(q["queue"]),
            "paused": bool(paused.get(q["queue"], False)),
            "waiting": q["todo"],
            "running": q["doing"],
            "oldest_s": round(q["oldest_pending_age_s"], 3) if q["oldest_pending_age_s"] is not None else None,
        }
        for q in queue_overview()
    ]


def paused_queues() -> set[str]:
    return {q for (q,) in _rows("SELECT queue FROM jobs_queue_state WHERE paused")}


def queue_set_paused(*, queue: str, paused: bool, actor: str) -> dict[str, Any]:
    """Pause (workers fetch nothing new from it; in-flight jobs finish) or resume a queue.
    The caller records the audit row in the same transaction."""
    from ats.jobs.concurrency import wake_workers
    from ats.jobs.models import QueueState

    if queue not in (*QUEUES, BUILTIN_QUEUE):
        raise LookupError(f"no queue named {queue!r}; queues: {', '.join((*QUEUES, BUILTIN_QUEUE))}")
    with transaction.atomic():
        QueueState._default_manager.update_or_create(
            queue=queue, defaults={"paused": paused, "changed_by": actor[:150]}
        )
        if not paused:
            wake_workers(queue)  # delivered at COMMIT: the waiting jobs start at once
    return next(q for q in queue_list() if q["queue"] == queue)


# --- bulk actions by filter (issue 24 item 2) -------------------------------------------


def parse_since(raw: str) -> datetime.datetime:
    """`--since`: a duration back from now (90s, 15m, 1h, 2d) or an ISO 8601 time."""
    import re

    raw = raw.strip()
    m = re.fullmatch(r"(\d+)\s*([smhd])", raw)
    if m:
        seconds = int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
        return timezone.now() - datetime.timedelta(seconds=seconds)
    try:
        at = datetime.datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"--since {raw!r}: give a duration (15m, 1h, 2d) or an ISO time") from None
    return at if at.tzinfo else at.replace(tzinfo=datetime.UTC)


def job_ids_matching(
    *, status: str, task_name: str = "", queue: str = "", since: datetime.datetime | None = None
) -> list[tuple[int, str, dict[str, Any]]]:
    """(id, task name, args) of every job matching the filter, oldest first. Exact task
    and queue names (a bulk action acts on what was named, not on a substring); `since`
    compares the job's latest event (its failure, its deferral)."""
    if status not in STATUSES:
        raise ValueError(f"--status {status!r}: one of {', '.join(STATUSES)}")
    where: list[str] = ["j.status::text = %s"]
    params: list[Any] = [status]
    if task_name:
        where.append("j.task_name = %s")
        params.append(task_name)
    if queue:
        where.append("j.queue_name = %s")
        params.append(queue)
    if since is not None:
        where.append("(SELECT max(at) FROM procrastinate_events e WHERE e.job_id = j.id) >= %s")
        params.append(since)
    return [
        (jid, task, _args(args))
        for jid, task, args in _rows(
            f"SELECT j.id, j.task_name, j.args FROM procrastinate_jobs j WHERE {' AND '.join(where)} ORDER BY j.id",
            params,
        )
    ]
