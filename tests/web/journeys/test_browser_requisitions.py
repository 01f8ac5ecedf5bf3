"""Issue 23 items 4-5 in a real browser (chromium via Playwright) against gunicorn and real
workers: a recruiter creates a requisition in the web, edits it and watches the rescore
finish with its partial-failure summary (names, reasons), advances an application and sees
the decision with their name; the pages of this journey at 390 px have no horizontal
scroll and axe finds nothing serious."""

from __future__ import annotations

import re
import time
from typing import Any

from django.db import connection
from playwright.sync_api import expect

from ats.devtools import browser as harness
from tests.web.browser import MARKS, WAIT_MS, follow, login

pytestmark = MARKS


def _wait_scored(app_ids: list[int], deadline_s: float = 90) -> None:
    """Poll the database until the worker has settled every application (no wall-clock asserts)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM scoring_application WHERE id = ANY(%s) AND state <> 'applied'", [app_ids])
            if cur.fetchone()[0] == len(app_ids):
                return
        time.sleep(0.2)
    raise AssertionError(f"applications {app_ids} were not scored by the worker")


def _no_sideways_scroll(page: Any) -> int:
    return int(page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def test_requisition_created_in_the_web_rescore_summary_and_a_decision(
    web: str,
    chromium: Any,
    users: dict[str, Any],
) -> None:
    from ats.candidates.models import Candidate
    from tests.scoring import helpers as sh

    users["recruiter"].first_name, users["recruiter"].last_name = "Ann", "Recruiter"
    users["recruiter"].save()
    page = login(chromium, web, "recruiter")
    csp: list[str] = []
    page.on("console", lambda m: csp.append(m.text) if "Content Security Policy" in m.text else None)
    axe: dict[str, list[str]] = {}

    # 1. Create it in the web (the contract: /requisitions/new/ linked as "New requisition").
    follow(page, "nav >> text=Requisitions")
    follow(page, "text=New requisition")
    axe["requisition_new"] = harness.axe_violations(page)
    page.fill("#f-title", "Platform engineer")
    page.fill("#f-must", "python")
    page.click("text=Create requisition")
    page.wait_for_url(re.compile(r"/requisitions/\d+/$"))
    req_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    expect(page.locator("h1")).to_have_text("Platform engineer")
    expect(page.locator("#weights")).to_contain_text("must-have: Python: 100")

    # 2. Three people apply (the worker scores them); one is then erased: it cannot be rescored.
    ids = {name: sh.candidate(skills=("Python",), name=name) for name in ("Ada Able", "Bo Bright", "Cy Gone")}
    apps = {name: sh.apply(cid, req_id) for name, cid in ids.items()}
    _wait_scored(list(apps.values()))
    Candidate.objects.filter(pk=ids["Cy Gone"]).update(status="erased")

    # 3. Edit: a new version; the panel follows the run live and ends with its summary.
    page.reload()
    page.click("text=Edit criteria")
    page.fill("#edit-form #f-must", "Python, PostgreSQL")
    page.click("#edit-form button[type=submit]")
    expect(page.locator("#rescore-summary")).to_contain_text("0 unchanged, 1 could not be scored", timeout=WAIT_MS)
    expect(page.locator("#rescore-summary")).to_contain_text("2 scored again")
    failure = page.locator("#rescore-failures li")
    expect(failure).to_have_count(1)
    expect(failure).to_contain_text("Cy Gone")
    expect(failure).to_contain_text("erased")
    expect(page.locator("#weights")).to_contain_text("must-have: PostgreSQL: 50")
    page.reload()  # axe without the one-time message (base.html's list with role=status: h23u's)
    axe["requisition"] = harness.axe_violations(page)

    # 4. Advance one person: the decision shows with the recruiter's name and the score seen.
    follow(page, f"#app-{apps['Ada Able']} a.app-link")
    page.select_option("#to-stage", "interview")
    page.fill("#decide-reason", "Strong Python; talk about PostgreSQL")
    page.click("#decide-submit")
    expect(page.locator("#stage")).to_have_text("Interview")
    row = page.locator("#decisions tbody tr").first
    expect(row).to_contain_text("Ann Recruiter")
    expect(row).to_contain_text("Strong Python; talk about PostgreSQL")
    expect(row.locator("td").nth(5)).to_contain_text("50")
    page.reload()
    axe["application"] = harness.axe_violations(page)

    # 5. Bulk, on a phone-sized screen: select the two others, confirm the count, see the summary.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/requisitions/{req_id}/")
    page.check(f"#sel-{apps['Bo Bright']}")
    page.check(f"#sel-{apps['Cy Gone']}")
    page.select_option("#bulk-stage", "rejected")
    page.fill("#bulk-reason", "Role filled")
    page.click("#bulk-submit")
    expect(page.locator("#confirm-h")).to_have_text("Move 2 applications to Rejected?")
    assert _no_sideways_scroll(page) <= 0, "the bulk confirmation scrolls sideways at 390 px"
    axe["bulk_confirm@390"] = harness.axe_violations(page)
    page.click("#confirm-submit")
    expect(page.locator(".messages")).to_contain_text("2 of 2 application(s) moved to Rejected.")

    # 6. At 390 px: no sideways scroll on this journey's pages; axe again.
    for name, url in {
        "requisitions": "/requisitions/",
        "requisition_new": "/requisitions/new/",
        "requisition": f"/requisitions/{req_id}/",
        "application": f"/applications/{apps['Ada Able']}/",
        "candidate": f"/candidates/{ids['Ada Able']}",
    }.items():
        page.goto(url)
        assert _no_sideways_scroll(page) <= 0, f"{name} scrolls sideways at 390 px"
        if name == "candidate":  # the person's applications, with the decision just made
            expect(page.locator(f"#cand-app-{apps['Ada Able']}")).to_contain_text("Interview")
        axe[f"{name}@390"] = harness.axe_violations(page)
    assert {name: v for name, v in axe.items() if v} == {}
    assert csp == []
