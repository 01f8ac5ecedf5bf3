"""Plain data types of the document extractors: limits, error codes, result schema.

This module is imported on the trusted side too (to build limits and to decode a
sandbox child's answer), so it stays stdlib-only and cheap to import.
"""

from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass, field
from typing import Any, Final

from ats.errors import AtsError

# 2: blocks carry their lines (bbox, text, font size); DOCX answers carry `elements`
# (paragraphs with style, table cells, headers/footers, text boxes in reading order).
# 3: the first-page thumbnail is raw pixels (`thumbnail`: width, height, channels 1|3,
# pixels_b64), no longer a PNG made by the child (`thumbnail_png_b64`): the trusted side
# encodes the PNG itself, so no attacker-chosen chunk reaches a browser.
# Within 3, optional and additive: a DOCX element may carry `at`, one entry per line of
# its text, [page, x0, y0, x1, y1] (points on DOCX_LAYOUT's page, as the viewer renders it)
# or null where the line was not found on the laid-out pages.
SCHEMA_VERSION: Final = 3
# A digital line's style runs (`runs`, within schema 3: optional and additive): at most
# this many [end, style, size] entries; a line of more spans carries none.
MAX_RUNS_PER_LINE: Final = 8

# Answers the trusted side still accepts (the previous schema for one release after the
# bump; a schema 2 answer's child-made PNG is dropped, see ats.sandbox.validate).
ACCEPTED_SCHEMA_VERSIONS: Final = frozenset({2, 3})

# MuPDF lays a DOCX out on this page (points: A4) and font size, both for the viewer's
# page images (ats.parsing.render) and for locating DOCX lines on them (_docx.locate).
DOCX_LAYOUT_WIDTH: Final = 595.0
DOCX_LAYOUT_HEIGHT: Final = 842.0
DOCX_LAYOUT_FONTSIZE: Final = 11
# Located pages: the viewer's limit (ParseLimits.max_pages' default).
DOCX_LOCATE_PAGES: Final = 20

# The trusted side decides the kind from magic bytes; the extractor never guesses.
KINDS: Final = frozenset({"pdf", "docx", "png", "jpeg", "tiff"})
IMAGE_KINDS: Final = frozenset({"png", "jpeg", "tiff"})


class ErrorCode(enum.StrEnum):
    """Closed set of failure codes a parse can end with.

    Every input maps to one of these or to a result; the sandbox relies on the set
    being closed to store the code in a typed column and to decide on retries
    (none of these is worth retrying: the same bytes fail the same way).
    """

    CORRUPT = "corrupt"  # truncated, garbage, or a structure the library rejects
    ENCRYPTED = "encrypted"  # needs a password we do not have (we never try any)
    UNSUPPORTED = "unsupported"  # well-formed but a variant we do not handle
    TOO_MANY_PAGES = "too_many_pages"
    TOO_LARGE = "too_large"  # input bytes over the cap, or a library ran out of memory
    PIXEL_LIMIT = "pixel_limit"  # an image claims more pixels than we decode
    DECOMPRESSION_BOMB = "decompression_bomb"  # zip sizes/ratio/count/overlap
    XML_BOMB = "xml_bomb"  # a DTD / entity declaration inside an OOXML part
    EMPTY_DOCUMENT = "empty_document"  # parsed fine, no text even after OCR
    OCR_FAILED = "ocr_failed"  # text had to come from OCR and Tesseract failed
    # A bug in the extractor, never an expected answer for any input; the mutation
    # tests assert it does not occur.
    INTERNAL = "internal"


ERROR_CODES: Final = frozenset(code.value for code in ErrorCode)

_DETAIL_MAX = 500


class ParsingError(AtsError):
    """Base of the errors the parsing module raises on purpose."""


