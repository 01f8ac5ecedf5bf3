"""Plain data the scoring facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ApplicationSummary:
    """An application as the upload answer names it: its id, state and requisition."""

    id: int
    state: str
    requisition_id: int
    requisition_title: str
