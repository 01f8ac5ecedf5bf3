"""Bulk actions on the inbox and the candidate list (issue 23 item 7), the inbox's
filter validation and its offered actions (item 8), and the one time format (item 9)."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.db import connection

from ats.intake import api as intake_api
from ats.scoring import api as scoring_api
from ats.scoring.models import Application
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


def _malware(i: int) -> intake_api.Attachment:
    # Distinct bytes (not byte-identical duplicates of one another), each still malware.
    from tests.scanning.samples import EICAR

    return helpers.ingested(f"invoice{i}.pdf", EICAR + b" " * i)


def _requisition(users: dict[str, Any], title: str = "Backend developer") -> int:
    version = scoring_api.requisition_create(title=title, must_have=["python"], actor=users["recruiter"])
    return int(version.requisition_id)


def _score_jobs(application_id: int) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name LIKE 'scoring.%%'"
            " AND args->>'application_id' = %s AND status = 'todo'",
            [str(application_id)],
        )
        return int(cur.fetchone()[0])


def _settle_score_jobs() -> None:
    # The scoring jobs these tests defer are not run here; the detector only watches documents.
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE procrastinate_jobs SET status = 'succeeded' WHERE status = 'todo' AND task_name LIKE 'scoring.%%'"
        )


def test_bulk_discard_by_filter_confirms_the_count_then_audits_each_row(login: Any, users: dict[str, Any]) -> None:
    blocked = [_malware(i) for i in range(3)]
    ok = helpers.parsed_ok("fine.pdf")
    c = login("recruiter")
    form = {"action": "discard", "scope": "filter", "state": "blocked_malware", "reason": "spam run", "back": "/"}
    confirm = c.post("/documents/bulk", form)
    page = confirm.content.decode()
    assert confirm.status_code == 200 and "Discard 3 documents?" in page
    assert all(helpers.reload(a).state == "blocked_malware" for a in blocked)  # nothing done yet
    ids = re.findall(r'name="ids" value="(\d+)"', page)
    assert sorted(map(int, ids)) == sorted(a.pk for a in blocked) and str(ok.pk) not in ids
    done = c.post("/documents/bulk", {**form, "scope": "selected", "ids": ids, "confirm": "1"}).content.decode()
    assert "3 of 3 documents discarded" in done and "skipped" not in done
    for att in blocked:
        assert helpers.reload(att).state == "discarded" and "spam run" in helpers.reload(att).reason
        assert helpers.audit_actions(att.pk).count(("intake.discarded", f"user:{users['recruiter'].pk}")) == 1
    assert helpers.reload(ok).state == "parsed"  # not matching the filter: untouched


def test_bulk_skips_rows_that_cannot_take_the_action_and_says_why(login: Any) -> None:
    bad = helpers.malware()
    fine = helpers.parsed_ok("fine.pdf")
    helpers.candidate_from(fine)
    locked = helpers.parse_failed()
    lost = helpers.parse_failed("stalled.pdf", code="worker_lost")
    c = login("recruiter")
    done = c.post(
        "/documents/bulk", {"action": "discard", "ids": [bad.pk, fine.pk], "reason": "clean-up", "confirm": "1"}
    ).content.decode()
    assert "1 of 2 documents discarded" in done and "1</strong> skipped" in done
    assert "only failed or duplicate documents can be discarded" in done
    assert helpers.reload(fine).state == "candidate_created"
    # Re-parse: where it cannot help (password-protected), skipped with why; elsewhere done.
    done = c.post(
        "/documents/bulk", {"action": "reparse", "ids": [locked.pk, lost.pk], "confirm": "1"}
    ).content.decode()
    assert "1 of 2 documents sent to be read again" in done and "would fail the same way" in done
    assert helpers.reload(locked).state == "parse_failed" and helpers.reload(lost).state == "promoted"


def test_bulk_refuses_without_a_reason_a_selection_or_a_valid_filter(login: Any) -> None:
    bad = helpers.malware()
    c = login("recruiter")
    res = c.post("/documents/bulk", {"action": "discard", "ids": [bad.pk], "reason": " ", "confirm": "1"})
    assert res.status_code == 400 and b"Give a reason" in res.content
    res = c.post("/documents/bulk", {"action": "discard", "reason": "x", "confirm": "1"})
    assert res.status_code == 400 and b"Nothing selected" in res.content
    res = c.post("/documents/bulk", {"action": "discard", "scope": "filter", "state": "bogus", "reason": "x"})
    assert res.status_code == 400 and b"is not a document state" in res.content
    assert helpers.reload(bad).state == "blocked_malware"
    # A hiring manager may not act on documents at all.
    assert login("hiring_manager").post("/documents/bulk", {"action": "discard"}).status_code == 403


def test_bulk_assign_creates_scored_applications_from_inbox_and_candidate_list(
    login: Any, users: dict[str, Any]
) -> None:
    req = _requisition(users)
    docs = [helpers.parsed_ok(f"cv{i}.pdf") for i in range(2)]
    cands = [helpers.candidate_from(d, name=f"Person {i}") for i, d in enumerate(docs)]
    waiting = helpers.malware()
    c = login("recruiter")
    done = c.post(
        "/documents/bulk",
        {"action": "assign", "requisition": str(req), "ids": [docs[0].pk, waiting.pk], "confirm": "1"},
    ).content.decode()
    assert "1 of 2 documents added to the requisition" in done and "no candidate has been made from it" in done
    app = Application.objects.get(candidate_id=cands[0], requisition_id=req)
    assert _score_jobs(app.pk) == 1
    confirm = c.post("/candidates/bulk", {"action": "assign", "requisition": str(req), "ids": cands}).content.decode()
    assert "Add to requisition 2 candidates?" in confirm and "Backend developer" in confirm
    done = c.post(
        "/candidates/bulk", {"action": "assign", "requisition": str(req), "ids": cands, "confirm": "1"}
    ).content.decode()
    assert "2 of 2 candidates added to the requisition" in done
    assert Application.objects.filter(requisition_id=req).count() == 2
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM audit_event WHERE action = 'application.assigned' AND actor = %s",
            [f"user:{users['recruiter'].pk}"],
        )
        assert cur.fetchone()[0] == 3  # one per row acted on (the first application twice)
    res = c.post("/candidates/bulk", {"action": "assign", "requisition": "999", "ids": cands})
    assert res.status_code == 400 and b"Choose a requisition" in res.content
    _settle_score_jobs()


def test_an_invalid_inbox_filter_says_so(login: Any) -> None:
    helpers.malware()
    res = login("recruiter").get("/?state=bogus&since=2026-13-45")
    page = res.content.decode()
    assert res.status_code == 400
    assert "&quot;bogus&quot; is not a document state" in page and "is not a date" in page
    assert "data-attachment=" not in page  # nothing shown as if it matched
    assert login("recruiter").get("/?state=").status_code == 200  # empty still means all


def test_one_time_format_labelled_with_its_zone(login: Any) -> None:
    from ats.web.templatetags.ats_time import when

    moment = datetime.datetime(2026, 12, 1, 21, 5, 7, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    assert str(when(moment)) == '<time datetime="2026-12-01T20:05:07.000+00:00" data-local>2026-12-01 20:05 UTC</time>'
    assert "2026-12-01 20:05:07 UTC" in str(when(moment, "s")) and when(None) == ""
    helpers.malware()
    page = login("recruiter").get("/").content.decode()
    assert re.search(r'<time datetime="[^"]+" data-local>\d{4}-\d\d-\d\d \d\d:\d\d UTC</time>', page)
    assert "time.js" in page and "htmx-2.0.11.min.js" in page


def test_sender_of_a_command_line_import_is_in_plain_words(login: Any) -> None:
    raw = intake_api.intake_receive(
        channel="cli", files=[intake_api.IncomingFile("cv.pdf", helpers.unique_pdf())], source_ref="cli:0:/tmp/cv.pdf"
    )
    helpers.finish_ingest(intake_api.raw_intake_attachments(raw.pk)[0])
    page = login("recruiter").get("/?state=").content.decode()
    assert "Imported from the command line" in page and "cli:0:" not in page
    assert "<td>Command line</td>" in page  # the channel's name, not its code


def test_document_page_offers_re_parse_only_where_it_can_help(login: Any) -> None:
    bomb = helpers.parse_failed("bomb.docx", code="decompression_bomb")
    page = login("recruiter").get(f"/documents/{bomb.pk}").content.decode()
    assert 'id="action-reparse"' not in page and f'action="/documents/{bomb.pk}/discard"' in page
    assert "Possible attack: do not ask for it again; discard it." in page
    assert "<dd>Re-parse</dd>" not in page  # "what to do" names no action the page lacks
    lost = helpers.parse_failed("stalled.pdf", code="worker_lost")
    page = login("recruiter").get(f"/documents/{lost.pk}").content.decode()
    assert page.count('id="action-reparse"') == 1
