"""The trusted side's view of a child's answer: any bytes -> a typed outcome, never an exception."""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ats.parsing.data import ParseLimits
from ats.sandbox import protocol
from ats.sandbox.api import Failure
from ats.sandbox.thumbnail import encode_png, is_plain_png
from ats.sandbox.validate import decode_answer

pytestmark = pytest.mark.timeout(60)
LIMITS = ParseLimits()
MAX = 1 << 20


_BLOCK = {"page": 1, "bbox": [0, 0, 1, 1], "text": "t"}


def _decode(answer: bytes, kind: str = "pdf") -> tuple[Failure | None, str, Any]:
    return decode_answer(answer, kind=kind, limits=LIMITS, max_result_bytes=MAX)


def _framed(obj: Any) -> bytes:
    return protocol.frame(json.dumps(obj).encode())


def _document(**changes: Any) -> dict[str, Any]:
    doc = {
        "schema": 2,
        "kind": "pdf",
        "text": "Jane Doe",
        "pages": 1,
        "blocks": [],
        "ocr_used": False,
        "ocr_pages": 0,
        "thumbnail_png_b64": None,
        "warnings": [],
        "paragraphs": [],
        "tables": [],
        "bbox_unit": "pt",
        "elements": [],
    }
    doc.update(changes)
    return doc


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_any_bytes_give_a_typed_outcome(raw: bytes) -> None:
    for answer in (raw, protocol.frame(raw)):
        failure, detail, document = _decode(answer)
        assert failure in set(Failure) and document is None and detail.isprintable()
        assert not detail.startswith("validator:"), detail


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_gives_a_typed_outcome(value: Any) -> None:
    for wrapped in (value, {"status": "ok", "document": value}, {"status": "error", "code": value, "detail": ""}):
        failure, detail, document = _decode(_framed(wrapped))
        assert not detail.startswith("validator:"), detail  # the catch-all is a last resort, not the path
        assert (failure is None) == (document is not None)
        assert failure is None or failure in set(Failure)


def test_a_good_document_passes_and_is_copied() -> None:
    failure, _, document = _decode(_framed({"status": "ok", "document": _document()}))
    assert failure is None and document == _document()


@pytest.mark.parametrize(
    "changes",
    [
        {"admin": True},  # unknown key
        {"kind": "docx"},  # not what was asked for
        {"schema": 4},
        {"schema": 0},
        {"schema": True},
        {"schema": "2"},
        {"blocks": [{"page": 1, "bbox": [0, 0, 1, 1], "text": "t"}]},  # schema 2 blocks carry lines
        {"blocks": [{**_BLOCK, "lines": [{"bbox": [0, 0, 1, 1], "text": "t"}]}]},
        {"blocks": [{**_BLOCK, "lines": [{"bbox": [0, 0, 1], "text": "t", "size": 1}]}]},
        {"blocks": [{**_BLOCK, "lines": [{"bbox": [0, 0, 1, 1], "text": "t", "size": -1}]}]},
        {"elements": [{"part": "sidebar", "index": 0, "text": "t", "style": None}]},
        {"elements": [{"part": "body", "index": -1, "text": "t", "style": None}]},
        {"elements": [{"part": "body", "index": 0, "text": "t", "style": 7}]},
        {"elements": [{"part": "table", "index": 0, "text": "t", "table": 0, "row": 0}]},
        {"elements": [{"part": "body", "index": 0, "text": "t", "style": "x" * 65}]},
        {"elements": [{"part": "body", "index": 0, "text": "t", "style": None}] * (LIMITS.max_blocks + 1)},
        {"pages": -1},
        {"pages": LIMITS.max_pages + 1},
        {"pages": True},  # bool is not an int here
        {"text": "x" * (LIMITS.max_text_chars + 1)},
        {"text": "nul\x00byte"},
        {"text": "\ud800"},  # lone surrogate
        {"ocr_used": 1},
        {"warnings": ["w"] * 51},
        {"blocks": [{"page": 1, "bbox": [0, 0, 1], "text": "t"}]},
        {"thumbnail_png_b64": "not base64!"},
        {"thumbnail_png_b64": base64.b64encode(b"GIF89a" + b"\0" * 30).decode()},
        {"bbox_unit": "furlong"},
    ],
)
def test_bad_documents_are_protocol_errors(changes: dict[str, Any]) -> None:
    failure, _, document = _decode(_framed({"status": "ok", "document": _document(**changes)}))
    assert (failure, document) == (Failure.PROTOCOL_ERROR, None)


