"""The capped fetch probes each queue through its own index (issue 26 item 1).

`ats_jobs_fetch_v1` (0003) found its job with procrastinate's one scan of the `todo` rows in
priority order (procrastinate_jobs_priority_idx_v1), filtering on the queue as it went. When
the worker's queues had nothing to give - the `ingest` queue at its cap of 2 with a
backlog behind it, the other queues empty - that scan walked every waiting job of every
queue before saying so, and worker-untrusted's fetch of `parse` walked past the `ingest`
backlog ahead of it in priority order: 0.42 ms per fetch with 300 documents waiting, 1.6 ms
with 3,000, and in a 300-document backlog the fetch was the database's largest cost
(2,138 worker-default fetches, half of them empty, 1.3 s of 5.2 s; stop 44).

Now each requested queue that is under its cap and not paused is probed on its own through
`(queue_name, priority DESC, id)` over the `todo` rows, and the exempt tasks (the rescue)
through `(task_name, priority DESC, id)`: each probe stops at its first fetchable row, so a
fetch costs a few index descents whatever the backlog. The job chosen is the best of the
probes' by priority, then id - the job upstream's single scan chooses: the same rows
qualify (the queue allowed, or an exempt task in a requested queue; due; no lock held or
owed to an earlier job - procrastinate 3.10's condition, unchanged), and the first of them
in (priority DESC, id) order is the first of the per-queue firsts. Each probe takes its row
FOR UPDATE SKIP LOCKED as upstream's scan does; a probed row not chosen stays locked only
until the fetch's statement ends (the job pool is in autocommit), and the fetchers of a
queue are serialised by its advisory lock anyway. Same signature, grants and caps; workers
of the previous release call the same function.
"""

import importlib
import re

from django.db import migrations

SQL = """
-- The order is `priority::bigint DESC, id`, not `priority DESC, id`: the same order (the cast
-- widens), but one that procrastinate_jobs_priority_idx_v1 cannot give. The functions's
-- probes are planned once for any queue (a generic plan), and for `queue_name = $1` the
-- planner took that index's scan of every waiting job as the cheaper way to a first row -
-- the very scan these indexes replace (3.9 ms per probe with 30,000 jobs waiting).
CREATE INDEX IF NOT EXISTS ats_jobs_todo_queue_idx
    ON procrastinate_jobs (queue_name, (priority::bigint) DESC, id) WHERE status = 'todo';
CREATE INDEX IF NOT EXISTS ats_jobs_todo_task_idx
    ON procrastinate_jobs (task_name, (priority::bigint) DESC, id) WHERE status = 'todo';
-- The lock condition's waiting half (a job that owes its lock to an earlier one): upstream
-- reads it from procrastinate_jobs_id_lock_idx_v1, whose first column is the id - every
-- entry read for each candidate. Its running half has procrastinate_jobs_lock_idx_v1.
CREATE INDEX IF NOT EXISTS ats_jobs_todo_lock_idx
    ON procrastinate_jobs (lock) WHERE status = 'todo' AND lock IS NOT NULL;

CREATE OR REPLACE FUNCTION ats_jobs_fetch_v1(
    target_queue_names varchar[], caps integer[], exempt_tasks varchar[], p_worker_id bigint)
RETURNS procrastinate_jobs
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, public, pg_temp
-- One plan per statement for every queue, read through the indexes above (see them): a
-- custom plan per call was ~0.1 ms of planning for each of the seven probes.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    q varchar;
    task varchar;
    allowed varchar[];
    probe record;
    best_id bigint;
    best_priority integer;
    found_jobs procrastinate_jobs;
BEGIN
    IF target_queue_names IS NULL OR cardinality(target_queue_names) = 0
       OR cardinality(caps) <> cardinality(target_queue_names) THEN
        RAISE EXCEPTION 'ats_jobs_fetch_v1 needs every queue named with its cap';
    END IF;
    FOR q IN SELECT DISTINCT t FROM unnest(target_queue_names) AS t ORDER BY t LOOP
        PERFORM pg_advisory_xact_lock(1635021681, hashtext(q));  -- "atsq"
    END LOOP;
    -- A statement after the locks: its snapshot sees every fetch that held them before.
    SELECT coalesce(array_agg(t.q), '{}') INTO allowed
      FROM unnest(target_queue_names, caps) AS t(q, cap)
     WHERE NOT EXISTS (SELECT 1 FROM jobs_queue_state s WHERE s.queue = t.q AND s.paused)
       AND (SELECT count(*) FROM procrastinate_jobs j
             WHERE j.queue_name = t.q AND j.status = 'doing'
               -- a job whose worker row is gone (pruned as stalled) holds no slot: it is
               -- the rescue's. Not a join on the heartbeat: the parse role sees only its
               -- own worker rows (db-role.sql), so it could not count the other pods'.
               AND j.worker_id IS NOT NULL
               AND NOT (j.task_name = ANY(coalesce(exempt_tasks, '{}')))) < t.cap;
    -- One probe per allowed queue (ats_jobs_todo_queue_idx), then one per exempt task in
    -- any requested queue (ats_jobs_todo_task_idx), each with procrastinate 3.10's
    -- procrastinate_fetch_job_v2 condition; the best of them by priority, then id. One
    -- queue or task per probe, compared for equality: an `= ANY(array)` reads no index in
    -- order, and the planner took the all-queue priority scan for it instead.
    FOR q IN SELECT DISTINCT t FROM unnest(allowed) AS t LOOP
        -- probe: jobs.queue_name = q
    END LOOP;
    FOR task IN SELECT DISTINCT t FROM unnest(coalesce(exempt_tasks, '{}')) AS t LOOP
        -- probe: jobs.task_name = task AND jobs.queue_name = ANY(target_queue_names)
    END LOOP;
    IF best_id IS NULL THEN
        RETURN found_jobs;  -- all NULL: nothing to fetch, as upstream's empty UPDATE returns
    END IF;
    UPDATE procrastinate_jobs
        SET status = 'doing', worker_id = p_worker_id
        WHERE id = best_id
        RETURNING procrastinate_jobs.* INTO found_jobs;
    RETURN found_jobs;
END;
$$;
"""

