"""DOCX extraction: zip and XML guards first, then python-docx, then our own walker.

Order matters: the zip central directory is checked before anything is
decompressed, and every part python-docx would parse as XML is scanned for DTD
declarations before lxml sees it. WordprocessingML never legitimately carries a
DTD, so any ``<!DOCTYPE``/``<!ENTITY`` is refused as an XML bomb rather than
handed to a parser. (Measured with lxml 6.1.3 / libxml2 2.14.6: python-docx's
``resolve_entities=False`` parser already aborts a billion-laughs part in ~2 ms
with "Maximum entity amplification factor exceeded", which would surface only as
``corrupt``; the pre-scan names it and does not depend on libxml2's limits.)
"""

from __future__ import annotations

import codecs
import io
import itertools
import re
import zipfile
from collections.abc import Iterator
from typing import Any

import docx
from lxml import etree

from ._common import Collector, empty_error
from ._text import normalize_text
from .data import (
    DOCX_LAYOUT_FONTSIZE,
    DOCX_LAYOUT_HEIGHT,
    DOCX_LAYOUT_WIDTH,
    DOCX_LOCATE_PAGES,
    ErrorCode,
    ParseError,
    ParseLimits,
    WarningCode,
)

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_M_T = "{http://schemas.openxmlformats.org/officeDocument/2006/math}t"
_CT_NS = "{http://schemas.openxmlformats.org/package/2006/content-types}"

_W_P, _W_TBL, _W_TR, _W_TC = _W + "p", _W + "tbl", _W + "tr", _W + "tc"
_W_T, _W_TXBX = _W + "t", _W + "txbxContent"
_W_TAB, _W_PTAB, _W_BR, _W_CR = _W + "tab", _W + "ptab", _W + "br", _W + "cr"
_W_NB_HYPHEN = _W + "noBreakHyphen"
_W_PPR, _W_PSTYLE, _W_VAL = _W + "pPr", _W + "pStyle", _W + "val"
_STYLE_MAX = 64
_W_TYPE = _W + "type"
_W_RENDERED_BREAK = _W + "lastRenderedPageBreak"
# Wrappers around rows/cells (content controls, custom XML) that hold no text themselves.
_ROW_CELL_WRAPPERS = frozenset({_W + "sdt", _W + "sdtContent", _W + "customXml"})
# Never text a reader sees: deleted revisions, property bags, and the VML copy of
# a drawing that the mc:Choice branch already holds.
_SKIP = frozenset(
    {
        _MC_FALLBACK,
        _W + "del",
        _W + "moveFrom",
        _W + "pPr",
        _W + "rPr",
        _W + "sectPr",
        _W + "tblPr",
        _W + "tblGrid",
        _W + "trPr",
        _W + "tcPr",
    }
)

_RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_HEADER_FOOTER_RELS = (_RT + "header", _RT + "footer")
_IMAGE_REL = _RT + "image"

_ZIP_MAGIC = b"PK\x03\x04"
# Password-protected Word files are not zips but OLE compound files holding an
# "EncryptedPackage" stream; legacy .doc files share the container.
_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CFB_ENCRYPTED_MARKER = "EncryptedPackage".encode("utf-16-le")

_ZIP_STORED, _ZIP_DEFLATED = 0, 8
_RATIO_FLOOR = 1024 * 1024  # small members may compress absurdly well; harmless
_CONTENT_TYPES = "[Content_Types].xml"
_CONTENT_TYPES_MAX = 1024 * 1024
_SCAN_CHUNK = 64 * 1024
# libxml2 decodes these itself; anything else would go through iconv, which can
# load gconv modules from disk (a file open the sandbox denies) and would let a
# declaration like UTF-7 hide "<!" from a byte scan.
_ALLOWED_ENCODINGS = frozenset({"utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin1", "iso_8859-1", "latin-1"})
_ENCODING_RE = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_SAFE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _bomb(detail: str) -> ParseError:
    return ParseError(ErrorCode.DECOMPRESSION_BOMB, detail)


