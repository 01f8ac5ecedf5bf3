"""Duplicate rules, the pair constraint and automatic merges (in-process; the
interleaving with real workers is test_interleaving.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from ats.candidates import api as candidates_api
from ats.candidates.models import CandidateMerge, DuplicatePair
from ats.iam import api as iam_api
from tests.candidates.helpers import VIEWER, attachment_id, extraction

pytestmark = pytest.mark.django_db(transaction=True)

RECRUITER = iam_api.SystemActor("test:recruiter")


def new(**kw: Any) -> int:
    c = candidates_api.candidate_apply_document(
        attachment_id=attachment_id(), parse_attempt=1, extraction=extraction(**kw)
    )
    assert c is not None
    return c.id


def dups(cid: int) -> list[dict[str, Any]]:
    d = candidates_api.candidate_detail(cid, actor=VIEWER)
    assert d is not None
    return d["duplicates"]


def test_same_email_is_a_same_person_pair_seen_from_both_sides() -> None:
    a = new(name="Jane Doe", emails=("Jane.Doe@Example.org",))
    b = new(name="J. Doe", emails=("jane.doe@example.org",))
    outcomes = candidates_api.candidate_dedupe(candidate_id=b)
    assert outcomes and outcomes[0].startswith("created")
    [pa] = dups(a)
    [pb] = dups(b)
    assert pa["pair_id"] == pb["pair_id"] and pa["other_candidate_id"] == b and pb["other_candidate_id"] == a
    assert pa["kind"] == "same_person" and pa["score"] == 1.0 and "jane.doe@example.org" in pa["reason"]
    # Running it again (or for the other side) finds the pair: a logged no-op.
    assert candidates_api.candidate_dedupe(candidate_id=a) == [f"noop: pair {pa['pair_id']} exists"]
    assert DuplicatePair.objects.count() == 1


def test_same_phone_with_different_emails() -> None:
    a = new(name="Ola Nordmann", emails=("ola@firma.no",), phones=("+4791234567",))
    b = new(name="Ola N.", emails=("ola.private@gmail.com",), phones=("+47 912 34 567",))
    candidates_api.candidate_dedupe(candidate_id=a)
    [p] = dups(a)
    assert p["other_candidate_id"] == b and p["kind"] == "same_person" and "+4791234567" in p["reason"]


def test_fuzzy_name_needs_another_shared_signal() -> None:
    a = new(name="Zoë Müller", emails=("zoe@a.example",), location="Berlin")
    b = new(name="Zoe Muller", emails=("zm@b.example",), location="Berlin")
    c = new(name="Zoe Muller", emails=("zoe.m@c.example",), location="Madrid")  # namesake elsewhere
    candidates_api.candidate_dedupe(candidate_id=b)
    [p] = dups(b)
    assert p["other_candidate_id"] == a and p["kind"] == "possible_duplicate"
    assert 0 < p["score"] < 1 and "location" in p["reason"]
    assert {e["signal"] for e in p["evidence"]} == {"name", "location"}
    assert dups(c) == []
    # A shared skill set is another signal too.
    d = new(name="Zoe Muller", emails=("z@d.example",), skills=("Go", "Rust", "SQL"))
    e = new(name="Zoë Muller", emails=("z@e.example",), skills=("Go", "Rust", "SQL", "C"))
    candidates_api.candidate_dedupe(candidate_id=e)
    assert [p["other_candidate_id"] for p in dups(e)] == [d]


def test_pairs_are_unique_per_unordered_pair_in_the_database() -> None:
    a = new(name="A One")
    b = new(name="B Two")
    DuplicatePair.objects.create(candidate_low_id=a, candidate_high_id=b, kind="same_person", score=1, reason="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        DuplicatePair.objects.create(candidate_low_id=a, candidate_high_id=b, kind="same_person", score=1, reason="y")
    with pytest.raises(IntegrityError), transaction.atomic():  # the reversed order is refused too
        DuplicatePair.objects.create(candidate_low_id=b, candidate_high_id=a, kind="same_person", score=1, reason="z")


def test_same_contact_email_and_phone_merge_automatically() -> None:
    # Issue 21 N3: the contact e-mail alone no longer merges (test_identity.py); the same
    # phone on both is the second signal here.
    same = {"emails": ("jane@example.org",), "contact_emails": ("jane@example.org",), "phones": ("+441632960777",)}
    a = new(name="Jane Doe", skills=("SQL",), **same)
    b = new(name="Jane Doe", skills=("Go",), **same)
    outcomes = candidates_api.candidate_dedupe(candidate_id=b)
    assert any(o.startswith(f"merged: {b} into {a}") for o in outcomes), outcomes
    da, db = candidates_api.candidate_detail(a, actor=VIEWER), candidates_api.candidate_detail(b, actor=VIEWER)
    assert da is not None and db is not None
    assert db["status"] == "merged" and db["merged_into"] == a
    assert da["status"] == "active" and len(da["documents"]) == 2 and sorted(da["skills"]) == ["Go", "SQL"]
    [journal] = CandidateMerge.objects.all()
    assert journal.automatic and journal.actor == "system:dedupe"
    [pair] = da["duplicates"]
    assert pair["status"] == "merged"
    # A job for the merged-away candidate is a logged no-op.
    assert candidates_api.candidate_dedupe(candidate_id=b) == [f"noop: candidate {b} is merged"]
    # Undone by a recruiter: never merged automatically again.
    candidates_api.candidate_unmerge(merge_id=journal.pk, actor=RECRUITER)
    candidates_api.candidate_dedupe(candidate_id=b)
    assert (
        CandidateMerge.objects.count() == 1 and candidates_api.candidate_detail(b, actor=VIEWER)["status"] == "active"
    )  # type: ignore[index]


def test_address_outside_the_contact_block_does_not_merge() -> None:
    # Both CVs name the same agency address; each CV's own contact block differs.
    a = new(name="Ann Smith", emails=("ann@mail.example", "jobs@agency.example"), contact_emails=("ann@mail.example",))
    b = new(name="Bob Jones", emails=("bob@mail.example", "jobs@agency.example"), contact_emails=("bob@mail.example",))
    candidates_api.candidate_dedupe(candidate_id=b)
    [p] = dups(a)
    assert p["kind"] == "same_person" and p["status"] == "open" and p["other_candidate_id"] == b
    assert not CandidateMerge.objects.exists()


def test_jobs_for_erased_or_missing_candidates_are_logged_no_ops(caplog: pytest.LogCaptureFixture) -> None:
    att = attachment_id()
    c = candidates_api.candidate_apply_document(
        attachment_id=att, parse_attempt=1, extraction=extraction(name="Gone Person", emails=("g@x.example",))
    )
    assert c is not None
    candidates_api.Candidate.objects.filter(pk=c.id).update(status="erased")
    with caplog.at_level("INFO", logger="ats.candidates"):
        assert candidates_api.candidate_dedupe(candidate_id=c.id) == [f"noop: candidate {c.id} is erased"]
        assert candidates_api.candidate_dedupe(candidate_id=-1) == ["noop: candidate -1 is missing"]
        # A re-parse of an erased candidate's document does not bring the data back.
        again = candidates_api.candidate_apply_document(
            attachment_id=att, parse_attempt=2, extraction=extraction(name="Gone Person")
        )
    assert again is None
    assert "is erased: no-op" in caplog.text and "belongs to erased candidate" in caplog.text


def test_common_first_name_does_not_crowd_out_the_match(monkeypatch: pytest.MonkeyPatch) -> None:
    from ats.candidates import dedupe

    monkeypatch.setattr(dedupe, "MAX_COMPARED", 3)
    for i in range(6):
        new(name=f"Maria Other{i}son", emails=(f"m{i}@x.example",), location="Madrid")
    target = new(name="Maria Garcia Lopez", emails=("mgl@a.example",), location="Madrid")
    probe = new(name="María García López", emails=("maria@b.example",), location="Madrid")
    assert [m.other_id for m in dedupe.find_matches(probe)] == [target]


def test_a_skill_spelled_two_ways_is_one_shared_skill() -> None:
    from ats.candidates.dedupe import _skill_key

    def value(wording: str, taxonomy_id: str | None) -> dict[str, Any]:
        source: dict[str, Any] = {"text": wording, "rule": "skill.section"}
        if taxonomy_id:
            source["taxonomy_id"] = taxonomy_id
        return {"value": wording, "sources": [source]}

    assert _skill_key(value("k8s", "ats:kubernetes")) == _skill_key(value("Kubernetes", "ats:kubernetes"))
    # Unlinked skills (or values stored before taxonomy ids) compare by their wording.
    assert _skill_key(value("GnuCash", None)) == _skill_key(value("gnucash", None)) != _skill_key(value("Excel", None))


def test_a_dedupe_reads_its_sharers_not_the_whole_pool() -> None:
    """Issue 26: the sharer lists read "any wanted kind and any wanted value", which the
    planner ran as a scan of every e-mail and phone signal - a dedupe's cost grew with the
    candidate pool whenever the statistics lagged behind it (a fresh deployment's first
    backlog: the bench's 300 CVs). Now one index descent per signal, whatever the
    statistics: 4,000 unrelated candidates added after the tables were analyzed small, and
    again once analyzed, change nothing in the rows one dedupe reads (a count of rows read
    through this transaction's statistics, not a time)."""
    from django.db import connection

    from ats.candidates import dedupe
    from ats.candidates.models import Candidate, CandidateSignal

    a = new(name="Ingrid Halvorsen", emails=("ingrid@fjord.example",), phones=("+4791234567",))
    b = new(name="Ingrid H.", emails=("ih@other.example",), phones=("+47 912 34 567",))
    with connection.cursor() as cur:  # statistics of a small pool, as after a deploy, then a backlog
        cur.execute("ANALYZE candidates_signal")
        cur.execute("ANALYZE candidates_candidate")
    pool = Candidate.objects.bulk_create(Candidate(display_name=f"Someone Else{i}") for i in range(4000))
    CandidateSignal.objects.bulk_create(
        CandidateSignal(candidate=c, kind=kind, value=value)
        for i, c in enumerate(pool)
        for kind, value in (("email", f"p{i}@pool.example"), ("phone", f"+4420{i:08d}"), ("name_token", f"else{i}"))
    )

    def rows_read() -> int:
        with connection.cursor() as cur, transaction.atomic():
            cur.execute(
                "SELECT coalesce(sum(idx_tup_fetch + seq_tup_read), 0) FROM pg_stat_xact_user_tables"
                " WHERE relname IN ('candidates_signal', 'candidates_candidate')"
            )
            before = cur.fetchone()[0]
            status, matches = dedupe.state_and_matches(b)
            cur.execute(
                "SELECT coalesce(sum(idx_tup_fetch + seq_tup_read), 0) FROM pg_stat_xact_user_tables"
                " WHERE relname IN ('candidates_signal', 'candidates_candidate')"
            )
            after = cur.fetchone()[0]
        assert status == "active" and [m.other_id for m in matches] == [a]
        return int(after - before)

    assert rows_read() <= 60
    with connection.cursor() as cur:  # and once autovacuum has caught up
        cur.execute("ANALYZE candidates_signal")
        cur.execute("ANALYZE candidates_candidate")
    assert rows_read() <= 60
