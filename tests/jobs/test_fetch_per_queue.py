"""The capped fetch's per-queue probes (migration 0006, issue 26): the same job as the
single priority-order scan it replaced, whatever the table holds, and a bounded read
however long the backlog."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from bench.fetch_bench import fill_capped_backlog, install_previous_fetch
from django.db import connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ats.jobs.concurrency import CAP_EXEMPT_TASKS, FETCH_SQL, FETCH_V1_SQL

pytestmark = pytest.mark.django_db

QUEUES = ("ingest", "parse", "score", "maintenance", "mail")
TASKS = ("intake.ingest_attachment", "scoring.score_application", *CAP_EXEMPT_TASKS)

_job = st.fixed_dictionaries(
    {
        "queue": st.sampled_from(QUEUES),
        "task": st.sampled_from(TASKS),
        "priority": st.sampled_from((-2147483648, -1, 0, 10, 20, 2147483647)),
        "lock": st.sampled_from((None, "a", "b", "c")),
        "status": st.sampled_from(("todo", "todo", "todo", "doing", "succeeded")),
        "scheduled": st.sampled_from((None, "past", "future")),
        "has_worker": st.booleans(),
    }
)


# A generated job table, the queues a worker asks for and their caps.
_tables = given(
    jobs=st.lists(_job, max_size=14),
    requested=st.lists(st.sampled_from(QUEUES), min_size=1, max_size=5, unique=True),
    caps=st.lists(st.integers(min_value=0, max_value=3), min_size=5, max_size=5),
)


class _Undo(Exception):
    """Rolls an example's rows back."""


@contextlib.contextmanager
def _example(jobs: list[dict[str, Any]]) -> Iterator[tuple[Any, int]]:
    """Only `jobs` in the table (and a worker row) while the block runs; all rolled back."""
    with connection.cursor() as cur:
        try:
            with transaction.atomic():
                cur.execute("DELETE FROM procrastinate_jobs")
                cur.execute("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
                worker_id = cur.fetchone()[0]
                _insert(cur, jobs, worker_id)
                yield cur, worker_id
                raise _Undo
        except _Undo:
            pass


def _insert(cur: Any, jobs: list[dict[str, Any]], worker_id: int) -> None:
    now = timezone.now()
    doing_locks: set[str] = set()
    for j in jobs:
        if j["status"] == "doing" and j["lock"] is not None:
            if j["lock"] in doing_locks:  # procrastinate allows one running job per lock
                continue
            doing_locks.add(j["lock"])
        when = {None: None, "past": now - timedelta(minutes=5), "future": now + timedelta(hours=1)}[j["scheduled"]]
        cur.execute(
            "INSERT INTO procrastinate_jobs (queue_name, task_name, priority, lock, status, scheduled_at, worker_id)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [
                j["queue"],
                j["task"],
                j["priority"],
                j["lock"],
                j["status"],
                when,
                worker_id if j["has_worker"] and j["status"] == "doing" else None,
            ],
        )


def _fetch(cur: Any, function: str, queues: list[str], caps: list[int], worker_id: int) -> int | None:
    sql = FETCH_V1_SQL.replace("ats_jobs_fetch_v1(", f"{function}(")
    with transaction.atomic():  # a savepoint: the fetch's UPDATE is undone for the next one
        cur.execute(sql, {"queues": queues, "caps": caps, "exempt": list(CAP_EXEMPT_TASKS), "worker_id": worker_id})
        found = cur.fetchone()[0]
        transaction.set_rollback(True)
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@_tables
def test_the_probes_choose_the_job_the_single_scan_chose(
    jobs: list[dict[str, Any]], requested: list[str], caps: list[int]
) -> None:
    with _example(jobs) as (cur, worker_id):
        install_previous_fetch(cur)
        queue_caps = caps[: len(requested)]
        new = _fetch(cur, "ats_jobs_fetch_v1", requested, queue_caps, worker_id)
        old = _fetch(cur, "pg_temp.previous_fetch", requested, queue_caps, worker_id)
        assert new == old, (jobs, requested, queue_caps)


