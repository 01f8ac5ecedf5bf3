"""Issue 28: Graph's `isInline` pictures (signature logos) never become documents. A
message with a CV, a cover letter and a signature logo yields two documents; the logo's
name is kept in the raw intake's metadata. An inline-flagged PDF (as Apple Mail sends
attachments) is still a document. Real (fake) Graph HTTPS server, real database."""

from __future__ import annotations

import secrets

import pytest

from ats.channels import api as channels_api
from ats.devtools.fake_graph import FakeAttachment, FakeGraph
from ats.intake import api as intake_api
from tests.channels.conftest import MAILBOX

pytestmark = pytest.mark.django_db(transaction=True)

PNG = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + secrets.token_bytes(48)


def _pdf(name: str) -> FakeAttachment:
    body = b"%PDF-1.7\n% " + name.encode() + secrets.token_hex(8).encode() + b"\n%%EOF\n"
    return FakeAttachment(f"{name}.pdf", body, "application/pdf")


def _mail_documents() -> list[str]:
    return sorted(intake_api.Attachment.objects.filter(raw_intake__channel="mail").values_list("filename", flat=True))


def test_signature_logo_never_becomes_a_document(graph: FakeGraph) -> None:
    graph.add_message(
        MAILBOX,
        subject="Application: backend engineer",
        sender="ada@example.org",
        attachments=[
            _pdf("Ada_CV"),
            _pdf("Ada_cover_letter"),
            FakeAttachment("image001.png", PNG, "image/png", is_inline=True),
            # A logo with a wrong declared type is still recognised by its bytes.
            FakeAttachment("outlook-logo", PNG, "application/octet-stream", is_inline=True),
        ],
    )
    channel = channels_api.channel_add(mailbox=MAILBOX)[0]
    assert channels_api.channel_poll(channel_id=channel.id) is not None
    assert _mail_documents() == ["Ada_CV.pdf", "Ada_cover_letter.pdf"]
    [raw] = intake_api.RawIntake.objects.filter(channel="mail")
    assert sorted(raw.metadata["inline"]) == ["image001.png", "outlook-logo"]
    assert raw.metadata["identical_attachments_collapsed"] == 0


def test_inline_flagged_pdf_is_still_a_document_and_a_plain_image_too(graph: FakeGraph) -> None:
    graph.add_message(
        MAILBOX,
        subject="CV",
        attachments=[
            FakeAttachment(_pdf("x").name, _pdf("Apple_Mail_CV").content, "application/pdf", is_inline=True),
            FakeAttachment("scan.png", PNG, "image/png"),  # attached, not inline: a (scanned) document
        ],
    )
    channel = channels_api.channel_add(mailbox=MAILBOX)[0]
    channels_api.channel_poll(channel_id=channel.id)
    assert _mail_documents() == ["scan.png", "x.pdf"]


def test_a_message_with_only_a_logo_makes_no_document(graph: FakeGraph) -> None:
    graph.add_message(
        MAILBOX,
        subject="Thanks!",
        attachments=[FakeAttachment("logo.png", PNG, "image/png", is_inline=True)],
    )
    channel = channels_api.channel_add(mailbox=MAILBOX)[0]
    channels_api.channel_poll(channel_id=channel.id)
    assert _mail_documents() == []
    assert [r.outcome for r in channels_api.ledger_entries(channel.id)] == ["no_attachments"]
