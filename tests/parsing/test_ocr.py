"""OCR through PyMuPDF's built-in Tesseract recovers the scanned CV's words."""

from __future__ import annotations

import dataclasses

import pytest

from ats.parsing.api import ErrorCode, ParseError, ParseLimits, parse_document
from ats.parsing.data import WarningCode
from tests import corpus

SCANS = [
    ("scanned_pdf", "pdf"),
    ("png_scan", "png"),
    ("jpeg_scan", "jpeg"),
    ("tiff_scan", "tiff"),
]


@pytest.mark.parametrize(("name", "kind"), SCANS)
def test_scan_is_ocred(name: str, kind: str, limits: ParseLimits) -> None:
    result = parse_document(getattr(corpus, name)(), kind=kind, limits=limits)
    assert result["ocr_used"] and result["ocr_pages"] == 1
    for word in corpus.OCR_WORDS:
        assert word in result["text"], (word, result["text"])
    assert result["text"].startswith(corpus.CANDIDATE_NAME)
    # Section gaps in the scan become paragraph breaks, line gaps do not.
    assert len(result["text"].split("\n\n")) == 3
    assert any(corpus.CANDIDATE_EMAIL in b["text"] for b in result["blocks"])
    # No thumbnail from the parse any more: the trusted side downscales page 1's render.
    assert result["thumbnail"] is None


def test_image_blocks_are_in_source_pixels(limits: ParseLimits) -> None:
    pix = corpus.scan_pixmap(200)
    result = parse_document(corpus.png_scan(200), kind="png", limits=limits)
    assert result["bbox_unit"] == "px"
    name_block = result["blocks"][0]
    x0, y0, x1, y1 = name_block["bbox"]
    # The name is drawn at (72 pt, 90 pt) on the A4 page rendered at 200 dpi.
    assert abs(x0 - 72 * 200 / 72) < 15 and 0 < y0 < 90 * 200 / 72 < y1 + 20
    assert x1 <= pix.width and y1 <= pix.height


def test_only_the_scanned_page_of_a_mixed_pdf_is_ocred(limits: ParseLimits) -> None:
    result = parse_document(corpus.mixed_pdf(), kind="pdf", limits=limits)
    assert result["pages"] == 2 and result["ocr_pages"] == 1
    assert {b["page"] for b in result["blocks"]} == {1, 2}
    assert result["text"].count(corpus.CANDIDATE_EMAIL) == 2


def test_multi_page_tiff(limits: ParseLimits) -> None:
    result = parse_document(corpus.tiff_scan(pages=2, dpi=150), kind="tiff", limits=limits)
    assert result["pages"] == 2 and result["ocr_pages"] == 2
    assert result["text"].count(corpus.CANDIDATE_EMAIL) == 2


def test_ocr_page_cap(limits: ParseLimits) -> None:
    capped = dataclasses.replace(limits, max_ocr_pages=1)
    result = parse_document(corpus.tiff_scan(pages=2, dpi=150), kind="tiff", limits=capped)
    assert result["pages"] == 2 and result["ocr_pages"] == 1
    assert any(w.startswith(WarningCode.OCR_PAGE_CAP) for w in result["warnings"])


def test_no_ocr_budget_means_empty(limits: ParseLimits) -> None:
    with pytest.raises(ParseError) as info:
        parse_document(corpus.scanned_pdf(), kind="pdf", limits=dataclasses.replace(limits, max_ocr_pages=0))
    assert info.value.code == ErrorCode.EMPTY_DOCUMENT


def test_large_renders_are_downscaled_not_refused(limits: ParseLimits) -> None:
    small = dataclasses.replace(limits, max_ocr_pixels=3_000_000)
    for data, kind in ((corpus.png_scan(), "png"), (corpus.scanned_pdf(), "pdf")):
        result = parse_document(data, kind=kind, limits=small)
        assert any(w.startswith(WarningCode.OCR_DOWNSCALED) for w in result["warnings"])
        assert corpus.CANDIDATE_EMAIL in result["text"]


def test_missing_tessdata_is_ocr_failed(limits: ParseLimits, tmp_path) -> None:
    broken = dataclasses.replace(limits, tessdata_dir=str(tmp_path))
    with pytest.raises(ParseError) as info:
        parse_document(corpus.png_scan(), kind="png", limits=broken)
    assert info.value.code == ErrorCode.OCR_FAILED
    # A digital PDF never needs OCR, so it does not care.
    assert parse_document(corpus.text_pdf(), kind="pdf", limits=broken)["text"]
