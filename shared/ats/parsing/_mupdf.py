"""PDF and image extraction through PyMuPDF (MuPDF + its built-in Tesseract).

Everything runs in-process: OCR goes through ``Page.get_textpage_ocr`` with an
explicit ``tessdata`` directory, because PyMuPDF's fallback for a missing one runs
``tesseract --list-langs`` in a subprocess, which the sandbox's seccomp filter kills.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import itertools
import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

import pymupdf

from . import _ocr_email
from ._common import Collector, empty_error
from ._images import image_frames
from .data import ErrorCode, ParseError, ParseLimits, WarningCode

# Whitespace kept for our own normaliser; ligatures expanded ("ﬁ" -> "fi", which
# NFC would not do); text outside the media box dropped (invisible to a reader);
# unknown glyphs become U+FFFD so garbled text layers can be recognised as such.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP

# Below this the render is too coarse for Tesseract to read body text.
_MIN_OCR_DPI = 50
# Tesseract refuses a render wider or taller than 32767 px ("Image too large", then
# "OCR recognise failed"), and MuPDF's OCR device pads the width (a 32765 px render
# reached Tesseract as 32768). Long strips (a ribbon page, a 48996 x 127 px JPEG in
# qpdf's fuzz corpus) are downscaled to stay under this instead of failing OCR.
_MAX_OCR_SIDE = 32_000
_MAX_MUPDF_WARNINGS = 10
_REPLACEMENT_CHAR = "\ufffd"

# PyMuPDF prints its own messages to sys.stdout by default; in a sandbox child
# stdout may be the result pipe, so they go here and become result warnings.
_MESSAGES = io.StringIO()
_state = {"configured": False}


def configure() -> None:
    if _state["configured"]:
        return
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    pymupdf.set_messages(stream=_MESSAGES)
    _state["configured"] = True


def begin() -> None:
    configure()
    pymupdf.TOOLS.reset_mupdf_warnings()
    _MESSAGES.seek(0)
    _MESSAGES.truncate()


def collect_warnings(col: Collector) -> None:
    lines: list[str] = []
    for source in (pymupdf.TOOLS.mupdf_warnings(), _MESSAGES.getvalue()):
        for raw in source.splitlines():
            line = raw.strip()
            if line and line not in lines:
                lines.append(line)
    for line in lines[:_MAX_MUPDF_WARNINGS]:
        col.warn(WarningCode.MUPDF, line)


def _library_error(exc: BaseException, what: str) -> ParseError:
    message = str(exc)
    lowered = message.lower()
    if isinstance(exc, MemoryError) or "malloc" in lowered or "out of memory" in lowered:
        return ParseError(ErrorCode.TOO_LARGE, f"{what}: out of memory")
    return ParseError(ErrorCode.CORRUPT, f"{what}: {message}")


# MuPDF treats ``filetype`` as a hint and sniffs the content: DOCX bytes opened
# "as pdf" go to MuPDF's own Office converter, past our zip guards. So the magic is
# checked before opening and the handler MuPDF picked is checked after.
_PDF_MAGIC = b"%PDF-"
_PDF_MAGIC_WINDOW = 1024  # how far Acrobat looks for the header
_IMAGE_FORMATS = {"png": "Image", "jpeg": "Image", "tiff": "TIFF"}


def pdf_body(data: bytes) -> bytes:
    start = data.find(_PDF_MAGIC, 0, _PDF_MAGIC_WINDOW)
    if start < 0:
        raise ParseError(ErrorCode.CORRUPT, "no %PDF- header")
    # Junk before the header is cut so no other handler can claim the file; MuPDF
    # then repairs the shifted xref offsets (and we report pdf_repaired).
    return data[start:]


def _open(data: bytes, filetype: str) -> pymupdf.Document:
    try:
        doc = pymupdf.open(stream=data, filetype=filetype)
    except Exception as exc:  # MuPDF raises FileDataError, RuntimeError, ValueError...
        raise _library_error(exc, f"cannot open {filetype}") from None
    if filetype == "pdf":
        handled_as = "PDF" if doc.is_pdf else (doc.metadata or {}).get("format")
        expected = "PDF"
    else:
        handled_as = (doc.metadata or {}).get("format")
        expected = _IMAGE_FORMATS[filetype]
    if handled_as != expected:
        doc.close()
        raise ParseError(ErrorCode.CORRUPT, f"{filetype} data opened as {handled_as!r}")
    return doc


def _legible_chars(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace() and ch != _REPLACEMENT_CHAR)


def _has_visual_content(page: pymupdf.Page) -> bool:
    # Only pages that paint something other than text can hold a scan or outlined
    # (vectorised) text; a truly blank page is not worth an OCR run.
    return any(not kind.endswith("-text") for kind, _ in page.get_bboxlog())


# Bytes per pixel of a decoded image by its colour space; an unknown or ICC-based space
# counts as the widest (CMYK or RGB with alpha).
_COMPONENTS = {"DeviceGray": 1, "CalGray": 1, "Separation": 1, "DeviceRGB": 3, "CalRGB": 3, "Lab": 3, "DeviceCMYK": 4}
_WIDEST = 4


def _check_pdf_page_images(doc: pymupdf.Document, pno: int, limits: ParseLimits) -> None:
    # Dimensions come from the image dictionaries, so nothing is decoded here; a
    # Flate bomb declares its true size because the decoder allocates W x H.
    # One image may not exceed the pixel cap (the largest single allocation); all of a
    # page's images together may not exceed what the cap allows one image in bytes. A
    # page's sum of pixels refused an InDesign export whose text layer is whole: sixty
    # full-page grey soft masks of 0.9 MP each (56 MP, 56 MB decoded; v15's mquezada).
    largest = total = 0
    for item in doc.get_page_images(pno):
        pixels = max(int(item[2]), 0) * max(int(item[3]), 0)
        largest = max(largest, pixels)
        total += pixels * _COMPONENTS.get(str(item[5]), _WIDEST)
    if largest > limits.max_pixels_per_page:
        raise ParseError(
            ErrorCode.PIXEL_LIMIT,
            f"page {pno + 1} has an image of {largest} pixels > {limits.max_pixels_per_page}",
        )
    if total > limits.max_pixels_per_page * _WIDEST:
        raise ParseError(
            ErrorCode.PIXEL_LIMIT,
            f"page {pno + 1} images decode to {total} bytes > {limits.max_pixels_per_page * _WIDEST}",
        )


def _ocr_dpi_cap(width_pt: float, height_pt: float, limits: ParseLimits) -> float:
    """Highest render resolution for a page of this size (points) that stays within
    the OCR pixel budget and within Tesseract's limit on each side."""
    return min(
        72 * math.sqrt(limits.max_ocr_pixels / (width_pt * height_pt)),
        72 * _MAX_OCR_SIDE / max(width_pt, height_pt),
    )


def _pdf_ocr_dpi(page: pymupdf.Page, limits: ParseLimits, col: Collector) -> int | None:
    rect = page.rect
    area = float(rect.width) * float(rect.height)  # square points
    if not (area > 0 and math.isfinite(area)):
        return None
    fit = int(_ocr_dpi_cap(float(rect.width), float(rect.height), limits))
    dpi = min(limits.ocr_dpi, fit)
    if dpi < _MIN_OCR_DPI:
        col.warn(WarningCode.OCR_SKIPPED, f"page {page.number + 1} too large to render for OCR")
        return None
    if dpi < limits.ocr_dpi:
        col.warn(WarningCode.OCR_DOWNSCALED, f"page {page.number + 1} at {dpi} dpi")
    return dpi


def _ocr(page: pymupdf.Page, dpi: int, limits: ParseLimits) -> pymupdf.TextPage:
    return page.get_textpage_ocr(
        flags=_TEXT_FLAGS,
        language=limits.ocr_language,
        dpi=dpi,
        full=True,
        tessdata=limits.tessdata_dir,
    )


Block = tuple[float, float, float, float, str]
Line = tuple[tuple[float, float, float, float], str, float]  # bbox, text, font size

# A vertical gap reads as a paragraph break when it is clearly wider than the
# page's usual gap between blocks, and not tiny relative to the text size.
_GAP_OVER_MEDIAN = 1.5
_GAP_OVER_LINE_HEIGHT = 0.6


def _text_blocks(textpage: pymupdf.TextPage) -> list[Block]:
    return [
        (x0, y0, x1, y1, text)
        for x0, y0, x1, y1, text, _, block_type in textpage.extractBLOCKS()
        if block_type == 0 and text.strip()  # 1 = image block
    ]


# A span's style bits in the answer's line runs (schema 3, additive): what tells a role's
# title from its employer when a CV sets one bold and the other italic (docs/extraction.md).
STYLE_BOLD = 1
STYLE_ITALIC = 2
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demibold", re.IGNORECASE)
_ITALIC_FONT = re.compile(r"italic|oblique", re.IGNORECASE)
SpanStyles = dict[tuple[float, float, float, float], list[tuple[str, int, float]]]


