"""Issue 21 N5, run as the parse role itself: the role moves parse jobs only through
procrastinate's worker protocol, and reports only on a job the database saw it fetch.

Before the fix the role could mark any waiting job `doing` under a worker row it had
registered itself (picking a document, holding its parse lock) and ats_parse_submit()
accepted a report for it; it could reopen finished parse jobs, mark waiting ones
`succeeded` without a report, and reschedule them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

from ats.config.env import with_user
from tests.parse_role.helpers import fetch_as_role, parse_job_for_new_document

pytestmark = pytest.mark.django_db(transaction=True)

SUBMIT = "SELECT ats_parse_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"


@pytest.fixture
def parse_role() -> Iterator[psycopg.Connection[Any]]:
    s = connection.settings_dict
    url = with_user(f"postgresql://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}", "ats_parse")
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("ats_parse",)
        yield conn


@pytest.fixture
def worker(parse_role: psycopg.Connection[Any]) -> Iterator[int]:
    wid = int(parse_role.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0])
    yield wid
    parse_role.execute("SELECT procrastinate_unregister_worker_v1(%s)", [wid])


def _refused(conn: psycopg.Connection[Any], sql: str, params: Any = None) -> bool:
    """True when the statement was refused: no privilege (the guard, RLS WITH CHECK),
    procrastinate's own "job not found" (RLS hid the row from it), or no row changed."""
    try:
        cur = conn.execute(sql, params)
    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.RaiseException):
        return True
    return cur.rowcount == 0


def _report(parse_job: int, att: int) -> list[Any]:
    return [parse_job, att, 1, True, None, "", "text", 1, json.dumps({"schema": 3, "pages": 1}), "ab" * 32]


def _submits(conn: psycopg.Connection[Any], args: list[Any]) -> bool:
    try:
        conn.execute(SUBMIT, args)
    except psycopg.errors.InsufficientPrivilege:
        return False
    return True


def _as_owner(sql: str, params: list[Any]) -> None:
    with connection.cursor() as cur:
        cur.execute(sql, params)


def _state(job_id: int) -> tuple[Any, ...]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status::text, worker_id, lock, priority, scheduled_at, attempts FROM procrastinate_jobs"
            " WHERE id = %s",
            [job_id],
        )
        return tuple(cur.fetchone())


