"""Facade of the jobs module: the one way to declare tasks, defer jobs and read job state."""

from ats.jobs.deferral import NotInTransaction, defer
from ats.jobs.policy import (
    BUILTIN_QUEUE,
    DEFAULT_QUEUES,
    PERIODIC,
    POLICIES,
    QUEUES,
    UNTRUSTED_QUEUES,
    PeriodicJob,
    TaskPolicy,
    periodic_cron,
    policy_for,
)
from ats.jobs.queries import JobRef, job_detail, jobs_by_payload_key, queue_stats, stalled_after_s
from ats.jobs.registry import registered_periodic, registered_task_names
from ats.jobs.runtime import (
    Attempt,
    Deadline,
    DeadlineExceeded,
    PermanentFailure,
    current_attempt,
    db_budget,
    task,
)

__all__ = [
    "BUILTIN_QUEUE",
    "DEFAULT_QUEUES",
    "PERIODIC",
    "POLICIES",
    "QUEUES",
    "UNTRUSTED_QUEUES",
    "Attempt",
    "Deadline",
    "DeadlineExceeded",
    "JobRef",
    "NotInTransaction",
    "PeriodicJob",
    "PermanentFailure",
    "TaskPolicy",
    "current_attempt",
    "db_budget",
    "defer",
    "job_detail",
    "jobs_by_payload_key",
    "periodic_cron",
    "policy_for",
    "queue_stats",
    "registered_periodic",
    "registered_task_names",
    "stalled_after_s",
    "task",
]
