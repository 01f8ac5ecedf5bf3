"""Full-text search over candidates and documents, kept fresh through ats.jobs and the sweep."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection, transaction

from ats.candidates import api as candidates_api
from ats.intake.models import Attachment, ParseAttempt, RawIntake
from ats.search import api as search_api
from ats.search.models import SearchEntry
from tests.conftest import run_ats_in_process
from tests.jobs.helpers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

_attachment_ids = iter(range(900_000, 1_000_000))


def candidate(name: str, email: str = "", text: str = "") -> int:
    fields = {f.name for f in candidates_api.Candidate._meta.get_fields()}
    kwargs: dict[str, Any] = {"display_name": name, "email": email, "document_text": text}
    if "source_attachment_id" in fields:
        kwargs["source_attachment_id"] = next(_attachment_ids)
    return int(candidates_api.Candidate.objects.create(**kwargs).pk)


def document(candidate_id: int, text: str) -> int:
    raw = RawIntake.objects.create(channel="cli")
    att = Attachment.objects.create(raw_intake=raw, filename="cv.pdf", state="candidate_created",
                                    candidate_id=candidate_id)  # fmt: skip
    from django.utils import timezone

    ParseAttempt.objects.create(attachment=att, attempt_no=1, state="succeeded", text=text, finished_at=timezone.now())
    return int(att.pk)


def jobs(kind: str, object_id: int) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status::text FROM procrastinate_jobs WHERE task_name = 'search.index'"
            " AND args->>'kind' = %s AND (args->>'object_id')::bigint = %s",
            [kind, object_id],
        )
        return [r[0] for r in cur.fetchall()]


def test_reindex_is_deferred_in_the_writers_transaction() -> None:
    cid = candidate("Ada Lovelace")
    with transaction.atomic():
        search_api.search_reindex(kind="candidate", object_id=cid)
        transaction.set_rollback(True)
    assert jobs("candidate", cid) == []  # rolled back with the writer
    with transaction.atomic():
        search_api.search_reindex(kind="candidate", object_id=cid)
        search_api.search_reindex(kind="candidate", object_id=cid)  # coalesced by the queueing lock
    assert jobs("candidate", cid) == ["todo"]


def test_names_skills_and_document_text_are_searchable() -> None:
    ada = candidate("Ada Lovelace", "ada@example.org", "analytical machine programmer")
    grace = candidate("Grace Hopper", "", "")
    doc = document(grace, "Senior software engineering lead; COBOL compilers and distributed systems")
    for kind, object_id in (("candidate", ada), ("candidate", grace), ("document", doc)):
        assert search_api.search_entry_refresh(kind=kind, object_id=object_id) == "indexed"
    assert search_api.search_candidates("lovelace") == [ada]
    assert search_api.search_candidates("ada@example.org") == [ada]
    assert search_api.search_candidates("engineer") == [grace]  # stemmed: engineering
    assert search_api.search_candidates("COBOL compilers") == [grace]
    assert search_api.search_candidates('"distributed systems" -lovelace') == [grace]
    assert search_api.search_candidates("nothing-like-this") == []
    assert search_api.search_candidates("   ") == []
    # A name match outranks a body-text mention.
    hopper_fan = candidate("Someone Else", "", "admirer of hopper")
    search_api.search_entry_refresh(kind="candidate", object_id=hopper_fan)
    assert search_api.search_candidates("hopper") == [grace, hopper_fan]
    assert search_api.search_entry_refresh(kind="candidate", object_id=ada) == "unchanged"


def test_a_candidates_skills_are_searchable_by_wording_and_taxonomy_label() -> None:
    """h50perf reads the candidate and its skills field in one statement: the field's
    wording and its taxonomy label are both indexed; a merged candidate drops out."""
    from ats.candidates.models import CandidateField

    cid = candidate("Hedy Lamarr")
    CandidateField.objects.create(
        candidate_id=cid,
        field="skills",
        values=[
            {"value": "k8s", "sources": [{"rule": "skill.section", "taxonomy_label": "Kubernetes"}]},
            {"value": "Frequency hopping", "sources": []},
        ],
    )
    assert search_api.search_entry_refresh(kind="candidate", object_id=cid) == "indexed"
    assert search_api.search_candidates("k8s") == [cid] == search_api.search_candidates("kubernetes")
    assert search_api.search_candidates("hopping") == [cid]
    doc = document(cid, "spread spectrum")
    assert search_api.search_entry_refresh(kind="document", object_id=doc) == "indexed"
    candidates_api.Candidate.objects.filter(pk=cid).update(status="merged")
    assert search_api.search_entry_refresh(kind="candidate", object_id=cid) == "removed"
    assert search_api.search_entry_refresh(kind="document", object_id=doc) == "removed"


def test_sweep_indexes_what_no_job_covered_and_drops_what_is_gone() -> None:
    cid = candidate("Katherine Johnson")
    doc = document(cid, "orbital mechanics")
    assert search_api.search_candidates("orbital") == []
    out = search_api.search_sweep()
    assert out["indexed"] == 2
    assert search_api.search_candidates("orbital") == [cid] == search_api.search_candidates("katherine")
    assert search_api.search_sweep()["indexed"] == 0  # nothing changed
    candidates_api.Candidate.objects.filter(pk=cid).delete()  # erased
    out = search_api.search_sweep()
    assert out["removed"] == 2 and search_api.search_candidates("orbital") == []
    assert not SearchEntry.objects.filter(candidate_id=cid).exists()
    assert doc


@pytest.mark.slow
def test_a_real_worker_runs_the_index_job(start_worker: Any) -> None:
    cid = candidate("Dorothy Vaughan", "", "fortran")
    start_worker("default")
    with transaction.atomic():
        search_api.search_reindex(kind="candidate", object_id=cid)
    assert wait_for(lambda: search_api.search_candidates("fortran") == [cid], 30, "indexed by the worker")
    # The entry commits inside the job; the job row finishes just after.
    assert wait_for(lambda: jobs("candidate", cid) == ["succeeded"], 30, "the index job to succeed")


def test_cli_search(ats_cli: Any) -> None:
    cid = candidate("Mary Jackson", "", "wind tunnel")
    assert run_ats_in_process("search", "--sweep").returncode == 0  # the query below: a real process
    res = ats_cli("search", "wind tunnel", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"query": "wind tunnel", "candidate_ids": [cid]}
