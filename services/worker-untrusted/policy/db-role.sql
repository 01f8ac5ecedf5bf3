-- Least-privilege Postgres role for worker-untrusted (the parse worker).
--
-- Applied by migration intake.0004 (and re-applied by later ones) with :role replaced by
-- ATS_PARSE_DB_ROLE (default ats_parse) and each other colon-prefixed name by its value in limits.toml
-- (ats.parse_worker.data.role_sql: one source for the bounds the sandbox's validator, the
-- parse worker and this file enforce). Re-applied after every procrastinate upgrade (see
-- docs/runbook/queue.md): a new procrastinate function version needs its grant here.
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
            CREATE ROLE ":role" LOGIN NOINHERIT;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'role :role missing and cannot be created here: ask the DBA';
        END;
    END IF;
END
$$;

-- 0b. Pinned on the role, server-side ([db_role] in limits.toml). The connection cap is
--     enforced by the server and the role cannot change it (ALTER ROLE needs CREATEROLE).
--     The timeouts are the role's defaults: a session of the role could still SET them
--     (every user may); docs/security/parse-role.md says what that leaves open. Where the
--     migrating role may not ALTER ROLE (a managed server), the DBA runs the same.
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = ':role') THEN
        BEGIN
            ALTER ROLE ":role" CONNECTION LIMIT :connection_limit;
            ALTER ROLE ":role" SET statement_timeout = ':statement_timeout_ms';
            ALTER ROLE ":role" SET lock_timeout = ':lock_timeout_ms';
            ALTER ROLE ":role" SET idle_in_transaction_session_timeout = ':idle_in_transaction_timeout_ms';
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'role :role: connection limit and timeouts cannot be pinned here: ask the DBA';
        END;
    END IF;
END
$$;

-- 1. Trap 4: PUBLIC has EXECUTE on every function and TEMP on the database by default.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
-- Without IN SCHEMA: PUBLIC's EXECUTE on new functions is a *global* default, which a
-- per-schema default cannot take away (per-schema defaults only add). Functions a later
-- migration creates must not be PUBLIC-executable whatever order the migrations ran in.
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
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
-- The worker protocol needs UPDATE on status, worker_id, lock, priority, scheduled_at
-- (fetch, retry, finish), but procrastinate serialises jobs by `lock` ACROSS queues: a
-- parse job given a trusted job's lock (the rescue's, the purge's) with the highest
-- priority and an infinite schedule would stall that trusted job for ever. So a parse job
-- may only carry its own lock (the policy row's template 'parse:attachment:{attachment_id}',
-- NULL allowed), the policy row's priority, and a retry within a day
-- (parse's longest backoff is 10 min). USING: the role may touch waiting jobs and jobs its
-- own workers hold (or nobody holds), never a job another pod is running. WITH CHECK also
-- stops retry_job_v2(..., 'score', ...) from moving a job to another queue.
-- Finished rows (succeeded, failed, cancelled, aborted) are outside USING: the role cannot
-- reopen or rewrite them (issue 21 N5; the trigger in section 6 refuses it too).
CREATE POLICY ats_parse_update ON procrastinate_jobs FOR UPDATE TO ":role"
    USING (
        queue_name = 'parse'
        AND status IN ('todo', 'doing')
        AND (status = 'todo' OR worker_id IS NULL OR worker_id IN (SELECT w.id FROM procrastinate_workers w))
    )
    WITH CHECK (
        queue_name = 'parse'
        AND (lock IS NULL OR lock = 'parse:attachment:' || (args ->> 'attachment_id'))
        AND priority = :parse_priority
        AND (scheduled_at IS NULL OR scheduled_at <= now() + interval '1 day')
        AND (worker_id IS NULL OR worker_id IN (SELECT w.id FROM procrastinate_workers w))
    );

-- Events: only for parse jobs (no forged history for other queues).
ALTER TABLE procrastinate_events ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ats_parse_insert ON procrastinate_events;
CREATE POLICY ats_parse_insert ON procrastinate_events FOR INSERT TO ":role"
    WITH CHECK (EXISTS (SELECT 1 FROM procrastinate_jobs j WHERE j.id = job_id AND j.queue_name = 'parse'));

-- Trap 1: prune_stalled_workers_v1 (called at worker start) would delete the trusted
-- workers' rows, and the FK's ON DELETE SET NULL would make their running jobs look
-- stalled (so they would run twice). Each row records its owner and the address it
-- registered from (one pod); the role sees and touches only its own pod's rows, so one
-- pod can neither prune another's worker nor claim the jobs it holds (the policies on
-- jobs and ats_parse_submit() below rely on this). Behind NAT all pods share an address
-- and the check narrows to the role (docs/security/parse-role.md).
ALTER TABLE procrastinate_workers ADD COLUMN IF NOT EXISTS ats_owner name NOT NULL DEFAULT current_user;
ALTER TABLE procrastinate_workers ADD COLUMN IF NOT EXISTS ats_client_addr inet DEFAULT inet_client_addr();
ALTER TABLE procrastinate_workers ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ats_parse_own ON procrastinate_workers;
CREATE POLICY ats_parse_own ON procrastinate_workers FOR ALL TO ":role"
    USING (ats_owner = current_user AND ats_client_addr IS NOT DISTINCT FROM inet_client_addr())
    WITH CHECK (ats_owner = current_user AND ats_client_addr IS NOT DISTINCT FROM inet_client_addr());

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
    -- The caller may only report on the parse job it is running for this document: the
    -- job is `doing`, held by a worker row this login registered from this address, which
    -- fetched it through procrastinate's fetch (not a job it marked `doing` by hand, nor
    -- one another pod runs).
    PERFORM 1 FROM public.procrastinate_jobs j
      JOIN public.procrastinate_workers w ON w.id = j.worker_id
     WHERE j.id = p_job_id AND j.queue_name = 'parse' AND j.status = 'doing'
       AND j.task_name = 'intake.parse_attachment'
       AND (j.args->>'attachment_id')::bigint = p_attachment_id
       AND (j.args->>'attempt_no')::integer = p_attempt_no
       AND w.ats_owner = session_user
       AND w.ats_client_addr IS NOT DISTINCT FROM inet_client_addr()
       -- ... and fetched it through procrastinate_fetch_job_v2: the guard in section 6
       -- recorded that fetch (this worker, this run of the job). No UPDATE the role can
       -- write by hand makes this row (issue 21 N5).
       AND EXISTS (SELECT 1 FROM public.intake_parse_fetch f
                    WHERE f.job_id = j.id AND f.worker_id = j.worker_id AND f.attempts = j.attempts);
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
    -- Bounds from limits.toml, the same numbers the sandbox's validator and the parse
    -- worker check first (tests/parse_role/test_limits.py), so a valid answer never fails here.
    IF length(coalesce(p_text, '')) > :max_text_chars OR length(coalesce(p_detail, '')) > :max_detail_chars
       OR octet_length(p_result::text) > :max_result_bytes
       OR (p_page_count IS NOT NULL AND (p_page_count < 0 OR p_page_count > :max_page_count))
       OR (p_result IS NOT NULL AND jsonb_typeof(p_result) <> 'object')
       OR coalesce(p_policy_hash, '') !~ '^[0-9a-f]{0,64}$' THEN
        RAISE EXCEPTION 'ats_parse_submit: result out of range' USING ERRCODE = 'check_violation';
    END IF;
    -- A successful parse reports a known answer schema: :accepted_schemas is filled from
    -- ats.parsing.data.ACCEPTED_SCHEMA_VERSIONS (the current one and the previous, for one
    -- release), the same set ats.sandbox.validate accepts.
    IF p_ok AND coalesce(p_result -> 'schema', 'null'::jsonb) NOT IN (:accepted_schemas) THEN
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

