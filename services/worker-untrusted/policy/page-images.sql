-- The page-image hand-off of worker-untrusted (the CV viewer's derivatives).
--
-- Applied by migration intake.0010 (ats.parse_worker.data.pages_sql) with :role and each other
-- colon-prefixed bound substituted. Kept apart from db-role.sql: this file only ADDS two
-- functions; the role gets no privilege on any table. docs/security/sandbox.md, "Page
-- images", describes the whole path.
--
-- One row per page: the sandbox child renders a page as 8-bit grey samples, zlib-
-- compressed (never an image file format), declares its width and height, and worker-
-- untrusted submits the compressed bytes here. The bounds below only protect the table
-- (a row's bytes, the page number): the DIMENSIONS are checked by the trusted side
-- before it allocates anything (ats.sandbox.pages.inflate_exact), which must not rely
-- on this file. Each call is one short statement: the role's 30 s statement_timeout and
-- the report's 4 MiB answer limit are untouched.
--
-- Trap 3 (docs/security/parse-role.md): SECURITY DEFINER with pg_temp last.

CREATE OR REPLACE FUNCTION ats_parse_page_submit(
    p_job_id bigint,
    p_attachment_id bigint,
    p_attempt_no integer,
    p_page_no integer,
    p_width integer,
    p_height integer,
    p_unit_width double precision,
    p_unit_height double precision,
    p_data bytea
) RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $fn$
DECLARE
    inserted bigint;
BEGIN
    -- The same rule as ats_parse_submit(): only for the parse job this login is running.
    PERFORM 1 FROM public.procrastinate_jobs j
      JOIN public.procrastinate_workers w ON w.id = j.worker_id
     WHERE j.id = p_job_id AND j.queue_name = 'parse' AND j.status = 'doing'
       AND j.task_name = 'intake.parse_attachment'
       AND (j.args->>'attachment_id')::bigint = p_attachment_id
       AND (j.args->>'attempt_no')::integer = p_attempt_no
       AND w.ats_owner = session_user
       AND w.ats_client_addr IS NOT DISTINCT FROM inet_client_addr();
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ats_parse_page_submit: job % is not the running parse job of attachment % attempt %',
            p_job_id, p_attachment_id, p_attempt_no USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_page_no IS NULL OR p_page_no < 1 OR p_page_no > :max_pages
       OR p_data IS NULL OR octet_length(p_data) > :max_page_bytes
       OR p_width IS NULL OR p_height IS NULL OR p_unit_width IS NULL OR p_unit_height IS NULL THEN
        RAISE EXCEPTION 'ats_parse_page_submit: page out of range' USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO public.intake_page_image_handoff
        (attachment_id, attempt_no, page_no, untrusted_width, untrusted_height,
         untrusted_unit_width, untrusted_unit_height, untrusted_data, received_at)
    VALUES (p_attachment_id, p_attempt_no, p_page_no, p_width, p_height, p_unit_width, p_unit_height, p_data, now())
    ON CONFLICT (attachment_id, attempt_no, page_no) DO NOTHING
    RETURNING id INTO inserted;
    RETURN inserted IS NOT NULL;
END
$fn$;
REVOKE ALL ON FUNCTION ats_parse_page_submit(bigint, bigint, integer, integer, integer, integer, double precision, double precision, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ats_parse_page_submit(bigint, bigint, integer, integer, integer, integer, double precision, double precision, bytea) TO ":role";

-- All pages are in: defer the trusted step (worker-default) that checks, encodes and
-- stores them. Its lock is the document's, like intake.apply_parse_result's, so it runs
-- after the report (submitted before rendering) has been applied.
CREATE OR REPLACE FUNCTION ats_parse_pages_done(
    p_job_id bigint,
    p_attachment_id bigint,
    p_attempt_no integer
) RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $fn$
BEGIN
    PERFORM 1 FROM public.procrastinate_jobs j
      JOIN public.procrastinate_workers w ON w.id = j.worker_id
     WHERE j.id = p_job_id AND j.queue_name = 'parse' AND j.status = 'doing'
       AND j.task_name = 'intake.parse_attachment'
       AND (j.args->>'attachment_id')::bigint = p_attachment_id
       AND (j.args->>'attempt_no')::integer = p_attempt_no
       AND w.ats_owner = session_user
       AND w.ats_client_addr IS NOT DISTINCT FROM inet_client_addr();
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ats_parse_pages_done: job % is not the running parse job of attachment % attempt %',
            p_job_id, p_attachment_id, p_attempt_no USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM public.procrastinate_defer_jobs_v1(ARRAY[ROW(
        'ingest', 'intake.store_page_images', :store_priority, 'attachment:' || p_attachment_id, NULL,
        jsonb_build_object('attachment_id', p_attachment_id, 'attempt_no', p_attempt_no, 'v', 1), NULL
    )::public.procrastinate_job_to_defer_v1]);
    RETURN true;
END
$fn$;
REVOKE ALL ON FUNCTION ats_parse_pages_done(bigint, bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ats_parse_pages_done(bigint, bigint, integer) TO ":role";
