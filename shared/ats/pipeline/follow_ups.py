"""The follow-ups batched after a candidate step (issue 26): names and the exhaustion
handler, apart from the tasks module so that the app can register the handler at start
without registering tasks."""

from __future__ import annotations

from typing import Any

from ats.jobs import api as jobs_api

FOLLOW_UPS = "candidates.follow_ups"
# What the candidate step defers that can wait and run together, off the critical path.
FOLLOW_UP_STEPS = ("candidates.dedupe", "search.index")


def known_steps(steps: list[list[Any]]) -> list[list[Any]]:
    return [s for s in steps if s and s[0] in FOLLOW_UP_STEPS]


def follow_ups_exhausted(*, steps: list[list[Any]], reason_code: str, reason: str, **_: Any) -> None:
    # Each step as its own job again: each then ends in its own failure state if it fails.
    jobs_api.defer_follow_ups_alone(known_steps(steps))
