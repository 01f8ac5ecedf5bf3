"""Reads of procrastinate's tables (only this module touches them)."""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import connection

from ats.jobs.attempts import attempt_log


@dataclasses.dataclass(frozen=True)
class JobRef:
    id: int
    task_name: str
    status: str
    attempts: int
    worker_id: int | None
    heartbeat_age_s: float | None
    scheduled_at: datetime.datetime | None

    def is_backing(self, stalled_after_s: float) -> bool:
        """todo, or doing on a worker whose heartbeat is live (the detector's rule)."""
        if self.status == "todo":
            return True
        if self.status == "doing":
            return self.heartbeat_age_s is not None and self.heartbeat_age_s <= stalled_after_s
        return False


def stalled_after_s() -> float:
    return float(settings.PROCRASTINATE_WORKER_DEFAULTS["stalled_worker_timeout"])


def jobs_by_payload_key(
    key: str, ids: Iterable[int], statuses: tuple[str, ...] | None = None
) -> dict[int, list[JobRef]]:
    """Jobs whose payload has `key` in `ids`, grouped by that id, newest first."""
    ids = list(ids)
    out: dict[int, list[JobRef]] = defaultdict(list)
    if not ids:
        return out
    sql = """
        SELECT (j.args->>%s)::bigint AS ref, j.id, j.task_name, j.status::text, j.attempts, j.worker_id,
               EXTRACT(EPOCH FROM (now() - w.last_heartbeat)) AS hb_age, j.scheduled_at
          FROM procrastinate_jobs j
          LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
         WHERE j.args ? %s AND (j.args->>%s)::bigint = ANY(%s)
    """
    params: list[Any] = [key, key, key, ids]
    if statuses:
        sql += " AND j.status::text = ANY(%s)"
        params.append(list(statuses))
    sql += " ORDER BY j.id DESC"
    with connection.cursor() as cur:
        cur.execute(sql, params)
        for ref, jid, task_name, status, attempts, worker_id, hb_age, scheduled_at in cur.fetchall():
            out[int(ref)].append(
                JobRef(
                    jid,
                    task_name,
                    status,
                    attempts,
                    worker_id,
                    float(hb_age) if hb_age is not None else None,
                    scheduled_at,
                )
            )
    return out


def queue_stats() -> list[dict[str, Any]]:
    """Per queue: depth by status and the oldest pending age (ADR §7 signals)."""
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT queue_name, status::text, count(*),
                   EXTRACT(EPOCH FROM now() - min(COALESCE(scheduled_at, e.at))) AS oldest_s
              FROM procrastinate_jobs j
              LEFT JOIN LATERAL (
                  SELECT min(at) AS at FROM procrastinate_events ev
                   WHERE ev.job_id = j.id AND ev.type = 'deferred') e ON true
             GROUP BY queue_name, status
             ORDER BY queue_name, status
            """
        )
        return [
            {"queue": q, "status": s, "count": n, "oldest_age_s": float(o) if o is not None else None}
            for q, s, n, o in cur.fetchall()
        ]


def job_detail(job_id: int) -> dict[str, Any] | None:
    with connection.cursor() as cur:
        cur.execute(
            """SELECT id, queue_name, task_name, status::text, attempts, args, scheduled_at, priority
                 FROM procrastinate_jobs WHERE id = %s""",
            [job_id],
        )
        row = cur.fetchone()
        if row is None:
            return None
        cur.execute("SELECT type::text, at FROM procrastinate_events WHERE job_id = %s ORDER BY id", [job_id])
        events = [{"type": t, "at": at.isoformat()} for t, at in cur.fetchall()]
    jid, queue, task, status, attempts, args, scheduled_at, priority = row
    if isinstance(args, str):  # jsonb arrives as text through Django's raw cursor
        args = json.loads(args)
    return {
        "id": jid,
        "queue": queue,
        "task_name": task,
        "status": status,
        "attempts": attempts,
        "args": args,
        "scheduled_at": scheduled_at.isoformat() if scheduled_at else None,
        "priority": priority,
        "events": events,
        # One entry per run (ats.jobs.attempts); `attempts` above stays procrastinate's count.
        "attempt_log": attempt_log(job_id),
    }


# --- observability reads (ats.monitoring.collector); each is one cheap statement --------


def queue_signals() -> dict[str, dict[str, float]]:
    """Per queue: todo depth, doing count and the oldest runnable job's age in seconds.

    Only `todo`/`doing` rows are read (the partial index on those statuses), never the
    30 days of finished jobs. The oldest runnable job is the lowest id without a
    schedule (ids grow with defer time; its `deferred` event gives the time) or the
    earliest past `scheduled_at` (retries, delayed jobs), whichever waited longer.
    """
    with connection.cursor() as cur:
        cur.execute(
            """
            WITH q AS (
                SELECT queue_name,
                       count(*) FILTER (WHERE status = 'todo') AS todo,
                       count(*) FILTER (WHERE status = 'doing') AS doing,
                       min(id) FILTER (WHERE status = 'todo' AND scheduled_at IS NULL) AS first_id,
                       min(scheduled_at) FILTER (WHERE status = 'todo' AND scheduled_at <= now()) AS first_due
                  FROM procrastinate_jobs
                 WHERE status IN ('todo', 'doing')
                 GROUP BY queue_name)
            SELECT queue_name, todo, doing,
                   GREATEST(
                       EXTRACT(EPOCH FROM now() - (SELECT min(e.at) FROM procrastinate_events e
                                                    WHERE e.job_id = q.first_id AND e.type = 'deferred')),
                       EXTRACT(EPOCH FROM now() - first_due))
              FROM q
            """
        )
        return {
            q: {"todo": float(t), "doing": float(d), "oldest_s": max(float(o), 0.0) if o is not None else 0.0}
            for q, t, d, o in cur.fetchall()
        }


QUEUE_TABLES = ("procrastinate_jobs", "procrastinate_events")


def table_health() -> list[dict[str, Any]]:
    """Statistics-collector figures of procrastinate's tables (no table scan)."""
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT relname, n_live_tup, n_dead_tup, pg_table_size(relid), pg_indexes_size(relid),
                   EXTRACT(EPOCH FROM GREATEST(last_autovacuum, last_vacuum)),
                   (SELECT reltuples FROM pg_class c WHERE c.oid = s.relid)
              FROM pg_stat_user_tables s
             WHERE relname = ANY(%s)
            """,
            [list(QUEUE_TABLES)],
        )
        return [
            {
                "table": name,
                "live": float(live),
                "dead": float(dead),
                "table_bytes": float(tsize),
                "index_bytes": float(isize),
                "last_vacuum": float(vac) if vac is not None else None,
                "rows_estimate": max(float(est), 0.0),
            }
            for name, live, dead, tsize, isize, vac, est in cur.fetchall()
        ]


def worker_heartbeats() -> list[float]:
    """Seconds since each registered worker's last heartbeat."""
    with connection.cursor() as cur:
        cur.execute("SELECT EXTRACT(EPOCH FROM now() - last_heartbeat) FROM procrastinate_workers")
        return [max(float(age), 0.0) for (age,) in cur.fetchall()]


