"""Issue 25 item 2: a template's sample values ("Your Name Here", "john.doe@example.com",
"123-456-7890") are kept in their field, flagged `placeholder` in provenance, and never
used to match or merge candidates. The real extractor and candidate task run in-process;
tests/candidates/test_e2e.py has the same through `ats ingest` and the workers."""

from __future__ import annotations

from typing import Any

import pytest

from ats.candidates import api as candidates_api
from ats.candidates import fields as F
from ats.candidates.models import CandidateMerge, DuplicatePair
from ats.extraction.data import Extraction, FieldValue, Source
from tests.candidates.helpers import VIEWER
from tests.candidates.test_identity import _candidate_step, _parsed

pytestmark = pytest.mark.django_db(transaction=True)

# A template left half filled in: the person's own name and number, the template's sample
# e-mail and phone. (A template that still reads "Your Name Here" names nobody: issue 28's
# gate keeps it out of the candidate list - see the last test.)
TEMPLATE = "{name}\njohn.doe@example.com\n123-456-7890\n{own}\nSkills\nPython, SQL\n"


def _value(value: str, *, placeholder: bool) -> FieldValue:
    return FieldValue(value, (Source(text=value, rule="test", page=1, placeholder=placeholder),))


def test_placeholder_values_give_no_match_keys() -> None:
    sample = Extraction(
        "test-1",
        {
            "name": (_value("John Doe", placeholder=True),),
            "emails": (
                _value("john.doe@example.com", placeholder=True),
                _value("ann@mail.example.net", placeholder=False),
            ),
            "phones": (_value("+11234567890", placeholder=True),),
        },
    )
    values = F.record_values(sample.to_dict(), attachment_id=1, parse_attempt=1)
    assert [v["sources"][0].get("placeholder") for v in values["emails"]] == [True, None]
    assert F.signals(values) == {("email", "ann@mail.example.net"), ("email_domain", "mail.example.net")}


def _template_candidate(own_phone: str, name: str) -> int:
    att = _candidate_step(_parsed(TEMPLATE.format(own=own_phone, name=name), "template.pdf"))
    assert att.state == "candidate_created", (att.state, att.reason)
    assert att.candidate_id is not None
    return att.candidate_id


def test_two_template_cvs_are_not_merged_or_paired() -> None:
    a = _template_candidate("+44 20 7946 0111", "Sam Taylor")
    b = _template_candidate("+44 20 7946 0222", "Kim Lee")
    assert a != b
    for cid, name in ((a, "Sam Taylor"), (b, "Kim Lee")):
        d: dict[str, Any] | None = candidates_api.candidate_detail(cid, actor=VIEWER)
        assert d is not None
        # Kept as read, flagged in provenance ...
        assert d["name"] == name and d["emails"] == ["john.doe@example.com"]
        assert "+441234567890" in d["phones"]  # the +44 numbers settle the region: GB
        assert all(p.get("placeholder") is True for p in d["provenance"]["emails"])
        assert not any(p.get("placeholder") for p in d["provenance"]["name"])
        sample = [p for p in d["provenance"]["phones"] if p["value"] == "+441234567890"]
        assert sample and all(p.get("placeholder") is True for p in sample)
        # ... and the person's own number is not.
        own = [p for p in d["provenance"]["phones"] if p["value"] != "+441234567890"]
        assert own and not any(p.get("placeholder") for p in own)
    # Same sample contact e-mail and phone on both: still two people.
    for cid in (a, b):
        assert candidates_api.candidate_dedupe(candidate_id=cid) == []
    assert not DuplicatePair.objects.exists() and not CandidateMerge.objects.exists()


def test_a_real_shared_phone_still_pairs_template_cvs() -> None:
    # The skip is for the sample values only: the same real number is still a same-person pair.
    a = _template_candidate("+44 20 7946 0333", "Sam Taylor")
    b = _template_candidate("+44 20 7946 0333", "Sam Taylor")
    candidates_api.candidate_dedupe(candidate_id=b)
    [pair] = DuplicatePair.objects.all()
    assert {pair.candidate_low_id, pair.candidate_high_id} == {a, b}
    assert "+442079460333" in pair.reason and "example" not in pair.reason
    # Not merged automatically: the only shared contact e-mail is the template's.
    assert not CandidateMerge.objects.exists()


def test_a_template_still_reading_your_name_here_names_nobody() -> None:
    # Issue 28's gate meets issue 25's placeholders: the sample name is kept as read and
    # flagged, but it names no person, so the document waits for a recruiter.
    att = _candidate_step(_parsed(TEMPLATE.format(own="+44 20 7946 0444", name="Your Name Here"), "template.pdf"))
    assert (att.state, att.candidate_id) == ("no_candidate_details", None)
    read = candidates_api.document_extraction(att.pk)
    assert read is not None and read["name"] == "Your Name Here"
