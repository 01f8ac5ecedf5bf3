"""Generated test documents for the parsing, sandbox and intake test suites.

Every function returns ``bytes`` built at test time with PyMuPDF, python-docx and
zipfile (no binary fixtures in the repository) and is deterministic: same call,
same bytes. Results are cached, so treat them as read-only.

Good documents carry the CV_* constants, so a test can assert that a parser (or
OCR) recovered ``CANDIDATE_NAME`` and ``CANDIDATE_EMAIL``. Hostile ones are named
after the failure they provoke; ``EXPECTED_ERRORS`` maps corpus functions to the
``ats.parsing`` error code they must produce with default limits.
"""

from __future__ import annotations

import functools
import io
import random
import struct
import zipfile
import zlib
from collections.abc import Callable

import docx
import pymupdf

CANDIDATE_NAME = "Jane Doe"
CANDIDATE_EMAIL = "jane.doe@example.com"
CANDIDATE_PHONE = "+44 20 7946 0958"
CV_LINES = (
    CANDIDATE_NAME,
    CANDIDATE_EMAIL,
    CANDIDATE_PHONE,
    "",
    "Experience",
    "Senior Software Engineer, Example Ltd, 2019-2024",
    "Built payment systems in Python and PostgreSQL.",
    "",
    "Skills",
    "Python, Django, Kubernetes, SQL",
)
# Words OCR must recover from the scans (rendered large enough to be unambiguous).
OCR_WORDS = ("Jane", "Doe", CANDIDATE_EMAIL, "Experience", "Python")

_A4 = (595, 842)
_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _cached(func: Callable[..., bytes]) -> Callable[..., bytes]:
    return functools.lru_cache(maxsize=None)(func)


# --- PDF ------------------------------------------------------------------------


def _cv_page(doc: pymupdf.Document, lines: tuple[str, ...] = CV_LINES, fontsize: float = 14) -> None:
    page = doc.new_page(width=_A4[0], height=_A4[1])
    y = 90.0
    for line in lines:
        if line:
            page.insert_text((72, y), line, fontsize=fontsize, fontname="helv")
        y += fontsize * 1.6


@_cached
def text_pdf(pages: int = 1) -> bytes:
    """Digital (text-layer) CV; page 1 has the CV lines, later pages a numbered line."""
    doc = pymupdf.open()
    _cv_page(doc)
    for number in range(2, pages + 1):
        _cv_page(doc, (f"Page {number} of the CV of {CANDIDATE_NAME}",))
    doc.set_metadata({"title": f"CV {CANDIDATE_NAME}", "producer": "tests.corpus"})
    return doc.tobytes(deflate=True, garbage=3)


def pdf_many_pages(n: int) -> bytes:
    return text_pdf(pages=n)


@_cached
def scan_pixmap(dpi: int = 200) -> pymupdf.Pixmap:
    """The CV page rendered to an 8-bit grayscale raster, as a scanner would."""
    doc = pymupdf.open()
    _cv_page(doc, fontsize=16)
    return doc[0].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)


def _image_pdf(images: list[bytes]) -> bytes:
    doc = pymupdf.open()
    for image in images:
        page = doc.new_page(width=_A4[0], height=_A4[1])
        page.insert_image(page.rect, stream=image)
    return doc.tobytes(deflate=True, garbage=3)


@_cached
def scanned_pdf(dpi: int = 200) -> bytes:
    """A PDF whose only page is an image of the CV: no text layer at all."""
    return _image_pdf([scan_pixmap(dpi).tobytes("png")])


# CVs in other scripts, for the OCR's choice of model (ats.parsing._mupdf._script_language):
# each keeps the Latin-letter e-mail and tool names a real one has beside its own script.
SCRIPT_CVS: dict[str, tuple[str, ...]] = {
    "ru": (
        "Иван Петров",
        "ivan.petrov@example.com",
        "+7 915 620-79-66",
        "",
        "Опыт работы",
        "Старший разработчик, Пример, 2019-2024",
        "Разрабатывал платёжные системы на Python и PostgreSQL.",
        "",
        "Навыки",
        "Python, Django, Kubernetes, SQL",
    ),
    "zh-Hans": (
        "王小明",
        "wang.xiaoming@example.com",
        "+86 131 2345 6789",
        "",
        "工作经历",
        "高级软件工程师，示例有限公司，2019-2024",  # noqa: RUF001 (Chinese punctuation, as written)
        "使用 Python 和 PostgreSQL 开发支付系统。",
        "",
        "技能",
        "Python, Django, Kubernetes, SQL",
    ),
}