def test_a_job_marked_doing_by_hand_is_refused_and_cannot_be_reported(parse_role: Any, worker: int) -> None:
    att, parse_job = parse_job_for_new_document()
    before = _state(parse_job)
    hand = "UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = %s"
    assert _refused(parse_role, hand, [worker, parse_job])
    assert _state(parse_job) == before
    # Were the row in exactly that state anyway (here written by the owner, as the role
    # could before the fix), submit still refuses: the database recorded no fetch.
    _as_owner(hand, [worker, parse_job])
    assert not _submits(parse_role, _report(parse_job, att))
    # The real path: fetch_job_v2 picks the job (and the database records the fetch).
    _as_owner("UPDATE procrastinate_jobs SET status = 'todo', worker_id = NULL WHERE id = %s", [parse_job])
    assert fetch_as_role(parse_role, parse_job, worker)
    with connection.cursor() as cur:
        cur.execute("SELECT worker_id, fetched_by FROM intake_parse_fetch WHERE job_id = %s", [parse_job])
        assert cur.fetchone() == (worker, "ats_parse")
    assert parse_role.execute(SUBMIT, _report(parse_job, att)).fetchone() == (True,)
    parse_role.execute("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [parse_job])
    assert _state(parse_job)[0] == "succeeded"


def test_the_fetch_record_cannot_be_written_or_spoofed_by_the_role(parse_role: Any, worker: int) -> None:
    att, parse_job = parse_job_for_new_document()
    assert _refused(
        parse_role,
        "INSERT INTO intake_parse_fetch (job_id, worker_id, attempts, fetched_by, fetched_at)"
        " VALUES (%s, %s, 0, 'ats_parse', now())",
        [parse_job, worker],
    )
    # procrastinate's fetch called from a DO block, and a hand UPDATE whose text names the
    # fetch function: the outermost frame is not procrastinate_fetch_job_v2 itself.
    spoofs = [
        f"DO $$ BEGIN PERFORM procrastinate_fetch_job_v2(ARRAY['parse']::varchar[], {worker}); END $$",
        "DO $d$ BEGIN EXECUTE 'UPDATE procrastinate_jobs SET status = ''doing'', worker_id = "
        f"{worker} WHERE id = {parse_job} /*\nPL/pgSQL function procrastinate_fetch_job_v2"
        "(character varying[],bigint) line 4 at SQL statement*/'; END $d$",
    ]
    for sql in spoofs:
        assert _refused(parse_role, sql), sql
    assert _state(parse_job)[0] == "todo"
    assert not _submits(parse_role, _report(parse_job, att))


def test_waiting_jobs_cannot_be_finished_rescheduled_or_relocked(parse_role: Any, worker: int) -> None:
    _, parse_job = parse_job_for_new_document()
    before = _state(parse_job)
    attempts = {
        "finish as succeeded": ("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [parse_job]),
        "finish as failed": ("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [parse_job]),
        "status succeeded": ("UPDATE procrastinate_jobs SET status = 'succeeded' WHERE id = %s", [parse_job]),
        "status cancelled": ("UPDATE procrastinate_jobs SET status = 'cancelled' WHERE id = %s", [parse_job]),
        "schedule later": (
            "UPDATE procrastinate_jobs SET scheduled_at = now() + interval '20 hours' WHERE id = %s",
            [parse_job],
        ),
        "drop the lock": ("UPDATE procrastinate_jobs SET lock = NULL WHERE id = %s", [parse_job]),
    }
    accepted = [name for name, (sql, params) in attempts.items() if not _refused(parse_role, sql, params)]
    assert accepted == [] and _state(parse_job) == before, (accepted, _state(parse_job))


def test_a_fetched_job_succeeds_only_with_its_report_and_stays_on_its_worker(parse_role: Any, worker: int) -> None:
    att, parse_job = parse_job_for_new_document()
    assert fetch_as_role(parse_role, parse_job, worker)
    held = _state(parse_job)
    other = int(parse_role.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0])
    for sql, params in (
        ("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [parse_job]),
        ("SELECT procrastinate_finish_job_v1(%s, 'aborted', false)", [parse_job]),  # no abort was requested
        ("UPDATE procrastinate_jobs SET worker_id = %s WHERE id = %s", [other, parse_job]),
        ("UPDATE procrastinate_jobs SET lock = NULL WHERE id = %s", [parse_job]),
        ("UPDATE procrastinate_jobs SET status = 'todo' WHERE id = %s", [parse_job]),
    ):
        assert _refused(parse_role, sql, params), sql
    assert _state(parse_job) == held
    assert parse_role.execute(SUBMIT, _report(parse_job, att)).fetchone() == (True,)
    parse_role.execute("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [parse_job])
    assert _state(parse_job)[0] == "succeeded"
    parse_role.execute("SELECT procrastinate_unregister_worker_v1(%s)", [other])


def test_the_roles_finish_records_its_runs_success(parse_role: Any, worker: int) -> None:
    """Issue 26: the parse worker sends no success record of its own; its finish closes the
    run (jobs migration 0005, a SECURITY DEFINER trigger: the role has no grant on
    jobs_attempt). The start it still writes through ats_jobs_attempt_v1."""
    att, parse_job = parse_job_for_new_document()
    assert fetch_as_role(parse_role, parse_job, worker)
    assert _refused(parse_role, "UPDATE jobs_attempt SET status = 'succeeded' WHERE job_id = %s", [parse_job])
    parse_role.execute("SELECT ats_jobs_attempt_v1(%s, %s, 1, 'start', 'parse-w', '', '')", [parse_job, worker])
    assert parse_role.execute(SUBMIT, _report(parse_job, att)).fetchone() == (True,)
    parse_role.execute("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [parse_job])
    with connection.cursor() as cur:
        cur.execute("SELECT worker, status, ended_at IS NOT NULL FROM jobs_attempt WHERE job_id = %s", [parse_job])
        assert cur.fetchall() == [("parse-w", "succeeded", True)]


@pytest.mark.parametrize("finished", ["succeeded", "failed", "cancelled", "aborted"])
def test_finished_parse_jobs_are_read_only(parse_role: Any, worker: int, finished: str) -> None:
    _, parse_job = parse_job_for_new_document()
    # Finished on a worker row that is gone (pruned): worker_id NULL, the case the old
    # policy let through.
    _as_owner("UPDATE procrastinate_jobs SET status = %s, worker_id = NULL WHERE id = %s", [finished, parse_job])
    before = _state(parse_job)
    for sql, params in (
        ("UPDATE procrastinate_jobs SET status = 'todo' WHERE id = %s", [parse_job]),
        ("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = %s", [worker, parse_job]),
        ("SELECT procrastinate_retry_job_v2(%s, now(), NULL, NULL, NULL)", [parse_job]),
        ("UPDATE procrastinate_jobs SET scheduled_at = now() WHERE id = %s", [parse_job]),
    ):
        assert _refused(parse_role, sql, params), sql
    assert _state(parse_job) == before


def test_a_parse_job_that_succeeded_without_a_report_ends_the_document_typed() -> None:
    """The maintenance sweep (intake.verify_documents) notices a parse job `succeeded`
    with no report: the document ends parse_failed / report_missing (re-parse offered),
    never stuck in `promoted`. The role itself can no longer finish so (above); the owner
    writes the state here, as a row from before the guard would be."""
    from ats.intake import tasks as intake_tasks
    from ats.intake.models import Attachment, ParseAttempt

    stuck_att, stuck_job = parse_job_for_new_document()
    # Control: succeeded and reported (the report waits for the trusted apply).
    ok_att, ok_job = parse_job_for_new_document()
    _as_owner(
        "INSERT INTO intake_parse_result (attachment_id, attempt_no, job_id, ok, code, detail, text, result,"
        " policy_hash, received_at) VALUES (%s, 1, %s, true, '', '', 'x', '{}', '', now())",
        [ok_att, ok_job],
    )
    _as_owner("UPDATE procrastinate_jobs SET status = 'succeeded' WHERE id = ANY(%s)", [[stuck_job, ok_job]])
    intake_tasks.verify_documents(timestamp=0, payload_version=1)
    att = Attachment.objects.get(pk=stuck_att)
    assert (att.state, att.reason_code) == ("parse_failed", "report_missing"), (att.state, att.reason_code)
    assert "Re-parse" in att.reason
    attempt = ParseAttempt.objects.get(attachment_id=stuck_att, attempt_no=1)
    assert (attempt.state, attempt.error_code) == ("failed", "report_missing")
    assert Attachment.objects.get(pk=ok_att).state == "promoted"  # its report will be applied
    assert ParseAttempt.objects.get(attachment_id=ok_att, attempt_no=1).state == "pending"
    # Idempotent; and a re-parse reads the document again.
    from ats.intake import services as intake_services

    assert intake_services.parse_jobs_settle_unreported() == []
    assert intake_services.attachment_reparse(attachment_id=stuck_att).attempt_no == 2


@pytest.mark.parametrize(
    "fetch",
    [
        # the workers' fetch since jobs migration 0007, and the previous release's
        "SELECT (f.job).id FROM ats_jobs_fetch_v2(ARRAY['parse']::varchar[], ARRAY[2], ARRAY[]::varchar[], %s) AS f",
        "SELECT id FROM ats_jobs_fetch_v1(ARRAY['parse']::varchar[], ARRAY[2], ARRAY[]::varchar[], %s)",
    ],
    ids=["v2", "v1"],
)
def test_the_capped_fetches_start_a_parse_job_and_a_wrapped_call_does_not(
    parse_role: Any, worker: int, fetch: str
) -> None:
    """The guard names each capped copy of procrastinate's fetch it admits: called directly
    it starts the queue's head (and the fetch is recorded); called from a DO block - the
    outermost frame not the fetch itself - it is refused, as procrastinate's own is."""
    att, parse_job = parse_job_for_new_document()
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE procrastinate_jobs SET status = 'cancelled' WHERE queue_name = 'parse' AND status = 'todo'"
            " AND id <> %s",
            [parse_job],
        )
    wrapped = "DO $$ BEGIN PERFORM 1 FROM (" + fetch.replace("%s", str(worker)) + ") AS x; END $$"
    assert _refused(parse_role, wrapped)
    assert _state(parse_job)[0] == "todo"
    assert parse_role.execute(fetch, [worker]).fetchone() == (parse_job,)
    with connection.cursor() as cur:
        cur.execute("SELECT worker_id, fetched_by FROM intake_parse_fetch WHERE job_id = %s", [parse_job])
        assert cur.fetchone() == (worker, "ats_parse")
    assert parse_role.execute(SUBMIT, _report(parse_job, att)).fetchone() == (True,)
