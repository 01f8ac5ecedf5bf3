"""Transactional defer, the same in web, CLI and worker processes.

Inside `manage.py procrastinate worker` the app's connector is swapped for a psycopg pool,
so a plain `task.defer()` in a task body is NOT in the task's ORM transaction (measured:
rollback left the job behind; on success the child often started before the parent
committed). Deferring through a JobManager bound to Django's connection of the calling
thread keeps the job row in the caller's transaction everywhere.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import structlog
from django.db import connection, transaction
from django.utils import timezone
from procrastinate.contrib.django.django_connector import DjangoConnector
from procrastinate.exceptions import AlreadyEnqueued
from procrastinate.jobs import Job, JobDeferrer
from procrastinate.manager import JobManager

from ats.jobs.errors import JobError
from ats.jobs.policy import TaskPolicy, policy_for

# DjangoConnector resolves connections[alias] per call, i.e. per thread: one module-level
# manager is safe for gunicorn threads and the worker's executor threads alike.
_manager = JobManager(connector=DjangoConnector())


class NotInTransaction(JobError, RuntimeError):
    pass


@dataclasses.dataclass
class FollowUps:
    """Follow-up jobs collected instead of deferred one by one (issue 26: jobs per document).

    Inside `with follow_ups(*task_names) as batch:`, `defer()` of one of those tasks (no
    delay) records `[task_name, payload]` here, once per distinct payload, and returns
    None (as for a job already queued). `batch.defer_as_one(task, **ids)` then queues ONE job
    carrying every step, in the caller's transaction; that task's body calls
    `run_follow_ups(steps)`. Each step stays idempotent and re-reads its state, so running
    them late or together changes nothing they decide.

    `together`: tasks deferred as their own jobs, unchanged, but sent with the batch's job
    in ONE statement when the caller ends the batch (issue 26: the candidate step's score
    jobs and its follow-ups were two defers, two round trips). Only jobs without a queueing
    lock and without a delay are held; the caller ends the batch with `defer_as_one` or
    `defer_alone` inside the `with` block (leaving it with jobs still held raises), in the
    same transaction (a rollback before that drops them with it).
    """

    task_names: frozenset[str]
    steps: list[list[Any]] = dataclasses.field(default_factory=list)
    together: frozenset[str] = frozenset()
    held: list[Job] = dataclasses.field(default_factory=list)

    def add(self, task_name: str, payload: Mapping[str, Any]) -> None:
        step = [task_name, dict(payload)]
        if step not in self.steps:
            self.steps.append(step)

    def defer_as_one(self, task_name: str, **ids: Any) -> int | None:
        """Queue the batch as one `task_name` job (nothing when no step was collected),
        with the jobs held (`together`)."""
        if not self.steps:
            self._send([])
            return None
        payload = {**ids, "steps": self.steps}
        job = _job(task_name, payload)
        if job.queueing_lock:  # a clash would abort the whole statement: on its own
            job_id = defer(task_name, payload=payload)
            self._send([])
            return job_id
        return self._send([job])[0]

    def defer_alone(self) -> None:
        """Queue every collected step as its own job, as if nothing had been collected,
        and the jobs held (`together`)."""
        for task_name, payload in self.steps:
            defer(task_name, payload=payload)
        self._send([])

    def _send(self, first: list[Job]) -> list[int]:
        jobs, self.held = [*first, *self.held], []
        if not jobs:
            return []
        if not connection.in_atomic_block:
            raise NotInTransaction("follow-ups sent outside transaction.atomic() (ADR 0004 convention 2)")
        return [int(j.id) for j in _manager.batch_defer_jobs(jobs=jobs) if j.id is not None]


_collecting: contextvars.ContextVar[FollowUps | None] = contextvars.ContextVar("ats_follow_ups", default=None)


@contextlib.contextmanager
def follow_ups(*task_names: str, together: Sequence[str] = ()) -> Iterator[FollowUps]:
    """Collect deferrals of `task_names` into one batch, and hold those of `together` to
    send with it (see FollowUps). The caller discards the batch when its own work rolls
    back (leave the block by the exception)."""
    for name in (*task_names, *together):
        policy_for(name)  # an unknown task raises here, not when the batch runs
    batch = FollowUps(frozenset(task_names), together=frozenset(together))
    token = _collecting.set(batch)
    try:
        yield batch
        if batch.held:
            # Held jobs that were never sent would be lost with no trace: the caller ends
            # the batch inside the block (defer_as_one / defer_alone). Raising rolls its
            # transaction back, so the job retries and fails loudly rather than silently.
            raise RuntimeError(f"follow-ups batch left with {len(batch.held)} held job(s) not sent")
    finally:
        _collecting.reset(token)


def defer(
    task_name: str, *, payload: Mapping[str, Any], delay_s: float | None = None, beside_running: bool = False
) -> int | None:
    """Enqueue `task_name` inside the caller's open transaction.

    Returns the job id, or None when a job with the same queueing lock is already
    waiting or running (that job does the work: per-entity tasks are idempotent and read
    the entity's state when they run), or when a FollowUps batch collected or holds it
    (sent when the batch ends). Refuses to run outside `transaction.atomic()`: a defer
    that commits on its own reopens the lost-job window ADR 0004 exists to close (R1).

    `beside_running=True` is for a job queuing its own continuation as its very last
    step (it cannot fail or retry after that, so no collision is possible).
    """
    if not connection.in_atomic_block:
        raise NotInTransaction(
            f"defer({task_name!r}) outside transaction.atomic(): enqueue in the transaction "
            "that creates the referenced row (ADR 0004 convention 2)"
        )
    batch = _collecting.get()
    if batch is not None and task_name in batch.task_names and not delay_s and not beside_running:
        batch.add(task_name, payload)
        return None
    job = _job(task_name, payload, delay_s=delay_s)
    if batch is not None and task_name in batch.together and not (job.queueing_lock or delay_s or beside_running):
        batch.held.append(job)
        return None
    if job.queueing_lock and not beside_running and _running(job.queueing_lock):
        # procrastinate's queueing lock is unique among `todo` jobs only. A twin queued
        # beside a running job makes the running job's retry collide with it (unique
        # violation): the retry is lost and the job stays `doing` forever, holding its
        # lock. So a request during a run is coalesced into the run.
        return None
    if not job.queueing_lock:
        # Nothing unique to clash with: no savepoint (two round trips saved per hop of a
        # document's chain; docs/benchmarks.md).
        return JobDeferrer(job_manager=_manager, job=job).defer()
    try:
        # A savepoint: a queueing-lock clash must not abort the caller's whole unit of work.
        with transaction.atomic():
            return JobDeferrer(job_manager=_manager, job=job).defer()
    except AlreadyEnqueued:
        return None


def _job(task_name: str, payload: Mapping[str, Any], *, delay_s: float | None = None) -> Job:
    policy = policy_for(task_name)
    scheduled_at: datetime.datetime | None = None
    if delay_s:
        scheduled_at = timezone.now() + datetime.timedelta(seconds=delay_s)
    return Job(
        queue=policy.queue,
        priority=policy.priority,
        lock=policy.lock_for(payload),
        queueing_lock=policy.queueing_lock_for(payload),
        task_name=task_name,
        task_kwargs=_envelope(policy, payload),
        scheduled_at=scheduled_at,
    )


def _envelope(policy: TaskPolicy, payload: Mapping[str, Any]) -> dict[str, Any]:
    # payload_version 0 marks a task we do not own (procrastinate builtins): no envelope.
    if not policy.payload_version:
        return dict(payload)
    kwargs = {**payload, "v": policy.payload_version}
    if policy.request_id_since is not None and policy.payload_version >= policy.request_id_since:
        # The web request (or the job) that defers this: log lines of the job carry it.
        rid = structlog.contextvars.get_contextvars().get("request_id")
        if rid:
            kwargs["rid"] = str(rid)
    return kwargs


def defer_many(task_name: str, *, payloads: Sequence[Mapping[str, Any]]) -> list[int]:
    """Enqueue many jobs of one task in ONE statement, inside the caller's transaction.

    The batch form of `defer` for fan-out (a batch rescore): procrastinate's own
    `batch_defer` inside a worker goes through the worker's pool, outside the task's
    transaction (measured-facts); this goes through the caller's Django connection like
    `defer`. Tasks with a queueing lock are refused: one clash would abort the whole batch,
    so per-entity serial work keeps using `defer` (one savepoint each).
    """
    if not connection.in_atomic_block:
        raise NotInTransaction(
            f"defer_many({task_name!r}) outside transaction.atomic(): enqueue in the transaction "
            "that creates the referenced rows (ADR 0004 convention 2)"
        )
    policy = policy_for(task_name)
    if policy.queueing_lock:
        raise ValueError(f"{task_name} has a queueing lock: defer its jobs one by one with defer()")
    if not payloads:
        return []
    jobs = [
        Job(
            queue=policy.queue,
            priority=policy.priority,
            lock=policy.lock_for(payload),
            queueing_lock=None,
            task_name=task_name,
            task_kwargs=_envelope(policy, payload),
        )
        for payload in payloads
    ]
    return [int(j.id) for j in _manager.batch_defer_jobs(jobs=jobs) if j.id is not None]


def _running(queueing_lock: str) -> bool:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT 1 FROM procrastinate_jobs WHERE queueing_lock = %s AND status = 'doing' LIMIT 1",
            [queueing_lock],
        )
        return cur.fetchone() is not None
