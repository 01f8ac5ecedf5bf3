"""The recruiter's pages through the Django test client: triage, document, thumbnail,
upload page, candidates, security headers, CSRF and sign-in throttling."""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

import pytest
from django.http import HttpResponseNotFound
from django.test import Client, RequestFactory

from ats.intake import api as intake_api
from ats.web.middleware import TrailingSlashMiddleware
from tests.web import helpers
from tests.web.conftest import PASSWORD

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


def test_anonymous_home_redirects_to_login_and_login_lands_on_triage(client: Any, users: dict[str, Any]) -> None:
    res = client.get("/")
    assert res.status_code == 302 and res["Location"] == "/login/?next=/"
    res = client.post("/login/?next=/", {"username": "recruiter", "password": PASSWORD, "next": "/"})
    assert res.status_code == 302 and res["Location"] == "/"
    page = client.get("/")
    assert page.status_code == 200 and b"<h1>Inbox</h1>" in page.content


def test_roles_land_where_their_work_is(login: Any) -> None:
    assert login("hiring_manager").get("/")["Location"] == "/candidates/"
    assert login("operator").get("/")["Location"] == "/ops/"
    assert login("admin").get("/").status_code == 200


def test_triage_shows_each_failure_with_its_reason_and_action(login: Any) -> None:
    bad = helpers.malware()
    locked = helpers.parse_failed()
    scan = helpers.scan_failed()
    ok = helpers.parsed_ok("fine.pdf")
    page = login("recruiter").get("/").content.decode()
    # Default view: what needs attention - the three failures, not the document in progress.
    assert "invoice.pdf" in page and "Malware detected" in page and "Do not open; contact security" in page
    # Only actions that can help, each once: a password-protected file is not offered a
    # re-parse (the same bytes would fail the same way); a reader that was lost is.
    assert "password-protected" in page and f'action="/documents/{locked.pk}/reparse"' not in page
    assert "Re-parse Re-parse" not in page and "Ask the sender for an unprotected copy" in page
    # ... and said once: the hint does not ask for "another copy" again, only what comes next.
    locked_row = page.split(f'data-attachment="{locked.pk}"')[1].split("</tr>")[0]
    assert "Ask the sender for another copy" not in locked_row
    assert "Discard this one when the new copy arrives." in locked_row
    # The document page speaks to the reader: no raw-intake record number linking to JSON.
    doc_page = login("recruiter").get(f"/documents/{locked.pk}").content.decode()
    assert "Raw intake" not in doc_page and f'href="/api/intake/{locked.raw_intake_id}"' not in doc_page
    # Its viewer does not promise page images that a failed read will never have.
    assert "No page images: the document could not be read." in doc_page and "appear shortly" not in doc_page
    lost = helpers.parse_failed("stalled.pdf", code="worker_lost")
    page = login("recruiter").get("/").content.decode()
    row = page.split(f'data-attachment="{lost.pk}"')[1].split("</tr>")[0]
    assert row.count(f'action="/documents/{lost.pk}/reparse"') == 1 and row.count("Re-parse") == 1
    assert f'action="/documents/{scan.pk}/retry_scan"' in page
    assert f'data-attachment="{ok.pk}"' not in page
    every = login("recruiter").get("/?state=").content.decode()
    assert f'data-attachment="{ok.pk}"' in every and f'data-attachment="{bad.pk}"' in every
    found = login("recruiter").get("/?state=&q=invoice").content.decode()
    assert f'data-attachment="{bad.pk}"' in found and f'data-attachment="{ok.pk}"' not in found
    by_channel = login("recruiter").get("/?state=&channel=mail").content.decode()
    assert "0 documents" in by_channel


