"""Issue 28's "done when", end to end in real worker processes (fake Graph HTTPS server,
worker-default, worker-untrusted with the sandbox, clamd, Postgres): a message with a
CV, a cover letter and a signature logo yields ONE candidate holding TWO documents (the
CV and the cover letter, typed), and no document for the logo."""

from __future__ import annotations

from typing import Any

import pytest

from ats.candidates import api as candidates_api
from ats.channels import api as channels_api
from ats.devtools.fake_graph import FakeAttachment, FakeGraph, demo_cv_pdf
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from tests.channels.conftest import MAILBOX
from tests.jobs.helpers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LOGO = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + b"\0" * 56


def _letter_pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    lines = [
        "Dear hiring team,",
        "",
        "I apply for the position of backend engineer advertised on your site.",
        "I have built payment systems for five years.",
        "",
        "Kind regards,",
        "Ada",
    ]
    doc.new_page().insert_text((72, 72), "\n".join(lines), fontsize=12)
    return bytes(doc.tobytes())


def test_cv_cover_letter_and_logo_make_one_candidate_with_two_documents(
    graph: FakeGraph, graph_env: dict[str, str], start_worker: Any
) -> None:
    graph.add_message(
        MAILBOX,
        subject="Application: Backend engineer",
        sender="ada@example.org",
        sender_name="Ada Example",
        attachments=[
            FakeAttachment("Ada_Example_CV.pdf", demo_cv_pdf(), "application/pdf"),
            FakeAttachment("Cover_letter.pdf", _letter_pdf(), "application/pdf"),
            FakeAttachment("image001.png", LOGO, "image/png", is_inline=True),
        ],
    )
    start_worker("default", env=graph_env)
    start_worker("untrusted", env=graph_env)
    channel = channels_api.channel_add(mailbox=MAILBOX)[0]
    assert channels_api.channel_poll(channel_id=channel.id) is not None

    def settled() -> bool:
        atts = list(intake_api.Attachment.objects.filter(raw_intake__channel="mail"))
        return len(atts) == 2 and all(intake_api.is_terminal(a.state) for a in atts)

    wait_for(settled, 120, "the message's documents to settle")
    docs = {a.filename: a for a in intake_api.Attachment.objects.filter(raw_intake__channel="mail")}
    assert set(docs) == {"Ada_Example_CV.pdf", "Cover_letter.pdf"}  # no document for the logo
    assert {a.state for a in docs.values()} == {"candidate_created"}, {n: a.reason for n, a in docs.items()}
    viewer = iam_api.SystemActor("test:viewer")
    [candidate] = candidates_api.candidate_list(actor=viewer)
    assert candidate["name"] == "Ada Example"
    detail = candidates_api.candidate_detail(candidate["id"], actor=viewer)
    assert detail is not None and sorted(detail["documents"]) == sorted(a.pk for a in docs.values())
    letter = candidates_api.document_membership(docs["Cover_letter.pdf"].pk)
    assert letter is not None and letter["kind"] == "cover_letter"
    assert "Ada_Example_CV.pdf" in (letter["attach_reason"] or "")
