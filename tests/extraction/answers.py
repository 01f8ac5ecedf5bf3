"""Parse answers built by hand for the extraction rules' tests: the validated schema-3 shape
the trusted side stores for a PDF (ats.sandbox validate_document), lines given as blocks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ats.extraction.api import extract
from tests.extraction.corpus import AS_OF


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


Row = tuple[tuple[float, float, float, float], str, float]


def block(page: int, bbox: tuple[float, float, float, float], text: str, size: float) -> dict[str, Any]:
    """A one-line block of a PDF's text layer on the given page."""
    return {"page": page, "bbox": list(bbox), "text": text, "lines": [{"bbox": list(bbox), "text": text, "size": size}]}


def rows_answer(rows: Iterable[Row], *, ocr: bool) -> dict[str, Any]:
    """A one-page PDF answer whose lines come in the order given: ((x0, y0, x1, y1), text, size)."""
    return pdf_answer([block(1, bbox, text, size) for bbox, text, size in rows], ocr=ocr)


def styled_block(bbox: tuple[float, float, float, float], text: str, size: float, *, style: int = 0) -> dict[str, Any]:
    """A one-line block of a text layer's line with its style run (what a digital PDF's
    answer carries; `style` is the run's style bits)."""
    line = {"bbox": list(bbox), "text": text, "size": size, "runs": [[len(text), style, size]]}
    return {"page": 1, "bbox": list(bbox), "text": text, "lines": [line]}


def name_of(answer: dict[str, Any]) -> str | None:
    """The name the extractor reads, if any."""
    found = extract(answer, as_of=AS_OF).first("name")
    return None if found is None else str(found)


def roles(answer: dict[str, Any]) -> list[tuple[str | None, str | None, str]]:
    """(title, employer, start) of each work-history entry the extractor reads."""
    found = extract(answer, as_of=AS_OF).fields.get("work_history", ())
    return [(v.value["title"], v.value["employer"], v.value["start"]) for v in found]


def styled_answer(rows: Iterable[Row]) -> dict[str, Any]:
    """A text layer's answer with a style run on every line, its lines in the order given."""
    return pdf_answer([styled_block(bbox, text, size) for bbox, text, size in rows], ocr=False)


def emails_of(answer: dict[str, Any]) -> list[str]:
    """The e-mails the extractor reads, in its order."""
    return list(extract(answer, as_of=AS_OF).values("emails"))
