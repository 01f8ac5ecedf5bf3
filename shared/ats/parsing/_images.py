"""Image dimensions read from headers, before any decoder allocates a pixel buffer.

PyMuPDF 1.28's ``TOOLS.image_profile`` is broken for bytes input (SWIG signature
mismatch), and opening an image document tells us points, not pixels, so the
pixel cap is enforced from the headers here. Only the fields MuPDF itself uses to
size its buffers are read: PNG IHDR, the first JPEG SOFn, every TIFF IFD.
"""

from __future__ import annotations

import struct

from .data import ErrorCode, ParseError

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# SOF0-SOF15 minus DHT (C4), JPG (C8) and DAC (CC), which share the range.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_STANDALONE = frozenset(range(0xD0, 0xD8)) | {0x01, 0xD8}
_JPEG_SOS = 0xDA
_JPEG_EOI = 0xD9

_TIFF_WIDTH = 256
_TIFF_LENGTH = 257
# TIFF field types whose value fits the 4-byte slot and can hold a dimension.
_TIFF_SHORT = 3
_TIFF_LONG = 4


def _corrupt(detail: str) -> ParseError:
    return ParseError(ErrorCode.CORRUPT, detail)


def png_frames(data: bytes) -> list[tuple[int, int]]:
    if not data.startswith(_PNG_SIGNATURE) or len(data) < 33:
        raise _corrupt("not a PNG stream")
    length, ctype = struct.unpack(">I4s", data[8:16])
    if ctype != b"IHDR" or length != 13:
        raise _corrupt("PNG does not start with IHDR")
    width, height = struct.unpack(">II", data[16:24])
    return [(width, height)]


def jpeg_frames(data: bytes) -> list[tuple[int, int]]:
    if not data.startswith(b"\xff\xd8"):
        raise _corrupt("not a JPEG stream")
    pos = 2
    size = len(data)
    while pos < size:
        # libjpeg skips stray bytes between segments (with a warning); so do we,
        # or a file MuPDF decodes would be refused here.
        while pos < size and data[pos] != 0xFF:
            pos += 1
        while pos < size and data[pos] == 0xFF:  # fill bytes are legal
            pos += 1
        if pos >= size:
            break
        marker = data[pos]
        pos += 1
        if marker in _JPEG_STANDALONE:
            continue
        if marker in (_JPEG_SOS, _JPEG_EOI):
            raise _corrupt("JPEG has no frame header before its scan")
        if pos + 2 > size:
            break
        (seg_len,) = struct.unpack(">H", data[pos : pos + 2])
        if seg_len < 2:
            raise _corrupt("JPEG segment length < 2")
        if marker in _JPEG_SOF:
            if pos + 7 > size:
                break
            height, width = struct.unpack(">HH", data[pos + 3 : pos + 7])
            if height == 0:
                # Height deferred to a DNL marker after the scan: rare, and the
                # decoder cannot size its buffer up front.
                raise ParseError(ErrorCode.UNSUPPORTED, "JPEG with DNL-defined height")
            return [(width, height)]
        pos += seg_len
    raise _corrupt("JPEG ends before its frame header")


def tiff_frames(data: bytes, max_frames: int) -> list[tuple[int, int]]:  # noqa: PLR0912 - bounds-checked TIFF walk: one refusal per malformed field, kept inline for audit
    """Dimensions of each page (IFD); stops one past ``max_frames`` so a caller sees the excess."""
    head = data[:4]
    if head == b"II*\x00":
        endian = "<"
    elif head == b"MM\x00*":
        endian = ">"
    elif head in (b"II+\x00", b"MM\x00+"):
        raise ParseError(ErrorCode.UNSUPPORTED, "BigTIFF")
    else:
        raise _corrupt("not a TIFF stream")
    size = len(data)
    frames: list[tuple[int, int]] = []
    seen: set[int] = set()
    (offset,) = struct.unpack(endian + "I", data[4:8]) if size >= 8 else (0,)
    while offset:
        if offset in seen:
            raise _corrupt("TIFF IFD chain loops")
        seen.add(offset)
        if offset + 2 > size:
            raise _corrupt("TIFF IFD offset beyond end of file")
        (count,) = struct.unpack(endian + "H", data[offset : offset + 2])
        entries_end = offset + 2 + 12 * count
        if entries_end + 4 > size:
            raise _corrupt("TIFF IFD runs past end of file")
        width = height = 0
        for i in range(count):
            entry = offset + 2 + 12 * i
            tag, ftype, n = struct.unpack(endian + "HHI", data[entry : entry + 8])
            if tag not in (_TIFF_WIDTH, _TIFF_LENGTH) or n != 1:
                continue
            if ftype == _TIFF_SHORT:
                (value,) = struct.unpack(endian + "H", data[entry + 8 : entry + 10])
            elif ftype == _TIFF_LONG:
                (value,) = struct.unpack(endian + "I", data[entry + 8 : entry + 12])
            else:
                raise _corrupt("TIFF dimension has an invalid field type")
            if tag == _TIFF_WIDTH:
                width = value
            else:
                height = value
        frames.append((width, height))
        if len(frames) > max_frames:
            break
        (offset,) = struct.unpack(endian + "I", data[entries_end : entries_end + 4])
    if not frames:
        raise _corrupt("TIFF has no image directory")
    return frames


def image_frames(data: bytes, kind: str, max_frames: int) -> list[tuple[int, int]]:
    if kind == "png":
        frames = png_frames(data)
    elif kind == "jpeg":
        frames = jpeg_frames(data)
    elif kind == "tiff":
        frames = tiff_frames(data, max_frames)
    else:
        raise ParseError(ErrorCode.UNSUPPORTED, f"not an image kind: {kind}")
    for width, height in frames:
        if width <= 0 or height <= 0:
            raise _corrupt(f"{kind} has a zero dimension")
    return frames
