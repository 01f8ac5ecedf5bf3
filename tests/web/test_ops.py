"""The ops console: its figures come from procrastinate's tables, its actions go through
the job manager (or the document's own action) and are audited."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.db import connection

from ats.jobs import api as jobs_api
from ats.jobs import ops_api as jobs_ops
from tests.jobs.helpers import defer, job, token
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


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
        return next(q for q in jobs_ops.queue_overview() if q["queue"] == "ingest")

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
        task = next((t for t in jobs_ops.task_stats() if t["task_name"] == "tests.slow_marker"), None)
        queue = next(
            (q for q in jobs_ops.queue_overview() if q["queue"] == "test"), {"failed_15m": 0, "throughput_per_min": 0}
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
    rows = jobs_ops.job_search(jobs_ops.JobFilter(args_key="attachment_id", args_value=str(att.pk)))
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
    assert "retried" in [e["type"] for e in jobs_ops.job_detail(jid)["events"]]  # type: ignore[index]
    with connection.cursor() as cur:  # leave no runnable job behind for other tests' workers
        cur.execute("UPDATE procrastinate_jobs SET status = 'cancelled' WHERE id = %s", [jid])


def test_retry_of_a_document_job_goes_through_the_document_action(login: Any) -> None:
    att = helpers.parse_failed()
    [parse_job] = jobs_ops.job_search(jobs_ops.JobFilter(task_name="intake.parse_attachment", args_key="attachment_id",
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
    # Again: the document has moved on, so the retry is refused - as a refusal, not a success.
    page = c.get(c.post(f"/ops/jobs/{parse_job['id']}/retry")["Location"]).content.decode()
    assert '<li class="msg-error">Not retried: document' in page
    assert "a retry would change nothing" in page and "msg-success" not in page
    assert helpers.jobs_for(att.pk, helpers.PARSE).count("todo") == 1
    # And the job page no longer offers a Retry that would do nothing; it says why instead.
    page = c.get(f"/ops/jobs/{parse_job['id']}").content.decode()
    assert 'id="job-retry"' not in page and 'id="job-retry-refusal"' in page


def test_a_job_a_document_waits_for_cannot_be_cancelled(login: Any) -> None:
    att = helpers.received()
    [ingest] = jobs_ops.job_search(jobs_ops.JobFilter(args_key="attachment_id", args_value=str(att.pk)))
    c = login("operator")
    page = c.get(c.post(f"/ops/jobs/{ingest['id']}/cancel")["Location"]).content.decode()
    assert "cancelling it would lose the document" in page and job(ingest["id"])["status"] == "todo"
    assert _job_audit(ingest["id"]) == []
    helpers.finish_ingest(att)


def _run_failing_attempt(job_id: int, exc: BaseException) -> None:
    """The machinery's own record calls, for a job held by a registered worker (what a
    worker process does around a run; tests/jobs/test_queue_caps.py runs a real one)."""
    from procrastinate.jobs import Job

    from ats.jobs import attempts

    with connection.cursor() as cur:
        cur.execute("SELECT procrastinate_register_worker_v1()")
        worker_id = cur.fetchone()[0]
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = %s", [worker_id, job_id])
    held = Job(
        id=job_id, queue="test", lock=None, queueing_lock=None, task_name="tests.slow_marker", worker_id=worker_id
    )
    attempts.record_start(held, 1, "worker-default-test")
    try:
        raise exc
    except type(exc) as raised:
        attempts.record_failure(held, 1, "worker-default-test", raised)
    with connection.cursor() as cur:
        cur.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [job_id])


def test_a_failed_jobs_page_and_api_show_each_attempts_error(login: Any) -> None:
    jid = defer("tests.slow_marker", token=token(), seconds=0)
    _run_failing_attempt(jid, ValueError("no page in Ann_Smith.docx for ann@example.com"))
    c = login("operator")
    body = c.get(f"/api/jobs/{jid}").json()
    assert body["attempts"] == 1 and len(body["attempt_log"]) == 1  # the count stays
    [a] = body["attempt_log"]
    assert a["error"] == "ValueError: no page in <file> for <email>"
    assert a["status"] == "failed" and a["worker"] == "worker-default-test" and a["ended_at"]
    assert "_run_failing_attempt" in a["traceback"] and "Ann" not in a["traceback"]
    page = c.get(f"/ops/jobs/{jid}").content.decode()
    assert "ValueError: no page in &lt;file&gt; for &lt;email&gt;" in page and "Traceback" in page
    # Arguments as JSON (double quotes), not a Python repr.
    assert "&quot;seconds&quot;: 0" in page and "&#x27;seconds&#x27;" not in page


def test_operator_opens_a_jobs_document_as_a_redacted_view(login: Any) -> None:
    att = helpers.received(name="Maria_Lopez_CV.pdf")
    [ingest] = jobs_ops.job_search(jobs_ops.JobFilter(args_key="attachment_id", args_value=str(att.pk)))
    c = login("operator")
    page = c.get(f"/ops/jobs/{ingest['id']}").content.decode()
    assert f'href="/ops/documents/{att.pk}"' in page
    res = c.get(f"/ops/documents/{att.pk}")
    assert res.status_code == 200
    doc = res.content.decode()
    assert 'id="doc-state"' in doc and "intake.ingest_attachment" in doc  # state and timeline
    assert "Maria" not in doc and "Lopez" not in doc
    assert c.get(f"/documents/{att.pk}").status_code == 403  # the recruiter's page stays closed
    helpers.finish_ingest(att)


def test_pause_and_resume_a_queue_from_the_console(login: Any, users: dict[str, Any]) -> None:
    c = login("operator")
    page = c.get(c.post("/ops/queues/parse/pause")["Location"]).content.decode()
    assert "Queue parse paused" in page
    assert "parse" in jobs_ops.paused_queues()
    assert 'aria-label="Resume queue parse"' in page
    with connection.cursor() as cur:
        cur.execute("SELECT action, actor FROM audit_event WHERE object_type = 'queue' ORDER BY id DESC LIMIT 1")
        assert cur.fetchone() == ("jobs.queue_pause", f"user:{users['operator'].pk}")
    page = c.get(c.post("/ops/queues/parse/resume")["Location"]).content.decode()
    assert "Queue parse resumed" in page and "parse" not in jobs_ops.paused_queues()
    assert c.post("/ops/queues/nosuch/pause").status_code == 303
    assert login("recruiter").post("/ops/queues/parse/pause").status_code == 403
    assert "parse" not in jobs_ops.paused_queues()


def test_job_list_has_status_tabs_with_counts_and_pages_past_the_old_cap(login: Any) -> None:
    from django.db import transaction

    tok = token()
    with transaction.atomic():
        ids = [jobs_api.defer("tests.slow_marker", payload={"token": tok, "seconds": 0}) for _ in range(105)]
    _fail(ids[0])
    c = login("operator")
    page = c.get(f"/ops/jobs/?args=token%3D{tok}").content.decode()
    assert page.count('<th scope="row"><a href="/ops/jobs/') == 100
    assert 'data-status="todo">todo <span class="count">104</span>' in page
    assert 'data-status="failed">failed <span class="count">1</span>' in page
    assert 'data-status="all">all <span class="count">105</span>' in page
    assert "&quot;token&quot;: " in page  # arguments as JSON
    older = re.search(r'href="([^"]+)" id="jobs-older"', page)
    assert older is not None
    rest = c.get("/ops/jobs/" + html.unescape(older.group(1))).content.decode()
    assert rest.count('<th scope="row"><a href="/ops/jobs/') == 5 and 'id="jobs-older"' not in rest
    shown = set(map(int, re.findall(r'<a href="/ops/jobs/(\d+)">', page + rest)))
    assert shown == {i for i in ids if i is not None}  # every job reachable, none twice
    failed_tab = c.get(f"/ops/jobs/?args=token%3D{tok}&status=failed").content.decode()
    assert failed_tab.count('<th scope="row"><a href="/ops/jobs/') == 1
    with connection.cursor() as cur:  # leave no runnable job behind for other tests' workers
        cur.execute("UPDATE procrastinate_jobs SET status = 'cancelled' WHERE id = ANY(%s)", [ids])
