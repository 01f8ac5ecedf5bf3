"""Plain data the ai facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AiRunRequested:
    """The run `ai_request` wrote: its id (what the caller polls `ai_run_detail` with) and
    its state when the request returned (`pending`, or `unavailable` at once when the
    provider is disabled)."""

    id: int
    kind: str
    subject_id: int
    state: str