class ParseError(ParsingError):
    """A typed parse failure. ``code`` is always an ``ErrorCode`` member.

    ``args`` is ``(code, detail)`` so the exception pickles, and ``to_dict`` gives
    the JSON form a sandbox child sends back.
    """

    code: ErrorCode
    detail: str

    def __init__(self, code: ErrorCode | str, detail: str = "") -> None:
        # ValueError here is deliberate: an unknown code is a programming error.
        self.code = ErrorCode(code)
        # Details quote library messages, which can carry surrogate-escaped bytes
        # from the document; the child's JSON answer must stay valid UTF-8.
        self.detail = str(detail)[:_DETAIL_MAX].encode("utf-8", "replace").decode("utf-8")
        super().__init__(self.code.value, self.detail)

    def __str__(self) -> str:
        return f"{self.code.value}: {self.detail}" if self.detail else self.code.value

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code.value, "detail": self.detail}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ParseError:
        code = data.get("code")
        if code not in ERROR_CODES:
            return cls(ErrorCode.INTERNAL, f"unknown error code from child: {code!r}")
        return cls(str(code), str(data.get("detail", "")))


class WarningCode(enum.StrEnum):
    """Prefixes of the strings in a result's ``warnings`` list ("code" or "code: detail")."""

    TEXT_TRUNCATED = "text_truncated"
    BLOCKS_TRUNCATED = "blocks_truncated"
    PDF_REPAIRED = "pdf_repaired"
    # Decision: a PDF encrypted with an empty user password (owner password only,
    # "no copy" permissions) opens without a password in every viewer, so we extract
    # it like any other PDF and only note it; the candidate sent it to be read.
    PDF_OWNER_PASSWORD_ONLY = "pdf_owner_password_only"  # noqa: S105 (a code, not a secret)
    OCR_PAGE_CAP = "ocr_page_cap"
    # Pages left without OCR because the parse used ParseLimits.ocr_time_budget_s.
    OCR_TIME_BUDGET = "ocr_time_budget"
    OCR_DOWNSCALED = "ocr_downscaled"
    OCR_SKIPPED = "ocr_skipped"
    OCR_PAGE_FAILED = "ocr_page_failed"
    # No longer emitted (the parse renders no thumbnail); stored reports still carry it.
    THUMBNAIL_FAILED = "thumbnail_failed"
    DOCX_IMAGES_NOT_OCRED = "docx_images_not_ocred"
    MUPDF = "mupdf"


def _default_tessdata_dir() -> str:
    # Looked up once here, without running `tesseract` (PyMuPDF's own fallback
    # shells out, which the sandbox forbids).
    env = os.environ.get("TESSDATA_PREFIX")
    if env:
        return env
    for candidate in (
        "/usr/share/tesseract-ocr/5/tessdata",  # Debian 12 tesseract-ocr-eng
        "/usr/share/tesseract-ocr/4.00/tessdata",
        "/usr/share/tessdata",
    ):
        if os.path.isdir(candidate):
            return candidate
    return "/usr/share/tesseract-ocr/5/tessdata"


DEFAULT_TESSDATA_DIR: Final = _default_tessdata_dir()


def _default_ocr_language(tessdata_dir: str) -> str:
    # Tesseract's Latin-script model (Debian tesseract-ocr-script-latn) reads the accents
    # of every Latin-script language: with "eng", "Hélène Girard", "Michał" and "Begoña"
    # came back as "Helene", "Michat" and "Begona" (extraction corpus, 2026-11). It costs
    # ~2x the OCR time of "eng"; where it is not installed, "eng" is used.
    return "Latin" if os.path.isfile(os.path.join(tessdata_dir, "Latin.traineddata")) else "eng"


DEFAULT_OCR_LANGUAGE: Final = _default_ocr_language(DEFAULT_TESSDATA_DIR)

# Script models a scanned page may need besides Latin, in the order a page is tested for
# them (Japanese before HanS: Japanese text is kana and Han). Debian packages them as
# tesseract-ocr-script-cyrl, -jpan, -hang and -hans; read with the Latin model, a Russian
# CV's name came back as "Dannnn MonceesB" and a Chinese one's as Latin capitals (all 30
# development scans in those scripts, stop 51).
OCR_SCRIPTS: Final = ("Cyrillic", "Japanese", "Hangul", "HanS")


def _default_ocr_scripts(tessdata_dir: str) -> tuple[str, ...]:
    # Only those installed: a machine without them reads every page as Latin, as before.
    return tuple(s for s in OCR_SCRIPTS if os.path.isfile(os.path.join(tessdata_dir, f"{s}.traineddata")))


DEFAULT_OCR_SCRIPTS: Final = _default_ocr_scripts(DEFAULT_TESSDATA_DIR)

# Tesseract builds a path from the language name; keep it to plain traineddata names.
_LANGUAGE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\+[A-Za-z][A-Za-z0-9_]*)*")

