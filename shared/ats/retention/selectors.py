"""Reads of the retention module (metrics, ops)."""

from __future__ import annotations

from typing import Any

from ats.retention.data import HaltedPurge
from ats.retention.models import PurgeRun, PurgeState, PurgeVerification


def retention_status() -> dict[str, Any]:
    """The latest purge run and verification, for /metrics and the alert rules."""
    last = PurgeRun.objects.order_by("-pk").first()
    ok = PurgeRun.objects.filter(state=PurgeState.COMPLETED).order_by("-pk").first()
    verification = PurgeVerification.objects.order_by("-pk").first()
    return {
        "halted": bool(last and last.state == PurgeState.HALTED),
        "halted_at": last.halted_at if last and last.state == PurgeState.HALTED else None,
        "last_success": ok.finished_at if ok else None,
        "verify_missing": len(verification.still_present) if verification and not verification.ok else 0,
    }


def purge_halted_latest() -> HaltedPurge | None:
    """The newest purge run that halted, if any (ops: what to look at before a rerun)."""
    run = PurgeRun.objects.filter(state=PurgeState.HALTED).order_by("-pk").first()
    if run is None:
        return None
    return HaltedPurge(run_id=run.pk, finished_at=run.finished_at, error=run.error, job_id=run.job_id)
