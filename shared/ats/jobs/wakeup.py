"""The worker's fetch loop without its lost wake-ups (procrastinate 3.10).

A job deferred inside a running task waited for the next unrelated notification (250-360
ms while documents kept arriving) or for the whole polling interval (5 s) when none came.
Measured on paced uploads: `candidates.create_from_attachment`, deferred inside
`intake.apply_parse_result`, while every other hop started within ~20 ms. Two causes, both
in the worker's fetch loop:

1. **A released lock wakes nobody.** The continuation shares the parent's lock
   (`attachment:{id}`, ADR convention 3). Its NOTIFY arrives at the parent's COMMIT, while
   the parent is still `doing`; the fetch skips a job whose lock is held, and when the
   parent's status turns `succeeded` nothing notifies. The worker that ran the parent is
   the one that released the lock, so it now fetches again when a locked job of its own
   finishes (no SQL trigger, no extra NOTIFY: other workers could not run the job any
   sooner than this one). Every finished job wakes it, not only a locked one: the job
   also freed a slot of its queue's global cap (ats.jobs.concurrency). A job another
   process defers on a lock this worker's job holds is the same case (worker-untrusted's
   ats_parse_pages_done defers `intake.store_page_images` on the attachment's lock).

A pickup of a polling interval is not by itself a lost wake-up: behind a saturated queue's
cap, or higher-priority jobs on its lock, a job waits as long as they take (issue 26's 5-7
s `store_page_images`/`dedupe` pickups on a loaded machine; docs/benchmarks.md, "Backlog or
missed wake-up", and bench/paced_bench.py's `missed_wakeups` tell the two apart).
2. **A notification during a fetch is erased.** Upstream clears the "new job" event
   *after* each fetch query returns; a NOTIFY that lands while the query runs (for a job
   committed too late for it to see) is wiped and the worker sleeps with a runnable job.
   The event is now cleared *before* the fetch.
3. **A fetch that could only come back empty is not made** (issue 26): after a fetch that
   found no other job it could still take (its queue full once this job holds a slot, the
   other queues empty - the fetch says so: `more`, migration 0007), the loop waits as it
   would after the empty fetch it skips.

Everything else is upstream's code, but for the watchdog's drain flag (ats.jobs.watchdog),
checked where upstream checks its stop event. The subclass is installed only when upstream's method
is the one this was written against (its source hash); otherwise upstream runs unchanged
and the wake-up tests (tests/jobs/test_wakeup.py) fail, which is the signal to re-check.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
import time
from typing import Any

from procrastinate import job_context, utils
from procrastinate import worker as procrastinate_worker

from ats.jobs import concurrency
from ats.jobs.policy import POLICIES

logger = logging.getLogger(__name__)

# sha256 of the sources of procrastinate 3.10's Worker._fetch_and_process_jobs and
# Worker._handle_notification, the two methods overridden here.
UPSTREAM_SOURCE_SHA256 = "bad0b933f45ad5ffc819eb1c18f9a0b8b574318d01a76b3772de9bbe7426f0e7"

_Upstream = procrastinate_worker.Worker

# Queues that hold a cap-exempt task (the rescue): its job may start beside a full queue,
# so a notification there is never dropped.
_NEVER_FULL = frozenset(p.queue for p in POLICIES if p.task_name in concurrency.CAP_EXEMPT_TASKS)


def upstream_source_sha256() -> str:
    sources = inspect.getsource(_Upstream._fetch_and_process_jobs) + inspect.getsource(_Upstream._handle_notification)
    return hashlib.sha256(sources.encode()).hexdigest()


class Worker(_Upstream):
    # The watchdog (ats.jobs.watchdog) stops fetching through `_ats_draining` while the
    # heartbeat and the other jobs go on; upstream's loop would need a full stop().
    _ats_fetch_loop_drains = True

    async def _fetch_and_process_jobs(self) -> None:
        """Fetch and process jobs until there is no job left or asked to stop"""
        while not self._stop_event.is_set() and not getattr(self, "_ats_draining", False):
            acquire_sem_task = asyncio.create_task(self._job_semaphore.acquire())
            job = None
            try:
                await utils.wait_any(acquire_sem_task, self._stop_event.wait())
                if self._stop_event.is_set() or getattr(self, "_ats_draining", False):
                    break

                assert self.worker_id is not None
                # The one change: forget only the notifications this fetch can see.
                self._new_job_event.clear()
                job = await self.app.job_manager.fetch_job(queues=self.queues, worker_id=self.worker_id)
            finally:
                if (not job or self._stop_event.is_set()) and acquire_sem_task.done():
                    self._job_semaphore.release()

            if not job:
                break

            job_id = job.id

            def abort_reason(job_id: int | None = job_id) -> Any:
                return self._job_ids_to_abort.get(job_id) if job_id else None

            context = job_context.JobContext(
                app=self.app,
                worker_name=self.worker_name,
                worker_queues=self.queues,
                additional_context=self.additional_context.copy() if self.additional_context else {},
                job=job,
                abort_reason=abort_reason,
                start_timestamp=time.time(),
            )
            job_task = asyncio.create_task(
                self._process_job(context),
                name=f"process job {job.task_name}[{job.id}]",
            )
            self._running_jobs[job_task] = context

            def on_job_complete(task: asyncio.Task[None]) -> None:
                del self._running_jobs[task]
                self._job_semaphore.release()
                # Its status is persisted by now: a job waiting on this lock, or on a free
                # slot of its queue's global cap (ats.jobs.concurrency), is fetchable.
                self._new_job_event.set()

            job_task.add_done_callback(on_job_complete)

            # 3. The fetch said a second one would come back empty (migration 0007: no
            # other job it found could still be taken): wait for a notification or a
            # job's end instead of asking. Only a waiting worker: one
            # run with wait=False stops at its first empty fetch, and must still fetch
            # what its running job defers.
            if self.wait and not concurrency.fetch_may_find_more(self.app.job_manager, self.worker_id):
                break

    async def _handle_notification(self, *, channel: str, notification: Any) -> None:
        # Issue 26: in a backlog the `ingest` queue sits at its cap (2) and every job
        # deferred into it (four a document) notified this worker into a fetch that could
        # only come back empty - ~1 ms of its CPU and Postgres's each. A notification for
        # a queue whose whole cap this process runs is dropped: no process can start that
        # job before one of ours ends, and our job's end wakes this loop (on_job_complete).
        if notification.get("type") == "job_inserted" and self._full_here(channel):
            return
        await super()._handle_notification(channel=channel, notification=notification)

    def _full_here(self, channel: str) -> bool:
        """Whether this process alone runs the global cap of the channel's queue."""
        prefix, _, queue = channel.partition("#")
        if prefix != "procrastinate_queue_v1" or queue in _NEVER_FULL or not concurrency.installed():
            return False
        running = sum(
            1
            for context in self._running_jobs.values()
            if context.job is not None
            and context.job.queue == queue
            and context.job.task_name not in concurrency.CAP_EXEMPT_TASKS
        )
        return running >= concurrency.cap_of(queue)


def install() -> bool:
    """Use the fixed fetch loop for every worker this process starts. Idempotent."""
    if issubclass(procrastinate_worker.Worker, Worker):
        return True
    actual = upstream_source_sha256()
    if actual != UPSTREAM_SOURCE_SHA256:
        logger.warning(
            "procrastinate's fetch loop or notification handler changed (source sha256 %s): the wake-up "
            "fix is not installed; re-check ats.jobs.wakeup against the new version",
            actual,
        )
        return False
    procrastinate_worker.Worker = Worker  # type: ignore[misc]
    return True