@_cached
def scanned_script_pdf(language: str, dpi: int = 200) -> bytes:
    """A scan of a CV in ``language``'s script (SCRIPT_CVS), set in MuPDF's own Noto font."""
    doc = pymupdf.open()
    page = doc.new_page(width=_A4[0], height=_A4[1])
    writer = pymupdf.TextWriter(page.rect)
    font = pymupdf.Font(language=language)
    for n, line in enumerate(SCRIPT_CVS[language]):
        if line:
            writer.append((72, 90 + 26 * n), line, font=font, fontsize=16)
    writer.write_text(page)
    image = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False).tobytes("png")
    return _image_pdf([image])


@_cached
def mixed_pdf() -> bytes:
    """Page 1 digital, page 2 scanned: only page 2 should need OCR."""
    doc = pymupdf.open(stream=text_pdf(), filetype="pdf")
    page = doc.new_page(width=_A4[0], height=_A4[1])
    page.insert_image(page.rect, stream=scan_pixmap(200).tobytes("png"))
    return doc.tobytes(deflate=True, garbage=3)


@_cached
def encrypted_pdf() -> bytes:
    """AES-256 with a user password: cannot be opened without it."""
    doc = pymupdf.open(stream=text_pdf(), filetype="pdf")
    return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret-user", owner_pw="secret-owner")


@_cached
def owner_password_pdf() -> bytes:
    """Encrypted with an empty user password (owner password + no-copy permission)."""
    doc = pymupdf.open(stream=text_pdf(), filetype="pdf")
    return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="", owner_pw="secret-owner", permissions=0)


@_cached
def truncated_pdf() -> bytes:
    """A text PDF cut off inside its first content stream, like an interrupted upload.

    MuPDF repairs the missing xref and finds the page, but no text survives. (Cut
    later, it recovers the text before the cut; see ``truncated_pdf_at``.)
    """
    data = text_pdf()
    return data[: data.index(b"stream\n") + 20]


def truncated_pdf_at(fraction: float) -> bytes:
    data = text_pdf()
    return data[: int(len(data) * fraction)]


@_cached
def pdf_image_bomb(width: int = 60_000, height: int = 60_000) -> bytes:
    """An image XObject that declares width x height (3.6 GP by default) over a tiny stream."""
    doc = pymupdf.open(stream=scanned_pdf(), filetype="pdf")
    xref = doc.get_page_images(0)[0][0]
    doc.xref_set_key(xref, "Width", str(width))
    doc.xref_set_key(xref, "Height", str(height))
    return doc.tobytes()


@_cached
def blank_pdf() -> bytes:
    doc = pymupdf.open()
    doc.new_page(width=_A4[0], height=_A4[1])
    return doc.tobytes()


# --- images ---------------------------------------------------------------------


@_cached
def png_scan(dpi: int = 200) -> bytes:
    return scan_pixmap(dpi).tobytes("png")


@_cached
def jpeg_scan(dpi: int = 200, quality: int = 80) -> bytes:
    return scan_pixmap(dpi).tobytes("jpeg", jpg_quality=quality)


