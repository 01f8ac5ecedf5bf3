"""The CV viewer in a real browser (issue 23 items 1 and 2): upload a two-page CV through
the page, read both pages at reading size, move between pages with the keyboard, click
the e-mail field's source and see its box lit up on the page image, and read the viewer
on a 390 px phone without scrolling sideways. Real workers render the pages in the
sandbox; the trusted side encodes them (tests/parse_role/test_page_images.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ats.devtools import browser as harness
from tests.web.browser import (
    MARKS,
    SHOTS,
    WAIT_MS,
    follow,
    login,
    two_page_cv,
    upload,
    wait_all_terminal,
    wait_for_pages,
)

pytestmark = MARKS


def _login(chromium: Any, base: str, username: str, width: int = 1280) -> Any:
    return login(chromium, base, username, {"width": width, "height": 900})


def test_read_a_two_page_cv_and_see_where_the_email_came_from(web: str, chromium: Any, tmp_path: Path) -> None:
    page = _login(chromium, web, "recruiter")
    cv = tmp_path / "maria-viewer.pdf"
    cv.write_bytes(two_page_cv())
    page.goto("/upload/")
    page.set_input_files("#files", [str(cv)])
    page.click("#upload-form button[type=submit]")
    page.wait_for_function(
        "() => { const r = document.querySelectorAll('#outcomes tbody tr');"
        " return r.length === 1 && r[0].dataset.terminal === 'true'; }",
        timeout=WAIT_MS,
    )
    assert page.locator("#outcomes tbody tr").get_attribute("data-state") == "candidate_created"
    follow(page, "text=maria-viewer.pdf")
    document_url = page.url

    # 1. Both pages, as images at reading size, on one scrollable page.
    wait_for_pages(page, document_url, 2)
    for n in (1, 2):
        img = page.locator(f".cv-page[data-page='{n}'] img")
        assert img.evaluate("i => i.naturalWidth") == 1240
        assert img.bounding_box()["width"] >= 800, "page image below reading size at 1280 px"
        assert img.get_attribute("alt").startswith(f"Page {n} of 2")
    src = page.locator(".cv-page[data-page='2'] img").get_attribute("src")
    assert src.endswith("/pages/2.png")
    # Zoom doubles the same derivative.
    width = page.locator(".cv-page[data-page='1'] img").bounding_box()["width"]
    page.click(".viewer-zoom")
    assert page.locator(".cv-page[data-page='1'] img").bounding_box()["width"] > 1.8 * width
    page.click(".viewer-zoom")
    # Keyboard: focus the pages, j moves to page 2, k back to page 1.
    page.focus(".viewer-pages")
    page.keyboard.press("j")
    assert page.evaluate("document.activeElement.dataset.page") == "2"
    page.keyboard.press("k")
    assert page.evaluate("document.activeElement.dataset.page") == "1"
    axe = harness.axe_violations(page)
    assert [v for v in axe if "cv-" in v or "viewer" in v] == [], axe

    # 2. On the candidate page: click the e-mail's source, its box lights up on page 1.
    follow(page, "#doc-candidate")
    wait_for_pages(page, page.url, 2)
    button = page.locator("#field-emails .show-source").first
    assert button.inner_text() == "Show on page 1"
    assert page.locator("#field-emails details").first.get_attribute("open") is None  # folded
    button.click()
    box = page.locator(".cv-page[data-page='1'] .cv-box")
    assert box.count() == 1 and box.is_visible()
    assert button.get_attribute("aria-pressed") == "true"
    img_box = page.locator(".cv-page[data-page='1'] img").bounding_box()
    hit = box.bounding_box()
    # The e-mail line sits at y ~ 100-118 pt of an 842 pt page, x from 72 pt: the box is there.
    rel_top = (hit["y"] - img_box["y"]) / img_box["height"] * 842
    rel_left = (hit["x"] - img_box["x"]) / img_box["width"] * 595
    assert 90 <= rel_top <= 125 and 60 <= rel_left <= 80, (rel_top, rel_left)
    assert hit["width"] < img_box["width"] / 2 and hit["height"] < img_box["height"] / 20  # one line, not the page
    if SHOTS is not None:  # `just screenshots`: the viewer with a source lit up, for the README
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "viewer.png"), full_page=False)

    # 3. The viewer at 390 px: no horizontal scroll.
    phone = _login(chromium, web, "recruiter", width=390)
    wait_for_pages(phone, document_url, 2)
    viewer = phone.locator(".cv-viewer")
    assert viewer.evaluate("v => v.scrollWidth <= v.clientWidth")
    assert viewer.bounding_box()["x"] + viewer.bounding_box()["width"] <= 390
    for n in (1, 2):
        img = phone.locator(f".cv-page[data-page='{n}'] img").bounding_box()
        assert img["x"] >= 0 and img["x"] + img["width"] <= 390
    overflow = phone.evaluate("document.documentElement.scrollWidth")
    print(f"document page at 390 px: scrollWidth {overflow} (whole page; the viewer itself fits)")


def _docx_cv() -> bytes:
    import io

    import docx

    document = docx.Document()
    document.add_heading("Dora Docx", level=1)
    for line in ("dora.docx@example.org", "+44 20 7946 0555", "Python developer, Django and PostgreSQL"):
        document.add_paragraph(line)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_docx_cvs_email_box_lights_up_on_its_rendered_page(web: str, chromium: Any, tmp_path: Path) -> None:
    """Issue 23 item 2 for DOCX: the sandbox found the e-mail's line on MuPDF's layout of
    the DOCX (the same layout the page images are rendered from), the trusted side checked
    the box, and "Show on page 1" lights it up where the address is drawn."""
    page = _login(chromium, web, "recruiter")
    upload(page, tmp_path, {"dora-docx.docx": _docx_cv()})
    wait_all_terminal(page, 1)
    assert page.locator("#outcomes tbody tr").get_attribute("data-state") == "candidate_created"
    follow(page, "text=dora-docx.docx")
    follow(page, "#doc-candidate")
    wait_for_pages(page, page.url, 1)
    button = page.locator("#field-emails .show-source").first
    assert button.inner_text() == "Show on page 1"
    button.click()
    box = page.locator(".cv-page[data-page='1'] .cv-box")
    assert box.count() == 1 and box.is_visible()
    img = page.locator(".cv-page[data-page='1'] img").bounding_box()
    hit = box.bounding_box()
    # MuPDF lays the DOCX out on A4 (595 x 842 pt): the address is the line under the
    # heading, at y ~ 105-125 pt from x ~ 33 pt, one line high and shorter than the page.
    top = (hit["y"] - img["y"]) / img["height"] * 842
    left = (hit["x"] - img["x"]) / img["width"] * 595
    assert 90 <= top <= 135 and 20 <= left <= 50, (top, left)
    assert hit["width"] < img["width"] / 2 and hit["height"] < img["height"] / 20
    # The excerpt and the box stay folded behind "details" for anyone who wants the words.
    details = page.locator("#field-emails details").first
    assert details.get_attribute("open") is None
    assert "page 1 box" in details.text_content() and "dora.docx@example.org" in details.text_content()
