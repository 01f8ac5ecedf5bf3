"""Facade of the jobs module for the worker runtime: hooks into a worker process's start
and status file, and what its liveness probe (`ats healthcheck`) reads.

Task authors use `ats.jobs.api`; operators `ats.jobs.ops_api`.
"""

from ats.jobs.health import STATUS_ENV, add_status_provider, on_worker_start, read_status, runtime_dir, status_path
from ats.jobs.queries import stalled_after_s, worker_heartbeat_age

__all__ = [
    "STATUS_ENV",
    "add_status_provider",
    "on_worker_start",
    "read_status",
    "runtime_dir",
    "stalled_after_s",
    "status_path",
    "worker_heartbeat_age",
]