@functools.lru_cache(maxsize=256)
def _font_style(font: str) -> int:
    """Style bits a font's name declares ("CMBX10", "Lato-BoldItalic"): a page has a few
    fonts and hundreds of spans, so each name is read once."""
    return (STYLE_BOLD if _BOLD_FONT.search(font) else 0) | (STYLE_ITALIC if _ITALIC_FONT.search(font) else 0)


def _span_style(span: dict[str, Any]) -> int:
    """Bold/italic from MuPDF's span flags or, where a font declares neither, its name."""
    flags = int(span.get("flags") or 0)
    bits = (STYLE_BOLD if flags & pymupdf.TEXT_FONT_BOLD else 0) | (
        STYLE_ITALIC if flags & pymupdf.TEXT_FONT_ITALIC else 0
    )
    return bits | _font_style(str(span.get("font") or "")[:64])


def _block_lines(
    textpage: pymupdf.TextPage, styles: SpanStyles | None = None
) -> dict[tuple[float, float, float, float], list[Line]]:
    """Each text block's lines with their boxes and largest font size, keyed by block bbox.

    Font size is what tells a name (set large) from the title line above it; for OCR
    it is MuPDF's estimate from the glyph boxes. ``styles``, when given (digital text),
    gets each line's spans as (text, style bits, size), keyed by the line's box.
    """
    out: dict[tuple[float, float, float, float], list[Line]] = {}
    for block in textpage.extractDICT()["blocks"]:
        if block.get("type") != 0:
            continue
        lines: list[Line] = []
        for line in block["lines"]:
            spans = line["spans"]
            text = "".join(span["text"] for span in spans)
            if text.strip():
                size = max((float(span["size"]) for span in spans), default=0.0)
                bbox = tuple(line["bbox"])
                lines.append((bbox, text, size))  # type: ignore[arg-type]
                if styles is not None:
                    styles[bbox] = [(span["text"], _span_style(span), float(span["size"])) for span in spans]  # type: ignore[index]
        out[tuple(block["bbox"])] = lines  # type: ignore[index]
    return out


def _page_text(blocks: list[Block]) -> str:
    """Blocks in MuPDF's reading order, with paragraph breaks where the layout has gaps.

    ``TextPage.extractText`` separates every block with a single newline, which
    loses the blank lines between CV sections; MuPDF puts each paragraph (often
    each line, in CVs) in its own block, so the gaps are what is left to go by.
    """
    # Relative to the page's own spacing because bbox heights differ by source:
    # font line height for digital text, ink height for OCR.
    gaps = sorted(b[1] - a[3] for a, b in itertools.pairwise(blocks) if b[1] > a[3])
    usual_gap = gaps[len(gaps) // 2] if gaps else 0.0
    parts: list[str] = []
    prev: Block | None = None
    for block in blocks:
        if prev is not None:
            line_height = (prev[3] - prev[1]) / (prev[4].count("\n") + 1)
            gap = block[1] - prev[3]
            threshold = max(_GAP_OVER_MEDIAN * usual_gap, _GAP_OVER_LINE_HEIGHT * line_height)
            new_column = block[1] < prev[1]
            parts.append("\n\n" if new_column or gap > threshold else "\n")
        # MuPDF ends every line, the block's last one included, with a newline.
        text = block[4].rstrip("\n")
        parts.append(text)
        prev = (*block[:4], text)
    return "".join(parts)


LinesByBlock = dict[tuple[float, float, float, float], list[Line]]

# Tesseract's page layout analysis drops some lines outright: on CV scans, a name set in
# large bold capitals above the body text came back missing at every resolution and with
# every model, while the same line OCR'd on its own was read correctly. So after a
# full-page OCR, horizontal bands of the page that hold ink but no recognised text are
# OCR'd again on their own (at most a few per page, each a narrow strip).
_INK_DPI = 40
_INK_LEVEL = 110  # grey value below which a pixel is ink
# Text set in a light grey (moderncv's name: its darker half's darkest pixels at 112-127 in a
# 150 dpi scan) holds no pixel darker than _INK_LEVEL, and full-page OCR dropped it whole: a
# band inked at this lighter level, with no row inked at _INK_LEVEL, is looked at too. Only
# a band no taller than a line or two of large type: a grey fill (a sidebar, a header's
# panel, a photocopy's shadow) is one tall band and is not text to read again.
_LIGHT_INK_LEVEL = 170
_MAX_LIGHT_BAND_PT = 72.0
# A dark band taller than this is a fill's or a column rule's: a dark sidebar inks every row
# it spans, and its band is the page's height. Read again as one strip, it read the page a
# second time, and every line beside the fill was given twice (stop 73: 159 of
# development's 1,194 scans, every LinkedIn export's among them). Only what the strip reads
# that the page's own reading left out is added: a heading or a name the page's OCR dropped
# (luisenmarroquin's "Technical expertise").
_MAX_DARK_BAND_PT = 150.0
_MIN_BAND_PT = 5.0
_BAND_PAD_PT = 3.0
_MAX_BANDS = 4


def _row_runs(inked: list[bool]) -> list[tuple[int, int]]:
    """(first, end) row indices of each run of inked rows."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for y, row in enumerate([*inked, False]):
        if row and start is None:
            start = y
        elif not row and start is not None:
            runs.append((start, y))
            start = None
    return runs


def _ink_bands(page: pymupdf.Page) -> list[tuple[float, float]]:
    """Vertical extents (points) of the page's horizontal runs of inked rows: the dark
    ones, then the light-grey ones that hold no dark row."""
    pix = page.get_pixmap(dpi=_INK_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    if pix.width <= 0 or pix.height <= 0:
        return []
    scale = float(page.rect.height) / pix.height
    samples, stride, width = pix.samples, pix.stride, pix.width
    dark = bytes(1 if v < _INK_LEVEL else 0 for v in range(256))
    light = bytes(1 if v < _LIGHT_INK_LEVEL else 0 for v in range(256))
    rows = [samples[y * stride : y * stride + width] for y in range(pix.height)]
    dark_rows = [row.translate(dark).count(1) >= 2 for row in rows]
    bands = [(first * scale, end * scale) for first, end in _row_runs(dark_rows)]
    for first, end in _row_runs([row.translate(light).count(1) >= 2 for row in rows]):
        if (end - first) * scale <= _MAX_LIGHT_BAND_PT and not any(dark_rows[first:end]):
            bands.append((first * scale, end * scale))
    return bands


def _uncovered(bands: list[tuple[float, float]], blocks: list[Block]) -> list[tuple[float, float]]:
    out = []
    for y0, y1 in bands:
        if y1 - y0 < _MIN_BAND_PT:
            continue
        covered = max((min(y1, b[3]) - max(y0, b[1]) for b in blocks), default=0.0)
        if covered < 0.5 * (y1 - y0):
            out.append((y0, y1))
    return out[:_MAX_BANDS]


# Light type on a dark fill (a header's banner, a sidebar): Tesseract reads dark type on a
# light ground, and full-page OCR dropped such text whole - development's aupadhyay scan lost
# its name, white on a dark-grey banner, and with it the name field. So a region of the page
# filled flat in a dark grey is OCR'd again as a page of its own with its greys inverted, and
# what it reads that the page's reading left out is added. Flat: a cell of the fill holds
# one grey step mostly - a photo's greys spread, and a photo is no text to read.
_PANEL_LEVEL = 100  # a fill darker than this is dark
_PANEL_CELL_PX = 6  # at _INK_DPI: cells of about 11 pt
_PANEL_MODE_SHARE = 0.4  # of a cell's pixels in its commonest grey step: a fill's cell
_PANEL_CONTRAST = 48  # levels above the fill a light pixel is (thin type blurs at _INK_DPI)
_PANEL_FILLED = 0.8  # share of a panel's bounding box its dark cells fill
_PANEL_MIN_W_PT = 72.0
_PANEL_MIN_H_PT = 18.0
_PANEL_MIN_LIGHT_CELLS = 3  # an empty fill holds no text
_MAX_PANELS = 3
_PANEL_MAX_PIXELS = 250_000  # an A4 page at _INK_DPI is 155k


def _dark_panels(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """Rectangles of the page filled flat in a dark grey, with light pixels in them: the
    bounding boxes of 4-connected runs of dark cells, a cell dark when its commonest grey
    (in steps of 16) is below _PANEL_LEVEL and holds a good share of its pixels - type
    varies a cell's greys, a fill does not, and a photo's greys spread."""
    # at most _PANEL_MAX_PIXELS: a page's cells are walked in Python, and a hostile page may
    # be 200 inches a side
    inches = max(float(page.rect.width) * float(page.rect.height) / 72.0 / 72.0, 1.0)
    dpi = max(1, min(_INK_DPI, int(math.sqrt(_PANEL_MAX_PIXELS / inches))))
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    if pix.width < _PANEL_CELL_PX or pix.height < _PANEL_CELL_PX:
        return []
    sx, sy = float(page.rect.width) / pix.width, float(page.rect.height) / pix.height
    samples, stride, c = pix.samples, pix.stride, _PANEL_CELL_PX
    cols, rows = pix.width // c, pix.height // c
    step = bytes(v >> 4 for v in range(256))
    dark: set[tuple[int, int]] = set()
    light_cells: set[tuple[int, int]] = set()
    for r in range(rows):
        lines = [samples[(r * c + dy) * stride : (r * c + dy) * stride + cols * c].translate(step) for dy in range(c)]
        for q in range(cols):
            cell = b"".join(line[q * c : q * c + c] for line in lines)
            counts = [cell.count(v) for v in range(16)]
            mode = max(range(16), key=counts.__getitem__)
            if mode * 16 < _PANEL_LEVEL and counts[mode] >= _PANEL_MODE_SHARE * c * c:
                dark.add((r, q))
                if sum(counts[min(15, mode + _PANEL_CONTRAST // 16) :]) > 0:
                    light_cells.add((r, q))
    out = []
    seen: set[tuple[int, int]] = set()
    for start in sorted(dark):
        if start in seen:
            continue
        seen.add(start)
        todo, part = [start], []
        while todo:
            r, q = todo.pop()
            part.append((r, q))
            for n in _around((r, q)):
                if n in dark and n not in seen:
                    seen.add(n)
                    todo.append(n)
        r0, r1 = min(p[0] for p in part), max(p[0] for p in part) + 1
        q0, q1 = min(p[1] for p in part), max(p[1] for p in part) + 1
        rect = pymupdf.Rect(q0 * c * sx, r0 * c * sy, q1 * c * sx, r1 * c * sy)
        filled = len(part) >= _PANEL_FILLED * (r1 - r0) * (q1 - q0)
        # light pixels inside the fill, not at its edge (where a cell holds the page's white)
        inner = (p for p in part if p in light_cells and all(n in dark for n in _around(p)))
        texty = sum(1 for _ in inner) >= _PANEL_MIN_LIGHT_CELLS
        if rect.width >= _PANEL_MIN_W_PT and rect.height >= _PANEL_MIN_H_PT and filled and texty:
            out.append(rect)
    out.sort(key=lambda rect: -rect.get_area())
    return out[:_MAX_PANELS]


def _around(cell: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    r, q = cell
    return ((r + 1, q), (r - 1, q), (r, q + 1), (r, q - 1))


_PANEL_OVERLAP = 0.3  # of a panel block's area that a block of the page's reading covers
_WORD = re.compile(r"[^\W\d_]{3,}")


def _area(block: Block) -> float:
    return max(block[2] - block[0], 0.0) * max(block[3] - block[1], 0.0)


def _overlap(a: Block, b: Block) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _wordlike(text: str) -> bool:
    """Text with a word of three letters or more, letters most of its characters: an
    inverted photo or icon reads as specks and symbols."""
    chars = [ch for ch in text if not ch.isspace()]
    return bool(_WORD.search(text)) and sum(ch.isalpha() for ch in chars) >= 0.6 * len(chars)


def _inverted_panel(
    page: pymupdf.Page, rect: pymupdf.Rect, dpi: int, limits: ParseLimits
) -> tuple[list[Block], LinesByBlock]:
    """A dark panel read as a page of its own with its greys inverted - its bands' second
    look included: a name set large in light type is dropped by the panel's full OCR as it
    is by a page's (development's aupadhyay scan) - in page coordinates."""

    def read(panel: pymupdf.Page) -> tuple[list[Block], LinesByBlock]:
        found, found_lines, _ = _ocr_blocks(panel, dpi, limits, panels=False)
        return found, found_lines

    return _clip_read(page, rect, dpi, read, invert=True)


_PAGE_WIDE = 0.8  # of the page's width: a panel whose fill inks every row it spans


def _fill_of(y0: float, y1: float, rect: pymupdf.Rect, page: pymupdf.Page) -> bool:
    """Whether a band of inked rows lies within a page-wide panel's rows."""
    pad = _BAND_PAD_PT
    return rect.width >= _PAGE_WIDE * page.rect.width and rect.y0 - pad <= y0 and y1 <= rect.y1 + pad