def test_document_page_actions_are_audited_and_show_attempt_2(login: Any, users: dict[str, Any]) -> None:
    att = helpers.parse_failed()
    c = login("recruiter")
    page = c.get(f"/documents/{att.pk}").content.decode()
    assert "Parse attempt 1 failed (encrypted)" in page and "Malware scan: " in page
    res = c.post(f"/documents/{att.pk}/reparse")
    assert res.status_code == 303
    page = c.get(res["Location"]).content.decode()
    assert "Re-parse requested: attempt 2." in page and "Parse attempt 2 requested" in page
    assert ("intake.reparse_requested", f"user:{users['recruiter'].pk}") in helpers.audit_actions(att.pk)
    # The same action again is refused with the reason (the document is no longer failed).
    page = c.get(c.post(f"/documents/{att.pk}/reparse")["Location"]).content.decode()
    assert "only a read failure or a finished document can be re-parsed" in page


def test_discard_from_the_page_requires_a_reason(login: Any) -> None:
    att = helpers.malware()
    c = login("recruiter")
    page = c.get(c.post(f"/documents/{att.pk}/discard", {"reason": ""})["Location"]).content.decode()
    assert "a reason is required" in page and helpers.reload(att).state == "blocked_malware"
    c.post(f"/documents/{att.pk}/discard", {"reason": "security has it"})
    assert helpers.reload(att).state == "discarded"
    assert "Discarded: security has it" in c.get(f"/documents/{att.pk}").content.decode()


