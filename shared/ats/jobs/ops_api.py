"""Facade of the jobs module for operators: the console (ats.web), the `ats jobs` /
`queue` / `policy` / `status` commands and the metrics collector (ats.monitoring).

Read queues, workers, jobs and their history; retry, cancel, delete; pause a queue;
run a task now. Task authors use `ats.jobs.api`; the worker process `ats.jobs.worker_api`.
"""

from ats.jobs.deferral import defer
from ats.jobs.errors import JobError
from ats.jobs.handlers import missing_exhaustion_handlers
from ats.jobs.ops import (
    FINISHED_STATUSES,
    STATUSES,
    JobActionRefused,
    JobFilter,
    job_cancel,
    job_delete,
    job_events_for,
    job_ids_matching,
    job_retry,
    job_row,
    job_search,
    job_status_counts,
    parse_since,
    paused_queues,
    periodic_schedule,
    periodic_start_lateness,
    queue_list,
    queue_overview,
    queue_set_paused,
    stalled_jobs,
    task_stats,
    workers,
)
from ats.jobs.policy import (
    BUILTIN_QUEUE,
    DEFAULT_QUEUES,
    PERIODIC,
    POLICIES,
    QUEUES,
    UNTRUSTED_QUEUES,
    PeriodicJob,
    TaskPolicy,
    policy_for,
)
from ats.jobs.queries import (
    QUEUE_TABLES,
    AttemptEvent,
    attempt_events_since,
    job_detail,
    job_status,
    last_event_id,
    queue_signals,
    queue_stats,
    stalled_after_s,
    table_health,
    worker_heartbeats,
)
from ats.jobs.registry import registered_periodic, registered_task_names
from ats.jobs.rollup import RANGES as CHART_RANGES
from ats.jobs.rollup import chart_series, rollup_minutes
from ats.jobs.scrub import scrub as scrub_text

__all__ = [
    "BUILTIN_QUEUE",
    "CHART_RANGES",
    "DEFAULT_QUEUES",
    "FINISHED_STATUSES",
    "PERIODIC",
    "POLICIES",
    "QUEUES",
    "QUEUE_TABLES",
    "STATUSES",
    "UNTRUSTED_QUEUES",
    "AttemptEvent",
    "JobActionRefused",
    "JobError",
    "JobFilter",
    "PeriodicJob",
    "TaskPolicy",
    "attempt_events_since",
    "chart_series",
    "defer",
    "job_cancel",
    "job_delete",
    "job_detail",
    "job_events_for",
    "job_ids_matching",
    "job_retry",
    "job_row",
    "job_search",
    "job_status",
    "job_status_counts",
    "last_event_id",
    "missing_exhaustion_handlers",
    "parse_since",
    "paused_queues",
    "periodic_schedule",
    "periodic_start_lateness",
    "policy_for",
    "queue_list",
    "queue_overview",
    "queue_set_paused",
    "queue_signals",
    "queue_stats",
    "registered_periodic",
    "registered_task_names",
    "rollup_minutes",
    "scrub_text",
    "stalled_after_s",
    "stalled_jobs",
    "table_health",
    "task_stats",
    "worker_heartbeats",
    "workers",
]