def tiff_from_pixmaps(pixmaps: list[pymupdf.Pixmap], *, deflate: bool = True) -> bytes:
    """Minimal baseline TIFF writer (PyMuPDF reads TIFF but cannot write it).

    8-bit grayscale, one strip per page, Adobe Deflate (8) or no compression.
    """
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    prev_next_ptr = 4  # where the offset of the next IFD is stored
    for pix in pixmaps:
        gray = pix if (pix.n == 1 and not pix.alpha) else pymupdf.Pixmap(pymupdf.csGRAY, pix)
        width, height = gray.width, gray.height
        samples = gray.samples
        raw = b"".join(samples[y * gray.stride : y * gray.stride + width] for y in range(height))
        strip = zlib.compress(raw, 9) if deflate else raw
        strip_offset = len(out)
        out += strip
        if len(out) % 2:
            out += b"\x00"  # IFDs start on a word boundary
        entries = [
            (256, 4, width),
            (257, 4, height),
            (258, 3, 8),
            (259, 3, 8 if deflate else 1),
            (262, 3, 1),  # BlackIsZero
            (273, 4, strip_offset),
            (277, 3, 1),
            (278, 4, height),
            (279, 4, len(strip)),
        ]
        ifd_offset = len(out)
        struct.pack_into("<I", out, prev_next_ptr, ifd_offset)
        out += struct.pack("<H", len(entries))
        for tag, ftype, value in entries:
            out += struct.pack("<HHIH2x" if ftype == 3 else "<HHII", tag, ftype, 1, value)
        prev_next_ptr = len(out)
        out += b"\x00\x00\x00\x00"
    return bytes(out)


@_cached
def tiff_scan(pages: int = 1, dpi: int = 200) -> bytes:
    return tiff_from_pixmaps([scan_pixmap(dpi)] * pages)


def pixel_bomb_png(width: int = 50_000, height: int = 50_000) -> bytes:
    """A PNG whose IHDR claims width x height; the data is one short, valid IDAT.

    The parser must refuse it from the header alone, so the pixels never need to exist.
    """

    def chunk(ctype: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit gray
    idat = zlib.compress(b"\x00" * (width + 1) * 4)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# --- DOCX -----------------------------------------------------------------------


@_cached
def docx_with_tables() -> bytes:
    """Word CV: contact details in the page header, paragraphs, a skills table."""
    document = docx.Document()
    header = document.sections[0].header
    header.paragraphs[0].text = f"{CANDIDATE_NAME} | {CANDIDATE_EMAIL}"
    document.add_heading(CANDIDATE_NAME, level=1)
    document.add_paragraph(CANDIDATE_PHONE)
    document.add_heading("Experience", level=2)
    document.add_paragraph("Senior Software Engineer, Example Ltd, 2019-2024")
    document.add_paragraph("Built payment systems in Python and PostgreSQL.")
    document.add_heading("Skills", level=2)
    table = document.add_table(rows=3, cols=2)
    for row, (skill, years) in zip(table.rows, [("Skill", "Years"), ("Python", "8"), ("Kubernetes", "3")], strict=True):
        row.cells[0].text = skill
        row.cells[1].text = years
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def rezip(data: bytes, replace: dict[str, bytes] | None = None, add: dict[str, bytes] | None = None) -> bytes:
    """Copy a zip (e.g. a DOCX), replacing and/or adding members."""
    replace = replace or {}
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, replace.get(info.filename, src.read(info)))
        for name, body in (add or {}).items():
            dst.writestr(name, body)
    return out.getvalue()


def docx_with_body(body_xml: str, *, encoding: str = "utf-8", declaration: str | None = None) -> bytes:
    """The python-docx template with ``word/document.xml`` replaced by this body."""
    decl = (
        declaration
        if declaration is not None
        else f'<?xml version="1.0" encoding="{encoding.upper()}" standalone="yes"?>\n'
    )
    xml = (
        f'{decl}<w:document xmlns:w="{_W_NS}" '
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
        'xmlns:v="urn:schemas-microsoft-com:vml">'
        f"<w:body>{body_xml}</w:body></w:document>"
    )
    blank = io.BytesIO()
    docx.Document().save(blank)
    return rezip(blank.getvalue(), replace={"word/document.xml": xml.encode(encoding)})


def _p(text: str) -> str:
    return f'<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


