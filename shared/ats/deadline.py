"""The one wall-clock budget type: a job attempt's (ats.jobs) and a Graph call's (ats.mail).

A leaf module, importable from every layer (it imports nothing of ats, no Django, no
queue): the job runtime hands a task `Attempt.deadline`, the mail channel derives its own
from it (channels), and both check the same object the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ats.errors import AtsError


class DeadlineExceeded(AtsError):
    """A wall budget ran out (ats.jobs and ats.mail raise subclasses of their own)."""


@dataclass(frozen=True, slots=True)
class Deadline:
    """A wall-clock budget on the monotonic clock, passed down through every call."""

    expires_at: float  # time.monotonic() value

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def remaining(self) -> float:
        return self.expires_at - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    def check(self, message: str = "deadline exceeded", *, error: type[Exception] = DeadlineExceeded) -> None:
        """Raise `error` once the budget is spent (each caller names its own exception)."""
        if self.expired:
            raise error(message)

    def timeout(self, cap: float, *, what: str = "request", error: type[Exception] = DeadlineExceeded) -> float:
        """Seconds the next operation may take: min(remaining, cap).

        Raises `error` instead of returning a useless non-positive timeout.
        """
        left = self.remaining()
        if left <= 0:
            raise error(f"deadline exceeded before {what}")
        return min(left, cap)
