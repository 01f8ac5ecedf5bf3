"""Nightly orphan-blob reconciliation (queue maintenance, ADR 0004 §4)."""

from __future__ import annotations

from ats.evidence import reconcile
from ats.jobs import api as jobs_api


@jobs_api.task("blobs.reconcile", periodic=jobs_api.periodic_cron("blobs.reconcile"))
def reconcile_blobs(*, timestamp: int, payload_version: int) -> None:
    # Idempotent: a re-run after a crash lists again and finds what is left.
    reconcile.blobs_reconcile()