def test_schema_2_layout_passes() -> None:
    line = {"bbox": [72, 70, 130, 94], "text": "Jane Doe", "size": 14.0}
    blocks = [{"page": 1, "bbox": [72.0, 70.0, 130.0, 94.0], "text": "Jane Doe", "lines": [line]}]
    elements = [
        {"part": "header", "index": 0, "text": "Jane Doe", "style": "Title"},
        {"part": "table", "index": 0, "text": "jane@example.com", "table": 0, "row": 0, "col": 1},
        {"part": "textbox", "index": 0, "text": "Skills", "style": None},
    ]
    failure, _, document = _decode(_framed({"status": "ok", "document": _document(blocks=blocks, elements=elements)}))
    assert failure is None
    assert document["blocks"][0]["lines"] == [{"bbox": [72.0, 70.0, 130.0, 94.0], "text": "Jane Doe", "size": 14.0}]
    assert document["elements"] == elements


def _line_with(runs: Any) -> dict[str, Any]:
    line = {"bbox": [72, 70, 230, 94], "text": "Engineer, Acme", "size": 10.0, "runs": runs}
    return {"blocks": [{**_BLOCK, "text": "Engineer, Acme", "lines": [line]}]}


def test_style_runs_pass_checked() -> None:
    runs = [[9, 1, 10.0], [10, 0, 10.0], [14, 2, 9]]
    failure, _, document = _decode(_framed({"status": "ok", "document": _document(**_line_with(runs))}))
    assert failure is None
    assert document["blocks"][0]["lines"][0]["runs"] == [[9, 1, 10.0], [10, 0, 10.0], [14, 2, 9.0]]


@pytest.mark.parametrize(
    "runs",
    [
        [],  # a line with runs has at least one
        [[9, 1, 10.0]],  # stops before the line's end
        [[15, 1, 10.0]],  # past the line's end
        [[9, 1, 10.0], [9, 2, 10.0], [14, 0, 10.0]],  # ends must rise
        [[0, 1, 10.0], [14, 0, 10.0]],  # an empty run
        [[14, 4, 10.0]],  # an unknown style bit
        [[14, -1, 10.0]],
        [[14, True, 10.0]],  # bool is not an int here
        [[14, 1, -1]],
        [[14, 1, float("inf")]],
        [[14.0, 1, 10.0]],
        [[14, 1]],
        [[14, 1, 10.0, "x"]],
        "bold",
        [[k + 1, 0, 10.0] for k in range(13)] + [[14, 1, 10.0]],  # more runs than a line may carry
    ],
)
def test_bad_style_runs_are_protocol_errors(runs: Any) -> None:
    failure, _, document = _decode(_framed({"status": "ok", "document": _document(**_line_with(runs))}))
    assert (failure, document) == (Failure.PROTOCOL_ERROR, None)


def test_schema_2_is_still_accepted_for_one_release_and_schema_1_no_more() -> None:
    failure, _, document = _decode(_framed({"status": "ok", "document": _document()}))
    assert failure is None and document["schema"] == 2
    # ... but in its own shape: schema 2 has no raw thumbnail.
    assert _decode(_framed({"status": "ok", "document": {**_document(), "thumbnail": None}}))[0] == (
        Failure.PROTOCOL_ERROR
    )
    old = _document(schema=1, blocks=[{"page": 1, "bbox": [0, 0, 1, 1], "text": "Jane"}])
    del old["elements"]
    assert _decode(_framed({"status": "ok", "document": old}))[0] == Failure.PROTOCOL_ERROR


def test_framing_and_size() -> None:
    body = json.dumps({"status": "ok", "document": _document()}).encode()
    assert _decode(len(body).to_bytes(8, "big") + body + b"x")[0] == Failure.PROTOCOL_ERROR
    assert _decode(b"\0" * (MAX + 9))[0] == Failure.OUTPUT_TOO_LARGE
    assert _decode(protocol.frame(b"[" * 100_000))[0] == Failure.PROTOCOL_ERROR  # deep nesting
    assert _decode(protocol.frame(b'{"status": "ok", "document": NaN}'))[0] == Failure.PROTOCOL_ERROR


def test_child_errors_only_from_the_closed_set() -> None:
    ok = _decode(_framed({"status": "error", "code": "encrypted", "detail": "needs a\x1bpassword"}))
    assert ok[:2] == (Failure.ENCRYPTED, "needs a?password")  # control characters neutralised
    for code in ("timeout_wall", "seccomp_violation", "sandbox_unavailable", "nope"):
        assert _decode(_framed({"status": "error", "code": code, "detail": ""}))[0] == Failure.PROTOCOL_ERROR


