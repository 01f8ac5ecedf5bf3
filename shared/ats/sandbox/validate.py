"""Check a child's answer before anything trusted touches it.

Everything here starts as ``untrusted_*``: the bytes came from a process that parsed
attacker-controlled input and may have been taken over. The answer is size-capped by
the zygote already; here it must be one frame of JSON with exactly the shape of an
``ats.parsing`` result (closed set of keys, types, lengths, page counts, a small raw-pixel
thumbnail that is PNG-encoded here) or a typed error. Anything else is ``protocol_error``.

The same checks run again in worker-default on every report stored through
ats_parse_submit() (``check_report``, with what only the trusted side knows): this module
is the one source of truth of what a parse result may look like, for both sides.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ats.sandbox import protocol
from ats.sandbox.data import CHILD_REPORTABLE, REPORT_CHECKS, Failure, Layer, required_layers
from ats.sandbox.errors import SandboxError
from ats.sandbox.thumbnail import encode_png, is_plain_png

_DETAIL_MAX = 500
_WARNINGS_MAX, _WARNING_CHARS = 50, 300
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_LINES_PER_BLOCK_MAX = 200  # ats.parsing._common.MAX_LINES_PER_BLOCK
_STYLE_MAX = 64
_PARTS = frozenset({"body", "table", "header", "footer", "textbox"})
_PARAGRAPH_KEYS = frozenset({"part", "index", "text", "style"})
_CELL_KEYS = frozenset({"part", "index", "text", "table", "row", "col"})


class Invalid(SandboxError):
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


def _report_thumbnail(value: Any, width: int) -> str | None:
    """A report's thumbnail: None, or a PNG of exactly the shape ats.sandbox.thumbnail
    writes, within the thumbnail bounds. Headers and chunk CRCs only, nothing inflated.
    (The image hand-off itself - issue 21 N1's image part - replaces this.)"""
    if value is None:
        return None
    raw_cap = 3 * width * 2 * width + 65536
    encoded = _string(value, (raw_cap * 4) // 3 + 4, "thumbnail_png_b64")
    try:
        png = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise Invalid("thumbnail_png_b64: not base64") from None
    _check(is_plain_png(png), "thumbnail_png_b64: not a plain PNG")
    w, h = struct.unpack(">II", png[16:24])
    _check(0 < w <= width and 0 < h <= 2 * width + 1, f"thumbnail_png_b64: {w}x{h} too big")
    return encoded


def validate_document(untrusted: Any, *, kind: str, limits: Any, form: str = "answer") -> dict[str, Any]:  # noqa: PLR0912, PLR0915 - untrusted document: every field checked in one place, flat for audit
    """Return a fresh dict holding only checked values; raise Invalid otherwise.

    ``limits`` is the ats.parsing ParseLimits the child was given. ``form`` is "answer"
    (a child's answer, in worker-untrusted) or "report" (what worker-untrusted stored
    through ats_parse_submit(), re-checked by worker-default: ``check_report``). The two
    differ only in the thumbnail: a report carries the PNG the untrusted side encoded
    (``thumbnail_png_b64``), an answer the child's raw pixels. Everything else is the
    same code, so the two sides cannot drift apart.
    """
    _check(form in ("answer", "report"), "validator: unknown form")
    from ats.parsing.data import ACCEPTED_SCHEMA_VERSIONS, MAX_RUNS_PER_LINE

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
    if schema >= 3 and form == "answer":  # raw thumbnail pixels instead of a PNG made by the child
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
    if form == "report":
        _check("thumbnail_png_b64" in untrusted, "thumbnail_png_b64: missing")
        out["thumbnail_png_b64"] = _report_thumbnail(untrusted["thumbnail_png_b64"], limits.thumbnail_width)
    elif schema >= 3:
        _check("thumbnail" in untrusted, "thumbnail: missing")
        out["thumbnail_png_b64"] = _raw_thumbnail(untrusted["thumbnail"], limits.thumbnail_width)
    else:
        out["thumbnail_png_b64"] = _thumbnail(untrusted.get("thumbnail_png_b64"), limits.thumbnail_width)
    # Shown in logs and the triage page: printable only (no escapes, line breaks, bidi
    # overrides), like the error detail. The length was checked before the replacement.
    # A report's warnings lose invisible characters first (N6: dropped, not "?").
    clean = strip_invisible if form == "report" else str
    out["warnings"] = [
        _printable(clean(_string(w, _WARNING_CHARS, "warning")), _WARNING_CHARS)
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
                _check(isinstance(line, dict) and set(line) - {"runs"} == {"bbox", "text", "size"}, "line: shape")
                line_text = _string(line["text"], budget, "line text")
                budget -= len(line_text)
                size = _font_size(line["size"], "line size")
                checked_line: dict[str, Any] = {"bbox": _bbox(line["bbox"]), "text": line_text, "size": size}
                if "runs" in line:
                    checked_line["runs"] = _runs(line["runs"], len(line_text), MAX_RUNS_PER_LINE)
                lines.append(checked_line)
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


def _font_size(value: Any, what: str) -> float:
    _check(type(value) in (int, float) and 0 <= value < 10_000, f"{what}: not a number in [0, 10000)")
    return float(value)


def _runs(value: Any, length: int, max_runs: int) -> list[list[Any]]:
    """A line's style runs: [end, style, size] with ends strictly rising to the line's
    length, style bits 0-3 (bold 1, italic 2), sizes as a line's (ats.parsing._common)."""
    out: list[list[Any]] = []
    for untrusted_run in _list(value, max_runs, "line runs"):
        run = _list(untrusted_run, 3, "line run")
        _check(len(run) == 3, "line run: not [end, style, size]")
        end = _int(run[0], (out[-1][0] + 1) if out else 1, length, "line run end")
        style = _int(run[1], 0, 3, "line run style")
        out.append([end, style, _font_size(run[2], "line run size")])
    _check(bool(out) and out[-1][0] == length, "line runs: do not end at the line's end")
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
        keys = set(element) - {"at"}
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
        if "at" in element:
            checked["at"] = _element_at(element["at"], text.count("\n") + 1)
        out.append(checked)
    return out


def _element_at(value: Any, lines: int) -> list[list[float] | None]:
    """A DOCX element's line boxes on the laid-out pages: one entry per line of its text,
    null or [page, x0, y0, x1, y1] with the page within the viewer's and the box inside
    the layout's page (what the viewer draws comes only from here)."""
    from ats.parsing.data import DOCX_LAYOUT_HEIGHT, DOCX_LAYOUT_WIDTH, DOCX_LOCATE_PAGES

    entries = _list(value, lines, "element at")
    _check(len(entries) == lines, "element at: not one entry per line")
    out: list[list[float] | None] = []
    for entry in entries:
        if entry is None:
            out.append(None)
            continue
        box = _list(entry, 5, "element at box")
        _check(len(box) == 5, "element at: not [page, x0, y0, x1, y1]")
        page = _int(box[0], 1, DOCX_LOCATE_PAGES, "element at page")
        x0, y0, x1, y1 = _bbox(box[1:])
        _check(
            0 <= x0 < x1 <= DOCX_LAYOUT_WIDTH and 0 <= y0 < y1 <= DOCX_LAYOUT_HEIGHT,
            "element at: box outside the laid-out page",
        )
        out.append([page, x0, y0, x1, y1])
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def decode_answer(  # noqa: PLR0911 - untrusted answer: one early refusal per malformed part, flat for audit
    untrusted_answer: bytes, *, kind: str, limits: Any, max_result_bytes: int
) -> tuple[Failure | None, str, Mapping[str, Any] | None]:
    """Turn the child's raw answer into (failure, detail, document).

    A with_first_page_request's page 1 comes after this answer, in a frame of its own,
    and is checked on its own (ats.sandbox.pages.decode_render_answer)."""
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


# --- worker-default's check of a stored parse report ------------------------------------
#
# Holding the parse role (an escaped child, a compromised worker-untrusted pod) one can
# write any report ats_parse_submit() lets through. The trusted side believes none of it
# unchecked: the same document checks as above (form="report"), then what only this
# deployment knows - the policy hashes it ships, each format's page limit, the layers it
# requires, the closed set of failure codes. Stdlib only, like the rest of this module.

# The typed failures worker-untrusted may report (ats.parse_worker.runner sends a
# sandbox Failure, nothing else). `worker_lost` and `report_rejected` are decided by the
# trusted side and never come from a report.
REPORTABLE_FAILURES: frozenset[str] = frozenset(f.value for f in Failure)
_SANDBOX_KEYS = frozenset(
    {
        "ok",
        "failure",
        "detail",
        "sandbox",
        "layers",
        "skipped_layers",
        "policy_hash",
        "wall_ms",
        "cpu_ms",
        "max_rss_kb",
        "zygote_restarts",
    }
)
_HEX64 = frozenset("0123456789abcdef")
# N6: characters that hide or reorder what a reader sees (bidi embeddings, overrides,
# isolates and marks; zero-width spaces and joiners; word joiner family; BOM; tag
# characters) and every C0/C1 control but \t and \n. The untrusted normaliser
# (ats.parsing._text) drops these already; the trusted side does not rely on it.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


class ReportRejected(SandboxError):
    """A stored report failed a check; ``check`` is a key of REPORT_CHECKS."""

    def __init__(self, check: str, detail: str) -> None:
        if check not in REPORT_CHECKS:
            raise ValueError(f"unknown report check {check!r}")
        super().__init__(f"{check}: {detail}")
        self.check = check
        self.detail = _printable(detail)


@dataclass(frozen=True, slots=True)
class ReportDeployment:
    """What this deployment ships: the trusted side's half of every report check."""

    limits: Any  # ats.parsing.data.ParseLimits of the shipped limits.toml
    policy_hashes: frozenset[str]  # the shipped policy's hash (+ any configured extra)
    max_detail_chars: int
    # None: what the zygote itself requires for the mode the report claims
    # (ats.sandbox.data.required_layers); else exactly these, always.
    required_layers: frozenset[Layer] | None = None


@dataclass(frozen=True, slots=True)
class CheckedReport:
    ok: bool
    code: str
    detail: str
    text: str
    page_count: int | None
    result: dict[str, Any]
    policy_hash: str


def report_deployment(
    policy_dir: Path, *, extra_policy_hashes: Iterable[str] = (), required_layers: Iterable[str] = ()
) -> ReportDeployment:
    """The deployment's bounds, read from its own copy of the policy directory."""
    from ats.parsing.data import ParseLimits
    from ats.sandbox.policy import load_policy

    with open(policy_dir / "limits.toml", "rb") as fh:
        report = tomllib.load(fh).get("report", {})
    policy = load_policy(policy_dir)
    extra = {h.strip().lower() for h in extra_policy_hashes if h.strip()}
    if any(len(h) != 64 or not set(h) <= _HEX64 for h in extra):
        raise ValueError("extra policy hashes must be sha256 hex digests")
    layers = frozenset(Layer(v) for v in required_layers) if required_layers else None
    return ReportDeployment(
        limits=ParseLimits(**policy.parse),
        policy_hashes=frozenset({policy.policy_hash, *extra}),
        max_detail_chars=int(report.get("max_detail_chars", _DETAIL_MAX)),
        required_layers=layers,
    )


def strip_invisible(text: str) -> str:
    """N6: drop bidi/invisible format characters and C0/C1 controls (keep \\n and \\t)."""
    return _INVISIBLE.sub("", text)


def _strip_all(value: Any) -> Any:
    if isinstance(value, str):
        return strip_invisible(value)
    if isinstance(value, list):
        return [_strip_all(v) for v in value]
    if isinstance(value, dict):
        return {k: _strip_all(v) for k, v in value.items()}
    return value


def _reject(cond: bool, check: str, detail: str) -> None:
    if not cond:
        raise ReportRejected(check, detail)


def _number(value: Any, high: float) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and 0 <= value <= high


def _check_sandbox(untrusted: Any, *, ok: bool, policy_hash: str, deployment: ReportDeployment) -> dict[str, Any]:
    """The report's sandbox record: shape, the shipped policy, the required layers."""
    _reject(isinstance(untrusted, dict) and set(untrusted) == _SANDBOX_KEYS, "sandbox", "sandbox record: shape")
    rec = untrusted
    _reject(rec["policy_hash"] == policy_hash, "policy_hash", "sandbox record and report name different policies")
    _reject(policy_hash in deployment.policy_hashes, "policy_hash", "a policy hash this deployment does not ship")
    _reject(type(rec["ok"]) is bool and rec["ok"] is (rec["failure"] is None), "sandbox", "sandbox record: ok/failure")
    _reject(rec["failure"] is None or rec["failure"] in REPORTABLE_FAILURES, "failure_code", "sandbox record: failure")
    _reject(rec["sandbox"] in ("forkserver", "inprocess"), "sandbox", "sandbox record: kind")
    _reject(isinstance(rec["detail"], str) and len(rec["detail"]) <= _DETAIL_MAX, "sandbox", "sandbox record: detail")
    for key, high in (("wall_ms", 1e9), ("cpu_ms", 1e9), ("max_rss_kb", 1e9), ("zygote_restarts", 10_000)):
        _reject(_number(rec[key], high), "sandbox", f"sandbox record: {key}")
    _reject(type(rec["max_rss_kb"]) is int and type(rec["zygote_restarts"]) is int, "sandbox", "sandbox record: ints")
    names = {layer.value for layer in Layer}
    for key in ("layers", "skipped_layers"):
        values = rec[key]
        _reject(
            isinstance(values, list) and len(values) <= len(names) and all(v in names for v in values),
            "layers",
            f"sandbox record: {key} not layer names",
        )
    layers = frozenset(Layer(v) for v in rec["layers"])
    if ok:
        _reject(rec["ok"] is True, "sandbox", "a parsed report whose sandbox record says it failed")
        # A parse result is believed only from a child that had every required layer.
        # (A failure needs none: a sandbox that did not start reports no layers.)
        _reject(rec["sandbox"] == "forkserver", "layers", "parsed outside the fork server")
        if deployment.required_layers is not None:
            required = deployment.required_layers
        else:
            required = required_layers(layers, root=Layer.SETUID in layers)
        missing = sorted(v.value for v in required - layers)
        _reject(not missing, "layers", f"required layers missing: {missing}")
        _reject(not layers & set(map(Layer, rec["skipped_layers"])), "layers", "a layer both active and skipped")
    return {
        **rec,
        "detail": _printable(strip_invisible(rec["detail"])),
        "layers": list(rec["layers"]),
        "skipped_layers": list(rec["skipped_layers"]),
    }


def check_report(
    *,
    ok: Any,
    code: Any,
    detail: Any,
    text: Any,
    page_count: Any,
    result: Any,
    policy_hash: Any,
    kind: str,
    deployment: ReportDeployment,
) -> CheckedReport:
    """Re-check one stored report; raise ReportRejected naming the first failed check.

    Returns fresh values only: the checked document with invisible characters stripped
    (N6), the sanitised detail, the sandbox record as checked.
    """
    try:
        return _check_report(
            ok=ok,
            code=code,
            detail=detail,
            text=text,
            page_count=page_count,
            result=result,
            policy_hash=policy_hash,
            kind=kind,
            deployment=deployment,
        )
    except ReportRejected:
        raise
    except Exception as exc:  # a checker bug rejects the report, it never lets it through
        raise ReportRejected("shape", f"checker: {type(exc).__name__}") from exc


def _check_report(
    *,
    ok: Any,
    code: Any,
    detail: Any,
    text: Any,
    page_count: Any,
    result: Any,
    policy_hash: Any,
    kind: str,
    deployment: ReportDeployment,
) -> CheckedReport:
    _reject(type(ok) is bool, "shape", "ok: not a bool")
    _reject(isinstance(result, dict), "shape", "result: not an object")
    _reject(isinstance(code, str) and isinstance(detail, str) and isinstance(text, str), "shape", "columns: types")
    _reject(isinstance(policy_hash, str), "shape", "policy_hash: not a string")
    _reject(len(detail) <= deployment.max_detail_chars, "shape", "detail: too long")
    expected = set(result) - {"sandbox"}
    if not ok:
        _reject(code in REPORTABLE_FAILURES, "failure_code", f"not a typed failure code: {code[:40]!r}")
        _reject(not expected, "unknown_keys", f"a failure report with fields {sorted(expected)[:5]}")
        _reject(text == "" and page_count is None, "shape", "a failure report with text or pages")
        sandbox = _check_sandbox(result.get("sandbox"), ok=False, policy_hash=policy_hash, deployment=deployment)
        return CheckedReport(
            ok=False,
            code=code,
            detail=_printable(strip_invisible(detail)),
            text="",
            page_count=None,
            result={"sandbox": sandbox},
            policy_hash=policy_hash,
        )
    _reject(code == "", "failure_code", "a parsed report with a failure code")
    # Top-level keys first, by name: the document checks would say the same, less plainly.
    known = _REPORT_DOCUMENT_KEYS
    _reject(not expected - known, "unknown_keys", f"unexpected fields {sorted(expected - known)[:5]}")
    max_pages = deployment.limits.max_docx_pages if kind == "docx" else deployment.limits.max_pages
    for value in (page_count, result.get("pages")):
        in_range = type(value) is int and 0 <= value <= max_pages
        _reject(in_range, "page_count", f"{value!r} pages, the {kind} limit is {max_pages}")
    _reject(page_count == result.get("pages"), "page_count", "page count differs from the document's")
    sandbox = _check_sandbox(result.get("sandbox"), ok=True, policy_hash=policy_hash, deployment=deployment)
    document = {k: v for k, v in result.items() if k != "sandbox"}
    try:
        checked = validate_document(document, kind=kind, limits=deployment.limits, form="report")
    except Invalid as exc:
        raise ReportRejected("document", str(exc)) from None
    _reject(text == checked["text"], "text", "report text differs from the document's")
    checked = _strip_all(checked)
    return CheckedReport(
        ok=True,
        code="",
        detail="",
        text=checked["text"],
        page_count=checked["pages"],
        result={**checked, "sandbox": sandbox},
        policy_hash=policy_hash,
    )


_REPORT_DOCUMENT_KEYS = frozenset(
    {
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
        "elements",
    }
)
