"""Plain data the retention facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class HaltedPurge:
    """The latest halted purge run, as the ops attention page shows it. `error` is as
    recorded: the caller scrubs it before showing it."""

    run_id: int
    finished_at: datetime.datetime | None
    error: str
    job_id: int | None


@dataclass(frozen=True, slots=True)
class ErasureSummary:
    """One erasure as `subject_erase` left it (`erasure_json` is its CLI form)."""

    id: int
    candidate_id: int  # the candidate holding the documents
    candidate_ids: tuple[int, ...]  # it and every candidate merged into it
    attachment_ids: tuple[int, ...]
    origin: str
    state: str
    steps: tuple[dict[str, Any], ...]  # per step: {"step", "rows", ...}
    purged_blobs: tuple[str, ...]  # container/key (the weekly verifier re-checks them)


@dataclass(frozen=True, slots=True)
class SubjectRetention:
    """A person's retention terms and the due date that follows from them."""

    candidate_id: int
    last_activity_at: datetime.datetime
    consent_until: datetime.date | None
    legal_hold: bool
    due_on: datetime.date | None  # None: never due (a legal hold)


@dataclass(frozen=True, slots=True)
class PurgeRunSummary:
    """One run of the nightly purge."""

    id: int
    state: str
    job_id: int | None
    due_count: int
    done_count: int
    resumed_from: int | None  # the candidate the previous run halted at
    halted_at: int | None  # the candidate whose erasure failed
    error: str


@dataclass(frozen=True, slots=True)
class PurgeVerificationResult:
    """The weekly check that every blob an erasure purged is gone from the store."""

    id: int
    ok: bool
    checked: int
    still_present: tuple[str, ...]  # at most 200 keys
