"""Two functions of the job machinery, callable by both worker roles.

`ats_jobs_fetch_v1(queues, caps, exempt_tasks, worker_id)` - procrastinate's fetch behind
a global per-queue cap and the pause switch (ADR §1, docs/runbook/queue.md). It takes one
transaction-scoped advisory lock per requested queue (sorted: no deadlock between two
fetchers), so the `doing` count it reads next is the committed count of every process
that serves the queue, then fetches only from queues under their cap and not paused -
except the exempt tasks (the rescue), which neither count nor wait. A `doing` job whose
worker row is gone (pruned as stalled) holds no slot: it is the rescue's to re-queue. The fetch itself is
procrastinate 3.10's procrastinate_fetch_job_v2 with that filter (re-check on upgrade:
tests/jobs/test_queue_caps.py pins the upstream source). SECURITY INVOKER: the parse
role's row-level security still hides every other queue.

`ats_jobs_attempt_v1(...)` - writes one run's record (start / end). SECURITY DEFINER
(the parse role has no table grant), and only for a job that is `doing` on the caller's
own worker id; a role that is not the owner may annotate `parse` jobs only. The text is
bounded here; it is scrubbed before it is sent and again when it is shown. Same
hardening as ats_parse_submit (db-role.sql): pg_temp last, EXECUTE revoked from PUBLIC.
"""

import os
import re

from django.db import migrations

SQL = """
CREATE INDEX IF NOT EXISTS ats_jobs_doing_queue_idx
    ON procrastinate_jobs (queue_name) WHERE status = 'doing';

CREATE OR REPLACE FUNCTION ats_jobs_fetch_v1(
    target_queue_names varchar[], caps integer[], exempt_tasks varchar[], p_worker_id bigint)
RETURNS procrastinate_jobs
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    q varchar;
    allowed varchar[];
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
    -- procrastinate 3.10's procrastinate_fetch_job_v2, with the queue filter above. The
    -- exempt tasks (the job machinery's own rescue) are fetched whatever the cap or the
    -- pause: a dead `doing` job holding a queue's only slot is what the rescue clears.
    WITH candidate AS (
        SELECT jobs.*
            FROM procrastinate_jobs AS jobs
            WHERE
                NOT EXISTS (
                    SELECT 1
                        FROM procrastinate_jobs AS other_jobs
                        WHERE
                            jobs.lock IS NOT NULL
                            AND other_jobs.lock = jobs.lock
                            AND (
                                other_jobs.status = 'doing'
                                OR (
                                    other_jobs.status = 'todo'
                                    AND (
                                        other_jobs.priority > jobs.priority
                                        OR (other_jobs.priority = jobs.priority AND other_jobs.id < jobs.id)
                                    )
                                )
                            )
                )
                AND jobs.status = 'todo'
                AND (
                    jobs.queue_name = ANY(allowed)
                    OR (jobs.task_name = ANY(coalesce(exempt_tasks, '{}'))
                        AND jobs.queue_name = ANY(target_queue_names))
                )
                AND (jobs.scheduled_at IS NULL OR jobs.scheduled_at <= now())
            ORDER BY jobs.priority DESC, jobs.id ASC LIMIT 1
            FOR UPDATE OF jobs SKIP LOCKED
    )
    UPDATE procrastinate_jobs
        SET status = 'doing', worker_id = p_worker_id
        FROM candidate
        WHERE procrastinate_jobs.id = candidate.id
        RETURNING procrastinate_jobs.* INTO found_jobs;
    RETURN found_jobs;
END;
$$;
REVOKE ALL ON FUNCTION ats_jobs_fetch_v1(varchar[], integer[], varchar[], bigint) FROM PUBLIC;

CREATE OR REPLACE FUNCTION ats_jobs_attempt_v1(
    p_job_id bigint, p_worker_id bigint, p_attempt integer, p_event text,
    p_worker text, p_error text, p_traceback text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    j record;
BEGIN
    SELECT queue_name, status, worker_id INTO j FROM procrastinate_jobs WHERE id = p_job_id;
    IF NOT FOUND OR j.status <> 'doing' OR j.worker_id IS DISTINCT FROM p_worker_id THEN
        RAISE EXCEPTION 'job % is not running on worker %', p_job_id, p_worker_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT pg_has_role(session_user, current_user, 'MEMBER') AND j.queue_name <> 'parse' THEN
        RAISE EXCEPTION 'this role may record attempts of parse jobs only'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_attempt < 1 OR p_attempt > 1000 THEN
        RAISE EXCEPTION 'attempt number out of range' USING ERRCODE = 'check_violation';
    END IF;
    IF p_event = 'start' THEN
        -- A run that never reported its end: its process died (SIGKILL, OOM, overrun).
        UPDATE jobs_attempt SET ended_at = now(), status = 'lost',
               error = 'WorkerLost: the process running this attempt stopped before it ended'
         WHERE job_id = p_job_id AND attempt < p_attempt AND ended_at IS NULL;
        INSERT INTO jobs_attempt (job_id, attempt, started_at, worker, status, error, traceback)
        VALUES (p_job_id, p_attempt, now(), left(coalesce(p_worker, ''), 128), 'running', '', '')
        ON CONFLICT (job_id, attempt) DO UPDATE
            SET started_at = now(), ended_at = NULL, worker = EXCLUDED.worker, status = 'running',
                error = '', traceback = '';
    ELSIF p_event IN ('succeeded', 'failed') THEN
        UPDATE jobs_attempt SET ended_at = now(), status = p_event,
               error = left(coalesce(p_error, ''), 2000), traceback = left(coalesce(p_traceback, ''), 8000)
         WHERE job_id = p_job_id AND attempt = p_attempt;
    ELSE
        RAISE EXCEPTION 'unknown attempt event %', p_event USING ERRCODE = 'check_violation';
    END IF;
END;
$$;
REVOKE ALL ON FUNCTION ats_jobs_attempt_v1(bigint, bigint, integer, text, text, text, text) FROM PUBLIC;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = ':role') THEN
        GRANT EXECUTE ON FUNCTION ats_jobs_fetch_v1(varchar[], integer[], varchar[], bigint) TO ":role";
        GRANT EXECUTE ON FUNCTION ats_jobs_attempt_v1(bigint, bigint, integer, text, text, text, text) TO ":role";
        GRANT SELECT ON jobs_queue_state TO ":role";
    END IF;
END
$$;
"""


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    role = os.environ.get("ATS_PARSE_DB_ROLE", "ats_parse")
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
        raise ValueError(f"ATS_PARSE_DB_ROLE {role!r} is not a plain lower-case identifier")
    schema_editor.execute(SQL.replace(":role", role), params=None)


def revert(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute(
        "DROP FUNCTION IF EXISTS ats_jobs_fetch_v1(varchar[], integer[], varchar[], bigint);"
        "DROP FUNCTION IF EXISTS ats_jobs_attempt_v1(bigint, bigint, integer, text, text, text, text);"
        "DROP INDEX IF EXISTS ats_jobs_doing_queue_idx;"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("ats_jobs", "0002_attempts_queue_state"),
        # The role it grants to. Not a later intake migration: that reorders the plan so the
        # audit app's functions are created after db-role.sql's blanket REVOKE, and its
        # schema-level default privileges do not take PUBLIC's EXECUTE away (tests/parse_role).
        ("intake", "0004_parse_role"),
        ("procrastinate", "0041_post_retry_failed_job"),
    ]
    operations = [migrations.RunPython(apply, revert)]
