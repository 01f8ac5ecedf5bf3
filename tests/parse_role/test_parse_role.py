"""The least-privilege role of worker-untrusted (services/worker-untrusted/policy/db-role.sql).

Each test connects as the role itself and tries something it must not be able to do;
the four traps found when the role was designed each get a test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection, transaction

from ats.config.env import with_user
from ats.jobs import api as jobs_api
from tests.jobs.helpers import defer, job, token, wait_for, wait_status
from tests.parse_role.helpers import fetch_as_role, parse_job_for_new_document
from tests.testapp.models import Marker

pytestmark = pytest.mark.django_db(transaction=True)


def _url() -> str:
    s = connection.settings_dict
    return with_user(f"postgresql://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}", "ats_parse")


@pytest.fixture
def parse_role() -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(_url(), autocommit=True) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("ats_parse",)
        yield conn


def _denied(conn: psycopg.Connection[Any], sql: str, params: Any = None) -> str:
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as err:
        conn.execute(sql, params)
    return str(err.value)


def test_cannot_read_domain_tables(parse_role: Any) -> None:
    for table in (
        "candidates_candidate",
        "candidates_field",
        "candidates_extraction",
        "candidate_duplicate_pair",
        "intake_attachment",
        "intake_raw_intake",
        "audit_event",
        "intake_parse_attempt",
        "auth_user",
        "intake_parse_result",
    ):
        _denied(parse_role, f"SELECT * FROM {table} LIMIT 1")


def test_can_read_the_hand_off(parse_role: Any) -> None:
    att, _ = parse_job_for_new_document()
    row = parse_role.execute("SELECT kind, data FROM intake_parse_handoff WHERE attachment_id = %s", [att]).fetchone()
    assert row == ("pdf", b"%PDF-1.7")
    _denied(parse_role, "DELETE FROM intake_parse_handoff")
    _denied(parse_role, "UPDATE intake_parse_handoff SET kind = 'docx'")


def test_cannot_enqueue_or_see_other_queues(parse_role: Any) -> None:
    with transaction.atomic():
        score_job = jobs_api.defer("candidates.create_from_attachment", payload={"attachment_id": -token()})
    _denied(parse_role, "INSERT INTO procrastinate_jobs (queue_name, task_name, args) VALUES ('score', 'x', '{}')")
    _denied(
        parse_role,
        "SELECT procrastinate_defer_jobs_v1(ARRAY[ROW('score','scoring.score_application',0,NULL,NULL,'{}'::jsonb,NULL)"
        "::procrastinate_job_to_defer_v1])",
    )
    visible = parse_role.execute("SELECT DISTINCT queue_name FROM procrastinate_jobs").fetchall()
    assert set(visible) <= {("parse",)}
    assert parse_role.execute("SELECT count(*) FROM procrastinate_jobs WHERE id = %s", [score_job]).fetchone() == (0,)
    # Updating it is a no-op: the row is invisible to the role.
    parse_role.execute("UPDATE procrastinate_jobs SET status = 'failed' WHERE id = %s", [score_job])
    assert job(score_job)["status"] == "todo"  # type: ignore[arg-type]


def test_cannot_move_a_parse_job_to_another_queue(parse_role: Any) -> None:
    _, parse_job = parse_job_for_new_document()
    own = fetch_as_role(parse_role, parse_job)
    # Refused by the row's identity check (issue 21 N5's guard) before RLS's WITH CHECK.
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match=r"row-level security|may not change its identity"):
        parse_role.execute("SELECT procrastinate_retry_job_v2(%s, now(), 0, 'score', NULL)", [parse_job])
    assert job(parse_job)["status"] == "doing"  # type: ignore[arg-type]
    parse_role.execute("SELECT procrastinate_unregister_worker_v1(%s)", [own])


def test_trap1_start_up_prune_spares_trusted_workers(parse_role: Any) -> None:
    with connection.cursor() as cur:  # a trusted worker whose heartbeat is old
        cur.execute(
            "INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '1 hour') RETURNING id"
        )
        trusted = cur.fetchone()[0]
    parse_role.execute("SELECT procrastinate_prune_stalled_workers_v1(1)")
    parse_role.execute("UPDATE procrastinate_workers SET last_heartbeat = now()")
    with connection.cursor() as cur:
        cur.execute(
            "SELECT last_heartbeat < now() - interval '59 minutes' FROM procrastinate_workers WHERE id = %s", [trusted]
        )
        assert cur.fetchone() == (True,)  # neither deleted nor kept alive by the role
    own = parse_role.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0]
    assert parse_role.execute("SELECT count(*) FROM procrastinate_workers").fetchone() == (1,)  # sees only its own
    parse_role.execute("SELECT procrastinate_unregister_worker_v1(%s)", [own])


@pytest.mark.slow
def test_trap2_forged_abort_notification_does_not_stop_trusted_work(parse_role: Any, start_worker: Any) -> None:
    """NOTIFY has no privilege check. Every task here is synchronous and none honours
    abort requests, so a forged abort changes nothing (docs/security/parse-role.md)."""
    start_worker("default", extra=["--queues=test"])
    tok = token()
    job_id = defer("tests.slow_marker", token=tok, seconds=2)
    wait_for(lambda: job(job_id)["status"] == "doing", 20, "job start")
    forged = json.dumps({"type": "abort_job_requested", "job_id": job_id})
    for channel in ("procrastinate_any_queue_v1", "procrastinate_queue_v1#test"):
        parse_role.execute(f"NOTIFY \"{channel}\", '{forged}'")  # the statement needs no privilege
    assert wait_status(job_id, {"succeeded", "failed", "aborted"})["status"] == "succeeded"
    assert Marker.objects.get(token=tok).state == "done"


def test_trap3_no_temporary_objects_to_hijack_the_definer_function(parse_role: Any) -> None:
    _denied(parse_role, "CREATE TEMP TABLE intake_parse_result (id int)")
    config = parse_role.execute("SELECT proconfig FROM pg_proc WHERE proname = 'ats_parse_submit'").fetchone()[0]
    assert config == ["search_path=pg_catalog, public, pg_temp"]  # pg_temp searched last


def test_trap4_public_execute_is_revoked(parse_role: Any) -> None:
    _denied(parse_role, "SELECT procrastinate_cancel_job_v1(1, true, false)")
    _denied(parse_role, "SELECT audit_event_append_only()")
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'public' AND has_function_privilege('public', p.oid, 'EXECUTE')"
        )
        assert cur.fetchone() == (0,)


def test_trap4_a_function_created_after_the_role_sql_is_not_public(parse_role: Any) -> None:
    """PostgreSQL grants EXECUTE to PUBLIC on every new function unless the *global* default
    is revoked; `IN SCHEMA public` alone does not remove it. A function a later migration
    creates must not be callable by the parse role."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("CREATE FUNCTION public.ats_trap4_probe() RETURNS int LANGUAGE sql AS 'SELECT 1'")
        cur.execute("SELECT has_function_privilege('public', 'public.ats_trap4_probe()', 'EXECUTE')")
        assert cur.fetchone() == (False,)
        transaction.set_rollback(True)


