"""Issue 23 items 5 and 6 in a real browser (Debian's chromium via Playwright, gunicorn,
real workers), one journey per role the other browser tests leave out:

- the admin creates a requisition in the web, assigns a hiring manager by name, uploads a
  two-page CV to it and another to the talent pool, and sees the admin-only actions;
- the hiring manager signs in, sees only the candidate with an application in the
  requisition assigned to them, reads that CV in the viewer (both pages at reading size,
  no download of the original), decides at their stage with a reason, and gets the
  "Not found" page - exactly an unknown id's - for the candidate outside their scope.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.db import connection
from playwright.sync_api import expect

from ats.devtools import browser as harness
from tests.web.browser import MARKS, WAIT_MS, follow, login, two_page_cv, upload, wait_all_terminal, wait_for_pages
from tests.web.helpers import unique_pdf

pytestmark = MARKS

UNKNOWN = 987654


def _candidate_of(filename: str) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT d.candidate_id FROM candidates_document d"
            " JOIN intake_attachment a ON a.id = d.attachment_id WHERE a.filename = %s",
            [filename],
        )
        return int(cur.fetchone()[0])


def test_admin_sets_up_and_the_hiring_manager_reads_and_decides_only_in_scope(
    web: str, chromium: Any, users: dict[str, Any], tmp_path: Path
) -> None:
    from tests.scoring import helpers as sh

    users["hiring_manager"].first_name, users["hiring_manager"].last_name = "Hana", "Manager"
    users["hiring_manager"].save()
    axe: dict[str, list[str]] = {}

    # --- The admin: a requisition in the web, a hiring manager assigned by name, two CVs.
    admin = login(chromium, web, "admin")
    expect(admin.locator("h1")).to_have_text("Inbox")
    follow(admin, "nav >> text=Requisitions")
    follow(admin, "text=New requisition")
    admin.fill("#f-title", "Data engineer")
    admin.fill("#f-must", "python")
    admin.click("text=Create requisition")
    admin.wait_for_url(re.compile(r"/requisitions/\d+/$"))
    req_id = int(admin.url.rstrip("/").rsplit("/", 1)[1])
    admin.select_option("#assign-user", label="Hana Manager")
    admin.click("#assign")
    expect(admin.locator("#req-status")).to_contain_text("Hiring managers: Hana Manager")
    # A second requisition nobody assigned to Hana: she must not see it.
    other_req_id = sh.requisition(title="Java developer", must="Java", nice="").requisition_id

    upload(admin, tmp_path, {"maria-viewer.pdf": two_page_cv()}, requisition="Data engineer")
    wait_all_terminal(admin, 1)
    # The talent pool: no requisition, so outside Hana's scope.
    upload(admin, tmp_path, {"otto-outside.pdf": unique_pdf("Otto Outside")})
    wait_all_terminal(admin, 1)
    maria, otto = _candidate_of("maria-viewer.pdf"), _candidate_of("otto-outside.pdf")
    admin.goto(f"/requisitions/{req_id}/")  # Maria applied there, by name; Otto did not
    expect(admin.locator("main")).to_contain_text("Maria Viewer")
    expect(admin.locator("main")).not_to_contain_text("Otto Outside")
    # The admin-only actions on a person's page, and the original file.
    admin.goto(f"/candidates/{maria}")
    expect(admin.locator("#erase-link")).to_be_visible()
    wait_for_pages(admin, admin.url, 2)
    expect(admin.locator(".viewer-download")).to_have_count(1)
    axe["candidate (admin)"] = harness.axe_violations(admin)

    # --- The hiring manager: lands on the candidates list, her requisition's people only.
    hm = login(chromium, web, "hiring_manager")
    assert hm.url.endswith("/candidates/")
    nav = hm.locator("nav[aria-label=Main]").inner_text()
    assert "Candidates" in nav and "Requisitions" in nav
    assert "Inbox" not in nav and "Upload" not in nav and "Ops" not in nav
    listing = hm.locator("main").inner_text()
    assert "Maria Viewer" in listing and "Otto Outside" not in listing
    axe["candidates (hiring manager)"] = harness.axe_violations(hm)
    follow(hm, "nav >> text=Requisitions")
    expect(hm.locator("main")).to_contain_text("Data engineer")
    expect(hm.locator("main")).not_to_contain_text("Java developer")

    # Reads the CV: both pages at reading size; the original is not offered to her role.
    hm.goto("/candidates/")
    hm.click("text=Maria Viewer")
    wait_for_pages(hm, hm.url, 2)
    for n in (1, 2):
        img = hm.locator(f".cv-page[data-page='{n}'] img")
        assert img.bounding_box()["width"] >= 800, f"page {n} below reading size"
        assert img.evaluate("i => i.naturalWidth") == 1240
    expect(hm.locator(".viewer-download")).to_have_count(0)
    # Only what she can act on: no duplicates or merge journal (record-keepers' work).
    expect(hm.locator("#dups-h")).to_have_count(0)
    expect(hm.locator("#merges-h")).to_have_count(0)
    assert hm.request.get(f"/documents/{_doc('maria-viewer.pdf')}/original").status == 403
    axe["candidate (hiring manager)"] = harness.axe_violations(hm)

    # Decides at her stage: advance to interview with a reason; recorded under her name.
    row = hm.locator("#candidate-applications tbody tr").first
    app_id = int((row.get_attribute("id") or "").rsplit("-", 1)[1])
    hm.select_option(f"#stage-{app_id}", "interview")
    hm.fill(f"#reason-{app_id}", "CV reads well: Python and PostgreSQL")
    row.locator("button[type=submit]").click()
    expect(hm.locator(f"#cand-app-{app_id} .stage")).to_have_text("Interview")
    hm.goto(f"/applications/{app_id}/")
    decision = hm.locator("#decisions tbody tr").first
    expect(decision).to_contain_text("Hana Manager")
    expect(decision).to_contain_text("CV reads well")
    axe["application (hiring manager)"] = harness.axe_violations(hm)

    # Outside her scope: the candidate, his page images and the other requisition answer
    # exactly what an unknown id answers - a "Not found" page.
    unknown = hm.goto(f"/candidates/{UNKNOWN}")
    assert unknown is not None and unknown.status == 404
    unknown_text = hm.locator("main").inner_text()
    response = hm.goto(f"/candidates/{otto}")
    assert response is not None and response.status == 404
    expect(hm.locator("h1")).to_have_text("Not found")
    assert hm.locator("main").inner_text() == unknown_text
    assert "Otto" not in hm.content()
    axe["not found (hiring manager)"] = harness.axe_violations(hm)
    assert hm.request.get(f"/documents/{_doc('otto-outside.pdf')}/pages/1.png").status == 404
    response = hm.goto(f"/requisitions/{other_req_id}/")
    assert response is not None and response.status == 404

    assert {name: v for name, v in axe.items() if v} == {}
    print(f"axe-core: {len(axe)} pages, 0 serious/critical violations; wait limit {WAIT_MS} ms")


def _doc(filename: str) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT id FROM intake_attachment WHERE filename = %s", [filename])
        return int(cur.fetchone()[0])
