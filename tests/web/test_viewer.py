"""The CV viewer's views and rules, without workers: page images stored through the
trusted side's own path (hand-off rows -> ats.intake.pages), then read as each role.

Browser journeys: tests/web/journeys/test_viewer_browser.py; the real pipeline and the forged
probe: tests/parse_role/test_page_images.py.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import pytest
from django.db import connection

from ats.intake import api as intake_api
from ats.intake.models import PageImageHandoff, ParseAttempt
from ats.sandbox.thumbnail import encode_png
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db

W, H = 1240, 1754


def _hand_off(att_id: int, pages: int = 2, attempt: int = 1) -> None:
    for n in range(1, pages + 1):
        helpers.hand_off_page(att_id, page_no=n, attempt_no=attempt, size=(W, H), fill=bytes([200 + n]))


def _with_pages(pages: int = 2) -> tuple[Any, int]:
    att = helpers.parsed_ok("viewer.pdf")
    cand = helpers.candidate_from(att, name="Jane Doe", emails=("jane@example.org",))
    _hand_off(att.pk, pages)
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) == "stored"
    return helpers.reload(att), cand


def _size(png: bytes) -> tuple[int, int]:
    return struct.unpack(">II", png[16:24])


def test_pages_are_served_to_recruiters_and_assigned_readers_only(login: Any, users: dict[str, Any]) -> None:
    att, cand = _with_pages(2)
    recruiter = login("recruiter")
    for n in (1, 2):
        r = recruiter.get(f"/documents/{att.pk}/pages/{n}.png")
        assert r.status_code == 200 and _size(r.content) == (W, H)
        assert r["Content-Type"] == "image/png" and r["X-Content-Type-Options"] == "nosniff"
        assert "sandbox" in r["Content-Security-Policy"]
    for missing in (0, 3, 21):
        assert recruiter.get(f"/documents/{att.pk}/pages/{missing}.png").status_code == 404
    page = recruiter.get(f"/documents/{att.pk}").content.decode()
    assert page.count('class="cv-page"') == 2 and "Page 2 of 2" in page
    assert f"/documents/{att.pk}/original" in page
    # A hiring manager reads it through the candidate (the N2 scope applies there).
    hm = login("hiring_manager")
    # Not before the candidate has an application in a requisition assigned to them ...
    assert hm.get(f"/documents/{att.pk}/pages/1.png").status_code == 404
    from ats.scoring import api as scoring_api
    from tests.scoring import helpers as sh

    req = sh.requisition(title="Backend").requisition_id
    sh.apply(cand, req)
    scoring_api.requisition_assign(requisition_id=req, user_id=users["hiring_manager"].pk, actor=sh.ACTOR)
    # ... and then yes.
    assert hm.get(f"/documents/{att.pk}/pages/1.png").status_code == 200
    assert hm.get(f"/documents/{att.pk}").status_code == 403  # the document page stays recruiters'
    cand_page = hm.get(f"/candidates/{cand}").content.decode()
    assert f"/documents/{att.pk}/pages/1.png" in cand_page
    assert f"/documents/{att.pk}/original" not in cand_page  # no download for them
    assert hm.get(f"/documents/{att.pk}/original").status_code == 403
    # ... but not a document that belongs to no candidate.
    lone = helpers.candidate_failed()  # terminal, no candidate
    _hand_off(lone.pk, 1)
    assert intake_api.page_images_store(attachment_id=lone.pk, attempt_no=1) == "stored"
    assert login("recruiter").get(f"/documents/{lone.pk}/pages/1.png").status_code == 200
    assert login("hiring_manager").get(f"/documents/{lone.pk}/pages/1.png").status_code == 404
    assert login("operator").get(f"/documents/{att.pk}/pages/1.png").status_code == 403


def test_original_download_is_audited_and_only_for_scanned_documents(login: Any) -> None:
    att, _ = _with_pages(1)
    r = login("recruiter").get(f"/documents/{att.pk}/original")
    assert r.status_code == 200 and r["Content-Disposition"].startswith("attachment;")
    assert r["Content-Type"] == "application/octet-stream"
    assert r.content == intake_api.attachment_original_bytes(attachment_id=att.pk)
    actions = [a for a, _ in helpers.audit_actions(att.pk)]
    assert actions.count("intake.original_downloaded") == 1
    blocked = helpers.malware()
    assert login("admin").get(f"/documents/{blocked.pk}/original").status_code == 404


def test_the_reports_thumbnail_png_is_never_served(login: Any) -> None:
    """Issue 21 N1: the report (written by whoever holds the parse role) carried a
    20000 x 20000 PNG that the web served. Now the thumbnail is only ever our downscale:
    a well-formed PNG in the report is not served either."""
    att = helpers.candidate_failed()  # terminal: its images may be served
    ParseAttempt.objects.filter(attachment_id=att.pk, attempt_no=1).update(
        result={"kind": "pdf", "thumbnail_png_b64": base64.b64encode(encode_png(2, 2, 1, b"\0" * 4)).decode()}
    )
    recruiter = login("recruiter")
    assert recruiter.get(f"/documents/{att.pk}/thumbnail.png").status_code == 404
    _hand_off(att.pk, 1)
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) == "stored"
    thumb = recruiter.get(f"/documents/{att.pk}/thumbnail.png")
    assert thumb.status_code == 200 and _size(thumb.content) == (256, round(H / (W / 256)))


def test_pages_wait_for_a_terminal_document_and_a_stale_attempt_is_dropped(login: Any) -> None:
    att, _ = _with_pages(1)
    recruiter = login("recruiter")
    with connection.cursor() as cur:  # as during a re-parse
        cur.execute("UPDATE intake_attachment SET state = 'promoted' WHERE id = %s", [att.pk])
    assert recruiter.get(f"/documents/{att.pk}/pages/1.png").status_code == 404
    assert recruiter.get(f"/documents/{att.pk}/thumbnail.png").status_code == 404
    with connection.cursor() as cur:
        cur.execute("UPDATE intake_attachment SET state = 'candidate_created' WHERE id = %s", [att.pk])
    assert recruiter.get(f"/documents/{att.pk}/pages/1.png").status_code == 200
    # Pages handed off for an attempt that is not the document's latest are not stored.
    _hand_off(att.pk, 1, attempt=7)
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=7) == "stale"
    assert not PageImageHandoff.objects.filter(attachment_id=att.pk).exists()


def test_a_refused_set_replaces_earlier_images(login: Any) -> None:
    att, _ = _with_pages(2)
    helpers.hand_off_page(att.pk, size=(20000, 20000), unit=(1.0, 1.0), data=zlib.compress(b"\0" * 100))
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) == "refused:page_dimensions"
    recruiter = login("recruiter")
    for url in (f"/documents/{att.pk}/pages/1.png", f"/documents/{att.pk}/thumbnail.png"):
        assert recruiter.get(url).status_code == 404
    assert "declared a size over the limit" in recruiter.get(f"/documents/{att.pk}").content.decode()
