"""The intake module's seams to blob storage and the scanner, built from settings once.

Only signatures and sizes are checked on the trusted side: untrusted bytes never reach a
complex parser here (ClamAV runs in clamd; parsers run in the sandbox).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any

from ats.config.env import ats_settings
from ats.intake.errors import IntakeError
from ats.intake.states import State
from ats.jobs import api as jobs_api
from ats.observability import api as observability_api
from ats.scanning import api as scanning_api
from ats.storage import api as storage_api

ScannerUnavailable = scanning_api.ScannerUnavailable
BlobTooLarge = storage_api.BlobTooLarge
BlobNotFound = storage_api.BlobNotFound
QUARANTINE = storage_api.QUARANTINE_CONTAINER
DOCUMENTS = storage_api.DOCUMENTS_CONTAINER
DERIVATIVES = storage_api.DERIVATIVES_CONTAINER


@functools.cache
def blob_store() -> Any:
    store = storage_api.store_for(ats_settings())
    # Once per process: creating a container that exists is a cheap no-op.
    for container in (storage_api.QUARANTINE_CONTAINER, storage_api.DOCUMENTS_CONTAINER, DERIVATIVES):
        store.ensure_container(container)
    return store


@dataclasses.dataclass(frozen=True)
class Precheck:
    detected: str
    rejection: tuple[State, str, str] | None  # (state, code, recruiter-readable reason)


def precheck(data: bytes) -> Precheck:
    limit = int(ats_settings()["MAX_UPLOAD_BYTES"])
    inspection = scanning_api.inspect_upload(data, max_bytes=limit)
    detected = inspection.detected
    label = detected.kind.value if detected else ""
    if inspection.rejection is None:
        return Precheck(label, None)
    if inspection.rejection == scanning_api.Rejection.EMPTY:
        return Precheck(label, (State.REJECTED_EMPTY, "empty", "The file is empty (0 bytes)."))
    if inspection.rejection == scanning_api.Rejection.TOO_LARGE:
        return Precheck(
            label,
            (
                State.REJECTED_TOO_LARGE,
                "too_large",
                f"The file is {len(data):,} bytes or more; the limit is {limit:,} bytes.",
            ),
        )
    what = f"{label}" + (f" ({detected.detail})" if detected and detected.detail else "")
    return Precheck(
        label,
        (
            State.REJECTED_UNSUPPORTED_TYPE,
            "unsupported_type",
            f"The file's content is {what}, not a PDF, Word (.docx) or image scan (PNG, JPEG, TIFF). "
            "The file name is not trusted to decide this.",
        ),
    )


@dataclasses.dataclass(frozen=True)
class ScanOutcome:
    status: str  # clean | infected | incomplete | error
    signature: str
    engine: str
    reason: str = ""


# Keeps its builtin base (LookupError) so every `except LookupError` still catches it.
class NoRaisedScanner(IntakeError, LookupError):
    """No clamd with raised limits is configured (ATS_CLAMD_RAISED_HOST)."""


def raised_scanner_configured() -> bool:
    return bool(ats_settings()["CLAMD_RAISED_HOST"])


def scan(data: bytes, *, raised_limits: bool = False) -> ScanOutcome:
    """Scan in clamd; raises ScannerUnavailable (transient) when clamd cannot answer.

    `raised_limits`: the admin's re-scan of a scan_incomplete file goes to the second
    clamd (services/clamd/limits-raised.conf), never to the everyday one."""
    cfg = ats_settings()
    host, port = cfg["CLAMD_HOST"], int(cfg["CLAMD_PORT"])
    if raised_limits:
        if not cfg["CLAMD_RAISED_HOST"]:
            raise NoRaisedScanner("no clamd with raised limits is configured (ATS_CLAMD_RAISED_HOST)")
        host, port = cfg["CLAMD_RAISED_HOST"], int(cfg["CLAMD_RAISED_PORT"])
    timeout = float(cfg["CLAMD_TIMEOUT_S"])
    attempt = jobs_api.current_attempt()
    if attempt is not None:
        # Bounded by what is left of this attempt's wall budget (ADR §2: 2 min).
        attempt.deadline.check("wall timeout of this attempt reached", error=jobs_api.DeadlineExceeded)
        timeout = max(0.1, min(timeout, attempt.deadline.remaining()))
    endpoint = scanning_api.ClamdEndpoint(
        host=host,
        port=port,
        timeout=timeout,
        max_stream_bytes=max(int(cfg["MAX_UPLOAD_BYTES"]), 1),
    )
    started = time.perf_counter()
    try:
        verdict = scanning_api.scan_bytes(data, endpoint)
    except Exception:
        observability_api.record_scan("unavailable", time.perf_counter() - started)
        raise
    elapsed = time.perf_counter() - started
    engine = verdict.scanner.raw
    if isinstance(verdict, scanning_api.Infected):
        observability_api.record_scan("infected", elapsed)
        return ScanOutcome("infected", verdict.signature, engine)
    if isinstance(verdict, scanning_api.ScanIncomplete):
        observability_api.record_scan("incomplete", elapsed)
        return ScanOutcome("incomplete", verdict.limit, engine)
    if isinstance(verdict, scanning_api.ScanFailed):
        observability_api.record_scan("error", elapsed)
        return ScanOutcome("error", "", engine, verdict.reason)
    observability_api.record_scan("clean", elapsed)
    return ScanOutcome("clean", "", engine)
