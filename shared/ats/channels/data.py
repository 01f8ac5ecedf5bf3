"""Plain data the channels facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChannelSummary:
    """A mail channel as `channel_add` leaves it (its full status: `channel_status`)."""

    id: int
    mailbox: str
    folder: str
    phone_region: str  # "" when the deployment's default applies
    active: bool
    status: str


@dataclass(frozen=True, slots=True)
class LedgerAttachmentEntry:
    """One attachment of a ledgered message and the intake attachment row it became."""

    graph_attachment_id: str
    sha256: str  # blank for one that was never downloaded
    attachment_id: int
    outcome: str


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One message the poller handled (once: the exactly-once key) and its attachments."""

    id: int
    graph_message_id: str
    internet_message_id: str
    received_at: datetime.datetime | None
    raw_intake_id: int | None
    outcome: str
    attachments: tuple[LedgerAttachmentEntry, ...]
