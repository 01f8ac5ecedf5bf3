"""Writes of the channels module (`<entity>_<action>(*, ...)`): mail channels and polling.

Exactly-once intake (the contract in `ats.mail.graph`): every delta page is committed in
ONE transaction holding the channel row lock - compare-and-swap of the cursor, the
ledger rows, the raw_intake and attachment rows with their ingest jobs, and the new
cursor. A failure anywhere before that commit leaves the cursor where it was, so the
next poll re-fetches the page; the ledger's unique key makes the re-delivery harmless.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ats.channels import hooks
from ats.channels.data import ChannelSummary
from ats.channels.models import (
    ChannelStatus,
    LedgerAttachment,
    LedgerAttachmentOutcome,
    MailChannel,
    MessageLedger,
    MessageOutcome,
)
from ats.config import env
from ats.config.env import ats_settings
from ats.errors import AtsError
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from ats.mail import api as mail_api
from ats.scanning import api as scanning_api

logger = logging.getLogger(__name__)

POLL_TASK = "mail.poll_channel"
# Graph work stops this long before the attempt's wall budget so the page in hand can
# still be committed (the commit itself is bounded by jobs_api.db_budget).
COMMIT_MARGIN_S = 15.0


class ChannelError(AtsError):
    """Base of the errors the channels module raises on purpose."""


class CheckpointConflict(ChannelError):
    """The stored cursor is not the one this page was fetched from: another poller ran."""


class PermanentPollError(ChannelError):
    """Retrying cannot help (no credentials, refused credentials, unknown mailbox)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


@dataclasses.dataclass
class PollSummary:
    """Committed work of one `channel_poll` (pages that rolled back are not counted)."""

    channel_id: int
    pages: int = 0
    messages_new: int = 0
    messages_known: int = 0
    raw_intakes: int = 0
    attachments: int = 0
    rejected: int = 0
    resynced: bool = False  # the cursor was unusable and a full resync ran
    complete: bool = False  # the round reached its deltaLink
    continued: bool = False  # ran out of time after progress; a follow-up poll is queued


# --------------------------------------------------------------------------- channels


def channel_add(*, mailbox: str, folder: str = "inbox", phone_region: str | None = None) -> tuple[ChannelSummary, bool]:
    """Create the channel for a mailbox folder, or return the existing one. Idempotent.

    ``phone_region``: the region national phone numbers in CVs mailed here are read in
    when a CV gives no sign of its own ("DE"; "" or "none" clears it; None leaves an
    existing channel's as it is). Raises ValueError for a code phonenumbers does not know.
    """
    mailbox, folder = mailbox.strip(), (folder.strip() or "inbox")
    if not mailbox:
        raise ValueError("mailbox must not be empty")
    region = None if phone_region is None else (env.phone_region(phone_region, name="--phone-region") or "")
    existing = MailChannel.objects.filter(mailbox__iexact=mailbox, folder__iexact=folder).first()
    if existing is None:
        try:
            with transaction.atomic():
                created = MailChannel.objects.create(mailbox=mailbox, folder=folder, phone_region=region or "")
            return _summary(created), True
        except IntegrityError:  # a concurrent channel_add won the unique constraint
            existing = MailChannel.objects.get(mailbox__iexact=mailbox, folder__iexact=folder)
    if region is not None and existing.phone_region != region:
        existing.phone_region = region
        existing.save(update_fields=["phone_region", "updated_at"])
    return _summary(existing), False


def _summary(channel: MailChannel) -> ChannelSummary:
    return ChannelSummary(
        id=channel.pk,
        mailbox=channel.mailbox,
        folder=channel.folder,
        phone_region=channel.phone_region,
        active=channel.active,
        status=channel.status,
    )


def channel_poll_request(*, channel_id: int) -> int | None:
    """Queue a poll of one channel now. Returns the job id, or None if one is already in flight."""
    with transaction.atomic():
        if not MailChannel.objects.filter(pk=channel_id).exists():
            raise LookupError(f"mail channel {channel_id} does not exist")
        # None when a poll is already waiting or running: that poll does the work.
        return jobs_api.defer(POLL_TASK, payload={"channel_id": channel_id})


def channel_schedule_polls() -> list[int]:
    """Queue a poll of every active channel (degraded ones included: that is their retry).
    A channel whose previous poll is still waiting or running gets none (jobs_api.defer
    coalesces it into that poll)."""
    queued = []
    with transaction.atomic():
        ids = list(MailChannel.objects.filter(active=True).order_by("pk").values_list("pk", flat=True))
        for channel_id in ids:
            if jobs_api.defer(POLL_TASK, payload={"channel_id": channel_id}) is not None:
                queued.append(channel_id)
    return queued


