"""Render one page of an untrusted document as raw 8-bit grey pixels (runs in the sandbox).

The CV viewer's page images (ADR 0004's *derivatives*). The child never produces an image
file format: it returns the page's samples, zlib-compressed, with the dimensions it
declares; the trusted side inflates them into a buffer of exactly the declared size and
encodes the PNG itself (ats.sandbox.pages, docs/security/sandbox.md "page images").

One page per child: each answer stays far below the 4 MiB answer limit and each hand-off
row has its own byte limit. Grey, not RGB: a third of the bytes, and a CV reads the same.
"""

from __future__ import annotations

import base64
import io
import zipfile
import zlib
from typing import Any

import pymupdf

from . import _docx, _mupdf
from ._images import image_frames
from .data import KINDS, ErrorCode, ParseError, ParseLimits

# Reading size: 1,240 px is an A4 page at 150 dpi; the viewer's 2x zoom scales this same
# derivative (docs/web.md). Ribbon-shaped pages are scaled to fit twice the width in height.
PAGE_WIDTH = 1240
PAGE_MAX_HEIGHT = 2 * PAGE_WIDTH
# zlib level 1 (issue 26): this is transport to the trusted side, which inflates and
# encodes the PNG itself. First pages of 40 development PDFs of the extraction corpus:
# level 1 6.6 ms CPU for 68 KiB, level 6 17.9 ms for 57 KiB. Incompressible noise at the
# largest page still fits PAGE_LIMITS.max_compressed_bytes (stored blocks add ~0.03%).
_ZLIB_LEVEL = 1


def _open(data: bytes, kind: str, limits: ParseLimits) -> pymupdf.Document:
    """The same refusals the parse applies before any decoder runs (bombs, pixel counts)."""
    if kind == "pdf":
        doc = _mupdf._open(_mupdf.pdf_body(data), "pdf")
        if doc.needs_pass or doc.is_encrypted:
            doc.close()
            raise ParseError(ErrorCode.ENCRYPTED, "PDF needs a password")
        return doc
    if kind == "docx":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                _docx.check_zip(data, zf.infolist(), limits)
        except ParseError:
            raise
        except Exception as exc:
            raise ParseError(ErrorCode.CORRUPT, f"zip: {exc}") from None
        try:
            return _docx.layout(data)
        except Exception as exc:
            raise ParseError(ErrorCode.CORRUPT, f"cannot lay out docx: {type(exc).__name__}") from None
    frames = image_frames(data, kind, limits.max_pages)
    for number, (width, height) in enumerate(frames, start=1):
        if width * height > limits.max_pixels_per_page:
            raise ParseError(ErrorCode.PIXEL_LIMIT, f"image {number} is {width}x{height} pixels")
    doc = _mupdf._open(data, kind)
    if doc.page_count > len(frames):
        doc.close()
        raise ParseError(ErrorCode.CORRUPT, f"{kind} frame count disagrees with its headers")
    return doc


def _grey_pixels(pix: pymupdf.Pixmap, w: int, h: int) -> bytes | memoryview:
    """The pixmap's first `w` x `h` samples, row-major without padding."""
    samples, stride = pix.samples_mv, pix.stride
    if pix.width == w and stride == w:
        # Grey without alpha: the rows are contiguous, and a row past the height cap is
        # cut by one slice (no copy; the Python row crop below cost ~6 ms per page).
        return samples[: h * stride]
    # Rounding may add a column past the cap: crop row by row (stride).
    return b"".join(samples[row * stride : row * stride + w] for row in range(h))


def render_page(data: bytes, *, kind: str, page: int, limits: ParseLimits) -> dict[str, Any]:
    """Page `page` (1-based) of the document -> {"page", "pages", "width", "height",
    "unit_width", "unit_height", "zlib_b64"}: `width` x `height` grey samples, row-major,
    no padding, zlib-compressed. Raises ParseError only."""
    if kind not in KINDS:
        raise ParseError(ErrorCode.UNSUPPORTED, f"unknown kind {kind!r}")
    data = bytes(data)
    if not data or len(data) > limits.max_bytes:
        raise ParseError(ErrorCode.TOO_LARGE if data else ErrorCode.CORRUPT, "document size")
    _mupdf.begin()
    try:
        doc = _open(data, kind, limits)
        try:
            pages = doc.page_count
            if pages <= 0:
                raise ParseError(ErrorCode.CORRUPT, "no pages")
            if not 1 <= page <= min(pages, limits.max_pages):
                raise ParseError(ErrorCode.TOO_MANY_PAGES, f"page {page} of {pages}")
            pno = page - 1
            if kind == "pdf":
                _mupdf._check_pdf_page_images(doc, pno, limits)
            pg = doc.load_page(pno)
            rect = pg.rect
            if not (rect.width > 0 and rect.height > 0):
                raise ParseError(ErrorCode.CORRUPT, "zero-size page")
            zoom = min(PAGE_WIDTH / rect.width, PAGE_MAX_HEIGHT / rect.height)
            pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
            w, h = min(pix.width, PAGE_WIDTH), min(pix.height, PAGE_MAX_HEIGHT)
            compressed = zlib.compress(_grey_pixels(pix, w, h), _ZLIB_LEVEL)
            unit_w, unit_h = float(rect.width), float(rect.height)
            if kind not in ("pdf", "docx"):
                # Image provenance boxes are in the image's own pixels, as displayed.
                frames = image_frames(data, kind, limits.max_pages)
                fw, fh = frames[pno]
                sx, sy = _mupdf._image_pixels_per_point(pg, fw, fh, unit_w, unit_h)
                unit_w, unit_h = unit_w * sx, unit_h * sy
        finally:
            doc.close()
    except ParseError:
        raise
    except MemoryError:
        raise ParseError(ErrorCode.TOO_LARGE, "out of memory") from None
    except Exception as exc:
        raise ParseError(ErrorCode.INTERNAL, f"render: {type(exc).__name__}") from None
    return {
        "page": page,
        "pages": min(pages, limits.max_pages),
        "width": w,
        "height": h,
        "unit_width": round(unit_w, 3),
        "unit_height": round(unit_h, 3),
        "zlib_b64": base64.b64encode(compressed).decode("ascii"),
    }
