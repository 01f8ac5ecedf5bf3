"""The document page's issue-28 actions over HTTP: create a candidate by hand for a
document without identity, detach a document, and the admin-only release of a file the
scanner could not check completely (recruiters are refused and nothing changes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ats.intake import services
from ats.pipeline import tasks as candidate_tasks
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db

PDFA = Path(__file__).resolve().parents[1] / "scanning" / "data" / "pikepdf-pdfa-multipage.pdf"


def _no_identity() -> Any:
    att = helpers.ingested("cert.pdf")
    services.parse_attempt_record_success(
        attachment_id=att.pk,
        attempt_no=1,
        text="Certificate of completion",
        page_count=1,
        result={},
        policy_hash="a" * 64,
    )
    helpers.settle_jobs(att.pk, helpers.PARSE)
    candidate_tasks.create_from_attachment(attachment_id=att.pk, payload_version=1)
    helpers.settle_jobs(att.pk, helpers.CANDIDATE)
    att = helpers.reload(att)
    assert att.state == "no_candidate_details"
    return att


def test_create_by_hand_then_detach_is_refused_for_the_only_document(login: Any) -> None:
    att = _no_identity()
    client = login("recruiter")
    page = client.get(f"/documents/{att.pk}").content.decode()
    assert "No name or contact details found" in page and "Create a candidate by hand" in page
    assert "What was read from this document" in page
    # Missing contact: refused with the rule in plain words, nothing created.
    res = client.post(f"/documents/{att.pk}/create-candidate", {"name": "Ann Lee"}, follow=True)
    assert "a name and an e-mail address or a phone number" in res.content.decode()
    assert helpers.reload(att).state == "no_candidate_details"
    res = client.post(
        f"/documents/{att.pk}/create-candidate", {"name": "Ann Lee", "phone": "+44 20 7946 0123"}, follow=True
    )
    assert "Candidate Ann Lee created" in res.content.decode()
    att = helpers.reload(att)
    assert att.state == "candidate_created" and att.candidate_id is not None
    # Its only document: the page offers no Detach, and a forced POST is refused.
    assert "action-detach" not in res.content.decode()
    res = client.post(f"/documents/{att.pk}/detach", follow=True)
    assert "only document" in res.content.decode()
    assert helpers.reload(att).candidate_id is not None


def test_hiring_manager_cannot_attach(login: Any) -> None:
    att = _no_identity()
    client = login("hiring_manager")
    assert (
        client.post(f"/documents/{att.pk}/create-candidate", {"name": "X Y", "phone": "+442079460123"}).status_code
        == 403
    )
    assert helpers.reload(att).state == "no_candidate_details"


def test_release_is_for_admins(login: Any) -> None:
    att = helpers.ingested("pdfa.pdf", PDFA.read_bytes())
    assert att.state == "scan_incomplete"
    recruiter = login("recruiter")
    page = recruiter.get(f"/documents/{att.pk}").content.decode()
    assert "Could not be scanned completely" in page and "Release after review" not in page
    assert recruiter.post(f"/documents/{att.pk}/release", {"reason": "looks fine"}).status_code == 403
    assert helpers.reload(att).state == "scan_incomplete"
    admin = login("admin")
    assert 'id="action-release"' in admin.get(f"/documents/{att.pk}").content.decode()
    admin.post(f"/documents/{att.pk}/release", {"reason": "reviewed: PDF/A from pikepdf's tests"})
    att = helpers.reload(att)
    assert att.state == "promoted"
    services.parse_attempt_record_failure(attachment_id=att.pk, attempt_no=1, code="crashed", reason="test")
    helpers.settle_jobs(att.pk, helpers.PARSE)