def _corrupt(detail: str) -> ParseError:
    return ParseError(ErrorCode.CORRUPT, detail)


def _unsafe_name(name: str) -> bool:
    parts = name.split("/")
    return name.startswith("/") or "\\" in name or "\x00" in name or ".." in parts or (len(name) > 1 and name[1] == ":")


def check_zip(data: bytes, infos: list[zipfile.ZipInfo], limits: ParseLimits) -> None:  # noqa: PLR0912 - one refusal per zip-bomb check, flat so the guard reads as a checklist
    """Refuse bombs from the central directory alone, before decompressing a byte.

    Declared sizes are trustworthy enough: zipfile stops reading a member at its
    declared size and then fails the CRC, so a lying header cannot inflate further.
    """
    if not infos:
        raise _corrupt("empty zip")
    if len(infos) > limits.max_docx_members:
        raise _bomb(f"{len(infos)} zip members > {limits.max_docx_members}")
    seen: set[str] = set()
    total_size = total_compressed = 0
    for info in infos:
        name = info.filename
        if _unsafe_name(name):
            raise _corrupt(f"unsafe zip member name {name[:80]!r}")
        # OPC part names are case-insensitive; two spellings of one part are
        # ambiguous, and which one a reader picks is how scanners get bypassed.
        key = name.lower()
        if key in seen:
            raise _corrupt(f"duplicate zip member {name[:80]!r}")
        seen.add(key)
        if info.flag_bits & 0x1:
            raise ParseError(ErrorCode.ENCRYPTED, "zip member is encrypted")
        if info.compress_type not in (_ZIP_STORED, _ZIP_DEFLATED):
            raise ParseError(ErrorCode.UNSUPPORTED, f"zip compression method {info.compress_type}")
        if info.header_offset + info.compress_size > len(data):
            raise _corrupt(f"zip member {name[:80]!r} runs past end of file")
        if info.file_size > _RATIO_FLOOR and info.file_size > limits.max_docx_compression_ratio * max(
            info.compress_size, 1
        ):
            raise _bomb(f"member {name[:80]!r} expands {info.file_size}/{info.compress_size}")
        total_size += info.file_size
        total_compressed += info.compress_size
    if total_size > limits.max_docx_uncompressed_bytes:
        raise _bomb(f"uncompressed {total_size} bytes > {limits.max_docx_uncompressed_bytes}")
    if total_size > _RATIO_FLOOR and total_size > limits.max_docx_compression_ratio * max(total_compressed, 1):
        raise _bomb(f"archive expands {total_size}/{total_compressed}")
    # Overlapping members (many directory entries sharing one compressed stream)
    # multiply output without growing the file: the non-recursive zip bomb.
    ordered = sorted(infos, key=lambda i: i.header_offset)
    if ordered[0].header_offset != 0:
        raise _corrupt("data before the first zip member (polyglot file?)")
    for prev, nxt in itertools.pairwise(ordered):
        if prev.header_offset + prev.compress_size > nxt.header_offset:
            raise _bomb("overlapping zip members")


def _content_types(zf: zipfile.ZipFile, infos: dict[str, zipfile.ZipInfo]) -> tuple[dict[str, str], dict[str, str]]:
    info = infos.get(_CONTENT_TYPES.lower())
    if info is None:
        raise _corrupt("no [Content_Types].xml")
    if info.file_size > _CONTENT_TYPES_MAX:
        raise _corrupt("[Content_Types].xml is too large")
    _scan_part(zf, info)
    try:
        root = etree.fromstring(zf.read(info), parser=_SAFE_PARSER)
    except Exception as exc:
        raise _corrupt(f"[Content_Types].xml: {exc}") from None
    defaults: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for el in root:
        if el.tag == _CT_NS + "Default":
            defaults[str(el.get("Extension", "")).lower()] = str(el.get("ContentType", ""))
        elif el.tag == _CT_NS + "Override":
            overrides[str(el.get("PartName", "")).lower()] = str(el.get("ContentType", ""))
    return defaults, overrides


