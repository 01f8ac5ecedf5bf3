"""The capped fetch says whether a second fetch could find anything (issue 26 item 1).

In a backlog worker-default runs four task threads and `ingest` is capped at 2: each job's
end freed one slot, the loop fetched the next `ingest` job into it, then - a thread still
free - fetched again, and that fetch found `ingest` at its cap and the other queues empty.
About 670 such empty fetches per 300 documents (stop 52-53), each ~0.6 ms of Postgres and
a round trip, a query and an event-loop turn of the worker's.

`ats_jobs_fetch_v2` is 0006's fetch - same probes, same job chosen - that also returns
`more`: false only when a fetch right after this one, in this snapshot, could not find a
job (ats.jobs.wakeup then waits for a notification or a job's end, as after an empty
fetch). Each probe reads its queue's first two fetchable rows (the second never beats the
first), so the fetch knows whether another row could still be taken: one of another
queue's, an exempt task's (the rescue takes no slot), or its own queue's second while
that queue has a slot left once this job holds one.

Its locks and its probes are one statement each (0006: a loop of one statement per queue
and per probe - ~13 SPI calls per fetch of worker-default's five queues, now 3): backend
CPU per fetch with 300 jobs waiting, alternated four times on one cluster, 0.42-0.51 ->
0.37-0.42 ms when it takes a job, 0.25-0.29 -> 0.21-0.29 ms when it finds none; the
second row per probe adds ~0.02 ms to a fetch that takes a job.

Every uncertain case says `more` (at worst the empty fetch of before). A job committed
after this snapshot notifies as before (the worker clears its event before the fetch).
`ats_jobs_fetch_v1` stays as 0006 left it, for workers of the previous release (a test
holds the two to the same choice); the parse role's guard admits both (db-role.sql,
re-applied by intake 0014).
"""

import importlib
import os
import re

from django.db import migrations

