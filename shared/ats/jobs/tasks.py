"""Periodic maintenance tasks of the job machinery (worker-default, queue maintenance)."""

from __future__ import annotations

import os

from django.db import transaction

from ats.jobs import maintenance, rollup
from ats.jobs.deferral import defer
from ats.jobs.policy import periodic_cron
from ats.jobs.runtime import task

# Rescue must run well inside a parse attempt's 90 s budget; tests shrink it.
RESCUE_CRON = os.environ.get("ATS_RESCUE_CRON", "* * * * * */20")
PRUNE_CRON = os.environ.get("ATS_PRUNE_CRON", "17 3 * * *")
ROLLUP_CRON = periodic_cron("jobs.rollup_minutes")
COMPLETED_RETENTION_HOURS = 30 * 24  # ADR §7: completed jobs pruned after 30 days


@task("jobs.rescue_and_sweep", periodic=RESCUE_CRON)
def rescue_and_sweep(*, timestamp: int, payload_version: int) -> None:
    maintenance.rescue_stalled_jobs()
    maintenance.sweep_failed_jobs()


@task("jobs.remove_old_jobs", periodic=PRUNE_CRON)
def remove_old_jobs(*, timestamp: int, payload_version: int) -> None:
    # procrastinate's own builtin task does the completed-job sweep, on queue `builtin`
    # (worker-default listens there); failed jobs go only once their domain state is
    # recorded.
    with transaction.atomic():
        defer(
            "procrastinate.builtin_tasks.remove_old_jobs",
            payload={"max_hours": COMPLETED_RETENTION_HOURS, "remove_failed": False},
        )
    maintenance.prune_swept_failed_jobs(max_hours=COMPLETED_RETENTION_HOURS)


@task("jobs.rollup_minutes", periodic=ROLLUP_CRON)
def rollup_minutes(*, timestamp: int, payload_version: int) -> None:
    rollup.rollup_minutes()
