"""Task-side runtime: retry strategy from the policy table, deadlines, the task decorator."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import structlog
from django.db import connection, transaction
from procrastinate import JobContext, RetryDecision
from procrastinate import retry as procrastinate_retry
from procrastinate.contrib.django import app as procrastinate_app
from procrastinate.jobs import Job

from ats import deadline as deadline_mod
from ats.config.env import ats_settings
from ats.jobs import attempts
from ats.jobs.deferral import defer
from ats.jobs.errors import JobError
from ats.jobs.handlers import exhaustion_handler
from ats.jobs.policy import TaskPolicy, policy_for

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


class PermanentFailure(JobError):
    """A failure that cannot change on retry (encrypted/corrupt file, unsupported type).

    Raised by task bodies after they have written the terminal domain state; the retry
    strategy never retries it, so a poison document does not burn attempts (ADR R3).
    """

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


class DeadlineExceeded(JobError, deadline_mod.DeadlineExceeded):
    """The attempt's wall budget (policy `timeout_s`) is spent."""


class UnsupportedPayloadVersion(PermanentFailure):
    pass


# The one Deadline type (ats.deadline), shared with the mail channel. Its check() names the
# exception to raise: the job runtime's own DeadlineExceeded, which exhaustion_reason()
# reports as a timeout.
Deadline = deadline_mod.Deadline


@dataclasses.dataclass(frozen=True)
class Attempt:
    """What a running task knows about its own job."""

    job_id: int | None
    task_name: str
    number: int  # 1-based
    policy: TaskPolicy
    deadline: Deadline

    @property
    def is_last(self) -> bool:
        return self.number >= self.policy.attempts


_current: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar("ats_attempt", default=None)

# task name -> the undecorated body, for a batch of follow-ups that runs several steps in
# one job (run_follow_ups); each body still re-reads its own state (convention 5).
_BODIES: dict[str, Callable[..., Any]] = {}


def current_attempt() -> Attempt | None:
    return _current.get()


@contextlib.contextmanager
def db_budget(deadline: Deadline | None = None) -> Iterator[None]:
    """Bound the database work of the current transaction by the attempt's remaining budget.

    `SET LOCAL` dies with the transaction, so a timed-out statement aborts the whole
    attempt's unit of work and nothing from it is committed.
    """
    deadline = deadline or (a.deadline if (a := current_attempt()) else None)
    if deadline is None:
        yield
        return
    if not connection.in_atomic_block:
        raise RuntimeError("db_budget() must be used inside transaction.atomic()")
    remaining_ms = int(deadline.remaining() * 1000)
    if remaining_ms <= 0:
        raise DeadlineExceeded("wall timeout of this attempt reached before the database work")
    with connection.cursor() as cur:
        cur.execute("SELECT set_config('statement_timeout', %s, true)", [f"{remaining_ms}ms"])
    yield


def exhaustion_reason(exc: BaseException) -> tuple[str, str]:
    if isinstance(exc, PermanentFailure):
        return exc.code, exc.reason
    if isinstance(exc, DeadlineExceeded):
        return "timeout", "The step ran out of time on every attempt."
    return "error", f"{type(exc).__name__}: {exc}"[:500]


def run_exhaustion(policy: TaskPolicy, exc: BaseException, payload: dict[str, Any]) -> None:
    handler = exhaustion_handler(policy)
    if handler is None:
        return
    code, reason = exhaustion_reason(exc)
    try:
        with transaction.atomic():
            handler(reason_code=code, reason=reason, **payload)
    except Exception:
        # The sweep maps this job to its domain state later; never mask the original.
        logger.exception("exhaustion handler failed for %s %s", policy.task_name, payload)


class PolicyRetryStrategy(procrastinate_retry.BaseRetryStrategy):
    """Retries per the policy row; waits are scaled by ATS.RETRY_TIME_SCALE (tests)."""

    def __init__(self, policy: TaskPolicy) -> None:
        self.policy = policy

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        if isinstance(exception, PermanentFailure):
            return None
        failed_runs = job.attempts + 1  # job.attempts counts the runs before this one
        if failed_runs >= self.policy.attempts:
            return None
        wait = self.policy.backoff.wait_after(failed_runs) * ats_settings()["RETRY_TIME_SCALE"]
        return RetryDecision(retry_in={"milliseconds": int(wait * 1000)})


def _fixed(template: str | None) -> str | None:
    return template if template and "{" not in template else None


