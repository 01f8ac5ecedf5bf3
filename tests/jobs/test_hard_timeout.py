"""Hard wall timeouts outside the sandbox and the fence against double runs
(ats.jobs.watchdog), in real worker processes.

The effect each task writes (tests.testapp Effect) is deliberately not idempotent: a job
that ran twice at once leaves two rows. Each test fails without its mechanism: without the
watchdog the spinning worker never exits; without the fence the rescue re-queues the job
of a frozen worker and both runs write their effect.
"""

from __future__ import annotations

import signal
import time
from typing import Any

import pytest
from django.db import connection

from ats.jobs.watchdog import EXIT_OVERRUN
from tests.conftest import FAST_ENV
from tests.jobs.helpers import defer, job, token, wait_for, wait_status
from tests.testapp.models import Effect, Marker

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Hard limit = 1 s policy timeout + 1 s slack; the neighbour job may finish within 20 s.
WATCHDOG_ENV = {"ATS_WATCHDOG_SLACK_S": "1", "ATS_WATCHDOG_GRACE_S": "20", "ATS_WATCHDOG_INTERVAL_S": "0.5"}


def _last_job_id() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
        return int(cur.fetchone()[0])


def _rescues_after(floor: int) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'jobs.rescue_and_sweep'"
            " AND status = 'succeeded' AND id > %s",
            [floor],
        )
        return int(cur.fetchone()[0])