@_cached
def docx_with_textbox() -> bytes:
    """Contact details only inside a text box (Choice + VML Fallback copy, as Word writes)."""
    box = f"<w:txbxContent>{_p(CANDIDATE_NAME)}{_p(CANDIDATE_EMAIL)}</w:txbxContent>"
    body = (
        _p("Profile")
        + "<w:p><w:r><mc:AlternateContent>"
        + f'<mc:Choice Requires="wps"><w:drawing><wps:txbx>{box}</wps:txbx></w:drawing></mc:Choice>'
        + f"<mc:Fallback><w:pict><v:shape><v:textbox>{box}</v:textbox></v:shape></w:pict></mc:Fallback>"
        + "</mc:AlternateContent></w:r></w:p>"
        + _p("Skills: Python")
    )
    return docx_with_body(body)


@_cached
def zip_bomb_docx(mib: int = 80) -> bytes:
    """A valid CV DOCX plus a member of ``mib`` MiB of zeros (~1000:1 compression)."""
    out = io.BytesIO(docx_with_tables())
    block = bytes(1024 * 1024)
    with (
        zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED, compresslevel=9) as zf,
        zf.open("word/media/padding.bin", "w") as member,
    ):
        for _ in range(mib):
            member.write(block)
    return out.getvalue()


@_cached
def overlapping_zip_docx(copies: int = 20) -> bytes:
    """Non-recursive zip bomb shape: many directory entries sharing one member's data."""
    data = bytearray(docx_with_tables())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        target = zf.getinfo("word/styles.xml")
    eocd = data.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack("<II", data[eocd + 12 : eocd + 20])
    central = bytes(data[cd_offset : cd_offset + cd_size])
    extra_records = b""
    pos = 0
    while pos < len(central):
        name_len, extra_len, comment_len = struct.unpack("<HHH", central[pos + 28 : pos + 34])
        record_len = 46 + name_len + extra_len + comment_len
        record = central[pos : pos + record_len]
        if record[46 : 46 + name_len] == target.filename.encode():
            for i in range(copies):
                clone = bytearray(record)
                new_name = f"word/copy{i:03d}.xml".encode()
                clone[28:30] = struct.pack("<H", len(new_name))
                clone[46 : 46 + name_len] = new_name
                extra_records += bytes(clone)
        pos += record_len
    new_central = central + extra_records
    count = struct.unpack("<H", data[eocd + 10 : eocd + 12])[0] + copies
    tail = bytearray(data[eocd:])
    struct.pack_into("<HHII", tail, 8, count, count, len(new_central), cd_offset)
    return bytes(data[:cd_offset]) + new_central + bytes(tail)


@_cached
def billion_laughs_docx() -> bytes:
    """document.xml with the classic nested-entity DTD, referenced from a w:t."""
    entities = ['<!ENTITY lol "lol">']
    for level in range(1, 10):
        ref = "lol" if level == 1 else f"lol{level - 1}"
        entities.append(f'<!ENTITY lol{level} "{f"&{ref};" * 10}">')
    declaration = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<!DOCTYPE w:document [{"".join(entities)}]>'
    )
    return docx_with_body(_p("&lol9;"), declaration=declaration)


@_cached
def cfb_encrypted_docx() -> bytes:
    """Stand-in for a password-protected Word file: an OLE header and the stream name.

    Not a valid compound file; enough for the magic/marker check, which is all the
    parser does with such input.
    """
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    return header + "EncryptedPackage".encode("utf-16-le") + bytes(512)


# --- anything else --------------------------------------------------------------


def garbage(n: int = 4096, seed: int = 0) -> bytes:
    return random.Random(seed).randbytes(n)


# Corpus function name -> expected ats.parsing error code (default limits), with kind.
EXPECTED_ERRORS: dict[str, tuple[str, str]] = {
    "encrypted_pdf": ("pdf", "encrypted"),
    "truncated_pdf": ("pdf", "corrupt"),
    "pdf_image_bomb": ("pdf", "pixel_limit"),
    "blank_pdf": ("pdf", "empty_document"),
    "pixel_bomb_png": ("png", "pixel_limit"),
    "zip_bomb_docx": ("docx", "decompression_bomb"),
    "overlapping_zip_docx": ("docx", "decompression_bomb"),
    "billion_laughs_docx": ("docx", "xml_bomb"),
    "cfb_encrypted_docx": ("docx", "encrypted"),
}
