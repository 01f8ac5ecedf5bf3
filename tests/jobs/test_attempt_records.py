"""A run's success is recorded by procrastinate's finish (issue 26 item 1, jobs migration
0005): the task wrapper sends the start (and a failure's end, with its error text), never
a success of its own; the finish that moves the job `doing` -> `succeeded` closes the run
in the same statement. A failure record is never overwritten, a retry is no success."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection
from procrastinate.contrib.django import app as procrastinate_app

from ats.jobs import attempts
from tests.jobs.helpers import defer, token

pytestmark = pytest.mark.django_db


@pytest.fixture
def worker_id() -> Iterator[int]:
    with connection.cursor() as cur:
        cur.execute("SELECT procrastinate_register_worker_v1()")
        wid = int(cur.fetchone()[0])
    yield wid
    with connection.cursor() as cur:
        cur.execute("SELECT procrastinate_unregister_worker_v1(%s)", [wid])


def _sql(sql: str, params: list[Any]) -> None:
    with connection.cursor() as cur:
        cur.execute(sql, params)


def _take(job_id: int, wid: int) -> SimpleNamespace:
    """The job as a worker's fetch leaves it (`doing` on the worker; the table's owner, so
    by hand: ats_jobs_fetch_v1 would take the queue's head)."""
    _sql("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = %s", [wid, job_id])
    with connection.cursor() as cur:
        cur.execute("SELECT attempts FROM procrastinate_jobs WHERE id = %s", [job_id])
        (done,) = cur.fetchone()
    return SimpleNamespace(id=job_id, worker_id=wid, attempts=done)


def _runs(job_id: int) -> list[tuple[Any, ...]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT attempt, status, ended_at IS NOT NULL, error, traceback FROM jobs_attempt"
            " WHERE job_id = %s ORDER BY attempt",
            [job_id],
        )
        return [tuple(r) for r in cur.fetchall()]


def test_the_wrapper_sends_no_success_record_of_its_own(monkeypatch: pytest.MonkeyPatch, worker_id: int) -> None:
    sent: list[str] = []
    monkeypatch.setattr(attempts, "_send", lambda args: sent.append(args[3]))
    ok = defer("tests.slow_marker", token=token(), seconds=0)
    context = SimpleNamespace(job=_take(ok, worker_id), worker_name="w")
    procrastinate_app.tasks["tests.slow_marker"].func(context, token=token(), seconds=0)
    assert sent == ["start"]  # one round trip: the finish records the success

    sent.clear()
    bad = defer("tests.fail_with_pii", token=token(), succeed_on=9)
    context = SimpleNamespace(job=_take(bad, worker_id), worker_name="w")
    with pytest.raises(Exception, match="could not read"):
        procrastinate_app.tasks["tests.fail_with_pii"].func(context, token=token(), succeed_on=9)
    assert sent == ["start", "failed"]  # a failure keeps its explicit record (error text)


def test_the_finish_closes_the_run_as_succeeded(worker_id: int) -> None:
    job_id = defer("tests.slow_marker", token=token(), seconds=0)
    attempts.record_start(_take(job_id, worker_id), 1, "w")
    assert _runs(job_id) == [(1, "running", False, "", "")]
    _sql("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [job_id])
    assert _runs(job_id) == [(1, "succeeded", True, "", "")]


def test_a_failure_is_kept_and_a_retry_is_no_success(worker_id: int) -> None:
    job_id = defer("tests.slow_marker", token=token(), seconds=0)
    first = _take(job_id, worker_id)
    attempts.record_start(first, 1, "w")
    attempts.record_failure(first, 1, "w", RuntimeError("boom"))
    _sql("SELECT procrastinate_retry_job_v2(%s, now(), NULL, NULL, NULL)", [job_id])
    [(n, status, ended, error, _tb)] = _runs(job_id)
    assert (n, status, ended, error) == (1, "failed", True, "RuntimeError: boom")

    # A run whose end was never written (its failure record could not be sent) and whose
    # job goes back to `todo` stays open: the next run's start closes it as lost.
    second = _take(job_id, worker_id)
    attempts.record_start(second, 2, "w")
    _sql("SELECT procrastinate_retry_job_v2(%s, now(), NULL, NULL, NULL)", [job_id])
    assert [r[:2] for r in _runs(job_id)] == [(1, "failed"), (2, "running")]

    third = _take(job_id, worker_id)
    attempts.record_start(third, 3, "w")
    _sql("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [job_id])
    runs = _runs(job_id)
    assert [r[:2] for r in runs] == [(1, "failed"), (2, "lost"), (3, "succeeded")]
    assert runs[0][3] == "RuntimeError: boom"  # the failure's text is not overwritten


def test_only_a_run_still_open_is_closed(worker_id: int) -> None:
    # A failed run whose job is then finished as succeeded (never by the wrapper; by hand
    # here) keeps its failure; a job finished `failed` closes nothing as a success.
    job_id = defer("tests.slow_marker", token=token(), seconds=0)
    run = _take(job_id, worker_id)
    attempts.record_start(run, 1, "w")
    attempts.record_failure(run, 1, "w", RuntimeError("boom"))
    _sql("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [job_id])
    assert [r[:4] for r in _runs(job_id)] == [(1, "failed", True, "RuntimeError: boom")]

    other = defer("tests.slow_marker", token=token(), seconds=0)
    attempts.record_start(_take(other, worker_id), 1, "w")
    _sql("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [other])
    assert [r[:2] for r in _runs(other)] == [(1, "running")]  # the rescue's or the next start's to close
