-- Least-privilege Postgres role for worker-untrusted (the parse worker).
--
-- Applied by migration intake.0003 with :role replaced by ATS_PARSE_DB_ROLE (default
-- ats_parse). Re-applied after every procrastinate upgrade (see docs/runbook/queue.md):
-- a new procrastinate function version needs its grant here.
--
-- What the role can do: run procrastinate's worker protocol for queue `parse` only, read
-- the parse hand-off rows, and report a result through ats_parse_submit(). What it
-- cannot: read any domain table, see or move jobs of other queues, insert jobs, touch
-- other workers' rows, create temporary objects, or call any other function.

-- 0. The role. Created only where the migrating role may (the embedded/dev cluster);
--    in production the DBA creates it with a password and this grants to it.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ':role') THEN
        BEGIN
            CREATE ROLE ":role" LOGIN NOINHERIT CONNECTION LIMIT 20;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'role :role missing and cannot be created here: ask the DBA';
        END;
    END IF;
END
$$;

-- 1. Trap 4: PUBLIC has EXECUTE on every function and TEMP on the database by default.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
DO $$ BEGIN EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()); END $$;
DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), ':role'); END $$;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO ":role";

-- 2. procrastinate's worker protocol (all its functions are SECURITY INVOKER).
GRANT EXECUTE ON FUNCTION
    procrastinate_fetch_job_v2(character varying[], bigint),
    procrastinate_finish_job_v1(bigint, procrastinate_job_status, boolean),
    procrastinate_retry_job_v2(bigint, timestamp with time zone, integer, character varying, character varying),
    procrastinate_register_worker_v1(),
    procrastinate_unregister_worker_v1(bigint),
    procrastinate_update_heartbeat_v1(bigint),
    procrastinate_prune_stalled_workers_v1(double precision)
TO ":role";
-- Not granted (measured unnecessary): defer/cancel functions, trigger functions,
-- INSERT/DELETE on jobs, SELECT on events.

GRANT SELECT ON procrastinate_jobs TO ":role";
GRANT UPDATE (status, worker_id, attempts, abort_requested, scheduled_at, priority, queue_name, lock)
    ON procrastinate_jobs TO ":role";
GRANT INSERT ON procrastinate_events TO ":role";
GRANT USAGE ON SEQUENCE procrastinate_events_id_seq TO ":role";
GRANT SELECT, INSERT, DELETE ON procrastinate_workers TO ":role";
GRANT UPDATE (last_heartbeat) ON procrastinate_workers TO ":role";

-- 3. Row-level security. The table owner (the trusted app role) is not subject to it.
ALTER TABLE procrastinate_jobs ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ats_parse_select ON procrastinate_jobs;
DROP POLICY IF EXISTS ats_parse_update ON procrastinate_jobs;
CREATE POLICY ats_parse_select ON procrastinate_jobs FOR SELECT TO ":role" USING (queue_name = 'parse');
-- WITH CHECK stops retry_job_v2(..., 'score', ...) from moving a job to another queue.
CREATE POLICY ats_parse_update ON procrastinate_jobs FOR UPDATE TO ":role"
    USING (queue_name = 'parse') WITH CHECK (queue_name = 'parse');

-- Events: only for parse jobs (no forged history for other queues).
ALTER TABLE procrastinate_events ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ats_parse_insert ON procrastinate_events;
CREATE POLICY ats_parse_insert ON procrastinate_events FOR INSERT TO ":role"
    WITH CHECK (EXISTS (SELECT 1 FROM procrastinate_jobs j WHERE j.id = job_id AND j.queue_name = 'parse'));

-- Trap 1: prune_stalled_workers_v1 (called at worker start) would delete the trusted
-- workers' rows, and the FK's ON DELETE SET NULL would make their running jobs look
-- stalled (so they would run twice). Each row records its owner; the role sees and
-- touches only its own.
ALTER TABLE procrastinate_workers ADD COLUMN IF NOT EXISTS ats_owner name NOT NULL DEFAULT current_user;
ALTER TABLE procrastinate_workers ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ats_parse_own ON procrastinate_workers;
CREATE POLICY ats_parse_own ON procrastinate_workers FOR ALL TO ":role"
    USING (ats_owner = current_user) WITH CHECK (ats_owner = current_user);

