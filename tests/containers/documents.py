"""Distinct CVs for the container smoke (distinct bytes and people, so nothing is a duplicate)."""

from __future__ import annotations

import pymupdf

# The standard antivirus test file (not malware), assembled at runtime; clamd knows it from
# the project's test signature (services/worker-default/clamav/ats-eicar.ndb).
from tests.scanning.samples import EICAR, TEST_SIGNATURE

__all__ = ["EICAR", "TEST_SIGNATURE", "scanned_cv", "text_cv"]


def _lines(tag: str) -> tuple[str, ...]:
    return (
        f"Alex Smoke {tag}",
        f"alex.smoke.{tag.lower()}@example.com",
        "+44 20 7946 0000",
        "",
        "Experience",
        "Platform engineer, containers and Kubernetes",
        "Python, Postgres, podman",
    )


def _page(doc: pymupdf.Document, lines: tuple[str, ...], fontsize: float) -> None:
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for line in lines:
        if line:
            page.insert_text((72, y), line, fontsize=fontsize, fontname="helv")
        y += fontsize * 1.6


def text_cv(tag: str) -> bytes:
    doc = pymupdf.open()
    _page(doc, _lines(tag), 14)
    return bytes(doc.tobytes(deflate=True, garbage=3))


def scanned_cv(tag: str) -> bytes:
    """Only an image of the page: the untrusted worker must OCR it."""
    src = pymupdf.open()
    _page(src, _lines(tag), 16)
    png = src[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY, alpha=False).tobytes("png")
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_image(page.rect, stream=png)
    return bytes(doc.tobytes(deflate=True, garbage=3))
