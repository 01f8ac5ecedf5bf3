"""A run's success is recorded by procrastinate's own finish (issue 26 item 1).

The task wrapper recorded the end of a run that succeeded with its own statement
(`ats_jobs_attempt_v1(..., 'succeeded', ...)`) right before procrastinate's finish moved
the job from `doing` to `succeeded`. That record carries nothing the finish does not: no
error text, no traceback, the worker is the start's. This trigger writes it in the
finish's own statement instead - one round trip fewer per job, and the record now commits
with the job's outcome (a run whose process died between its body and the finish is
closed as `lost` by the rescue, as the job is re-run; it no longer says `succeeded`).

Only `doing` -> `succeeded`: a retry (`doing` -> `todo`), a failure or an abort is
recorded by the wrapper with its error text before procrastinate's retry or finish, and
only a run still open (`running`) is closed - a failure record is never overwritten. The
run is the one the job's attempt counter names (the wrapper numbers a run
`attempts + 1`, the finish increments it). SECURITY DEFINER (the parse role has no grant
on jobs_attempt; the trigger fires for its finish too - the guard `ats_parse_jobs_guard`
has already admitted that finish), same hardening as ats_jobs_attempt_v1: pg_temp last,
EXECUTE revoked from PUBLIC (a trigger function is not called with the caller's grants).

procrastinate's finish with `delete_job` (the worker's `--delete-jobs`, never used here)
deletes the row instead: no trigger fires, the run would stay `running`.
"""

from django.db import migrations

SQL = """
CREATE OR REPLACE FUNCTION ats_jobs_attempt_succeeded_v1() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
    UPDATE jobs_attempt SET ended_at = now(), status = 'succeeded', error = '', traceback = ''
     WHERE job_id = NEW.id AND attempt = OLD.attempts + 1 AND status = 'running' AND ended_at IS NULL;
    RETURN NULL;
END;
$$;
REVOKE ALL ON FUNCTION ats_jobs_attempt_succeeded_v1() FROM PUBLIC;
DROP TRIGGER IF EXISTS ats_jobs_attempt_succeeded ON procrastinate_jobs;
CREATE TRIGGER ats_jobs_attempt_succeeded AFTER UPDATE OF status ON procrastinate_jobs
    FOR EACH ROW WHEN (OLD.status = 'doing' AND NEW.status = 'succeeded')
    EXECUTE FUNCTION ats_jobs_attempt_succeeded_v1();
"""

REVERT = """
DROP TRIGGER IF EXISTS ats_jobs_attempt_succeeded ON procrastinate_jobs;
DROP FUNCTION IF EXISTS ats_jobs_attempt_succeeded_v1();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("ats_jobs", "0004_queue_minute_rollup"),
    ]
    operations = [migrations.RunSQL(SQL, REVERT)]
