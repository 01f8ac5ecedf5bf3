"""Tiny in-memory documents for ``prewarm``: one per code path, built without files."""

from __future__ import annotations

import io
import struct
import zipfile

import pymupdf

_DOCX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        "</Types>"
    ),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
        '2006/relationships/officeDocument" Target="word/document.xml"/>'
        "</Relationships>"
    ),
    "word/document.xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>Prewarm</w:t><w:tab/><w:t>docx</w:t></w:r></w:p>"
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
        "</w:body></w:document>"
    ),
}


# MuPDF's DOCX layout engine (the viewer's page render) will not open a package without
# the main part's relationships; the extractor does not need them.
_DOCX_LAYOUT_PARTS = {
    **_DOCX_PARTS,
    "word/_rels/document.xml.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>'
    ),
}


def docx_bytes(parts: dict[str, str] = _DOCX_PARTS) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, xml in parts.items():
            zf.writestr(name, xml)
    return out.getvalue()


def tiff_bytes(pix: pymupdf.Pixmap) -> bytes:
    """Uncompressed 8-bit grayscale single-strip TIFF (PyMuPDF cannot write TIFF)."""
    gray = pymupdf.Pixmap(pymupdf.csGRAY, pix) if pix.n != 1 or pix.alpha else pix
    width, height = gray.width, gray.height
    rows = gray.samples
    if gray.stride != width:
        rows = b"".join(rows[y * gray.stride : y * gray.stride + width] for y in range(height))
    entries = [
        (256, 4, 1, width),  # ImageWidth
        (257, 4, 1, height),  # ImageLength
        (258, 3, 1, 8),  # BitsPerSample
        (259, 3, 1, 1),  # Compression: none
        (262, 3, 1, 1),  # Photometric: BlackIsZero
        (273, 4, 1, 0),  # StripOffsets, patched below
        (277, 3, 1, 1),  # SamplesPerPixel
        (278, 4, 1, height),  # RowsPerStrip
        (279, 4, 1, len(rows)),  # StripByteCounts
    ]
    ifd_offset = 8
    data_offset = ifd_offset + 2 + 12 * len(entries) + 4
    out = bytearray(b"II*\x00" + struct.pack("<I", ifd_offset))
    out += struct.pack("<H", len(entries))
    for tag, ftype, count, value in entries:
        slot = data_offset if tag == 273 else value
        # A SHORT value sits left-justified in the 4-byte value slot.
        out += struct.pack("<HHIH2x" if ftype == 3 else "<HHII", tag, ftype, count, slot)
    out += struct.pack("<I", 0)
    out += rows
    return bytes(out)


def samples() -> dict[str, bytes]:
    """Digital PDF, scanned PDF, PNG, JPEG, TIFF and DOCX, each a few KB."""
    doc = pymupdf.open()
    page = doc.new_page(width=216, height=72)
    page.insert_text((8, 40), "Prewarm text 42", fontsize=16)
    text_pdf = doc.tobytes()
    pix = page.get_pixmap(dpi=144, alpha=False)
    png = pix.tobytes("png")
    jpeg = pix.tobytes("jpeg")
    doc.close()

    scan = pymupdf.open()
    scan_page = scan.new_page(width=216, height=72)
    scan_page.insert_image(scan_page.rect, stream=png)
    scanned_pdf = scan.tobytes(deflate=True)
    scan.close()
    return {
        "pdf": text_pdf,
        "scanned_pdf": scanned_pdf,
        "png": png,
        "jpeg": jpeg,
        "tiff": tiff_bytes(pix),
        "docx": docx_bytes(),
        "docx_layout": docx_bytes(_DOCX_LAYOUT_PARTS),
    }
