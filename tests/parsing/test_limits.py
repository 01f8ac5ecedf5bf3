"""Caps and guard rails: pages, bytes, pixels, output size, zip and XML bombs."""

from __future__ import annotations

import dataclasses
import io
import time
import zipfile

import pymupdf
import pytest

from ats.parsing.api import ErrorCode, ParseError, ParseLimits, parse_document
from ats.parsing.data import WarningCode
from tests import corpus


def _code(data: bytes, kind: str, limits: ParseLimits) -> str:
    with pytest.raises(ParseError) as info:
        parse_document(data, kind=kind, limits=limits)
    return info.value.code.value


def test_page_cap(limits: ParseLimits) -> None:
    assert _code(corpus.pdf_many_pages(limits.max_pages + 1), "pdf", limits) == "too_many_pages"
    result = parse_document(corpus.pdf_many_pages(3), kind="pdf", limits=dataclasses.replace(limits, max_pages=3))
    assert result["pages"] == 3 and "Page 3 of the CV" in result["text"]


def test_tiff_page_cap(limits: ParseLimits) -> None:
    two = dataclasses.replace(limits, max_pages=2)
    assert _code(corpus.tiff_scan(pages=3, dpi=50), "tiff", two) == "too_many_pages"


def test_byte_cap(limits: ParseLimits) -> None:
    data = corpus.text_pdf()
    assert _code(data, "pdf", dataclasses.replace(limits, max_bytes=len(data) - 1)) == "too_large"
    assert parse_document(data, kind="pdf", limits=dataclasses.replace(limits, max_bytes=len(data)))


@pytest.mark.parametrize(
    ("name", "kind"),
    [("png_scan", "png"), ("jpeg_scan", "jpeg"), ("tiff_scan", "tiff"), ("scanned_pdf", "pdf")],
)
def test_pixel_cap(name: str, kind: str, limits: ParseLimits) -> None:
    pix = corpus.scan_pixmap(200)
    pixels = pix.width * pix.height
    data = getattr(corpus, name)()
    assert _code(data, kind, dataclasses.replace(limits, max_pixels_per_page=pixels - 1)) == "pixel_limit"
    assert parse_document(data, kind=kind, limits=dataclasses.replace(limits, max_pixels_per_page=pixels))


def test_pixel_bomb_is_refused_before_decoding(limits: ParseLimits) -> None:
    start = time.perf_counter()
    for data, kind in ((corpus.pixel_bomb_png(), "png"), (corpus.pdf_image_bomb(), "pdf")):
        assert _code(data, kind, limits) == "pixel_limit"
    assert time.perf_counter() - start < 0.5


def test_pixel_bomb_inside_a_form_xobject(limits: ParseLimits) -> None:
    # The image sits one level down, in a Form XObject that the page draws.
    src = pymupdf.open(stream=corpus.pdf_image_bomb(), filetype="pdf")
    outer = pymupdf.open()
    page = outer.new_page(width=595, height=842)
    page.show_pdf_page(page.rect, src, 0)
    assert _code(outer.tobytes(), "pdf", limits) == "pixel_limit"