MiB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ParseLimits:
    """Caps for one parse. Defaults fit CVs (a few pages) with a wide margin.

    Memory note for the sandbox's RLIMIT_AS: the largest single allocation is a
    decoded image, at most ``max_pixels_per_page`` x 4 bytes (~160 MB at default); a PDF
    page's images together decode to at most the same number of bytes.
    """

    max_pages: int = 20
    # A DOCX has no pages: its count is an estimate from break markers, so it gets its own,
    # looser cap (more is `too_many_pages`). The same number bounds page_count in SQL
    # (ats_parse_submit, from policy/limits.toml).
    max_docx_pages: int = 10_000
    max_bytes: int = 20 * MiB
    # 40 MP covers A4 scanned at 600 dpi (34.8 MP) and 12-24 MP phone photos.
    max_pixels_per_page: int = 40_000_000
    max_text_chars: int = 200_000  # a dense CV is ~5-20k characters
    max_docx_uncompressed_bytes: int = 64 * MiB
    # Word's XML parts compress ~10-35x; bombs are in the 1,000x range.
    max_docx_compression_ratio: float = 100.0
    max_docx_members: int = 1000
    # Caps output size: PDF layout blocks, DOCX paragraphs and DOCX table rows each.
    max_blocks: int = 2000
    ocr_dpi: int = 300
    ocr_language: str = DEFAULT_OCR_LANGUAGE
    # Other scripts a scanned document is tested for on its first OCR'd page (the page's
    # reading decides; ats.parsing._mupdf._script_language); empty: every page is read with
    # ocr_language alone.
    ocr_scripts: tuple[str, ...] = DEFAULT_OCR_SCRIPTS
    tessdata_dir: str = field(default=DEFAULT_TESSDATA_DIR)
    # OCR cost grows with pixels (~0.3 s for A4 at 300 dpi); larger renders are
    # downscaled to this budget rather than refused.
    max_ocr_pixels: int = 12_000_000
    max_ocr_pages: int = 10
    # No new page is OCRed once the parse has run this long (CPU or wall, whichever
    # first). The sandbox kills a parse at 90 s (cpu_soft_s, wall_s) and one page's OCR
    # is bounded by max_ocr_pixels (a dense 8.4 Mpx fax page: 24 s CPU here): without
    # a budget, 10 dense scanned pages (~240 s CPU) or a loaded machine (a 17 s CPU
    # 3-page fax took 135 s wall at load 14 on 2 cores) lose the whole document to a
    # timeout, retried three times. With it, the first pages are read and the rest are
    # named in the warning "ocr_time_budget".
    ocr_time_budget_s: float = 40.0
    # A PDF page with fewer legible characters than this is treated as a scan.
    ocr_min_chars_per_page: int = 16
    thumbnail_width: int = 256

    def __post_init__(self) -> None:
        for name in (
            "max_pages",
            "max_docx_pages",
            "max_bytes",
            "max_pixels_per_page",
            "max_text_chars",
            "max_docx_uncompressed_bytes",
            "max_docx_members",
            "max_blocks",
            "ocr_dpi",
            "max_ocr_pixels",
            "ocr_time_budget_s",
            "thumbnail_width",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"ParseLimits.{name} must be > 0")
        for name in ("max_ocr_pages", "ocr_min_chars_per_page"):
            if getattr(self, name) < 0:
                raise ValueError(f"ParseLimits.{name} must be >= 0")
        if self.max_docx_compression_ratio < 1:
            raise ValueError("ParseLimits.max_docx_compression_ratio must be >= 1")
        if not _LANGUAGE_RE.fullmatch(self.ocr_language):
            raise ValueError(f"ParseLimits.ocr_language is not a traineddata name: {self.ocr_language!r}")
        # A tuple whatever it came as: limits cross to the sandbox as JSON and come from TOML
        # (lists), and equal limits must compare equal.
        object.__setattr__(self, "ocr_scripts", tuple(self.ocr_scripts))
        for script in self.ocr_scripts:
            if script not in OCR_SCRIPTS:
                raise ValueError(f"ParseLimits.ocr_scripts: {script!r} is not one of {OCR_SCRIPTS}")


DEFAULT_LIMITS: Final = ParseLimits()
