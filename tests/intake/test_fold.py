"""Issue 26: the parse report is applied and the candidate made in ONE job
(`intake.apply_parse_result`, ats.pipeline.tasks), and the candidate's dedupe and search
indexing go out as ONE `candidates.follow_ups` job - with every failure state still
reachable: a bad report ends `parse_failed` with its reason, a failing candidate step
still ends `candidate_failed` with its reason (through its own job), a failing follow-up
step runs again alone under its own row.

The task bodies run here in the test process (the same code a worker runs); the report
comes from the real fork server, as ats.parse_worker.runner builds it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, transaction
from procrastinate import JobContext
from procrastinate.contrib.django import app
from procrastinate.jobs import Job

from ats.intake.models import Attachment, ParseAttempt, ParseResult
from ats.pipeline import follow_ups as follow_ups_mod
from ats.pipeline import tasks as pipeline_tasks
from tests import corpus
from tests.parse_role.helpers import stored_parse_result
from tests.sandbox_parse import production_sandbox, submit_args

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def report(django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    result = production_sandbox().run("pdf", corpus.text_pdf())
    assert result.ok
    yield submit_args(result)


def _stored_report(report: dict[str, Any]) -> tuple[int, int]:
    return stored_parse_result(report, corpus.text_pdf())


def _jobs(task_name: str, key: str, value: int) -> list[dict[str, Any]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status::text, args FROM procrastinate_jobs WHERE task_name = %s AND args->>%s = %s ORDER BY id",
            [task_name, key, str(value)],
        )
        # Django's cursor hands jsonb back as text.
        return [{"status": s, "args": json.loads(a) if isinstance(a, str) else a} for s, a in cur.fetchall()]


def _index_jobs(kind: str, object_id: int) -> list[str]:
    # Kind and id both: another test's candidate may carry this document's number.
    return [j["status"] for j in _jobs("search.index", "object_id", object_id) if j["args"]["kind"] == kind]


def _batches_naming_document(att: int) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'candidates.follow_ups'"
            " AND args->'steps' @> jsonb_build_array(jsonb_build_array('search.index',"
            " jsonb_build_object('kind', 'document', 'object_id', %s::bigint)))",
            [att],
        )
        return int(cur.fetchone()[0])


def _run_registered(task_name: str, attempts_before: int, **payload: Any) -> None:
    """Run a task as a worker would, its wrapper included (attempt number, exhaustion)."""
    task = app.tasks[task_name]
    job = Job(id=None, queue="ingest", lock=None, queueing_lock=None, task_name=task_name, attempts=attempts_before)
    context = JobContext(app=app, job=job, worker_name="test", start_timestamp=0.0, abort_reason=lambda: None)
    task.func(context, **payload, v=1)


def test_one_job_applies_the_report_and_makes_the_candidate_and_one_follow_up(report: dict[str, Any]) -> None:
    att_id, row = _stored_report(report)
    pipeline_tasks.apply_parse_result(parse_result_id=row, payload_version=1)
    att = Attachment.objects.get(pk=att_id)
    assert att.state == "candidate_created" and att.candidate_id is not None
    assert ParseAttempt.objects.get(attachment_id=att_id, attempt_no=1).state == "succeeded"
    assert not ParseResult.objects.filter(pk=row).exists()
    # No candidate job: the step ran inside this one.
    assert _jobs("candidates.create_from_attachment", "attachment_id", att_id) == []
    # One batch for the candidate, holding the dedupe and both index refreshes; none alone.
    [batch] = _jobs("candidates.follow_ups", "candidate_id", att.candidate_id)
    steps = batch["args"]["steps"]
    assert ["candidates.dedupe", {"candidate_id": att.candidate_id}] in steps
    assert ["search.index", {"kind": "candidate", "object_id": att.candidate_id}] in steps
    assert ["search.index", {"kind": "document", "object_id": att_id}] in steps
    assert _batches_naming_document(att_id) == 1
    assert len(steps) == len({str(s) for s in steps})  # each step once
    assert _jobs("candidates.dedupe", "candidate_id", att.candidate_id) == []
    assert _index_jobs("candidate", att.candidate_id) == [] and _index_jobs("document", att_id) == []


def test_failing_candidate_step_keeps_the_parse_and_ends_candidate_failed_through_its_own_job(
    report: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    att_id, row = _stored_report(report)

    def broken(**_: Any) -> None:
        raise RuntimeError("candidate store unavailable")

    monkeypatch.setattr(pipeline_tasks.candidates_api, "candidate_apply_document", broken)
    pipeline_tasks.apply_parse_result(parse_result_id=row, payload_version=1)
    # The report is applied and kept; the step's work rolled back to the savepoint.
    att = Attachment.objects.get(pk=att_id)
    assert att.state == "parsed" and att.candidate_id is None
    assert ParseAttempt.objects.get(attachment_id=att_id, attempt_no=1).state == "succeeded"
    assert [j["status"] for j in _jobs("candidates.create_from_attachment", "attachment_id", att_id)] == ["todo"]
    assert _batches_naming_document(att_id) == 0
    # That job's last attempt failing ends the document candidate_failed with the reason,
    # exactly as before the fold (its exhaustion handler, intake's).
    with pytest.raises(RuntimeError):
        _run_registered("candidates.create_from_attachment", attempts_before=2, attachment_id=att_id)
    att = Attachment.objects.get(pk=att_id)
    assert (att.state, att.reason_code) == ("candidate_failed", "error")
    assert "candidate store unavailable" in att.reason


def test_bad_report_ends_parse_failed_and_no_candidate_work(report: dict[str, Any]) -> None:
    forged = copy.deepcopy(report)
    forged["page_count"] = forged["result"]["pages"] = 999
    att_id, row = _stored_report(forged)
    pipeline_tasks.apply_parse_result(parse_result_id=row, payload_version=1)
    att = Attachment.objects.get(pk=att_id)
    assert (att.state, att.reason_code) == ("parse_failed", "report_rejected")
    assert _jobs("candidates.create_from_attachment", "attachment_id", att_id) == []
    assert att.candidate_id is None


def test_failing_follow_up_step_runs_again_alone_and_the_others_run(
    report: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    att_id, row = _stored_report(report)
    pipeline_tasks.apply_parse_result(parse_result_id=row, payload_version=1)
    cid = Attachment.objects.get(pk=att_id).candidate_id
    [batch] = _jobs("candidates.follow_ups", "candidate_id", cid)
    from ats.search import services as search_services
    from ats.search.models import SearchEntry

    real_refresh = search_services.search_entry_refresh

    def refresh(*, kind: str, object_id: int) -> str:
        if kind == "document":
            raise RuntimeError("index unavailable")
        return real_refresh(kind=kind, object_id=object_id)

    monkeypatch.setattr(search_services, "search_entry_refresh", refresh)
    pipeline_tasks.follow_ups(candidate_id=cid, steps=batch["args"]["steps"], payload_version=1)
    # The candidate's entry is there; the document's step is its own job now.
    assert SearchEntry.objects.filter(kind="candidate", object_id=cid).exists()
    assert not SearchEntry.objects.filter(kind="document", object_id=att_id).exists()
    assert _index_jobs("document", att_id) == ["todo"]


def test_follow_ups_refuse_steps_they_do_not_batch() -> None:
    from ats.jobs import api as jobs_api

    with pytest.raises(jobs_api.PermanentFailure, match="not batched here"):
        pipeline_tasks.follow_ups(candidate_id=1, steps=[["retention.purge", {}]], payload_version=1)


def test_exhausted_batch_is_split_into_its_steps() -> None:
    steps = [["candidates.dedupe", {"candidate_id": -71}], ["search.index", {"kind": "candidate", "object_id": -71}]]
    with transaction.atomic():
        follow_ups_mod.follow_ups_exhausted(steps=steps, reason_code="error", reason="db down", candidate_id=-71)
    assert [j["status"] for j in _jobs("candidates.dedupe", "candidate_id", -71)] == ["todo"]
    assert _index_jobs("candidate", -71) == ["todo"]


def test_rolled_back_candidate_step_leaves_no_batch() -> None:
    from ats.jobs import api as jobs_api

    with transaction.atomic():
        with pytest.raises(RuntimeError), transaction.atomic(), jobs_api.follow_ups("candidates.dedupe") as batch:
            assert jobs_api.defer("candidates.dedupe", payload={"candidate_id": -72}) is None
            raise RuntimeError("step failed")
        # Outside the block nothing is collected any more: a dedupe defers alone.
        assert jobs_api.defer("candidates.dedupe", payload={"candidate_id": -73}) is not None
    assert batch.steps == [["candidates.dedupe", {"candidate_id": -72}]]
    assert _jobs("candidates.dedupe", "candidate_id", -72) == []


def test_the_apply_job_reads_the_document_once_and_sends_its_jobs_in_one_statement(report: dict[str, Any]) -> None:
    """Issue 26, round trips of the apply hop: the parse attempt is recorded by one UPDATE,
    the document row the report apply locked is the one the candidate step uses (not
    locked again), its candidate link is read once, an upload reads no mail companions,
    its kind goes in with its link, a candidate made here follows no merges and looks for
    no other applications, and the application's score job goes out with the follow-ups
    in one statement - with the same rows and jobs as the long way."""
    from django.test.utils import CaptureQueriesContext

    from ats.intake.models import RawIntake
    from ats.scoring.models import Application
    from tests.scoring.helpers import requisition

    req = requisition()
    att_id, row = _stored_report(report)
    raw_id = Attachment.objects.get(pk=att_id).raw_intake_id
    RawIntake.objects.filter(pk=raw_id).update(channel="upload", metadata={"requisition_id": req.requisition_id})
    with CaptureQueriesContext(connection) as q:
        pipeline_tasks.apply_parse_result(parse_result_id=row, payload_version=1)
    sql = [x["sql"] for x in q.captured_queries]

    def count(*parts: str) -> int:
        return sum(1 for s in sql if all(p in s for p in parts))

    att = Attachment.objects.get(pk=att_id)
    assert att.state == "candidate_created" and att.candidate_id is not None
    [app] = Application.objects.filter(candidate_id=att.candidate_id)
    assert app.requisition_id == req.requisition_id and app.state == "applied"
    assert [j["status"] for j in _jobs("scoring.score_application", "application_id", app.pk)] == ["todo"]
    [batch] = _jobs("candidates.follow_ups", "candidate_id", att.candidate_id)
    assert batch["status"] == "todo"
    locks = [s for s in sql if 'FROM "intake_attachment"' in s and "FOR NO KEY UPDATE" in s]
    assert len(locks) == 1, locks
    # The only plain read of the document: its requisitions (and its duplicates').
    assert count('FROM "intake_attachment"', '"duplicate_of_id" = ') == 1
    assert count('FROM "intake_attachment"') == 2, [s for s in sql if 'FROM "intake_attachment"' in s]
    assert count('FROM "candidates_document"') == 1
    assert count('FROM "intake_parse_attempt"') == 0  # recorded by one conditional UPDATE
    assert count('FROM "candidates_candidate"') == 0  # no merge to follow on a candidate made here
    assert count('FROM "scoring_application"') == 0  # inserted with RETURNING; no others looked for
    assert count("procrastinate_defer_jobs") == 1
    # Its kind is written with its link to the candidate, not by an UPDATE after.
    assert count('UPDATE "candidates_document"') == 0
    from ats.candidates.models import CandidateDocument

    assert CandidateDocument.objects.get(attachment_id=att_id).kind == "cv"