def _page_of_grey_masks(count: int, side: int = 100) -> bytes:
    """A text page that also draws `count` grey images of side x side pixels (an InDesign
    export's soft masks: many full-page greys, each small in bytes)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 72), "Jane O'Neil  jane@example.org  Senior Engineer, Globex, 2019 - 2024")
    for i in range(count):
        grey = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, side, side), False)
        grey.set_rect(grey.irect, (i % 250,))  # distinct bytes: each image its own xref
        xref = page.insert_image(pymupdf.Rect(0, 0, 595, 842), pixmap=grey)
        # PyMuPDF writes its grey as ICCBased (counted as the widest space); the export's are
        # DeviceGray - one byte a pixel
        doc.xref_set_key(xref, "ColorSpace", "/DeviceGray")
    return doc.tobytes()


def test_page_images_are_capped_by_their_decoded_bytes(limits: ParseLimits) -> None:
    # 12 grey images of 10,000 pixels: 120,000 pixels but 120,000 bytes decoded. A pixel
    # cap of 40,000 lets each image through and the page's bytes up to 160,000.
    data = _page_of_grey_masks(12)
    capped = dataclasses.replace(limits, max_pixels_per_page=40_000)
    result = parse_document(data, kind="pdf", limits=capped)
    assert "Jane O'Neil" in result["text"]
    # ... and 17 of them decode to 170,000 bytes: refused, before anything is decoded.
    assert _code(_page_of_grey_masks(17), "pdf", capped) == "pixel_limit"
    # One image over the pixel cap is refused whatever its bytes.
    assert _code(_page_of_grey_masks(1, side=201), "pdf", capped) == "pixel_limit"


def test_text_cap(limits: ParseLimits) -> None:
    capped = dataclasses.replace(limits, max_text_chars=30)
    for data, kind in ((corpus.text_pdf(), "pdf"), (corpus.docx_with_tables(), "docx")):
        result = parse_document(data, kind=kind, limits=capped)
        assert 0 < len(result["text"]) <= 30
        assert any(w.startswith(WarningCode.TEXT_TRUNCATED) for w in result["warnings"])
        assert sum(len(b["text"]) for b in result["blocks"]) <= 30


def test_block_cap(limits: ParseLimits) -> None:
    capped = dataclasses.replace(limits, max_blocks=2)
    result = parse_document(corpus.pdf_many_pages(4), kind="pdf", limits=capped)
    assert len(result["blocks"]) == 2
    assert any(w.startswith(WarningCode.BLOCKS_TRUNCATED) for w in result["warnings"])
    assert "Page 4 of the CV" in result["text"]  # the text itself is not cut by the block cap
    result = parse_document(corpus.docx_with_tables(), kind="docx", limits=capped)
    assert len(result["paragraphs"]) == 2 and len(result["tables"][0]) == 2
    assert any(w.startswith(WarningCode.BLOCKS_TRUNCATED) for w in result["warnings"])


# --- DOCX zip guards --------------------------------------------------------------


def test_zip_ratio_bomb_below_size_cap(limits: ParseLimits) -> None:
    # 8 MiB of zeros is under the 64 MiB size cap, but compresses ~1000:1.
    assert _code(corpus.zip_bomb_docx(mib=8), "docx", limits) == "decompression_bomb"


def test_zip_size_and_member_caps(limits: ParseLimits) -> None:
    data = corpus.docx_with_tables()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
    total = sum(i.file_size for i in infos)
    tight = dataclasses.replace(limits, max_docx_uncompressed_bytes=total - 1)
    assert _code(data, "docx", tight) == "decompression_bomb"
    few = dataclasses.replace(limits, max_docx_members=len(infos) - 1)
    assert _code(data, "docx", few) == "decompression_bomb"


@pytest.mark.parametrize("name", ["../evil.xml", "/abs.xml", "word\\media\\x.xml", "C:/x.xml"])
def test_unsafe_member_names(name: str, limits: ParseLimits) -> None:
    data = corpus.rezip(corpus.docx_with_tables(), add={name: b"<x/>"})
    assert _code(data, "docx", limits) == "corrupt"


def test_case_duplicate_members(limits: ParseLimits) -> None:
    data = corpus.rezip(corpus.docx_with_tables(), add={"WORD/document.xml": b"<x/>"})
    assert _code(data, "docx", limits) == "corrupt"


def test_polyglot_prefix_is_refused(limits: ParseLimits) -> None:
    assert _code(b"GIF89a" + corpus.docx_with_tables(), "docx", limits) == "corrupt"


def test_pdf_with_leading_junk_still_parses(limits: ParseLimits) -> None:
    result = parse_document(b"\r\n" * 20 + corpus.text_pdf(), kind="pdf", limits=limits)
    assert corpus.CANDIDATE_EMAIL in result["text"]


def test_merged_cell_span_is_not_expanded(limits: ParseLimits) -> None:
    # python-docx's Table.rows[i].cells repeats a cell gridSpan times: 10**8 here.
    cell = '<w:tc><w:tcPr><w:gridSpan w:val="100000000"/></w:tcPr><w:p><w:r><w:t>wide</w:t></w:r></w:p></w:tc>'
    body = f"<w:tbl><w:tr>{cell}</w:tr></w:tbl>"
    start = time.perf_counter()
    result = parse_document(corpus.docx_with_body(body), kind="docx", limits=limits)
    assert result["tables"] == [[["wide"]]]
    assert time.perf_counter() - start < 1


# --- XML declarations ---------------------------------------------------------------


def test_external_entity_is_refused(limits: ParseLimits) -> None:
    declaration = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    )
    data = corpus.docx_with_body("<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p>", declaration=declaration)
    assert _code(data, "docx", limits) == "xml_bomb"


def test_dtd_in_a_relationship_part(limits: ParseLimits) -> None:
    data = corpus.docx_with_tables()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        rels = zf.read("_rels/.rels").decode()
    rels = rels.replace("?>", '?><!DOCTYPE r [<!ENTITY a "b">]>', 1)
    assert _code(corpus.rezip(data, replace={"_rels/.rels": rels.encode()}), "docx", limits) == "xml_bomb"


def test_utf16_parts(limits: ParseLimits) -> None:
    body = "<w:p><w:r><w:t>Zoë Müller</w:t></w:r></w:p>"
    ok = corpus.docx_with_body(body, encoding="utf-16")
    assert parse_document(ok, kind="docx", limits=limits)["text"] == "Zoë Müller"
    declaration = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE w:document [<!ENTITY a "b">]>'
    bomb = corpus.docx_with_body(body, encoding="utf-16", declaration=declaration)
    assert _code(bomb, "docx", limits) == "xml_bomb"


@pytest.mark.parametrize("encoding", ["UTF-7", "windows-1252", "EBCDIC-US"])
def test_iconv_encodings_are_unsupported(encoding: str, limits: ParseLimits) -> None:
    declaration = f'<?xml version="1.0" encoding="{encoding}"?>'
    data = corpus.docx_with_body("<w:p><w:r><w:t>x</w:t></w:r></w:p>", declaration=declaration)
    assert _code(data, "docx", limits) == "unsupported"


def test_svg_image_with_doctype_is_not_an_xml_bomb(limits: ParseLimits) -> None:
    # Illustrator SVGs carry a DOCTYPE; python-docx stores images as blobs.
    data = corpus.docx_with_tables()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        types = zf.read("[Content_Types].xml").decode()
    types = types.replace("<Default ", '<Default Extension="svg" ContentType="image/svg+xml"/><Default ', 1)
    svg = b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg/>'
    data = corpus.rezip(data, replace={"[Content_Types].xml": types.encode()}, add={"word/media/logo.svg": svg})
    assert corpus.CANDIDATE_EMAIL in parse_document(data, kind="docx", limits=limits)["text"]


def test_comments_and_cdata_are_not_declarations(limits: ParseLimits) -> None:
    body = "<!-- a comment --><w:p><w:r><w:t><![CDATA[a < b]]></w:t></w:r></w:p>"
    assert parse_document(corpus.docx_with_body(body), kind="docx", limits=limits)["text"] == "a < b"


def test_macro_enabled_document_is_unsupported(limits: ParseLimits) -> None:
    data = corpus.docx_with_tables()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        types = zf.read("[Content_Types].xml").decode()
    types = types.replace("document.main+xml", "document.macroEnabled.main+xml")
    types = types.replace("wordprocessingml.document.macroEnabled", "wordprocessingml.documentMacroEnabled")
    data = corpus.rezip(data, replace={"[Content_Types].xml": types.encode()})
    assert _code(data, "docx", limits) in {"unsupported", "corrupt"}


def test_empty_docx(limits: ParseLimits) -> None:
    assert _code(corpus.docx_with_body("<w:p/>"), "docx", limits) == ErrorCode.EMPTY_DOCUMENT.value
