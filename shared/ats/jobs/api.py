"""Facade of the jobs module for task authors: declare a task, defer jobs, run an attempt.

Three audiences, three facades (issue 22): this one for the modules that own tasks
(declare, defer, read the attempt and its budget, follow and erase their own jobs);
`ats.jobs.ops_api` for operators (console, CLI, metrics: status, retry, cancel, pause);
`ats.jobs.worker_api` for the worker process and its health probe. pyproject.toml's
import contracts keep each audience on its own facade.
"""

from ats.jobs.deferral import FollowUps, NotInTransaction, defer, defer_many, follow_ups
from ats.jobs.erasure import jobs_erase_references, jobs_referencing
from ats.jobs.errors import JobError
from ats.jobs.handlers import HandlerNotRegistered, register_exhaustion_handler
from ats.jobs.ops import job_events_for
from ats.jobs.policy import PeriodicJob, TaskPolicy, periodic_cron, policy_for
from ats.jobs.queries import JobRef, active_job_for_lock, job_status, jobs_by_payload_key, stalled_after_s
from ats.jobs.runtime import (
    Attempt,
    Deadline,
    DeadlineExceeded,
    PermanentFailure,
    current_attempt,
    db_budget,
    defer_follow_ups_alone,
    run_follow_ups,
    task,
)
from ats.jobs.session import session_connection

__all__ = [
    "Attempt",
    "Deadline",
    "DeadlineExceeded",
    "FollowUps",
    "HandlerNotRegistered",
    "JobError",
    "JobRef",
    "NotInTransaction",
    "PeriodicJob",
    "PermanentFailure",
    "TaskPolicy",
    "active_job_for_lock",
    "current_attempt",
    "db_budget",
    "defer",
    "defer_follow_ups_alone",
    "defer_many",
    "follow_ups",
    "job_events_for",
    "job_status",
    "jobs_by_payload_key",
    "jobs_erase_references",
    "jobs_referencing",
    "periodic_cron",
    "policy_for",
    "register_exhaustion_handler",
    "run_follow_ups",
    "session_connection",
    "stalled_after_s",
    "task",
]
