from __future__ import annotations

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
            cur.execute(
                "UPDATE intake_attachment SET state = 'promoted', detected_type = %s WHERE id = %s", [kind, att.pk]
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
