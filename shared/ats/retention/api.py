"""Facade of the retention module: erasure (GDPR art. 17), subject access (art. 15), the
nightly purge, tombstones and the erasure log (docs/compliance.md)."""

from ats.retention.export import subject_export, subject_rows
from ats.retention.models import PurgeState
from ats.retention.selectors import purge_halted_latest, retention_status
from ats.retention.services import (
    ErasureRefused,
    PurgeHalted,
    RetentionError,
    erasure_json,
    erasure_log_entries,
    erasure_replay,
    purge_verify,
    retention_due_on_recompute,
    retention_purge,
    retention_subject_set,
    subject_erase,
    tombstone_digests,
    tombstone_lift,
    tombstone_match,
)

__all__ = [
    "ErasureRefused",
    "PurgeHalted",
    "PurgeState",
    "RetentionError",
    "erasure_json",
    "erasure_log_entries",
    "erasure_replay",
    "purge_halted_latest",
    "purge_verify",
    "retention_due_on_recompute",
    "retention_purge",
    "retention_status",
    "retention_subject_set",
    "subject_erase",
    "subject_export",
    "subject_rows",
    "tombstone_digests",
    "tombstone_lift",
    "tombstone_match",
]
