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
