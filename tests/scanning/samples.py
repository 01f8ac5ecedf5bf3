"""Sample inputs for the scanning tests, built at runtime (nothing binary is checked in)."""

from __future__ import annotations

import base64
import io
import zipfile

# Assembled at runtime so this source file itself never trips a developer's or CI's
# on-access virus scanner.
EICAR = base64.b64decode(
    b"WDVPIVAlQEFQWzRcUFpYNTQoUF4pN0NDKTd9JEVJQ0FSLVNUQU5EQVJELUFOVElWSVJVUy1URVNULUZJTEUhJEgrSCo="
)
TEST_SIGNATURE = "ATS.Test.EICAR.UNOFFICIAL"


def make_docx(body: bytes, *, compression: int = zipfile.ZIP_DEFLATED, extra: dict[str, bytes] | None = None) -> bytes:
    """A minimal but well-formed WordprocessingML package around ``body``."""
    members = {
        "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
        b'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>'
        b'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
        b'officedocument.wordprocessingml.document.main+xml"/></Types>',
        "_rels/.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
        b'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
        b'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        "word/document.xml": b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
        b'wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>' + body + b"</w:t></w:r></w:p></w:body></w:document>",
        **(extra or {}),
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def make_pdf(text: str = "Jane Doe - Curriculum Vitae") -> bytes:
    """A real PDF written by MuPDF (test side only; the trusted code never parses PDFs)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), text)
    data: bytes = doc.tobytes()
    doc.close()
    return data
