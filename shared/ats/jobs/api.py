"""Facade of the jobs module: the one way to declare tasks, defer jobs and read job state."""

from ats.jobs.deferral import NotInTransaction, defer, defer_many
from ats.jobs.policy import (
    BUILTIN_QUEUE,
    DEFAULT_QUEUES,
    POLICIES,
    QUEUES,
    UNTRUSTED_QUEUES,
    TaskPolicy,
    policy_for,
)
from ats.jobs.queries import (
    JobRef,
    active_job_for_lock,
    job_detail,
    job_status,
    jobs_by_payload_key,
    queue_stats,
    stalled_after_s,
)
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
    "POLICIES",
    "QUEUES",
    "UNTRUSTED_QUEUES",
    "Attempt",
    "Deadline",
    "DeadlineExceeded",
    "JobRef",
    "NotInTransaction",
    "PermanentFailure",
    "TaskPolicy",
    "active_job_for_lock",
    "current_attempt",
    "db_budget",
    "defer",
    "defer_many",
    "job_detail",
    "job_status",
    "jobs_by_payload_key",
    "policy_for",
    "queue_stats",
    "stalled_after_s",
    "task",
]
