"""OCR render size for images whose page is not their header's width x height.

Found by running other projects' test corpora through the sandbox: Pillow's
``orientation_rectangle.jpg`` (EXIF-turned: MuPDF swaps the page's axes), its fax TIFFs
(x and y resolution differ) and a 48996 x 127 px JPEG in qpdf's fuzz corpus (wider
than Tesseract accepts). Every input here is generated; no fetched file is used.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pymupdf
import pytest

from ats.parsing.api import ErrorCode, ParseError, ParseLimits, parse_document
from ats.parsing.data import WarningCode
from tests import corpus

TESSERACT_MAX_SIDE = 32767


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[float, float]]]:
    """Records the size in pixels of every page render handed to Tesseract."""
    seen: list[tuple[float, float]] = []
    original = pymupdf.Page.get_textpage_ocr

    def spy(self: pymupdf.Page, *args: object, **kwargs: object) -> pymupdf.TextPage:
        dpi = float(kwargs["dpi"])  # type: ignore[arg-type]
        seen.append((self.rect.width * dpi / 72, self.rect.height * dpi / 72))
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pymupdf.Page, "get_textpage_ocr", spy)
    yield seen


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """Insert a minimal EXIF APP1 segment (one IFD entry: Orientation) after SOI."""
    entry = struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + entry + b"\x00\x00\x00\x00"
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def _text_strip(width_pt: float, height_pt: float, fontsize: float) -> pymupdf.Pixmap:
    doc = pymupdf.open()
    page = doc.new_page(width=width_pt, height=height_pt)
    page.insert_text((20, height_pt * 0.7), f"{corpus.CANDIDATE_NAME} {corpus.CANDIDATE_EMAIL}", fontsize=fontsize)
    return page.get_pixmap(dpi=72, colorspace=pymupdf.csGRAY, alpha=False)


def test_exif_turned_photo_renders_within_the_ocr_budget(renders: list[tuple[float, float]]) -> None:
    # A phone photo of a CV: stored landscape, EXIF orientation 6 (turn 90 degrees
    # clockwise to display). The render was sized from the stored width but laid
    # over the turned page, so it came out (w/h)^2 over budget (2x here; an 8000 x
    # 1500 px photo became a 341 MP render).
    doc = pymupdf.open(stream=corpus.png_scan(150), filetype="png")
    stored = doc[0].get_pixmap(matrix=pymupdf.Matrix(1, 1).prerotate(-90), colorspace=pymupdf.csGRAY)
    jpeg = _with_exif_orientation(stored.tobytes("jpeg"), 6)
    limits = ParseLimits(max_ocr_pixels=3_000_000)

    result = parse_document(jpeg, kind="jpeg", limits=limits)

    assert corpus.CANDIDATE_EMAIL in result["text"]
    # The page first; any later render is a strip read again (an address, a large line).
    (width, height) = renders[0]
    assert all(w * h <= limits.max_ocr_pixels for w, h in renders)
    # Displayed upright (portrait), at the photo's own resolution: not downscaled.
    assert (round(width), round(height)) == (stored.height, stored.width)
    assert not any(w.startswith(WarningCode.OCR_DOWNSCALED) for w in result["warnings"])
    # Blocks are in pixels of the image as displayed.
    assert all(b["bbox"][2] <= stored.height + 1 and b["bbox"][3] <= stored.width + 1 for b in result["blocks"])


def test_unequal_resolution_tags_stay_within_the_ocr_budget(renders: list[tuple[float, float]]) -> None:
    # x and y density differ (fax TIFFs do this legitimately; here 300 x 10 dpi):
    # MuPDF stretches the page by their ratio, and the old per-width sizing made a
    # 3 MP image a 90 MP render.
    pix = _text_strip(2000, 1500, 60)
    pix.set_dpi(300, 10)
    limits = ParseLimits()

    try:
        parse_document(pix.tobytes("jpeg"), kind="jpeg", limits=limits)
    except ParseError as exc:  # the stretched strip need not be legible; the size matters
        assert exc.code is ErrorCode.EMPTY_DOCUMENT, exc

    (width, height) = renders[0]
    assert all(w * h <= limits.max_ocr_pixels for w, h in renders)
    assert width * height <= limits.max_ocr_pixels * 1.01
    assert max(width, height) < TESSERACT_MAX_SIDE


def test_image_wider_than_tesseract_accepts_is_downscaled(renders: list[tuple[float, float]]) -> None:
    # 40000 x 120 px is within the pixel caps (4.8 MP) but over Tesseract's 32767 px
    # side limit: it failed as ocr_failed after paying for the render.
    png = _text_strip(40_000, 120, 80).tobytes("png")

    result = parse_document(png, kind="png", limits=ParseLimits())

    assert corpus.CANDIDATE_EMAIL in result["text"]
    assert any(w.startswith(WarningCode.OCR_DOWNSCALED) for w in result["warnings"])
    assert max(renders[0]) < TESSERACT_MAX_SIDE


def test_pdf_ribbon_page_is_downscaled_under_tesseract_limit(renders: list[tuple[float, float]]) -> None:
    # A 14400 x 60 pt scanned page: the area budget alone allowed 268 dpi, i.e. a
    # 53600 px wide render that Tesseract refuses.
    doc = pymupdf.open()
    page = doc.new_page(width=14_400, height=60)
    page.insert_image(page.rect, stream=_text_strip(14_400, 60, 40).tobytes("png"))
    limits = ParseLimits()

    result = parse_document(doc.tobytes(), kind="pdf", limits=limits)

    assert result["ocr_pages"] == 1
    assert corpus.CANDIDATE_EMAIL in result["text"]
    assert max(renders[0]) < TESSERACT_MAX_SIDE
