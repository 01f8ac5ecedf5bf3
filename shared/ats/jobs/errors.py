"""The base of the errors the jobs module raises on purpose (exported from its api.py)."""

from __future__ import annotations

from ats.errors import AtsError


class JobError(AtsError):
    """Base of the errors the jobs module raises on purpose."""
