"""The nightly purge halts at its first unexplained failure and resumes at the boundary
(ADR 0004 §2, R6); a SIGKILL mid-chunk loses nothing and repeats nothing."""

from __future__ import annotations

import datetime
import signal
from collections import Counter
from typing import Any

import pytest
from django.utils import timezone

from ats.candidates import api as candidates_api
from ats.jobs import api as jobs_api
from ats.retention import api as retention_api
from ats.retention.models import Erasure, PurgeRun, RetentionAction, RetentionSubject
from tests.jobs.helpers import defer, wait_for, wait_status

pytestmark = pytest.mark.django_db(transaction=True)

STEPS = ["tombstone", "scoring", "ai", "search", "candidates", "selfid", "documents", "mail_ledger", "audit", "jobs"]


def _subjects(n: int) -> list[int]:
    """n due people: candidate rows with a name, an e-mail and a field, due yesterday."""
    ids = []
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    for i in range(n):
        c = candidates_api.Candidate.objects.create(display_name=f"Purge Person{i}", email=f"purge{i}@example.org")
        c.fields.create(field="emails", values=[{"value": f"purge{i}@example.org", "sources": []}])
        RetentionSubject.objects.create(candidate_id=c.pk, last_activity_at=timezone.now(), due_on=yesterday)
        ids.append(c.pk)
    return ids


def _erased(cid: int) -> bool:
    c = candidates_api.Candidate.objects.get(pk=cid)
    return c.status == "erased" and not c.display_name and not c.email and not c.fields.exists()


def _untouched(cid: int, i: int) -> bool:
    c = candidates_api.Candidate.objects.get(pk=cid)
    return c.status == "active" and c.display_name == f"Purge Person{i}" and c.fields.exists()


def _actions(cid: int) -> list[tuple[str, str]]:
    rows = RetentionAction.objects.filter(candidate_id=cid).order_by("pk")
    return list(rows.values_list("step", "outcome"))


def test_fault_on_subject_k_halts_at_the_boundary_and_the_next_run_completes(monkeypatch: Any) -> None:
    ids = _subjects(5)
    k = 2
    monkeypatch.setenv("ATS_TEST_RETENTION_FAULT", f"{ids[k]}:documents")
    with pytest.raises(retention_api.PurgeHalted, match=f"candidate {ids[k]}"):
        retention_api.retention_purge()
    run = PurgeRun.objects.order_by("-pk").first()
    assert run.state == "halted" and run.halted_at == ids[k] and run.done_count == k
    assert "injected fault" in run.error
    for i, cid in enumerate(ids):
        if i < k:
            assert _erased(cid) and _actions(cid) == [(s, "done") for s in STEPS], cid
        elif i == k:
            # The subject's transaction rolled back: untouched, one failed row at the step.
            assert _untouched(cid, i) and _actions(cid) == [("documents", "failed")]
        else:
            assert _untouched(cid, i) and _actions(cid) == []
    assert retention_api.retention_status()["halted"]

    monkeypatch.delenv("ATS_TEST_RETENTION_FAULT")
    run2 = retention_api.retention_purge()
    assert run2.state == "completed" and run2.resumed_from == ids[k] and run2.done_count == len(ids) - k
    for cid in ids:
        assert _erased(cid)
        done = Counter(s for s, o in _actions(cid) if o == "done")
        assert done == Counter(STEPS), (cid, done)  # nothing repeated
    assert not retention_api.retention_status()["halted"]
    assert retention_api.retention_purge().due_count == 0  # nothing left due


def test_sigkill_mid_chunk_loses_nothing_and_repeats_nothing(start_worker: Any) -> None:
    ids = _subjects(4)
    j = 1
    w = start_worker("default", env={"ATS_TEST_RETENTION_PAUSE": f"{ids[j]}:60"})
    job_id = defer("retention.purge", timestamp=0)
    wait_for(lambda: f"retention paused at candidate {ids[j]}" in w.tail(), 30, "the purge to pause mid-subject")
    w.signal(signal.SIGKILL)
    w.proc.wait(10)
    # Subject j's transaction died with the process: j and after untouched.
    assert _erased(ids[0]) and _untouched(ids[j], j) and _untouched(ids[j + 1], j + 1)
    assert _actions(ids[j]) == []

    start_worker("default")  # rescues the stalled job (no pause this time) and finishes the run
    wait_status(job_id, {"succeeded"}, timeout=60)
    for cid in ids:
        assert _erased(cid), cid
        done = Counter(s for s, o in _actions(cid) if o == "done")
        assert done == Counter(STEPS), (cid, done)
        assert Erasure.objects.filter(candidate_id=cid).count() == 1
    assert jobs_api.job_status(job_id) == "succeeded"
