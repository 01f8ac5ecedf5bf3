"""Plain data of the jobs module (no Django import): queues and the policy table."""

from ats.jobs.health import STATUS_ENV, runtime_dir, status_path
from ats.jobs.policy import (
    BUILTIN_QUEUE,
    DEFAULT_QUEUES,
    POLICIES,
    QUEUES,
    UNTRUSTED_QUEUES,
    Backoff,
    TaskPolicy,
    policy_for,
)

__all__ = [
    "BUILTIN_QUEUE",
    "DEFAULT_QUEUES",
    "POLICIES",
    "QUEUES",
    "STATUS_ENV",
    "UNTRUSTED_QUEUES",
    "Backoff",
    "TaskPolicy",
    "policy_for",
    "runtime_dir",
    "status_path",
]
