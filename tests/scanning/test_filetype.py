"""Magic-byte detection: content decides, names and claimed types never do."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ats.scanning.api import (
    MAX_ZIP_MEMBERS,
    DetectedType,
    FileKind,
    Rejection,
    check_size,
    detect_file_type,
    inspect_upload,
)
from tests.scanning.samples import make_docx, make_pdf

MB = 1024 * 1024


def kind(data: bytes) -> FileKind:
    return detect_file_type(data).kind


def zip_of(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def real_docx() -> bytes:
    """A DOCX as python-docx (i.e. Word's template) writes it."""
    import docx

    document = docx.Document()
    document.add_paragraph("Jane Doe - Curriculum Vitae")
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


# --------------------------------------------------------------------------- supported


def test_pdf_named_docx_is_pdf(tmp_path: Path) -> None:
    path = tmp_path / "cv.docx"
    path.write_bytes(make_pdf())
    detected = detect_file_type(path.read_bytes())
    assert detected.kind is FileKind.PDF
    assert detected.supported
    assert detected.mime_type == "application/pdf"


def test_pdf_preamble_within_1024_bytes() -> None:
    pdf = make_pdf()
    assert kind(b"\x00junk from a mail gateway\r\n" + pdf) is FileKind.PDF
    # "%PDF-" must lie wholly inside the first 1024 bytes, as in Acrobat.
    assert kind(b" " * 1019 + pdf) is FileKind.PDF
    assert kind(b"x" * 1020 + pdf) is FileKind.TEXT
    assert kind(b"\x01" * 2000 + pdf) is FileKind.UNKNOWN


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", FileKind.PNG),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", FileKind.JPEG),
        (b"\xff\xd8\xff\xe1\x00\x10Exif\x00", FileKind.JPEG),
        (b"II*\x00\x08\x00\x00\x00", FileKind.TIFF),
        (b"MM\x00*\x00\x00\x00\x08", FileKind.TIFF),
    ],
)
def test_images(data: bytes, expected: FileKind) -> None:
    assert kind(data) is expected
    assert detect_file_type(data).supported


def test_docx_as_word_writes_it() -> None:
    detected = detect_file_type(real_docx())
    assert detected == DetectedType(FileKind.DOCX, "OOXML word-processing package")
    assert detected.mime_type is not None and detected.mime_type.endswith("wordprocessingml.document")


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_minimal_docx(compression: int) -> None:
    assert kind(make_docx(b"hello", compression=compression)) is FileKind.DOCX


def test_docx_part_names_compare_case_insensitively() -> None:
    assert kind(zip_of({"[CONTENT_TYPES].XML": b"x", "Word/Document.xml": b"x"})) is FileKind.DOCX


# --------------------------------------------------------------------------- unsupported


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 48 + b"PE\x00\x00", FileKind.EXE),
        (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8, FileKind.ELF),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504, FileKind.OLE2),
        (b"{\\rtf1\\ansi\\deff0 {\\fonttbl}}", FileKind.RTF),
        (b"PK\x05\x06" + b"\x00" * 18, FileKind.ZIP),
        (b"Jane Doe\nSoftware Engineer\n", FileKind.TEXT),
        ("Zoë Ångström, Ærø".encode(), FileKind.TEXT),
        (b"\x00\x01\x02\x03binary", FileKind.UNKNOWN),
    ],
    ids=["exe", "elf", "ole2", "rtf", "empty-zip", "text", "utf8-text", "binary"],
)
def test_unsupported_kinds_are_labelled(data: bytes, expected: FileKind) -> None:
    detected = detect_file_type(data)
    assert detected.kind is expected
    assert not detected.supported
    assert detected.mime_type is None


def test_exe_named_pdf_with_pdf_header_inside_is_exe() -> None:
    # PE/PDF polyglot: "%PDF-" in the DOS stub area. Offset-0 signatures win.
    polyglot = b"MZ" + b"\x00" * 62 + make_pdf()
    assert kind(polyglot) is FileKind.EXE


@pytest.mark.parametrize(
    "data",
    [
        b"<!DOCTYPE html><html><body>%PDF-1.7</body></html>",
        b"\xef\xbb\xbf  \n<html>\n<script>alert(1)</script>",
        b"<script>fetch('/api')</script>%PDF-1.4",
        b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
        b"<!-- comment --><p>hi</p>",
    ],
)
def test_markup_is_html_even_with_a_pdf_header_inside(data: bytes) -> None:
    # A browser would sniff these as HTML/XML, so they must not pass as PDF.
    assert kind(data) is FileKind.HTML


def test_empty() -> None:
    assert kind(b"") is FileKind.EMPTY
    inspection = inspect_upload(b"", max_bytes=MB)
    assert inspection.rejection is Rejection.EMPTY
    assert not inspection.accepted


