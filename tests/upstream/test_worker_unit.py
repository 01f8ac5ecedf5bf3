"""procrastinate's worker contract, run against the Worker classes this project installs.

procrastinate's sdist ships no tests, and code from its repository is not copied into this
one (README.md beside this file), so these are this project's own tests of the worker
behaviours upstream's `tests/unit/test_worker.py` (3.10) covers - each names the upstream
test it mirrors. Every test runs twice: against procrastinate's own Worker (proving the
test states upstream's behaviour, not ours) and against ats.jobs.wakeup.Worker (the fetch
loop every worker process runs). An upgrade that changes what our override assumes fails
here, or in the source-hash guards (tests/jobs/test_wakeup.py, test_watchdog_guard.py).

In-memory connector, no database, no pytest-asyncio: each test is one asyncio.run().
Waits wait for the event (a polled condition with a deadline), never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from procrastinate import App, JobContext, RetryStrategy
from procrastinate.jobs import Status
from procrastinate.testing import InMemoryConnector

from ats.jobs import wakeup

pytestmark = pytest.mark.unit

WORKERS = {"upstream": wakeup._Upstream, "ats": wakeup.Worker}
DEADLINE_S = 10.0  # generous: a missed event fails by timing out, load only slows a pass


@pytest.fixture(params=sorted(WORKERS))
def worker_cls(request: pytest.FixtureRequest) -> type:
    return WORKERS[request.param]


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 3 * DEADLINE_S))


async def until(condition: Callable[[], bool], what: str, timeout: float = DEADLINE_S) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def new_app() -> tuple[App, InMemoryConnector]:
    connector = InMemoryConnector()
    return App(connector=connector), connector


def make_worker(worker_cls: type, app: App, **kwargs: Any) -> Any:
    kwargs.setdefault("wait", True)
    kwargs.setdefault("install_signal_handlers", False)
    kwargs.setdefault("fetch_job_polling_interval", 60.0)  # a poll must not hide a missed wake-up
    return worker_cls(app=app, queues=["q"], **kwargs)


async def started(worker: Any, connector: InMemoryConnector) -> asyncio.Task[Any]:
    task = asyncio.create_task(worker.run())
    await until(lambda: bool(connector.workers), "the worker to register")
    return task


def statuses(connector: InMemoryConnector) -> list[str]:
    return sorted(job["status"] for job in connector.jobs.values())


@pytest.mark.parametrize("concurrency", [1, 3])
def test_run_without_wait_processes_every_available_job_then_returns(worker_cls: type, concurrency: int) -> None:
    """Mirrors test_worker_run_no_wait."""

    async def go() -> None:
        app, connector = new_app()
        done: list[int] = []

        @app.task(queue="q")
        async def job(i: int) -> None:
            done.append(i)

        async with app.open_async():
            for i in range(5):
                await job.defer_async(i=i)
            await make_worker(worker_cls, app, wait=False, concurrency=concurrency).run()
        assert sorted(done) == [0, 1, 2, 3, 4]
        assert statuses(connector) == ["succeeded"] * 5
        assert connector.workers == {}, "the worker row outlived the worker"

    run(go())


def test_concurrency_is_never_exceeded(worker_cls: type) -> None:
    """Mirrors test_worker_run_respects_concurrency."""

    async def go() -> None:
        app, connector = new_app()
        active = 0
        peak = 0

        @app.task(queue="q")
        async def job() -> None:
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.02)
            active -= 1

        async with app.open_async():
            for _ in range(6):
                await job.defer_async()
            await make_worker(worker_cls, app, wait=False, concurrency=2).run()
        assert peak == 2
        assert statuses(connector) == ["succeeded"] * 6

    run(go())


def test_a_waiting_worker_fetches_a_job_deferred_later_on_its_notification(worker_cls: type) -> None:
    """Mirrors test_worker_run_fetches_job_on_notification (polling interval 60 s)."""

    async def go() -> None:
        app, connector = new_app()

        @app.task(queue="q")
        async def job() -> None:
            pass

        async with app.open_async():
            worker = make_worker(worker_cls, app)
            task = await started(worker, connector)
            await asyncio.sleep(0.05)  # let the first (empty) fetch pass
            await job.defer_async()
            await until(lambda: statuses(connector) == ["succeeded"], "the notified job to run")
            worker.stop()
            await task

    run(go())


def test_without_listen_notify_the_poll_fetches_it(worker_cls: type) -> None:
    """Mirrors test_worker_run_respects_polling."""

    async def go() -> None:
        app, connector = new_app()

        @app.task(queue="q")
        async def job() -> None:
            pass

        async with app.open_async():
            worker = make_worker(worker_cls, app, listen_notify=False, fetch_job_polling_interval=0.05)
            task = await started(worker, connector)
            await job.defer_async()
            await until(lambda: statuses(connector) == ["succeeded"], "the polled job to run")
            worker.stop()
            await task

    run(go())


def test_stop_waits_for_the_running_job(worker_cls: type) -> None:
    """Mirrors test_stopping_worker_waits_for_task."""

    async def go() -> None:
        app, connector = new_app()
        running = asyncio.Event()
        release = asyncio.Event()

        @app.task(queue="q")
        async def job() -> None:
            running.set()
            await release.wait()

        async with app.open_async():
            worker = make_worker(worker_cls, app)
            task = await started(worker, connector)
            await job.defer_async()
            await asyncio.wait_for(running.wait(), DEADLINE_S)
            worker.stop()
            await asyncio.sleep(0.05)
            assert not task.done(), "stop() did not wait for the running job"
            release.set()
            await task
        assert statuses(connector) == ["succeeded"]
        assert connector.workers == {}

    run(go())


def test_stop_aborts_a_job_still_running_after_the_graceful_timeout(worker_cls: type) -> None:
    """Mirrors test_stopping_worker_aborts_job_after_timeout (mode stop)."""

    async def go() -> None:
        app, connector = new_app()
        running = asyncio.Event()
        cancelled = False

        @app.task(queue="q")
        async def job() -> None:
            nonlocal cancelled
            running.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled = True
                raise

        async with app.open_async():
            worker = make_worker(worker_cls, app, shutdown_graceful_timeout=0.05)
            task = await started(worker, connector)
            job_id = await job.defer_async()
            await asyncio.wait_for(running.wait(), DEADLINE_S)
            worker.stop()
            await task
            assert await app.job_manager.get_job_status_async(job_id) == Status.ABORTED
        assert cancelled

    run(go())


def test_an_abort_request_cancels_a_running_async_job(worker_cls: type) -> None:
    """Mirrors test_abort_async_job."""

    async def go() -> None:
        app, connector = new_app()
        running = asyncio.Event()

        @app.task(queue="q")
        async def job() -> None:
            running.set()
            await asyncio.Event().wait()

        async with app.open_async():
            worker = make_worker(worker_cls, app, abort_job_polling_interval=0.05)
            task = await started(worker, connector)
            job_id = await job.defer_async()
            await asyncio.wait_for(running.wait(), DEADLINE_S)
            assert await app.job_manager.cancel_job_by_id_async(job_id, abort=True)
            await until(lambda: statuses(connector) == ["aborted"], "the job to be aborted")
            worker.stop()
            await task

    run(go())


def test_a_failing_job_is_retried_then_marked_failed(worker_cls: type) -> None:
    """Mirrors test_run_job_retry_failed_job and test_run_job_error."""

    async def go() -> None:
        app, connector = new_app()
        attempts = 0

        @app.task(queue="q", retry=RetryStrategy(max_attempts=1, wait=0))
        async def job() -> None:
            nonlocal attempts
            attempts += 1
            raise ValueError("boom")

        async with app.open_async():
            await job.defer_async()
            await make_worker(worker_cls, app, wait=False).run()
        assert attempts == 2
        (row,) = connector.jobs.values()
        assert (row["status"], row["attempts"]) == ("failed", 2)

    run(go())


def test_a_sync_task_runs_in_a_thread_with_the_job_context(worker_cls: type) -> None:
    """Mirrors test_run_job_sync and test_worker_passes_additional_context."""

    async def go() -> None:
        app, _connector = new_app()
        seen: dict[str, Any] = {}

        @app.task(queue="q", pass_context=True)
        def job(context: JobContext, a: int) -> int:
            seen.update(thread=threading.get_ident(), extra=context.additional_context, a=a)
            return a * 2

        async with app.open_async():
            await job.defer_async(a=21)
            await make_worker(worker_cls, app, wait=False, additional_context={"k": "v"}).run()
        assert seen["thread"] != threading.get_ident()
        assert (seen["extra"], seen["a"]) == ({"k": "v"}, 21)

    run(go())


def test_delete_jobs_always_removes_finished_jobs(worker_cls: type) -> None:
    """Mirrors test_process_job_with_deletion."""

    async def go() -> None:
        app, connector = new_app()

        @app.task(queue="q")
        async def job() -> None:
            pass

        async with app.open_async():
            await job.defer_async()
            await make_worker(worker_cls, app, wait=False, delete_jobs="always").run()
        assert connector.jobs == {}

    run(go())


def test_jobs_sharing_a_lock_never_overlap(worker_cls: type) -> None:
    """The lock contract both fetch loops rely on (upstream's acceptance test_lock)."""

    async def go() -> None:
        app, connector = new_app()
        active = 0
        peak = 0

        @app.task(queue="q")
        async def job() -> None:
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.02)
            active -= 1

        async with app.open_async():
            for _ in range(3):
                await job.configure(lock="L").defer_async()
            worker = make_worker(worker_cls, app, concurrency=3, fetch_job_polling_interval=0.05)
            task = await started(worker, connector)
            await until(lambda: statuses(connector) == ["succeeded"] * 3, "the locked jobs to run")
            worker.stop()
            await task
        assert peak == 1

    run(go())


