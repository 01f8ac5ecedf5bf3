"""Erasure of finished job rows that name a subject (called by ats.retention).

Job payloads hold ids only (ADR convention 4), never personal data; still, a finished
job and its events link an erased person's ids to times and outcomes, so they go with
the subject. Waiting or running jobs stay: they re-check state on entry and find the
subject erased (a logged no-op), and deleting them under a worker would lose its run.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

FINISHED = ("succeeded", "failed", "cancelled", "aborted")


def jobs_erase_references(*, refs: dict[str, Iterable[int]]) -> dict[str, int]:
    """Delete finished jobs (events cascade) whose payload names any of these ids.
    `refs`: payload key -> ids, e.g. {"attachment_id": [...], "candidate_id": [...]}."""
    deleted = 0
    with connection.cursor() as cur:
        for key, raw_ids in refs.items():
            ids = [int(i) for i in raw_ids]
            if not ids:
                continue
            cur.execute(
                "WITH gone AS (DELETE FROM procrastinate_jobs WHERE args ? %s AND (args->>%s)::bigint = ANY(%s)"
                " AND status::text = ANY(%s) AND id NOT IN (SELECT job_id FROM procrastinate_periodic_defers"
                " WHERE job_id IS NOT NULL) RETURNING id)"
                " , swept AS (DELETE FROM jobs_swept_job WHERE job_id IN (SELECT id FROM gone))"
                " SELECT count(*) FROM gone",
                [key, key, ids, list(FINISHED)],
            )
            deleted += int(cur.fetchone()[0])
    return {"procrastinate_jobs": deleted}


def jobs_referencing(*, refs: dict[str, Iterable[int]]) -> dict[str, list[dict[str, object]]]:
    """The job rows and their events that name these ids (subject access)."""
    jobs: list[dict[str, object]] = []
    events: list[dict[str, object]] = []
    with connection.cursor() as cur:
        for key, raw_ids in refs.items():
            ids = [int(i) for i in raw_ids]
            if not ids:
                continue
            cur.execute(
                "SELECT id, queue_name, task_name, status::text, args, attempts, scheduled_at FROM procrastinate_jobs"
                " WHERE args ? %s AND (args->>%s)::bigint = ANY(%s) ORDER BY id",
                [key, key, ids],
            )
            cols = [c[0] for c in cur.description]
            batch = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
            jobs.extend(batch)
            cur.execute(
                "SELECT id, job_id, type::text, at FROM procrastinate_events WHERE job_id = ANY(%s) ORDER BY id",
                [[j["id"] for j in batch]],
            )
            cols = [c[0] for c in cur.description]
            events.extend(dict(zip(cols, r, strict=True)) for r in cur.fetchall())
    return {"procrastinate_jobs": jobs, "procrastinate_events": events}
