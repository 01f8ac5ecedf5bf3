"""Plain data the retention facade hands out (OEP-49): frozen, no ORM rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HaltedPurge:
    """The latest halted purge run, as the ops attention page shows it. `error` is as
    recorded: the caller scrubs it before showing it."""

    run_id: int
    finished_at: datetime.datetime | None
    error: str
    job_id: int | None
