"""Attachment listing, type filtering, streaming sha256 and the size cap."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from ats.devtools.fake_graph import FakeAttachment, FakeGraph
from ats.mail.api import (
    AttachmentTooLarge,
    Deadline,
    GraphClient,
    IntakeBatch,
    SkipReason,
    poll_mailbox,
)

from .conftest import MAILBOX

Make = Callable[..., GraphClient]


def _poll_items(client: GraphClient) -> list[IntakeBatch]:
    batches: list[IntakeBatch] = []
    poll_mailbox(client=client, mailbox=MAILBOX, delta_link=None, deadline=Deadline.after(10), on_batch=batches.append)
    return batches


def test_file_attachments_downloaded_others_skipped_with_reason(fake: FakeGraph, make_client: Make) -> None:
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 200
    fake.add_message(
        MAILBOX,
        attachments=[
            FakeAttachment("fwd.eml", b"", kind="item"),
            FakeAttachment("cv.pdf", pdf, "application/pdf"),
            FakeAttachment("link", b"", kind="reference"),
        ],
    )
    (batch,) = _poll_items(make_client())
    (item,) = batch.items
    (blob,) = item.attachments
    assert blob.name == "cv.pdf" and blob.content == pdf and blob.size == len(pdf)
    assert blob.sha256 == hashlib.sha256(pdf).hexdigest()
    assert blob.dedupe_key(item.envelope) == f"{item.envelope.dedupe_key}:{blob.sha256}"
    assert [(s.name, s.reason) for s in item.skipped] == [
        ("fwd.eml", SkipReason.ITEM_ATTACHMENT),
        ("link", SkipReason.REFERENCE_ATTACHMENT),
    ]
    listing = next(r for r in fake.requests if r.path.endswith("/attachments"))
    assert "contentBytes" not in listing.query and "$select=" in listing.query  # no base64 inlined


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_download_aborts_past_the_cap(fake: FakeGraph, make_client: Make, chunked: bool) -> None:
    fake.chunked_downloads = chunked
    mid = fake.add_message(MAILBOX, attachments=[FakeAttachment("big.pdf", b"x" * 300_000)])
    client = make_client()
    (info,) = client.list_attachments(mailbox=MAILBOX, message_id=mid, deadline=Deadline.after(5))
    with pytest.raises(AttachmentTooLarge) as err:
        client.download_attachment(
            mailbox=MAILBOX, message_id=mid, attachment=info, deadline=Deadline.after(5), max_bytes=100_000
        )
    assert err.value.limit == 100_000 and err.value.seen > 100_000
    blob = client.download_attachment(
        mailbox=MAILBOX, message_id=mid, attachment=info, deadline=Deadline.after(5), max_bytes=300_000
    )
    assert blob.size == 300_000


def test_poll_records_oversized_attachments_and_keeps_the_rest(fake: FakeGraph, make_client: Make) -> None:
    fake.chunked_downloads = True
    fake.add_message(
        MAILBOX,
        attachments=[
            FakeAttachment("listed-huge.pdf", b"y" * 10, listed_size=50_000_000),
            # Lies about its size in the listing: only the stream can catch it.
            FakeAttachment("sneaky.pdf", b"z" * 200_000, listed_size=1_000),
            FakeAttachment("ok.pdf", b"%PDF ok"),
        ],
    )
    (batch,) = _poll_items(make_client(max_attachment_bytes=100_000))
    (item,) = batch.items
    assert [a.name for a in item.attachments] == ["ok.pdf"]
    assert {(s.name, s.reason) for s in item.skipped} == {
        ("listed-huge.pdf", SkipReason.TOO_LARGE),
        ("sneaky.pdf", SkipReason.TOO_LARGE),
    }
    value_paths = [r.path for r in fake.requests if r.path.endswith("/$value")]
    assert len(value_paths) == 2  # the listed-huge one was never requested


def test_message_deleted_before_download_does_not_poison_the_page(fake: FakeGraph, make_client: Make) -> None:
    gone = fake.add_message(MAILBOX, subject="deleted meanwhile", attachments=[FakeAttachment("a.pdf", b"a")])
    fake.add_message(
        MAILBOX, subject="half gone", attachments=[FakeAttachment("b.pdf", b"b"), FakeAttachment("c.pdf", b"c")]
    )
    fake.inject(match=f"/messages/{gone}/attachments", status=404, code="ErrorItemNotFound")
    fake.inject(match="/$value", status=404, code="ErrorItemNotFound")  # first download of the other
    (batch,) = _poll_items(make_client(max_concurrency_per_mailbox=1))
    first, second = batch.items
    assert first.message_gone and first.attachments == ()
    assert not second.message_gone
    assert [a.name for a in second.attachments] == ["c.pdf"]
    assert [(s.name, s.reason) for s in second.skipped] == [("b.pdf", SkipReason.GONE)]
