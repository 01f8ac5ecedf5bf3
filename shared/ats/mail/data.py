"""Plain data types and errors of the Microsoft Graph mail channel.

Kept free of I/O so other modules (intake services, jobs, tests) can import these types
without pulling in httpx/msal; see ``ats.mail.graph`` for the client and the
checkpoint / exactly-once contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from ats import deadline as deadline_mod
from ats.errors import AtsError

# --------------------------------------------------------------------------- config

GRAPH_SCOPE = "https://graph.microsoft.com/.default"
DEFAULT_AUTHORITY_HOST = "https://login.microsoftonline.com"
DEFAULT_GRAPH_BASE_URL = "https://graph.microsoft.com/v1.0"


@dataclass(frozen=True, slots=True)
class GraphConfig:
    """Everything the client needs; one instance per Entra app registration.

    ``authority_host`` and ``graph_base_url`` are configurable so tests and demos point
    both at ``ats.devtools.fake_graph``. msal insists on an ``https`` authority, which is
    why the fake server speaks TLS and ``verify`` can name its CA file.
    """

    tenant_id: str
    client_id: str
    # repr=False: configs end up in logs and tracebacks; the secret must not.
    client_secret: str = field(repr=False)
    authority_host: str = DEFAULT_AUTHORITY_HOST
    graph_base_url: str = DEFAULT_GRAPH_BASE_URL
    scope: str = GRAPH_SCOPE
    # True (system CAs), False (never in production), or a CA bundle path.
    verify: bool | str = True
    # msal's instance discovery asks login.microsoftonline.com whether an authority host
    # is legitimate. msal skips it for the well-known Entra hosts anyway, and the
    # authority comes from trusted config, so off by default: that also makes a local
    # authority (fake server) work without a separate knob. None = msal's default.
    instance_discovery: bool | None = False
    # Upper bound for any single HTTP exchange; the effective timeout is
    # min(deadline remaining, this cap).
    per_request_timeout: float = 30.0
    # Outlook allows 4 concurrent requests per mailbox per app; going above only buys 429s.
    max_concurrency_per_mailbox: int = 4
    # Messages per delta page (Prefer: odata.maxpagesize). A page is one intake batch,
    # i.e. one DB transaction, and all its attachments are held in memory at once, so
    # keep it small.
    page_size: int = 10
    max_attachment_bytes: int = 25 * 1024 * 1024
    # Defensive cap for JSON bodies (delta pages, attachment lists).
    max_json_bytes: int = 16 * 1024 * 1024
    # Retries of 429/503/502/504/transport errors, on top of the deadline bound.
    max_attempts: int = 8
    backoff_base: float = 1.0
    backoff_max: float = 60.0

    def __post_init__(self) -> None:
        if not 1 <= self.page_size <= 1000:
            raise ValueError("page_size must be within 1..1000 (Graph's odata.maxpagesize range)")
        if self.max_concurrency_per_mailbox < 1:
            raise ValueError("max_concurrency_per_mailbox must be >= 1")
        if self.max_attempts < 1 or self.per_request_timeout <= 0 or self.max_attachment_bytes < 1:
            raise ValueError("max_attempts, per_request_timeout and max_attachment_bytes must be positive")

    @property
    def authority(self) -> str:
        return f"{self.authority_host.rstrip('/')}/{self.tenant_id}"


# --------------------------------------------------------------------------- deadline


# The one Deadline type (ats.deadline), shared with the job runtime; the mail channel
# passes its own DeadlineExceeded (a GraphError) to timeout().
Deadline = deadline_mod.Deadline


# --------------------------------------------------------------------------- errors


class MailError(AtsError):
    """Base of every error the mail module raises on purpose."""


class GraphError(MailError):
    """Base of every error the Graph mail channel raises on purpose."""


class DeadlineExceeded(GraphError, deadline_mod.DeadlineExceeded):
    """The caller's wall budget ran out. Nothing after the last committed batch counts."""


class DeltaExpired(GraphError):
    """Graph no longer knows the stored delta/next link (410 Gone, syncStateNotFound).

    The caller must restart with ``delta_link=None`` (full resync) and rely on its
    dedupe keys: every message still in the folder is handed over again.
    """


class InvalidCheckpoint(GraphError):
    """A stored or returned link does not point at the configured Graph base URL.

    Refused rather than followed so a tampered checkpoint cannot send our bearer token
    to another host.
    """


class GraphAuthError(GraphError):
    """Token acquisition failed or Graph rejected the token twice."""


class GraphTransportError(GraphError):
    """Network-level failure that persisted through the retries."""


class GraphProtocolError(GraphError):
    """Graph answered with something that does not match the documented shape."""


class GraphHTTPError(GraphError):
    """A non-success HTTP status that is not retried (or stayed after the retries)."""

    def __init__(
        self,
        status: int,
        code: str | None = None,
        message: str | None = None,
        *,
        request_id: str | None = None,
    ) -> None:
        super().__init__(f"Graph HTTP {status} {code or ''}: {message or ''}".strip())
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id