def test_thumbnail_is_served_as_a_strict_image(login: Any) -> None:
    """Only a PNG the trusted side encoded (a downscale of page 1, ats.intake.pages) is
    served; the report's `thumbnail_png_b64` never is (issue 21 N1): whoever holds the
    parse role writes the report."""
    from ats.intake import adapters
    from ats.intake.models import PageImageSet

    att = helpers.candidate_failed()  # terminal: its images may be served
    c = login("recruiter")
    assert c.get(f"/documents/{att.pk}/thumbnail.png").status_code == 404
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    attempt = att.parse_attempts.get()
    attempt.result = {**attempt.result, "thumbnail_png_b64": base64.b64encode(png).decode()}
    attempt.save()
    assert c.get(f"/documents/{att.pk}/thumbnail.png").status_code == 404  # not even a plain one
    helpers.hand_off_page(att.pk, size=(600, 800), fill=b"\xee")
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) == "stored"
    res = c.get(f"/documents/{att.pk}/thumbnail.png")
    assert res.status_code == 200 and res.content[12:16] == b"IHDR" and res.content != png
    assert res["Content-Type"] == "image/png" and res["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in res["Content-Security-Policy"]
    # A stored derivative that gained an ancillary chunk (attacker-chosen text, ICC
    # profile, ...) is not what the trusted encoder writes: not served.
    key = PageImageSet.objects.get(attachment_id=att.pk).thumbnail_key
    text = b"tEXt" + b"Comment\0<script>alert(1)</script>"
    chunk = (len(text) - 4).to_bytes(4, "big") + text + zlib.crc32(text).to_bytes(4, "big")
    adapters.blob_store().put(adapters.DERIVATIVES, key, res.content[:33] + chunk + res.content[33:], overwrite=True)
    assert c.get(f"/documents/{att.pk}/thumbnail.png").status_code == 404
    adapters.blob_store().put(adapters.DERIVATIVES, key, b"<svg onload=alert(1)>", overwrite=True)
    assert c.get(f"/documents/{att.pk}/thumbnail.png").status_code == 404


def test_security_headers_on_every_page(login: Any) -> None:
    res = login("recruiter").get("/")
    assert res["X-Frame-Options"] == "DENY"
    assert res["Referrer-Policy"] == "same-origin"
    assert res["X-Content-Type-Options"] == "nosniff"
    csp = res["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp


def test_csrf_is_enforced_on_actions(users: dict[str, Any]) -> None:
    att = helpers.parse_failed()
    c = Client(enforce_csrf_checks=True)
    c.force_login(users["recruiter"])
    assert c.post(f"/documents/{att.pk}/reparse").status_code == 403
    assert helpers.reload(att).state == "parse_failed"
    page = c.get(f"/documents/{att.pk}").content.decode()
    token = page.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    assert c.post(f"/documents/{att.pk}/reparse", {"csrfmiddlewaretoken": token}).status_code == 303
    assert helpers.reload(att).state == "promoted"


def test_login_is_throttled_per_user_and_address_and_per_address(users: dict[str, Any]) -> None:
    from ats.iam import throttle

    c = Client(REMOTE_ADDR="10.1.1.1")
    for _ in range(throttle.MAX_FAILURES_PER_USER_ADDRESS):
        assert c.post("/login/", {"username": "recruiter", "password": "wrong"}).status_code == 200
    # Now even the right password is refused from there, and says why and for how long.
    res = c.post("/login/", {"username": "recruiter", "password": PASSWORD})
    page = res.content.decode()
    assert res.status_code == 429 and "Too many failed sign-ins from here. Try again in 15 minutes." in page
    assert 0 < int(res["Retry-After"]) <= 15 * 60
    # Another user from another address is not affected...
    assert (
        Client(REMOTE_ADDR="10.2.2.2").post("/login/", {"username": "admin", "password": PASSWORD}).status_code == 302
    )
    # ...but one address guessing across many user names is stopped too.
    spray = Client(REMOTE_ADDR="10.3.3.3")
    for i in range(throttle.MAX_FAILURES_PER_IP):
        spray.post("/login/", {"username": f"nobody{i}", "password": "x"})
    assert spray.post("/login/", {"username": "operator", "password": PASSWORD}).status_code == 429


def test_a_stranger_cannot_lock_the_admin_out(users: dict[str, Any]) -> None:
    """Issue 21 N10: failures for a user name from other addresses (even far more than the
    per-pair limit) do not refuse the real user at their own address."""
    from ats.iam import throttle

    for n in range(4):  # four attacker addresses, each up to its own limit
        attacker = Client(REMOTE_ADDR=f"198.51.100.{n + 1}")
        for _ in range(throttle.MAX_FAILURES_PER_USER_ADDRESS):
            attacker.post("/login/", {"username": "admin", "password": "guess"})
        assert attacker.post("/login/", {"username": "admin", "password": PASSWORD}).status_code == 429
    # The ceiling over all addresses takes ten addresses, each already at its own limit.
    assert throttle.MAX_FAILURES_PER_USER >= 10 * throttle.MAX_FAILURES_PER_IP
    real = Client(REMOTE_ADDR="10.9.9.9")
    assert real.post("/login/", {"username": "admin", "password": PASSWORD}).status_code == 302


def test_the_per_user_ceiling_and_the_wait_it_shows(users: dict[str, Any]) -> None:
    import datetime

    from ats.iam import throttle
    from ats.iam.models import LoginAttempt

    # The ceiling over all addresses: reached only by a distributed guess.
    LoginAttempt.objects.bulk_create(
        LoginAttempt(username="recruiter", ip=f"203.0.113.{i % 250}", succeeded=False)
        for i in range(throttle.MAX_FAILURES_PER_USER)
    )
    # Make the failure that holds the limit 10 minutes old: the wait is what is left of it.
    LoginAttempt.objects.filter(username="recruiter").update(
        at=datetime.datetime.now(tz=datetime.UTC) - datetime.timedelta(minutes=10)
    )
    res = Client(REMOTE_ADDR="10.4.4.4").post("/login/", {"username": "recruiter", "password": PASSWORD})
    assert res.status_code == 429 and "Try again in 5 minutes." in res.content.decode()
    assert 240 < int(res["Retry-After"]) <= 300


def test_upload_page_states_the_limits(login: Any, settings: Any) -> None:
    page = login("recruiter").get("/upload/").content.decode()
    assert "Up to 20 files at once" in page and "20 MB" in page and "upload.js" in page


def test_intake_api_keeps_its_keys_and_adds_timeline_and_job_ids(login: Any, users: dict[str, Any]) -> None:
    att = helpers.parse_failed()
    body = json.loads(login("recruiter").get(f"/api/intake/{att.raw_intake_id}").content)
    assert set(body) == {"raw_intake_id", "channel", "received_at", "attachments"}
    [a] = body["attachments"]
    old_keys = {
        "attachment_id", "raw_intake_id", "filename", "state", "state_label", "terminal", "reason_code", "reason",
        "action", "detected_type", "virus_scan_status", "scan_signature", "candidate_id", "duplicate_of",
    }  # fmt: skip
    assert old_keys <= set(a) and a["state"] == "parse_failed"
    assert len(a["job_ids"]) == 2  # ingest + parse
    assert any(t["job_id"] == a["job_ids"][0] and t["attempt"] == 1 for t in a["timeline"])
    missing = login("recruiter").get("/api/intake/999999")
    assert missing.status_code == 404 and json.loads(missing.content) == {"error": "not found", "code": "not_found"}


def test_the_document_timeline_speaks_the_recruiters_words(login: Any, users: dict[str, Any]) -> None:
    att = helpers.parse_failed()
    page = login("recruiter").get(f"/documents/{att.pk}").content.decode()
    timeline = page[page.index('id="timeline"') :]
    # The chain's jobs in words, never the internal task names or procrastinate's event names.
    assert "Malware scan:" in timeline and "Reading in the sandbox:" in timeline, timeline
    for internal in ("intake.ingest_attachment", "intake.parse_attachment", "deferred", "intake.parsed"):
        assert internal not in timeline, internal
    # One row per job run (its latest event), not queued + started + done for each job.
    assert timeline.count("Malware scan:") == 1, timeline
    assert "Malware scan: queued" not in timeline and "Malware scan: started" not in timeline
    # The operator's view keeps the task name beside the words, and the API both.
    ops = login("operator").get(f"/ops/documents/{att.pk}").content.decode()
    assert "<code>intake.parse_attachment</code>" in ops
    body = json.loads(login("recruiter").get(f"/api/intake/{att.raw_intake_id}").content)
    jobs = [t for t in body["attachments"][0]["timeline"] if t["source"] == "job"]
    assert {t["task_name"] for t in jobs} == {"intake.ingest_attachment", "intake.parse_attachment"}
    assert all(t["what"].startswith(("Malware scan: ", "Reading in the sandbox: ")) and t["event"] for t in jobs)
    # ... and every event, for operators and scripts.
    assert sum(t["task_name"] == "intake.ingest_attachment" for t in jobs) >= 2


def test_admin_site_is_for_admins_and_domain_models_are_read_only(login: Any) -> None:
    att = helpers.malware()
    assert login("recruiter").get("/admin/")["Location"].startswith("/admin/login/")
    c = login("admin")
    assert c.get("/admin/").status_code == 200
    assert c.get(f"/admin/intake/attachment/{att.pk}/change/").status_code == 200  # view only
    assert c.get("/admin/intake/attachment/add/").status_code == 403
    assert c.post(f"/admin/intake/attachment/{att.pk}/delete/", {"post": "yes"}).status_code == 403
    assert c.get("/admin/auth/user/").status_code == 200  # users and roles are managed here
    assert c.get("/admin/procrastinate/procrastinatejob/").status_code == 200


def test_a_page_typed_with_a_trailing_slash_redirects_to_it(client: Any) -> None:
    # Lists end in "/" and pages do not; "/candidates/4/" was a 404 for a newcomer.
    res = client.get("/candidates/4/?tab=provenance")
    assert res.status_code == 301 and res["Location"] == "/candidates/4?tab=provenance"
    assert client.get("/ops/jobs/7/")["Location"] == "/ops/jobs/7"
    # Only to a path this site routes, never for the JSON API, never off-site.
    for path in ("/nothing/here/", "/candidates/x/", "/api/jobs/1/", "/\\evil.example/", "/candidates/4//"):
        assert client.get(path).status_code == 404, path
    # "//evil.example/" reaches a middleware as that path (the test client would read a host).
    not_found = TrailingSlashMiddleware(lambda request: HttpResponseNotFound())
    for path in ("//evil.example/", "//candidates/4/"):
        request = RequestFactory().get("/")
        request.path = request.path_info = path
        assert not_found(request).status_code == 404, path
    assert client.post("/candidates/4/").status_code in (403, 404)  # CSRF or not found: never a redirect
    # The page it lands on still checks access.
    assert client.get("/candidates/4")["Location"].startswith("/login/")


def test_page_store_reads_the_attempt_and_document_once_and_replaces_pages_only_of_a_set_it_had() -> None:
    """Issue 26, the page-store hop's round trips: the attempt and its document are one
    read, and a document's first set deletes no pages (it has none); a second store still
    replaces the first one's pages, and a superseded attempt is still `stale`."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ats.intake.models import PageImage, PageImageSet

    att = helpers.candidate_failed()

    def hand_off(fill: bytes) -> None:
        helpers.hand_off_page(att.pk, size=(60, 80), fill=fill)

    hand_off(b"\xee")
    with CaptureQueriesContext(connection) as q:
        assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) == "stored"
    sql = [x["sql"] for x in q.captured_queries]
    assert len([s for s in sql if "FROM intake_parse_attempt" in s]) == 1
    assert [s for s in sql if 'SELECT "intake_attachment"' in s] == []  # joined into the attempt's read
    pages_read_alone = [s for s in sql if "untrusted_width" in s and "intake_parse_attempt" not in s]
    assert pages_read_alone == []  # the hand-off's small columns are in that read too
    assert [s for s in sql if s.startswith("DELETE FROM intake_page_image WHERE")] == []
    # The read, the page's bytes, the document's lock, the set's lock and insert, the pages'
    # insert, the hand-off's delete: seven statements for a one-page document's first set.
    work = [s for s in sql if not s.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]  # the test's transaction
    assert len(work) == 7, work
    first = list(PageImage.objects.filter(page_set__attachment_id=att.pk).values_list("sha256", flat=True))
    assert len(first) == 1
    hand_off(b"\x11")
    with CaptureQueriesContext(connection) as q:
        assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) == "stored"
    assert [x for x in q.captured_queries if x["sql"].startswith("DELETE FROM intake_page_image WHERE")]
    second = list(PageImage.objects.filter(page_set__attachment_id=att.pk).values_list("sha256", flat=True))
    assert len(second) == 1 and second != first
    assert PageImageSet.objects.filter(attachment_id=att.pk).count() == 1
    hand_off(b"\x22")
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=2) == "stale"
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) == "stored"


def test_page_store_exhaustion_records_the_refusal_and_serves_no_image() -> None:
    """The store task's exhaustion handler (storage down on every attempt): the document's
    set says so, its audit event names the document, and no image is served."""
    from ats.audit.models import AuditEvent
    from ats.intake import pages
    from ats.intake.models import PageImageSet

    att = helpers.candidate_failed()
    pages.page_images_exhausted(attachment_id=att.pk, attempt_no=1, reason_code="error", reason="storage down")
    page_set = PageImageSet.objects.get(attachment_id=att.pk)
    assert (page_set.state, page_set.reason_code, page_set.page_count) == ("refused", "store_failed", 0)
    events = AuditEvent.objects.filter(action="intake.page_images_refused", object_id=str(att.pk))
    assert events.count() == 1
    assert intake_api.page_images_store(attachment_id=att.pk, attempt_no=1) in ("none", "stale")
    pages.page_images_exhausted(attachment_id=-1, reason_code="error", reason="gone")  # a deleted document: nothing
