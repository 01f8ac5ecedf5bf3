"""Plain data the selfid facade hands out (OEP-49): frozen, no ORM rows. Aggregates only:
nothing here holds one person's answer."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class StoredFairnessReport:
    """A stored fairness report (the weekly job's, or a run from the admin page or CLI)."""

    id: int
    created_at: datetime.datetime
    requisition_id: int | None  # None: the whole population
    since: datetime.date | None
    report: dict[str, Any]  # as `ats fairness report --json` prints it
    below_four_fifths: int  # groups flagged by the four-fifths rule
