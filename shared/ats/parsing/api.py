"""Facade of the pure document extractors (no Django, database, queue or network).

Meant to run inside the sandbox child forked from a pre-warmed zygote:

    prewarm()                      # in the zygote, before forking
    parse_document(data, kind="pdf", limits=ParseLimits())   # in the child

After ``prewarm()`` a parse imports no module and opens no file except
Tesseract's read-only tessdata (tests/parsing/test_prewarm.py checks this with an
audit hook). Not thread-safe: MuPDF's warning buffer is process-global, and a
sandbox child parses one document.
"""

from __future__ import annotations

import codecs
import contextlib
from typing import Any

from . import _docx, _mupdf, _samples
from ._common import Collector
from ._text import normalize_text
from .data import (
    DEFAULT_LIMITS,
    ERROR_CODES,
    KINDS,
    SCHEMA_VERSION,
    ErrorCode,
    ParseError,
    ParseLimits,
    ParsingError,
    WarningCode,
)
from .render import render_page

__all__ = [
    "DEFAULT_LIMITS",
    "ERROR_CODES",
    "KINDS",
    "SCHEMA_VERSION",
    "ErrorCode",
    "ParseError",
    "ParseLimits",
    "ParsingError",
    "WarningCode",
    "normalize_text",
    "parse_document",
    "prewarm",
    "render_page",
]


def parse_document(data: bytes, *, kind: str, limits: ParseLimits) -> dict[str, Any]:
    """Extract text (and layout, tables) from one untrusted document.

    ``kind`` comes from the trusted side's magic-byte detection and is enforced:
    bytes that are not of that kind fail as ``corrupt``. Raises only ``ParseError``
    (see ``ErrorCode``) for anything the input can cause. Returns (schema 1), JSON-
    serialisable and valid UTF-8::

        schema              2 (1 had no block lines and no elements)
        kind                as given
        text                normalised (see normalize_text), <= max_text_chars
        pages               PDF/TIFF pages, 1 for PNG/JPEG, estimate for DOCX
        blocks              [{"page": 1-based, "bbox": [x0, y0, x1, y1], "text",
                              "lines": [{"bbox", "text", "size"}]}]
                            PDF layout / OCR blocks in reading order, each with its
                            lines (OCR lines too) and their font size; [] for DOCX
        elements            DOCX reading order: [{"part": header|body|table|textbox|
                            footer, "index" (within the part), "text", and "style"
                            (paragraphs) or "table", "row", "col" (cells)}]; []
        bbox_unit           "pt" (PDF, 1/72 in, origin top-left), "px" (images), None
        paragraphs          DOCX paragraphs (headers, body, text boxes, footers); []
        tables              DOCX top-level tables: rows of cell strings, one per
                            w:tc (merged cells are not repeated); []
        ocr_used, ocr_pages whether/how many pages came from Tesseract
        thumbnail           None (schema 3 allowed first-page raw pixels here; the
                            thumbnail is now made on the trusted side from page 1's
                            render, ats.intake.pages)
        warnings            ["code" | "code: detail"], codes from WarningCode
    """
    if kind not in KINDS:
        raise ParseError(ErrorCode.UNSUPPORTED, f"unknown kind {kind!r}")
    data = bytes(data)
    if not data:
        raise ParseError(ErrorCode.CORRUPT, "empty input")
    if len(data) > limits.max_bytes:
        raise ParseError(ErrorCode.TOO_LARGE, f"{len(data)} bytes > {limits.max_bytes}")
    col = Collector(kind, limits)
    _mupdf.begin()
    try:
        if kind == "pdf":
            result = _mupdf.parse_pdf(data, limits, col)
        elif kind == "docx":
            result = _docx.parse_docx(data, limits, col)
        else:
            result = _mupdf.parse_image(data, kind, limits, col)
    except ParseError:
        raise
    except MemoryError:
        raise ParseError(ErrorCode.TOO_LARGE, "out of memory") from None
    except RecursionError:
        raise ParseError(ErrorCode.CORRUPT, "structure nested too deeply") from None
    except Exception as exc:
        # Each extractor maps its libraries' failures; reaching here is our bug.
        raise ParseError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}") from None
    _mupdf.collect_warnings(col)
    return result


