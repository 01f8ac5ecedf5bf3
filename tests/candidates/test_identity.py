"""Issue 28 items 1, 5, 6: a candidate needs an identity (a name and an e-mail or a
phone); a document without one ends `no_candidate_details`, keeps its extraction
(`ats document show --json`), and a recruiter attaches it or creates the person by
hand; `ats candidate review-identity` finds and turns back the candidates made before
the gate existed. The candidate task and the services run for real, in-process."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from ats.candidates import api as candidates_api
from ats.candidates import identity
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.intake import services as intake_services
from ats.pipeline import tasks as candidate_tasks
from tests.web import helpers

pytestmark = pytest.mark.django_db(transaction=True)

RECRUITER = iam_api.SystemActor("test:recruiter")


def _parsed(text: str, name: str = "doc.pdf") -> intake_api.Attachment:
    """A document parsed to `text` (the real parse result shape: text only), waiting for
    the candidate step."""
    att = helpers.ingested(name)
    intake_services.parse_attempt_record_success(
        attachment_id=att.pk, attempt_no=1, text=text, page_count=1, result={"kind": "pdf"}, policy_hash="a" * 64
    )
    helpers.settle_jobs(att.pk, helpers.PARSE)
    return helpers.reload(att)


def _candidate_step(att: intake_api.Attachment) -> intake_api.Attachment:
    candidate_tasks.create_from_attachment(attachment_id=att.pk, payload_version=1)
    helpers.settle_jobs(att.pk, helpers.CANDIDATE)
    return helpers.reload(att)


def _document_show(att_id: int) -> dict[str, Any]:
    out = StringIO()
    call_command("document", "show", str(att_id), "--json", stdout=out)
    return json.loads(out.getvalue())


def test_identity_rule() -> None:
    assert identity.missing({"name": ["Jane Doe"], "emails": ["j@example.org"]}) == []
    assert identity.missing({"name": ["Jane Doe"], "phones": ["+442079460958"]}) == []
    assert identity.missing({"name": ["Jane Doe"]}) == ["contact"]
    assert identity.missing({"emails": ["j@example.org"], "phones": ["+44"]}) == ["name"]
    assert identity.missing({"name": ["  "], "emails": [""]}) == ["name", "contact"]


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        # pikepdf's / pdfminer's minimal PDF: read as a name, but nobody to reach.
        ("Hello World", "no e-mail address or phone number"),
        ("www.acme-logos.example\ninfo@acme-logos.example", "names no person"),
        ("Bitmap Font\nABCDEFGHIJKLMNOPQRSTUVWXYZ", "no e-mail address or phone number"),
        ("Certificate of completion\nawarded for Python", "no e-mail address or phone number"),
    ],
)
def test_document_without_identity_ends_no_candidate_details(text: str, missing: str) -> None:
    att = _candidate_step(_parsed(text, "logo.pdf"))
    assert att.state == "no_candidate_details", (att.state, att.reason)
    assert att.candidate_id is None
    assert att.reason.startswith("No name or contact details found.") and missing in att.reason
    assert candidates_api.candidate_list(actor=RECRUITER) == []
    assert intake_api.INFO[intake_api.State.NO_CANDIDATE_DETAILS].label == "No name or contact details found"
    # Terminal with actions; the lost-document detector is satisfied (no job needed).
    assert intake_api.is_terminal(att.state) and intake_api.lost_documents() == []
    assert "discard" in intake_api.allowed_actions(att.state)
    # Item 6: what was read is kept and shown, though no candidate was made.
    shown = _document_show(att.pk)
    assert shown["state"] == "no_candidate_details" and shown["candidate_id"] is None
    assert set(shown["extraction"]) >= {"name", "emails", "phones", "skills"}
    if "person" in missing:
        assert shown["extraction"]["name"] is None and shown["extraction"]["emails"] == ["info@acme-logos.example"]
    else:
        assert shown["extraction"]["emails"] == [] and shown["extraction"]["phones"] == []


def test_document_with_identity_still_becomes_a_candidate_and_show_has_its_extraction() -> None:
    att = _candidate_step(_parsed("Jane Doe\njane.doe@example.com\n+44 20 7946 0958\nSkills\nPython, Django"))
    assert att.state == "candidate_created", (att.state, att.reason)
    shown = _document_show(att.pk)
    assert shown["candidate_id"] == att.candidate_id
    assert shown["extraction"]["name"] == "Jane Doe"
    assert shown["extraction"]["emails"] == ["jane.doe@example.com"]
    assert shown["extraction"]["phones"] == ["+442079460958"]
    assert "Python" in shown["extraction"]["skills"]
    # The same shape as `ats candidate show` for the same values.
    detail = candidates_api.candidate_detail(att.candidate_id, actor=RECRUITER)
    assert detail is not None
    assert {k: detail[k] for k in ("name", "emails", "phones")} == {
        k: shown["extraction"][k] for k in ("name", "emails", "phones")
    }


def test_document_show_unknown_id_is_a_clear_error() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="document 987654321 does not exist"):
        _document_show(987654321)


def _audit(object_type: str, object_id: int) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT action FROM audit_event WHERE object_type = %s AND object_id = %s ORDER BY id",
            [object_type, str(object_id)],
        )
        return [r[0] for r in cur.fetchall()]


def test_attach_to_existing_candidate() -> None:
    person = _candidate_step(_parsed("Jane Doe\njane.doe@example.com\nSkills\nPython"))
    logo = _candidate_step(_parsed("Certificate of completion\nKubernetes administrator", "cert.pdf"))
    assert logo.state == "no_candidate_details"
    found = candidates_api.candidate_attach_search(actor=RECRUITER, query="jane.doe@")
    assert [c["id"] for c in found] == [person.candidate_id]
    cand = candidates_api.candidate_attach_document(
        attachment_id=logo.pk, candidate_id=person.candidate_id, actor=RECRUITER
    )
    logo = helpers.reload(logo)
    assert logo.state == "candidate_created" and logo.candidate_id == person.candidate_id == cand.id
    detail = candidates_api.candidate_detail(cand.id, actor=RECRUITER)
    assert detail is not None and sorted(detail["documents"]) == sorted([person.pk, logo.pk])
    assert detail["name"] == "Jane Doe"  # the certificate added no identity of its own
    assert "intake.attached_to_candidate" in _audit("attachment", logo.pk)
    assert "candidate.document_attached" in _audit("candidate", cand.id)
    # Once attached it is no longer attachable (state-checked under the row lock).
    with pytest.raises(intake_api.ActionRefused):
        candidates_api.candidate_attach_document(attachment_id=logo.pk, candidate_id=cand.id, actor=RECRUITER)


def test_an_attached_document_with_a_name_of_its_own_never_renames_the_person() -> None:
    """Issue 21 N3 for attach: a no-contact document that names someone else ("Hello
    World") joins Jane's documents; her name stays, the other name is only proposed."""
    person = _candidate_step(_parsed("Jane Doe\njane.doe@example.com\nSkills\nPython"))
    other = _candidate_step(_parsed("Hello World\nSkills\nKubernetes", "hello.pdf"))
    assert other.state == "no_candidate_details"
    cand = candidates_api.candidate_attach_document(
        attachment_id=other.pk, candidate_id=person.candidate_id, actor=RECRUITER
    )
    detail = candidates_api.candidate_detail(cand.id, actor=RECRUITER)
    assert detail is not None
    assert detail["name"] == "Jane Doe" and detail["emails"] == ["jane.doe@example.com"]
    from ats.candidates.models import ProposedChange

    proposed = ProposedChange.objects.filter(candidate_id=cand.id, field="name")
    assert [c.values[0]["value"] for c in proposed] == ["Hello World"]


def test_attach_search_finds_by_phone_typed_with_spaces() -> None:
    person = _candidate_step(_parsed("Jane Doe\n+44 20 7946 0958"))
    assert person.state == "candidate_created"
    found = candidates_api.candidate_attach_search(actor=RECRUITER, query="020 7946 0958"[1:])
    assert [c["id"] for c in found] == [person.candidate_id]


def test_create_candidate_by_hand() -> None:
    doc = _candidate_step(_parsed("Curriculum vitae\nSkills\nPython"))
    assert doc.state == "no_candidate_details"
    with pytest.raises(ValueError, match="needs a name and an e-mail"):
        candidates_api.candidate_create_for_document(attachment_id=doc.pk, name="Ann Lee", actor=RECRUITER)
    with pytest.raises(ValueError, match="not an e-mail"):
        candidates_api.candidate_create_for_document(
            attachment_id=doc.pk, name="Ann Lee", email="nope", actor=RECRUITER
        )
    assert helpers.reload(doc).state == "no_candidate_details"
    cand = candidates_api.candidate_create_for_document(
        attachment_id=doc.pk, name="Ann Lee", email="Ann@Example.org", actor=RECRUITER
    )
    doc = helpers.reload(doc)
    assert doc.state == "candidate_created" and doc.candidate_id == cand.id
    detail = candidates_api.candidate_detail(cand.id, actor=RECRUITER)
    assert detail is not None
    assert detail["name"] == "Ann Lee" and detail["emails"] == ["ann@example.org"]
    assert set(detail["edited_fields"]) == {"name", "emails"}
    assert "Python" in detail["skills"]  # the document's own extraction applies too
    assert "candidate.created_by_hand" in _audit("candidate", cand.id)


def test_discard_with_reason() -> None:
    doc = _candidate_step(_parsed("Hello World"))
    intake_api.attachment_discard(attachment_id=doc.pk, reason="signature logo", actor=RECRUITER)
    assert helpers.reload(doc).state == "discarded"


def test_reparse_of_a_known_document_keeps_its_candidate() -> None:
    """The gate is for new documents: a recruiter-attached document re-parsed to the same
    identity-less text stays with its candidate."""
    person = _candidate_step(_parsed("Jane Doe\njane.doe@example.com"))
    logo = _candidate_step(_parsed("Hello World", "logo.pdf"))
    candidates_api.candidate_attach_document(attachment_id=logo.pk, candidate_id=person.candidate_id, actor=RECRUITER)
    intake_api.attachment_reparse(attachment_id=logo.pk, actor=RECRUITER)
    intake_services.parse_attempt_record_success(
        attachment_id=logo.pk, attempt_no=2, text="Hello World", page_count=1, result={}, policy_hash="a" * 64
    )
    helpers.settle_jobs(logo.pk, helpers.PARSE)
    logo = _candidate_step(helpers.reload(logo))
    assert logo.state == "candidate_created" and logo.candidate_id == person.candidate_id


def _review(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command("candidate", "review-identity", "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def test_review_identity_lists_and_turns_back_legacy_junk() -> None:
    """Candidates made before the gate (straight through candidate_apply_document, as the
    old task did) are listed; --apply turns their documents back, audited."""
    good = helpers.candidate_from(helpers.parsed_ok(), name="Jane Doe", emails=("jane@example.org",))
    nameless_doc = helpers.parsed_ok("scan.pdf")
    nameless = helpers.candidate_from(nameless_doc, emails=("x@example.org",))
    glyphs_doc = helpers.parsed_ok("glyphs.pdf")
    glyphs = helpers.candidate_from(glyphs_doc, name="Bitmap Font")
    listed = _review()
    assert listed["count"] == 2
    assert {r["id"]: r["missing"] for r in listed["candidates"]} == {nameless: ["name"], glyphs: ["contact"]}
    assert {r["id"]: r["documents"] for r in listed["candidates"]} == {
        nameless: [nameless_doc.pk],
        glyphs: [glyphs_doc.pk],
    }
    # Listing changes nothing.
    assert helpers.reload(glyphs_doc).state == "candidate_created"

    applied = _review("--apply")
    assert sorted(t["id"] for t in applied["turned_back"]) == sorted([nameless, glyphs])
    for doc in (nameless_doc, glyphs_doc):
        doc = helpers.reload(doc)
        assert doc.state == "no_candidate_details" and doc.candidate_id is None
        assert "intake.turned_back_no_identity" in _audit("attachment", doc.pk)
    active = [c["id"] for c in candidates_api.candidate_list(actor=RECRUITER)]
    assert active == [good]
    assert "candidate.turned_back_no_identity" in _audit("candidate", glyphs)
    assert _review()["count"] == 0
    assert intake_api.lost_documents() == []
    # A turned-back document is attachable like any other without identity.
    with transaction.atomic():
        candidates_api.candidate_attach_document(attachment_id=glyphs_doc.pk, candidate_id=good, actor=RECRUITER)
    assert helpers.reload(glyphs_doc).candidate_id == good


# --- item 2: documents that travel with a CV -----------------------------------------

CV_TEXT = "Ada Example\nada@example.org\nExperience\nBackend engineer, 2019-2024\nEducation\nBSc\nSkills\nPython"
LETTER_TEXT = "Dear hiring team,\nI apply for the position of backend engineer.\nKind regards,\nAda"
CERT_TEXT = "Certificate\nThis is to certify that the holder has successfully completed Kubernetes Administration"


def _message(*texts: tuple[str, str]) -> list[intake_api.Attachment]:
    """One e-mail message (one raw intake) with these (file name, parsed text) documents,
    each read and waiting for the candidate step."""
    raw = intake_api.intake_receive(
        channel="mail",
        files=[intake_api.IncomingFile(name, helpers.unique_pdf()) for name, _ in texts],
        metadata={"from": "ada@example.org"},
    )
    out = []
    for att, (_, text) in zip(intake_api.raw_intake_attachments(raw.pk), texts, strict=True):
        intake_services.attachment_ingest(attachment_id=att.pk)
        helpers.settle_jobs(att.pk, helpers.INGEST)
        intake_services.parse_attempt_record_success(
            attachment_id=att.pk, attempt_no=1, text=text, page_count=1, result={"kind": "pdf"}, policy_hash="a" * 64
        )
        helpers.settle_jobs(att.pk, helpers.PARSE)
        out.append(helpers.reload(att))
    return out


def _kinds(candidate_id: int) -> dict[int, tuple[str, str]]:
    from ats.candidates.models import CandidateDocument

    return {
        d.attachment_id: (d.kind or "", d.attach_reason or "")
        for d in CandidateDocument.objects.filter(candidate_id=candidate_id)
    }


@pytest.mark.parametrize("cv_first", [True, False], ids=["cv-read-first", "letter-read-first"])
def test_cover_letter_and_certificate_in_the_cvs_message_join_its_candidate(cv_first: bool) -> None:
    cv, letter, cert = _message(("Ada_CV.pdf", CV_TEXT), ("cover.pdf", LETTER_TEXT), ("cert.pdf", CERT_TEXT))
    order = [cv, letter, cert] if cv_first else [letter, cert, cv]
    for att in order:
        _candidate_step(att)
    cv, letter, cert = (helpers.reload(a) for a in (cv, letter, cert))
    assert cv.state == letter.state == cert.state == "candidate_created"
    assert cv.candidate_id == letter.candidate_id == cert.candidate_id is not None
    assert [c["id"] for c in candidates_api.candidate_list(actor=RECRUITER)] == [cv.candidate_id]
    kinds = _kinds(cv.candidate_id)
    assert kinds[cv.pk] == ("cv", "")
    assert kinds[letter.pk][0] == "cover_letter" and kinds[cert.pk][0] == "certificate"
    assert kinds[letter.pk][1] == 'Sent in the same message as the CV "Ada_CV.pdf", which names this candidate.'
    assert intake_api.lost_documents() == []
    # Detach: the letter is a document without candidate again, the CV keeps its person.
    candidates_api.candidate_detach_document(attachment_id=letter.pk, actor=RECRUITER)
    letter = helpers.reload(letter)
    assert letter.state == "no_candidate_details" and letter.candidate_id is None
    assert letter.pk not in _kinds(cv.candidate_id)
    candidates_api.candidate_detach_document(attachment_id=cert.pk, actor=RECRUITER)
    with pytest.raises(ValueError, match="only document"):
        candidates_api.candidate_detach_document(attachment_id=cv.pk, actor=RECRUITER)
    assert helpers.reload(cv).state == "candidate_created"


def test_a_letter_decided_while_its_cvs_step_is_uncommitted_still_joins_the_cv(monkeypatch: Any) -> None:
    """The write skew two workers hit (seen once in the mail end-to-end test): the CV's
    step has made the candidate and looked for waiting companions (none yet) but not
    committed, while the letter's step looks for a CV with a candidate (none committed)
    and ends `no_candidate_details`; both commit and the letter is left beside its CV's
    person. The message's lock makes the letter's step wait for the CV's commit."""
    import threading
    import time

    from django.db import connections

    cv, letter = _message(("Ada_CV.pdf", CV_TEXT), ("cover.pdf", LETTER_TEXT))
    real_collect = candidates_api.candidate_collect_message_companions
    cv_looked, letter_done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def collect_then_hold(**kw: Any) -> list[int]:
        found = real_collect(**kw)
        cv_looked.set()
        # Hold the CV's transaction open until the letter's step has ended or is waiting
        # on a lock (with the fix it can only end after this commit).
        deadline = time.monotonic() + 20
        while not letter_done.is_set() and time.monotonic() < deadline:
            with connection.cursor() as cur:
                cur.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                if cur.fetchone()[0]:
                    break
            time.sleep(0.02)
        return found

    def run(att: intake_api.Attachment, after: threading.Event | None, done: threading.Event | None) -> None:
        try:
            if after is not None:
                assert after.wait(20)
            candidate_tasks.create_from_attachment(attachment_id=att.pk, payload_version=1)
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)
        finally:
            if done is not None:
                done.set()
            connections.close_all()

    monkeypatch.setattr(candidates_api, "candidate_collect_message_companions", collect_then_hold)
    threads = [
        threading.Thread(target=run, args=(cv, None, None)),
        threading.Thread(target=run, args=(letter, cv_looked, letter_done)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    helpers.settle_jobs(cv.pk, helpers.CANDIDATE)
    helpers.settle_jobs(letter.pk, helpers.CANDIDATE)
    cv, letter = helpers.reload(cv), helpers.reload(letter)
    assert (cv.state, letter.state) == ("candidate_created", "candidate_created"), letter.reason
    assert letter.candidate_id == cv.candidate_id is not None


def test_a_waiting_letter_whose_page_images_are_being_stored_still_joins_the_cv() -> None:
    """The CV's step collects waiting companions skipping rows another transaction holds.
    A letter's page store holds its row (to switch the page set) at about the time its
    CV's step runs: it takes FOR KEY SHARE, which the collect's FOR NO KEY UPDATE SKIP
    LOCKED does not skip. With FOR NO KEY UPDATE there the letter stayed waiting."""
    import threading

    from django.db import connections, transaction

    cv, letter = _message(("Ada_CV.pdf", CV_TEXT), ("cover.pdf", LETTER_TEXT))
    candidate_tasks.create_from_attachment(attachment_id=letter.pk, payload_version=1)
    assert helpers.reload(letter).state == "no_candidate_details"
    held, release = threading.Event(), threading.Event()

    def page_store_holds_the_letter() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cur:
                # The page store's lock (ats.intake.pages.page_images_store).
                cur.execute("SELECT 1 FROM intake_attachment WHERE id = %s FOR KEY SHARE", [letter.pk])
                held.set()
                release.wait(20)
        finally:
            connections.close_all()

    holder = threading.Thread(target=page_store_holds_the_letter)
    holder.start()
    try:
        assert held.wait(20)
        candidate_tasks.create_from_attachment(attachment_id=cv.pk, payload_version=1)
    finally:
        release.set()
        holder.join(30)
    cv, letter = helpers.reload(cv), helpers.reload(letter)
    assert (cv.state, letter.state) == ("candidate_created", "candidate_created"), letter.reason
    assert letter.candidate_id == cv.candidate_id is not None


def test_documents_without_identity_in_a_message_without_cv_wait_for_a_recruiter() -> None:
    letter, cert = _message(("cover.pdf", LETTER_TEXT), ("cert.pdf", CERT_TEXT))
    for att in (letter, cert):
        assert _candidate_step(att).state == "no_candidate_details"


def test_kind_rule_is_explained() -> None:
    from ats.candidates import kind

    cv = kind.classify(CV_TEXT, has_identity=True)
    assert cv.kind == "cv" and cv.confidence >= 0.5
    assert any("experience" in e and "education" in e and "skills" in e for e in cv.evidence)
    german = kind.classify("Max Muster\nBerufserfahrung\nEntwickler\nAusbildung\nInformatik", has_identity=True)
    assert german.kind == "cv"
    assert kind.classify(LETTER_TEXT, has_identity=False).kind == "cover_letter"
    assert kind.classify("Sehr geehrte Damen und Herren,\nmit freundlichen Grüßen", has_identity=False).kind == (
        "cover_letter"
    )
    assert kind.classify(CERT_TEXT, has_identity=False).kind == "certificate"
    assert kind.classify("Hello World", has_identity=False).kind == "other"


def test_an_upload_batch_is_not_a_message() -> None:
    """A recruiter's upload batch with a CV and a certificate: the certificate is not
    joined to the CV's candidate automatically (it waits for the recruiter)."""
    raw = intake_api.intake_receive(
        channel="upload",
        files=[intake_api.IncomingFile("cv.pdf", helpers.unique_pdf()), intake_api.IncomingFile("c.pdf", b"%PDF-1.4")],
    )
    cv, cert = intake_api.raw_intake_attachments(raw.pk)
    assert intake_api.message_companions(cv.pk) == [] and intake_api.message_companions(cert.pk) == []


def test_a_document_sent_for_a_requisition_and_attached_by_hand_applies_the_candidate() -> None:
    """The attach sends candidates' document_attached; the pipeline's receiver applies the
    candidate to the requisition the document was sent for (issue 22: candidates no longer
    imports scoring)."""
    from ats.scoring.models import Application
    from tests.scoring.helpers import requisition

    version = requisition()
    person = _candidate_step(_parsed("Jane Doe\njane.doe@example.com\nSkills\nPython"))
    cert = _parsed("Certificate of completion\nKubernetes administrator", "cert.pdf")
    raw = cert.raw_intake
    raw.metadata = {**(raw.metadata or {}), "requisition_id": version.requisition_id}
    raw.save(update_fields=["metadata"])
    cert = _candidate_step(cert)
    assert cert.state == "no_candidate_details"
    assert not Application.objects.filter(candidate_id=person.candidate_id).exists()
    candidates_api.candidate_attach_document(attachment_id=cert.pk, candidate_id=person.candidate_id, actor=RECRUITER)
    [app] = Application.objects.filter(candidate_id=person.candidate_id)
    assert app.requisition_id == version.requisition_id
