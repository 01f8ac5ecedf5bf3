"""Facade of the audit module."""

from ats.audit.selectors import ChainedEvent, audit_archive_references, audit_events_for, events_for
from ats.audit.services import (
    AuditError,
    ExportRefused,
    ExportResult,
    audit_event_record,
    audit_events_at_end,
    audit_export,
    audit_keyed_digest,
    audit_partitions_maintain,
    audit_personal_erase,
    audit_subject_rows,
    audit_verify,
)

__all__ = [
    "AuditError",
    "ChainedEvent",
    "ExportRefused",
    "ExportResult",
    "audit_archive_references",
    "audit_event_record",
    "audit_events_at_end",
    "audit_events_for",
    "audit_export",
    "audit_keyed_digest",
    "audit_partitions_maintain",
    "audit_personal_erase",
    "audit_subject_rows",
    "audit_verify",
    "events_for",
]
