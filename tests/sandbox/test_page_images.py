"""Page images across the trust boundary (issue 23 item 1, issue 21 N1's image part).

The child renders one page per answer as zlib-compressed grey samples with declared
dimensions (ats.parsing.render); the trusted side checks the dimensions before it
allocates, inflates into exactly the declared size or refuses, and encodes the PNG itself
(ats.sandbox.pages, ats.sandbox.thumbnail). Real hardened children for the render.
"""

from __future__ import annotations

import base64
import io
import struct
import tracemalloc
import zlib
from typing import Any

import pymupdf
import pytest

from ats.sandbox import pages
from ats.sandbox.api import ForkServerSandbox
from ats.sandbox.thumbnail import encode_png, is_plain_png


def _two_page_pdf() -> bytes:
    doc = pymupdf.open()
    for n in (1, 2):
        page = doc.new_page()  # A4, 595 x 842 pt
        page.insert_text((72, 100), f"Jane Doe - page {n}", fontsize=20)
        page.insert_text((72, 140), "jane.doe@example.org", fontsize=12)
    return bytes(doc.tobytes())


def _docx() -> bytes:
    import docx

    d = docx.Document()
    d.add_heading("Jane Doe", 0)
    d.add_paragraph("jane.doe@example.org")
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


# --- the trusted side's checks (no sandbox needed) ------------------------------------


