"""Plain data the candidates facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CandidateActivity:
    """When a candidate record last changed, and its status: what retention reckons due
    dates from, without reading `candidates_candidate` itself."""

    candidate_id: int
    status: str
    updated_at: datetime.datetime


@dataclass(frozen=True, slots=True)
class CandidateRef:
    """A candidate a write made or changed: its id and the name a message shows."""

    id: int
    display_name: str
    # Made by this write, in the caller's still-open transaction: nobody else has seen it
    # yet, so it is not merged and has no applications (issue 26: callers skip those reads).
    created: bool = False


@dataclass(frozen=True, slots=True)
class DecidedChange:
    """A proposed change a recruiter accepted or dismissed."""

    change_id: int
    candidate_id: int
    field: str
    status: str  # accepted | dismissed


@dataclass(frozen=True, slots=True)
class MergeRecord:
    """A merge (or its undoing): the journal entry's id and the two candidates, what the
    merge page's message and `ats candidate merge|unmerge --json` read."""

    id: int  # the merge journal entry: `ats candidate unmerge ID` takes it
    survivor_id: int
    merged_id: int
