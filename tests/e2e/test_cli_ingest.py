"""The whole chain through real processes: `ats ingest --wait --json` -> worker-default
(ingest: checksum, magic bytes, clamd) -> worker-untrusted (sandboxed parse, as the
least-privilege role) -> worker-default (apply result, candidate).

The module's tests share one pair of workers (tests/shared_stack.py): none stops, kills
or reconfigures them. `ingest --wait` always runs as a real process (what these tests
prove); of the follow-up commands one `intake-verify` and one `reparse` still do (their
exit code and output are the contract), the rest run in-process (run_ats_in_process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ats.intake import api as intake_api
from tests import corpus
from tests.candidates.helpers import VIEWER
from tests.conftest import run_ats_in_process
from tests.shared_stack import module_stack_fixtures

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

_module_stack, stack = module_stack_fixtures()


def _ingest(ats_cli: Any, *paths: Path) -> list[dict[str, Any]]:
    res = ats_cli("ingest", "--wait", "--json", "--timeout", "90", *map(str, paths), timeout=150)
    assert res.returncode == 0, res.stderr + res.stdout
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_pdf_and_docx_reach_a_candidate(stack: Any, ats_cli: Any, tmp_path: Path) -> None:
    pdf, docx = tmp_path / "jane.pdf", tmp_path / "john.docx"
    pdf.write_bytes(corpus.text_pdf())
    docx.write_bytes(corpus.docx_with_tables())
    rows = _ingest(ats_cli, pdf, docx)
    assert [r["state"] for r in rows] == ["candidate_created", "candidate_created"], rows
    for r in rows:
        assert r["terminal"] is True and r["candidate_id"] and r["raw_intake_id"]
        assert set(r) >= {"path", "raw_intake_id", "state", "terminal", "reason", "candidate_id"}
    from ats.candidates.api import Candidate, candidate_current_id, candidate_detail

    texts = {c.pk: c.document_text for c in Candidate.objects.all()}
    assert any("Jane" in t or "JANE" in t.upper() for t in texts.values())
    for r in rows:
        # Both documents may be one person's: dedupe may have merged one candidate away.
        detail = candidate_detail(candidate_current_id(r["candidate_id"]), actor=VIEWER)
        assert detail is not None and r["attachment_id"] in detail["documents"]
        assert detail["name"] and {p["attachment_id"] for p in detail["provenance"]["name"]} <= set(detail["documents"])
    verify = ats_cli("intake-verify", "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["lost"] == 0


def test_scanned_cv_is_read_by_ocr(stack: Any, ats_cli: Any, tmp_path: Path) -> None:
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(corpus.scanned_pdf())
    [row] = _ingest(ats_cli, scan)
    assert row["state"] == "candidate_created", row
    attempt = intake_api.Attachment.objects.get(pk=row["attachment_id"]).parse_attempts.get()
    assert attempt.result.get("ocr_used") is True
    assert "@" in attempt.text  # the e-mail address on the scanned page was recognised


@pytest.mark.parametrize(
    ("maker", "code"),
    [
        (corpus.encrypted_pdf, "encrypted"),
        (corpus.truncated_pdf, "corrupt"),
        (corpus.zip_bomb_docx, "decompression_bomb"),
        (corpus.billion_laughs_docx, "xml_bomb"),
    ],
    ids=["encrypted", "truncated", "zip-bomb", "billion-laughs"],
)
def test_hostile_or_broken_documents_fail_with_their_typed_reason(
    stack: Any, ats_cli: Any, tmp_path: Path, maker: Any, code: str
) -> None:
    path = tmp_path / "cv.bin"
    path.write_bytes(maker())
    [row] = _ingest(ats_cli, path)
    assert row["state"] in {"parse_failed", "rejected_unsupported_type", "blocked_malware"}, row
    att = intake_api.Attachment.objects.get(pk=row["attachment_id"])
    if row["state"] == "parse_failed":
        assert att.reason_code == code and att.reason
        attempt = att.parse_attempts.get()
        assert attempt.state == "failed" and attempt.error_code == code
    verify = run_ats_in_process("intake-verify", "--json")
    assert verify.returncode == 0, verify.stdout
    assert stack["untrusted"].proc.poll() is None  # the worker never dies from a document


def test_deterministic_failure_is_not_retried_and_can_be_reparsed(stack: Any, ats_cli: Any, tmp_path: Path) -> None:
    """ADR R3: an encrypted PDF fails on its first attempt (no 3 x 90 s); a recruiter's
    re-parse is a new attempt number with its own typed outcome."""
    from django.db import connection

    path = tmp_path / "locked.pdf"
    path.write_bytes(corpus.encrypted_pdf())
    [row] = _ingest(ats_cli, path)
    att_id = row["attachment_id"]
    assert row["state"] == "parse_failed"

    def parse_jobs() -> list[tuple[str, int]]:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT status::text, attempts FROM procrastinate_jobs WHERE task_name = 'intake.parse_attachment'"
                " AND args->>'attachment_id' = %s",
                [str(att_id)],
            )
            return list(cur.fetchall())

    from tests.jobs.helpers import wait_for

    # The report (and so the state) is committed inside the parse job, just before it ends.
    wait_for(lambda: parse_jobs()[0][0] != "doing", 10, "the parse job to finish")
    assert parse_jobs() == [("failed", 1)]
    attempt = intake_api.Attachment.objects.get(pk=att_id).parse_attempts.get(attempt_no=1)
    assert len(attempt.policy_hash) == 64  # the sandbox policy set that judged it
    res = ats_cli("reparse", str(att_id))
    assert res.returncode == 0 and "attempt 2" in res.stdout

    wait_for(
        lambda: (
            intake_api.Attachment.objects.get(pk=att_id).parse_attempts.filter(attempt_no=2, state="failed").exists()
        ),
        60,
        "second attempt",
    )
    att = intake_api.Attachment.objects.get(pk=att_id)
    assert att.state == "parse_failed" and att.reason_code == "encrypted"
    assert run_ats_in_process("reparse", str(att_id) + "999").returncode != 0  # unknown document: a clear error
