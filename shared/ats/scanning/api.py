"""Public facade of ``ats.scanning``: the only module (with ``data``) others import.

Typical intake use (the caller owns retries and state)::

    inspection = inspect_upload(data, max_bytes=settings.UPLOAD_MAX_BYTES)
    if not inspection.accepted: ...reject with inspection.rejection / .detected.kind
    verdict = scan_bytes(data, endpoint)  # may raise ScannerUnavailable -> retry
    match verdict:
        case Clean(): promote
        case Infected(signature=sig): keep in quarantine, record sig + verdict.scanner
        case ScanFailed(reason=why): keep in quarantine, alert
        case ScanIncomplete(limit=name): keep in quarantine, never parse; an admin decides
"""

from __future__ import annotations

from ats.scanning.clamav import parse_version, ping, scan_bytes, scanner_version
from ats.scanning.data import (
    MIME_TYPES,
    SUPPORTED_KINDS,
    ClamdEndpoint,
    Clean,
    DetectedType,
    FileKind,
    Infected,
    Rejection,
    ScanFailed,
    ScanIncomplete,
    ScannerUnavailable,
    ScannerVersion,
    ScanningError,
    ScanStatus,
    ScanVerdict,
    UploadInspection,
    is_scanner_limit,
)
from ats.scanning.filetype import (
    MAX_ZIP_MEMBERS,
    PDF_HEADER_WINDOW,
    check_size,
    detect_file_type,
    inspect_upload,
)

__all__ = [
    "MAX_ZIP_MEMBERS",
    "MIME_TYPES",
    "PDF_HEADER_WINDOW",
    "SUPPORTED_KINDS",
    "ClamdEndpoint",
    "Clean",
    "DetectedType",
    "FileKind",
    "Infected",
    "Rejection",
    "ScanFailed",
    "ScanIncomplete",
    "ScanStatus",
    "ScanVerdict",
    "ScannerUnavailable",
    "ScannerVersion",
    "ScanningError",
    "UploadInspection",
    "check_size",
    "detect_file_type",
    "inspect_upload",
    "is_scanner_limit",
    "parse_version",
    "ping",
    "scan_bytes",
    "scanner_version",
]
