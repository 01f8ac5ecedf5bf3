"""Facade of the audit module."""

from ats.audit.services import (
    ExportRefused,
    ExportResult,
    audit_event_record,
    audit_export,
    audit_partitions_maintain,
    audit_personal_erase,
    audit_verify,
)

__all__ = [
    "ExportRefused",
    "ExportResult",
    "audit_event_record",
    "audit_export",
    "audit_partitions_maintain",
    "audit_personal_erase",
    "audit_verify",
]
