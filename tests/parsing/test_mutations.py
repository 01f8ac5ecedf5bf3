"""Damaged variants of valid documents end in a result or a typed ParseError, nothing else.

Mutations are applied both to the file bytes (truncation, bit flips, overwritten
runs) and, for DOCX, to the decompressed XML inside a re-zipped file, so the XML
and python-docx layers see damage too, not only the CRC check.
"""

from __future__ import annotations

import functools
import io
import json
import os
import zipfile

import pymupdf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ats.parsing.api import ERROR_CODES, ErrorCode, ParseError, ParseLimits, parse_document
from tests import corpus

# Cheap OCR keeps a few hundred parses within seconds; the code paths are the same.
LIMITS = ParseLimits(ocr_dpi=72, max_ocr_pixels=400_000, max_ocr_pages=1, max_pages=5)
SETTINGS = settings(
    # Raise for a longer hunt, e.g. ATS_PARSING_FUZZ_EXAMPLES=3000 (about 2 minutes).
    max_examples=int(os.environ.get("ATS_PARSING_FUZZ_EXAMPLES", "60")),
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@functools.cache
def _small_scan() -> pymupdf.Pixmap:
    return corpus.scan_pixmap(40)


@functools.cache
def bases() -> dict[str, tuple[bytes, str]]:
    # Uncompressed PDF so flips land in object syntax and content streams, not
    # only in Flate data.
    plain_pdf = pymupdf.open(stream=corpus.text_pdf(), filetype="pdf").tobytes(deflate=False, expand=255)
    return {
        "pdf": (corpus.text_pdf(), "pdf"),
        "plain_pdf": (plain_pdf, "pdf"),
        "scanned_pdf": (pymupdf.open(stream=corpus.scanned_pdf(40), filetype="pdf").tobytes(), "pdf"),
        "docx": (corpus.docx_with_tables(), "docx"),
        "png": (_small_scan().tobytes("png"), "png"),
        "jpeg": (_small_scan().tobytes("jpeg"), "jpeg"),
        "tiff": (corpus.tiff_from_pixmaps([_small_scan()], deflate=False), "tiff"),
        "tiff_deflate": (corpus.tiff_from_pixmaps([_small_scan()]), "tiff"),
    }


def check(data: bytes, kind: str) -> None:
    try:
        result = parse_document(data, kind=kind, limits=LIMITS)
    except ParseError as exc:
        assert exc.code.value in ERROR_CODES
        assert exc.code is not ErrorCode.INTERNAL, exc.detail
        json.dumps(exc.to_dict(), ensure_ascii=False).encode("utf-8")
        return
    json.dumps(result, ensure_ascii=False).encode("utf-8")
    assert len(result["text"]) <= LIMITS.max_text_chars
    assert result["pages"] <= LIMITS.max_pages


@st.composite
def mutated(draw: st.DrawFn, names: list[str]) -> tuple[bytes, str]:
    name = draw(st.sampled_from(names))
    data, kind = bases()[name]
    buf = bytearray(data)
    op = draw(st.sampled_from(["truncate", "flip", "overwrite", "flip+truncate"]))
    if "flip" in op:
        for _ in range(draw(st.integers(1, 8))):
            pos = draw(st.integers(0, len(buf) - 1))
            buf[pos] ^= 1 << draw(st.integers(0, 7))
    if op == "overwrite":
        pos = draw(st.integers(0, len(buf) - 1))
        buf[pos : pos + 16] = draw(st.binary(min_size=1, max_size=16))
    if "truncate" in op:
        buf = buf[: draw(st.integers(0, len(buf)))]
    return bytes(buf), kind


@SETTINGS
@given(mutated(["pdf", "plain_pdf", "scanned_pdf"]))
def test_mutated_pdf(case: tuple[bytes, str]) -> None:
    check(*case)


@SETTINGS
@given(mutated(["png", "jpeg", "tiff", "tiff_deflate"]))
def test_mutated_images(case: tuple[bytes, str]) -> None:
    check(*case)


@SETTINGS
@given(mutated(["docx"]))
def test_mutated_docx_bytes(case: tuple[bytes, str]) -> None:
    check(*case)


_XML_PARTS = ("word/document.xml", "[Content_Types].xml", "_rels/.rels", "word/_rels/document.xml.rels")


@SETTINGS
@given(
    part=st.sampled_from(_XML_PARTS),
    pos=st.floats(0, 1),
    junk=st.one_of(
        st.binary(max_size=24),
        st.sampled_from(
            [b"<", b">", b"&", b"&amp", b"<w:p>", b"</w:body>", b"<!--", b"]]>", b"\x00", b"\xff\xfe", b"<w:tbl>"]
        ),
    ),
    cut=st.booleans(),
)
def test_mutated_docx_xml(part: str, pos: float, junk: bytes, cut: bool) -> None:
    data = corpus.docx_with_tables()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        xml = zf.read(part)
    at = int(pos * len(xml))
    xml = xml[:at] + junk + (b"" if cut else xml[at:])
    check(corpus.rezip(data, replace={part: xml}), "docx")
