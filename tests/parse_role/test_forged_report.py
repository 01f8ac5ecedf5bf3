"""The security review's forged-report probe (issue 21, "Done when"), on a real stack.

Holding the `ats_parse` role - what an escaped child or a compromised worker-untrusted
pod has - fetch a parse job through procrastinate_fetch_job_v2 and submit through
ats_parse_submit() the review's report: page_count 999 for a PDF (limit 20), an unknown
top-level key, a warning with U+202E and BEL, `sandbox.layers: []`, an all-zero policy
hash and a stranger's CV text. The SQL accepts it (its checks are sizes and shapes);
the real worker-default must refuse it: `parse_failed` / `report_rejected`, no candidate
field changed, not even as a proposed change. No untrusted worker runs while we hold the
job (docs: shared/notes measured facts, "the parse role can fetch and submit for itself").
The image part of the probe (a 20000x20000 image) lives with the image hand-off.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

from ats.candidates import api as candidates_api
from ats.candidates.models import ExtractionRecord, ProposedChange
from ats.config.env import with_user
from ats.intake import api as intake_api
from ats.intake.models import Attachment, ParseAttempt
from tests import corpus
from tests.candidates.helpers import VIEWER
from tests.jobs.helpers import wait_for
from tests.parse_role.helpers import parse_job_for_new_document

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SUBMIT = "SELECT ats_parse_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"
STRANGER = "Mallory Stranger\nmallory.stranger@example.net\n+44 20 7946 0999\n\nExperience\nSenior Engineer 2015-2024"
FIELDS = ("name", "emails", "phones", "location", "skills", "links", "years_experience", "extraction_version")


@pytest.fixture
def parse_role() -> Iterator[psycopg.Connection[Any]]:
    s = connection.settings_dict
    url = with_user(f"postgresql://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}", "ats_parse")
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("ats_parse",)
        yield conn


def forged_report() -> dict[str, Any]:
    block = {"page": 0, "bbox": [72.0, 72.0, 300.0, 90.0], "text": STRANGER, "lines": []}
    return {
        "schema": 3,
        "kind": "pdf",
        "text": STRANGER,
        "pages": 999,
        "blocks": [block],
        "ocr_used": False,
        "ocr_pages": 0,
        "thumbnail_png_b64": None,
        "warnings": ["pdf_repaired: \u202eexe.vc\x07"],
        "bbox_unit": "pt",
        "elements": [],
        "exfiltrated": {"note": "an unknown top-level key"},
        "sandbox": {
            "ok": True,
            "failure": None,
            "detail": "",
            "sandbox": "forkserver",
            "layers": [],
            "skipped_layers": [],
            "policy_hash": "0" * 64,
            "wall_ms": 1.0,
            "cpu_ms": 1.0,
            "max_rss_kb": 1,
            "zygote_restarts": 0,
        },
    }


def fetch_and_forge(conn: psycopg.Connection[Any], attachment_id: int, attempt_no: int) -> bool:
    """As the parse role: register, fetch this document's parse job, submit, finish."""
    worker = conn.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0]
    try:
        for _ in range(100):  # other tests' leftover parse jobs may come first
            row = conn.execute(
                "SELECT id, args FROM procrastinate_fetch_job_v2(ARRAY['parse'], %s)", [worker]
            ).fetchone()
            assert row is not None and row[0] is not None, "the parse job was not fetched"
            job_id, args = row
            if args.get("attachment_id") == attachment_id and args.get("attempt_no") == attempt_no:
                break
        else:
            raise AssertionError("the parse job was not fetched")
        report = forged_report()
        with conn.transaction():
            accepted = conn.execute(
                SUBMIT,
                [job_id, attachment_id, attempt_no, True, None, "", STRANGER, 999, json.dumps(report), "0" * 64],
            ).fetchone()[0]
        conn.execute("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [job_id])
        return bool(accepted)
    finally:
        conn.execute("SELECT procrastinate_unregister_worker_v1(%s)", [worker])


def _candidate_state(candidate_id: int) -> dict[str, Any]:
    d = candidates_api.candidate_detail(candidate_id, actor=VIEWER)
    assert d is not None
    row = candidates_api.Candidate.objects.get(pk=candidate_id)
    return {
        "row": (row.display_name, row.email, row.document_text, row.revision, row.status),
        **{f: d[f] for f in FIELDS},
        "proposed_changes": d["proposed_changes"],
        "proposed_rows": ProposedChange.objects.filter(candidate_id=candidate_id).count(),
        "extractions": ExtractionRecord.objects.filter(attachment_id__in=d["documents"]).count(),
    }


def _rejected(att_id: int, attempt_no: int) -> Attachment:
    def done() -> Attachment | None:
        att = Attachment.objects.get(pk=att_id)
        return att if att.state == "parse_failed" else None

    att = wait_for(done, 60, "worker-default to end the forged attempt")
    attempt = ParseAttempt.objects.get(attachment_id=att_id, attempt_no=attempt_no)
    assert (att.reason_code, attempt.state, attempt.error_code) == ("report_rejected", "failed", "report_rejected")
    assert att.reason.startswith("The parser's report failed a safety check (") and "administrator" in att.reason
    assert STRANGER not in attempt.text and attempt.result == {} and attempt.page_count is None
    return att


def test_forged_reparse_report_changes_no_candidate_field(
    start_worker: Any, parse_role: psycopg.Connection[Any]
) -> None:
    """The review's case: the stranger's e-mail became the candidate's. Now nothing changes."""
    start_worker("default")
    untrusted = start_worker("untrusted")
    raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile("cv.pdf", corpus.text_pdf())])
    att_id = intake_api.raw_intake_attachments(raw.pk)[0].pk
    att = wait_for(
        lambda: (a := Attachment.objects.get(pk=att_id)).state == "candidate_created" and a, 90, "the real parse"
    )
    candidate_id = att.candidate_id
    assert candidate_id is not None
    # The real untrusted worker is gone: this test holds the parse role instead.
    untrusted.stop()
    before = _candidate_state(candidate_id)
    assert corpus.CANDIDATE_EMAIL in before["emails"]

    attempt = intake_api.attachment_reparse(attachment_id=att_id)
    assert fetch_and_forge(parse_role, att_id, attempt.attempt_no), "ats_parse_submit() refused the report"

    _rejected(att_id, attempt.attempt_no)
    after = _candidate_state(candidate_id)
    assert after == before
    assert "mallory.stranger@example.net" not in json.dumps(after)
    assert not candidates_api.Candidate.objects.filter(email__icontains="mallory").exists()


def test_forged_first_report_makes_no_candidate(start_worker: Any, parse_role: psycopg.Connection[Any]) -> None:
    start_worker("default")
    att_id, _ = parse_job_for_new_document(corpus.text_pdf(), "pdf")
    assert fetch_and_forge(parse_role, att_id, 1)
    att = _rejected(att_id, 1)
    assert att.candidate_id is None
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'candidates.create_from_attachment'"
            " AND args->>'attachment_id' = %s",
            [str(att_id)],
        )
        assert cur.fetchone()[0] == 0
