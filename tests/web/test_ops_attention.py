"""ADR §2 "visible in the product": a degraded mail channel, a halted retention purge
(with a resume action), a failed audit verification and the AI breaker are on the ops
console's "Needs attention"; the recruiter's inbox says when mail stops arriving."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection, transaction

from ats.channels import api as channels_api
from ats.jobs import api as jobs_api
from ats.jobs import ops_api as jobs_ops
from ats.retention import api as retention_api
from ats.retention.models import PurgeRun
from tests.jobs.helpers import job

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


def _fail(job_id: int) -> None:
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [job_id])
        cur.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [job_id])


def _attention(page: str) -> str:
    return page.split('id="attention"', 1)[1].split("</section>", 1)[0]


def test_console_lists_what_needs_a_person_and_resumes_a_halted_purge(login: Any) -> None:
    quiet = _attention(login("operator").get("/ops/").content.decode())
    assert "degraded" not in quiet and "halted" not in quiet and "AI: not configured" in quiet

    channel, _ = channels_api.channel_add(mailbox="jobs-attn@example.com")
    with transaction.atomic():
        channels_api.channel_mark_degraded(channel_id=channel.id, reason="graph said 401 for ann.smith@example.org")
    PurgeRun.objects.create(
        state=retention_api.PurgeState.HALTED, halted_at=4242, error="blob delete failed: ann.smith@example.org"
    )
    with transaction.atomic():
        audit_job = jobs_api.defer("audit.verify", payload={"timestamp": 1})
    assert audit_job is not None
    _fail(audit_job)

    page = login("operator").get("/ops/").content.decode()
    box = _attention(page)
    assert "Mail channel <strong>jobs-attn@example.com</strong>" in box and "Next poll" in box
    assert "retention purge is halted</strong> at subject candidate #4242" in box
    assert "ann.smith@example.org" not in box  # scrubbed: operators see no personal data
    assert "Audit hash-chain verification failed" in box and f"job {audit_job}" in box
    assert 'id="purge-resume"' in box

    ro = login("operator_readonly")
    assert 'id="purge-resume"' not in _attention(ro.get("/ops/").content.decode())
    assert ro.post("/ops/retention/resume").status_code == 403

    res = login("operator").post("/ops/retention/resume")
    assert res.status_code == 303
    with connection.cursor() as cur:
        cur.execute("SELECT id FROM procrastinate_jobs WHERE task_name = 'retention.purge' AND status = 'todo'")
        [(purge_job,)] = cur.fetchall()
        cur.execute("SELECT payload FROM audit_event WHERE action = 'retention.purge_resume' ORDER BY id DESC")
        payload = cur.fetchone()[0]
    assert (json.loads(payload) if isinstance(payload, str) else payload)["job_id"] == purge_job
    assert job(purge_job)["status"] == "todo"
    jobs_ops.job_cancel(job_id=purge_job)

    inbox = login("recruiter").get("/").content.decode()
    assert f'id="channel-degraded-{channel.id}"' in inbox and "jobs-attn@example.com" in inbox