-- 6. The worker protocol is the only way the role moves a parse job (issue 21 N5).
--    Row-level security says WHICH rows the role may update; this trigger says HOW: each
--    UPDATE the role makes must be one step of procrastinate's protocol, made by
--    procrastinate's own function, called directly (the outermost frame of PG_CONTEXT):
--      fetch   todo  -> doing      procrastinate_fetch_job_v2 (or ats_jobs_fetch_v1/v2, its capped copy), which picks the next job
--                                  itself (the role cannot choose a document); the fetch
--                                  is recorded in intake_parse_fetch, and ats_parse_submit
--                                  accepts reports only for a recorded fetch;
--      finish  doing -> succeeded  procrastinate_finish_job_v1, only for a job this worker
--                                  fetched, and `succeeded` only once the attempt's report
--                                  is in (or the attempt needs none any more: its hand-off
--                                  row is gone); `aborted` only when abort was requested;
--      retry   doing -> todo/failed procrastinate_retry_job_v2, same job condition.
--    Anything else - a hand-written UPDATE (status, lock, priority, schedule, worker_id),
--    finish_job_v1 on a waiting job, retry of a failed one, a call from a DO block - is
--    refused. Finished rows are read-only. The text of a frame cannot be forged: a
--    statement's own text appears in PG_CONTEXT only quoted (`SQL statement "..."`, it
--    ends with a quote), never as the bare last line checked here, and the role can
--    create no function of that name (no CREATE on any schema, no TEMP).
--    SECURITY DEFINER to write intake_parse_fetch and read the report tables; fires only
--    for the role (WHEN), so trusted workers, the rescue and the FK's ON DELETE SET NULL
--    (which runs as the table owner) are not affected.
CREATE OR REPLACE FUNCTION ats_parse_jobs_guard() RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $fn$
DECLARE
    stack text;
    caller text;
    fetched boolean;
