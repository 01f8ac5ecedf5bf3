"""Structured logs: a web request's id follows the document into every job it causes,
each job line carries job id, task, attempt and the payload's ids, old-shape (v1) jobs
still run, and a CV's e-mail address and phone number never reach any log."""

from __future__ import annotations

import contextlib
import io
import json
import logging
from io import BytesIO
from typing import Any

import pytest
import structlog
from django.db import connection, transaction

from tests import corpus
from tests.jobs.helpers import wait_for, wait_status

pytestmark = pytest.mark.django_db(transaction=True)
LOG_ENV = {"ATS_PROCRASTINATE_LOG_LEVEL": "INFO", "ATS_LOG_FORMAT": "json"}


def _json_lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
    return out


def _job_args(task_name: str, attachment_id: int) -> list[dict[str, Any]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT args FROM procrastinate_jobs WHERE task_name = %s AND (args->>'attachment_id')::bigint = %s",
            [task_name, attachment_id],
        )
        return [a if isinstance(a, dict) else json.loads(a) for (a,) in cur.fetchall()]


@pytest.mark.slow
def test_request_id_follows_the_cv_and_its_personal_data_stays_out_of_logs(
    start_worker: Any, client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from ats.iam import api as iam_api
    from ats.intake import api as intake_api

    caplog.set_level(logging.DEBUG)
    iam_api.user_create(username="rec-logs", password="pw-rec-123456", role="recruiter")
    client.login(username="rec-logs", password="pw-rec-123456")
    res = client.post(
        "/api/intake/upload", {"files": [BytesIO(corpus.text_pdf())]}, format="multipart", HTTP_X_REQUEST_ID="req-cv-1"
    )
    assert res.status_code == 201 and res["X-Request-ID"] == "req-cv-1"
    att_id = json.loads(res.content)["attachments"][0]["attachment_id"]
    [ingest_args] = _job_args("intake.ingest_attachment", att_id)
    assert (ingest_args["v"], ingest_args["rid"]) == (2, "req-cv-1")

    default = start_worker("default", env=LOG_ENV)
    untrusted = start_worker("untrusted", env=LOG_ENV)
    wait_for(
        lambda: intake_api.Attachment.objects.get(pk=att_id).state == "candidate_created", 90, "the CV's candidate"
    )
    # The parse job was deferred by the ingest job: the request id travelled with it.
    assert [a.get("rid") for a in _job_args("intake.parse_attachment", att_id)] == ["req-cv-1"]

    default_log, untrusted_log = default.tail(10**7), untrusted.tail(10**7)
    lines = _json_lines(default_log) + _json_lines(untrusted_log)
    job_lines = [ln for ln in lines if ln.get("attachment_id") == att_id]
    tasks = {ln.get("task") for ln in job_lines if ln.get("request_id") == "req-cv-1"}
    assert {"intake.ingest_attachment", "intake.parse_attachment"} <= tasks, job_lines
    for ln in job_lines:
        assert {"job_id", "task", "attempt", "queue", "timestamp", "level"} <= set(ln), ln

    captured = "\n".join([default_log, untrusted_log, caplog.text, *(r.getMessage() for r in caplog.records)])
    phone_digits = "".join(ch for ch in corpus.CANDIDATE_PHONE if ch.isdigit())
    for needle in (corpus.CANDIDATE_EMAIL, corpus.CANDIDATE_PHONE, phone_digits, "7946 0958"):
        assert needle not in captured, f"{needle!r} reached the logs"
    assert len(captured) > 1000  # the logs were really captured (not a vacuous pass)


def test_lines_inside_a_job_carry_its_ids_and_the_request_id() -> None:
    from procrastinate import JobContext
    from procrastinate.contrib.django import app
    from procrastinate.jobs import Job

    from ats.jobs import api as jobs_api
    from ats.jobs.data import Backoff, TaskPolicy
    from ats.jobs.policy import register_test_policy
    from ats.observability.logs import formatter

    register_test_policy(
        TaskPolicy(
            "tests.log_probe",
            "test",
            "test",
            attempts=2,
            backoff=Backoff(0, 0),
            timeout_s=10,
            on_exhaustion="-",
            adr_row=False,
            payload_version=2,
            request_id_since=2,
        )
    )

    @jobs_api.task("tests.log_probe")
    def probe(*, attachment_id: int, payload_version: int) -> None:
        logging.getLogger("ats.test").warning("inside the job")
        structlog.get_logger("ats.test").info("structlog inside the job", size=3)

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        job = Job(id=77, queue="test", lock=None, queueing_lock=None, task_name="tests.log_probe", attempts=1)
        ctx = JobContext(app=app, job=job, worker_name="t", start_timestamp=0.0, abort_reason=lambda: None)
        task = app.tasks["tests.log_probe"]
        task.func(ctx, attachment_id=5, v=2, rid="req-42")  # current shape
        task.func(ctx, attachment_id=6, v=1)  # the previous shape (queued before the deploy) still runs
    finally:
        root.removeHandler(handler)
    lines = _json_lines(stream.getvalue())
    assert len(lines) == 4, stream.getvalue()
    first = lines[0]
    assert first["event"] == "inside the job"
    assert (first["job_id"], first["task"], first["attempt"], first["attachment_id"]) == (77, "tests.log_probe", 2, 5)
    assert first["request_id"] == "req-42" and lines[1]["request_id"] == "req-42"
    assert lines[2]["attachment_id"] == 6 and "request_id" not in lines[2]


def test_defer_carries_the_request_id_only_for_tasks_whose_payload_version_has_it() -> None:
    from ats.jobs import api as jobs_api

    with structlog.contextvars.bound_contextvars(request_id="req-defer"), transaction.atomic():
        ingest = jobs_api.defer("intake.ingest_attachment", payload={"attachment_id": -901})
        other = jobs_api.defer("candidates.create_from_attachment", payload={"attachment_id": -902})
    with connection.cursor() as cur:
        cur.execute("SELECT id, args FROM procrastinate_jobs WHERE id = ANY(%s)", [[ingest, other]])
        args = {i: a if isinstance(a, dict) else json.loads(a) for i, a in cur.fetchall()}
        cur.execute("DELETE FROM procrastinate_jobs WHERE id = ANY(%s)", [[ingest, other]])
    assert args[ingest]["rid"] == "req-defer" and args[ingest]["v"] == 2
    assert "rid" not in args[other]


@pytest.mark.slow
def test_old_shape_ingest_job_still_runs(start_worker: Any) -> None:
    """ADR §6: a job queued by the previous release (payload v1, no request id) runs."""
    from ats.intake import api as intake_api

    raw = intake_api.intake_receive(
        channel="upload",
        files=[intake_api.IncomingFile(filename="cv.pdf", data=corpus.text_pdf(), content_type="application/pdf")],
        source_ref="test",
        actor=None,
    )
    [att] = intake_api.raw_intake_attachments(raw.pk)
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE procrastinate_jobs SET args = jsonb_build_object('attachment_id', %s, 'v', 1)"
            " WHERE task_name = 'intake.ingest_attachment' AND (args->>'attachment_id')::bigint = %s RETURNING id",
            [att.pk, att.pk],
        )
        (job_id,) = cur.fetchone()
    start_worker("default", extra=["--queues=ingest"])
    assert wait_status(job_id, {"succeeded", "failed"}, timeout=60)["status"] == "succeeded"
    assert intake_api.Attachment.objects.get(pk=att.pk).state not in {"received", "scan_failed"}
