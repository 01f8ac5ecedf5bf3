"""Facade of the channels module (inbound mail channels feeding intake)."""

from ats.channels.hooks import register_receipt_metadata
from ats.channels.models import ChannelStatus, MessageOutcome
from ats.channels.selectors import channel_list, channel_status, channel_status_counts, ledger_entries
from ats.channels.services import (
    ChannelError,
    CheckpointConflict,
    PermanentPollError,
    PollSummary,
    channel_add,
    channel_mark_degraded,
    channel_poll,
    channel_poll_exhausted,
    channel_poll_request,
    channel_schedule_polls,
    ledger_erase_personal,
    ledger_personal_rows,
)

__all__ = [
    "ChannelError",
    "ChannelStatus",
    "CheckpointConflict",
    "MessageOutcome",
    "PermanentPollError",
    "PollSummary",
    "channel_add",
    "channel_list",
    "channel_mark_degraded",
    "channel_poll",
    "channel_poll_exhausted",
    "channel_poll_request",
    "channel_schedule_polls",
    "channel_status",
    "channel_status_counts",
    "ledger_entries",
    "ledger_erase_personal",
    "ledger_personal_rows",
    "register_receipt_metadata",
]