# --- the two places ats.jobs.wakeup departs from upstream ---------------------------------


async def _continuation_wait(worker_cls: type) -> float:
    """Seconds from a locked parent's end to the start of the child it deferred under the
    same lock. The child's NOTIFY lands while the parent holds the lock; nothing else
    notifies, and the polling interval is 60 s."""
    app, connector = new_app()
    ended: list[float] = []
    child_started: list[float] = []

    @app.task(queue="q")
    async def child() -> None:
        child_started.append(time.monotonic())

    @app.task(queue="q")
    async def parent() -> None:
        await child.configure(lock="L").defer_async()
        # As with Postgres, where the NOTIFY arrives at the deferral's commit: the worker
        # wakes and fetches while this job still holds the lock, and finds nothing.
        await asyncio.sleep(0.05)
        ended.append(time.monotonic())

    async with app.open_async():
        # Concurrency above 1 (as every deployable runs): with one slot the loop would sit
        # on the semaphore until the parent ended, then fetch - no wake-up needed.
        worker = make_worker(worker_cls, app, concurrency=2)
        task = await started(worker, connector)
        await parent.configure(lock="L").defer_async()
        try:
            await until(lambda: bool(child_started), "the continuation to start", timeout=2.0)
        finally:
            worker.stop()
            await task
    return child_started[0] - ended[0]


