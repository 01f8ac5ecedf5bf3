"""The OCR time budget (ParseLimits.ocr_time_budget_s): once a parse has run that long,
no further scanned page is OCRed, the pages left are named in the warning
"ocr_time_budget", and the first page is always read. Without it a long scan or a loaded
machine lost the whole document to the sandbox's 90 s timeout (tests/thirdparty's fax
TIFFs: 135-227 s wall at load 14 on 2 cores)."""

from __future__ import annotations

import dataclasses

import pytest

from ats.candidates import identity
from ats.parsing.api import ParseLimits, parse_document
from ats.parsing.data import WarningCode
from tests import corpus


def _three_page_scans() -> list[tuple[bytes, str]]:
    page = corpus.png_scan(150)
    return [(corpus._image_pdf([page, page, page]), "pdf"), (corpus.tiff_scan(pages=3, dpi=150), "tiff")]


@pytest.mark.parametrize("which", [0, 1], ids=["pdf", "tiff"])
def test_a_spent_budget_stops_further_pages_and_says_so(which: int, limits: ParseLimits) -> None:
    data, kind = _three_page_scans()[which]
    spent = dataclasses.replace(limits, ocr_time_budget_s=1e-6)
    result = parse_document(data, kind=kind, limits=spent)
    # The first page is read all the same: the budget only stops a further page.
    assert result["pages"] == 3 and result["ocr_pages"] == 1
    assert corpus.CANDIDATE_EMAIL in result["text"]
    [warning] = [w for w in result["warnings"] if w.startswith(WarningCode.OCR_TIME_BUDGET)]
    assert warning.startswith("ocr_time_budget: 2 scanned pages not OCRed (cpu time budget"), warning
    # The candidate gate counts the unread pages as pages without a text layer.
    assert identity.read_by_ocr_only(result)


@pytest.mark.parametrize("which", [0, 1], ids=["pdf", "tiff"])
def test_within_the_budget_every_page_is_read(which: int, limits: ParseLimits) -> None:
    data, kind = _three_page_scans()[which]
    result = parse_document(data, kind=kind, limits=limits)
    assert result["ocr_pages"] == 3
    assert not any(w.startswith(WarningCode.OCR_TIME_BUDGET) for w in result["warnings"])


def test_the_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="ocr_time_budget_s"):
        ParseLimits(ocr_time_budget_s=0)
