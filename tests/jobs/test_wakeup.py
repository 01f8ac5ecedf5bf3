"""A job deferred inside a running task is picked up at once, not at the next poll.

Correctness tests of the worker's wake-up (ats.jobs.wakeup), not timing benchmarks: the
worker runs with the production polling interval (5 s), so a missed wake-up shows as a
pickup of ~5 s against a threshold of 1 s - far from any noise.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.db import connection

from tests.jobs.helpers import defer, job, token, wait_for, wait_status

PRODUCTION_POLL_S = 5.0
THRESHOLD_S = 1.0
# Long enough that no poll can rescue a missed wake-up inside the test's waits.
NO_RESCUE_POLL_S = 60.0


def _events(job_id: int) -> dict[str, Any]:
    with connection.cursor() as cur:
        cur.execute("SELECT type::text, max(at) FROM procrastinate_events WHERE job_id = %s GROUP BY type", [job_id])
        return dict(cur.fetchall())


def _child_job(entity: int) -> int | None:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM procrastinate_jobs WHERE task_name LIKE 'tests.chain_child%%'"
            " AND (args->>'entity')::bigint = %s",
            [entity],
        )
        row = cur.fetchone()
    return row[0] if row else None


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("child", ["tests.chain_child", "tests.chain_child_unlocked"], ids=["same-lock", "no-lock"])
def test_continuation_deferred_inside_a_task_is_picked_up_without_waiting_for_a_poll(
    start_worker: Any, child: str
) -> None:
    start_worker("default", extra=["--queues=test"], env={"ATS_POLL_INTERVAL_S": str(PRODUCTION_POLL_S)})
    waits = []
    for _ in range(3):
        entity = token()
        parent = defer("tests.chain_parent", entity=entity, child=child)
        child_id = wait_for(lambda e=entity: _child_job(e), 10, "the continuation to be deferred")
        wait_for(lambda c=child_id: "succeeded" in _events(c), 15, "the continuation to run")
        wait_for(lambda p=parent: "succeeded" in _events(p), 15, "the parent to finish")
        # From the moment the child could first run to its start: the parent's end (its
        # lock released, outcome recorded) when they share a lock, else its deferral.
        ready = _events(parent)["succeeded"] if child == "tests.chain_child" else _events(child_id)["deferred"]
        wait = (_events(child_id)["started"] - ready).total_seconds()
        waits.append(wait)
    print(f"{child}: pickup after the parent finished, s: {[round(w, 3) for w in waits]}")
    assert max(waits) < THRESHOLD_S, f"a wake-up was missed (polling interval {PRODUCTION_POLL_S} s): {waits}"


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_follow_up_deferred_by_another_process_on_a_held_lock_starts_when_the_holder_ends(
    start_worker: Any,
) -> None:
    """The intake chain's shape behind issue 26's 5 s follow-ups: worker-untrusted defers
    `intake.store_page_images` (ats_parse_pages_done, in SQL) on the attachment's lock while
    worker-default runs a job holding it. Its NOTIFY finds the lock held; nothing notifies
    when the holder ends, so only the holder's own worker fetching again can start it."""
    start_worker("default", extra=["--queues=test"], env={"ATS_POLL_INTERVAL_S": str(NO_RESCUE_POLL_S)})
    entity, gate = token(), token()
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_lock(%s)", [gate])
    try:
        holder = defer("tests.lock_holder", entity=entity, gate=gate)
        wait_status(holder, {"doing"})
        # Deferred from this process, not by the holder: another process's deferral.
        child = defer("tests.chain_child", entity=entity)
        # A job deferred after the child that has started proves a fetch ran after the
        # child's NOTIFY, saw it and skipped it (its lock held); the worker is idle again.
        probe = defer("tests.chain_child_unlocked", entity=token())
        wait_for(lambda: "succeeded" in _events(probe), 30, "a fetch after the follow-up's NOTIFY")
        assert job(child)["status"] == "todo"
    finally:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_unlock(%s)", [gate])
    wait_for(lambda: "succeeded" in _events(holder), 30, "the lock holder to finish")
    started = wait_for(lambda: _events(child).get("started"), NO_RESCUE_POLL_S + 15, "the follow-up to start")
    wait = (started - _events(holder)["succeeded"]).total_seconds()
    assert wait < THRESHOLD_S, f"the follow-up waited {wait:.1f} s after the lock's release (poll {NO_RESCUE_POLL_S} s)"


