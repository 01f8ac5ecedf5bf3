"""Plain data the intake facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """One document as another module's screen lists it: what the candidate page, the bulk
    screen and the CV viewer read, without querying `intake_attachment` themselves."""

    id: int
    filename: str
    state: str
    state_label: str  # the recruiter's words for `state` (ats.intake.states)
    virus_scan_status: str
    candidate_id: int | None

    @property
    def pk(self) -> int:
        """The viewer and its template name a document by `pk`, as they do an attachment."""
        return self.id


@dataclass(frozen=True, slots=True)
class Document:
    """One inbound document (an `intake_attachment` row) with its receipt, as the web
    pages, the `ats document`/`jobs` commands and retention read it (`attachment_get`,
    `raw_intake_attachments`). Takes the place of the ORM row on the facade."""

    id: int
    raw_intake_id: int
    filename: str
    size_bytes: int | None
    sha256: str
    detected_type: str
    state: str
    reason_code: str
    reason: str
    virus_scan_status: str
    scan_signature: str
    scan_engine: str
    duplicate_of_id: int | None
    candidate_id: int | None
    channel: str  # the receipt's: mail, upload, cli
    channel_label: str
    received_at: datetime.datetime
    sender: str  # who handed it in, as screens name them (mail From, the uploader, the CLI)

    @property
    def pk(self) -> int:
        """Templates and the viewer name a document by `pk`, as they did the row."""
        return self.id


@dataclass(frozen=True, slots=True)
class RawIntakeSummary:
    """One receipt (an upload, a mail message, a CLI ingest) as the job status API shows it."""

    id: int
    channel: str
    received_at: datetime.datetime
    metadata: dict[str, Any]  # the channel's receipt metadata (mail headers, inline parts...)

    @property
    def pk(self) -> int:
        """A receipt is named by `pk` where a write hands it back (`intake_receive`), as
        the row was; `id` is the same number."""
        return self.id


@dataclass(frozen=True, slots=True)
class ParseAttemptSummary:
    """One parse attempt of a document, as the document page lists it (no extracted text
    or structured result: those stay with intake and the candidate step)."""

    id: int
    attachment_id: int
    attempt_no: int
    state: str
    error_code: str
    reason: str
    page_count: int | None
    policy_hash: str  # the sandbox policy the attempt ran under
    requested_at: datetime.datetime
    finished_at: datetime.datetime | None


@dataclass(frozen=True, slots=True)
class VerificationRunSummary:
    """One run of the lost-document detector: how many documents it found lost, and the
    first 200 of them as `ats verify` prints them."""

    id: int
    ran_at: datetime.datetime
    lost_count: int
    lost: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class ParseReportFigures:
    """What an applied parse report tells the metrics (`observability_api.record_parse_report`'s
    arguments). A rejected report's own figures are not believed: `sandbox` is None and
    `rejected_check` names the check it failed."""

    ok: bool
    code: str
    sandbox: Mapping[str, Any] | None
    rejected_check: str | None = None


@dataclass(frozen=True, slots=True)
class ParseReportApplied:
    """The answer of `parse_result_apply`: the document, when it moved to `parsed` (the
    candidate step is due), and the report's figures, for the caller to record once its
    transaction has committed (None when there was no report to apply)."""

    parsed_attachment_id: int | None
    figures: ParseReportFigures | None
    # The parse just recorded for that document - attempt number, text, checked result -
    # so the candidate step in the same transaction does not read it back (issue 26).
    parsed: ParsedAttempt | None = None


@dataclass(frozen=True, slots=True)
class ParsedAttempt:
    """A successful parse attempt as recorded: what parsed_document_for_update reads."""

    attempt_no: int
    text: str
    result: dict[str, Any]
    # Intake's own: the document row the caller's transaction locked and moved to `parsed`
    # when it recorded this parse, so parsed_document_for_update in the same transaction
    # does not lock and read it again (issue 26). Opaque to every other module.
    locked_row: Any = field(default=None, repr=False, compare=False)
