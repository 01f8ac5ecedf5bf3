"""The trusted side's view of a child's answer: any bytes -> a typed outcome, never an exception."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ats.parsing.data import ParseLimits
from ats.sandbox import protocol
from ats.sandbox.api import Failure
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
        {"schema": 3},
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


def test_schema_1_is_still_accepted_for_one_release() -> None:
    old = _document(schema=1, blocks=[{"page": 1, "bbox": [0, 0, 1, 1], "text": "Jane"}])
    del old["elements"]
    failure, _, document = _decode(_framed({"status": "ok", "document": old}))
    assert failure is None and document["schema"] == 1 and document["blocks"][0]["text"] == "Jane"
    # ... but in its own shape: schema 1 has no elements and no lines.
    for bad in ({**old, "elements": []}, {**old, "blocks": [{**_BLOCK, "lines": []}]}):
        assert _decode(_framed({"status": "ok", "document": bad}))[0] == Failure.PROTOCOL_ERROR


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
