"""Issue 28 item 4, intake side: a file clamd could not scan completely (pikepdf's PDF/A:
Heuristics.Limits.Exceeded.MaxFileSize) ends `scan_incomplete` with plain words - not
`blocked_malware` - is counted as such in triage and metrics, is never parsed, and an
admin may release it after review or re-scan it with a raised-limits clamd."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from prometheus_client import REGISTRY

from ats.devtools.api import ClamdLocal
from ats.intake import api as intake_api
from ats.intake import services as intake_services
from tests.web import helpers

pytestmark = pytest.mark.django_db(transaction=True)

PDFA = Path(__file__).resolve().parents[1] / "scanning" / "data" / "pikepdf-pdfa-multipage.pdf"
ADMIN = "test:admin"  # an actor label, as intake actions record it


def _incomplete() -> intake_api.Attachment:
    return helpers.ingested("pdfa_multipage.pdf", PDFA.read_bytes())


def _scans(verdict: str) -> float:
    return REGISTRY.get_sample_value("ats_clamd_scans_total", {"verdict": verdict}) or 0.0


def _parse_ran(att: intake_api.Attachment) -> None:
    """What the parse worker would report (these tests are about the scan): a terminal
    outcome, so the lost-document detector stays truthful."""
    intake_services.parse_attempt_record_failure(attachment_id=att.pk, attempt_no=1, code="crashed", reason="test")
    helpers.settle_jobs(att.pk, helpers.PARSE)


def test_pdfa_over_the_scanner_limits_is_scan_incomplete_not_malware() -> None:
    before = _scans("incomplete")
    att = _incomplete()
    assert att.state == "scan_incomplete", (att.state, att.reason)
    assert att.virus_scan_status == "incomplete"
    assert att.scan_signature == "Heuristics.Limits.Exceeded.MaxFileSize"
    assert att.reason.startswith("Could not be scanned completely: a part of the file exceeds the scanner's limits")
    assert "not a malware finding" in att.reason and "Malware detected" not in att.reason
    info = intake_api.INFO[intake_api.State.SCAN_INCOMPLETE]
    assert "malware" not in info.label.lower() and info.kind is intake_api.Kind.TERMINAL_FAILED
    # Never parsed: still in quarantine, no parse job, no parse attempt.
    assert att.storage_container == intake_services.QUARANTINE
    assert helpers.jobs_for(att.pk, helpers.PARSE) == [] and intake_api.parse_attempts(att.pk) == []
    # Triage shows it among what needs attention, by its own state; metrics count it.
    rows, _ = intake_api.triage_rows(intake_api.TriageFilter(state="attention"))
    assert [r["state"] for r in rows if r["attachment_id"] == att.pk] == ["scan_incomplete"]
    assert intake_api.state_counts().get("scan_incomplete") == 1
    assert _scans("incomplete") == before + 1
    assert intake_api.lost_documents() == []
    assert set(intake_api.allowed_actions(att.state)) == {"release", "rescan_raised", "discard"}


def test_real_malware_keeps_blocked_malware() -> None:
    assert helpers.malware().state == "blocked_malware"


def test_admin_releases_after_review_then_it_is_parsed() -> None:
    att = _incomplete()
    with pytest.raises(intake_api.ActionRefused, match="reason is required"):
        intake_api.attachment_release_after_review(attachment_id=att.pk, reason=" ", actor=ADMIN)
    intake_api.attachment_release_after_review(
        attachment_id=att.pk, reason="reviewed: PDF/A with a large embedded stream", actor=ADMIN
    )
    att = helpers.reload(att)
    assert att.state == "promoted" and att.storage_container == intake_services.DOCUMENTS
    assert helpers.jobs_for(att.pk, helpers.PARSE) == ["todo"]
    assert ("intake.released_after_review", "test:admin") in helpers.audit_actions(att.pk)
    _parse_ran(att)


def test_rescan_needs_a_raised_limits_scanner() -> None:
    att = _incomplete()
    with pytest.raises(intake_api.ActionRefused, match="no scanner with raised limits is configured"):
        intake_api.attachment_rescan_raised_limits(attachment_id=att.pk, actor=ADMIN)
    assert helpers.reload(att).state == "scan_incomplete"


@pytest.fixture
def raised_clamd(tmp_path: Path) -> Iterator[ClamdLocal]:
    with ClamdLocal(state_dir=tmp_path / "raised", limits="raised") as daemon:
        old = (settings.ATS["CLAMD_RAISED_HOST"], settings.ATS["CLAMD_RAISED_PORT"])
        settings.ATS["CLAMD_RAISED_HOST"], settings.ATS["CLAMD_RAISED_PORT"] = "127.0.0.1", daemon.port
        try:
            yield daemon
        finally:
            settings.ATS["CLAMD_RAISED_HOST"], settings.ATS["CLAMD_RAISED_PORT"] = old


def test_rescan_with_raised_limits_clears_it(raised_clamd: Any) -> None:
    from ats.intake import services

    att = _incomplete()
    intake_api.attachment_rescan_raised_limits(attachment_id=att.pk, actor=ADMIN)
    att = helpers.reload(att)
    assert att.state == "received"
    # The ingest job the action deferred carries the raised-limits flag; run its work.
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "SELECT args FROM procrastinate_jobs WHERE task_name = %s AND status = 'todo'"
            " AND args->>'attachment_id' = %s",
            [helpers.INGEST, str(att.pk)],
        )
        [(args,)] = cur.fetchall()
    payload = json.loads(args) if isinstance(args, str) else args
    assert payload["raised_limits"] is True
    services.attachment_ingest(attachment_id=att.pk, raised_limits=True)
    helpers.settle_jobs(att.pk, helpers.INGEST)
    att = helpers.reload(att)
    assert att.state == "promoted" and att.virus_scan_status == "clean", (att.state, att.reason)
    assert ("intake.rescan_raised_limits", "test:admin") in helpers.audit_actions(att.pk)
    _parse_ran(att)
