"""Plain data the scoring facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ApplicationSummary:
    """An application as the upload answer names it: its id, state and requisition."""

    id: int
    state: str
    requisition_id: int
    requisition_title: str


@dataclass(frozen=True, slots=True)
class AppliedApplication:
    """The application `application_apply` created or refreshed (its scoring is deferred)."""

    id: int
    candidate_id: int  # the current record (a merged-away id is followed)
    requisition_id: int
    state: str


@dataclass(frozen=True, slots=True)
class RequisitionVersionData:
    """One version of a requisition's criteria (`version_json` is its CLI form)."""

    id: int  # the version's own id: rescore jobs and runs name it
    requisition_id: int
    version: int
    title: str
    must_have: tuple[str, ...]
    nice_to_have: tuple[str, ...]
    min_years: float | None
    weights: dict[str, int]
    created_by: str
    created_at: datetime.datetime


@dataclass(frozen=True, slots=True)
class Decision:
    """A recorded move of an application to a stage, with what the person saw then
    (`decision_json` is its CLI form)."""

    id: int
    application_id: int
    from_stage: str
    to_stage: str
    reason: str
    actor: str  # iam's actor label
    actor_user_id: int | None
    requisition_version_id: int
    result_id: int | None
    score: int | None
    input_fingerprint: str
    config_version: str
    explanation: list[dict[str, Any]]
    created_at: datetime.datetime