def test_an_empty_fetch_reads_a_bounded_number_of_rows_behind_a_long_capped_backlog() -> None:
    """worker-default's fetch while `ingest` is at its cap and 5,000 documents wait: the
    single scan read every waiting job before saying there was nothing (once its plan was
    the one kept for every call); the probes read a handful, whatever the backlog (rows
    fetched through indexes, this transaction's statistics - a count, not a time)."""
    with connection.cursor() as cur:
        cur.execute("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
        worker_id = cur.fetchone()[0]
        # Only these jobs (what earlier tests left is deleted; all rolled back after).
        fill_capped_backlog(cur, 5000, worker_id, queues=("ingest",))
        install_previous_fetch(cur)
        queues = ["ai", "ingest", "maintenance", "mail", "score"]
        caps = [2, 2, 1, 1, 2]

        def rows_read(function: str) -> int:
            # As a worker's connection runs it: many times (PL/pgSQL plans a statement for
            # the call's values five times, then may keep one plan for any values).
            for _ in range(6):
                _fetch(cur, function, queues, caps, worker_id)
            cur.execute(
                "SELECT idx_tup_fetch + seq_tup_read FROM pg_stat_xact_user_tables WHERE relname = 'procrastinate_jobs'"
            )
            before = cur.fetchone()[0]
            assert _fetch(cur, function, queues, caps, worker_id) is None  # ingest is full
            cur.execute(
                "SELECT idx_tup_fetch + seq_tup_read FROM pg_stat_xact_user_tables WHERE relname = 'procrastinate_jobs'"
            )
            return int(cur.fetchone()[0] - before)

        assert rows_read("pg_temp.previous_fetch") >= 5000  # the control: the old scan
        assert rows_read("ats_jobs_fetch_v1") <= 20
        # The workers' fetch (migration 0007: its probes in one statement) reads as few.
        cur.execute(
            "CREATE FUNCTION pg_temp.v2_as_v1(q varchar[], c integer[], e varchar[], w bigint)"
            " RETURNS procrastinate_jobs LANGUAGE sql AS"
            " 'SELECT (f.job).* FROM ats_jobs_fetch_v2(q, c, e, w) AS f'"
        )
        assert rows_read("pg_temp.v2_as_v1") <= 20


def _fetch_v2(cur: Any, queues: list[str], caps: list[int], worker_id: int) -> tuple[int | None, bool]:
    """The workers' fetch (migration 0007): the job's id and whether a second could find one."""
    cur.execute(FETCH_SQL, {"queues": queues, "caps": caps, "exempt": list(CAP_EXEMPT_TASKS), "worker_id": worker_id})
    row = cur.fetchone()
    return row[0], row[-1]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@_tables
def test_a_fetch_that_says_no_more_is_right_a_second_fetch_finds_nothing(
    jobs: list[dict[str, Any]], requested: list[str], caps: list[int]
) -> None:
    """The worker skips the fetch after one that said `more` false (ats.jobs.wakeup): that
    skipped fetch - same snapshot, the first job taken - must be one that finds nothing.
    And v1 (the previous release's workers) still takes the job v2 takes."""
    with _example(jobs) as (cur, worker_id):
        queue_caps = caps[: len(requested)]
        taken = _rolled_back_v2(cur, requested, queue_caps, worker_id)
        assert _fetch(cur, "ats_jobs_fetch_v1", requested, queue_caps, worker_id) == taken
        first, more = _fetch_v2(cur, requested, queue_caps, worker_id)
        if first is None:
            assert more is False
        elif not more:
            assert _fetch_v2(cur, requested, queue_caps, worker_id) == (None, False), (jobs, requested, caps)


def _rolled_back_v2(cur: Any, queues: list[str], caps: list[int], worker_id: int) -> int | None:
    with transaction.atomic():
        found, _ = _fetch_v2(cur, queues, caps, worker_id)
        transaction.set_rollback(True)
    return found


def test_the_fetch_says_no_more_where_the_backlog_leaves_nothing_else_to_take() -> None:
    """The case the flag exists for (issue 26): `ingest` (cap 2) with one job running and a
    backlog waiting, the other queues empty - the job taken fills the last slot, so a second
    fetch is known to be empty. A second free slot with a second job, or a job in another
    queue, says more; a free slot with nothing left for it says no more."""
    queues = ["ai", "ingest", "maintenance", "mail", "score"]
    caps = [2, 2, 1, 1, 2]
    with connection.cursor() as cur:
        cur.execute("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
        worker_id = cur.fetchone()[0]
        fill_capped_backlog(cur, 50, worker_id, queues=("ingest",))  # two running: at the cap
        cur.execute(
            "DELETE FROM procrastinate_jobs WHERE id = (SELECT min(id) FROM procrastinate_jobs WHERE status = 'doing')"
        )

        def first_fetch() -> tuple[int | None, bool]:
            with transaction.atomic():
                found = _fetch_v2(cur, queues, caps, worker_id)
                transaction.set_rollback(True)
            return found

        job, more = first_fetch()
        assert job is not None and more is False
        cur.execute("UPDATE procrastinate_jobs SET status = 'succeeded' WHERE status = 'doing'")  # two slots free
        job, more = first_fetch()
        assert job is not None and more is True
        cur.execute(
            "INSERT INTO procrastinate_jobs (queue_name, task_name, priority, lock, status, worker_id)"
            " VALUES ('ingest', 'intake.ingest_attachment', 20, 'attachment:again', 'doing', %s),"
            "        ('score', 'scoring.score_application', 0, NULL, 'todo', NULL)",
            [worker_id],
        )
        job, more = first_fetch()  # one slot again, but a score job waits too
        assert job is not None and more is True
        cur.execute("DELETE FROM procrastinate_jobs WHERE queue_name = 'score'")
        assert first_fetch()[1] is False
        # Two slots free but one job waiting: the job taken leaves a slot, and nothing for it.
        cur.execute("UPDATE procrastinate_jobs SET status = 'succeeded' WHERE status = 'doing'")
        cur.execute(
            "DELETE FROM procrastinate_jobs WHERE id <> (SELECT max(id) FROM procrastinate_jobs WHERE status = 'todo')"
        )
        job, more = first_fetch()
        assert job is not None and more is False