# One probe: the first fetchable row of one queue (or one exempt task), kept if it beats the
# best so far. procrastinate 3.10's condition - due, and no lock held by a running job or
# owed to an earlier waiting one - with its lock test split in its two halves (NOT EXISTS of
# an OR is both NOT EXISTS), so each reads its own index.
PROBE = """
        SELECT jobs.id, jobs.priority INTO probe
          FROM procrastinate_jobs AS jobs
         WHERE WHICH
           AND jobs.status = 'todo'
           AND (jobs.scheduled_at IS NULL OR jobs.scheduled_at <= now())
           AND NOT (jobs.lock IS NOT NULL AND EXISTS (
                SELECT 1 FROM procrastinate_jobs AS other_jobs
                 WHERE other_jobs.lock = jobs.lock AND other_jobs.status = 'doing'))
           AND NOT (jobs.lock IS NOT NULL AND EXISTS (
                SELECT 1 FROM procrastinate_jobs AS other_jobs
                 WHERE other_jobs.lock = jobs.lock AND other_jobs.status = 'todo'
                   AND (other_jobs.priority > jobs.priority
                        OR (other_jobs.priority = jobs.priority AND other_jobs.id < jobs.id))))
         ORDER BY jobs.priority::bigint DESC, jobs.id ASC LIMIT 1
         FOR UPDATE OF jobs SKIP LOCKED;
        IF FOUND AND (best_id IS NULL OR probe.priority > best_priority
                      OR (probe.priority = best_priority AND probe.id < best_id)) THEN
            best_id := probe.id;
            best_priority := probe.priority;
        END IF;"""


def _with_probes(sql: str) -> str:
    """Each `-- probe: <condition>` line of the function becomes PROBE for that condition."""
    return re.sub(r"\n        -- probe: (.+)", lambda m: PROBE.replace("WHICH", m.group(1)), sql)


def _previous_fetch() -> str:
    """0003's function, word for word (CREATE OR REPLACE keeps its grants)."""
    module = importlib.import_module("ats.jobs.migrations.0003_fetch_caps_and_attempts")
    match = re.search(r"CREATE OR REPLACE FUNCTION ats_jobs_fetch_v1\(.*?\n\$\$;", module.SQL, re.S)
    assert match is not None
    return match.group(0)


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute(_with_probes(SQL), params=None)


def revert(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute(
        _previous_fetch()
        + "\nDROP INDEX IF EXISTS ats_jobs_todo_queue_idx;\nDROP INDEX IF EXISTS ats_jobs_todo_task_idx;"
        + "\nDROP INDEX IF EXISTS ats_jobs_todo_lock_idx;",
        params=None,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("ats_jobs", "0005_attempt_success_at_finish"),
    ]
    operations = [migrations.RunPython(apply, revert)]
