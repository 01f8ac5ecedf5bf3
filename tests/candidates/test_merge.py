"""Merge journal: unmerge restores every row; concurrent opposite merges neither deadlock nor cross."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections

from ats.candidates import api as candidates_api
from ats.candidates.models import CandidateMerge
from ats.iam import api as iam_api
from tests.candidates.helpers import VIEWER, attachment_id, dedupe_jobs, dump, extraction
from tests.jobs.helpers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

RECRUITER = iam_api.SystemActor("test:recruiter")


def new(att: int | None = None, attempt: int = 1, **kw: Any) -> int:
    c = candidates_api.candidate_apply_document(
        attachment_id=att or attachment_id(), parse_attempt=attempt, extraction=extraction(**kw)
    )
    assert c is not None
    return c.id


def test_merge_then_unmerge_restores_every_row() -> None:
    att_a = attachment_id()
    a = new(att_a, name="Jane Doe", emails=("jane@a.example",), phones=("+441632960001",), skills=("SQL",))
    b = new(name="Jane Doe", emails=("jane@b.example",), phones=("+441632960001",), location="York")
    c = new(name="Someone Else", emails=("jane@b.example",))
    candidates_api.candidate_edit_field(candidate_id=b, field="location", value="Leeds", actor=RECRUITER)
    candidates_api.candidate_edit_field(candidate_id=a, field="name", value="Jane Q. Doe", actor=RECRUITER)
    # A re-parse disagreeing with a's edit leaves an open proposed change.
    new(att_a, 2, name="Jane Doe-Smith", emails=("jane@a.example",), phones=("+441632960001",), skills=("SQL",))
    for cid in (a, b, c):
        candidates_api.candidate_dedupe(candidate_id=cid)
    before = dump()
    assert len(before["candidate_duplicate_pair"]) == 2  # a-b (phone), b-c (e-mail)
    assert len(before["candidates_proposed_change"]) == 1

    journal = candidates_api.candidate_merge(survivor_id=a, merged_id=b, actor=RECRUITER)
    merged = candidates_api.candidate_detail(a, actor=VIEWER)
    assert merged is not None
    assert sorted(merged["emails"]) == ["jane@a.example", "jane@b.example"]
    assert merged["name"] == "Jane Q. Doe" and merged["location"] == "Leeds"  # both sides' edits kept
    assert sorted(merged["edited_fields"]) == ["location", "name"] and len(merged["documents"]) == 2
    assert dump() != before

    with connection.cursor() as cur:  # as if the workers had run every check so far
        cur.execute("UPDATE procrastinate_jobs SET status = 'succeeded' WHERE task_name = 'candidates.dedupe'")
    candidates_api.candidate_unmerge(merge_id=journal.id, actor=RECRUITER)
    assert dump() == before  # every row of every table, column for column
    # Pairs found after the merge went with the restore: both are checked again.
    assert dedupe_jobs(a)[-1] == "todo" and dedupe_jobs(b)[-1] == "todo"
    with pytest.raises(ValueError, match="already undone"):
        candidates_api.candidate_unmerge(merge_id=journal.id, actor=RECRUITER)


def test_unmerge_refused_after_the_survivor_changed() -> None:
    a = new(name="Ann Lee")
    b = new(name="Ann Lee")
    journal = candidates_api.candidate_merge(survivor_id=a, merged_id=b, actor=RECRUITER)
    candidates_api.candidate_edit_field(candidate_id=a, field="name", value="Ann B. Lee", actor=RECRUITER)
    with pytest.raises(ValueError, match="changed after merge"):
        candidates_api.candidate_unmerge(merge_id=journal.id, actor=RECRUITER)


def test_merge_refuses_inactive_and_self() -> None:
    a, b, c = new(name="A A"), new(name="B B"), new(name="C C")
    candidates_api.candidate_merge(survivor_id=a, merged_id=b, actor=RECRUITER)
    with pytest.raises(candidates_api.CandidateNotActive, match=f"merged into {a}"):
        candidates_api.candidate_merge(survivor_id=c, merged_id=b, actor=RECRUITER)
    with pytest.raises(ValueError, match="itself"):
        candidates_api.candidate_merge(survivor_id=c, merged_id=c, actor=RECRUITER)
    with pytest.raises(candidates_api.CandidateNotActive):
        candidates_api.candidate_edit_field(candidate_id=b, field="name", value="x", actor=RECRUITER)


def _lock_waiters() -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cur.fetchone()[0])


def test_a_into_b_and_b_into_a_at_once_neither_deadlock_nor_cross(monkeypatch: pytest.MonkeyPatch) -> None:
    a = new(name="Kim Park", emails=("kim@x.example",))
    b = new(name="Kim Park", emails=("kim@y.example",))
    # Whoever locks first holds both rows for 1.5 s: the other merge must arrive meanwhile.
    monkeypatch.setenv("ATS_TEST_MERGE_PAUSE_S", "1.5")
    barrier = threading.Barrier(2)
    results: dict[str, Any] = {}

    def merge(label: str, survivor: int, merged: int) -> None:
        try:
            barrier.wait(10)
            results[label] = candidates_api.candidate_merge(survivor_id=survivor, merged_id=merged, actor=RECRUITER).id
        except Exception as exc:
            results[label] = exc
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=merge, args=("a<-b", a, b)),
        threading.Thread(target=merge, args=("b<-a", b, a)),
    ]
    for t in threads:
        t.start()
    # Proof of the interleaving: the second merge waits on the first one's row lock.
    assert wait_for(lambda: _lock_waiters() >= 1, 5, "a merge blocked on the other's row lock", interval=0.05)
    for t in threads:
        t.join(30)
    wins = [v for v in results.values() if isinstance(v, int)]
    losses = [v for v in results.values() if isinstance(v, Exception)]
    assert len(wins) == 1 and len(losses) == 1, results
    assert isinstance(losses[0], candidates_api.CandidateNotActive), losses  # not a deadlock error
    journal = CandidateMerge.objects.get()
    survivor = candidates_api.candidate_detail(journal.survivor_id, actor=VIEWER)
    loser = candidates_api.candidate_detail(journal.merged_id, actor=VIEWER)
    assert survivor is not None and loser is not None
    assert survivor["status"] == "active" and loser["status"] == "merged" and loser["merged_into"] == survivor["id"]
    assert len(survivor["documents"]) == 2 and loser["documents"] == []
