"""The per-minute rollup behind the console's charts: folded from procrastinate's events
by the periodic job, read back in buckets, kept 7 days, re-folded for late commits."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection

from ats.jobs import rollup
from ats.jobs.policy import PERIODIC_BY_TASK, policy_for

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime.datetime(2026, 11, 30, 10, 0, tzinfo=datetime.UTC)


def finished_job(
    *, queue: str, deferred: datetime.datetime, wait_s: float, run_s: float, outcome: str = "succeeded"
) -> int:
    """A job with its event history, as a worker leaves it (no trigger fires for a row
    inserted already finished, so the events are exactly these three)."""
    started = deferred + datetime.timedelta(seconds=wait_s)
    ended = started + datetime.timedelta(seconds=run_s)
    with connection.cursor() as cur:
        cur.execute(
            """INSERT INTO procrastinate_jobs (queue_name, task_name, status, args, attempts)
               VALUES (%s, 'tests.rollup', %s, '{}', 1) RETURNING id""",
            [queue, outcome],
        )
        (job_id,) = cur.fetchone()
        cur.executemany(
            "INSERT INTO procrastinate_events (job_id, type, at) VALUES (%s, %s, %s)",
            [(job_id, "deferred", deferred), (job_id, "started", started), (job_id, outcome, ended)],
        )
    return int(job_id)


def _rows(queue: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cur:
        cur.execute(
            """SELECT minute, finished, failures, started, pickup_p50_s, run_p95_s
                 FROM jobs_queue_minute WHERE queue = %s AND finished + failures + started > 0 ORDER BY minute""",
            [queue],
        )
        return list(cur.fetchall())


def test_the_rollup_is_a_periodic_maintenance_job_in_the_policy_table() -> None:
    p = policy_for("jobs.rollup_minutes")
    assert (p.queue, p.attempts, p.lock) == ("maintenance", 1, "jobs:rollup")
    assert PERIODIC_BY_TASK["jobs.rollup_minutes"].cron == "* * * * *"


# Queues of their own: procrastinate's tables outlive each test, so other tests' jobs
# (real queues, real times) must not change these counts.
QA, QB = "tests-rollup-a", "tests-rollup-b"


def test_minutes_are_folded_from_events_and_read_back_in_buckets() -> None:
    for i in range(4):  # four runs ending in 10:01, pickups 2 s, runs 1..4 s
        finished_job(queue=QA, deferred=T0 + datetime.timedelta(seconds=10 * i), wait_s=2, run_s=60 + i)
    finished_job(queue=QA, deferred=T0 + datetime.timedelta(minutes=5), wait_s=1, run_s=1, outcome="failed")
    rollup.rollup_minutes(now=T0 + datetime.timedelta(minutes=10))
    rows = _rows(QA)
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        (T0, 0, 0, 4),  # four started in 10:00
        (T0 + datetime.timedelta(minutes=1), 4, 0, 0),  # and ended in 10:01
        (T0 + datetime.timedelta(minutes=5), 1, 1, 1),  # the failure starts and ends in 10:05
    ]
    assert rows[0][4] == pytest.approx(2.0)
    assert rows[1][5] == pytest.approx(62.85, abs=0.01)
    # Depth is sampled for the minute just closed: the waiting jobs of each real queue.
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM procrastinate_jobs WHERE queue_name = 'ingest' AND status = 'todo'")
        (waiting,) = cur.fetchone()
        closed = T0.replace(minute=9)
        cur.execute("SELECT depth FROM jobs_queue_minute WHERE queue = 'ingest' AND minute = %s", [closed])
        assert cur.fetchone() == (waiting,)

    series = rollup.chart_series(queue=QA, range_key="24h", now=T0 + datetime.timedelta(minutes=10))
    assert len(series["buckets"]) == 96
    assert sum(b["finished"] for b in series["buckets"]) == 5
    assert sum(b["failures"] for b in series["buckets"]) == 1
    hour = rollup.chart_series(queue=QA, range_key="1h", now=T0 + datetime.timedelta(minutes=10))
    assert len(hour["buckets"]) == 60 and sum(b["finished"] for b in hour["buckets"]) == 5
    assert rollup.chart_series(queue="parse", range_key="7d", now=T0)["buckets"][-1]["finished"] == 0


def test_a_late_commit_in_a_closed_minute_is_folded_on_the_next_run_and_old_rows_go() -> None:
    rollup.rollup_minutes(now=T0 + datetime.timedelta(minutes=10))
    # Committed after that run, stamped in 10:08 (a slow transaction).
    finished_job(queue=QB, deferred=T0 + datetime.timedelta(minutes=8), wait_s=1, run_s=1)
    rollup.rollup_minutes(now=T0 + datetime.timedelta(minutes=11))
    assert [r[1] for r in _rows(QB)] == [1]
    rollup.rollup_minutes(now=T0 + datetime.timedelta(days=7, minutes=9))
    assert _rows(QB) == []  # past 7 days: dropped