def channel_mark_degraded(*, channel_id: int, reason: str) -> None:
    """Every attempt failed: the channel says so, with the reason, until a poll succeeds."""
    channel = MailChannel.objects.select_for_update().filter(pk=channel_id).first()
    if channel is None:
        return
    now = timezone.now()
    if channel.status != ChannelStatus.DEGRADED:
        channel.status = ChannelStatus.DEGRADED
        channel.status_since = now  # since the first failure, not the latest repeat
    channel.status_reason = reason
    channel.last_error = reason
    channel.last_error_at = now
    channel.save(update_fields=["status", "status_since", "status_reason", "last_error", "last_error_at", "updated_at"])
    logger.warning("mail channel %s degraded: %s", channel_id, reason)


def channel_poll_exhausted(*, channel_id: int, reason_code: str, reason: str, **_: Any) -> None:
    """Exhaustion handler of `mail.poll_channel` (named in the jobs policy table)."""
    channel_mark_degraded(channel_id=channel_id, reason=reason)


def _mark_polled(channel_id: int, *, complete: bool) -> None:
    with transaction.atomic():
        channel = MailChannel.objects.select_for_update().get(pk=channel_id)
        now = timezone.now()
        if channel.status != ChannelStatus.ACTIVE:
            logger.info("mail channel %s recovered after: %s", channel_id, channel.status_reason)
            channel.status = ChannelStatus.ACTIVE
            channel.status_since = now
        channel.status_reason = ""
        channel.last_error = ""
        if complete:  # a round cut short by its deadline is progress, not a finished poll
            channel.last_polled_at = now
        channel.save(
            update_fields=["status", "status_since", "status_reason", "last_error", "last_polled_at", "updated_at"]
        )


def _record_error(channel_id: int, exc: BaseException) -> None:
    # Each failed attempt is visible at once; `degraded` waits for the policy's last attempt.
    MailChannel.objects.filter(pk=channel_id).update(
        last_error=f"{type(exc).__name__}: {exc}"[:2000], last_error_at=timezone.now(), updated_at=timezone.now()
    )


def _checkpoint_reset(channel_id: int, why: str) -> None:
    # Its own transaction: the resync that follows commits page by page from NULL.
    with transaction.atomic():
        channel = MailChannel.objects.select_for_update().get(pk=channel_id)
        channel.delta_link = None
        channel.save(update_fields=["delta_link", "updated_at"])
    logger.warning("mail channel %s: delta cursor cleared, full resync (%s)", channel_id, why)


# --------------------------------------------------------------------------- Graph client


def graph_config() -> mail_api.GraphConfig:
    cfg = ats_settings()
    missing = [k for k in ("GRAPH_TENANT_ID", "GRAPH_CLIENT_ID", "GRAPH_CLIENT_SECRET") if not cfg[k]]
    if missing:
        raise PermanentPollError(
            "graph_not_configured", f"Microsoft Graph is not configured: set {', '.join('ATS_' + k for k in missing)}."
        )
    return mail_api.GraphConfig(
        tenant_id=cfg["GRAPH_TENANT_ID"],
        client_id=cfg["GRAPH_CLIENT_ID"],
        client_secret=cfg["GRAPH_CLIENT_SECRET"],
        authority_host=cfg["GRAPH_AUTHORITY"],
        graph_base_url=cfg["GRAPH_BASE_URL"],
        verify=cfg["GRAPH_CA_BUNDLE"] or True,
        page_size=settings.MAIL_PAGE_SIZE,
        # Larger files would be rejected by intake anyway; do not download them at all.
        max_attachment_bytes=intake_api.max_upload_bytes(),
    )


