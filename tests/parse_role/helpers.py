from __future__ import annotations

import copy
from typing import Any

from django.db import connection, transaction

from ats.intake import api as intake_api


def parse_job_for_new_document(data: bytes = b"%PDF-1.7", kind: str = "pdf") -> tuple[int, int]:
    """A promoted document with its hand-off row and parse job (queued, not yet run)."""
    with transaction.atomic():
        raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile(f"cv.{kind}", data)])
        att = intake_api.raw_intake_attachments(raw.pk)[0]
        with connection.cursor() as cur:
            cur.execute("DELETE FROM procrastinate_jobs WHERE args->>'attachment_id' = %s", [str(att.pk)])
            # The move to `promoted` numbers the next parse attempt (services._next_parse_attempt).
            cur.execute(
                "UPDATE intake_attachment SET state = 'promoted', detected_type = %s,"
                " parse_attempts_requested = parse_attempts_requested + 1 WHERE id = %s",
                [kind, att.pk],
            )
        from ats.intake.models import Attachment
        from ats.intake.services import _handoff_to_parse

        _handoff_to_parse(Attachment.objects.get(pk=att.pk), data)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM procrastinate_jobs WHERE task_name = 'intake.parse_attachment'"
            " AND args->>'attachment_id' = %s",
            [str(att.pk)],
        )
        return att.pk, cur.fetchone()[0]


def stored_parse_result(report: dict[str, Any], data: bytes, kind: str = "pdf") -> tuple[int, int]:
    """A new document whose parse job already reported `report` (the ats_parse_submit()
    arguments): the job is gone - no untrusted worker here - and the report row waits for
    intake.apply_parse_result. Returns (attachment id, report row id)."""
    from django.utils import timezone

    from ats.intake.models import ParseResult

    att, parse_job = parse_job_for_new_document(data, kind)
    with connection.cursor() as cur:
        cur.execute("DELETE FROM procrastinate_jobs WHERE id = %s", [parse_job])
    row = ParseResult.objects.create(
        attachment_id=att, attempt_no=1, job_id=parse_job, received_at=timezone.now(), **copy.deepcopy(report)
    )
    return att, row.pk


def fetch_as_role(conn: Any, parse_job: int, worker_id: int | None = None) -> int:
    """Take `parse_job` the only way the parse role may: procrastinate_fetch_job_v2 under a
    worker row it registered (a hand-written `doing` is refused, issue 21 N5). Other waiting
    parse jobs (earlier tests') are cancelled first by the owner: fetch takes the queue's
    head. Returns the worker id."""
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE procrastinate_jobs SET status = 'cancelled' WHERE queue_name = 'parse' AND status = 'todo'"
            " AND id <> %s",
            [parse_job],
        )
    if worker_id is None:
        worker_id = int(conn.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0])
    row = conn.execute("SELECT id FROM procrastinate_fetch_job_v2(ARRAY['parse']::varchar[], %s)", [worker_id])
    assert row.fetchone() == (parse_job,)
    return worker_id
