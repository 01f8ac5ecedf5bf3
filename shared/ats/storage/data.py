"""Plain types and errors of ``ats.storage``; no I/O, safe to import anywhere."""

from __future__ import annotations

import dataclasses
import datetime
from enum import StrEnum

from ats.errors import AtsError

# The intake flow's two containers: bytes land in quarantine, a clean scan promotes
# them to documents, infected/failed ones stay in quarantine for review and expiry.
QUARANTINE_CONTAINER = "intake-quarantine"
DOCUMENTS_CONTAINER = "documents"
# ADR 0004 derivatives: page images and thumbnails the trusted side encoded (CV viewer).
DERIVATIVES_CONTAINER = "derivatives"

# Default cap for get(): larger than any accepted upload, small enough that one
# worker can never be made to buffer something absurd.
DEFAULT_MAX_GET_BYTES = 64 * 1024 * 1024


class PutResult(StrEnum):
    CREATED = "created"
    UNCHANGED = "unchanged"  # identical bytes were already there (idempotent retry)
    REPLACED = "replaced"  # overwrite=True and the old bytes differed or existed


class PromoteResult(StrEnum):
    PROMOTED = "promoted"
    ALREADY_PROMOTED = "already_promoted"  # retry after an earlier promote completed


class StorageError(AtsError):
    """Base of all storage errors."""


class InvalidName(StorageError, ValueError):
    """A container name or key failed validation (path traversal, bad characters...)."""


class BlobNotFound(StorageError):
    pass


class ContainerNotFound(StorageError):
    pass


class BlobConflict(StorageError):
    """put/copy without overwrite found *different* bytes under that key."""


class BlobTooLarge(StorageError):
    """get() refused a blob larger than its max_bytes."""


class StorageUnavailable(StorageError):
    """The backend could not be reached (network, timeout, 5xx). Transient: retry."""


@dataclasses.dataclass(frozen=True)
class BlobInfo:
    """One listed object (orphan reconciliation compares these with database rows)."""

    container: str
    key: str
    size: int
    last_modified: datetime.datetime  # timezone-aware
