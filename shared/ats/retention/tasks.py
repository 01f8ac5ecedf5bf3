"""Periodic retention tasks (queue maintenance, ADR 0004 §4): thin, idempotent, locked."""

from __future__ import annotations

from ats.jobs import api as jobs_api
from ats.retention import services


@jobs_api.task("retention.purge", periodic=jobs_api.periodic_cron("retention.purge"))
def purge(*, timestamp: int, payload_version: int) -> None:
    attempt = jobs_api.current_attempt()
    # Raises PurgeHalted at the first unexplained failure: the job fails, the policy
    # retries it (3 attempts, 1 h backoff) and each attempt resumes at the boundary.
    services.retention_purge(job_id=attempt.job_id if attempt else None)


@jobs_api.task("retention.recompute_due_on", periodic=jobs_api.periodic_cron("retention.recompute_due_on"))
def recompute_due_on(*, timestamp: int, payload_version: int) -> None:
    services.retention_due_on_recompute()


@jobs_api.task("retention.verify_purge", periodic=jobs_api.periodic_cron("retention.verify_purge"))
def verify_purge(*, timestamp: int, payload_version: int) -> None:
    result = services.purge_verify()
    if not result.ok:
        raise jobs_api.PermanentFailure("purged_blobs_present", f"{len(result.still_present)} purged blobs still exist")
