"""Reads of the retention module (metrics, ops)."""

from __future__ import annotations

from typing import Any

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
