"""ADR 0004 convention 2: a job exists if and only if the row that needs it committed."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import connection, transaction

from ats.audit.models import AuditEvent
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from tests.shared_stack import module_stack_fixtures

# The two real-worker cases share one pair of workers (tests/shared_stack.py). They are the
# module's last tests, so no worker-less test here runs while the pair is up.
_module_stack, stack = module_stack_fixtures()


def _jobs_for(key: str, value: int) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM procrastinate_jobs WHERE args->>%s = %s", [key, str(value)])
        return int(cur.fetchone()[0])


def _ingest_jobs_of_raw(raw_id: int) -> int:
    ids = list(intake_api.Attachment.objects.filter(raw_intake_id=raw_id).values_list("pk", flat=True))
    return sum(_jobs_for("attachment_id", i) for i in ids)


class Boom(Exception):
    pass


@pytest.mark.django_db(transaction=True)
def test_facade_rollback_leaves_zero_rows_and_zero_jobs() -> None:
    before_jobs = _count_all_jobs()
    with pytest.raises(Boom), transaction.atomic():
        intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile("cv.pdf", b"%PDF-1.7 x")])
        assert _count_all_jobs() == before_jobs + 1  # visible inside the transaction
        raise Boom
    assert intake_api.RawIntake.objects.count() == 0
    assert intake_api.Attachment.objects.count() == 0
    assert _count_all_jobs() == before_jobs


@pytest.mark.django_db(transaction=True)
def test_facade_commit_leaves_one_row_and_one_job() -> None:
    raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile("cv.pdf", b"%PDF-1.7 x")])
    assert intake_api.RawIntake.objects.filter(pk=raw.pk).count() == 1
    assert _ingest_jobs_of_raw(raw.pk) == 1


def _count_all_jobs() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM procrastinate_jobs")
        return int(cur.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_defer_outside_a_transaction_is_refused() -> None:
    with pytest.raises(jobs_api.NotInTransaction):
        jobs_api.defer("candidates.create_from_attachment", payload={"attachment_id": 1})


def _wait_job_final(job_id: int, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cur:
            cur.execute("SELECT status::text FROM procrastinate_jobs WHERE id = %s", [job_id])
            status = cur.fetchone()[0]
        if status in ("succeeded", "failed"):
            return str(status)
        time.sleep(0.1)
    raise TimeoutError(f"job {job_id} still not finished")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("outcome", "rows", "jobs", "status"), [("raise", 0, 0, "failed"), ("succeed", 1, 1, "succeeded")]
)
def test_defer_inside_a_real_worker_task_is_transactional(
    stack: dict[str, Any], outcome: str, rows: int, jobs: int, status: str
) -> None:
    """The worker swaps procrastinate's connector for its own pool; our defer must still
    join the task's ORM transaction (0/0 when the task raises, 1/1 when it succeeds)."""
    from procrastinate.contrib.django import app

    token = int(time.time() * 1000) % 1_000_000_000 + (0 if outcome == "raise" else 1)
    job_id = app.configure_task("tests.write_defer_then").defer(token=token, outcome=outcome)
    assert _wait_job_final(job_id) == status
    assert AuditEvent.objects.filter(action="test.marker", object_id=str(token)).count() == rows
    assert _jobs_for("attachment_id", -token) == jobs