def _parsed_as_xml(name: str, defaults: dict[str, str], overrides: dict[str, str]) -> bool:
    # python-docx parses relationship parts and parts with XML content types; SVG
    # images (which may carry a harmless DOCTYPE) are stored as blobs.
    lowered = name.lower()
    if lowered.endswith(".rels"):
        return True
    ext = lowered.rsplit(".", 1)[-1] if "." in lowered.rsplit("/", 1)[-1] else ""
    content_type = overrides.get("/" + lowered) or defaults.get(ext)
    if content_type is None:
        return True  # unknown to us: scan rather than guess
    content_type = content_type.lower()
    return content_type.endswith("xml") and content_type != "image/svg+xml"


def _scan_part(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    """Refuse a part holding any markup declaration ("<!" other than comment/CDATA)."""
    name = info.filename[:80]
    decoder: codecs.IncrementalDecoder | None = None
    tail = ""
    try:
        with zf.open(info) as stream:
            while chunk := stream.read(_SCAN_CHUNK):
                if decoder is None:
                    decoder = _decoder_for(chunk, name)
                window = tail + decoder.decode(chunk)
                _check_declarations(window, name)
                tail = window[-9:]  # long enough to re-see a split "<![CDATA["
    except ParseError:
        raise
    except Exception as exc:  # BadZipFile (CRC), zlib.error, EOFError...
        raise _corrupt(f"zip member {name!r}: {exc}") from None


def _decoder_for(head: bytes, name: str) -> codecs.IncrementalDecoder:
    if head.startswith(b"\xff\xfe") or head.startswith(b"<\x00"):
        return codecs.getincrementaldecoder("utf-16-le")(errors="replace")
    if head.startswith(b"\xfe\xff") or head.startswith(b"\x00<"):
        return codecs.getincrementaldecoder("utf-16-be")(errors="replace")
    if head.startswith(b"\x00\x00") or head[2:4] == b"\x00\x00":
        raise ParseError(ErrorCode.UNSUPPORTED, f"{name!r}: UCS-4 XML")
    match = _ENCODING_RE.match(head.removeprefix(b"\xef\xbb\xbf"))
    if match and match.group(1).decode("ascii").lower() not in _ALLOWED_ENCODINGS:
        raise ParseError(ErrorCode.UNSUPPORTED, f"{name!r}: XML encoding {match.group(1)!r}")
    # Every allowed single-byte-compatible encoding keeps "<" and "!" as ASCII
    # bytes, and latin-1 maps bytes 1:1, so positions survive decoding.
    return codecs.getincrementaldecoder("latin-1")()


_ALLOWED_MARKUP = ("<!--", "<![CDATA[")


def _check_declarations(window: str, name: str) -> None:
    pos = window.find("<!")
    while pos != -1:
        rest = window[pos : pos + 9]
        # A marker cut off by the window end is re-checked with the next chunk.
        if not any(ok.startswith(rest) or rest.startswith(ok) for ok in _ALLOWED_MARKUP):
            raise ParseError(ErrorCode.XML_BOMB, f"{name!r} has a markup declaration")
        pos = window.find("<!", pos + 2)


def _load(data: bytes) -> Any:
    try:
        return docx.Document(io.BytesIO(data))
    except ParseError:
        raise
    except MemoryError:
        raise ParseError(ErrorCode.TOO_LARGE, "out of memory loading DOCX") from None
    except ValueError as exc:
        if "not a Word file" in str(exc):
            raise ParseError(ErrorCode.UNSUPPORTED, str(exc)) from None
        raise _corrupt(f"python-docx: {exc}") from None
    except Exception as exc:  # third-party code on hostile input: any failure is "corrupt"
        if "amplification" in str(exc) or "entity" in str(exc).lower():
            raise ParseError(ErrorCode.XML_BOMB, str(exc)) from None
        raise _corrupt(f"python-docx: {type(exc).__name__}: {exc}") from None


def _check_parsed_parts(document: Any) -> None:
    # Second line of defence behind the byte scan: no parsed part may carry a DTD.
    for part in document.part.package.iter_parts():
        element = getattr(part, "_element", None)
        if element is not None:
            docinfo = element.getroottree().docinfo
            if docinfo.internalDTD is not None or docinfo.doctype:
                raise ParseError(ErrorCode.XML_BOMB, f"{part.partname} has a DTD")


class _Walker:
    """Collects text in document order, including text boxes and content controls.

    python-docx's own ``paragraphs``/``tables`` miss text boxes and content
    controls (common in CV templates) and expand merged cells by their declared
    span (a ``gridSpan`` of 10**8 is a memory bomb), so we read the XML directly.
    """

    def __init__(self, col: Collector, limits: ParseLimits) -> None:
        self.col = col
        self.limits = limits
        self.lines: list[str] = []
        self.paragraphs: list[str] = []
        self.tables: list[list[list[str]]] = []
        # Schema 2: everything a reader sees, in reading order, with where it lives.
        self.elements: list[dict[str, Any]] = []
        self.part = "body"
        self._part_counts: dict[str, int] = {}
        self._in_box = 0
        self._table_no = 0
        self._raw_chars = 0
        # Stop collecting well past the text cap; normalisation can only shrink.
        self._raw_budget = 4 * limits.max_text_chars + 1024
        self._rows = 0
        self._truncated = False

    @property
    def full(self) -> bool:
        return self._raw_chars > self._raw_budget

    def _element(self, part: str, text: str, **extra: Any) -> None:
        if len(self.elements) >= self.limits.max_blocks:
            self._truncated = True
            return
        index = self._part_counts.get(part, 0)
        self._part_counts[part] = index + 1
        self.elements.append({"part": part, "index": index, "text": text, **extra})

    def _emit(self, sink: list[str], text: str) -> None:
        self._raw_chars += len(text)
        sink.append(text)

    def blocks(self, el: Any, sink: list[str], *, top: bool) -> None:
        for child in el:
            if self.full:
                return
            tag = child.tag
            if tag == _W_P:
                self.paragraph(child, sink, top=top)
            elif tag == _W_TBL:
                self.table(child, sink, top=top)
            elif tag not in _SKIP and isinstance(tag, str):
                self.blocks(child, sink, top=top)

    def paragraph(self, p: Any, sink: list[str], *, top: bool) -> None:
        parts: list[str] = []
        boxes: list[Any] = []
        self._inline(p, parts, boxes)
        text = "".join(parts)
        self._emit(sink, text)
        if top:
            normalised, _ = normalize_text(text)
            if normalised:
                if len(self.paragraphs) < self.limits.max_blocks:
                    self.paragraphs.append(normalised)
                else:
                    self._truncated = True
                self._element("textbox" if self._in_box else self.part, normalised, style=_style(p))
        for box in boxes:  # text boxes read as the paragraphs after their anchor
            self._in_box += 1
            try:
                self.blocks(box, sink, top=top)
            finally:
                self._in_box -= 1

    def _inline(self, el: Any, parts: list[str], boxes: list[Any]) -> None:
        for child in el:
            tag = child.tag
            if tag in (_W_T, _M_T):
                parts.append(child.text or "")
            elif tag in (_W_TAB, _W_PTAB):
                parts.append("\t")
            elif tag == _W_BR:
                parts.append("\n\n" if child.get(_W_TYPE) == "page" else "\n")
            elif tag == _W_CR:
                parts.append("\n")
            elif tag == _W_NB_HYPHEN:
                parts.append("-")
            elif tag == _W_TXBX:
                boxes.append(child)
            elif tag not in _SKIP and isinstance(tag, str):
                self._inline(child, parts, boxes)

    def _children(self, el: Any, tag: str) -> Iterator[Any]:
        for child in el:
            if child.tag == tag:
                yield child
            elif child.tag in _ROW_CELL_WRAPPERS:
                yield from self._children(child, tag)

    def table(self, tbl: Any, sink: list[str], *, top: bool) -> None:
        rows: list[list[str]] = []
        table_no = self._table_no
        if top:
            self._table_no += 1
        # Body cells are part "table"; a table in a page header stays "header".
        cell_part = "table" if self.part == "body" and not self._in_box else ("textbox" if self._in_box else self.part)
        for row_no, tr in enumerate(self._children(tbl, _W_TR)):
            if self.full:
                break
            cells: list[str] = []
            for col_no, tc in enumerate(self._children(tr, _W_TC)):
                cell_lines: list[str] = []
                self.blocks(tc, cell_lines, top=False)
                cells.append(normalize_text("\n".join(cell_lines))[0])
                if top and cells[-1]:
                    self._element(cell_part, cells[-1], table=table_no, row=row_no, col=col_no)
            # One string per w:tc: merged cells are not repeated by their span.
            self._emit(sink, " | ".join(c for c in cells if c))
            if top:
                if self._rows < self.limits.max_blocks:
                    rows.append(cells)
                    self._rows += 1
                else:
                    self._truncated = True
        if top and rows:
            self.tables.append(rows)

    def finish(self) -> None:
        if self._truncated or self.full:
            self.col.warn(WarningCode.BLOCKS_TRUNCATED, "DOCX paragraphs/table rows capped")


def _page_estimate(body: Any) -> int:
    # DOCX has no pages; Word records where it last broke them when saving, which
    # is the best estimate we have. Explicit page breaks otherwise.
    rendered = sum(1 for _ in body.iter(_W_RENDERED_BREAK))
    if rendered:
        return rendered + 1
    return 1 + sum(1 for br in body.iter(_W_BR) if br.get(_W_TYPE) == "page")


def parse_docx(data: bytes, limits: ParseLimits, col: Collector) -> dict[str, Any]:
    if data.startswith(_CFB_MAGIC):
        if _CFB_ENCRYPTED_MARKER in data:
            raise ParseError(ErrorCode.ENCRYPTED, "password-protected Office document")
        raise ParseError(ErrorCode.UNSUPPORTED, "OLE compound file (legacy .doc?)")
    if not data.startswith(_ZIP_MAGIC):
        raise _corrupt("not a zip archive")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except Exception as exc:
        raise _corrupt(f"zip: {exc}") from None
    with zf:
        check_zip(data, infos, limits)
        by_name = {info.filename.lower(): info for info in infos}
        defaults, overrides = _content_types(zf, by_name)
        for info in infos:
            if not info.is_dir() and _parsed_as_xml(info.filename, defaults, overrides):
                _scan_part(zf, info)

    document = _load(data)
    try:
        result = _extract(document, limits, col)
    except ParseError:
        raise
    except RecursionError:
        raise _corrupt("DOCX nesting too deep") from None
    except Exception as exc:
        raise _corrupt(f"DOCX structure: {type(exc).__name__}: {exc}") from None
    locate(data, result["elements"])
    return result


# Lines located per document (a CV has tens); a search is ~0.1 ms on a prepared page.
_LOCATE_LINES = 600
# A line is found by its start: long lines wrap on the laid-out page.
_NEEDLE_CHARS = 60
_NEEDLE_MIN = 3


def layout(data: bytes) -> Any:
    """The DOCX as MuPDF lays it out (reflowed, not Word's layout, but readable): the pages
    the viewer shows. Reflowable: on A4 (MuPDF's default is a 400 x 600 pt page)."""
    import pymupdf

    doc = pymupdf.open(stream=data, filetype="docx")
    doc.layout(width=DOCX_LAYOUT_WIDTH, height=DOCX_LAYOUT_HEIGHT, fontsize=DOCX_LAYOUT_FONTSIZE)
    return doc


def locate(data: bytes, elements: list[dict[str, Any]]) -> None:
    """Give each element's lines their box on the laid-out pages (`at`, schema 3 above),
    so a field read from a DOCX lights up on the viewer's page image like a PDF's. A line
    is searched from the page the previous one was found on (reading order), then from
    the start; the first hit's box is kept. Best effort: a line not found (a page header
    MuPDF does not lay out, text it renders differently) keeps only its excerpt, and a
    document MuPDF cannot lay out gets no boxes at all - never a failed parse."""
    try:
        doc = layout(data)
    except Exception:
        return
    try:
        pages = [doc.load_page(n) for n in range(min(doc.page_count, DOCX_LOCATE_PAGES))]
        prepared = [(page, page.get_textpage()) for page in pages]
        budget, cursor = _LOCATE_LINES, 0
        for element in elements:
            at: list[list[float] | None] = []
            for line in str(element["text"]).split("\n"):
                needle = " ".join(line.split())[:_NEEDLE_CHARS]
                hit = None
                if len(needle) >= _NEEDLE_MIN and budget > 0:
                    budget -= 1
                    hit = _find(prepared, needle, cursor)
                    if hit is not None:
                        cursor = int(hit[0]) - 1
                at.append(hit)
            if any(a is not None for a in at):
                element["at"] = at
    except Exception:
        for element in elements:
            element.pop("at", None)
    finally:
        doc.close()


def _find(prepared: list[tuple[Any, Any]], needle: str, cursor: int) -> list[float] | None:
    order = list(range(cursor, len(prepared))) + list(range(cursor))
    for n in order:
        page, textpage = prepared[n]
        rects = page.search_for(needle, textpage=textpage)
        if rects:
            r = rects[0]
            box = [max(0.0, r.x0), max(0.0, r.y0), min(DOCX_LAYOUT_WIDTH, r.x1), min(DOCX_LAYOUT_HEIGHT, r.y1)]
            if box[0] < box[2] and box[1] < box[3]:
                return [n + 1, *(round(v, 2) for v in box)]
    return None


def _extract(document: Any, limits: ParseLimits, col: Collector) -> dict[str, Any]:
    _check_parsed_parts(document)
    walker = _Walker(col, limits)
    rels = list(document.part.rels.values())
    headers: list[Any] = []
    footers: list[Any] = []
    for rel in rels:
        if rel.is_external or rel.reltype not in _HEADER_FOOTER_RELS:
            continue
        (headers if rel.reltype.endswith("header") else footers).append(rel.target_part.element)

    # Contact details often live in the page header of CV templates, so headers
    # lead the text and footers close it; identical first/even/default copies once.
    seen: set[str] = set()

    def walk_once(elements: list[Any]) -> None:
        for element in elements:
            lines: list[str] = []
            probe = _Walker(col, limits)
            probe.blocks(element, lines, top=False)
            key = normalize_text("\n".join(lines))[0]
            if key and key not in seen:
                seen.add(key)
                walker.blocks(element, walker.lines, top=True)

    walker.part = "header"
    walk_once(headers)
    body = document.element.body
    walker.part = "body"
    walker.blocks(body, walker.lines, top=True)
    walker.part = "footer"
    walk_once(footers)
    walker.finish()

    pages = _page_estimate(body)
    if pages > limits.max_docx_pages:
        raise ParseError(ErrorCode.TOO_MANY_PAGES, f"{pages} pages (estimated) > {limits.max_docx_pages}")
    text = col.final_text("\n".join(walker.lines))
    if not text:
        if any(rel.reltype == _IMAGE_REL for rel in rels):
            raise empty_error(f"DOCX has no text ({WarningCode.DOCX_IMAGES_NOT_OCRED.value})")
        raise empty_error("DOCX has no text")
    return col.result(
        text=text,
        pages=pages,
        ocr_pages=0,
        paragraphs=walker.paragraphs,
        tables=walker.tables,
        elements=walker.elements,
    )


def _style(p: Any) -> str | None:
    """The paragraph's style id ("Title", "Heading1", ...), or None for the default."""
    for ppr in p:
        if ppr.tag == _W_PPR:
            for child in ppr:
                if child.tag == _W_PSTYLE:
                    value = normalize_text(str(child.get(_W_VAL) or ""))[0].replace("\n", " ")
                    return value[:_STYLE_MAX] or None
    return None
