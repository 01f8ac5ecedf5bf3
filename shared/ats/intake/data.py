"""Plain data the intake facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
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
class RawIntakeSummary:
    """One receipt (an upload, a mail message, a CLI ingest) as the job status API shows it."""

    id: int
    channel: str
    received_at: datetime.datetime
    metadata: dict[str, Any]  # the channel's receipt metadata (mail headers, inline parts...)
