"""Facade of the evidence module."""

from ats.evidence.selectors import evidence_show

__all__ = ["evidence_show"]
