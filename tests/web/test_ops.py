"""The ops console: its figures come from procrastinate's tables, its actions go through
the job manager (or the document's own action) and are audited."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from ats.jobs import api as jobs_api
from tests.jobs.helpers import defer, job, token
from tests.web import helpers

pytestmark = pytest.mark.django_db(transaction=True)


def _fail(job_id: int) -> None:
    """Test set-up only: put a job in `failed` as a worker whose attempts ran out would."""
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [job_id])
        cur.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [job_id])


def _job_audit(job_id: int) -> list[tuple[str, str]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT action, actor FROM audit_event WHERE object_type = 'job' AND object_id = %s ORDER BY id",
            [str(job_id)],
        )
        return [(a, b) for a, b in cur.fetchall()]


def test_console_shows_queues_tasks_periodic_and_lost_count(login: Any) -> None:
    from ats.intake import api as intake_api

    def ingest() -> dict[str, Any]:
        return next(q for q in jobs_api.queue_overview() if q["queue"] == "ingest")

    before = ingest()["todo"]
    waiting = helpers.received()  # one more todo ingest job
    intake_api.verification_run_record()
    page = login("operator").get("/ops/").content.decode()
    for section in ("Queues", "Task classes", "Workers", "Stalled jobs", "Periodic schedule"):
        assert section in page
    assert "jobs.rescue_and_sweep" in page and "intake.verify_documents" in page  # periodic rows
    assert 'id="lost-count">0<' in page
    assert ingest()["todo"] == before + 1 and ingest()["oldest_pending_age_s"] is not None
    helpers.finish_ingest(waiting)


def test_task_stats_measure_runs_failures_and_durations() -> None:
    def stats() -> tuple[dict[str, Any], dict[str, Any]]:
        task = next((t for t in jobs_api.task_stats() if t["task_name"] == "tests.slow_marker"), None)
        queue = next(
            (q for q in jobs_api.queue_overview() if q["queue"] == "test"), {"failed_15m": 0, "throughput_per_min": 0}
        )
        return task or {"runs": 0, "failed_runs": 0}, queue

    task0, queue0 = stats()  # earlier tests in the session may have run this task
    ids = [defer("tests.slow_marker", token=token(), seconds=0) for _ in range(4)]
    with connection.cursor() as cur:
        for i, jid in enumerate(ids):  # each job starts (event 'started') and finishes
            cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [jid])
            cur.execute("SELECT procrastinate_finish_job_v1(%s, %s, false)", [jid, "failed" if i == 0 else "succeeded"])
    task, queue = stats()
    assert task["runs"] - task0["runs"] == 4 and task["failed_runs"] - task0["failed_runs"] == 1
    assert task["failure_rate"] == round(task["failed_runs"] / task["runs"], 4)
    assert task["p50_s"] is not None and task["p95_s"] >= task["p50_s"] >= 0
    assert queue["failed_15m"] - queue0["failed_15m"] == 1
    assert round(queue["throughput_per_min"] - queue0["throughput_per_min"], 2) == 0.8  # 4 finished / 5 min


def test_job_search_by_args_key(login: Any) -> None:
    att = helpers.received()
    rows = jobs_api.job_search(jobs_api.JobFilter(args_key="attachment_id", args_value=str(att.pk)))
    assert [r["task_name"] for r in rows] == ["intake.ingest_attachment"]
    page = login("operator").get(f"/ops/jobs/?args=attachment_id%3D{att.pk}").content.decode()
    assert f'href="/ops/jobs/{rows[0]["id"]}"' in page
    page = login("operator").get(f"/ops/jobs/{rows[0]['id']}").content.decode()
    assert "deferred" in page and "Cancel this waiting job" in page
    helpers.finish_ingest(att)


def test_cancel_a_waiting_job_is_audited_and_a_running_one_is_refused(login: Any, users: dict[str, Any]) -> None:
    jid = defer("tests.slow_marker", token=token(), seconds=0)
    c = login("operator")
    res = c.post(f"/ops/jobs/{jid}/cancel")
    assert res.status_code == 303 and job(jid)["status"] == "cancelled"
    assert _job_audit(jid) == [("jobs.cancel", f"user:{users['operator'].pk}")]
    page = c.get(c.post(f"/ops/jobs/{jid}/cancel")["Location"]).content.decode()
    assert "only a waiting job can be cancelled" in page
    assert len(_job_audit(jid)) == 1


def test_retry_a_failed_job_without_a_document(login: Any) -> None:
    jid = defer("tests.slow_marker", token=token(), seconds=0)
    _fail(jid)
    c = login("admin")
    page = c.get(c.post(f"/ops/jobs/{jid}/retry")["Location"]).content.decode()
    assert f"Job {jid} retried." in page and job(jid)["status"] == "todo"
    assert "retried" in [e["type"] for e in jobs_api.job_detail(jid)["events"]]  # type: ignore[index]
    with connection.cursor() as cur:  # leave no runnable job behind for other tests' workers
        cur.execute("UPDATE procrastinate_jobs SET status = 'cancelled' WHERE id = %s", [jid])


def test_retry_of_a_document_job_goes_through_the_document_action(login: Any) -> None:
    att = helpers.parse_failed()
    [parse_job] = jobs_api.job_search(jobs_api.JobFilter(task_name="intake.parse_attachment", args_key="attachment_id",
                                                          args_value=str(att.pk)))  # fmt: skip
    _fail(parse_job["id"])
    c = login("operator")
    res = c.post(f"/ops/jobs/{parse_job['id']}/retry")
    assert res.status_code == 303, res.content
    page = c.get(res["Location"]).content.decode()
    assert "Retried through the document&#x27;s action (reparse)" in page
    att = helpers.reload(att)
    assert att.state == "promoted" and att.parse_attempts_requested == 2
    assert job(parse_job["id"])["status"] == "failed"  # the old job is history; a new one does the work
    assert helpers.jobs_for(att.pk, helpers.PARSE)[-1] == "todo"
    # Again: the document has moved on, so the retry is a no-op and says so.
    page = c.get(c.post(f"/ops/jobs/{parse_job['id']}/retry")["Location"]).content.decode()
    assert "a retry would change nothing (no-op)" in page
    assert helpers.jobs_for(att.pk, helpers.PARSE).count("todo") == 1


def test_a_job_a_document_waits_for_cannot_be_cancelled(login: Any) -> None:
    att = helpers.received()
    [ingest] = jobs_api.job_search(jobs_api.JobFilter(args_key="attachment_id", args_value=str(att.pk)))
    c = login("operator")
    page = c.get(c.post(f"/ops/jobs/{ingest['id']}/cancel")["Location"]).content.decode()
    assert "cancelling it would lose the document" in page and job(ingest["id"])["status"] == "todo"
    assert _job_audit(ingest["id"]) == []
    helpers.finish_ingest(att)