def test_warnings_are_made_printable_and_bounded() -> None:
    """Warnings reach logs and the recruiters' triage page: no terminal escapes, line
    breaks or bidi overrides from a hostile child, and each one bounded."""
    hostile = ["\x1b[2J\x1b[31mOK\r\nfake log line", "name\u202egpj.exe", "tab\there", "\u2028sep", "x" * 300]
    failure, _, document = _decode(_framed({"status": "ok", "document": _document(warnings=hostile)}))
    assert failure is None
    assert document["warnings"][:4] == ["?[2J?[31mOK??fake log line", "name?gpj.exe", "tab?here", "?sep"]
    assert all(w.isprintable() and len(w) <= 300 for w in document["warnings"])


# -- thumbnails: raw pixels from the child, PNG encoded only on the trusted side (schema 3) --


def _raw_thumb(width: int = 4, height: int = 3, channels: int = 3, pixels: bytes | None = None) -> dict[str, Any]:
    data = pixels if pixels is not None else bytes(i % 256 for i in range(width * height * channels))
    return {"width": width, "height": height, "channels": channels, "pixels_b64": base64.b64encode(data).decode()}


def _schema3(**changes: Any) -> dict[str, Any]:
    doc = _document(schema=3, **changes)
    doc.pop("thumbnail_png_b64")
    doc.setdefault("thumbnail", None)
    return doc


def test_raw_thumbnail_is_encoded_to_png_on_the_trusted_side() -> None:
    import pymupdf

    for channels in (1, 3):
        thumb = _raw_thumb(channels=channels)
        failure, detail, document = _decode(_framed({"status": "ok", "document": _schema3(thumbnail=thumb)}))
        assert failure is None, detail
        assert "thumbnail" not in document
        png = base64.b64decode(document["thumbnail_png_b64"])
        assert is_plain_png(png)
        pix = pymupdf.Pixmap(png)  # decoded here, in the test only
        assert (pix.width, pix.height, pix.n) == (4, 3, channels)
        assert pix.samples == base64.b64decode(thumb["pixels_b64"])


@pytest.mark.parametrize(
    "thumb",
    [
        _raw_thumb(width=LIMITS.thumbnail_width + 1, height=1),
        _raw_thumb(width=1, height=2 * LIMITS.thumbnail_width + 2),
        _raw_thumb(width=0, height=0, pixels=b""),
        _raw_thumb(channels=4),  # no alpha, no CMYK
        _raw_thumb(pixels=b"\0" * 35),  # one byte short of 4 x 3 x 3
        {**_raw_thumb(), "png": "x"},
        {**_raw_thumb(), "width": True},
        {**_raw_thumb(), "pixels_b64": "not base64!"},
        "iVBORw0KGgo=",  # a PNG string where pixels belong
    ],
)
def test_bad_raw_thumbnails_are_protocol_errors(thumb: Any) -> None:
    failure, _, document = _decode(_framed({"status": "ok", "document": _schema3(thumbnail=thumb)}))
    assert (failure, document) == (Failure.PROTOCOL_ERROR, None)


def test_schema_3_has_no_child_png() -> None:
    doc = {**_schema3(), "thumbnail_png_b64": None}
    assert _decode(_framed({"status": "ok", "document": doc}))[0] == Failure.PROTOCOL_ERROR


def test_schema_2_png_from_the_child_is_dropped_not_served() -> None:
    """One release of schema 2 answers: accepted, but their child-made PNG (attacker-chosen
    chunks) never reaches a browser - the trusted side cannot re-encode it without a decoder."""
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    failure, _, document = _decode(
        _framed({"status": "ok", "document": _document(thumbnail_png_b64=base64.b64encode(png).decode())})
    )
    assert failure is None and document["thumbnail_png_b64"] is None


def test_is_plain_png_refuses_ancillary_chunks() -> None:
    png = encode_png(2, 2, 1, b"\0\1\2\3")
    assert is_plain_png(png)
    text_chunk = b"tEXt" + b"Comment\0<script>alert(1)</script>"
    chunk = (len(text_chunk) - 4).to_bytes(4, "big") + text_chunk + zlib.crc32(text_chunk).to_bytes(4, "big")
    assert not is_plain_png(png[:33] + chunk + png[33:])  # after IHDR
    assert not is_plain_png(png + b"trailing")
    assert not is_plain_png(png[:-1])
    assert not is_plain_png(b"<svg onload=alert(1)>")
