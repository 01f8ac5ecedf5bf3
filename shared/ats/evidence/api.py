"""Facade of the evidence module."""

from ats.evidence.reconcile import blobs_reconcile
from ats.evidence.selectors import evidence_show

__all__ = ["blobs_reconcile", "evidence_show"]