def _read_dark_panels(
    page: pymupdf.Page,
    dpi: int,
    limits: ParseLimits,
    blocks: list[Block],
    lines: LinesByBlock,
    *,
    panels: list[pymupdf.Rect],
) -> list[Block]:
    """The page's blocks with what each dark panel's inverted reading found that the page's
    own reading left out."""
    for rect in panels:
        try:
            extra, extra_lines = _inverted_panel(page, rect, dpi, limits)
        except Exception:  # noqa: S112 (the page's own reading stands; a failed second look loses nothing)
            continue
        # only what the page's own reading left out: Tesseract reads some light type on a
        # dark fill itself, and that reading stands
        blocks = _left_out_added(blocks, lines, extra, extra_lines)
    return blocks


def _one_line_blocks(blocks: list[Block], lines: LinesByBlock) -> tuple[list[Block], LinesByBlock]:
    """Each block's lines as blocks of their own."""
    out: list[Block] = []
    by_bbox: LinesByBlock = {}
    for block in blocks:
        for line in lines.get(block[:4], []):
            out.append((*line[0], line[1]))
            by_bbox[line[0]] = [line]
    return out, by_bbox


def _left_out_added(
    blocks: list[Block], lines: LinesByBlock, extra: list[Block], extra_lines: LinesByBlock
) -> list[Block]:
    """The page's blocks with a second reading's blocks that overlap none of them (and are
    words, not specks), each in reading order."""
    for block in extra:
        if any(_overlap(block, b) > _PANEL_OVERLAP * _area(block) for b in blocks) or not _wordlike(block[4]):
            continue
        at = next((i for i, b in enumerate(blocks) if b[1] >= block[1]), len(blocks))  # in reading order
        blocks.insert(at, block)
        lines[block[:4]] = extra_lines.get(block[:4], [])
    return blocks


def _clip_read(
    page: pymupdf.Page,
    rect: pymupdf.Rect,
    dpi: int,
    read: Callable[[pymupdf.Page], tuple[list[Block], LinesByBlock]],
    *,
    invert: bool = False,
) -> tuple[list[Block], LinesByBlock]:
    """A clip of the page rendered as a page of its own (``invert``: its greys inverted) and
    read by ``read``; its blocks and lines in the page's coordinates."""
    pix = page.get_pixmap(dpi=dpi, clip=rect, colorspace=pymupdf.csGRAY, alpha=False)
    if invert:
        pix.invert_irect()
    strip = pymupdf.open()
    try:
        strip_page = strip.new_page(width=rect.width, height=rect.height)
        strip_page.insert_image(strip_page.rect, pixmap=pix)
        found, found_lines = read(strip_page)
    finally:
        strip.close()
    dx, dy = float(rect.x0), float(rect.y0)

    def moved(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)

    blocks = [(*moved(b[:4]), b[4]) for b in found]
    lines = {moved(key): [(moved(box), t, size) for box, t, size in value] for key, value in found_lines.items()}
    return blocks, lines


def _ocr_band(
    page: pymupdf.Page, rect: pymupdf.Rect, dpi: int, limits: ParseLimits
) -> tuple[list[Block], LinesByBlock]:
    """OCR one strip of the page on its own; blocks and lines in page coordinates."""

    def read(strip_page: pymupdf.Page) -> tuple[list[Block], LinesByBlock]:
        textpage = _ocr(strip_page, dpi, limits)
        return _text_blocks(textpage), _block_lines(textpage)

    return _clip_read(page, rect, dpi, read)


# Large type read again on its own: in full-page OCR, Tesseract dropped the accents of
# names set large and bold at 150 dpi ("NOÉMIE" -> "NOEMIE", "Martínez" -> "Martinez",
# "Björn" -> "Bjórn") that the same line OCR'd as a strip kept (development scans and a
# development-only stress set, bench/ocr_tune.py). Only the first page's largest lines
# (where a CV's name is), and the strip's reading replaces the page's only when the two
# differ in nothing but accents and case, so a strip cannot add or drop a character.
_REREAD_SIZE_OVER_MEDIAN = 1.4
_MAX_REREADS = 3
_REREAD_PAD = 0.4  # of the line's height, above and below; a full height left and right


