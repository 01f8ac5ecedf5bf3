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
    }


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