def worker_heartbeat_age(worker_id: int) -> float | None:
    """Seconds since this worker's heartbeat, or None when its row is gone (pruned as stalled)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT EXTRACT(EPOCH FROM now() - last_heartbeat) FROM procrastinate_workers WHERE id = %s", [worker_id]
        )
        row = cur.fetchone()
    return max(float(row[0]), 0.0) if row else None


@dataclasses.dataclass(frozen=True)
class AttemptEvent:
    """One attempt boundary read from procrastinate_events (start or end of a run)."""

    id: int
    queue: str
    task_name: str
    type: str  # started | succeeded | failed | deferred_for_retry | aborted
    waited_s: float | None  # started: since the job became runnable
    ran_s: float | None  # end events: since the attempt started


def attempt_events_since(last_id: int, *, limit: int = 5000, settle_s: float = 2.0) -> list[AttemptEvent]:
    """Attempt starts and ends after event `last_id`, oldest first, at most `limit`.

    Walks the events' primary key, so each scrape reads only what is new. Events younger
    than `settle_s` wait for the next scrape: ids are taken at insert and a transaction
    may commit after a later id, which would otherwise be skipped for good.
    """
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT e.id, j.queue_name, j.task_name, e.type::text,
                   CASE WHEN e.type = 'started' THEN EXTRACT(EPOCH FROM e.at - GREATEST(
                        (SELECT max(p.at) FROM procrastinate_events p
                          WHERE p.job_id = e.job_id AND p.id < e.id
                            AND p.type IN ('deferred', 'deferred_for_retry', 'retried')),
                        CASE WHEN j.scheduled_at <= e.at THEN j.scheduled_at END)) END,
                   CASE WHEN e.type <> 'started' THEN EXTRACT(EPOCH FROM e.at -
                        (SELECT max(s.at) FROM procrastinate_events s
                          WHERE s.job_id = e.job_id AND s.id < e.id AND s.type = 'started')) END,
                   e.at >= now() - make_interval(secs => %s) AS young
              FROM procrastinate_events e
              JOIN procrastinate_jobs j ON j.id = e.job_id
             WHERE e.id > %s
               AND e.type IN ('started', 'succeeded', 'failed', 'deferred_for_retry', 'aborted')
             ORDER BY e.id
             LIMIT %s
            """,
            [settle_s, last_id, limit],
        )
        out: list[AttemptEvent] = []
        for i, q, t, typ, w, r, young in cur.fetchall():
            if young:
                break  # this one and everything after it: next scrape
            out.append(
                AttemptEvent(
                    int(i), q, t, typ, float(w) if w is not None else None, float(r) if r is not None else None
                )
            )
        return out


def last_event_id() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT COALESCE(max(id), 0) FROM procrastinate_events")
        return int(cur.fetchone()[0])


def active_job_for_lock(queueing_lock: str) -> int | None:
    """The waiting or running job holding `queueing_lock` (the one a coalesced defer joined)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM procrastinate_jobs WHERE (queueing_lock = %s OR lock = %s)"
            " AND status IN ('todo', 'doing') ORDER BY id LIMIT 1",
            [queueing_lock, queueing_lock],
        )
        row = cur.fetchone()
    return int(row[0]) if row else None


def job_status(job_id: int) -> str | None:
    with connection.cursor() as cur:
        cur.execute("SELECT status::text FROM procrastinate_jobs WHERE id = %s", [job_id])
        row = cur.fetchone()
    return str(row[0]) if row else None
