"""Documents, extraction versions, provenance, recruiter edits and proposed changes."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from ats.candidates import api as candidates_api
from ats.candidates.models import Candidate, ExtractionRecord
from ats.iam import api as iam_api
from tests.candidates.helpers import VIEWER, attachment_id, dedupe_jobs, extraction

pytestmark = pytest.mark.django_db(transaction=True)

RECRUITER = iam_api.SystemActor("test:recruiter")
PROV_KEYS = {"attachment_id", "parse_attempt", "page", "bbox", "part", "index", "text", "rule", "extractor_version"}


def apply(att: int, attempt: int, ext: object) -> Candidate:
    c = candidates_api.candidate_apply_document(attachment_id=att, parse_attempt=attempt, extraction=ext)  # type: ignore[arg-type]
    assert c is not None
    return Candidate.objects.get(pk=c.id)  # the row: these tests read its columns


def test_new_document_makes_a_candidate_with_provenance_for_every_value() -> None:
    att = attachment_id()
    c = apply(
        att,
        1,
        extraction(
            name="Zoë Müller",
            emails=("zoe@example.org",),
            phones=("+442079460000",),
            location="Berlin",
            skills=("PostgreSQL", "Kubernetes"),
            links=("https://linkedin.com/in/zoe",),
            years=7.5,
        ),
    )
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None
    assert d["name"] == "Zoë Müller" and d["emails"] == ["zoe@example.org"] and d["phones"] == ["+442079460000"]
    assert d["links"] == [{"kind": "linkedin", "url": "https://linkedin.com/in/zoe"}]
    assert d["location"] == "Berlin" and d["skills"] == ["PostgreSQL", "Kubernetes"] and d["years_experience"] == 7.5
    for field in ("name", "emails", "phones", "links", "location", "skills", "years_experience"):
        prov = d["provenance"][field]
        assert prov, field
        for entry in prov:
            assert set(entry) >= PROV_KEYS
            assert entry["attachment_id"] == att and entry["parse_attempt"] == 1
            assert entry["extractor_version"] == "test-1" and entry["page"] == 1 and entry["bbox"]
            assert entry["rule"] and entry["text"]
    assert d["documents"] == [att] and d["extraction_version"] == 1
    assert d["edited_fields"] == [] and d["proposed_changes"] == [] and d["duplicates"] == []
    assert dedupe_jobs(c.pk) == ["todo"]  # deferred in the same transaction


def test_redelivered_apply_is_idempotent() -> None:
    att = attachment_id()
    ext = extraction(name="Ann Lee", emails=("ann@example.org",))
    c1 = apply(att, 1, ext)
    c2 = apply(att, 1, ext)
    assert c1.pk == c2.pk
    assert ExtractionRecord.objects.filter(attachment_id=att).count() == 1
    d = candidates_api.candidate_detail(c1.pk, actor=VIEWER)
    assert d is not None and d["extraction_version"] == 1 and d["emails"] == ["ann@example.org"]


def test_reparse_keeps_recruiter_edit_proposes_change_and_unedited_fields_follow() -> None:
    att = attachment_id()
    c = apply(att, 1, extraction(name="Curriculum Vitae", emails=("old@example.org",), location="Leeds"))
    candidates_api.candidate_edit_field(candidate_id=c.pk, field="name", value="Jane Doe", actor=RECRUITER)
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None and d["name"] == "Jane Doe" and d["edited_fields"] == ["name"]
    assert d["provenance"]["name"][0]["rule"] == "recruiter.edit"

    apply(att, 2, extraction(name="Jane A. Doe", emails=("new@example.org",), location="Leeds", version="test-2"))
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None
    assert d["name"] == "Jane Doe"  # the edit is never overwritten
    assert d["emails"] == ["new@example.org"]  # unedited: follows the newest parse
    assert d["provenance"]["emails"][0]["parse_attempt"] == 2
    assert d["provenance"]["emails"][0]["extractor_version"] == "test-2"
    assert d["extraction_version"] == 2
    [change] = d["proposed_changes"]
    assert change["field"] == "name" and change["value"] == "Jane A. Doe" and change["current"] == "Jane Doe"

    # Dismissed: the same proposal is not made again by the next parse.
    candidates_api.candidate_dismiss_change(change_id=change["change_id"], actor=RECRUITER)
    apply(att, 3, extraction(name="Jane A. Doe", emails=("new@example.org",), version="test-3"))
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None and d["proposed_changes"] == [] and d["name"] == "Jane Doe"
    assert d["location"] is None  # unedited and gone from the newest parse

    # A different disagreeing value is proposed; accepting takes it and keeps it pinned.
    apply(att, 4, extraction(name="Jane Alice Doe", version="test-4"))
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None
    [change] = d["proposed_changes"]
    candidates_api.candidate_accept_change(change_id=change["change_id"], actor=RECRUITER)
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None and d["name"] == "Jane Alice Doe" and d["edited_fields"] == ["name"]
    assert d["provenance"]["name"][0]["parse_attempt"] == 4 and d["proposed_changes"] == []
    with pytest.raises(ValueError, match="already accepted"):
        candidates_api.candidate_accept_change(change_id=change["change_id"], actor=RECRUITER)


def test_edit_of_list_and_number_fields() -> None:
    c = apply(attachment_id(), 1, extraction(name="Bo Chen"))
    candidates_api.candidate_edit_field(candidate_id=c.pk, field="skills", value="Python, SQL", actor=RECRUITER)
    candidates_api.candidate_edit_field(candidate_id=c.pk, field="years_experience", value="4", actor=RECRUITER)
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None and d["skills"] == ["Python", "SQL"] and d["years_experience"] == 4.0
    assert d["edited_fields"] == ["skills", "years_experience"]
    with pytest.raises(ValueError, match="unknown field"):
        candidates_api.candidate_edit_field(candidate_id=c.pk, field="salary", value="1", actor=RECRUITER)
    with pytest.raises(ValueError, match="must be a number"):
        candidates_api.candidate_edit_field(candidate_id=c.pk, field="years_experience", value="lots", actor=RECRUITER)


def test_permissions_recruiters_edit_and_merge_hiring_managers_read() -> None:
    c = apply(attachment_id(), 1, extraction(name="Eve Adams"))
    other = apply(attachment_id(), 1, extraction(name="Eve Adams"))
    hm = iam_api.user_create(username="hm", password="x" * 12, role="hiring_manager")
    rec = iam_api.user_create(username="rec", password="x" * 12, role="recruiter")
    assert iam_api.can(hm, "candidate.view") and not iam_api.can(hm, "candidate.edit")
    assert candidates_api.candidate_detail(c.pk, actor=rec) is not None
    assert [r["id"] for r in candidates_api.candidate_list(actor=rec, search="Eve")] == [c.pk, other.pk]
    # A hiring manager with no assigned requisition reads none of them (issue 21 N2).
    assert candidates_api.candidate_detail(c.pk, actor=hm) is None
    assert candidates_api.candidate_list(actor=hm, search="Eve") == []
    nobody = get_user_model().objects.create_user(username="nobody", password="x" * 12)
    with pytest.raises(candidates_api.NotAllowed):
        candidates_api.candidate_detail(c.pk, actor=nobody)
    with pytest.raises(candidates_api.NotAllowed):
        candidates_api.candidate_edit_field(candidate_id=c.pk, field="name", value="X", actor=hm)
    with pytest.raises(candidates_api.NotAllowed):
        candidates_api.candidate_merge(survivor_id=c.pk, merged_id=other.pk, actor=hm)
    with pytest.raises(candidates_api.NotAllowed):
        candidates_api.candidate_edit_field(candidate_id=c.pk, field="name", value="X", actor=None)
    candidates_api.candidate_edit_field(candidate_id=c.pk, field="name", value="Eve A. Adams", actor=rec)
    d = candidates_api.candidate_detail(c.pk, actor=VIEWER)
    assert d is not None and d["provenance"]["name"][0]["edited_by"] == f"user:{rec.pk}"
    candidates_api.candidate_merge(survivor_id=c.pk, merged_id=other.pk, actor=rec)