def task(task_name: str, *, periodic: str | None = None) -> Callable[[F], F]:
    """Register a thin task under its policy row.

    The body receives only its payload's ids (convention 4) plus `payload_version`; the
    wrapper strips the envelope, rejects payload versions outside the supported window,
    and exposes the attempt (number, deadline) through `current_attempt()`.

    When the attempt that just failed was the last one (or the failure is permanent),
    the policy row's exhaustion handler writes the domain terminal state. The body's own
    writes have rolled back by then, so it runs in a fresh transaction; a crash before it
    runs is caught by the periodic sweep (`ats.jobs.maintenance`).

    `periodic` (procrastinate cron, 6 fields with seconds last) schedules the task.
    """
    policy = policy_for(task_name)

    def decorate(fn: F) -> F:
        _BODIES[task_name] = fn

        @functools.wraps(fn)
        def run(context: JobContext, **payload: Any) -> Any:
            version = int(payload.pop("v", 1))
            # Envelope, not payload: absent from v1 jobs, which must still run (ADR §6).
            request_id = payload.pop("rid", None)
            if not policy.min_payload_version <= version <= policy.payload_version:
                raise UnsupportedPayloadVersion(
                    "payload_version", f"{task_name} payload v{version} is outside the supported window"
                )
            job = context.job
            attempt = Attempt(
                job_id=job.id,
                task_name=task_name,
                number=job.attempts + 1,
                policy=policy,
                deadline=Deadline.after(policy.timeout_s),
            )
            token = _current.set(attempt)
            # Every log line of this attempt (and the jobs it defers: request_id) carries
            # these; ids only - payloads never hold personal data (convention 4).
            log_context = {
                "job_id": job.id,
                "task": task_name,
                "attempt": attempt.number,
                "queue": policy.queue,
                **{k: v for k, v in payload.items() if k.endswith("_id") or k == "attempt_no"},
            }
            if request_id:
                log_context["request_id"] = request_id
            worker = context.worker_name or ""
            # The run's record (issue 24 item 1): written outside the body's transaction.
            attempts.record_start(job, attempt.number, worker)
            try:
                with structlog.contextvars.bound_contextvars(**log_context):
                    result = fn(payload_version=version, **payload)
            except Exception as exc:
                attempts.record_failure(job, attempt.number, worker, exc)
                if policy.exhaustion_in_task and (isinstance(exc, PermanentFailure) or attempt.is_last):
                    run_exhaustion(policy, exc, payload)
                raise
            else:
                # Its success is recorded by procrastinate's finish (jobs migration 0005).
                return result
            finally:
                _current.reset(token)

        registered = procrastinate_app.task(
            name=task_name,
            queue=policy.queue,
            priority=policy.priority,
            retry=PolicyRetryStrategy(policy),
            pass_context=True,
            # Only fixed strings here (periodic/builtin deferral); templated locks are
            # formatted from the payload by ats.jobs.defer.
            lock=_fixed(policy.lock),
            queueing_lock=_fixed(policy.queueing_lock),
        )(run)
        if periodic:
            procrastinate_app.periodic(cron=periodic, periodic_id=task_name)(registered)  # type: ignore[arg-type]
        return fn

    return decorate


def run_follow_ups(steps: list[list[Any]]) -> list[str]:
    """Run a batch of follow-up steps (`[task_name, payload]`, as `FollowUps` collected
    them) one after the other in this job, each in its own transactions as its own job
    would. A step that fails is deferred alone, under its own name, retries and
    exhaustion handler (its failure state stays what it was), and the batch goes on.
    Returns each step's outcome, `ok` or `deferred`."""
    outcomes = []
    for task_name, payload in steps:
        policy = policy_for(task_name)
        try:
            body = _BODIES[task_name]
            body(payload_version=policy.payload_version, **payload)
        except Exception:
            # Ids only in the log line (convention 4): the payloads hold nothing else.
            logger.warning("follow-up %s %s failed in its batch: deferred alone", task_name, payload, exc_info=True)
            with transaction.atomic():
                defer(task_name, payload=payload)
            outcomes.append("deferred")
        else:
            outcomes.append("ok")
    return outcomes


def defer_follow_ups_alone(steps: list[list[Any]]) -> None:
    """A batch that ran out of attempts (the database itself failing, say): every step
    becomes its own job again, so each ends in its own failure state if it fails too."""
    with transaction.atomic():
        for task_name, payload in steps:
            defer(task_name, payload=payload)
