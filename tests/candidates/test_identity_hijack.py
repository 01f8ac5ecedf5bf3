"""Issue 21 N3: document content alone never merges candidates and never replaces an
existing candidate's contact data (in-process, real Postgres).

The attack: anyone who can mail the careers inbox sends a CV whose contact block holds a
victim's e-mail. Before the fix it auto-merged into the victim and its phone became the
victim's first phone.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from ats.candidates import api as candidates_api
from ats.candidates.models import CandidateField, CandidateMerge, DuplicatePair, ProposedChange
from ats.iam import api as iam_api
from ats.intake.models import Attachment, RawIntake
from tests.candidates.helpers import VIEWER, extraction

pytestmark = pytest.mark.django_db(transaction=True)

VICTIM = {"name": "Vera Victim", "emails": ("vera@victim.example",), "contact_emails": ("vera@victim.example",)}


def _document(*, sender: str = "", uploader_email: str | None = None) -> int:
    """A real intake row: mailed from `sender`, or uploaded by an account with that e-mail."""
    if uploader_email is not None:
        user = get_user_model().objects.create_user(f"u{RawIntake.objects.count()}", email=uploader_email)
        raw = RawIntake.objects.create(channel="upload", received_by=user)
    else:
        raw = RawIntake.objects.create(channel="mail", metadata={"from": sender, "from_name": "Someone"})
    return Attachment.objects.create(raw_intake=raw, filename="cv.pdf").pk


def new(att: int, attempt: int = 1, **kw: Any) -> int:
    c = candidates_api.candidate_apply_document(attachment_id=att, parse_attempt=attempt, extraction=extraction(**kw))
    assert c is not None
    return c.id


def detail(cid: int) -> dict[str, Any]:
    d = candidates_api.candidate_detail(cid, actor=VIEWER)
    assert d is not None
    return d


def test_a_victims_email_in_a_stranger_cv_is_a_pair_for_review_not_a_merge() -> None:
    victim = new(_document(sender="vera@victim.example"), phones=("+441632960100",), **VICTIM)
    before = detail(victim)
    # The attacker mails from their own address; the CV's contact block names the victim.
    attacker = new(
        _document(sender="mallory@evil.example"),
        name="Mallory",
        emails=("vera@victim.example",),
        contact_emails=("vera@victim.example",),
        phones=("+441632960666",),
    )
    outcomes = candidates_api.candidate_dedupe(candidate_id=attacker)
    assert not CandidateMerge.objects.exists(), outcomes
    [pair] = DuplicatePair.objects.all()
    assert (pair.candidate_low_id, pair.candidate_high_id, pair.status) == (victim, attacker, "open")
    assert "not merged automatically" in pair.reason and "vera@victim.example" in pair.reason, pair.reason
    after = detail(victim)
    for field in ("name", "emails", "phones", "documents", "status"):
        assert after[field] == before[field], field
    assert detail(attacker)["status"] == "active"
    # Checked again (another change of either side): still no merge, the note once.
    candidates_api.candidate_dedupe(candidate_id=victim)
    assert not CandidateMerge.objects.exists()
    assert DuplicatePair.objects.get().reason.count("not merged automatically") == 1


def test_the_sender_alone_on_one_side_is_not_enough() -> None:
    # The victim mailed from her own address; the attacker's content claims it. The
    # victim's confirmation must not make the stranger's document mergeable.
    new(_document(sender="vera@victim.example"), **VICTIM)
    attacker = new(_document(sender="mallory@evil.example"), **VICTIM)
    candidates_api.candidate_dedupe(candidate_id=attacker)
    assert not CandidateMerge.objects.exists()


@pytest.mark.parametrize("channel", ["mail", "upload"])
def test_sent_or_uploaded_from_the_extracted_address_merges(channel: str) -> None:
    def doc() -> int:
        if channel == "mail":
            return _document(sender="Vera@Victim.example")
        return _document(uploader_email="vera@victim.example")

    a = new(doc(), skills=("SQL",), **VICTIM)
    b = new(doc(), skills=("Go",), **VICTIM)
    outcomes = candidates_api.candidate_dedupe(candidate_id=b)
    assert any(o.startswith(f"merged: {b} into {a}") for o in outcomes), outcomes
    [journal] = CandidateMerge.objects.all()
    assert journal.automatic and "sent or uploaded from that address" in journal.reason


def test_an_automatic_merge_keeps_the_survivors_contact_data() -> None:
    att_a = _document(sender="x@y.example")
    a = new(att_a, phones=("+441632960100",), **VICTIM)
    # Same contact e-mail and phone (the second signal), plus a new phone and another name.
    b = new(
        _document(sender="z@y.example"),
        name="V. Victim",
        emails=("vera@victim.example",),
        contact_emails=("vera@victim.example",),
        phones=("+441632960999", "+441632960100"),
    )
    outcomes = candidates_api.candidate_dedupe(candidate_id=b)
    assert any(o.startswith(f"merged: {b} into {a}") for o in outcomes), outcomes
    d = detail(a)
    assert d["name"] == "Vera Victim" and d["phones"] == ["+441632960100"] and d["emails"] == ["vera@victim.example"]
    assert len(d["documents"]) == 2
    # The new values wait for a recruiter, as proposed changes.
    changes = {c["field"]: c["value"] for c in d["proposed_changes"]}
    assert set(changes) == {"name", "phones"}, changes
    assert changes["name"] == "V. Victim" and "+441632960999" in changes["phones"]
    assert set(
        CandidateField.objects.filter(candidate_id=a, field__in=("name", "phones")).values_list("source", flat=True)
    ) == {"kept"}
    # A later parse of the survivor's own document does not bring the merged-in phone in.
    new(att_a, 2, phones=("+441632960100",), **VICTIM)
    assert detail(a)["phones"] == ["+441632960100"]
    # Accepting the proposal is how the new phone arrives.
    [change] = ProposedChange.objects.filter(candidate_id=a, field="phones", status="open")
    candidates_api.candidate_accept_change(change_id=change.pk, actor=iam_api.SystemActor("test:recruiter"))
    assert "+441632960999" in detail(a)["phones"]