class _ClientCache:
    """One GraphClient per process and config: it caches the token and enforces Outlook's
    per-mailbox concurrency cap across every poll the process runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._config: mail_api.GraphConfig | None = None
        self._client: mail_api.GraphClient | None = None

    def get(self, config: mail_api.GraphConfig) -> mail_api.GraphClient:
        with self._lock:
            if self._client is None or self._config != config:
                if self._client is not None:
                    self._client.close()
                self._client, self._config = mail_api.GraphClient(config), config
            return self._client


_clients = _ClientCache()


def _deadline() -> mail_api.Deadline:
    attempt = jobs_api.current_attempt()
    # Both deadlines are time.monotonic() based, so the expiry carries over unchanged.
    expires = attempt.deadline.expires_at if attempt else time.monotonic() + jobs_api.policy_for(POLL_TASK).timeout_s
    return mail_api.Deadline(expires - COMMIT_MARGIN_S)


# --------------------------------------------------------------------------- polling


def channel_poll(*, channel_id: int) -> PollSummary | None:
    """Run one delta round of a channel, committing page by page (see the module doc).

    Returns None when the channel is gone or switched off (a stale job has nothing to do).
    Raises PermanentPollError for configuration problems, anything else for a retry.
    """
    channel = MailChannel.objects.filter(pk=channel_id).first()
    if channel is None or not channel.active:
        return None
    summary = PollSummary(channel_id=channel_id)
    deadline = _deadline()
    try:
        client = _clients.get(graph_config())
        try:
            _poll_round(client, channel, channel.delta_link, deadline, summary)
        except (mail_api.DeltaExpired, mail_api.InvalidCheckpoint) as exc:
            # 410/syncStateNotFound, or a stored link that no longer points at the
            # configured Graph (base URL changed): start over; the ledger dedupes.
            _checkpoint_reset(channel_id, str(exc))
            summary.resynced = True
            _poll_round(client, channel, None, deadline, summary)
    except mail_api.DeadlineExceeded as exc:
        if summary.pages == 0:
            _record_error(channel_id, exc)
            raise
        # Progress was committed (a large first sync): not a failure. Continue in a fresh
        # job (below) rather than burning this job's attempts.
        summary.continued = True
        logger.info("mail channel %s: out of time after %s pages, continuing", channel_id, summary.pages)
    except mail_api.GraphAuthError as exc:
        _record_error(channel_id, exc)
        raise PermanentPollError("graph_auth", f"Microsoft Graph refused the app's credentials: {exc}") from exc
    except mail_api.GraphHTTPError as exc:
        _record_error(channel_id, exc)
        if 400 <= exc.status < 500 and exc.status != 429:
            # An unknown mailbox or folder, a malformed request: configuration, not weather.
            raise PermanentPollError("graph_request_refused", str(exc)) from exc
        raise
    except Exception as exc:
        _record_error(channel_id, exc)
        raise
    _mark_polled(channel_id, complete=summary.complete)
    if summary.continued:
        # Last, so nothing after it can fail this job: a retry of this job beside the
        # queued continuation would collide on the queueing lock. Hence also the explicit
        # opt-out of coalescing (this job is the running twin it would coalesce into).
        with transaction.atomic():
            jobs_api.defer(POLL_TASK, payload={"channel_id": channel_id}, beside_running=True)
    return summary


def _poll_round(
    client: mail_api.GraphClient,
    channel: MailChannel,
    delta_link: str | None,
    deadline: mail_api.Deadline,
    summary: PollSummary,
) -> None:
    def is_known(envelope: mail_api.MessageEnvelope) -> bool:
        # Saves attachment downloads for mail already ledgered (Graph re-sends changed
        # messages; a resync re-sends all). Not the guarantee: _commit_page re-checks.
        return (
            MessageLedger.objects.filter(channel_id=channel.pk, graph_message_id=envelope.message_id)
            .exclude(outcome=MessageOutcome.MESSAGE_GONE)
            .exists()
        )

    def on_batch(batch: mail_api.IntakeBatch) -> None:
        _commit_page(channel.pk, batch, summary)

    result = mail_api.poll_mailbox(
        client=client,
        mailbox=channel.mailbox,
        folder=channel.folder,
        delta_link=delta_link,
        deadline=deadline,
        on_batch=on_batch,
        is_known=is_known,
    )
    summary.complete = True
    logger.info(
        "mail channel %s polled: %s pages, %s messages seen, %s handed over, %s known",
        channel.pk,
        result.pages,
        result.messages_seen,
        result.messages_handed_over,
        result.messages_known,
    )


@dataclasses.dataclass
class _PageCounts:
    new: int = 0
    known: int = 0
    raw_intakes: int = 0
    attachments: int = 0
    rejected: int = 0


def _commit_page(channel_id: int, batch: mail_api.IntakeBatch, summary: PollSummary) -> None:
    counts = _PageCounts(known=len(batch.known_ids))
    with transaction.atomic(), jobs_api.db_budget():
        # The row lock serialises every writer of this channel's cursor and ledger.
        channel = MailChannel.objects.select_for_update().get(pk=channel_id)
        if channel.delta_link != batch.previous_checkpoint:
            raise CheckpointConflict(f"mail channel {channel_id}: cursor moved since this page was fetched")
        ids = [item.envelope.message_id for item in batch.items]
        ledgered = {
            r.graph_message_id: r for r in MessageLedger.objects.filter(channel=channel, graph_message_id__in=ids)
        }
        for item in batch.items:
            row = ledgered.get(item.envelope.message_id)
            # A message that was gone may come back (moved back into the folder): read it then.
            if row is not None and (row.outcome != MessageOutcome.MESSAGE_GONE or item.message_gone):
                counts.known += 1
                continue
            ledgered[item.envelope.message_id] = _ledger_message(channel, item, row, counts)
            counts.new += 1
        channel.delta_link = batch.checkpoint
        channel.save(update_fields=["delta_link", "updated_at"])
    # Counted only once committed.
    summary.pages += 1
    summary.messages_new += counts.new
    summary.messages_known += counts.known
    summary.raw_intakes += counts.raw_intakes
    summary.attachments += counts.attachments
    summary.rejected += counts.rejected


def _ledger_message(
    channel: MailChannel, item: mail_api.IntakeItem, row: MessageLedger | None, counts: _PageCounts
) -> MessageLedger:
    env = item.envelope
    files: list[mail_api.AttachmentBlob] = []
    seen: set[str] = set()
    inline_images = [b for b in item.attachments if is_inline_image(b)]
    for blob in item.attachments:
        if is_inline_image(blob):
            continue  # a signature logo / pasted picture: never a document (see is_inline_image)
        if blob.sha256 not in seen:  # the same bytes attached twice are one document
            seen.add(blob.sha256)
            files.append(blob)
    raw_intake_id = None
    ledger_atts: list[tuple[str, str, int, str]] = []  # graph id, sha256, attachment id, outcome
    if files or item.skipped:
        raw = intake_api.intake_receive(
            channel=intake_api.Channel.MAIL,
            files=[
                intake_api.IncomingFile(filename=b.name or "unnamed", data=b.content, content_type=b.content_type or "")
                for b in files
            ],
            source_ref=env.dedupe_key,
            metadata={
                **_metadata(env, item, collapsed=len(item.attachments) - len(inline_images) - len(files)),
                "channel_id": channel.pk,
                # What modules above add at receipt: scoring's mailbox -> requisition
                # mapping, `requisition_id` (None: talent pool).
                **hooks.receipt_metadata(channel.pk),
                # At receipt, like the requisition: the extractor's region for national
                # phone numbers when the CV gives none of its own (None: the default's).
                "phone_region": channel.phone_region or None,
            },
        )
        raw_intake_id = raw.pk
        created = intake_api.raw_intake_attachments(raw.pk)
        for blob, att in zip(files, created, strict=True):
            ledger_atts.append((blob.attachment_id, blob.sha256, att.pk, LedgerAttachmentOutcome.INGESTED))
        for skipped in item.skipped:
            rejected_id = _record_skipped(raw.pk, skipped)
            ledger_atts.append((skipped.attachment_id, "", rejected_id, LedgerAttachmentOutcome.REJECTED))
        counts.raw_intakes += 1
        counts.attachments += len(files)
        counts.rejected += len(item.skipped)
    if item.message_gone:
        outcome = MessageOutcome.MESSAGE_GONE
    elif raw_intake_id is not None:
        outcome = MessageOutcome.INGESTED
    else:
        outcome = MessageOutcome.NO_ATTACHMENTS
    if row is None:
        row = MessageLedger(channel=channel, graph_message_id=env.message_id)
    row.internet_message_id = (env.internet_message_id or "")[:998]
    row.received_at = env.received_at
    row.raw_intake_id = raw_intake_id
    row.outcome = outcome
    row.save()
    LedgerAttachment.objects.bulk_create(
        LedgerAttachment(message=row, graph_attachment_id=gid[:512], sha256=sha, attachment_id=aid, outcome=out)
        for gid, sha, aid, out in ledger_atts
    )
    return row


# What a skipped attachment becomes: (intake state, reason code, recruiter-readable reason).
_SKIPPED = {
    mail_api.SkipReason.ITEM_ATTACHMENT: (
        intake_api.State.REJECTED_UNSUPPORTED_TYPE,
        "mail_item_attachment",
        "An attached e-mail or calendar item, not a file; nothing inside it is read. "
        "Ask the sender to attach the CV file itself.",
    ),
    mail_api.SkipReason.REFERENCE_ATTACHMENT: (
        intake_api.State.REJECTED_UNSUPPORTED_TYPE,
        "mail_reference_attachment",
        "A link to a cloud file (OneDrive/SharePoint), not the file; it is not followed. "
        "Ask the sender to attach the CV file itself.",
    ),
    mail_api.SkipReason.UNKNOWN_TYPE: (
        intake_api.State.REJECTED_UNSUPPORTED_TYPE,
        "mail_unknown_attachment",
        "An attachment that is not a file. Ask the sender to attach the CV file itself.",
    ),
    mail_api.SkipReason.TOO_LARGE: (
        intake_api.State.REJECTED_TOO_LARGE,
        "too_large",
        "The attachment is larger than the upload limit, so it was not downloaded.",
    ),
    # No dedicated intake state for "vanished before download"; no bytes arrived, and the
    # action of REJECTED_EMPTY ("ask the sender to resend") is the right one.
    mail_api.SkipReason.GONE: (
        intake_api.State.REJECTED_EMPTY,
        "mail_attachment_gone",
        "The attachment was removed from the mailbox before it could be downloaded; no bytes "
        "were received. Ask the sender to resend.",
    ),
}


_IMAGE_KINDS = frozenset({scanning_api.FileKind.PNG, scanning_api.FileKind.JPEG, scanning_api.FileKind.TIFF})


def is_inline_image(blob: mail_api.AttachmentBlob) -> bool:
    """Graph's `isInline` parts that are pictures - signature logos, social icons, images
    pasted into the body - are not documents: they never reach intake (issue 28). This is
    the one place that rule lives. Only images: an inline-flagged PDF or Word file (Apple
    Mail marks attachments inline) is still a document, and the kind is decided by the
    leading bytes (a signature check, no parser) or a declared image/* type - a CV
    disguised as a logo only hides itself. Their names stay in the raw intake's metadata
    (`inline`), so a recruiter can still see what the message carried."""
    if not blob.is_inline:
        return False
    kind = scanning_api.detect_file_type(blob.content).kind
    if kind in (scanning_api.FileKind.PDF, scanning_api.FileKind.DOCX):
        return False
    return kind in _IMAGE_KINDS or (blob.content_type or "").lower().startswith("image/")


def _record_skipped(raw_intake_id: int, skipped: mail_api.SkippedAttachment) -> int:
    """The rejected document's id (the ledger names it)."""
    state, code, reason = _SKIPPED[skipped.reason]
    return intake_api.attachment_record_rejected(
        raw_intake_id=raw_intake_id,
        filename=skipped.name or "unnamed",
        state=state,
        reason_code=code,
        reason=reason + (f" ({skipped.detail})" if skipped.detail else ""),
        declared_content_type=skipped.odata_type,
    )


def _metadata(env: mail_api.MessageEnvelope, item: mail_api.IntakeItem, *, collapsed: int) -> dict[str, Any]:
    return {
        "mailbox": env.mailbox,
        "folder": env.folder,
        "graph_message_id": env.message_id,
        "internet_message_id": env.internet_message_id,
        "subject": env.subject,
        "from": env.sender_address,
        "from_name": env.sender_name,
        "received_at": env.received_at.isoformat() if env.received_at else None,
        "inline": [b.name for b in item.attachments if b.is_inline],
        "identical_attachments_collapsed": collapsed,
    }


# --- erasure and subject access (called by ats.retention) ------------------------------


def ledger_personal_rows(*, raw_intake_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    messages = MessageLedger.objects.filter(raw_intake_id__in=raw_intake_ids)
    return {
        "channels_message_ledger": [dict(r) for r in messages.values()],
        "channels_ledger_attachment": [dict(r) for r in LedgerAttachment.objects.filter(message__in=messages).values()],
    }


def ledger_erase_personal(*, raw_intake_ids: list[int]) -> dict[str, int]:
    """Blank what the mail ledger holds about the subject's messages: the Internet
    Message-ID (it names the sender's mail host and often the sender) and the content
    hashes. The Graph message id stays: it is the exactly-once key that stops the poller
    from fetching - and re-ingesting - the erased person's message again. Idempotent."""
    messages = MessageLedger.objects.filter(raw_intake_id__in=raw_intake_ids)
    return {
        "channels_message_ledger": messages.exclude(internet_message_id="").update(internet_message_id=""),
        "channels_ledger_attachment": LedgerAttachment.objects.filter(message__in=messages)
        .exclude(sha256="")
        .update(sha256=""),
    }