def test_declared_20000_square_is_refused_before_anything_is_inflated(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_inflating(*_: Any, **__: Any) -> Any:
        raise AssertionError("inflated a page whose declared size is over the limit")

    monkeypatch.setattr(pages.zlib, "decompressobj", no_inflating)
    small = zlib.compress(b"\0" * 1000)
    with pytest.raises(pages.PageRefused) as err:
        pages.inflate_exact(small, 20000, 20000)
    assert err.value.code == "page_dimensions"
    for w, h in ((0, 10), (10, 0), (-1, 10), (1241, 10), (10, 2481), (True, 10), (10.0, 10)):
        with pytest.raises(pages.PageRefused):
            pages.inflate_exact(small, w, h)


def test_inflated_size_must_equal_the_declaration_and_stays_bounded() -> None:
    w, h = 1000, 1000
    good = bytes(range(256)) * (w * h // 256) + bytes(w * h % 256)
    assert pages.inflate_exact(zlib.compress(good), w, h) == good
    with pytest.raises(pages.PageRefused) as err:
        pages.inflate_exact(zlib.compress(good[:-1]), w, h)  # one byte short
    assert err.value.code == "page_size_mismatch"
    # A bomb: 400 MB of zeros declared as 1000 x 1000. At most w*h + 1 bytes come out.
    bomb = zlib.compressobj()
    stream = b"".join(bomb.compress(b"\0" * (1 << 20)) for _ in range(400)) + bomb.flush()
    tracemalloc.start()
    try:
        with pytest.raises(pages.PageRefused) as err:
            pages.inflate_exact(stream, w, h)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert err.value.code == "page_size_mismatch"
    assert peak < 3 * w * h, f"inflating the bomb peaked at {peak} bytes"
    with pytest.raises(pages.PageRefused) as err:
        pages.inflate_exact(zlib.compress(good) + b"trailing", w, h)
    assert err.value.code == "page_not_zlib"
    with pytest.raises(pages.PageRefused) as err:
        pages.inflate_exact(b"\x89PNG\r\n\x1a\n" + b"\0" * 100, w, h)
    assert err.value.code == "page_not_zlib"
    with pytest.raises(pages.PageRefused) as err:
        pages.inflate_exact(b"\0" * (pages.PAGE_LIMITS.max_compressed_bytes + 1), w, h)
    assert err.value.code == "page_too_many_bytes"


def test_thumbnail_is_a_trusted_downscale_encoded_by_us() -> None:
    w, h = 1240, 1754
    pixels = bytes((x * 7 + y) % 256 for y in range(8) for x in range(w)) * (h // 8) + b"\x80" * (w * (h % 8))
    tw, th, small = pages.downscale_grey(pixels, w, h, 256)
    assert (tw, th, len(small)) == (256, round(h / (w / 256)), 256 * th)
    png = encode_png(tw, th, 1, small)
    assert is_plain_png(png) and struct.unpack(">II", png[16:24]) == (256, th)


# --- the render in a real hardened child ------------------------------------------------


def test_every_page_of_a_pdf_renders_in_the_sandbox_at_reading_size(documents: ForkServerSandbox) -> None:
    pdf = _two_page_pdf()
    for n in (1, 2):
        result = documents.run(pages.render_request("pdf", n), pdf)
        assert result.ok, (result.failure, result.detail)
        page = result.document
        assert page is not None and page["page"] == n and page["pages"] == 2
        assert (page["unit_width"], page["unit_height"]) == (595.0, 842.0)  # A4 in points
        assert page["width"] == 1240 and abs(page["height"] - 1240 * 842 / 595) <= 1
        grey = pages.inflate_exact(page["data"], page["width"], page["height"])
        assert min(grey) < 64 and max(grey) > 200  # ink on paper
    third = documents.run(pages.render_request("pdf", 3), pdf)
    assert not third.ok and third.failure is not None and third.failure.value == "too_many_pages"


def test_docx_and_image_pages_render_in_the_sandbox(documents: ForkServerSandbox) -> None:
    pix = pymupdf.open(stream=_two_page_pdf(), filetype="pdf")[0].get_pixmap(dpi=100)
    for kind, data in (("docx", _docx()), ("png", pix.tobytes("png")), ("jpeg", pix.tobytes("jpeg"))):
        result = documents.run(pages.render_request(kind, 1), data)
        assert result.ok, (kind, result.failure, result.detail)
        assert result.document is not None and result.document["width"] == 1240
        pages.inflate_exact(result.document["data"], result.document["width"], result.document["height"])


def test_a_render_answer_of_the_wrong_shape_is_a_protocol_error() -> None:
    from ats.sandbox import protocol

    def answer(document: Any) -> bytes:
        import json

        return protocol.frame(json.dumps({"status": "ok", "document": document}).encode())

    good = {
        "page": 1,
        "pages": 1,
        "width": 2,
        "height": 2,
        "unit_width": 10.0,
        "unit_height": 10.0,
        "zlib_b64": base64.b64encode(zlib.compress(b"\0" * 4)).decode(),
    }
    failure, _, checked = pages.decode_render_answer(answer(good), page=1, max_result_bytes=1 << 20)
    assert failure is None and checked is not None
    assert pages.inflate_exact(checked["data"], checked["width"], checked["height"]) == b"\0" * 4
    for bad in (
        {**good, "width": 20000, "height": 20000},
        {**good, "page": 2},
        {**good, "pages": 21},
        {**good, "extra": 1},
        {**good, "zlib_b64": "not base64!"},
        {**good, "unit_width": float("1e9")},
    ):
        failure, _, checked = pages.decode_render_answer(answer(bad), page=1, max_result_bytes=1 << 20)
        assert failure is not None and failure.value == "protocol_error" and checked is None, bad


# --- page 1 rendered by the parse's own child (issue 26: one fork per one-page CV) ------


def test_the_parse_child_renders_page_1_and_later_pages_are_left_to_their_own(documents: ForkServerSandbox) -> None:
    pdf = _two_page_pdf()
    result = documents.run(pages.with_first_page_request("pdf"), pdf)
    assert result.ok, (result.failure, result.detail)
    assert result.document is not None and "Jane Doe - page 1" in result.document["text"]
    page = result.first_page
    assert page is not None and (page["page"], page["pages"], page["width"]) == (1, 2, 1240)
    # The same pixels a render child makes for page 1, and the report carries no page.
    alone = documents.run(pages.render_request("pdf", 1), pdf)
    assert alone.ok and alone.document is not None
    assert pages.inflate_exact(page["data"], page["width"], page["height"]) == pages.inflate_exact(
        alone.document["data"], alone.document["width"], alone.document["height"]
    )
    assert "first_page" not in result.document and "first_page" not in result.to_dict()
    # A DOCX lays out and renders in the same child too.
    docx = documents.run(pages.with_first_page_request("docx"), _docx())
    assert docx.ok and docx.first_page is not None and docx.first_page["width"] == 1240


def test_a_failing_parse_renders_nothing_and_keeps_its_typed_code(documents: ForkServerSandbox) -> None:
    result = documents.run(pages.with_first_page_request("pdf"), b"%PDF-1.7\n" + bytes(range(256)) * 4)
    assert not result.ok and result.failure is not None and result.failure.value == "corrupt"
    assert result.first_page is None and result.document is None


def test_the_parse_is_handed_over_before_page_1_and_page_1_follows(documents: ForkServerSandbox) -> None:
    """The child writes its parse's answer, then renders page 1: the zygote passes the
    parse on at once (the worker's report goes in meanwhile), then page 1's frame."""
    seen: list[Any] = []

    def on_document(parsed: Any) -> None:
        seen.append(parsed)

    result = documents.run(pages.with_first_page_request("pdf"), _two_page_pdf(), on_document=on_document)
    assert result.ok and result.first_page is not None and result.first_page["page"] == 1
    [parsed] = seen
    # What the hook saw: the whole checked parse, no page yet, earlier than the end.
    assert parsed.ok and parsed.first_page is None and parsed.document == result.document
    assert "Jane Doe - page 1" in parsed.document["text"] and parsed.wall_ms <= result.wall_ms
    # A failing parse has no page to wait for: the hook is not called.
    seen.clear()
    failed = documents.run(
        pages.with_first_page_request("pdf"), b"%PDF-1.7\n" + bytes(range(256)) * 4, on_document=on_document
    )
    assert not failed.ok and failed.failure is not None and failed.failure.value == "corrupt" and seen == []


def test_a_hook_that_raises_is_raised_after_the_page_and_the_zygote_stays_in_step(
    documents: ForkServerSandbox,
) -> None:
    def refuse(parsed: Any) -> None:
        raise RuntimeError("the report could not go in")

    restarts = documents.status().get("restarts", 0)
    with pytest.raises(RuntimeError, match="could not go in"):
        documents.run(pages.with_first_page_request("pdf"), _two_page_pdf(), on_document=refuse)
    # The page's reply was read before the error went on: the next document is answered
    # by the same zygote, page and all, with no restart.
    again = documents.run(pages.with_first_page_request("pdf"), _two_page_pdf())
    assert again.ok and again.first_page is not None and again.zygote_restarts == 0
    assert documents.status().get("restarts", 0) == restarts


def test_a_page_frame_of_the_wrong_shape_is_refused_alone_and_the_parse_stands(
    documents: ForkServerSandbox,
) -> None:
    """Our child sends page 1 or nothing; any other frame is an escaped child's. The parse
    was checked on its own before it, so it stands; the page is refused (the worker then
    renders page 1 in a child of its own, as when none came)."""
    import json

    from ats.sandbox import protocol

    good = {
        "page": 1,
        "pages": 2,
        "width": 2,
        "height": 2,
        "unit_width": 595.0,
        "unit_height": 842.0,
        "zlib_b64": base64.b64encode(zlib.compress(b"\0" * 4)).decode(),
    }

    def frame(answer: Any) -> bytes:
        return protocol.frame(json.dumps(answer).encode())

    answered = {"end": "answered", "cpu_s": 0.01}
    page = documents._first_page(answered, frame({"status": "ok", "document": good}))
    assert page is not None and page["data"] == zlib.compress(b"\0" * 4)
    for outcome, untrusted in (
        (answered, frame({"status": "ok", "document": {**good, "width": 20000, "height": 20000}})),
        (answered, frame({"status": "ok", "document": {**good, "page": 2}})),
        (answered, frame({"status": "ok", "document": {**good, "zlib_b64": "not base64!"}})),
        (answered, frame({"status": "ok", "document": "a page"})),
        (answered, frame({"status": "ok", "document": good, "extra": 1})),
        (answered, frame({"status": "error", "code": "made_up", "detail": ""})),
        (answered, frame({"status": "ok", "document": good})[:-1]),  # cut short
        (answered, b""),  # the child sent nothing after its parse
        ({"end": "signaled", "signal": 11}, frame({"status": "ok", "document": good})),
        ({"end": "exited", "exit_code": 1}, frame({"status": "ok", "document": good})),
        ({"end": "wall_timeout"}, b""),
    ):
        assert documents._first_page(outcome, untrusted) is None, (outcome, untrusted[:60])


def test_the_in_process_sandbox_hands_over_the_parse_before_page_1_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from ats.sandbox.inprocess import ALLOW_ENV, InProcessSandbox

    monkeypatch.setenv(ALLOW_ENV, "1")
    sandbox = InProcessSandbox(allow=True)
    seen: list[Any] = []
    result = sandbox.run(pages.with_first_page_request("pdf"), _two_page_pdf(), on_document=seen.append)
    assert result.ok and result.first_page is not None and result.first_page["pages"] == 2
    assert [(p.ok, p.first_page, p.document) for p in seen] == [(True, None, result.document)]


def test_the_worker_hands_off_page_1_from_the_parse_and_forks_only_for_later_pages(
    documents: ForkServerSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ats.parse_worker import handoff as db
    from ats.parse_worker import runner

    asked: list[str] = []
    handed: list[tuple[int, bool]] = []

    class Recording:
        def run(self, kind: str, data: bytes, **hooks: Any) -> Any:
            asked.append(kind)
            return documents.run(kind, data, **hooks)

    monkeypatch.setattr(runner, "_sandbox", Recording)
    monkeypatch.setattr(db, "page_submit", lambda **kw: handed.append((kw["page_no"], kw["last"])))
    monkeypatch.setattr(db, "pages_done", lambda **_: pytest.fail("pages_done without a last page"))
    pdf = _two_page_pdf()
    parsed = documents.run(pages.with_first_page_request("pdf"), pdf)
    assert parsed.first_page is not None
    runner._render_pages(job_id=1, attachment_id=1, attempt_no=1, kind="pdf", data=pdf, first_page=parsed.first_page)
    assert asked == [pages.render_request("pdf", 2)] and handed == [(1, False), (2, True)]
    # Without page 1 from the parse (it did not render or fit), the worker renders it.
    asked.clear()
    handed.clear()
    runner._render_pages(job_id=1, attachment_id=1, attempt_no=1, kind="pdf", data=pdf, first_page=None)
    assert asked == [pages.render_request("pdf", 1), pages.render_request("pdf", 2)]
    assert handed == [(1, False), (2, True)]


def test_the_worker_reports_the_parse_before_the_child_has_finished_page_1(
    documents: ForkServerSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paced latency (issue 26): the report - which defers the trusted apply hop and so the
    candidate - goes into the database while the child renders page 1, not after."""
    import types

    from ats.jobs import api as jobs_api
    from ats.parse_worker import handoff as db
    from ats.parse_worker import runner

    events: list[str] = []

    class Watching:
        def run(self, kind: str, data: bytes, **hooks: Any) -> Any:
            result = documents.run(kind, data, **hooks)
            events.append(f"sandbox returned {kind}")
            return result

    pdf = _two_page_pdf()
    monkeypatch.setattr(runner, "_sandbox", Watching)
    monkeypatch.setattr(db, "handoff_get", lambda **_: db.Handoff(kind="pdf", data=pdf))
    monkeypatch.setattr(jobs_api, "current_attempt", lambda: types.SimpleNamespace(job_id=7, is_last=False))
    monkeypatch.setattr(
        db, "result_submit", lambda **kw: events.append(f"report ok={kw['ok']} pages={kw['page_count']}")
    )
    monkeypatch.setattr(db, "page_submit", lambda **kw: events.append(f"page {kw['page_no']}"))
    runner.run(attachment_id=1, attempt_no=1)
    assert events == [
        "report ok=True pages=2",
        f"sandbox returned {pages.with_first_page_request('pdf')}",
        "page 1",
        f"sandbox returned {pages.render_request('pdf', 2)}",
        "page 2",
    ]


@pytest.mark.slow
def test_a_hook_slower_than_the_documents_deadline_costs_no_zygote(short_policy: Any) -> None:
    """A report that stalls (a slow database) past the document's wall deadline: the
    page's reply is read when the hook returns, the zygote is not taken for a hung one."""
    import dataclasses
    import time

    from tests.sandbox.conftest import probe_sandbox

    short_policy = dataclasses.replace(short_policy, reply_grace_s=1.0)
    with probe_sandbox(short_policy) as sandbox:
        sandbox.start()
        restarts = sandbox.status().get("restarts", 0)
        result = sandbox.run(
            pages.with_first_page_request("pdf"),
            _two_page_pdf(),
            on_document=lambda parsed: time.sleep(short_policy.child.wall_s + short_policy.reply_grace_s + 0.5),
        )
        assert result.ok and result.first_page is not None
        assert sandbox.status().get("restarts", 0) == restarts
        assert sandbox.run(pages.with_first_page_request("pdf"), _two_page_pdf()).first_page is not None