-- 4. The hand-off: read-only, bytes of promoted documents only.
GRANT SELECT ON intake_parse_handoff TO ":role";

-- 5. The one way to report: validated, idempotent, and it enqueues the trusted step that
--    applies the result (worker-default), all in the caller's transaction.
--    Trap 3: SECURITY DEFINER with pg_temp LAST in search_path (and TEMP revoked above),
--    so a temporary object cannot shadow a table or function used here.
CREATE OR REPLACE FUNCTION ats_parse_submit(
    p_job_id bigint,
    p_attachment_id bigint,
    p_attempt_no integer,
    p_ok boolean,
    p_code text,
    p_detail text,
    p_text text,
    p_page_count integer,
    p_result jsonb,
    p_policy_hash text
) RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $fn$
DECLARE
    inserted bigint;
BEGIN
    -- The caller may only report on the parse job it is running for this document.
    PERFORM 1 FROM public.procrastinate_jobs j
     WHERE j.id = p_job_id AND j.queue_name = 'parse' AND j.status = 'doing'
       AND j.task_name = 'intake.parse_attachment'
       AND (j.args->>'attachment_id')::bigint = p_attachment_id
       AND (j.args->>'attempt_no')::integer = p_attempt_no;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ats_parse_submit: job % is not the running parse job of attachment % attempt %',
            p_job_id, p_attachment_id, p_attempt_no USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_ok IS NULL OR (p_ok AND p_code IS NOT NULL) OR (NOT p_ok AND p_code IS NULL) THEN
        RAISE EXCEPTION 'ats_parse_submit: ok/code mismatch' USING ERRCODE = 'check_violation';
    END IF;
    IF p_code IS NOT NULL AND p_code !~ '^[a-z_]{1,32}$' THEN
        RAISE EXCEPTION 'ats_parse_submit: malformed code' USING ERRCODE = 'check_violation';
    END IF;
    IF length(coalesce(p_text, '')) > 2000000 OR length(coalesce(p_detail, '')) > 2000
       OR pg_column_size(p_result) > 4000000
       OR (p_page_count IS NOT NULL AND (p_page_count < 0 OR p_page_count > 10000))
       OR (p_result IS NOT NULL AND jsonb_typeof(p_result) <> 'object')
       OR coalesce(p_policy_hash, '') !~ '^[0-9a-f]{0,64}$' THEN
        RAISE EXCEPTION 'ats_parse_submit: result out of range' USING ERRCODE = 'check_violation';
    END IF;
    -- A successful parse reports a known answer schema (ats.parsing.data.SCHEMA_VERSION = 2;
    -- schema 1 is still accepted for one release). Keep in step with
    -- ats.parsing.data.ACCEPTED_SCHEMA_VERSIONS and ats.sandbox.validate.
    IF p_ok AND coalesce(p_result -> 'schema', 'null'::jsonb) NOT IN ('1'::jsonb, '2'::jsonb) THEN
        RAISE EXCEPTION 'ats_parse_submit: unknown answer schema' USING ERRCODE = 'check_violation';
    END IF;

    INSERT INTO public.intake_parse_result
        (attachment_id, attempt_no, job_id, ok, code, detail, text, page_count, result, policy_hash, received_at)
    VALUES (p_attachment_id, p_attempt_no, p_job_id, p_ok, coalesce(p_code, ''), coalesce(p_detail, ''),
            coalesce(p_text, ''), p_page_count, coalesce(p_result, '{}'::jsonb), coalesce(p_policy_hash, ''), now())
    ON CONFLICT (attachment_id, attempt_no) DO NOTHING
    RETURNING id INTO inserted;
    IF inserted IS NULL THEN
        RETURN false;  -- already reported (worker died between report and finish): idempotent
    END IF;

    PERFORM public.procrastinate_defer_jobs_v1(ARRAY[ROW(
        'ingest', 'intake.apply_parse_result', 20, 'attachment:' || p_attachment_id, NULL,
        jsonb_build_object('parse_result_id', inserted, 'v', 1), NULL
    )::public.procrastinate_job_to_defer_v1]);
    RETURN true;
END
$fn$;
REVOKE ALL ON FUNCTION ats_parse_submit(bigint, bigint, integer, boolean, text, text, text, integer, jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ats_parse_submit(bigint, bigint, integer, boolean, text, text, text, integer, jsonb, text) TO ":role";
