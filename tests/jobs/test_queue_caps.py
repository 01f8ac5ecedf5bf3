"""ADR §1 per-queue concurrency across processes, queue pause/resume, and per-attempt
records - in real worker processes (issue 24 items 1, 3, 4)."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import pytest
from django.db import connection

from tests.conftest import run_ats_in_process, start_side_by_side
from tests.jobs.helpers import defer, job, token, wait_for, wait_status
from tests.testapp.models import Marker

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MAINTENANCE = ["--queues=maintenance", "--concurrency=4"]


def _intervals(tokens: list[int]) -> list[tuple[Any, Any]]:
    rows = Marker.objects.filter(token__in=tokens).order_by("started_at")
    return [(m.started_at, m.finished_at) for m in rows]


def _overlaps(intervals: list[tuple[Any, Any]]) -> int:
    return sum(1 for (_, a_end), (b_start, _) in itertools.pairwise(intervals) if a_end > b_start)


def _run_maintenance_batch(start_worker: Any, env: dict[str, str]) -> tuple[list[tuple[Any, Any]], set[int]]:
    workers = start_side_by_side(start_worker, 2, "default", extra=MAINTENANCE, env=env)
    toks = [token() for _ in range(4)]
    ids = [defer("tests.maintenance_interval", token=t, seconds=0.8) for t in toks]
    for i in ids:
        wait_status(i, {"succeeded"}, timeout=60)
    with connection.cursor() as cur:
        cur.execute("SELECT DISTINCT worker FROM jobs_attempt WHERE job_id = ANY(%s)", [ids])
        names = {r[0] for r in cur.fetchall()}
    assert names <= {w.name for w in workers}
    return _intervals(toks), {hash(n) for n in names}


def test_two_worker_processes_never_overlap_two_maintenance_jobs(start_worker: Any) -> None:
    intervals, _ = _run_maintenance_batch(start_worker, {})
    assert len(intervals) == 4
    assert _overlaps(intervals) == 0, intervals


def test_without_the_caps_two_processes_do_overlap_them(start_worker: Any) -> None:
    # The control: the same batch with the fetch wrapper off runs side by side, so the
    # test above proves the caps, not an accident of timing.
    intervals, _ = _run_maintenance_batch(start_worker, {"ATS_QUEUE_CAPS": "0"})
    assert _overlaps(intervals) >= 1, intervals


def test_the_copied_fetch_is_still_upstreams() -> None:
    # ats_jobs_fetch_v1 copies procrastinate_fetch_job_v2's body: an upgrade that changes
    # it must be looked at (and the copy updated) before the caps can be trusted.
    from ats.jobs import concurrency

    assert concurrency.upstream_fetch_sha256() == concurrency.UPSTREAM_FETCH_SHA256


def test_a_dead_job_holding_maintenances_only_slot_is_still_rescued(start_worker: Any) -> None:
    # A `doing` maintenance job whose worker is gone fills the queue's cap of 1; the
    # rescue (itself a maintenance job) must still run, or nothing would ever clear it.
    start_worker("default", extra=MAINTENANCE)  # started first: its start-up prune is over
    with connection.cursor() as cur:
        # Its worker was SIGKILLed: the row stays (heartbeat going stale), nobody holds its fence.
        cur.execute("SELECT procrastinate_register_worker_v1()")
        gone = cur.fetchone()[0]
        cur.execute("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '1 hour' WHERE id = %s", [gone])
        cur.execute(
            """INSERT INTO procrastinate_jobs (queue_name, task_name, args, status, worker_id)
               VALUES ('maintenance', 'tests.maintenance_interval', %s, 'doing', %s) RETURNING id""",
            [json.dumps({"token": token(), "seconds": 0, "v": 1}), gone],
        )
        dead = cur.fetchone()[0]
    # Cleared by the rescue (attempts=1: it ends `failed`, its run recorded as lost).
    wait_for(lambda: job(dead)["status"] != "doing", 40, "the rescue to clear the dead job")


def test_paused_queue_waits_and_drains_on_resume(start_worker: Any, ats_cli: Any) -> None:
    start_worker("default", extra=MAINTENANCE)
    first = defer("tests.maintenance_interval", token=token(), seconds=2.0)
    wait_status(first, {"doing"}, timeout=30)
    # Paused through the real `ats` process (its exit code and JSON are the contract); the
    # listing and the resume run the same commands in the test process.
    out = ats_cli("queue", "pause", "maintenance", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["paused"] is True
    later = [defer("tests.maintenance_interval", token=token(), seconds=0) for _ in range(3)]
    # The in-flight job finishes; the new ones wait while paused.
    wait_status(first, {"succeeded"}, timeout=30)
    time.sleep(1.5)  # three polling intervals (0.5 s) with nothing fetched
    assert {job(i)["status"] for i in later} == {"todo"}
    shown = {q["queue"]: q for q in json.loads(run_ats_in_process("queues", "--json").stdout)}
    assert shown["maintenance"]["paused"] is True
    assert shown["maintenance"]["waiting"] >= 3
    out = run_ats_in_process("queue", "resume", "maintenance", "--json")
    assert out.returncode == 0, out.stderr
    for i in later:
        wait_status(i, {"succeeded"}, timeout=30)


def test_each_attempt_is_recorded_with_its_scrubbed_error(start_worker: Any) -> None:
    start_worker("default", extra=["--queues=test"])
    job_id = defer("tests.fail_with_pii", token=token(), succeed_on=2)
    wait_status(job_id, {"succeeded"}, timeout=30)
    from ats.jobs import ops_api as jobs_ops

    log = jobs_ops.job_detail(job_id)["attempt_log"]  # type: ignore[index]
    assert [a["attempt"] for a in log] == [1, 2]
    first, second = log
    assert first["status"] == "failed"
    assert first["error"].startswith("CandidateFileError: could not read <file> from <email>, call <phone>")
    assert "fail_with_pii" in first["traceback"] and "tasks.py" in first["traceback"]
    for secret in ("jane", "Jane", "0958", "example.org"):
        assert secret not in first["error"] + first["traceback"]
    assert first["started_at"] and first["ended_at"] and first["worker"].startswith("test-default-")
    assert second["status"] == "succeeded" and second["error"] == "" and second["traceback"] == ""


def test_a_killed_attempt_is_closed_as_lost(start_worker: Any) -> None:
    from ats.jobs import ops_api as jobs_ops

    job_id = defer("tests.kill_own_worker", token=token())
    # The rescuer, booting beside the first poison worker (nothing needs it before then).
    start_worker("default", extra=["--queues=maintenance"], wait=False)
    for _ in range(2):
        w = start_worker("default", extra=["--queues=test"], wait=False)
        w.proc.wait(30)  # SIGKILLed by its own job: no end is ever recorded by it
    wait_status(job_id, {"failed"}, timeout=30)

    log = jobs_ops.job_detail(job_id)["attempt_log"]  # type: ignore[index]
    assert [a["status"] for a in log] == ["lost", "lost"], log
    assert all(a["ended_at"] and a["error"].startswith("WorkerLost") for a in log)
