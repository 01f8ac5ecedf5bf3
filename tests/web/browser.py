"""What every browser journey in tests/web shares (the `web` and `chromium` fixtures live
in tests/web/conftest.py): the wait, the screenshot directory, signing in and uploading."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ats.devtools import browser as harness
from tests.web.conftest import PASSWORD

# A journey waits on real workers under a loaded machine: generous, never a sleep.
WAIT_MS = 90_000
# `just screenshots` sets this; the normal test run writes nothing into the checkout.
SHOTS = Path(os.environ["ATS_SCREENSHOTS_DIR"]) if os.environ.get("ATS_SCREENSHOTS_DIR") else None
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# The marks of a journey: slow, a real database per test, skipped without chromium / axe.
MARKS = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(harness.chromium_path() is None, reason="chromium is not installed"),
    pytest.mark.skipif(not harness.AXE_JS.exists(), reason="axe-core is not installed (npm install)"),
]


def login(chromium: Any, base: str, username: str, viewport: dict[str, int] | None = None, **kw: Any) -> Any:
    """A new browser context signed in as `username` through the login form."""
    context = chromium.new_context(base_url=base, viewport=viewport or DESKTOP, **kw)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto("/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    follow(page, "button[type=submit]")
    return page


def follow(page: Any, selector: str) -> None:
    """Click what opens another page (a link, a form's submit) and return once that page
    has loaded. A bare click returns when it is dispatched, so a read right after it that
    does not wait (`all_inner_texts`, `count`, `page.url`) may read the page it left: a CI
    run summed the explanation of an application page not yet shown (0 against 67)."""
    with page.expect_navigation():
        page.click(selector)


def upload(page: Any, tmp_path: Path, files: dict[str, bytes], requisition: str | None = None) -> None:
    """Upload `files` (name -> bytes) through the upload page's form, to the requisition
    titled `requisition` (else the talent pool)."""
    paths = []
    for name, data in files.items():
        p = tmp_path / name
        p.write_bytes(data)
        paths.append(str(p))
    page.goto("/upload/")
    page.set_input_files("#files", paths)
    if requisition is not None:
        page.select_option("#requisition", label=requisition)
    page.click("#upload-form button[type=submit]")


def wait_all_terminal(page: Any, count: int) -> None:
    """Wait until the upload page's `count` outcome rows are all terminal."""
    page.wait_for_function(
        "n => { const r = document.querySelectorAll('#outcomes tbody tr');"
        " return r.length === n && [...r].every(x => x.dataset.terminal === 'true'); }",
        arg=count,
        timeout=WAIT_MS,
    )


def two_page_cv(name: str = "Maria Viewer", email: str = "maria.viewer@example.org") -> bytes:
    """A two-page text CV: name, e-mail (at y ~ 100-118 pt from x 72 pt), phone on page 1."""
    import pymupdf

    doc = pymupdf.open()
    first = doc.new_page()
    for i, line in enumerate([name, email, "+44 20 7946 0123", "Python developer"]):
        first.insert_text((72, 90 + 24 * i), line, fontsize=14)
    second = doc.new_page()
    second.insert_text((72, 90), "Experience", fontsize=16)
    second.insert_text((72, 120), "2019-2024 Backend engineer, Django and PostgreSQL", fontsize=12)
    return bytes(doc.tobytes())


def wait_for_pages(page: Any, url: str, count: int) -> None:
    """The pages are stored shortly after the candidate: reload until the viewer has them."""
    for _ in range(60):
        page.goto(url)
        if page.locator(".cv-page img").count() == count:
            break
        page.wait_for_timeout(1000)
    page.wait_for_function(
        "n => { const i = [...document.querySelectorAll('.cv-page img')];"
        " return i.length === n && i.every(x => x.complete && x.naturalWidth > 0); }",
        arg=count,
        timeout=WAIT_MS,
    )