class AttachmentTooLarge(GraphError):
    """The attachment exceeded ``max_bytes``; the download was aborted."""

    def __init__(self, *, attachment_id: str, limit: int, seen: int) -> None:
        super().__init__(f"attachment {attachment_id!r} exceeds {limit} bytes (saw {seen})")
        self.attachment_id = attachment_id
        self.limit = limit
        self.seen = seen


# --------------------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class MessageEnvelope:
    """The delta row of one message (Prefer: IdType="ImmutableId")."""

    mailbox: str
    folder: str
    # Immutable id: stable across folder moves within the mailbox, unique per mailbox.
    message_id: str
    internet_message_id: str | None
    subject: str | None
    sender_address: str | None
    sender_name: str | None
    received_at: datetime | None
    has_attachments: bool
    raw: Mapping[str, Any] = field(repr=False, compare=False, hash=False)

    @property
    def dedupe_key(self) -> str:
        """Primary idempotency key for the ledger row: ``graph:<mailbox>:<immutable id>``.

        Mailbox addresses are case-insensitive; ids are not.
        """
        return f"graph:{self.mailbox.lower()}:{self.message_id}"


class SkipReason(StrEnum):
    ITEM_ATTACHMENT = "item_attachment"  # attached e-mail/event: not a file
    REFERENCE_ATTACHMENT = "reference_attachment"  # OneDrive/SharePoint link: no bytes
    UNKNOWN_TYPE = "unknown_type"
    TOO_LARGE = "too_large"
    GONE = "gone"  # 404 between delta and download: deleted/moved in the meantime


@dataclass(frozen=True, slots=True)
class AttachmentInfo:
    """One row of the attachments list (metadata only; no contentBytes)."""

    attachment_id: str
    odata_type: str
    name: str | None
    content_type: str | None
    size: int | None  # as reported by Graph; the stream is authoritative
    is_inline: bool

    @property
    def is_file(self) -> bool:
        return self.odata_type == "#microsoft.graph.fileAttachment"


@dataclass(frozen=True, slots=True)
class AttachmentBlob:
    """A downloaded fileAttachment; ``sha256`` was computed while streaming."""

    attachment_id: str
    name: str | None
    content_type: str | None
    is_inline: bool
    size: int
    sha256: str  # lowercase hex
    content: bytes = field(repr=False)

    def dedupe_key(self, envelope: MessageEnvelope) -> str:
        """Idempotency key for a raw_intake row: message key + content hash.

        Content, not attachment id, so a resent identical file in the same message
        collapses and a replaced file does not.
        """
        return f"{envelope.dedupe_key}:{self.sha256}"


@dataclass(frozen=True, slots=True)
class SkippedAttachment:
    attachment_id: str
    name: str | None
    odata_type: str
    reason: SkipReason
    detail: str = ""


@dataclass(frozen=True, slots=True)
class IntakeItem:
    envelope: MessageEnvelope
    attachments: tuple[AttachmentBlob, ...]
    skipped: tuple[SkippedAttachment, ...]
    # The message 404'd when its attachments were listed (deleted/moved after the delta
    # page was cut). Still handed over, so the ledger shows it instead of the page
    # failing forever on a message that no longer exists.
    message_gone: bool = False


@dataclass(frozen=True, slots=True)
class DeltaPage:
    """One delta response, parsed. ``checkpoint`` is the link that follows it."""

    messages: tuple[MessageEnvelope, ...]
    removed_ids: tuple[str, ...]
    checkpoint: str
    is_last: bool  # checkpoint is a deltaLink: the round is complete
    previous_checkpoint: str | None


@dataclass(frozen=True, slots=True)
class IntakeBatch:
    """One unit of work to commit atomically: items + ``checkpoint``.

    Persist ``checkpoint`` in the same transaction as the rows for ``items``; see the
    contract in ``ats.mail.graph``. ``previous_checkpoint`` is the link this page was
    fetched from (None for the first page of a full sync), so the caller can
    compare-and-swap its stored cursor and detect a concurrent poller.
    """

    mailbox: str
    folder: str
    page_index: int
    checkpoint: str
    is_last: bool
    previous_checkpoint: str | None
    items: tuple[IntakeItem, ...]
    removed_ids: tuple[str, ...]
    # Messages in the page the caller said it already has (``is_known``): no
    # attachment traffic was spent on them and they are not in ``items``.
    known_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PollResult:
    new_delta_link: str  # the last checkpoint handed over; always a deltaLink on return
    full_sync: bool  # the poll started without a stored link
    pages: int
    messages_seen: int
    messages_handed_over: int
    messages_known: int
    removed_seen: int
    attachments_downloaded: int
    attachments_skipped: int
