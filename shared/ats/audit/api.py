"""Facade of the audit module."""

from ats.audit.selectors import events_for
from ats.audit.services import audit_event_record

__all__ = ["audit_event_record", "events_for"]
