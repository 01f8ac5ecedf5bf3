"""Documents in chosen states, made through the real services (no worker needed).

Each step runs the service the worker would run, in-process, and marks the job the
worker would have taken as done, so the lost-document detector stays truthful.
"""

from __future__ import annotations

import itertools
import zlib
from typing import Any

from django.db import connection, transaction

from ats.intake import api as intake_api
from ats.intake import services
from tests.scanning.samples import EICAR

INGEST, PARSE, CANDIDATE = "intake.ingest_attachment", "intake.parse_attachment", "candidates.create_from_attachment"


def settle_jobs(att_id: int, task: str) -> None:
    """Mark a document's waiting job of `task` done, as the worker that ran it would have."""
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE procrastinate_jobs SET status = 'succeeded' WHERE status = 'todo' AND task_name = %s"
            " AND args->>'attachment_id' = %s",
            [task, str(att_id)],
        )


_serial = itertools.count(1)


def unique_pdf(name: str = "Jane Doe") -> bytes:
    """A one-page text CV whose bytes differ from every other call (no duplicate links)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    n = next(_serial)
    # The name line is the name alone (a real extractor rejects digits in names); the e-mail
    # and phone make each call's bytes and contact details its own (no duplicate pairs).
    lines = [name, f"jane{n}@example.org", f"+44 20 7946 {n % 1000:04d}", "Python developer"]
    for i, line in enumerate(lines):
        page.insert_text((72, 72 + 20 * i), line, fontsize=14)
    return bytes(doc.tobytes())


def received(name: str = "cv.pdf", data: bytes | None = None, *, actor: Any = None) -> intake_api.Attachment:
    raw = intake_api.intake_receive(
        channel="upload" if actor else "cli",
        files=[intake_api.IncomingFile(name, unique_pdf() if data is None else data)],
        actor=actor,
    )
    return reload(intake_api.raw_intake_attachments(raw.pk)[0])  # the row: tests read its columns


def reload(att: Any) -> intake_api.Attachment:
    """The row, from a row or the facade's frozen `Document`."""
    return intake_api.Attachment.objects.get(pk=att.pk)


def ingested(name: str = "cv.pdf", data: bytes | None = None, **kw: Any) -> intake_api.Attachment:
    att = received(name, data, **kw)
    services.attachment_ingest(attachment_id=att.pk)
    settle_jobs(att.pk, INGEST)
    return reload(att)


def finish_ingest(att: intake_api.Attachment) -> intake_api.Attachment:
    """Run the waiting ingest job's work in-process (as the worker would) and settle it."""
    services.attachment_ingest(attachment_id=att.pk)
    settle_jobs(att.pk, INGEST)
    return reload(att)


def malware() -> intake_api.Attachment:
    return ingested("invoice.pdf", EICAR)


def scan_failed() -> intake_api.Attachment:
    att = received()
    with transaction.atomic():
        services.attachment_mark_scan_failed(attachment_id=att.pk, reason="clamd refused the connection")
    settle_jobs(att.pk, INGEST)
    return reload(att)


def parsed_ok(name: str = "cv.pdf") -> intake_api.Attachment:
    att = ingested(name)
    assert att.state == "promoted", att.state
    services.parse_attempt_record_success(
        attachment_id=att.pk,
        attempt_no=1,
        text="Jane Doe jane@example.org",
        page_count=1,
        result={"kind": "pdf"},
        policy_hash="a" * 64,
    )
    settle_jobs(att.pk, PARSE)
    return reload(att)


def parse_failed(name: str = "locked.pdf", code: str = "encrypted") -> intake_api.Attachment:
    att = ingested(name)
    services.parse_attempt_record_failure(
        attachment_id=att.pk, attempt_no=1, code=code, reason=services.parse_reason(code)
    )
    settle_jobs(att.pk, PARSE)
    return reload(att)


def candidate_failed() -> intake_api.Attachment:
    att = parsed_ok()
    with transaction.atomic():
        services.attachment_mark_candidate_failed(attachment_id=att.pk, code="error", reason="database hiccup")
    settle_jobs(att.pk, CANDIDATE)
    return reload(att)


def jobs_for(att_id: int, task: str) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status::text FROM procrastinate_jobs WHERE task_name = %s AND args->>'attachment_id' = %s"
            " ORDER BY id",
            [task, str(att_id)],
        )
        return [r[0] for r in cur.fetchall()]


def audit_actions(att_id: int) -> list[tuple[str, str]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT action, actor FROM audit_event WHERE object_type = 'attachment' AND object_id = %s ORDER BY id",
            [str(att_id)],
        )
        return [(a, b) for a, b in cur.fetchall()]


def candidate_from(att: intake_api.Attachment, *, attempt: int = 1, **fields: Any) -> int:
    """What the candidate task does for a parsed document, with chosen extracted fields
    (tests.candidates.helpers.extraction): apply the extraction, mark the document."""
    from ats.candidates import api as candidates_api
    from tests.candidates.helpers import extraction

    with transaction.atomic():
        cand = candidates_api.candidate_apply_document(
            attachment_id=att.pk, parse_attempt=attempt, extraction=extraction(**fields)
        )
        assert cand is not None
        services.attachment_mark_candidate_created(attachment_id=att.pk, candidate_id=cand.id)
    settle_jobs(att.pk, CANDIDATE)
    return cand.id


def audit_candidate(candidate_id: int) -> list[tuple[str, str]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT action, actor FROM audit_event WHERE object_type = 'candidate' AND object_id = %s ORDER BY id",
            [str(candidate_id)],
        )
        return [(a, b) for a, b in cur.fetchall()]


def hand_off_page(
    att_id: int,
    *,
    page_no: int = 1,
    attempt_no: int = 1,
    size: tuple[int, int] = (600, 800),
    unit: tuple[float, float] = (595.0, 842.0),
    fill: bytes = b"\xee",
    data: bytes | None = None,
) -> None:
    """A page image as worker-untrusted hands it off: a grey page of `size` filled with
    `fill`, or `data` exactly as given (a forged or mismatched hand-off)."""
    from django.utils import timezone

    from ats.intake.models import PageImageHandoff

    width, height = size
    PageImageHandoff.objects.create(
        attachment_id=att_id,
        attempt_no=attempt_no,
        page_no=page_no,
        untrusted_width=width,
        untrusted_height=height,
        untrusted_unit_width=unit[0],
        untrusted_unit_height=unit[1],
        untrusted_data=zlib.compress(fill * (width * height)) if data is None else data,
        received_at=timezone.now(),
    )