SQL = """
CREATE OR REPLACE FUNCTION ats_jobs_fetch_v2(
    target_queue_names varchar[], caps integer[], exempt_tasks varchar[], p_worker_id bigint,
    OUT job procrastinate_jobs, OUT more boolean)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, public, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    allowed varchar[];
    room integer[];
    found_ids bigint[];
    found_queues varchar[];
    found_exempt boolean[];
    best_id bigint;
BEGIN
    more := false;
    IF target_queue_names IS NULL OR cardinality(target_queue_names) = 0
       OR cardinality(caps) <> cardinality(target_queue_names) THEN
        RAISE EXCEPTION 'ats_jobs_fetch_v2 needs every queue named with its cap';
    END IF;
    -- 0006's locks, one statement for all of them: in queue order (no deadlock between two
    -- fetchers), each held to the transaction's end.
    PERFORM pg_advisory_xact_lock(1635021681, hashtext(t.q))  -- "atsq"
       FROM (SELECT DISTINCT q FROM unnest(target_queue_names) AS q ORDER BY q) AS t;
    -- A statement after the locks: its snapshot sees every fetch that held them before.
    -- Each allowed queue with its free slots (0006's condition, the slots kept).
    SELECT coalesce(array_agg(s.q), '{}'), coalesce(array_agg(s.cap - s.doing), '{}') INTO allowed, room
      FROM (SELECT t.q, t.cap,
                   (SELECT count(*) FROM procrastinate_jobs j
                     WHERE j.queue_name = t.q AND j.status = 'doing'
                       AND j.worker_id IS NOT NULL
                       AND NOT (j.task_name = ANY(coalesce(exempt_tasks, '{}')))) AS doing
              FROM unnest(target_queue_names, caps) AS t(q, cap)
             WHERE NOT EXISTS (SELECT 1 FROM jobs_queue_state s WHERE s.queue = t.q AND s.paused)) AS s
     WHERE s.doing < s.cap;
    -- 0006's probes, one statement for all of them: the first two fetchable rows of each
    -- allowed queue (ats_jobs_todo_queue_idx) and of each exempt task in a requested queue
    -- (ats_jobs_todo_task_idx), each taken FOR UPDATE SKIP LOCKED; every row found, best
    -- first (priority, then id) - the job upstream's single scan chooses (a queue's second
    -- row never beats its first). The second rows only tell `more`.
    SELECT array_agg(p.id ORDER BY p.priority::bigint DESC, p.id),
           array_agg(p.queue_name ORDER BY p.priority::bigint DESC, p.id),
           array_agg(p.exempt ORDER BY p.priority::bigint DESC, p.id)
      INTO found_ids, found_queues, found_exempt
      FROM (SELECT p1.id, p1.priority, p1.queue_name, false AS exempt
              FROM (SELECT DISTINCT a FROM unnest(allowed) AS a) AS q
              CROSS JOIN LATERAL (
                -- probe: jobs.queue_name = q.a
              ) AS p1
            UNION ALL
            SELECT p2.id, p2.priority, p2.queue_name, true AS exempt
              FROM (SELECT DISTINCT e FROM unnest(coalesce(exempt_tasks, '{}')) AS e) AS x
              CROSS JOIN LATERAL (
                -- probe: jobs.task_name = x.e AND jobs.queue_name = ANY(target_queue_names)
              ) AS p2) AS p;
    best_id := found_ids[1];
    IF best_id IS NULL THEN
        RETURN;  -- job all NULL, more false: nothing to fetch
    END IF;
    UPDATE procrastinate_jobs
        SET status = 'doing', worker_id = p_worker_id
        WHERE id = best_id
        RETURNING procrastinate_jobs.* INTO job;
    -- Another row found that a fetch could still take: an exempt task's, or one in a queue
    -- with a slot left once this job holds one (an exempt job holds none).
    more := EXISTS (
        SELECT 1 FROM unnest(found_ids, found_queues, found_exempt) AS f(id, q, exempt)
         WHERE f.id <> best_id
           AND (f.exempt
                OR coalesce(room[array_position(allowed, f.q)], 0)
                   - CASE WHEN f.q = job.queue_name AND NOT (job.task_name = ANY(coalesce(exempt_tasks, '{}')))
                          THEN 1 ELSE 0 END > 0));
END;
$$;
REVOKE ALL ON FUNCTION ats_jobs_fetch_v2(varchar[], integer[], varchar[], bigint) FROM PUBLIC;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = ':role') THEN
        GRANT EXECUTE ON FUNCTION ats_jobs_fetch_v2(varchar[], integer[], varchar[], bigint) TO ":role";
    END IF;
END
$$;
"""

# 0006's probe as a LATERAL subquery: its condition (procrastinate 3.10's) taken word for
# word from 0006, the first two rows instead of one.
_PREVIOUS = importlib.import_module("ats.jobs.migrations.0006_fetch_per_queue")
_CONDITION = _PREVIOUS.PROBE[_PREVIOUS.PROBE.index("WHERE WHICH") : _PREVIOUS.PROBE.index("ORDER BY")]
PROBE = (
    "\n                SELECT jobs.id, jobs.priority, jobs.queue_name FROM procrastinate_jobs AS jobs\n         "
    + _CONDITION
    + "ORDER BY jobs.priority::bigint DESC, jobs.id ASC LIMIT 2\n                 FOR UPDATE OF jobs SKIP LOCKED"
)


def _with_probes(sql: str) -> str:
    return re.sub(r"\n                -- probe: (.+)", lambda m: PROBE.replace("WHICH", m.group(1)), sql)


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    role = os.environ.get("ATS_PARSE_DB_ROLE", "ats_parse")
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
        raise ValueError(f"ATS_PARSE_DB_ROLE {role!r} is not a plain lower-case identifier")
    schema_editor.execute(_with_probes(SQL).replace(":role", role), params=None)


def revert(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute(
        "DROP FUNCTION IF EXISTS ats_jobs_fetch_v2(varchar[], integer[], varchar[], bigint);", params=None
    )


class Migration(migrations.Migration):
    dependencies = [
        ("ats_jobs", "0006_fetch_per_queue"),
    ]
    operations = [migrations.RunPython(apply, revert)]