_state = {"prewarmed": False}


def prewarm() -> None:
    """Import and run every code path once so a forked, sandboxed child needs no
    imports or file opens (bar tessdata). Idempotent; ~0.1 s after imports.
    """
    if _state["prewarmed"]:
        return
    _mupdf.configure()
    samples = _samples.samples()
    # One OCR run covers Tesseract's one-time initialisation; the other image
    # kinds only need their decoders, which the page renders below exercise.
    no_ocr = ParseLimits(max_ocr_pages=0)
    # Tesseract's code paths warm up the same with the small "eng" model; loading the
    # Latin-script model here would add ~0.8 s to every zygote start, and each OCR
    # call reads its traineddata again anyway. Every OCR run here uses "eng": the PNG
    # run with the default (Latin) model left ~85 MB of Tesseract's heap in every
    # zygote, shared copy-on-write with its spare child (docs/benchmarks.md, memory).
    # No script test either: it would load every script model (~46 MB of traineddata) into
    # each zygote; the test's code is the OCR and text paths warmed here.
    eng_ocr = ParseLimits(ocr_dpi=72, ocr_language="eng", ocr_scripts=())
    runs: list[tuple[str, str, ParseLimits]] = [
        ("pdf", "pdf", DEFAULT_LIMITS),
        ("scanned_pdf", "pdf", eng_ocr),
        ("png", "png", eng_ocr),
        ("jpeg", "jpeg", no_ocr),
        ("tiff", "tiff", no_ocr),
        ("docx", "docx", DEFAULT_LIMITS),
    ]
    for sample, kind, limits in runs:
        try:
            parse_document(samples[sample], kind=kind, limits=limits)
        except ParseError as exc:
            if exc.code is not ErrorCode.EMPTY_DOCUMENT:
                raise RuntimeError(f"prewarm {sample} failed: {exc}") from exc
    _mupdf.prewarm_band_ocr(samples["scanned_pdf"])
    # Page rendering for the viewer (grey pixmaps, zlib, MuPDF's DOCX layout engine): a
    # sandboxed child cannot load code paths lazily.
    for sample, kind in (("pdf", "pdf"), ("png", "png"), ("jpeg", "jpeg"), ("tiff", "tiff"), ("docx_layout", "docx")):
        render_page(samples[sample], kind=kind, page=1, limits=DEFAULT_LIMITS)
    # Failure paths: MuPDF's repair code and exception classes, zip errors, and the
    # truncation branch of the normaliser.
    for kind, data in (
        ("pdf", samples["pdf"][: len(samples["pdf"]) // 2]),
        ("pdf", b"%PDF-1.7\n" + bytes(range(256))),
        ("docx", samples["docx"][:-40]),
        ("png", samples["png"][:100]),
    ):
        with contextlib.suppress(ParseError):
            parse_document(data, kind=kind, limits=DEFAULT_LIMITS)
    normalize_text("pre\u0301warm\u00a0 \u2029text", max_chars=5)
    for encoding in ("utf-16-le", "utf-16-be", "latin-1", "ascii"):
        codecs.getincrementaldecoder(encoding)
    _release_freed_heap()
    _state["prewarmed"] = True


def _release_freed_heap() -> None:
    """Tesseract and MuPDF free their warm-up buffers, but glibc keeps the freed heap
    mapped: hand it back, or every zygote (and, copy-on-write, its children) carries it.
    Measured: 52 -> 36 MB private after prewarm (docs/benchmarks.md, memory)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


def warmup_documents() -> list[tuple[str, bytes]]:
    """Small trusted documents a fresh sandbox child parses while idle, so its
    copy-on-write page faults happen before a real document arrives."""
    samples = _samples.samples()
    return [("docx", samples["docx"]), ("pdf", samples["pdf"])]
