from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class ChannelStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    # Every attempt of a poll failed: visible to operators with the reason; the schedule
    # keeps retrying and the next successful poll sets it back to active.
    DEGRADED = "degraded", "Degraded"


class MailChannel(models.Model):
    """One mailbox folder read through Microsoft Graph delta queries."""

    mailbox = models.CharField(max_length=320)  # UPN/address (RFC 5321 length) or user id
    folder = models.CharField(max_length=255, default="inbox")
    # The region (ISO 3166, "DE") of national phone numbers in CVs mailed here, for CVs that
    # give no sign of their own country; blank: the deployment default decides.
    phone_region = models.CharField(max_length=2, blank=True, default="")
    active = models.BooleanField(default=True)  # polled by the schedule; False = switched off
    status = models.CharField(max_length=16, choices=ChannelStatus.choices, default=ChannelStatus.ACTIVE)
    status_reason = models.TextField(blank=True, default="")
    status_since = models.DateTimeField(default=timezone.now)
    # The delta cursor: the last *committed* nextLink/deltaLink. It moves only in the
    # transaction that commits the rows of the page it follows; NULL = full sync next.
    delta_link = models.TextField(null=True, blank=True)
    last_polled_at = models.DateTimeField(null=True, blank=True)  # last complete, successful poll
    last_error = models.TextField(blank=True, default="")
    last_error_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "channels_mail_channel"
        constraints = [
            # Mailbox addresses are case-insensitive; two rows for one folder would be two
            # cursors racing over the same mail.
            models.UniqueConstraint(Lower("mailbox"), Lower("folder"), name="mail_channel_unique_folder"),
        ]

    def __str__(self) -> str:
        return f"mail channel {self.pk} ({self.mailbox}/{self.folder}) {self.status}"


class MessageOutcome(models.TextChoices):
    INGESTED = "ingested", "Handed to intake"  # a raw_intake with its attachment rows
    NO_ATTACHMENTS = "no_attachments", "No attachments"  # nothing to read; ledgered so it is not re-fetched
    MESSAGE_GONE = "message_gone", "Deleted before it could be read"  # retried if it reappears


class MessageLedger(models.Model):
    """Every message of a channel the poller has handled, once (the exactly-once key)."""

    channel = models.ForeignKey(MailChannel, on_delete=models.PROTECT, related_name="messages")
    # Graph immutable id: stable across folder moves, unique per mailbox.
    graph_message_id = models.CharField(max_length=512)
    # A hint for the same mail reaching us twice (another mailbox, a resend); not unique.
    internet_message_id = models.CharField(max_length=998, blank=True, default="", db_index=True)
    received_at = models.DateTimeField(null=True, blank=True)
    raw_intake_id = models.BigIntegerField(null=True, blank=True)  # the intake module owns the row
    outcome = models.CharField(max_length=16, choices=MessageOutcome.choices)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "channels_message_ledger"
        constraints = [
            models.UniqueConstraint(fields=["channel", "graph_message_id"], name="message_ledger_unique_message"),
        ]


class LedgerAttachmentOutcome(models.TextChoices):
    INGESTED = "ingested", "Handed to intake"
    REJECTED = "rejected", "Recorded as rejected (not downloadable)"


class LedgerAttachment(models.Model):
    """One attachment of a ledgered message and the intake attachment row it became."""

    message = models.ForeignKey(MessageLedger, on_delete=models.CASCADE, related_name="attachments")
    graph_attachment_id = models.CharField(max_length=512)
    # Content hash of a downloaded file; blank for one that was never downloaded.
    sha256 = models.CharField(max_length=64, blank=True, default="")
    attachment_id = models.BigIntegerField()  # intake attachment row (the intake module owns it)
    outcome = models.CharField(max_length=16, choices=LedgerAttachmentOutcome.choices)

    class Meta:
        db_table = "channels_ledger_attachment"
        constraints = [
            # One document per content per message: a file attached twice is one CV.
            models.UniqueConstraint(
                fields=["message", "sha256"],
                condition=~models.Q(sha256=""),
                name="ledger_attachment_unique_content",
            ),
        ]
