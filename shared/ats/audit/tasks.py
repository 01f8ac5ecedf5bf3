"""Periodic audit tasks (queue maintenance, ADR 0004 §4): thin, idempotent, locked."""

from __future__ import annotations

from ats.audit import services
from ats.jobs import api as jobs_api


@jobs_api.task("audit.verify", periodic=jobs_api.periodic_cron("audit.verify"))
def verify(*, timestamp: int, payload_version: int) -> None:
    result = services.audit_verify()
    if not result["ok"]:
        # A failed job is what the maintenance alert watches (ADR §7); the result row
        # with the first broken link is already recorded.
        raise jobs_api.PermanentFailure("audit_chain_broken", str(result["first_broken"]))


@jobs_api.task("audit.export_verify", periodic=jobs_api.periodic_cron("audit.export_verify"))
def export_verify(*, timestamp: int, payload_version: int) -> None:
    # Exports only verified closed months; a broken one raises and is retried per policy.
    services.audit_export()


@jobs_api.task("audit.partitions", periodic=jobs_api.periodic_cron("audit.partitions"))
def maintain_partitions(*, timestamp: int, payload_version: int) -> None:
    services.audit_partitions_maintain()
