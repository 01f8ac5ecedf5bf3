"""Plain data the audit facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """The chained event `audit_event_record` appended, as stored: `payload` is what the
    chain covers (personal keys moved out, digests keyed), `row_hash` links the next one."""

    id: int
    seq: int
    occurred_at: datetime.datetime
    actor: str
    action: str
    object_type: str
    object_id: str
    payload: dict[str, Any]
    personal_hmac: str
    prev_hash: str
    row_hash: str
