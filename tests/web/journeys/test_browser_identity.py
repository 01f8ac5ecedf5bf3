"""Issue 28 item 1 in a real browser (Debian's chromium via Playwright, gunicorn, real
workers): an identity-less PDF uploaded with a CV ends "No name or contact details
found", its page shows what was read, and the recruiter attaches it to the CV's
candidate by searching for her name - the document then belongs to that candidate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.web.browser import MARKS, WAIT_MS, follow, login, upload
from tests.web.helpers import unique_pdf

pytestmark = MARKS[:3]  # no axe check here


def _hello_world_pdf() -> bytes:
    """pdfminer's / pikepdf's minimal test PDF: one line, no person, no contact."""
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Hello World", fontsize=14)
    return bytes(doc.tobytes())


def test_identityless_pdf_is_attached_to_an_existing_candidate(web: str, chromium: Any, tmp_path: Path) -> None:
    from ats.intake import api as intake_api

    page = login(chromium, web, "recruiter")
    upload(page, tmp_path, {"ann-smith.pdf": unique_pdf("Ann Smith"), "hello.pdf": _hello_world_pdf()})
    page.wait_for_function(
        "() => { const r = document.querySelectorAll('#outcomes tbody tr');"
        " return r.length === 2 && [...r].every(x => x.dataset.terminal === 'true'); }",
        timeout=WAIT_MS,
    )
    rows = page.locator("#outcomes tbody tr")
    outcomes = {r.locator("td").nth(0).inner_text(): r.get_attribute("data-state") for r in rows.all()}
    assert outcomes == {"ann-smith.pdf": "candidate_created", "hello.pdf": "no_candidate_details"}

    follow(page, "text=hello.pdf")
    expect(page.locator("#doc-state")).to_have_text("No name or contact details found", timeout=WAIT_MS)
    # What was read is on the page: a "name" but no way to reach anyone.
    assert page.locator("#extraction-emails").inner_text() == "none found"
    # Search by name, attach to the person.
    page.fill("#candidate-q", "Ann Smith")
    page.click("#candidate-search")
    results = page.locator("#attach-results li")
    expect(results).to_have_count(1, timeout=WAIT_MS)  # the search answers with one person
    assert "Ann Smith" in results.first.inner_text()
    results.first.locator("button").click()
    expect(page.locator("body")).to_contain_text("Document attached to Ann Smith", timeout=WAIT_MS)
    expect(page.locator("#doc-state")).to_have_text("Candidate created", timeout=WAIT_MS)
    assert page.locator("#identity-actions").count() == 0  # nothing left to decide

    hello = intake_api.Attachment.objects.get(filename="hello.pdf")
    ann = intake_api.Attachment.objects.get(filename="ann-smith.pdf")
    assert hello.state == "candidate_created" and hello.candidate_id == ann.candidate_id is not None
    from ats.candidates.models import Candidate

    # The attached document's own "name" ("Hello World") never renames the person (N3).
    assert Candidate.objects.get(pk=ann.candidate_id).display_name == "Ann Smith"
    # The candidate's page lists both documents.
    page.click("#doc-candidate")
    body = page.locator("body").inner_text()
    assert "Ann Smith" in body
