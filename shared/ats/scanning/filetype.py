"""Magic-byte file type detection for untrusted uploads.

Policy (docs/security): untrusted bytes never reach a complex parser outside the
sandbox. So this module uses only fixed-offset byte comparisons plus one small, bounded
walk over a ZIP central directory -- no libmagic, PIL, lxml, and nothing is ever
decompressed. The filename and the uploader's Content-Type are deliberately not inputs:
a PDF named ``cv.docx`` is a PDF, an EXE named ``cv.pdf`` is an EXE.

Order of checks, and why:

1. empty;
2. signatures at offset 0 (PDF, ZIP/DOCX, PNG, JPEG, TIFF, MZ, ELF, OLE2, RTF): a file
   that *starts* like an executable is an executable even if ``%PDF-`` follows later --
   that is exactly what a PDF/PE polyglot looks like;
3. HTML/XML markup at the start (WHATWG MIME-sniffing tag list) -- a browser would
   sniff it as HTML, so it must not be accepted as a PDF with a "preamble";
4. ``%PDF-`` anywhere in the first 1024 bytes: Acrobat accepts a header up to 1024 bytes
   in (PDF 1.7 reference, implementation note 13; e.g. mail gateways and some
   generators prepend junk), and the sandboxed parser (MuPDF) tolerates it too. Past
   1024 bytes real readers give up, and so do we;
5. text vs. unknown binary, using the WHATWG "binary data byte" set.

DOCX needs more than leading bytes: the ZIP central directory sits at the end, so the
whole upload is passed in. Uploads are size-capped before this runs.
"""

from __future__ import annotations

import struct

from ats.scanning.data import DetectedType, FileKind, Rejection, UploadInspection

PDF_HEADER_WINDOW = 1024
# Real DOCX files have tens to a few hundred members; the cap bounds the work an
# attacker can make us do with a central directory of millions of tiny entries.
MAX_ZIP_MEMBERS = 5000
_SNIFF_WINDOW = 1024

_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_EMPTY = b"PK\x05\x06"
_ZIP_EOCD = b"PK\x05\x06"
_ZIP_CDH = b"PK\x01\x02"
_ZIP64_LOCATOR = b"PK\x06\x07"
_EOCD_SIZE = 22
_CDH_SIZE = 46
_MAX_ZIP_COMMENT = 0xFFFF

# OPC part names compare case-insensitively (ECMA-376 part 2), so do we.
_DOCX_REQUIRED = (b"word/document.xml", b"[content_types].xml")
_DOCX_MACROS = b"word/vbaproject.bin"

