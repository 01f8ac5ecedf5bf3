"""Reads of the channels module."""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from ats.channels.data import LedgerAttachmentEntry, LedgerEntry
from ats.channels.models import ChannelStatus, MailChannel, MessageLedger


def channel_status(channel_id: int) -> dict[str, Any]:
    """What an operator needs to see about one channel (CLI, admin, later the UI)."""
    channel = MailChannel.objects.get(pk=channel_id)
    return _status(channel, messages=MessageLedger.objects.filter(channel=channel).count())


def _status(channel: MailChannel, *, messages: int) -> dict[str, Any]:
    return {
        "channel_id": channel.pk,
        "mailbox": channel.mailbox,
        "folder": channel.folder,
        "phone_region": channel.phone_region or None,
        "active": channel.active,
        "status": channel.status,
        "status_reason": channel.status_reason or None,
        "status_since": channel.status_since.isoformat(),
        "last_polled_at": channel.last_polled_at.isoformat() if channel.last_polled_at else None,
        "last_error": channel.last_error or None,
        "last_error_at": channel.last_error_at.isoformat() if channel.last_error_at else None,
        "synced": channel.delta_link is not None,
        "messages": messages,
    }


def channel_list() -> list[dict[str, Any]]:
    channels = MailChannel.objects.annotate(n_messages=Count("messages")).order_by("pk")
    return [_status(c, messages=c.n_messages) for c in channels]


def ledger_entries(channel_id: int) -> list[LedgerEntry]:
    rows = MessageLedger.objects.filter(channel_id=channel_id).prefetch_related("attachments").order_by("pk")
    return [
        LedgerEntry(
            id=m.pk,
            graph_message_id=m.graph_message_id,
            internet_message_id=m.internet_message_id,
            received_at=m.received_at,
            raw_intake_id=m.raw_intake_id,
            outcome=m.outcome,
            attachments=tuple(
                LedgerAttachmentEntry(
                    graph_attachment_id=a.graph_attachment_id,
                    sha256=a.sha256,
                    attachment_id=a.attachment_id,
                    outcome=a.outcome,
                )
                for a in sorted(m.attachments.all(), key=lambda a: a.pk)
            ),
        )
        for m in rows
    ]


def channel_status_counts() -> dict[str, int]:
    """Active channels per status, every status present (alerts need the zeros)."""
    counts = {status.value: 0 for status in ChannelStatus}
    for status in MailChannel.objects.filter(active=True).values_list("status", flat=True):
        counts[status] += 1
    return counts
