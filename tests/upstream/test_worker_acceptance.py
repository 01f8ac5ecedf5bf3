"""procrastinate's worker contract against real Postgres, with the class every worker
process installs: the watchdog and its fence (ats.jobs.watchdog) in front of the fixed
fetch loop (ats.jobs.wakeup), composed as ats.jobs.apps composes them.

This project's own tests of what upstream's acceptance tests (3.10: tests/acceptance/
test_async.py) check - real LISTEN/NOTIFY, locks, abort, graceful stop, worker rows -
run in this process (no worker subprocess, no Django boot), one unique queue per test.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from procrastinate import App, PsycopgConnector
from procrastinate.jobs import Status

from ats.jobs import wakeup, watchdog

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

DEADLINE_S = 20.0


def installed_class() -> type:
    """What ats.jobs.apps installs in a worker process (wake-up fix, then the watchdog)."""
    return watchdog.worker_class(wakeup.Worker)


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 3 * DEADLINE_S))


async def until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE_S) -> None:
    end = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def new_app() -> App:
    from procrastinate.contrib.django.utils import connector_params

    return App(connector=PsycopgConnector(kwargs=connector_params()))


def queue() -> str:
    return f"upstream-{uuid.uuid4().hex[:12]}"


def make_worker(app: App, q: str, **kwargs: Any) -> Any:
    kwargs.setdefault("wait", True)
    kwargs.setdefault("install_signal_handlers", False)
    kwargs.setdefault("fetch_job_polling_interval", 60.0)  # only a notification or a job's end wakes it
    return installed_class()(app=app, queues=[q], **kwargs)


async def statuses(app: App, q: str) -> list[str]:
    rows = await app.connector.execute_query_all_async(
        "SELECT status::text AS s FROM procrastinate_jobs WHERE queue_name = %(q)s ORDER BY id", q=q
    )
    return [r["s"] for r in rows]


async def fence_held(app: App, worker_id: int) -> bool:
    row = await app.connector.execute_query_one_async(
        "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = %(ns)s AND objid = %(key)s"
        " AND granted",
        ns=watchdog.FENCE_NAMESPACE,
        key=watchdog.fence_key(worker_id),
    )
    return bool(row["n"])


async def worker_rows(app: App, worker_id: int) -> int:
    row = await app.connector.execute_query_one_async(
        "SELECT count(*) AS n FROM procrastinate_workers WHERE id = %(id)s", id=worker_id
    )
    return int(row["n"])


async def listening(app: App, q: str) -> bool:
    """Whether a session LISTENs on the queue's channel (its listener's last statement)."""
    row = await app.connector.execute_query_one_async(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE %(listen)s",
        listen=f'LISTEN "procrastinate_queue_v1#{q}"%',
    )
    return bool(row["n"])


async def started(worker: Any) -> asyncio.Task[Any]:
    """The worker's task once it is registered and LISTENs: its row is written before its
    listener connects, and a job deferred in between - after its first fetch, before the
    LISTEN - would wait for the 60 s poll (a stop-60 CI run timed out so, under load)."""
    task = asyncio.create_task(worker.run())

    async def registered() -> bool:
        return worker.worker_id is not None

    async def listens() -> bool:
        return all([await listening(worker.app, q) for q in worker.queues])

    await until(registered, "the worker to register")
    if worker.listen_notify:
        await until(listens, "the worker to LISTEN")
    return task


def test_without_wait_it_runs_every_job_and_unregisters() -> None:
    """Mirrors upstream's test_nominal / test_concurrency: jobs run, the worker row goes."""

    async def go() -> None:
        app, q = new_app(), queue()
        done: list[int] = []

        @app.task(queue=q)
        async def job(i: int) -> None:
            done.append(i)

        async with app.open_async():
            for i in range(4):
                await job.defer_async(i=i)
            worker = make_worker(app, q, wait=False, concurrency=2)
            await worker.run()
            assert sorted(done) == [0, 1, 2, 3]
            assert await statuses(app, q) == ["succeeded"] * 4
            assert worker.worker_id is None

    run(go())


def test_while_it_runs_it_holds_its_fence_and_a_notification_wakes_it() -> None:
    """Mirrors test_polling / LISTEN-NOTIFY pickup, with the fence ats.jobs.watchdog adds."""

    async def go() -> None:
        app, q = new_app(), queue()

        @app.task(queue=q)
        async def job() -> None:
            pass

        async with app.open_async():
            worker = make_worker(app, q)
            task = await started(worker)
            worker_id = worker.worker_id

            async def held() -> bool:
                return await fence_held(app, worker_id)

            await until(held, "the worker to hold its fence")
            assert await worker_rows(app, worker_id) == 1
            await asyncio.sleep(0.1)  # past the first (empty) fetch: only the NOTIFY can wake it
            await job.defer_async()

            async def ran() -> bool:
                return await statuses(app, q) == ["succeeded"]

            await until(ran, "the notified job to run (polling interval 60 s)", timeout=5.0)
            worker.stop()
            await task
            assert await worker_rows(app, worker_id) == 0

    run(go())


def test_a_continuation_under_the_parents_lock_starts_when_the_parent_ends() -> None:
    """The wake-up fix through real NOTIFY timing: the child's notification arrives at the
    parent's commit, while the parent still holds the lock."""

    async def go() -> None:
        app, q = new_app(), queue()
        ended: list[float] = []
        began: list[float] = []

        @app.task(queue=q)
        async def child() -> None:
            began.append(time.monotonic())

        @app.task(queue=q)
        async def parent() -> None:
            await child.configure(lock=q).defer_async()
            await asyncio.sleep(0.2)
            ended.append(time.monotonic())

        async with app.open_async():
            worker = make_worker(app, q, concurrency=2)
            task = await started(worker)
            await parent.configure(lock=q).defer_async()

            async def both() -> bool:
                return await statuses(app, q) == ["succeeded", "succeeded"]

            try:
                await until(both, "the continuation to run (polling interval 60 s)", timeout=5.0)
            finally:
                worker.stop()
                await task
        assert began[0] - ended[0] < 1.0

    run(go())


def test_stop_waits_for_the_running_job_and_an_abort_request_cancels_one() -> None:
    """Mirrors test_stopping_worker_waits_for_task and test_abort_async_task."""

    async def go() -> None:
        app, q = new_app(), queue()
        running = asyncio.Event()
        release = asyncio.Event()

        @app.task(queue=q)
        async def finishes() -> None:
            running.set()
            await release.wait()

        @app.task(queue=q)
        async def hangs() -> None:
            await asyncio.Event().wait()

        async with app.open_async():
            worker = make_worker(app, q, concurrency=2, abort_job_polling_interval=0.1)
            task = await started(worker)
            hung = await hangs.defer_async()
            await finishes.defer_async()
            await asyncio.wait_for(running.wait(), DEADLINE_S)
            assert await app.job_manager.cancel_job_by_id_async(hung, abort=True)

            async def aborted() -> bool:
                return await app.job_manager.get_job_status_async(hung) == Status.ABORTED

            await until(aborted, "the abort request to cancel the job")
            worker.stop()
            await asyncio.sleep(0.1)
            assert not task.done(), "stop() did not wait for the running job"
            release.set()
            await task
            assert await statuses(app, q) == ["aborted", "succeeded"]

    run(go())
