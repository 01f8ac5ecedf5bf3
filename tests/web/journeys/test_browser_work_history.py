"""The candidate page's Work history section in a real browser (Debian's chromium via
Playwright, gunicorn, real workers) at 1280 and 390 px: a CV uploaded through the upload
page, its roles as the real pipeline read them, the years of experience with the roles they
were added up from, a skill seen twice shown once; no sideways scroll on a phone, and
axe-core finds nothing serious or critical."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ats.devtools import browser as harness
from tests.web.browser import DESKTOP, MARKS, PHONE, SHOTS, login, upload, wait_all_terminal
from tests.web.test_candidate_pages import WORK_HISTORY_CV

pytestmark = MARKS


def _cv_pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    for i, line in enumerate(WORK_HISTORY_CV.splitlines()):
        page.insert_text((72, 72 + 18 * i), line, fontsize=16 if i == 0 else 11)
    return bytes(doc.tobytes())


def test_work_history_at_desktop_and_phone_widths(web: str, chromium: Any, tmp_path: Path) -> None:
    from ats.intake import api as intake_api

    page = login(chromium, web, "recruiter")
    upload(page, tmp_path, {"jane-history.pdf": _cv_pdf()})
    wait_all_terminal(page, 1)
    cid = intake_api.Attachment.objects.get(filename="jane-history.pdf").candidate_id
    assert cid is not None
    page.context.close()
    axe: dict[str, list[str]] = {}
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = login(chromium, web, "recruiter", viewport=viewport)
        page.goto(f"/candidates/{cid}")
        section = page.locator("#work-history-section")
        section.scroll_into_view_if_needed()
        assert section.is_visible()
        rows = page.locator("#work-history tbody tr")
        assert rows.count() == 2, section.inner_text()
        first = rows.first.inner_text()
        assert "Lead Data Engineer" in first and "Northwind Analytics" in first and "2019 \N{EN DASH} present" in first
        assert page.locator("#years-from li").count() == 2
        assert page.locator("#education-entries tbody tr").count() == 1
        # One skills item per skill, however many lines it was read from.
        assert page.locator("#field-skills li.value-group").count() == 1
        display = rows.first.locator("td").first.evaluate("e => getComputedStyle(e).display")
        # A table row at 1280 px, stacked cards with their column's label at 390 px.
        assert display == ("table-cell" if name == "desktop" else "block"), (name, display)
        width = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert width <= 0, f"the candidate page scrolls sideways at {viewport['width']} px"
        axe[name] = harness.axe_violations(page)
        if SHOTS is not None:
            section.screenshot(path=str(SHOTS / f"candidate-work-history-{viewport['width']}.png"))
        page.context.close()
    assert axe == {"desktop": [], "phone": []}, axe