def test_a_continuation_sharing_its_parents_lock_starts_when_the_parent_ends() -> None:
    """The wake-up fix (cause 1): upstream sleeps until the next poll (see the next test)."""
    assert run(_continuation_wait(wakeup.Worker)) < 1.0


def test_upstream_still_waits_for_the_poll_so_the_fix_is_still_needed() -> None:
    """When this fails, upstream wakes itself when a job ends: drop ats.jobs.wakeup's override."""
    with pytest.raises(AssertionError, match="the continuation to start"):
        run(_continuation_wait(wakeup._Upstream))


def test_draining_stops_fetching_while_the_running_job_finishes() -> None:
    """The watchdog's drain flag (ats.jobs.watchdog): no new fetch, the in-flight job ends
    normally, the worker keeps running (its heartbeat goes on) until stopped."""

    async def go() -> None:
        app, connector = new_app()
        running = asyncio.Event()
        release = asyncio.Event()

        @app.task(queue="q")
        async def slow() -> None:
            running.set()
            await release.wait()

        @app.task(queue="q")
        async def later() -> None:
            pass

        async with app.open_async():
            worker = make_worker(wakeup.Worker, app, concurrency=2, fetch_job_polling_interval=0.05)
            task = await started(worker, connector)
            await slow.defer_async()
            await asyncio.wait_for(running.wait(), DEADLINE_S)
            worker._ats_draining = True
            await later.defer_async()
            release.set()
            await until(lambda: "succeeded" in statuses(connector), "the in-flight job to finish")
            await asyncio.sleep(0.2)  # four polling intervals: a fetch would have run `later`
            assert statuses(connector) == ["succeeded", "todo"]
            assert not task.done()
            worker.stop()
            await task

    run(go())
