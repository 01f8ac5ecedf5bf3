from __future__ import annotations

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