class _FetchRacingNotification:
    """A job manager whose fetch sees no job while a NOTIFY for a new job lands mid-query."""

    def __init__(self) -> None:
        self.worker: Any = None
        self.calls = 0

    async def fetch_job(self, queues: Any, worker_id: int) -> None:
        self.calls += 1
        await asyncio.sleep(0)
        self.worker._new_job_event.set()  # what _handle_notification does


def _run_one_fetch_round(worker_cls: type) -> bool:
    from procrastinate import App
    from procrastinate.testing import InMemoryConnector

    async def go() -> bool:
        app = App(connector=InMemoryConnector())
        worker = worker_cls(app=app, queues=["test"], wait=True)
        manager = _FetchRacingNotification()
        manager.worker = worker
        worker.app = type("A", (), {"job_manager": manager})()
        worker.worker_id = 1
        worker._job_semaphore = asyncio.Semaphore(1)
        worker._running_jobs = {}
        await worker._fetch_and_process_jobs()
        assert manager.calls == 1
        return worker._new_job_event.is_set()

    return asyncio.run(go())


@pytest.mark.unit
def test_a_notification_during_a_fetch_is_kept_for_the_next_wait() -> None:
    from ats.jobs import wakeup

    assert _run_one_fetch_round(wakeup.Worker) is True


@pytest.mark.unit
def test_upstream_still_erases_it_so_the_fix_is_still_needed() -> None:
    """When this fails, upstream fixed its loop: drop ats.jobs.wakeup's override."""
    from ats.jobs import wakeup

    assert _run_one_fetch_round(wakeup._Upstream) is False
    assert wakeup.upstream_source_sha256() == wakeup.UPSTREAM_SOURCE_SHA256


def _notified(running: list[tuple[str, str]], channel: str, *, caps_installed: bool = True) -> bool:
    """Whether a job_inserted notification on `channel` wakes a worker that runs
    `running` ((queue, task) pairs) - i.e. leads to a fetch."""
    import types

    from procrastinate import App
    from procrastinate.testing import InMemoryConnector

    from ats.jobs import concurrency, wakeup

    async def go() -> bool:
        worker = wakeup.Worker(app=App(connector=InMemoryConnector()), queues=["ingest", "maintenance"], wait=True)
        worker._running_jobs = {
            object(): types.SimpleNamespace(job=types.SimpleNamespace(queue=q, task_name=t)) for q, t in running
        }
        worker._new_job_event.clear()
        await worker._handle_notification(channel=channel, notification={"type": "job_inserted", "job_id": 9})
        return worker._new_job_event.is_set()

    was = concurrency.installed()
    (concurrency.install if caps_installed else concurrency.uninstall)()
    try:
        return asyncio.run(go())
    finally:
        (concurrency.install if was else concurrency.uninstall)()


