"""Reads of the audit log (the document timeline shows who did what)."""

from __future__ import annotations

from typing import Any

from ats.audit.models import AuditEvent


def events_for(*, object_type: str, object_id: Any, limit: int = 200) -> list[dict[str, Any]]:
    rows = AuditEvent.objects.filter(object_type=object_type, object_id=str(object_id)).order_by("occurred_at", "pk")
    return [
        {"occurred_at": e.occurred_at, "actor": e.actor, "action": e.action, "payload": e.payload} for e in rows[:limit]
    ]
