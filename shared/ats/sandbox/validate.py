"""Check a child's answer before anything trusted touches it.

Everything here starts as ``untrusted_*``: the bytes came from a process that parsed
attacker-controlled input and may have been taken over. The answer is size-capped by
the zygote already; here it must be one frame of JSON with exactly the shape of an
``ats.parsing`` result (closed set of keys, types, lengths, page counts, a small raw-pixel
thumbnail that is PNG-encoded here) or a typed error. Anything else is ``protocol_error``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import struct
from collections.abc import Mapping
from typing import Any

from ats.sandbox import protocol
from ats.sandbox.data import CHILD_REPORTABLE, Failure
from ats.sandbox.thumbnail import encode_png

_DETAIL_MAX = 500
_WARNINGS_MAX, _WARNING_CHARS = 50, 300
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_LINES_PER_BLOCK_MAX = 200  # ats.parsing._common.MAX_LINES_PER_BLOCK
_STYLE_MAX = 64
_PARTS = frozenset({"body", "table", "header", "footer", "textbox"})
_PARAGRAPH_KEYS = frozenset({"part", "index", "text", "style"})
_CELL_KEYS = frozenset({"part", "index", "text", "table", "row", "col"})


class Invalid(Exception):
    pass


def _check(cond: bool, why: str) -> None:
    if not cond:
        raise Invalid(why)


def _string(value: Any, max_chars: int, what: str) -> str:
    _check(isinstance(value, str), f"{what}: not a string")
    _check(len(value) <= max_chars, f"{what}: {len(value)} chars > {max_chars}")
    # NUL cannot be stored in Postgres text; lone surrogates cannot be encoded as UTF-8.
    _check("\x00" not in value, f"{what}: NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise Invalid(f"{what}: lone surrogate") from None
    return str(value)


def _int(value: Any, low: int, high: int, what: str) -> int:
    _check(type(value) is int and low <= value <= high, f"{what}: not an int in [{low}, {high}]")
    return int(value)


def _list(value: Any, max_len: int, what: str) -> list[Any]:
    _check(isinstance(value, list) and len(value) <= max_len, f"{what}: not a list of <= {max_len}")
    return list(value)


def _raw_thumbnail(value: Any, width: int) -> str | None:
    """Schema 3: {width, height, channels (1 grey | 3 RGB), pixels_b64} -> base64 of a PNG
    encoded here (ats.sandbox.thumbnail), never the child's bytes in an image format."""
    if value is None:
        return None
    _check(isinstance(value, dict) and set(value) == {"width", "height", "channels", "pixels_b64"}, "thumbnail: shape")
    w = _int(value["width"], 1, width, "thumbnail width")
    h = _int(value["height"], 1, 2 * width + 1, "thumbnail height")
    channels = _int(value["channels"], 1, 3, "thumbnail channels")
    _check(channels in (1, 3), "thumbnail channels: grey or RGB only")
    size = w * h * channels
    encoded = _string(value["pixels_b64"], (size * 4) // 3 + 4, "thumbnail pixels")
    try:
        pixels = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise Invalid("thumbnail pixels: not base64") from None
    _check(len(pixels) == size, f"thumbnail pixels: {len(pixels)} bytes, {w}x{h}x{channels} declared")
    return base64.b64encode(encode_png(w, h, channels, pixels)).decode("ascii")


def _thumbnail(value: Any, width: int) -> str | None:
    """Schema 2 (one release): the child's PNG is checked as before, then dropped - it
    may carry attacker-chosen chunks, and re-encoding it would need a decoder here."""
    if value is None:
        return None
    # Worst case a 256 x 512 RGB PNG that did not compress: ~400 KB; base64 is 4/3 of that.
    raw_cap = 3 * width * 2 * width + 65536
    encoded = _string(value, (raw_cap * 4) // 3 + 4, "thumbnail_png_b64")
    try:
        png = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise Invalid("thumbnail_png_b64: not base64") from None
    _check(png.startswith(_PNG_MAGIC) and png[12:16] == b"IHDR", "thumbnail_png_b64: not a PNG")
    w, h = struct.unpack(">II", png[16:24])
    _check(0 < w <= width and 0 < h <= 2 * width + 1, f"thumbnail_png_b64: {w}x{h} too big")
    return None


def validate_document(untrusted: Any, *, kind: str, limits: Any) -> dict[str, Any]:
    """Return a fresh dict holding only checked values; raise Invalid otherwise.

    ``limits`` is the ats.parsing ParseLimits the child was given.
    """
    from ats.parsing.data import ACCEPTED_SCHEMA_VERSIONS

    _check(isinstance(untrusted, dict), "document: not an object")
    known = {
        "schema",
        "kind",
        "text",
        "pages",
        "blocks",
        "ocr_used",
        "ocr_pages",
        "thumbnail_png_b64",
        "warnings",
        "paragraphs",
        "tables",
        "bbox_unit",
    }
    schema = untrusted.get("schema")
    # Schema 1 (no lines, no elements) is still accepted for one release after the bump.
    _check(type(schema) is int and schema in ACCEPTED_SCHEMA_VERSIONS, "document: schema version")
    if schema >= 2:
        known.add("elements")
    if schema >= 3:  # raw thumbnail pixels instead of a PNG made by the child
        known = (known - {"thumbnail_png_b64"}) | {"thumbnail"}
    extra = set(untrusted) - known
    _check(not extra, f"document: unexpected keys {sorted(extra)[:5]}")
    _check(untrusted.get("kind") == kind, "document: kind differs from the request")
    max_chars = limits.max_text_chars
    # A DOCX page count is an estimate from break markers: its own cap (limits.toml [parse]).
    max_pages = limits.max_docx_pages if kind == "docx" else limits.max_pages
    out: dict[str, Any] = {
        "schema": schema,
        "kind": kind,
        "text": _string(untrusted.get("text"), max_chars, "text"),
        "pages": _int(untrusted.get("pages"), 0, max_pages, "pages"),
        "ocr_pages": _int(untrusted.get("ocr_pages"), 0, limits.max_pages, "ocr_pages"),
    }
    _check(type(untrusted.get("ocr_used")) is bool, "ocr_used: not a bool")
    out["ocr_used"] = bool(untrusted["ocr_used"])
    _check(untrusted.get("bbox_unit") in (None, "pt", "px"), "bbox_unit: not pt/px/null")
    out["bbox_unit"] = untrusted.get("bbox_unit")
    # The checked document always carries `thumbnail_png_b64` (what consumers serve), and
    # from schema 3 on it is a PNG the trusted side encoded from the child's raw pixels.
    if schema >= 3:
        _check("thumbnail" in untrusted, "thumbnail: missing")
        out["thumbnail_png_b64"] = _raw_thumbnail(untrusted["thumbnail"], limits.thumbnail_width)
    else:
        out["thumbnail_png_b64"] = _thumbnail(untrusted.get("thumbnail_png_b64"), limits.thumbnail_width)
    # Shown in logs and the triage page: printable only (no escapes, line breaks, bidi
    # overrides), like the error detail. The length was checked before the replacement.
    out["warnings"] = [
        _printable(_string(w, _WARNING_CHARS, "warning"), _WARNING_CHARS)
        for w in _list(untrusted.get("warnings"), _WARNINGS_MAX, "warnings")
    ]
    budget = max_chars  # blocks, paragraphs and tables repeat the text: they share one budget each
    blocks = []
    block_keys = {"page", "bbox", "text", "lines"} if schema >= 2 else {"page", "bbox", "text"}
    for block in _list(untrusted.get("blocks", []), limits.max_blocks, "blocks"):
        _check(isinstance(block, dict) and set(block) == block_keys, "block: shape")
        text = _string(block["text"], budget, "block text")
        budget -= len(text)
        checked = {"page": _int(block["page"], 0, max_pages, "block page"), "bbox": _bbox(block["bbox"]), "text": text}
        if schema >= 2:
            lines = []
            for line in _list(block["lines"], _LINES_PER_BLOCK_MAX, "lines"):
                _check(isinstance(line, dict) and set(line) == {"bbox", "text", "size"}, "line: shape")
                line_text = _string(line["text"], budget, "line text")
                budget -= len(line_text)
                size = line["size"]
                _check(type(size) in (int, float) and 0 <= size < 10_000, "line size: not a number in [0, 10000)")
                lines.append({"bbox": _bbox(line["bbox"]), "text": line_text, "size": float(size)})
            checked["lines"] = lines
        blocks.append(checked)
    out["blocks"] = blocks
    if "paragraphs" in untrusted or "tables" in untrusted:
        budget = max_chars
        paragraphs = []
        for para in _list(untrusted.get("paragraphs", []), limits.max_blocks, "paragraphs"):
            paragraphs.append(_string(para, budget, "paragraph"))
            budget -= len(paragraphs[-1])
        tables = []
        for table in _list(untrusted.get("tables", []), limits.max_blocks, "tables"):
            rows = []
            for row in _list(table, limits.max_blocks, "table rows"):
                cells = []
                for cell in _list(row, 1000, "table cells"):
                    cells.append(_string(cell, budget, "table cell"))
                    budget -= len(cells[-1])
                rows.append(cells)
            tables.append(rows)
        out["paragraphs"], out["tables"] = paragraphs, tables
    if schema >= 2:
        out["elements"] = _elements(untrusted.get("elements", []), limits, max_chars)
    return out


def _bbox(value: Any) -> list[float]:
    bbox = _list(value, 4, "bbox")
    _check(len(bbox) == 4 and all(type(v) in (int, float) and math.isfinite(v) for v in bbox), "bbox: 4 numbers")
    return [float(v) for v in bbox]


def _elements(value: Any, limits: Any, budget: int) -> list[dict[str, Any]]:
    """DOCX reading order: {part, index, text} plus style (paragraphs) or table/row/col (cells)."""
    out = []
    for element in _list(value, limits.max_blocks, "elements"):
        _check(isinstance(element, dict), "element: not an object")
        keys = set(element)
        _check(keys in (_PARAGRAPH_KEYS, _CELL_KEYS), "element: shape")
        _check(element["part"] in _PARTS, "element: unknown part")
        text = _string(element["text"], budget, "element text")
        budget -= len(text)
        checked: dict[str, Any] = {
            "part": element["part"],
            "index": _int(element["index"], 0, limits.max_blocks, "element index"),
            "text": text,
        }
        if keys == _PARAGRAPH_KEYS:
            style = element["style"]
            checked["style"] = None if style is None else _string(style, _STYLE_MAX, "element style")
        else:
            for key in ("table", "row", "col"):
                checked[key] = _int(element[key], 0, 1_000_000, f"element {key}")
        out.append(checked)
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def decode_answer(
    untrusted_answer: bytes, *, kind: str, limits: Any, max_result_bytes: int
) -> tuple[Failure | None, str, Mapping[str, Any] | None]:
    """Turn the child's raw answer into (failure, detail, document)."""
    if len(untrusted_answer) > max_result_bytes + protocol.LEN_SIZE:
        return Failure.OUTPUT_TOO_LARGE, "answer over max_result_bytes", None
    if len(untrusted_answer) < protocol.LEN_SIZE:
        return Failure.PROTOCOL_ERROR, "no answer", None
    declared = int.from_bytes(untrusted_answer[: protocol.LEN_SIZE], "big")
    untrusted_body = untrusted_answer[protocol.LEN_SIZE :]
    if declared != len(untrusted_body):
        return Failure.PROTOCOL_ERROR, "frame length mismatch", None
    try:
        untrusted = json.loads(untrusted_body, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return Failure.PROTOCOL_ERROR, "answer is not JSON", None
    if not isinstance(untrusted, dict):
        return Failure.PROTOCOL_ERROR, "answer is not an object", None
    status = untrusted.get("status")
    try:
        if status == "error":
            _check(set(untrusted) == {"status", "code", "detail"}, "error: shape")
            code = untrusted["code"]
            _check(isinstance(code, str) and code in CHILD_REPORTABLE, "error: unknown code")
            detail = _string(untrusted["detail"], _DETAIL_MAX, "detail")
            return Failure(code), _printable(detail), None
        _check(status == "ok" and set(untrusted) == {"status", "document"}, "answer: shape")
        return None, "", validate_document(untrusted["document"], kind=kind, limits=limits)
    except Invalid as exc:
        return Failure.PROTOCOL_ERROR, _printable(str(exc)), None
    except Exception as exc:  # a validator bug must not take the worker down with it
        return Failure.PROTOCOL_ERROR, f"validator: {type(exc).__name__}", None


def _printable(text: str, max_chars: int = _DETAIL_MAX) -> str:
    # Details and warnings end up in logs and the triage UI: no control characters, no
    # escapes, no format characters (bidi overrides): str.isprintable() is False for all.
    return "".join(ch if ch.isprintable() else "?" for ch in text[:max_chars])