@pytest.mark.unit
def test_a_notification_for_a_queue_whose_whole_cap_runs_here_fetches_nothing() -> None:
    """Issue 26: `ingest` (cap 2) at its cap in this process: no process can start the new
    job before one of ours ends, and that end wakes the loop - the fetch would be empty."""
    from ats.jobs.policy import QUEUE_CONCURRENCY

    assert QUEUE_CONCURRENCY["ingest"] == 2 and QUEUE_CONCURRENCY["maintenance"] == 1
    ingest = "procrastinate_queue_v1#ingest"
    two = [("ingest", "intake.ingest_attachment"), ("ingest", "intake.apply_parse_result")]
    assert _notified(two, ingest) is False
    # Below the cap, another queue's job, or the caps not enforced: a fetch as before.
    assert _notified(two[:1], ingest) is True
    assert _notified(two, "procrastinate_queue_v1#score") is True
    assert _notified([], ingest) is True
    assert _notified(two, ingest, caps_installed=False) is True
    # A queue with a cap-exempt task (the rescue may start beside a full queue) always
    # fetches, and the exempt task holds no slot of its own queue.
    assert _notified([("maintenance", "retention.purge")], "procrastinate_queue_v1#maintenance") is True
    assert _notified([("ingest", "jobs.rescue_and_sweep"), *two[:1]], ingest) is True


@pytest.mark.unit
def test_other_notifications_reach_upstream_whatever_runs_here() -> None:
    import types

    from procrastinate import App
    from procrastinate.testing import InMemoryConnector

    from ats.jobs import wakeup

    async def go() -> list[int]:
        worker = wakeup.Worker(app=App(connector=InMemoryConnector()), queues=["ingest"], wait=True)
        worker._running_jobs = {
            object(): types.SimpleNamespace(job=types.SimpleNamespace(queue="ingest", task_name="x")) for _ in range(2)
        }
        asked: list[int] = []
        worker._handle_abort_jobs_requested = asked.extend  # type: ignore[method-assign]
        await worker._handle_notification(
            channel="procrastinate_queue_v1#ingest", notification={"type": "abort_job_requested", "job_id": 4}
        )
        return asked

    assert asyncio.run(go()) == [4]


def _fetches_in_one_round(hints: list[bool], *, wait: bool = True, slots: int = 4) -> int:
    """How many fetches one round of the loop makes when its fetches return jobs whose
    `more` flags are `hints` (then no job), with `slots` free task slots."""
    import types

    from procrastinate import App
    from procrastinate.testing import InMemoryConnector

    from ats.jobs import concurrency, wakeup

    class Manager:
        def __init__(self) -> None:
            self.calls = 0

        async def fetch_job(self, queues: Any, worker_id: int) -> Any:
            self.calls += 1
            if self.calls > len(hints):
                return None
            concurrency.remember_fetch_more(self, worker_id, hints[self.calls - 1])
            return types.SimpleNamespace(id=self.calls, task_name="t", queue="ingest")

    async def go() -> int:
        worker = wakeup.Worker(app=App(connector=InMemoryConnector()), queues=["ingest"], wait=wait)
        manager = Manager()
        worker.app = types.SimpleNamespace(job_manager=manager)
        worker.worker_id = 1
        worker._job_semaphore = asyncio.Semaphore(slots)
        worker._running_jobs = {}
        release = asyncio.Event()

        async def process(context: Any) -> None:
            await release.wait()  # every job still running while the loop decides

        worker._process_job = process  # type: ignore[method-assign]
        await worker._fetch_and_process_jobs()
        release.set()
        await asyncio.gather(*worker._running_jobs)
        return manager.calls

    assert concurrency.fetch_may_find_more(types.SimpleNamespace(), 1) is True  # unknown: fetch
    return asyncio.run(go())


@pytest.mark.unit
def test_a_fetch_that_said_no_more_is_not_followed_by_an_empty_one() -> None:
    """Issue 26: the job took its queue's last slot and nothing else waited (migration
    0007's `more`): the loop waits for a notification or a job's end, as after the empty
    fetch it no longer makes. A flag that says more, or none, fetches on."""
    assert _fetches_in_one_round([False]) == 1
    assert _fetches_in_one_round([True, True, False]) == 3
    assert _fetches_in_one_round([True]) == 2  # the second came back empty
    # A worker run with wait=False stops at its first empty fetch: it still asks.
    assert _fetches_in_one_round([False], wait=False) == 2
