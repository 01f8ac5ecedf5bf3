"""Reads of the audit module."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from ats.audit import chain
from ats.audit.models import AuditEvent, AuditExport


@dataclasses.dataclass(frozen=True)
class ChainedEvent:
    id: int
    seq: int
    occurred_at: datetime.datetime
    action: str
    payload: dict[str, Any]
    intact: bool  # the row still hashes to its row_hash (content not altered)


def audit_events_for(*, object_type: str, object_id: Any) -> list[ChainedEvent]:
    """An object's events in chain order, each re-hashed (a cheap per-row check; the
    links between rows are what `audit_verify` walks)."""
    out = []
    for e in AuditEvent.objects.filter(object_type=object_type, object_id=str(object_id)).order_by("seq", "id"):
        recomputed = chain.row_hash(
            seq=e.seq,
            occurred_at=e.occurred_at,
            actor=e.actor,
            action=e.action,
            object_type=e.object_type,
            object_id=e.object_id,
            payload=e.payload,
            personal_hmac=e.personal_hmac,
            prev_hash=e.prev_hash,
        )
        out.append(ChainedEvent(e.pk, e.seq, e.occurred_at, e.action, dict(e.payload or {}), recomputed == e.row_hash))
    return out


def audit_archive_references() -> tuple[str, set[tuple[str, str]]]:
    """The archive container and the (container, key) of every recorded export."""
    from ats.audit import adapters

    return adapters.archive_container(), set(AuditExport.objects.values_list("container", "key"))


def events_for(*, object_type: str, object_id: Any, limit: int = 200) -> list[dict[str, Any]]:
    rows = AuditEvent.objects.filter(object_type=object_type, object_id=str(object_id)).order_by("occurred_at", "pk")
    return [
        {"occurred_at": e.occurred_at, "actor": e.actor, "action": e.action, "payload": e.payload} for e in rows[:limit]
    ]
