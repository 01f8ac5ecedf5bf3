"""Parse answers built by hand for the extraction rules' tests: the validated schema-3 shape
the trusted side stores for a PDF (ats.sandbox validate_document), lines given as blocks."""

from __future__ import annotations

from typing import Any


def pdf_answer(blocks: list[dict[str, Any]], *, ocr: bool) -> dict[str, Any]:
    """A PDF's answer from its blocks ({"page", "bbox", "text", "lines"}), OCR'd or not."""
    return {
        "schema": 3,
        "kind": "pdf",
        "text": "\n".join(b["text"] for b in blocks),
        "blocks": blocks,
        "elements": [],
        "ocr_used": ocr,
    }