def _fold(text: str) -> str:
    """Text without accents, case or spacing differences: what a re-read may not change."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch) and not ch.isspace()).casefold()


def _large_lines(lines: LinesByBlock) -> list[tuple[tuple[float, float, float, float], int]]:
    """The page's largest lines, where a CV's name is: at most ``_MAX_REREADS``, each at
    least ``_REREAD_SIZE_OVER_MEDIAN`` times the median size; (block key, line index)."""
    sizes = sorted(size for block_lines in lines.values() for _, _, size in block_lines if size > 0)
    if not sizes:
        return []
    median = sizes[len(sizes) // 2]
    large = sorted(
        (
            (size, key, i)
            for key, block_lines in lines.items()
            for i, (_, text, size) in enumerate(block_lines)
            if size >= _REREAD_SIZE_OVER_MEDIAN * median and text.strip()
        ),
        key=lambda item: -item[0],
    )[:_MAX_REREADS]
    return [(key, i) for _, key, i in large]


def _reread_large_lines(
    page: pymupdf.Page, dpi: int, limits: ParseLimits, blocks: list[Block], lines: LinesByBlock
) -> list[Block]:
    """Blocks with their largest lines' text replaced by a strip OCR's reading where that
    differs only in accents and case; ``lines`` is updated in place."""
    replaced: dict[tuple[float, float, float, float], list[tuple[str, str]]] = {}
    for key, i in _large_lines(lines):
        (x0, y0, x1, y1), text, size = lines[key][i]
        h = y1 - y0
        rect = pymupdf.Rect(x0 - h, y0 - _REREAD_PAD * h, x1 + h, y1 + _REREAD_PAD * h) & page.rect
        if rect.is_empty:
            continue
        try:
            _, strip_lines = _ocr_band(page, rect, dpi, limits)
        except Exception:  # noqa: S112 (the page's reading stands)
            continue
        old = " ".join(text.split())
        # The strip may also hold a neighbour's edge or a stray mark ("|") as lines of
        # their own: the line that reads like this one is its reading.
        readings = (" ".join(t.split()) for block_lines in strip_lines.values() for _, t, _ in block_lines)
        reading = next((r for r in readings if _fold(r) == _fold(old)), old)
        if reading != old:
            lines[key][i] = ((x0, y0, x1, y1), reading, size)
            replaced.setdefault(key, []).append((text.strip(), reading))
    return _with_lines_replaced(blocks, replaced)


# Large type read again at a size Tesseract reads well. Full-page OCR at the page's
# resolution sees a CV's name 80-120 px tall, far above the 20-40 px Tesseract is trained
# on, and drops or garbles it: a light first name beside a bold family name gone
# ("González" for "Álex González"), a hairline name read as two stray letters ("H", "h"),
# "Bvunagiin Park", "H elge E lch horn" (development scans). The first page's largest
# text rows are cut out as strips, each rendered so the row is 32, 40 and 48 px tall, all
# strips stacked into one image for a single OCR run; a row's reading replaces the page's
# only when at least two of its three strips read the same letters and those differ from
# the page's - an agreement a strip of noise or a neighbour's text does not reach.
_FITTED_ROW_PX = (32, 40, 48)
_FITTED_MAX_ROWS = 3
_FITTED_JOIN_GAP = 3.0  # row heights: pieces of one row closer than this are one text
_FITTED_REACH = 5.0  # row heights a strip reaches past the row's ends (a dropped word)
_FITTED_GAP_PX = 24  # white between stacked strips


def _row_of(line_boxes: list[tuple[float, float, float, float]], start: int) -> list[int]:
    """Indices of the pieces of one text row: ``start`` and the boxes on its baseline band
    chained to it by gaps under ``_FITTED_JOIN_GAP`` row heights."""
    x0, y0, x1, y1 = line_boxes[start]
    h = y1 - y0
    same = [
        i
        for i, (a, b, c, d) in enumerate(line_boxes)
        if min(y1, d) - max(y0, b) >= 0.5 * min(h, d - b) and (d - b) >= 0.4 * h
    ]
    same.sort(key=lambda i: line_boxes[i][0])
    row = [start]
    lo, hi = x0, x1
    grew = True
    while grew:
        grew = False
        for i in same:
            if i in row:
                continue
            a, _, c, _ = line_boxes[i]
            if a - hi <= _FITTED_JOIN_GAP * h and lo - c <= _FITTED_JOIN_GAP * h:
                row.append(i)
                lo, hi = min(lo, a), max(hi, c)
                grew = True
    return row


_FittedRow = tuple[list[tuple[tuple[float, float, float, float], int]], pymupdf.Rect, float, float]


def _fitted_strips(page: pymupdf.Page, dpi: int, lines: LinesByBlock) -> list[_FittedRow]:
    """The rows to read again: (their pieces as (block key, line index), the strip's
    rectangle, the row's top and bottom) for the page's largest rows."""
    flat = [(key, i, bbox, text, size) for key, bl in lines.items() for i, (bbox, text, size) in enumerate(bl)]
    boxes = [bbox for _, _, bbox, _, _ in flat]
    sizes = sorted(size for *_, size in flat if size > 0)
    if not sizes:
        return []
    median = sizes[len(sizes) // 2]
    order = sorted(
        (
            k
            for k, (*_, text, size) in enumerate(flat)
            # A row of no letters (a rule read as "—") is no text.
            if size >= _REREAD_SIZE_OVER_MEDIAN * median and any(ch.isalpha() for ch in text)
        ),
        key=lambda k: -flat[k][4],
    )
    taken: set[int] = set()
    out: list[_FittedRow] = []
    for k in order:
        if len(out) >= _FITTED_MAX_ROWS:
            break
        if k in taken:
            continue
        row = _row_of(boxes, k)
        taken.update(row)
        if any("@" in flat[i][3] for i in row):
            continue  # an address's row: _reread_emails reads it against the name
        y0 = min(boxes[i][1] for i in row)
        y1 = max(boxes[i][3] for i in row)
        x0 = min(boxes[i][0] for i in row)
        x1 = max(boxes[i][2] for i in row)
        h = y1 - y0
        if h <= 0 or h * dpi / 72 < _FITTED_ROW_PX[0]:
            continue  # already small enough: the page's reading stands
        # Reach past the row's ends for a word the page dropped, at most halfway to the
        # next text on the same band, so a neighbour never enters the strip.
        left, right = x0 - _FITTED_REACH * h, x1 + _FITTED_REACH * h
        for a, b, c, d in boxes:
            if min(y1, d) - max(y0, b) >= 0.3 * min(h, d - b) and (a, b, c, d) not in (boxes[i] for i in row):
                if c <= x0:
                    left = max(left, (c + x0) / 2)
                elif a >= x1:
                    right = min(right, (a + x1) / 2)
        rect = pymupdf.Rect(left, y0 - _REREAD_PAD * h, right, y1 + _REREAD_PAD * h) & page.rect
        if not rect.is_empty:
            out.append(([(flat[i][0], flat[i][1]) for i in sorted(row, key=lambda i: boxes[i][0])], rect, y0, y1))
    return out


def _stacked_ocr(
    page: pymupdf.Page, strips: list[tuple[pymupdf.Rect, int]], limits: ParseLimits
) -> list[list[tuple[float, float, float, str]]]:
    """OCR the strips (rectangle, render dpi) stacked into one image in one run; per strip,
    its lines as (x0, x1, y-centre in page points, text)."""
    pixmaps = [page.get_pixmap(dpi=d, clip=r, colorspace=pymupdf.csGRAY, alpha=False) for r, d in strips]
    width = max(p.width for p in pixmaps) + 2 * _FITTED_GAP_PX
    rows: list[bytes] = []
    tops: list[int] = []
    blank = b"\xff" * width
    for pix in pixmaps:
        rows.extend([blank] * _FITTED_GAP_PX)
        tops.append(len(rows))
        samples, stride, w = pix.samples, pix.stride, pix.width
        pad = b"\xff" * (width - _FITTED_GAP_PX - w)
        for y in range(pix.height):
            rows.append(b"\xff" * _FITTED_GAP_PX + samples[y * stride : y * stride + w] + pad)
    rows.extend([blank] * _FITTED_GAP_PX)
    height = len(rows)
    stacked = pymupdf.Pixmap(pymupdf.csGRAY, width, height, b"".join(rows), False)
    # One image point per pixel at the OCR's nominal resolution: what Tesseract sees is
    # exactly the stacked pixels.
    scale = 72 / limits.ocr_dpi
    doc = pymupdf.open()
    try:
        sheet = doc.new_page(width=width * scale, height=height * scale)
        sheet.insert_image(sheet.rect, pixmap=stacked)
        textpage = _ocr(sheet, limits.ocr_dpi, limits)
        found: list[list[tuple[float, float, float, str]]] = [[] for _ in strips]
        for block_lines in _block_lines(textpage).values():
            for (lx0, ly0, lx1, ly1), text, _ in block_lines:
                cy = (ly0 + ly1) / 2 / scale
                for n, (pix, top) in enumerate(zip(pixmaps, tops, strict=True)):
                    if top <= cy < top + pix.height:
                        rect, d = strips[n]
                        px_to_pt = 72 / d
                        found[n].append(
                            (
                                rect.x0 + (lx0 / scale - _FITTED_GAP_PX) * px_to_pt,
                                rect.x0 + (lx1 / scale - _FITTED_GAP_PX) * px_to_pt,
                                rect.y0 + (cy - top) * px_to_pt,
                                text,
                            )
                        )
                        break
        return found
    finally:
        doc.close()


def _reread_at_fitted_scale(
    page: pymupdf.Page, dpi: int, limits: ParseLimits, blocks: list[Block], lines: LinesByBlock
) -> list[Block]:
    """Blocks with the largest rows' text replaced where strips at Tesseract's size agree on
    other letters than the page's reading; ``lines`` is updated in place (a row's first
    piece takes the reading, its other pieces are removed)."""
    rows = _fitted_strips(page, dpi, lines)
    if not rows:
        return blocks
    strips: list[tuple[pymupdf.Rect, int]] = []
    for _, rect, y0, y1 in rows:
        h = y1 - y0
        strips.extend((rect, max(_MIN_OCR_DPI, min(dpi, round(px * 72 / h)))) for px in _FITTED_ROW_PX)
    try:
        found = _stacked_ocr(page, strips, limits)
    except Exception:  # the page's reading stands; a failed second look loses nothing
        return blocks
    replaced: dict[tuple[float, float, float, float], list[tuple[str, str]]] = {}
    for n, (pieces, _, y0, y1) in enumerate(rows):
        # The row's own text is centred on it; accents read as marks of their own ("K" for
        # the acute of "Á") and the next row's edge sit off centre.
        h = y1 - y0
        mid0, mid1 = y0 + 0.25 * h, y1 - 0.25 * h
        on_row = [
            sorted((x0, x1, " ".join(t.split())) for x0, x1, cy, t in got if mid0 <= cy <= mid1 and t.strip())
            for got in found[n * len(_FITTED_ROW_PX) : (n + 1) * len(_FITTED_ROW_PX)]
        ]
        reading = _agreed([" ".join(t for *_, t in segs) for segs in on_row], pieces, lines)
        if reading is not None:
            _replace_pieces(pieces, reading, lines, replaced)
            continue
        # No agreement over the whole row: a row joined across a column gutter (a sidebar's
        # "Rua Tereza Valverde" beside a name read in pieces, "D" "qdV |" "i M") reads as
        # noise in one half and the same letters in the other. Each stretch of the row the
        # strips' lines cover is voted on by itself, and replaces the page's pieces in it.
        # Here a strip line narrower than a quarter of the row's height is a mark (the dot
        # of an "i" read as ";") that would split a stretch; the whole row's vote above
        # keeps it, as a stretch alone is voted on less text. A stretch is taken only where
        # every piece of the page's inside it sits on the row's middle: a piece off it is
        # another line's text the row merely touches, which one stretch's reading must not
        # replace. And the page's reading is a vote here: a name and the line under it read
        # as one piece by the page, the smallest strip reading the name and the two larger
        # ones the line under it, is a tie the page's reading keeps.
        on_row = [[seg for seg in segs if seg[1] - seg[0] >= 0.25 * h] for segs in on_row]
        for lo, hi in _stretches([seg for segs in on_row for seg in segs]):
            inside = [(key, i) for key, i in pieces if lo <= _centre_x(lines[key][i][0]) <= hi]
            if not inside or not all(mid0 <= _centre_y(lines[key][i][0]) <= mid1 for key, i in inside):
                continue
            texts = [" ".join(t for x0, x1, t in segs if lo <= x0 and x1 <= hi) for segs in on_row]
            reading = _agreed(texts, inside, lines, page_votes=True)
            if reading is not None:
                _replace_pieces(inside, reading, lines, replaced)
    for key in replaced:
        lines[key] = [line for line in lines[key] if line[1]]
    return [b for b in _with_lines_replaced(blocks, replaced) if b[4].strip()]


def _centre_x(bbox: tuple[float, float, float, float]) -> float:
    return (bbox[0] + bbox[2]) / 2


def _centre_y(bbox: tuple[float, float, float, float]) -> float:
    return (bbox[1] + bbox[3]) / 2


def _agreed(
    readings: list[str],
    pieces: list[tuple[tuple[float, float, float, float], int]],
    lines: LinesByBlock,
    *,
    page_votes: bool = False,
) -> str | None:
    """The reading at least two strips agree on, where its letters differ from the page's
    reading of ``pieces``; None when the page's reading stands. With ``page_votes`` the
    page's reading is a vote too, with every strip that reads it: the other reading must
    have more."""
    votes: dict[str, list[str]] = {}
    for r in readings:
        if r:
            votes.setdefault(_fold(r), []).append(r)
    best = max(votes.values(), key=len, default=[])
    old = " ".join(" ".join(lines[key][i][1].split()) for key, i in pieces)
    if len(best) < 2 or _fold(best[0]) == _fold(old):
        return None
    if page_votes and len(best) <= 1 + len(votes.get(_fold(old), [])):
        return None
    if _words_dropped(old, best[0]):
        return None
    return max(set(best), key=best.count)


def _words_dropped(old: str, new: str) -> bool:
    """The strips' reading is the page's with letters left out and nothing else changed: a
    whole capitalised word ("Ivan Ogassavara" -> "Ogassavara": moderncv's light-grey first
    name faded when its row was scaled down to the strips' size, stop 71) or a word's last
    or first letters ("Sebastian Villa Cuellar" -> "Sebastian Villa Cuell", a development
    scan). A strip may still drop a speck the page read ("Debarghya Das h") or one stray
    letter glued to a word."""
    kept, words = [_fold(w) for w in new.split()], old.split()
    k = 0
    dropped = False
    for word in words:
        folded = _fold(word)
        if k < len(kept) and kept[k] == folded:
            k += 1
        elif (
            k < len(kept)
            and len(folded) - len(kept[k]) >= 2
            and (folded.startswith(kept[k]) or folded.endswith(kept[k]))
        ):
            k, dropped = k + 1, True  # the word cut short
        elif len(word) >= 3 and word[:1].isupper() and word.isalpha() and folded not in kept:
            # a name-like word left out - not a word the page read twice ("Dari Osorio iO ri
            # Osorio Junior": the strips' "Dari Osorio Junior" wins, a development scan)
            dropped = True
    return k == len(kept) and dropped


def _replace_pieces(
    pieces: list[tuple[tuple[float, float, float, float], int]],
    reading: str,
    lines: LinesByBlock,
    replaced: dict[tuple[float, float, float, float], list[tuple[str, str]]],
) -> None:
    """The first piece takes the reading, the others are emptied (and dropped later)."""
    for j, (key, i) in enumerate(pieces):
        bbox, text, size = lines[key][i]
        new = reading if j == 0 else ""
        lines[key][i] = (bbox, new, size)
        replaced.setdefault(key, []).append((text.strip(), new))


def _stretches(segments: list[tuple[float, float, str]]) -> list[tuple[float, float]]:
    """The x-ranges the strips' lines cover, overlapping lines (of any strip) merged: where
    one stretch ends and the next begins, the strips saw white."""
    out: list[list[float]] = []
    for x0, x1, _ in sorted(segments):
        if out and x0 <= out[-1][1]:
            out[-1][1] = max(out[-1][1], x1)
        else:
            out.append([x0, x1])
    return [(lo, hi) for lo, hi in out]


def _with_lines_replaced(
    blocks: list[Block], replaced: dict[tuple[float, float, float, float], list[tuple[str, str]]]
) -> list[Block]:
    """Blocks whose text lines equal to an old text (spacing at the ends aside) are replaced
    whole, a new text of "" dropping the line: never a substring, so "h" cannot be taken out
    of "Debarghya" nor a line's text out of an earlier line that contains it."""
    out = []
    for block in blocks:
        todo = list(replaced.get(block[:4], []))
        kept = []
        for text_line in block[4].splitlines(keepends=True):
            hit = next((k for k, (old, _) in enumerate(todo) if text_line.strip() == old.strip()), None)
            if hit is None:
                kept.append(text_line)
                continue
            new = todo.pop(hit)[1]
            if new:
                kept.append(new + ("\n" if text_line.endswith("\n") else ""))
        out.append((*block[:4], "".join(kept)))
    return out


# E-mail addresses read again (ats/parsing/_ocr_email.py says why and how one is chosen):
# the words around an "@" on the first page, OCR'd as a strip at these horizontal
# stretches. At most a few per page; each strip is a few words, about 0.05 s of OCR.
_EMAIL_STRETCHES = (1.0, 1.3, 1.6)
_MAX_EMAIL_REREADS = 3


def _strip_reading(page: pymupdf.Page, rect: pymupdf.Rect, dpi: int, limits: ParseLimits, stretch: float) -> str:
    """The text of one strip of the page, OCR'd on its own, stretched ``stretch`` times
    horizontally (touching glyphs come apart); its lines joined by spaces."""
    zoom = dpi / 72
    pix = page.get_pixmap(
        matrix=pymupdf.Matrix(zoom * stretch, zoom), clip=rect, colorspace=pymupdf.csGRAY, alpha=False
    )
    strip = pymupdf.open()
    try:
        strip_page = strip.new_page(width=rect.width * stretch, height=rect.height)
        strip_page.insert_image(strip_page.rect, pixmap=pix)
        textpage = _ocr(strip_page, dpi, limits)
        return " ".join(
            " ".join(text.split()) for block_lines in _block_lines(textpage).values() for _, text, _ in block_lines
        )
    finally:
        strip.close()


def _reread_email_line(
    page: pymupdf.Page, dpi: int, limits: ParseLimits, line: dict[str, Any], words: frozenset[str]
) -> tuple[str | None, bool]:
    """(the line's text with its address as it should read, or None; whether strips were OCR'd)."""
    spans = line["spans"]
    texts = [span["text"] for span in spans]
    line_text = "".join(texts)
    at = next(k for k, t in enumerate(texts) if "@" in t)
    # The word with the "@" and a word either side: OCR splits "celine. rousseau@".
    words_at = [k for k, t in enumerate(texts) if t.strip()]
    pos = words_at.index(at)
    first, last = words_at[max(0, pos - 1)], words_at[min(len(words_at) - 1, pos + 1)]
    offset = sum(len(t) for t in texts[:first])
    region = "".join(texts[first : last + 1])
    own = _ocr_email.address_span(region)
    if own is None:
        return None, False
    start, end = offset + own.start, offset + own.end
    if _ocr_email.explained(own.address, words):
        # Read right, perhaps with a space OCR put inside it.
        joined = any(ch.isspace() for ch in line_text[start:end])
        return (line_text[:start] + own.address + line_text[end:] if joined else None), False
    x0 = min(float(spans[k]["bbox"][0]) for k in range(first, last + 1))
    x1 = max(float(spans[k]["bbox"][2]) for k in range(first, last + 1))
    y0, y1 = float(line["bbox"][1]), float(line["bbox"][3])
    h = y1 - y0
    rect = pymupdf.Rect(x0 - h, y0 - _REREAD_PAD * h, x1 + h, y1 + _REREAD_PAD * h) & page.rect
    if rect.is_empty:
        return None, False
    readings = []
    for stretch in _EMAIL_STRETCHES:
        try:
            readings.append(_strip_reading(page, rect, dpi, limits, stretch))
        except Exception:  # noqa: S112 (the page's reading stands)
            continue
    better = _ocr_email.choose(region, readings, words)
    return (line_text[:start] + better + line_text[end:] if better else None), True


def _reread_emails(
    page: pymupdf.Page, dpi: int, limits: ParseLimits, textpage: pymupdf.TextPage, lines: LinesByBlock
) -> dict[tuple[float, float, float, float], list[tuple[str, str]]]:
    """E-mail addresses the page misread, by strip readings checked against the page's
    own words: (old line text, new) per block; ``lines`` updated in place."""
    if not any("@" in text for block_lines in lines.values() for _, text, _ in block_lines):
        return {}  # no address: the page's words (with their boxes) need not be walked again
    words = _ocr_email.lexicon(lines[key][i][1] for key, i in _large_lines(lines))
    replaced: dict[tuple[float, float, float, float], list[tuple[str, str]]] = {}
    reads = 0
    for block in textpage.extractDICT()["blocks"]:
        if block.get("type") != 0:
            continue
        key: tuple[float, float, float, float] = tuple(block["bbox"])  # type: ignore[assignment]
        for line in block["lines"]:
            line_text = "".join(span["text"] for span in line["spans"])
            if line_text.count("@") != 1 or reads >= _MAX_EMAIL_REREADS:
                continue
            new_text, read = _reread_email_line(page, dpi, limits, line, words)
            reads += read
            if new_text is not None:
                _replace_line(lines, replaced, key, bbox=tuple(line["bbox"]), old=line_text, new=new_text)
    return replaced


def _replace_line(
    lines: LinesByBlock,
    replaced: dict[tuple[float, float, float, float], list[tuple[str, str]]],
    key: tuple[float, float, float, float],
    *,
    bbox: tuple[float, ...],
    old: str,
    new: str,
) -> None:
    """The block's line at `bbox` reading `old` reads `new` now (in ``lines``), and the
    change is listed in ``replaced`` for the block's text (_with_lines_replaced)."""
    for i, (line_bbox, text, size) in enumerate(lines.get(key, [])):
        if line_bbox == bbox and text == old:
            lines[key][i] = (line_bbox, new, size)
            replaced.setdefault(key, []).append((old, new))
            return


# Which script a scanned document is written in is decided once, on its first OCR'd page:
# its Latin reading's longest lines are read again, stacked at a modest resolution, with
# the Latin model and every installed script model together - Tesseract tries the other
# models on a word the first one is unsure of and keeps the surest reading - and the
# letters of that reading are counted by script. Measured on the development scans (stop
# 51): the sample of a Russian page read 0.74-1.00 Cyrillic, of a Chinese one 0.21-0.85
# Han characters (each weighs two letters below), of the Japanese one 0.20 kana, of a
# Korean one 0.40-0.53 Hangul; of 30 Latin-script pages at most 0.17 Cyrillic (words such
# as "and" or "on" are Cyrillic letter for letter) and 0.01 Han, never kana or Hangul.
_SCRIPT_SAMPLE_LINES = 3
_SCRIPT_SAMPLE_MIN_CHARS = 8
_SCRIPT_SAMPLE_DPI = 150
_SCRIPT_MIN_LETTERS = 20
# model -> (Unicode ranges of its letters, weight of one character, share that decides,
# whether the model reads Latin letters too). The CJK models were trained on text with Latin
# words, digits and e-mail addresses in it and read a page alone at half the cost of the
# Latin model beside them; the Cyrillic one reads "Hello world" in Cyrillic letters, so a
# Cyrillic page is read with the Latin model first and the Cyrillic one for the words the
# Latin model is unsure of.
_SCRIPT_LETTERS: dict[str, tuple[tuple[tuple[int, int], ...], int, float, bool]] = {
    "Cyrillic": (((0x0400, 0x052F),), 1, 0.5, False),
    "Japanese": (((0x3040, 0x30FF),), 2, 0.1, True),  # kana; the kanji count as Han too
    "Hangul": (((0xAC00, 0xD7AF), (0x1100, 0x11FF), (0x3130, 0x318F)), 2, 0.15, True),
    "HanS": (((0x4E00, 0x9FFF), (0x3400, 0x4DBF)), 2, 0.15, True),
}


def _script_shares(text: str) -> dict[str, float]:
    """Each script's share of the text's letters (a CJK character weighing two)."""
    weights = dict.fromkeys(_SCRIPT_LETTERS, 0)
    latin = 0
    for ch in text:
        code = ord(ch)
        for script, (ranges, weight, _, _) in _SCRIPT_LETTERS.items():
            if any(lo <= code <= hi for lo, hi in ranges):
                weights[script] += weight
                break
        else:
            latin += ch.isalpha()
    total = latin + sum(weights.values())
    if total < _SCRIPT_MIN_LETTERS:
        return {}
    return {script: weight / total for script, weight in weights.items()}


def _script_language(page: pymupdf.Page, limits: ParseLimits, lines: LinesByBlock) -> str | None:
    """The OCR language for a page whose Latin reading (``lines``) is of another script (names,
    e-mails and tool names in Latin letters must stay readable), or None for a Latin-script
    page."""
    if not limits.ocr_scripts:
        return None
    sample = sorted(
        (line for block in lines.values() for line in block if len(line[1].strip()) >= _SCRIPT_SAMPLE_MIN_CHARS),
        key=lambda line: -len(line[1].strip()),
    )[:_SCRIPT_SAMPLE_LINES]
    if not sample:
        return None
    dpi = min(limits.ocr_dpi, _SCRIPT_SAMPLE_DPI)
    area = page.rect
    strips = []
    for (x0, y0, x1, y1), _, _ in sample:
        pad = y1 - y0
        rect = pymupdf.Rect(
            max(area.x0, x0 - pad), max(area.y0, y0 - 0.3 * pad), min(area.x1, x1 + pad), min(area.y1, y1 + 0.3 * pad)
        )
        if not rect.is_empty:
            strips.append((rect, dpi))
    if not strips:
        return None
    every = "+".join((limits.ocr_language, *limits.ocr_scripts))
    read = _stacked_ocr(page, strips, dataclasses.replace(limits, ocr_language=every, ocr_dpi=dpi))
    shares = _script_shares(" ".join(text for strip in read for *_, text in strip))
    for script in limits.ocr_scripts:
        _, _, share, reads_latin = _SCRIPT_LETTERS[script]
        if shares.get(script, 0.0) >= share:
            return script if reads_latin else f"{limits.ocr_language}+{script}"
    return None


# With the Latin model first, Tesseract still gives a Latin word to the Cyrillic model when
# that model is surer of it, and the Cyrillic model reads Latin letters as their look-alikes:
# an e-mail "ivan.petrov@example.com" came back in Cyrillic letters, "Kubernetes" with two
# Macedonian letters (a rendered Russian CV, stop 51). Such a word takes the Latin-only
# reading of the same place: a word with "@", "://" or "www.", one that mixes the two
# alphabets, or one with a Cyrillic letter no Russian, Ukrainian or Bulgarian word has but
# that looks Latin. Every page of a document in another script is read with the Latin
# model too, for this.
_LATIN_LOOKALIKES = frozenset("ѓѕјԁһӏԛԝ")
_LATIN_MARKS = ("@", "://", "www.")
_RESTORE_SLACK = 0.5  # of the word's height, either side


def _latin_shaped(word: str) -> bool:
    cyrillic = any("\u0400" <= ch <= "\u052f" for ch in word)
    if not cyrillic:
        return False
    latin = any(ch.isascii() and ch.isalpha() for ch in word)
    return latin or any(mark in word for mark in _LATIN_MARKS) or any(ch in _LATIN_LOOKALIKES for ch in word)


def _latin_letters(word: str) -> bool:
    # A CJK model reads Latin words itself, but less surely than the Latin model: an e-mail
    # "wang.xiaoming@..." came back "wang.xilaoming@..." (a rendered Chinese CV, stop 51).
    return word.isascii() and any(ch.isalpha() for ch in word)


def _latin_words_restored(
    textpage: pymupdf.TextPage, latin: pymupdf.TextPage, lines: LinesByBlock, flagged: Callable[[str], bool]
) -> dict[tuple[float, float, float, float], list[tuple[str, str]]]:
    """Lines whose ``flagged`` words are put back as the Latin-only reading (``latin``) has
    them, where its words there lie inside the flagged one's box: (old line text, new) per
    block; ``lines`` updated in place."""
    latin_words = [(x0, y0, x1, y1, w) for x0, y0, x1, y1, w, *_ in latin.extractWORDS() if w.isascii()]
    replaced: dict[tuple[float, float, float, float], list[tuple[str, str]]] = {}
    for block in textpage.extractRAWDICT()["blocks"]:
        if block.get("type") != 0:
            continue
        key: tuple[float, float, float, float] = tuple(block["bbox"])  # type: ignore[assignment]
        for line in block["lines"]:
            chars = [c for span in line["spans"] for c in span["chars"]]
            text = "".join(c["c"] for c in chars)
            words: list[list[dict[str, Any]]] = [
                list(group) for space, group in itertools.groupby(chars, key=lambda c: c["c"].isspace()) if not space
            ]
            new, at = [], 0
            for word in words:
                spelled = "".join(c["c"] for c in word)
                if not flagged(spelled):
                    continue
                x0, x1 = word[0]["bbox"][0], word[-1]["bbox"][2]
                y0, y1 = min(c["bbox"][1] for c in word), max(c["bbox"][3] for c in word)
                slack = _RESTORE_SLACK * (y1 - y0)
                found = sorted(
                    (w for w in latin_words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1),
                    key=lambda w: w[0],
                )
                # Words reaching outside the box took in letters of another script beside it.
                if not found or found[0][0] < x0 - slack or found[-1][2] > x1 + slack:
                    continue
                start = text.index(spelled, at)
                new.append(text[at:start] + " ".join(w[4] for w in found))
                at = start + len(spelled)
            if new:
                _replace_line(lines, replaced, key, bbox=tuple(line["bbox"]), old=text, new="".join(new) + text[at:])
    return replaced


def _ocr_blocks(
    page: pymupdf.Page,
    dpi: int,
    limits: ParseLimits,
    *,
    reread: bool = False,
    detect: bool = False,
    language: str | None = None,
    panels: bool = True,
) -> tuple[list[Block], LinesByBlock, str | None]:
    """Full-page OCR, plus a second look at inked bands the layout analysis dropped and
    (``reread``, the first page) at the largest lines. ``detect``: the page is the
    document's first OCR'd one, whose Latin reading decides the script; ``language``: the
    script's OCR language an earlier page decided (None: Latin). Returns the language the
    document's later pages are read in."""
    textpage = latin = _ocr(page, dpi, limits)
    lines = _block_lines(textpage)
    if detect:
        try:
            language = _script_language(page, limits, lines)
        except Exception:  # the Latin reading stands: a failed test of the script loses nothing
            language = None
    if language is not None:
        limits = dataclasses.replace(limits, ocr_language=language)
        textpage = _ocr(page, dpi, limits)
        lines = _block_lines(textpage)
    blocks = _text_blocks(textpage)
    if textpage is not latin and language is not None:
        # A model that reads Latin words itself (CJK) got them less surely than the Latin
        # one; beside the Latin model (Cyrillic) it took some in look-alike letters.
        reads_latin = _SCRIPT_LETTERS[language.rpartition("+")[2]][3]
        flagged = _latin_letters if reads_latin else _latin_shaped
        blocks = _with_lines_replaced(blocks, _latin_words_restored(textpage, latin, lines, flagged))
    # none on a panel's own inverted page: it holds no fill of its own to read
    fills = _dark_panels(page) if panels else []
    for y0, y1 in _uncovered(_ink_bands(page), blocks):
        if any(_fill_of(y0, y1, rect, page) for rect in fills):
            continue  # a band of a page-wide fill: the panel's own reading reads its type
        rect = pymupdf.Rect(page.rect.x0, max(page.rect.y0, y0 - _BAND_PAD_PT), page.rect.x1, y1 + _BAND_PAD_PT)
        try:
            extra, extra_lines = _ocr_band(page, rect, dpi, limits)
        except Exception:  # noqa: S112 (the page's own OCR stands; a failed second look loses nothing)
            continue
        if y1 - y0 > _MAX_DARK_BAND_PT:
            # line by line: the strip's blocks join the lines the page left out with lines
            # it read ("Technical expertise" over its columns' first row)
            blocks = _left_out_added(blocks, lines, *_one_line_blocks(extra, extra_lines))
            continue
        # In reading order: before the first block that starts below the band.
        at = next((i for i, b in enumerate(blocks) if b[1] >= y0), len(blocks))
        blocks[at:at] = extra
        lines.update(extra_lines)
    blocks = _read_dark_panels(page, dpi, limits, blocks, lines, panels=fills)
    if reread:
        # After the bands: a band's own strip is cut from a coarse ink scan and can clip
        # the accents above capitals ("KÖHLER" read as "KOHLER"). The fitted-scale read
        # first: it may change letters, the large-line re-read then only accents and case.
        blocks = _reread_at_fitted_scale(page, dpi, limits, blocks, lines)
        blocks = _reread_large_lines(page, dpi, limits, blocks, lines)
        # After the name's re-read: the name's words are what an address is checked against.
        blocks = _with_lines_replaced(blocks, _reread_emails(page, dpi, limits, textpage, lines))
    return blocks, lines, language


def _add_blocks(
    col: Collector,
    blocks: list[Block],
    page_no: int,
    by_bbox: LinesByBlock,
    *,
    sx: float = 1.0,
    sy: float = 1.0,
    styles: SpanStyles | None = None,
) -> None:
    styles = styles or {}
    for x0, y0, x1, y1, text in blocks:
        lines = [
            ((lx0 * sx, ly0 * sy, lx1 * sx, ly1 * sy), line_text, size, styles.get((lx0, ly0, lx1, ly1)))
            for (lx0, ly0, lx1, ly1), line_text, size in by_bbox.get((x0, y0, x1, y1), [])
        ]
        col.add_block(page_no, (x0 * sx, y0 * sy, x1 * sx, y1 * sy), text, lines)


def _image_pixels_per_point(
    page: pymupdf.Page, width: int, height: int, rect_width: float, rect_height: float
) -> tuple[float, float]:
    """Source pixels per point along the page's x and y axes.

    The page is not simply ``width`` x ``height`` scaled: MuPDF sizes it from the
    resolution tags, which may differ per axis (fax TIFFs: 204 x 98 dpi), and turns
    it by the EXIF/TIFF orientation (phone photos: a quarter turn swaps the axes).
    The image's placement matrix says both; a page that does not show exactly one
    image falls back to the unturned reading.
    """
    try:
        infos = page.get_image_info()
    except Exception:  # only sizing depends on it: fall back rather than fail the image
        infos = []
    if len(infos) == 1:
        a, b, c, d = (float(v) for v in infos[0]["transform"][:4])
        along_x, along_y = math.hypot(a, b), math.hypot(c, d)  # points per image axis
        if along_x > 0 and along_y > 0 and math.isfinite(along_x * along_y):
            px_x, px_y = width / along_x, height / along_y
            # The image's x axis lies along the page's x axis unless turned a quarter.
            return (px_x, px_y) if abs(a) >= abs(b) else (px_y, px_x)
    return width / rect_width, height / rect_height


def _finish(col: Collector, texts: list[str], ocr_failures: list[str], *, repaired: bool = False) -> str:
    text = col.final_text("\n\n".join(texts))
    if not text:
        if repaired:
            # MuPDF rebuilt a damaged file and still found nothing: the emptiness
            # is the damage (typically an upload cut off mid-way), not the content.
            raise ParseError(ErrorCode.CORRUPT, "damaged PDF, no text recoverable")
        if ocr_failures:
            raise ParseError(ErrorCode.OCR_FAILED, ocr_failures[0])
        raise empty_error("no text found, including by OCR")
    return text


def parse_pdf(data: bytes, limits: ParseLimits, col: Collector) -> dict[str, Any]:
    doc = _open(pdf_body(data), "pdf")
    try:
        return _parse_pdf_doc(doc, limits, col)
    except ParseError:
        raise
    except Exception as exc:  # MuPDF errors surface lazily, page by page
        raise _library_error(exc, "pdf") from None
    finally:
        doc.close()


def _parse_pdf_doc(doc: pymupdf.Document, limits: ParseLimits, col: Collector) -> dict[str, Any]:  # noqa: PLR0912 - one refusal per PDF limit, in the order the document is opened and read
    # Decision: never try passwords, not even common ones; a candidate whose PDF
    # needs one is asked to upload an unprotected copy.
    if doc.needs_pass or doc.is_encrypted:
        raise ParseError(ErrorCode.ENCRYPTED, "PDF needs a password")
    encryption = (doc.metadata or {}).get("encryption")
    if encryption:
        col.warn(WarningCode.PDF_OWNER_PASSWORD_ONLY, str(encryption))
    page_count = doc.page_count
    if page_count <= 0:
        raise ParseError(ErrorCode.CORRUPT, "PDF has no pages")
    if page_count > limits.max_pages:
        raise ParseError(ErrorCode.TOO_MANY_PAGES, f"{page_count} pages > {limits.max_pages}")
    if doc.is_repaired:
        col.warn(WarningCode.PDF_REPAIRED)
    # Every page is checked before any is rendered: a rule that depends only on the
    # file, not on how far we got, is easier to explain to the candidate.
    for pno in range(page_count):
        _check_pdf_page_images(doc, pno, limits)

    texts: list[str] = []
    ocr_pages = 0
    language: str | None = None  # the script's OCR language, once the first OCR'd page decided it
    ocr_failures: list[str] = []
    skipped_for_cap = 0
    skipped_for_time: list[str] = []
    for pno in range(page_count):
        page = doc.load_page(pno)
        textpage = page.get_textpage(flags=_TEXT_FLAGS)
        blocks = _text_blocks(textpage)
        styles: SpanStyles = {}
        lines = _block_lines(textpage, styles)
        text = _page_text(blocks)
        if _legible_chars(text) < limits.ocr_min_chars_per_page and _has_visual_content(page):
            if ocr_pages + len(ocr_failures) >= limits.max_ocr_pages:
                skipped_for_cap += 1
            elif ocr_pages + len(ocr_failures) and (spent := col.ocr_budget_spent()):
                skipped_for_time.append(spent)
            elif (dpi := _pdf_ocr_dpi(page, limits, col)) is not None:
                try:
                    ocr_blocks, ocr_lines, language = _ocr_blocks(
                        page, dpi, limits, reread=pno == 0, detect=not ocr_pages, language=language
                    )
                except Exception as exc:
                    ocr_failures.append(f"page {pno + 1}: {exc}")
                    col.warn(WarningCode.OCR_PAGE_FAILED, ocr_failures[-1])
                else:
                    ocr_pages += 1
                    ocr_text = _page_text(ocr_blocks)
                    # Full-page OCR re-reads any digital text too, so it replaces
                    # the page only when it found more.
                    if _legible_chars(ocr_text) > _legible_chars(text):
                        blocks, text, lines, styles = ocr_blocks, ocr_text, ocr_lines, {}
        texts.append(text)
        _add_blocks(col, blocks, pno + 1, lines, styles=styles)
    if skipped_for_cap:
        col.warn(WarningCode.OCR_PAGE_CAP, f"{skipped_for_cap} scanned pages not OCRed")
    _warn_time_budget(col, skipped_for_time, limits)

    text = _finish(col, texts, ocr_failures, repaired=doc.is_repaired)
    return col.result(
        text=text,
        pages=page_count,
        ocr_pages=ocr_pages,
        bbox_unit="pt",
    )


def _warn_time_budget(col: Collector, skipped: list[str], limits: ParseLimits) -> None:
    """Name the pages the OCR time budget left unread (the first page is always read:
    the budget only stops a further page from starting)."""
    if skipped:
        col.warn(
            WarningCode.OCR_TIME_BUDGET,
            f"{len(skipped)} scanned pages not OCRed"
            f" ({skipped[0]} time budget of {limits.ocr_time_budget_s:g} s spent)",
        )


def parse_image(data: bytes, kind: str, limits: ParseLimits, col: Collector) -> dict[str, Any]:
    frames = image_frames(data, kind, limits.max_pages)
    if len(frames) > limits.max_pages:
        raise ParseError(ErrorCode.TOO_MANY_PAGES, f"more than {limits.max_pages} TIFF pages")
    for number, (width, height) in enumerate(frames, start=1):
        if width * height > limits.max_pixels_per_page:
            raise ParseError(
                ErrorCode.PIXEL_LIMIT,
                f"image {number} is {width}x{height} > {limits.max_pixels_per_page} pixels",
            )
    doc = _open(data, kind)
    try:
        return _parse_image_doc(doc, kind, frames, limits, col)
    except ParseError:
        raise
    except Exception as exc:
        raise _library_error(exc, kind) from None
    finally:
        doc.close()


def _parse_image_doc(
    doc: pymupdf.Document,
    kind: str,
    frames: list[tuple[int, int]],
    limits: ParseLimits,
    col: Collector,
) -> dict[str, Any]:
    page_count = doc.page_count
    if page_count <= 0:
        raise ParseError(ErrorCode.CORRUPT, f"{kind} has no image")
    if page_count > len(frames):
        # MuPDF found frames our header walk did not, so their size is unchecked.
        raise ParseError(ErrorCode.CORRUPT, f"{kind} frame count disagrees with its headers")

    texts: list[str] = []
    ocr_pages = 0
    language: str | None = None  # the script's OCR language, once the first OCR'd page decided it
    ocr_failures: list[str] = []
    skipped_for_time: list[str] = []
    for pno in range(min(page_count, limits.max_ocr_pages)):
        if ocr_pages + len(ocr_failures) and (spent := col.ocr_budget_spent()):
            skipped_for_time.append(spent)
            continue
        page = doc.load_page(pno)
        width, height = frames[pno]
        rect_width, rect_height = float(page.rect.width), float(page.rect.height)
        if not (rect_width > 0 and rect_height > 0):
            raise ParseError(ErrorCode.CORRUPT, f"{kind} has a zero-size page")
        # An image page's size in points depends on its (often bogus) DPI tags and
        # its orientation, so the render resolution is derived from the page as it
        # will be rendered: the image's own density on its denser axis, unless that
        # is over the OCR pixel budget or Tesseract's side limit. (Deriving it from
        # the header's width alone rendered an EXIF-turned 8000 x 1500 photo at
        # 8000 x 42667 px and a 300 x 10 dpi JPEG at 22x its pixel count.)
        sx, sy = _image_pixels_per_point(page, width, height, rect_width, rect_height)
        native_dpi = 72 * max(sx, sy)
        capped_dpi = min(native_dpi, _ocr_dpi_cap(rect_width, rect_height, limits))
        if capped_dpi < native_dpi:
            col.warn(WarningCode.OCR_DOWNSCALED, f"image {pno + 1} to {capped_dpi / native_dpi:.2f}x")
        dpi = max(1, math.floor(capped_dpi + 1e-6))
        try:
            blocks, lines, language = _ocr_blocks(
                page, dpi, limits, reread=pno == 0, detect=not ocr_pages, language=language
            )
        except Exception as exc:
            ocr_failures.append(f"image {pno + 1}: {exc}")
            col.warn(WarningCode.OCR_PAGE_FAILED, ocr_failures[-1])
            continue
        ocr_pages += 1
        texts.append(_page_text(blocks))
        # Image blocks are reported in source pixels (bbox_unit "px"), on the image
        # as displayed (after its orientation is applied).
        _add_blocks(col, blocks, pno + 1, lines, sx=sx, sy=sy)
    if page_count > limits.max_ocr_pages:
        col.warn(WarningCode.OCR_PAGE_CAP, f"{page_count - limits.max_ocr_pages} images not OCRed")
    _warn_time_budget(col, skipped_for_time, limits)

    text = _finish(col, texts, ocr_failures)
    return col.result(
        text=text,
        pages=page_count,
        ocr_pages=ocr_pages,
        bbox_unit="px",
    )


def prewarm_band_ocr(scanned_pdf: bytes) -> None:
    """Run the second-look OCR path once (prewarm: a sandbox child may import nothing)."""
    doc = _open(scanned_pdf, "pdf")
    try:
        page = doc.load_page(0)
        _ink_bands(page)
        rect = pymupdf.Rect(page.rect.x0, page.rect.y0, page.rect.x1, page.rect.y0 + 120)
        _ocr_band(page, rect, 72, ParseLimits(ocr_dpi=72, ocr_language="eng"))
    finally:
        doc.close()