# Fixed signatures at offset 0, checked in this order. ZIP and PDF are handled apart.
_OFFSET0: tuple[tuple[bytes, FileKind, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", FileKind.PNG, "PNG signature"),
    (b"\xff\xd8\xff", FileKind.JPEG, "JPEG SOI marker"),
    (b"II*\x00", FileKind.TIFF, "TIFF little-endian"),
    (b"MM\x00*", FileKind.TIFF, "TIFF big-endian"),
    (b"MZ", FileKind.EXE, "MZ executable header"),
    (b"\x7fELF", FileKind.ELF, "ELF header"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", FileKind.OLE2, "OLE2 compound file (legacy Office)"),
    (b"{\\rtf", FileKind.RTF, "RTF header"),
)

# WHATWG MIME Sniffing, "identifying a resource with an unknown MIME type": tags that
# make a browser treat bytes as HTML when followed by a space or '>'.
_HTML_TAGS = (
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<script",
    b"<iframe",
    b"<h1",
    b"<div",
    b"<font",
    b"<table",
    b"<a",
    b"<style",
    b"<title",
    b"<b",
    b"<body",
    b"<br",
    b"<p",
    b"<!--",
)
_WS = b"\t\n\x0c\r "
# WHATWG "binary data byte": control bytes that never occur in text.
_BINARY_BYTES = frozenset([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])


def check_size(size: int, *, max_bytes: int) -> Rejection | None:
    """Size gate, usable on a Content-Length before any bytes are read."""
    if max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    if size <= 0:
        return Rejection.EMPTY
    if size > max_bytes:
        return Rejection.TOO_LARGE
    return None


def inspect_upload(data: bytes, *, max_bytes: int) -> UploadInspection:
    """Size check, then type detection. Oversized bytes are not inspected at all."""
    size = len(data)
    rejection = check_size(size, max_bytes=max_bytes)
    if rejection is Rejection.TOO_LARGE:
        return UploadInspection(size=size, max_bytes=max_bytes, detected=None, rejection=rejection)
    detected = detect_file_type(data)
    if rejection is None and not detected.supported:
        rejection = Rejection.UNSUPPORTED_TYPE
    return UploadInspection(size=size, max_bytes=max_bytes, detected=detected, rejection=rejection)


def detect_file_type(data: bytes) -> DetectedType:  # noqa: PLR0911 - one return per file kind, in the order the magic numbers are tested
    """Classify ``data`` by content only. Never raises for any input bytes."""
    if not data:
        return DetectedType(FileKind.EMPTY, "no bytes")
    if data.startswith(b"%PDF-"):
        return DetectedType(FileKind.PDF, "%PDF- at offset 0")
    if data.startswith(_ZIP_LOCAL):
        return _classify_zip(data)
    if data.startswith(_ZIP_EMPTY):
        return DetectedType(FileKind.ZIP, "empty ZIP archive")
    for magic, kind, detail in _OFFSET0:
        if data.startswith(magic):
            return DetectedType(kind, detail)

    head = data[:_SNIFF_WINDOW]
    markup = _markup_detail(head)
    if markup:
        return DetectedType(FileKind.HTML, markup)
    pdf_at = data.find(b"%PDF-", 0, PDF_HEADER_WINDOW)
    if pdf_at > 0:
        return DetectedType(FileKind.PDF, f"%PDF- after a {pdf_at}-byte preamble")
    if any(b in _BINARY_BYTES for b in head):
        return DetectedType(FileKind.UNKNOWN, "binary data, no known signature")
    return DetectedType(FileKind.TEXT, "no binary bytes in the first 1024")


def _markup_detail(head: bytes) -> str:
    rest = head.removeprefix(b"\xef\xbb\xbf").lstrip(_WS).lower()
    if rest.startswith(b"<?xml"):
        return "XML declaration (may be SVG/XHTML)"
    for tag in _HTML_TAGS:
        if rest.startswith(tag):
            nxt = rest[len(tag) : len(tag) + 1]
            if tag == b"<!--" or nxt in (b" ", b">"):
                return f"HTML tag {tag.decode()}"
    return ""


def _classify_zip(data: bytes) -> DetectedType:
    names, problem = _zip_member_names(data)
    if names is None:
        return DetectedType(FileKind.ZIP, problem)
    if not all(required in names for required in _DOCX_REQUIRED):
        return DetectedType(FileKind.ZIP, "ZIP without word/document.xml + [Content_Types].xml")
    if _DOCX_MACROS in names:
        return DetectedType(FileKind.DOCM, "DOCX container with word/vbaProject.bin")
    return DetectedType(FileKind.DOCX, "OOXML word-processing package")


def _zip_member_names(data: bytes) -> tuple[frozenset[bytes] | None, str]:  # noqa: PLR0911 - bounds-checked zip directory walk: one refusal per malformed record
    """Lower-cased member names from the central directory, or (None, why not).

    Reads only the end-of-central-directory record and the fixed-size central directory
    headers; every offset is bounds-checked, nothing is inflated.
    """
    size = len(data)
    search_from = max(0, size - (_EOCD_SIZE + _MAX_ZIP_COMMENT))
    eocd = data.rfind(_ZIP_EOCD, search_from)
    # The signature can also occur inside the comment; take the last one whose record
    # (incl. declared comment) fits in the file, as zipfile does.
    while eocd >= 0 and (
        eocd + _EOCD_SIZE > size or eocd + _EOCD_SIZE + struct.unpack_from("<H", data, eocd + 20)[0] > size
    ):
        eocd = data.rfind(_ZIP_EOCD, search_from, eocd)
    if eocd < 0:
        return None, "ZIP without end-of-central-directory record (truncated?)"

    disk, cd_disk, n_disk, n_total, cd_size, cd_offset, _ = struct.unpack_from("<HHHHIIH", data, eocd + 4)
    if (
        n_total == 0xFFFF
        or cd_size == 0xFFFFFFFF
        or cd_offset == 0xFFFFFFFF
        or (eocd >= 20 and data[eocd - 20 : eocd - 16] == _ZIP64_LOCATOR)
    ):
        # Word never writes ZIP64 for files anywhere near the upload cap.
        return None, "ZIP64 archive (not accepted as DOCX)"
    if disk != 0 or cd_disk != 0 or n_disk != n_total:
        return None, "multi-disk ZIP"
    if n_total > MAX_ZIP_MEMBERS:
        return None, f"ZIP with {n_total} members (cap {MAX_ZIP_MEMBERS})"
    cd_end = cd_offset + cd_size
    if cd_end > eocd:
        return None, "ZIP central directory out of bounds"

    names: set[bytes] = set()
    pos = cd_offset
    for _ in range(n_total):
        if pos + _CDH_SIZE > cd_end or data[pos : pos + 4] != _ZIP_CDH:
            return None, "malformed ZIP central directory"
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, pos + 28)
        name_end = pos + _CDH_SIZE + name_len
        if name_end > cd_end:
            return None, "malformed ZIP central directory"
        name = data[pos + _CDH_SIZE : name_end].lower()
        if name in names:
            # Duplicate names are the classic ZIP parser-differential trick (two parsers
            # pick different members); OPC forbids them and Word refuses such files.
            return None, "ZIP with duplicate member names"
        names.add(name)
        pos = name_end + extra_len + comment_len
    return frozenset(names), ""