def test_submit_accepts_only_the_running_job_and_validates(parse_role: Any) -> None:
    att, parse_job = parse_job_for_new_document()
    args = [parse_job, att, 1, True, None, "", "Jane Doe", 1, json.dumps({"schema": 2, "pages": 1}), "ab" * 32]
    sql = "SELECT ats_parse_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"
    _denied(parse_role, sql, args)  # the job is not `doing`: no report yet
    # This worker fetched it through procrastinate_fetch_job_v2.
    own = fetch_as_role(parse_role, parse_job)
    _denied(parse_role, sql, [parse_job, att + 1, *args[2:]])  # another document
    for bad in ([True, "corrupt"], [False, None], [False, "Not A Code!"]):
        with pytest.raises(psycopg.errors.CheckViolation):
            parse_role.execute(sql, [*args[:3], *bad, *args[5:]])
    with pytest.raises(psycopg.errors.CheckViolation):
        parse_role.execute(sql, [*args[:8], json.dumps([1, 2]), args[9]])  # result must be an object
    for schema in (None, 1, 4, "2"):  # a successful answer names a schema the trusted side knows
        with pytest.raises(psycopg.errors.CheckViolation):
            parse_role.execute(sql, [*args[:8], json.dumps({"schema": schema, "pages": 1}), args[9]])
    # Schema 2 answers are still accepted for one release after the bump to 3 (real schema 3
    # answers go through this function in every pipeline test).
    args[8] = json.dumps({"schema": 2, "pages": 1})
    assert parse_role.execute(sql, args).fetchone() == (True,)
    assert parse_role.execute(sql, args).fetchone() == (False,)  # idempotent: reported once
    with connection.cursor() as cur:
        cur.execute(
            "SELECT queue_name, priority FROM procrastinate_jobs WHERE task_name = 'intake.apply_parse_result'"
            " AND args->>'parse_result_id' IS NOT NULL ORDER BY id DESC LIMIT 1"
        )
        queue, priority = cur.fetchone()
    apply_policy = jobs_api.policy_for("intake.apply_parse_result")
    assert (queue, priority) == (apply_policy.queue, apply_policy.priority)  # SQL agrees with the table
    parse_role.execute("SELECT procrastinate_unregister_worker_v1(%s)", [own])


def test_policy_file_is_readable_data() -> None:
    from pathlib import Path

    sql = (Path(__file__).resolve().parents[2] / "services/worker-untrusted/policy/db-role.sql").read_text()
    assert "REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC" in sql
    assert "REVOKE TEMPORARY ON DATABASE" in sql
    assert "SECURITY DEFINER" in sql and "SET search_path = pg_catalog, public, pg_temp" in sql
    assert "GRANT INSERT ON procrastinate_jobs" not in sql and "GRANT DELETE ON procrastinate_jobs" not in sql