def test_zip_that_is_not_a_docx() -> None:
    detected = detect_file_type(zip_of({"cv.pdf": make_pdf(), "notes.txt": b"hi"}))
    assert detected.kind is FileKind.ZIP
    assert "word/document.xml" in detected.detail
    # An xlsx is a ZIP with [Content_Types].xml but no word/document.xml.
    assert kind(zip_of({"[Content_Types].xml": b"x", "xl/workbook.xml": b"x"})) is FileKind.ZIP


def test_macro_enabled_docx_is_docm() -> None:
    assert kind(make_docx(b"hi", extra={"word/vbaProject.bin": b"\xd0\xcf\x11\xe0"})) is FileKind.DOCM


def test_legacy_doc_is_ole2() -> None:
    # A .doc (Word 97-2003) is an OLE2 compound file: header + 512-byte sectors.
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 16 + struct.pack("<HH", 0x3E, 0x3)
    assert kind(header + b"\x00" * 2000) is FileKind.OLE2


def test_truncated_docx_is_zip() -> None:
    docx = make_docx(b"hello")
    assert kind(docx[: len(docx) // 2]) is FileKind.ZIP


def test_docx_with_duplicate_member_names_is_rejected() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("[Content_Types].xml", b"x")
        zf.writestr("word/document.xml", b"benign")
        with pytest.warns(UserWarning, match="Duplicate name"):
            zf.writestr("word/document.xml", b"what another parser sees")
    detected = detect_file_type(buf.getvalue())
    assert detected.kind is FileKind.ZIP
    assert "duplicate" in detected.detail


def test_member_count_is_capped() -> None:
    members = {"[Content_Types].xml": b"", "word/document.xml": b""}
    members.update({f"m/{i}": b"" for i in range(MAX_ZIP_MEMBERS)})
    detected = detect_file_type(zip_of(members, zipfile.ZIP_STORED))
    assert detected.kind is FileKind.ZIP
    assert "cap" in detected.detail


def test_zip64_is_not_a_docx() -> None:
    docx = bytearray(make_docx(b"hello"))
    eocd = docx.rfind(b"PK\x05\x06")
    docx[eocd + 10 : eocd + 12] = b"\xff\xff"  # total entries -> "see ZIP64 record"
    detected = detect_file_type(bytes(docx))
    assert detected.kind is FileKind.ZIP
    assert "ZIP64" in detected.detail


def test_central_directory_pointing_outside_the_file() -> None:
    docx = bytearray(make_docx(b"hello"))
    eocd = docx.rfind(b"PK\x05\x06")
    docx[eocd + 16 : eocd + 20] = struct.pack("<I", 0x7FFFFFFF)
    assert kind(bytes(docx)) is FileKind.ZIP


# --------------------------------------------------------------------------- size


def test_size_limits() -> None:
    assert check_size(MB, max_bytes=MB) is None
    assert check_size(MB + 1, max_bytes=MB) is Rejection.TOO_LARGE
    assert check_size(0, max_bytes=MB) is Rejection.EMPTY
    with pytest.raises(ValueError):
        check_size(1, max_bytes=0)


def test_oversized_upload_is_rejected_without_inspection() -> None:
    data = make_pdf()
    inspection = inspect_upload(data, max_bytes=len(data) - 1)
    assert inspection.rejection is Rejection.TOO_LARGE
    assert inspection.detected is None
    ok = inspect_upload(data, max_bytes=len(data))
    assert ok.accepted and ok.detected is not None and ok.detected.kind is FileKind.PDF


def test_unsupported_upload_names_the_detected_kind() -> None:
    inspection = inspect_upload(b"MZ\x90\x00", max_bytes=MB)
    assert inspection.rejection is Rejection.UNSUPPORTED_TYPE
    assert inspection.detected is not None and inspection.detected.kind.value == "exe"


# --------------------------------------------------------------------------- robustness


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=4096))
def test_random_bytes_always_give_a_typed_result(data: bytes) -> None:
    detected = detect_file_type(data)
    assert isinstance(detected, DetectedType)
    assert isinstance(detected.kind, FileKind)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2048), st.binary(max_size=64))
def test_random_zip_like_bytes_always_give_a_typed_result(body: bytes, tail: bytes) -> None:
    # Exercise the central-directory walker: ZIP header, garbage, EOCD-ish tail.
    detected = detect_file_type(b"PK\x03\x04" + body + b"PK\x05\x06" + tail)
    assert detected.kind in (FileKind.ZIP, FileKind.DOCX, FileKind.DOCM)


_DOCX = make_docx(b"hello world " * 20)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_DOCX) - 1), st.integers(0, 255)), min_size=1, max_size=8))
def test_mutated_docx_always_gives_a_typed_result(edits: list[tuple[int, int]]) -> None:
    data = bytearray(_DOCX)
    for pos, value in edits:
        data[pos] = value
    assert isinstance(detect_file_type(bytes(data)).kind, FileKind)