def _heartbeat_age_s(worker_id: int) -> float:
    """How old the worker row's heartbeat is by the database's clock (the one the next
    worker's start-up prune compares with); gone rows count as infinitely old."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT extract(epoch FROM now() - last_heartbeat) FROM procrastinate_workers WHERE id = %s", [worker_id]
        )
        row = cur.fetchone()
    return float("inf") if row is None else float(row[0])


def effects(tok: int) -> list[Effect]:
    return list(Effect.objects.filter(token=tok).order_by("id"))


def marker_state(tok: int) -> str:
    m = Marker.objects.filter(token=tok).first()
    return m.state if m else ""


def test_overrun_ends_its_process_after_the_neighbour_finishes_and_the_job_has_one_effect(start_worker: Any) -> None:
    w1 = start_worker("default", extra=["--queues=test", "--concurrency=2"], env=WATCHDOG_ENV)
    spin_tok, other_tok = token(), token()
    # The spin would take 60 s; its hard limit is 2 s. The neighbour needs 5 s in all.
    spin = defer("tests.spin_overrun", token=spin_tok, spin_s=60, spin_attempts=1)
    wait_for(lambda: marker_state(spin_tok) == "running", 20, "spin to start")
    started = time.monotonic()
    other = defer("tests.sleep_effect", token=other_tok, seconds=5)
    # Fetching stops at the overrun (about 2 s in): a job deferred after that stays todo.
    # Waited for by its log line (written as fetching stops), not by a sleep that a loaded
    # machine can outrun.
    wait_for(lambda: "overran its hard timeout" in w1.tail(), 30, "the watchdog to stop fetching")
    late = defer("tests.sleep_effect", token=token(), seconds=0)
    rc = w1.proc.wait(40)
    lived = time.monotonic() - started
    print(f"overrun worker exited {rc} {lived:.1f}s after the spin started; log tail: {w1.tail(400)}")
    assert rc == EXIT_OVERRUN
    assert 4.5 < lived < 30  # waited for the neighbour (5 s), long before the spin's 60 s
    assert job(other)["status"] == "succeeded" and len(effects(other_tok)) == 1
    assert job(late)["status"] == "todo"
    assert job(spin)["status"] == "doing" and effects(spin_tok) == []  # the spin never got to its effect
    assert "overran its hard timeout" in w1.tail()

    start_worker("default", extra=["--queues=test,maintenance"], env=WATCHDOG_ENV)
    wait_status(spin, {"succeeded"}, timeout=40)
    got = effects(spin_tok)
    assert [e.attempt for e in got] == [2]  # one effect, by the rescued attempt
    assert marker_state(spin_tok) == "done"


def test_a_job_that_overruns_every_attempt_ends_in_its_domain_state(start_worker: Any) -> None:
    tok = token()
    spin = defer("tests.spin_overrun", token=tok, spin_s=60, spin_attempts=2)
    # The rescuer boots beside the first overrunning worker (nothing needs it before that
    # worker's exit).
    start_worker("default", extra=["--queues=maintenance"], env=WATCHDOG_ENV, wait=False)
    for _ in range(2):
        w = start_worker("default", extra=["--queues=test"], env=WATCHDOG_ENV)
        assert w.proc.wait(40) == EXIT_OVERRUN
    final = wait_status(spin, {"failed"}, timeout=40)
    assert final["attempts"] == 2
    wait_for(lambda: marker_state(tok).startswith("exhausted"), 20, "exhaustion state")
    assert marker_state(tok) == "exhausted:worker_lost"
    assert effects(tok) == []


@pytest.mark.parametrize(
    ("row_pruned", "then"),
    [(False, "resumed"), (False, "killed"), (True, "resumed")],
    ids=["row-resume", "row-kill", "pruned-resume"],
)
def test_a_frozen_workers_job_is_not_run_again_until_its_process_is_dead(
    start_worker: Any, row_pruned: bool, then: str
) -> None:
    """SIGSTOP freezes the first worker mid-job: its heartbeat goes stale, which is all the
    rescue used to need. The fence keeps the job `doing` while the frozen process lives
    (its row kept, or pruned by the next worker's start); once it resumes or is killed,
    exactly one run writes the effect."""
    w1 = start_worker("default", extra=["--queues=test"], env=WATCHDOG_ENV)
    tok = token()
    job_id = defer("tests.sleep_effect", token=tok, seconds=3)
    wait_for(lambda: marker_state(tok) == "running", 20, "job body to start")
    w1.signal(signal.SIGSTOP)
    try:
        if row_pruned:
            # The next worker's start deletes rows whose heartbeat is older than the stalled
            # timeout: wait until the frozen worker's is (was a fixed 6 s sleep).
            frozen = job(job_id)["worker_id"]
            stalled_s = float(FAST_ENV["ATS_STALLED_WORKER_TIMEOUT_S"])
            wait_for(lambda: _heartbeat_age_s(frozen) > stalled_s, 30, "the frozen worker's heartbeat to go stale")
        w2 = start_worker("default", extra=["--queues=test,maintenance"], env=WATCHDOG_ENV)
        # Several rescue runs with the heartbeat stale: the first that fences the job, then
        # two more after it. Counted, not slept for - under load a 10 s sleep saw fewer.
        wait_for(lambda: "fenced" in w2.tail(), 60, "a rescue run to fence the frozen worker's job")
        floor = _last_job_id()
        wait_for(lambda: _rescues_after(floor) >= 2, 60, "two more rescue runs")
        held = job(job_id)
        assert held["status"] == "doing" and held["attempts"] == 0, held
        if row_pruned:
            assert held["worker_id"] is None  # the orphan path: no row to find the fence by
        assert effects(tok) == []
        assert "fenced" in w2.tail()
    finally:
        w1.signal(signal.SIGCONT if then == "resumed" else signal.SIGKILL)
    wait_status(job_id, {"succeeded"}, timeout=40)
    got = effects(tok)
    assert len(got) == 1, [(e.attempt, e.pid) for e in got]
    if then == "killed":
        assert got[0].attempt == 2 and got[0].pid != w1.proc.pid


def test_a_rescue_killed_mid_run_does_not_keep_later_rescues_from_running(start_worker: Any) -> None:
    """Found by the chaos suite: with its own lock, a rescue run whose worker was killed
    stayed `doing` and every later rescue waited on that lock - nothing was rescued again
    (a killed mail poll then held its channel's lock forever: no mail). A dead rescue run
    and a dead job of another worker (both `doing`, worker rows gone) must both clear."""
    from django.db import connection

    from ats.jobs.data import policy_for

    with connection.cursor() as cur:
        cur.execute(
            """INSERT INTO procrastinate_jobs (queue_name, task_name, lock, args, status)
               VALUES ('maintenance', 'jobs.rescue_and_sweep', %s, '{"timestamp": 0, "v": 1}', 'doing')
               RETURNING id""",
            [policy_for("jobs.rescue_and_sweep").lock],
        )
        dead_rescue = cur.fetchone()[0]
    tok = token()
    stranded = defer("tests.sleep_effect", token=tok, seconds=0)
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [stranded])
    start_worker("default", extra=["--queues=test,maintenance"], env=WATCHDOG_ENV)
    wait_status(stranded, {"succeeded"}, timeout=40)
    assert [e.attempt for e in effects(tok)] == [2]  # re-queued by a rescue, run once
    assert job(dead_rescue)["status"] != "doing"


def test_just_up_restarts_exactly_the_watchdog_exit_codes() -> None:
    from ats.devtools.up import WATCHDOG_EXITS
    from ats.jobs.watchdog import EXIT_FENCE_LOST

    assert set(WATCHDOG_EXITS) == {EXIT_OVERRUN, EXIT_FENCE_LOST}
