"""Task-side runtime: retry strategy from the policy table, deadlines, the task decorator."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from procrastinate import JobContext, RetryDecision
from procrastinate import retry as procrastinate_retry
from procrastinate.contrib.django import app as procrastinate_app
from procrastinate.jobs import Job

from ats.jobs.policy import TaskPolicy, policy_for

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
ExhaustionHandler = Callable[..., None]


class PermanentFailure(Exception):
    """A failure that cannot change on retry (encrypted/corrupt file, unsupported type).

    Raised by task bodies after they have written the terminal domain state; the retry
    strategy never retries it, so a poison document does not burn attempts (ADR R3).
    """

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


class DeadlineExceeded(Exception):
    """The attempt's wall budget (policy `timeout_s`) is spent."""


class UnsupportedPayloadVersion(PermanentFailure):
    pass


@dataclasses.dataclass
class Deadline:
    expires_at: float  # time.monotonic() based

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def remaining(self) -> float:
        return self.expires_at - time.monotonic()

    def check(self) -> None:
        if self.remaining() <= 0:
            raise DeadlineExceeded("wall timeout of this attempt reached")


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


EXHAUSTION_HANDLERS: dict[str, ExhaustionHandler] = {}


def exhaustion_reason(exc: BaseException) -> tuple[str, str]:
    if isinstance(exc, PermanentFailure):
        return exc.code, exc.reason
    if isinstance(exc, DeadlineExceeded):
        return "timeout", "The step ran out of time on every attempt."
    return "error", f"{type(exc).__name__}: {exc}"[:500]


def _run_exhaustion(handler: ExhaustionHandler, exc: BaseException, payload: dict[str, Any]) -> None:
    code, reason = exhaustion_reason(exc)
    try:
        with transaction.atomic():
            handler(reason_code=code, reason=reason, **payload)
    except Exception:
        # The sweep will map this job to its domain state later; never mask the original.
        logger.exception("exhaustion handler failed for %s %s", handler, payload)


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
        wait = self.policy.backoff.wait_after(failed_runs) * settings.ATS["RETRY_TIME_SCALE"]
        return RetryDecision(retry_in={"seconds": wait})


def task(task_name: str, *, on_exhausted: ExhaustionHandler | None = None) -> Callable[[F], F]:
    """Register a thin task under its policy row.

    The body receives only its payload's ids (convention 4) plus `payload_version`; the
    wrapper strips the envelope, rejects payload versions outside the supported window,
    and exposes the attempt (number, deadline) through `current_attempt()`.

    `on_exhausted(reason_code=, reason=, **payload)` writes the domain terminal state
    when the attempt that just failed was the last one (or the failure is permanent). The
    body's own writes have rolled back by then, so it runs in a fresh transaction; a
    crash before it runs is caught by the periodic sweep (`ats.jobs.sweep`).
    """
    policy = policy_for(task_name)
    if on_exhausted is not None:
        EXHAUSTION_HANDLERS[task_name] = on_exhausted

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def run(context: JobContext, **payload: Any) -> Any:
            version = int(payload.pop("v", 1))
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
            try:
                return fn(payload_version=version, **payload)
            except Exception as exc:
                if on_exhausted is not None and (isinstance(exc, PermanentFailure) or attempt.is_last):
                    _run_exhaustion(on_exhausted, exc, payload)
                raise
            finally:
                _current.reset(token)

        procrastinate_app.task(
            name=task_name,
            queue=policy.queue,
            priority=policy.priority,
            retry=PolicyRetryStrategy(policy),
            pass_context=True,
        )(run)
        return fn

    return decorate