BEGIN
    GET DIAGNOSTICS stack = PG_CONTEXT;
    caller := substring(stack from '[^\n]*$');
    IF OLD.status NOT IN ('todo', 'doing') THEN
        RAISE EXCEPTION 'parse job % is %: finished jobs are read-only to the parse role', OLD.id, OLD.status
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- Columns no protocol step of the role changes.
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.queue_name IS DISTINCT FROM OLD.queue_name
       OR NEW.task_name IS DISTINCT FROM OLD.task_name OR NEW.args IS DISTINCT FROM OLD.args
       OR NEW.queueing_lock IS DISTINCT FROM OLD.queueing_lock THEN
        RAISE EXCEPTION 'parse job %: the parse role may not change its identity', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;

    IF OLD.status = 'todo' THEN
        IF NEW.status = 'doing' AND NEW.worker_id IS NOT NULL
           AND (caller ~ '^PL/pgSQL function procrastinate_fetch_job_v2\(character varying\[\],bigint\) line [0-9]+ at SQL statement$'
                -- the capped copy of that fetch every worker uses (ats.jobs.concurrency, jobs
                -- migration 0003; its body is pinned to upstream's by a test): the database
                -- still picks the job, the role never names one. v2 (jobs migration 0007) is
                -- the same fetch that also says whether another could find a job; v1 stays
                -- for workers of the previous release.
                OR caller ~ '^PL/pgSQL function ats_jobs_fetch_v1\(character varying\[\],integer\[\],character varying\[\],bigint\) line [0-9]+ at SQL statement$'
                OR caller ~ '^PL/pgSQL function ats_jobs_fetch_v2\(character varying\[\],integer\[\],character varying\[\],bigint\) line [0-9]+ at SQL statement$')
           AND NEW.lock IS NOT DISTINCT FROM OLD.lock AND NEW.priority = OLD.priority
           AND NEW.scheduled_at IS NOT DISTINCT FROM OLD.scheduled_at AND NEW.attempts = OLD.attempts
           AND NEW.abort_requested = OLD.abort_requested THEN
            INSERT INTO public.intake_parse_fetch (job_id, worker_id, attempts, fetched_by, client_addr, fetched_at)
            VALUES (NEW.id, NEW.worker_id, NEW.attempts, session_user, inet_client_addr(), now())
            ON CONFLICT (job_id) DO UPDATE
               SET worker_id = EXCLUDED.worker_id, attempts = EXCLUDED.attempts,
                   fetched_by = EXCLUDED.fetched_by, client_addr = EXCLUDED.client_addr,
                   fetched_at = EXCLUDED.fetched_at;
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'parse job % waits: only procrastinate_fetch_job_v2 (or its capped copy) may start it (the role asked % -> %)',
            OLD.id, OLD.status, NEW.status USING ERRCODE = 'insufficient_privilege';
    END IF;

    -- OLD.status = 'doing': only the worker whose fetch was recorded, on the same worker row.
    SELECT EXISTS (SELECT 1 FROM public.intake_parse_fetch f
                    WHERE f.job_id = OLD.id AND f.worker_id = OLD.worker_id AND f.attempts = OLD.attempts)
      INTO fetched;
    IF NOT fetched OR NEW.worker_id IS DISTINCT FROM OLD.worker_id THEN
        RAISE EXCEPTION 'parse job % is not one this worker fetched', OLD.id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF caller ~ '^PL/pgSQL function procrastinate_finish_job_v1\(bigint,procrastinate_job_status,boolean\) line [0-9]+ at SQL statement$'
       AND NEW.status IN ('succeeded', 'failed', 'aborted') THEN
        IF NEW.status = 'succeeded' AND NOT (
               EXISTS (SELECT 1 FROM public.intake_parse_result r
                        WHERE r.attachment_id = (OLD.args->>'attachment_id')::bigint
                          AND r.attempt_no = (OLD.args->>'attempt_no')::integer)
            OR NOT EXISTS (SELECT 1 FROM public.intake_parse_handoff h
                            WHERE h.attachment_id = (OLD.args->>'attachment_id')::bigint
                              AND h.attempt_no = (OLD.args->>'attempt_no')::integer)) THEN
            RAISE EXCEPTION 'parse job %: succeeded without a report', OLD.id USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF NEW.status = 'aborted' AND NOT OLD.abort_requested THEN
            RAISE EXCEPTION 'parse job %: aborted without an abort request', OLD.id
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        DELETE FROM public.intake_parse_fetch WHERE job_id = OLD.id;
        RETURN NEW;
    END IF;
    IF caller ~ '^PL/pgSQL function procrastinate_retry_job_v2\(bigint,timestamp with time zone,integer,character varying,character varying\) line [0-9]+ at SQL statement$'
       AND NEW.status IN ('todo', 'failed') THEN
        DELETE FROM public.intake_parse_fetch WHERE job_id = OLD.id;
        RETURN NEW;  -- lock, priority, schedule: bounded by the WITH CHECK of ats_parse_update
    END IF;
    RAISE EXCEPTION 'parse job %: % -> % is not a step of the worker protocol', OLD.id, OLD.status, NEW.status
        USING ERRCODE = 'insufficient_privilege';
END
$fn$;
REVOKE ALL ON FUNCTION ats_parse_jobs_guard() FROM PUBLIC;
DROP TRIGGER IF EXISTS ats_parse_jobs_guard ON procrastinate_jobs;
CREATE TRIGGER ats_parse_jobs_guard BEFORE UPDATE ON procrastinate_jobs
    FOR EACH ROW WHEN (current_user = ':role') EXECUTE FUNCTION ats_parse_jobs_guard();
