from __future__ import annotations

from typing import Any

from ats.audit.models import AuditEvent


def audit_event_record(
    *, actor: str, action: str, object_type: str, object_id: Any, payload: dict[str, Any] | None = None
) -> AuditEvent:
    return AuditEvent.objects.create(
        actor=actor, action=action, object_type=object_type, object_id=str(object_id), payload=payload or {}
    )
