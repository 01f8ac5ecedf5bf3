"""Trusted sample documents a spare child parses before it receives a real one.

Why: a forked child pays a copy-on-write fault for every page of the zygote's heap the
parser writes to (~1,000 faults, ~3-8 ms per 1-page PDF on this kind of VM). The spare
child parses these samples while it is idle, so those pages are already private when
the real document arrives and its parse runs at in-process speed. The samples are
built here (stdlib only, no parser internals) and never leave the child.
"""

from __future__ import annotations

import io
import zipfile

_PDF_TEXT = b"BT /F1 11 Tf 72 770 Td (Warm up: Jane Doe, engineer) Tj 0 -14 Td (Python, SQL) Tj ET"


def sample_pdf() -> bytes:
    """A valid one-page text PDF with a correct xref (no repair path)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(_PDF_TEXT) + _PDF_TEXT + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_DOCX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    ),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
    ),
    "word/document.xml": (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{_W}"><w:body>'
        "<w:p><w:r><w:t>Warm up: Jane Doe</w:t></w:r></w:p>"
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Python</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
        "</w:body></w:document>"
    ),
}


def sample_docx() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in _DOCX_PARTS.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), text)
    return out.getvalue()


def samples() -> list[tuple[str, bytes]]:
    """(kind, bytes) in the order a spare parses them: PDF last, as it is the common case."""
    return [("docx", sample_docx()), ("pdf", sample_pdf())]
