"""Issue 28: a document without an identity that the same sender mails within the window
(intake_api.SAME_SENDER_WINDOW, 24 h) of a CV, in ANOTHER message, joins the CV's
candidate - whichever of the two is read first - with the reason saying so, and can be
detached. Outside the window, or from another sender, it waits for a recruiter.

Real worker processes against the fake Graph HTTPS server, two polls so both orders run:
the letter is read before the CV (collected when the CV makes its person), and a
certificate after it (attached when it is read)."""

from __future__ import annotations

import datetime as dt
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

SENDER = "ada@example.org"
RECRUITER = iam_api.SystemActor("test:recruiter")


def _pdf(*lines: str) -> bytes:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "\n".join(lines), fontsize=12)
    return bytes(doc.tobytes())


LETTER = _pdf("Dear hiring team,", "", "I apply for the backend engineer position.", "", "Kind regards,", "Ada")
CERTIFICATE = _pdf("Certificate of Completion", "", "This certifies that the course", "Advanced PostgreSQL")
OLD_TRANSCRIPT = _pdf("Academic transcript", "", "Databases 1 ... 8.5", "Algorithms ... 9.0")
STRANGER_NOTE = _pdf("Please find my portfolio attached.", "", "Thanks")


def _poll_and_settle(channel_id: int, expected: int) -> dict[str, Any]:
    assert channels_api.channel_poll(channel_id=channel_id) is not None

    def settled() -> bool:
        atts = list(intake_api.Attachment.objects.filter(raw_intake__channel="mail"))
        return len(atts) == expected and all(intake_api.is_terminal(a.state) for a in atts)

    wait_for(settled, 150, "the messages' documents to settle")
    return {a.filename: a for a in intake_api.Attachment.objects.filter(raw_intake__channel="mail")}


def test_a_document_mailed_by_the_cvs_sender_within_the_window_joins_its_candidate(
    graph: FakeGraph, graph_env: dict[str, str], start_worker: Any
) -> None:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    # Poll 1: the letter arrives alone (2 h before the CV); the transcript 30 h before the
    # CV (outside the window); another sender's note 1 h before the CV.
    graph.add_message(
        MAILBOX,
        subject="Cover letter",
        sender=SENDER,
        sender_name="Ada Example",
        received_at=now - dt.timedelta(hours=2),
        attachments=[FakeAttachment("Cover_letter.pdf", LETTER, "application/pdf")],
    )
    graph.add_message(
        MAILBOX,
        subject="Transcript",
        sender=SENDER,
        sender_name="Ada Example",
        received_at=now - dt.timedelta(hours=30),
        attachments=[FakeAttachment("Transcript.pdf", OLD_TRANSCRIPT, "application/pdf")],
    )
    graph.add_message(
        MAILBOX,
        subject="Portfolio",
        sender="someone.else@example.org",
        sender_name="Someone Else",
        received_at=now - dt.timedelta(hours=1),
        attachments=[FakeAttachment("Note.pdf", STRANGER_NOTE, "application/pdf")],
    )
    start_worker("default", env=graph_env)
    start_worker("untrusted", env=graph_env)
    channel = channels_api.channel_add(mailbox=MAILBOX)[0]
    docs = _poll_and_settle(channel.id, 3)
    assert {n: a.state for n, a in docs.items()} == dict.fromkeys(docs, "no_candidate_details")

    # Poll 2: the CV, in its own message (Upper-case sender: addresses compare without case).
    graph.add_message(
        MAILBOX,
        subject="My CV",
        sender=SENDER.upper(),
        sender_name="Ada Example",
        received_at=now,
        attachments=[FakeAttachment("Ada_Example_CV.pdf", demo_cv_pdf(), "application/pdf")],
    )
    docs = _poll_and_settle(channel.id, 4)
    cv, letter = docs["Ada_Example_CV.pdf"], docs["Cover_letter.pdf"]
    assert cv.state == "candidate_created" and cv.candidate_id is not None, cv.reason
    assert letter.state == "candidate_created" and letter.candidate_id == cv.candidate_id, letter.reason
    # Outside the window, and another sender: still waiting for a recruiter.
    assert docs["Transcript.pdf"].state == "no_candidate_details" and docs["Transcript.pdf"].candidate_id is None
    assert docs["Note.pdf"].state == "no_candidate_details" and docs["Note.pdf"].candidate_id is None
    membership = candidates_api.document_membership(letter.pk)
    assert membership is not None and membership["kind"] == "cover_letter"
    assert membership["attach_reason"] == (
        f'Mailed by the same sender ({SENDER}) within 24 hours of the CV "Ada_Example_CV.pdf", '
        "which names this candidate."
    )

    # Poll 3: a certificate 5 h after the CV, read after it: attached when it is read.
    graph.add_message(
        MAILBOX,
        subject="Certificate",
        sender=SENDER,
        sender_name="Ada Example",
        received_at=now + dt.timedelta(hours=5),
        attachments=[FakeAttachment("Certificate.pdf", CERTIFICATE, "application/pdf")],
    )
    docs = _poll_and_settle(channel.id, 5)
    cert = docs["Certificate.pdf"]
    assert cert.state == "candidate_created" and cert.candidate_id == cv.candidate_id, cert.reason
    cert_membership = candidates_api.document_membership(cert.pk)
    assert cert_membership is not None and "same sender" in (cert_membership["attach_reason"] or "")
    [person] = candidates_api.candidate_list(actor=RECRUITER)
    assert person["name"] == "Ada Example"  # the companions never renamed the person
    detail = candidates_api.candidate_detail(person["id"], actor=RECRUITER)
    assert detail is not None and sorted(detail["documents"]) == sorted([cv.pk, letter.pk, cert.pk])

    # Detachable: the letter is a document without a candidate again.
    candidates_api.candidate_detach_document(attachment_id=letter.pk, actor=RECRUITER)
    letter.refresh_from_db()
    assert letter.state == "no_candidate_details" and letter.candidate_id is None
    assert candidates_api.document_membership(letter.pk) is None
