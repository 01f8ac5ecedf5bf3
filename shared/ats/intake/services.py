"""Writes of the intake module (`<entity>_<action>(*, ...)`).

Every function that creates a row a job refers to defers that job in the same
transaction (ADR 0004 convention 2), through `ats.jobs.api.defer`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import uuid
from pathlib import Path
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from ats.audit import api as audit_api
from ats.config.env import ats_settings
from ats.errors import Refused
from ats.intake import adapters, selectors
from ats.intake.data import (
    ParseAttemptSummary,
    ParsedAttempt,
    ParseReportApplied,
    ParseReportFigures,
    RawIntakeSummary,
    VerificationRunSummary,
)
from ats.intake.errors import IntakeError
from ats.intake.models import (
    Attachment,
    Channel,
    ParseAttempt,
    ParseAttemptState,
    ParseHandoff,
    ParseResult,
    RawIntake,
    VerificationRun,
    VirusScanStatus,
)
from ats.intake.states import CANDIDATE, DISCARDABLE, INFO, INGEST, PARSE, State, check_transition
from ats.jobs import api as jobs_api
from ats.sandbox import api as sandbox_api

logger = logging.getLogger(__name__)

ROUTE_DUPLICATE = "scoring.route_duplicate"
QUARANTINE = adapters.QUARANTINE
DOCUMENTS = adapters.DOCUMENTS


@dataclasses.dataclass(frozen=True)
class IncomingFile:
    filename: str
    data: bytes
    content_type: str = ""


# Keeps its builtin base (ValueError) so every `except ValueError` still catches it.
class ActionRefused(IntakeError, Refused, ValueError):
    """A recruiter action that the document's current state does not allow (with why)."""


def _set_state(att: Attachment, new: State, *, reason_code: str = "", reason: str = "") -> None:
    check_transition(State(att.state), new)
    att.state = new
    att.state_changed_at = timezone.now()
    att.reason_code = reason_code
    att.reason = reason


def _save(att: Attachment, *extra: str) -> None:
    """`att.save(update_fields=[the state's columns, *extra])`, written out (h50perf): every
    state move of every hop saves through here, and Model.save built the UPDATE anew each
    time (~0.25 ms of worker CPU). The same statement and checks: `updated_at` is stamped
    as auto_now stamps it, each value prepared by its field, and a row that is gone is the
    same DatabaseError. No signal listens to these saves."""
    names = dict.fromkeys(("state", "state_changed_at", "reason_code", "reason", "updated_at", *extra))
    att.updated_at = timezone.now()
    fields = [_ATTACHMENT_FIELD[name] for name in names]
    sets = ", ".join(f'"{f.column}" = %s' for f in fields)
    with connection.cursor() as cur:
        cur.execute(
            f'UPDATE "{_ATT}" SET {sets} WHERE "{_ATT}"."id" = %s',
            [*(f.get_db_prep_save(getattr(att, f.attname), connection) for f in fields), att.pk],
        )
        if cur.rowcount == 0:
            raise DatabaseError("Save with update_fields did not affect any rows.")


def _move(att: Attachment, new: State, *also: str, reason_code: str = "", reason: str = "", **fields: Any) -> None:
    """Set `fields`, move to `new` (checked) and save them with the state, in one UPDATE.

    `also` names fields already set on `att` that must be saved too.
    """
    for name, value in fields.items():
        setattr(att, name, value)
    _set_state(att, new, reason_code=reason_code, reason=reason)
    _save(att, *also, *fields)


def _quarantine_key() -> str:
    return f"{timezone.now():%Y/%m/%d}/{uuid.uuid4().hex}"


@dataclasses.dataclass(frozen=True)
class StoredFile:
    """A file a channel already streamed into quarantine (`quarantine_writer`)."""

    filename: str
    storage_key: str
    size_bytes: int
    content_type: str = ""


def quarantine_writer() -> tuple[str, Any]:
    """(key, writer) for streaming one incoming file into quarantine: `write` chunks, then
    `commit()` (-> size, sha256, first bytes) or `abort()`. Hand the key to
    `intake_receive_stored`; a key never handed over is deleted with `quarantine_discard`
    (or by the orphan reconciliation)."""
    key = _quarantine_key()
    return key, adapters.blob_store().open_writer(QUARANTINE, key)


def quarantine_discard(keys: list[str]) -> None:
    """Delete streamed quarantine blobs that no intake row will own (a refused upload)."""
    store = adapters.blob_store()
    for key in keys:
        store.delete(QUARANTINE, key)


def intake_receive(
    *,
    channel: str,
    files: list[IncomingFile],
    source_ref: str = "",
    actor: Any = None,
    metadata: dict[str, Any] | None = None,
) -> RawIntakeSummary:
    """The one entry point of every channel: store bytes in quarantine, then commit the
    raw_intake, its attachments and their ingest jobs together.

    Bytes are written before the transaction: if it rolls back, an orphan quarantine blob
    remains (the nightly orphan reconciliation removes it) - never a row without bytes.
    """
    store = adapters.blob_store()
    stored = []
    for f in files:
        key = _quarantine_key()
        store.put(QUARANTINE, key, f.data)
        stored.append(StoredFile(f.filename, key, len(f.data), f.content_type))
    return intake_receive_stored(channel=channel, files=stored, source_ref=source_ref, actor=actor, metadata=metadata)


def intake_receive_stored(
    *,
    channel: str,
    files: list[StoredFile],
    source_ref: str = "",
    actor: Any = None,
    metadata: dict[str, Any] | None = None,
) -> RawIntakeSummary:
    """`intake_receive` for files already streamed into quarantine (the web upload): the
    raw_intake, its attachments, their ingest jobs and audit entries in one transaction.
    The ingest job re-reads, re-hashes and re-types the bytes (nothing a channel says about
    them is believed)."""
    actor_label = _actor_label(actor, channel)
    with transaction.atomic():
        raw = RawIntake.objects.create(
            channel=Channel(channel),
            source_ref=source_ref[:1024],
            received_by=actor if getattr(actor, "is_authenticated", False) else None,
            metadata=metadata or {},
        )
        for f in files:
            att = Attachment.objects.create(
                raw_intake=raw,
                filename=(f.filename or "unnamed")[:512],
                size_bytes=f.size_bytes,
                declared_content_type=f.content_type[:255],
                storage_container=QUARANTINE,
                storage_key=f.storage_key,
                state=State.RECEIVED,
            )
            jobs_api.defer(INGEST, payload={"attachment_id": att.pk})
            audit_api.audit_event_record(
                actor=actor_label,
                action="intake.received",
                object_type="attachment",
                object_id=att.pk,
                payload={
                    "channel": channel,
                    "filename": att.filename,  # personal: kept out of the chain by ats.audit
                    "size": att.size_bytes,
                    "raw_intake_id": raw.pk,
                    "source_sha256": selectors.source_sha256(raw),
                },
            )
    return selectors.raw_intake_summary(raw)


# Terminal rejections a channel can record for a document whose bytes it never received.
REJECTABLE_AT_SOURCE = frozenset({State.REJECTED_EMPTY, State.REJECTED_TOO_LARGE, State.REJECTED_UNSUPPORTED_TYPE})


def attachment_record_rejected(
    *,
    raw_intake_id: int,
    filename: str,
    state: str,
    reason_code: str,
    reason: str,
    declared_content_type: str = "",
    size_bytes: int | None = None,
) -> int:
    """Record a document a channel could not take in (an attached e-mail, a cloud link,
    a file over the size limit) directly in a terminal rejected state with its reason.

    Terminal, so no job: the row exists only so a recruiter sees that something arrived
    and why it was not read - "no document silently lost" includes these.
    """
    target = State(state)
    if target not in REJECTABLE_AT_SOURCE:
        raise ValueError(f"{state} is not a state a document can be rejected into at its source")
    with transaction.atomic():
        raw = RawIntake.objects.get(pk=raw_intake_id)
        att = Attachment.objects.create(
            raw_intake=raw,
            filename=(filename or "unnamed")[:512],
            size_bytes=size_bytes,
            declared_content_type=declared_content_type[:255],
            state=target,
            reason_code=reason_code[:64],
            reason=reason,
            virus_scan_status=VirusScanStatus.NOT_SCANNED,
        )
        audit_api.audit_event_record(
            actor=_actor_label(None, raw.channel),
            action="intake.rejected_at_source",
            object_type="attachment",
            object_id=att.pk,
            payload={"channel": raw.channel, "filename": att.filename, "reason_code": reason_code},
        )
    return int(att.pk)  # the new document's id (a channel's ledger names it)


def _actor_label(actor: Any, channel: str) -> str:
    if isinstance(actor, str) and actor:
        return actor  # already a label ("cli:<uid>", "system:<task>")
    if getattr(actor, "is_authenticated", False):
        return f"user:{actor.pk}"
    return f"{channel}:system"


def _locked(attachment_id: int, *, with_intake: bool = False) -> Attachment | None:
    # FOR NO KEY UPDATE (issue 26): it serialises every writer of the document (this lock
    # conflicts with itself and with FOR UPDATE) but not the foreign-key checks of rows
    # inserted under it (FOR KEY SHARE), which FOR UPDATE made wait for the whole unit of
    # work: parse attempts, page hand-offs, candidate documents. Safe because nothing
    # holding it deletes the row or changes its key (the id; no other unique column).
    # Erasure, which blanks and deletes, locks FOR UPDATE (erasure.py, attachments_lock).
    #
    # Written out (h50perf): the hottest read of the trusted hops (twice per ingest, once per
    # apply), which the ORM compiled anew each time - ~0.4 ms of worker CPU apiece, a third
    # of the ingest hop's Python. The same statement as
    # `select_for_update(no_key=True[, of=self]).select_related("raw_intake").filter(pk=).first()`
    # (the FK is NOT NULL: an inner join), and the same instances (Model.from_db, each
    # field's from_db_value, the raw intake cached on the row as select_related does).
    # Named columns, never `*`: a prepared statement must not change its result type when
    # a migration adds a column (tests/intake/test_locked_read.py compares with the ORM).
    with connection.cursor() as cur:
        cur.execute(_LOCKED_WITH_INTAKE if with_intake else _LOCKED, [attachment_id])
        row = cur.fetchone()
    if row is None:
        return None
    n = len(_ATTACHMENT_FIELDS)
    att = _from_row(Attachment, _ATTACHMENT_FIELDS, row[:n])
    if with_intake:
        Attachment._meta.get_field("raw_intake").set_cached_value(att, _from_row(RawIntake, _INTAKE_FIELDS, row[n:]))
    return att


_ATTACHMENT_FIELDS = tuple(Attachment._meta.concrete_fields)
# By name and by attname ("duplicate_of" and "duplicate_of_id"), as update_fields takes them.
_ATTACHMENT_FIELD = {**{f.name: f for f in _ATTACHMENT_FIELDS}, **{f.attname: f for f in _ATTACHMENT_FIELDS}}
_INTAKE_FIELDS = tuple(RawIntake._meta.concrete_fields)


def _columns(table: str, fields: tuple[Any, ...]) -> str:
    return ", ".join(f'"{table}"."{f.column}"' for f in fields)


# In the ORM's own spelling (quoted names, no aliases): the statement it replaced, word for word
# but for the ORDER BY/LIMIT of `.first()` on a primary key.
_ATT, _RAW = Attachment._meta.db_table, RawIntake._meta.db_table
_LOCKED = f'SELECT {_columns(_ATT, _ATTACHMENT_FIELDS)} FROM "{_ATT}" WHERE "{_ATT}"."id" = %s FOR NO KEY UPDATE'
_LOCKED_WITH_INTAKE = (
    f"SELECT {_columns(_ATT, _ATTACHMENT_FIELDS)}, {_columns(_RAW, _INTAKE_FIELDS)}"
    f' FROM "{_ATT}" INNER JOIN "{_RAW}" ON ("{_ATT}"."raw_intake_id" = "{_RAW}"."id")'
    f' WHERE "{_ATT}"."id" = %s FOR NO KEY UPDATE OF "{_ATT}"'
)


def _from_row(model: Any, fields: tuple[Any, ...], values: tuple[Any, ...]) -> Any:
    converted = [
        f.from_db_value(v, None, connection) if hasattr(f, "from_db_value") else v
        for f, v in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


def _locked_in(attachment_id: int, *states: State) -> Attachment | None:
    """The row, locked, if it exists and is in one of `states` (else a redelivered job or
    a concurrent action got there first: nothing to do)."""
    att = _locked(attachment_id)
    return att if att is not None and att.state in states else None


_CONTENT_LOCK_NAMESPACE = 0x61747331  # "ats1": keeps these keys apart from other advisory locks


def _lock_content(sha256_hex: str) -> None:
    key = int.from_bytes(bytes.fromhex(sha256_hex)[:4], "big", signed=True)
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_CONTENT_LOCK_NAMESPACE, key])


def attachment_ingest(*, attachment_id: int, raised_limits: bool = False) -> None:  # noqa: PLR0911 - one return per terminal state of the scan step (docs/states.md)
    """Checksum, size, magic bytes, malware scan, promote + hand off to parse.

    Idempotent: re-running on an attachment already past scanning is a no-op, and the
    scan itself is repeatable, so redelivery after a crash is harmless.
    """
    checked = _ingest_check(attachment_id)
    if checked is None:
        return
    storage_key, data, verdict = checked

    # The scan is network I/O to clamd: outside any transaction, bounded by the attempt.
    try:
        # raises adapters.ScannerUnavailable -> retried per policy
        scan = adapters.scan(data, raised_limits=raised_limits)
    except adapters.NoRaisedScanner as exc:
        # The raised-limits clamd went away between the admin's action and this job.
        _ingest_scan_incomplete(attachment_id, adapters.ScanOutcome("incomplete", "", "", str(exc)))
        return

    if scan.status == "error":
        # clamd answered but would not scan (e.g. its stream limit): retrying cannot help.
        with transaction.atomic():
            att = _locked(attachment_id)
            if att is not None:
                att.scan_engine = scan.engine[:255]
                att.save(update_fields=["scan_engine", "updated_at"])
            attachment_mark_scan_failed(attachment_id=attachment_id, reason=scan.reason)
        return
    if scan.status == "infected":
        _ingest_block_malware(attachment_id, scan)
        return
    if scan.status == "incomplete":
        _ingest_scan_incomplete(attachment_id, scan)
        return
    if verdict.rejection is None:
        adapters.blob_store().promote(QUARANTINE, storage_key, DOCUMENTS)
    with transaction.atomic():
        att = _locked_in(attachment_id, State.SCANNING)
        if att is None:
            return
        clean = {"virus_scan_status": VirusScanStatus.CLEAN, "scan_engine": scan.engine[:255]}
        if verdict.rejection is not None:
            state, code, reason = verdict.rejection
            _move(att, state, reason_code=code, reason=reason, **clean)  # bytes stay in quarantine
            _record_scan(att, "clean", scan.engine)
            return
        _move(
            att, State.PROMOTED, storage_container=DOCUMENTS, **clean, parse_attempts_requested=_next_parse_attempt(att)
        )
        _record_scan(att, "clean", scan.engine)
        _handoff_to_parse(att, data)


def _ingest_check(attachment_id: int) -> tuple[str, bytes, Any] | None:
    """Read, checksum and type the bytes; end here (rejected or duplicate) or go on to the
    scan in `scanning`. Returns (storage key, bytes, precheck verdict) to scan, or None."""
    with transaction.atomic():
        att = _locked_in(attachment_id, State.RECEIVED, State.SCANNING)
        if att is None:
            return None  # deleted or already handled: a redelivered job has nothing to do
        try:
            data = _read_for_check(att)
        except adapters.BlobTooLarge:
            _move(
                att,
                State.REJECTED_TOO_LARGE,
                reason_code="too_large",
                reason=f"The file is larger than the {max_upload_bytes():,}-byte limit.",
                virus_scan_status=VirusScanStatus.NOT_SCANNED,
            )
            return None
        att.sha256 = hashlib.sha256(data).hexdigest()
        att.size_bytes = len(data)
        verdict = adapters.precheck(data)
        att.detected_type = verdict.detected
        checked = ("sha256", "size_bytes", "detected_type")
        # Empty/oversized files are rejected unscanned. An unsupported type is still
        # scanned first: malware must surface as malware, not as "wrong file type".
        if verdict.rejection is not None and verdict.rejection[0] != State.REJECTED_UNSUPPORTED_TYPE:
            state, code, reason = verdict.rejection
            _move(att, state, *checked, reason_code=code, reason=reason, virus_scan_status=VirusScanStatus.NOT_SCANNED)
            return None
        # Two byte-identical documents ingested at once each run this check before the
        # other's sha256 is committed, so neither would see the other: serialise on the
        # content hash (released at commit), so the second to get here sees the first's
        # committed row. The first committed is the original, whatever the ids' order.
        _lock_content(att.sha256)
        original = _original_of(att)
        if original is not None:
            _move(
                att,
                State.DUPLICATE,
                *checked,
                reason_code="duplicate",
                reason=f"Byte-identical to document {original.pk} ({original.filename})",
                virus_scan_status=VirusScanStatus.NOT_SCANNED,
                duplicate_of=original,
            )
            if (att.raw_intake.metadata or {}).get("requisition_id"):
                # Sent for a requisition: the original's candidate applies to it (the
                # scoring module routes it once the original has its candidate).
                jobs_api.defer(ROUTE_DUPLICATE, payload={"attachment_id": att.pk})
            return None
        if att.state == State.RECEIVED:
            _set_state(att, State.SCANNING)
        _save(att, *checked)
        return att.storage_key, data, verdict


def _read_for_check(att: Attachment) -> bytes:
    """The attachment's bytes, one byte over the limit at most (enough to know it is too large).

    A second run of this step (a redelivered or stalled-then-retried job, racing the first)
    can find the quarantine copy gone: the first run, past its scan, promoted it to
    documents at the same key (promote copies, then deletes). The bytes are the same
    there; this run goes on, its promote reports ALREADY_PROMOTED and its final
    transition finds the state moved on. Only a run already in ``scanning`` reads there:
    a ``received`` document has never been promoted.
    """
    store, cap = adapters.blob_store(), max_upload_bytes() + 1
    try:
        return store.get(att.storage_container, att.storage_key, max_bytes=cap)
    except adapters.BlobNotFound:
        if att.state != State.SCANNING or att.storage_container != QUARANTINE:
            raise
        return store.get(DOCUMENTS, att.storage_key, max_bytes=cap)


def _ingest_block_malware(attachment_id: int, scan: Any) -> None:
    with transaction.atomic():
        att = _locked_in(attachment_id, State.SCANNING)
        if att is None:
            return
        _move(
            att,
            State.BLOCKED_MALWARE,
            reason_code="malware",
            reason=f"Malware detected: {scan.signature}. The file is kept in quarantine and never opened.",
            virus_scan_status=VirusScanStatus.INFECTED,
            scan_signature=scan.signature[:255],
            scan_engine=scan.engine[:255],
        )
        audit_api.audit_event_record(
            actor="system:ingest",
            action="intake.blocked_malware",
            object_type="attachment",
            object_id=att.pk,
            payload={
                "signature": scan.signature,
                "engine": scan.engine,
                **_scan_evidence(att, "infected", scan.engine),
            },
        )


SCAN_INCOMPLETE_REASON = (
    "Could not be scanned completely: a part of the file exceeds the scanner's limits ({limit}). "
    "This is not a malware finding. The file is kept in quarantine and not opened until an admin "
    "releases it after review or re-scans it with raised limits."
)


def _ingest_scan_incomplete(attachment_id: int, scan: Any) -> None:
    with transaction.atomic():
        att = _locked_in(attachment_id, State.SCANNING)
        if att is None:
            return
        limit = scan.signature or scan.reason or "scanner limit"
        _move(
            att,
            State.SCAN_INCOMPLETE,
            reason_code="scan_incomplete",
            reason=SCAN_INCOMPLETE_REASON.format(limit=limit),
            virus_scan_status=VirusScanStatus.INCOMPLETE,
            scan_signature=scan.signature[:255],
            scan_engine=scan.engine[:255],
        )
        audit_api.audit_event_record(
            actor="system:ingest",
            action="intake.scan_incomplete",
            object_type="attachment",
            object_id=att.pk,
            payload={"limit": limit, "engine": scan.engine, **_scan_evidence(att, "incomplete", scan.engine)},
        )


def _locked_scan_incomplete(attachment_id: int, *, done: str, to: str) -> Attachment:
    """The `scan_incomplete` document, row-locked, with its bytes still in quarantine: what
    both admin actions on it (release, re-scan with raised limits) start from."""
    att = _locked(attachment_id)
    if att is None:
        raise LookupError(f"attachment {attachment_id} does not exist")
    if att.state != State.SCAN_INCOMPLETE:
        raise ActionRefused(f"attachment {attachment_id} is {att.state}; only an incompletely scanned file is {done}")
    if att.storage_container != QUARANTINE or not att.storage_key:
        raise ActionRefused(f"attachment {attachment_id} has no bytes in quarantine to {to}")
    return att


def attachment_release_after_review(
    *, attachment_id: int, reason: str, actor: Any = None
) -> ParseAttemptSummary | None:
    """An admin reviewed a `scan_incomplete` file and releases it: it is promoted out of
    quarantine and read in the sandbox like any clean file (the sandbox, not clamd, is
    what contains a hostile file). The reason and the admin are audited. None: the
    trusted-side precheck rejected the file instead (the document shows why)."""
    reason = (reason or "").strip()
    if not reason:
        raise ActionRefused("a reason is required to release a file the scanner could not check completely")
    with transaction.atomic():
        att = _locked_scan_incomplete(attachment_id, done="released", to="release")
        data = adapters.blob_store().get(QUARANTINE, att.storage_key, max_bytes=max_upload_bytes() + 1)
        verdict = adapters.precheck(data)  # signatures and sizes only (trusted side)
        if verdict.rejection is not None:
            state, code, why = verdict.rejection
            _move(att, state, reason_code=code, reason=why)
            _audit_release(att, actor, reason)
            return None
        adapters.blob_store().promote(QUARANTINE, att.storage_key, DOCUMENTS)
        _move(att, State.PROMOTED, storage_container=DOCUMENTS, parse_attempts_requested=_next_parse_attempt(att))
        attempt = _handoff_to_parse(att, data)
        _audit_release(att, actor, reason)
        return selectors.parse_attempt_summary(attempt)


def _audit_release(att: Attachment, actor: Any, reason: str) -> None:
    audit_api.audit_event_record(
        actor=_actor_label(actor, "cli"),
        action="intake.released_after_review",
        object_type="attachment",
        object_id=att.pk,
        payload={"reason": reason[:1000], "limit": att.scan_signature, "to_state": att.state},
    )


def attachment_rescan_raised_limits(*, attachment_id: int, actor: Any = None) -> None:
    """`scan_incomplete` -> `received` with an ingest job that scans with the second clamd
    (raised limits). Clean there -> read as usual; malware -> blocked; still over the
    raised limits -> scan_incomplete again."""
    if not adapters.raised_scanner_configured():
        raise ActionRefused(
            "no scanner with raised limits is configured (ATS_CLAMD_RAISED_HOST); see docs/runbook/clamav.md"
        )
    with transaction.atomic():
        att = _locked_scan_incomplete(attachment_id, done="re-scanned", to="scan again")
        _move(att, State.RECEIVED, virus_scan_status=VirusScanStatus.PENDING)
        job_id = jobs_api.defer(INGEST, payload={"attachment_id": att.pk, "raised_limits": True})
        audit_api.audit_event_record(
            actor=_actor_label(actor, "cli"),
            action="intake.rescan_raised_limits",
            object_type="attachment",
            object_id=att.pk,
            payload={"job_id": job_id, "limit": att.scan_signature},
        )


def _scan_evidence(att: Attachment, verdict: str, engine: str) -> dict[str, Any]:
    # What `ats evidence show` later checks the stored bytes and rows against.
    return {"sha256": att.sha256, "detected_type": att.detected_type, "verdict": verdict, "engine": engine}


def _record_scan(att: Attachment, verdict: str, engine: str) -> None:
    audit_api.audit_event_record(
        actor="system:ingest",
        action="intake.scanned",
        object_type="attachment",
        object_id=att.pk,
        payload=_scan_evidence(att, verdict, engine),
    )


# States whose byte-identical document is no original: a duplicate itself, never scanned to
# the end, or thrown away.
_NO_ORIGINAL = [str(s) for s in (State.DUPLICATE, State.SCAN_FAILED, State.REJECTED_TOO_LARGE, State.DISCARDED)]


def _original_of(att: Attachment) -> Attachment | None:
    """The first committed byte-identical document, if any. Written out (issue 26): every
    ingest asks, almost always to hear "none", and the ORM's query building cost ~4x the
    statement (stop 48's profile); the row is loaded only when there is one."""
    with connection.cursor() as cur:
        cur.execute(
            'SELECT "id" FROM "intake_attachment" WHERE "sha256" = %s AND "id" <> %s AND NOT ("state" = ANY(%s))'
            ' ORDER BY "id" LIMIT 1',
            [att.sha256, att.pk, _NO_ORIGINAL],
        )
        row = cur.fetchone()
    return Attachment.objects.get(pk=row[0]) if row is not None else None


def _next_parse_attempt(att: Attachment) -> int:
    """The next parse attempt's number, for the caller's move to `promoted` to save as
    `parse_attempts_requested` in its UPDATE (issue 26: one UPDATE of the row, was two)."""
    return att.parse_attempts_requested + 1


def _handoff_to_parse(att: Attachment, data: bytes) -> ParseAttempt:
    """Create the attempt `_next_parse_attempt` numbered (saved by the caller's move), fill
    the hand-off row and defer parse - one transaction."""
    attempt = ParseAttempt.objects.create(attachment=att, attempt_no=att.parse_attempts_requested)
    ParseHandoff.objects.create(
        attachment=att,
        attempt_no=attempt.attempt_no,
        kind=att.detected_type,
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
    )
    jobs_api.defer(PARSE, payload={"attachment_id": att.pk, "attempt_no": attempt.attempt_no})
    return attempt


def attachment_mark_scan_failed(*, attachment_id: int, reason: str) -> None:
    """Exhaustion of the malware-scan policy: blocked from parse, visible in triage."""
    att = _locked_in(attachment_id, State.RECEIVED, State.SCANNING)
    if att is None:
        return
    _move(
        att,
        State.SCAN_FAILED,
        reason_code="scan_failed",
        reason=f"The malware scanner could not be reached after all attempts ({reason}). "
        "The document is blocked from reading until the scan is retried.",
        virus_scan_status=VirusScanStatus.SCAN_FAILED,
    )


def attachment_reparse(*, attachment_id: int, actor: Any = None) -> ParseAttemptSummary:
    """A recruiter-requested re-parse: a new attempt number, bytes from `documents`."""
    with transaction.atomic():
        att = _locked(attachment_id)
        if att is None:
            raise LookupError(f"attachment {attachment_id} does not exist")
        if att.state not in (State.PARSE_FAILED, State.CANDIDATE_CREATED, State.NO_CANDIDATE_DETAILS):
            raise ActionRefused(
                f"attachment {attachment_id} is {att.state}; only a read failure or a "
                "finished document can be re-parsed"
            )
        data = adapters.blob_store().get(att.storage_container, att.storage_key)
        _move(att, State.PROMOTED, parse_attempts_requested=_next_parse_attempt(att))
        attempt = _handoff_to_parse(att, data)
        audit_api.audit_event_record(
            actor=_actor_label(actor, "cli"),
            action="intake.reparse_requested",
            object_type="attachment",
            object_id=att.pk,
            payload={"attempt_no": attempt.attempt_no},
        )
        return selectors.parse_attempt_summary(attempt)


def attachment_retry_scan(*, attachment_id: int, actor: Any = None) -> None:
    """`scan_failed` -> `received` with a fresh ingest job: the whole check runs again
    (checksum, type, malware scan), from the bytes still held in quarantine."""
    with transaction.atomic():
        att = _locked(attachment_id)
        if att is None:
            raise LookupError(f"attachment {attachment_id} does not exist")
        if att.state != State.SCAN_FAILED:
            raise ActionRefused(f"attachment {attachment_id} is {att.state}; only a failed scan can be retried")
        if att.storage_container != QUARANTINE or not att.storage_key:
            raise ActionRefused(f"attachment {attachment_id} has no bytes in quarantine to scan again")
        _move(att, State.RECEIVED, virus_scan_status=VirusScanStatus.PENDING, scan_signature="")
        job_id = jobs_api.defer(INGEST, payload={"attachment_id": att.pk})
        audit_api.audit_event_record(
            actor=_actor_label(actor, "cli"),
            action="intake.retry_scan",
            object_type="attachment",
            object_id=att.pk,
            payload={"job_id": job_id},
        )


def attachment_retry_candidate(*, attachment_id: int, actor: Any = None) -> None:
    """`candidate_failed` -> `parsed` with a fresh candidate job (the latest successful
    parse attempt stays the input; no re-parse)."""
    with transaction.atomic():
        att = _locked(attachment_id)
        if att is None:
            raise LookupError(f"attachment {attachment_id} does not exist")
        if att.state != State.CANDIDATE_FAILED:
            raise ActionRefused(
                f"attachment {attachment_id} is {att.state}; only a failed candidate creation can be retried"
            )
        if not ParseAttempt.objects.filter(attachment=att, state=ParseAttemptState.SUCCEEDED).exists():
            raise ActionRefused(f"attachment {attachment_id} has no successful parse to create a candidate from")
        _set_state(att, State.PARSED)
        _save(att)
        job_id = jobs_api.defer(CANDIDATE, payload={"attachment_id": att.pk})
        audit_api.audit_event_record(
            actor=_actor_label(actor, "cli"),
            action="intake.retry_candidate",
            object_type="attachment",
            object_id=att.pk,
            payload={"job_id": job_id},
        )


def attachment_discard(*, attachment_id: int, reason: str, actor: Any = None) -> None:
    """Close a failed (or duplicate) document for good, with the recruiter's reason.

    Terminal: no job backs it, the lost-document detector counts it as resolved, and the
    bytes stay where they are (quarantine for blocked files) for retention to purge.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ActionRefused("a reason is required to discard a document")
    with transaction.atomic():
        att = _locked(attachment_id)
        if att is None:
            raise LookupError(f"attachment {attachment_id} does not exist")
        if State(att.state) not in DISCARDABLE:
            raise ActionRefused(
                f"attachment {attachment_id} is {att.state}; only a failed or duplicate document can be discarded"
            )
        previous = att.state
        _set_state(att, State.DISCARDED, reason_code="discarded", reason=f"Discarded: {reason[:1000]}")
        _save(att)
        audit_api.audit_event_record(
            actor=_actor_label(actor, "cli"),
            action="intake.discarded",
            object_type="attachment",
            object_id=att.pk,
            payload={"from_state": previous, "reason": reason[:1000]},
        )


REASONS: dict[str, str] = {
    "corrupt": "The file is damaged or is not a valid document of its type.",
    "encrypted": "The document is password-protected. Ask the sender for an unprotected copy.",
    "unsupported": "This kind of document cannot be read.",
    "too_many_pages": "The document has more pages than a CV can reasonably have.",
    "too_large": "The document is too large to read.",
    "pixel_limit": "An image in the document is too large to read safely.",
    "decompression_bomb": "The document expands to an unsafe size when opened (possible attack).",
    "xml_bomb": "The document contains an unsafe XML construct (possible attack).",
    "empty_document": "The document contains no readable text.",
    "ocr_failed": "Text recognition on the scanned pages failed.",
    "timeout_cpu": "Reading the document took longer than the 90 s limit.",
    "timeout_wall": "Reading the document took longer than the 90 s limit.",
    "memory": "Reading the document needed more memory than allowed.",
    "seccomp_violation": "The document made the reader attempt a forbidden operation (possible attack).",
    "output_too_large": "The document produced more output than allowed.",
    "protocol_error": "The reader returned a malformed result.",
    "crashed": "The reader crashed on this document.",
    "sandbox_unavailable": "The document reader is unavailable.",
    "worker_lost": "The reader stalled on every attempt (crash, out-of-memory or a hang).",
    "report_rejected": "The parser's report failed a safety check; ask an administrator.",
    # Trusted-side verdict, never a code the parser reports (parse_jobs_settle_unreported).
    "report_missing": "The reader finished without reporting a result. Re-parse the document to read it again.",
}
# Decided here, never by a report: worker-default refused what the parse role stored.
REPORT_REJECTED = "report_rejected"
REPORT_MISSING = "report_missing"


def parse_reason(code: str) -> str:
    return REASONS.get(code, f"The document could not be read ({code}).")


def report_rejected_reason(check: str) -> str:
    """What a recruiter reads when worker-default refused a parse report."""
    words = sandbox_api.REPORT_CHECKS.get(check, "report")
    return f"The parser's report failed a safety check ({words}); ask an administrator."


@functools.cache
def _deployment(policy_dir: str, extra_hashes: tuple[str, ...], layers: tuple[str, ...]) -> Any:
    return sandbox_api.report_deployment(Path(policy_dir), extra_policy_hashes=extra_hashes, required_layers=layers)


def report_deployment() -> Any:
    """This deployment's half of the report checks: its own policy files, not the report's."""
    cfg = ats_settings()
    return _deployment(
        str(cfg["SANDBOX_POLICY_DIR"]),
        tuple(cfg.get("SANDBOX_ACCEPTED_POLICY_HASHES", ())),
        tuple(cfg.get("SANDBOX_REQUIRED_LAYERS", ())),
    )


def parse_result_apply(*, parse_result_id: int, defer_candidate: bool = True) -> ParseReportApplied:
    """Apply a reported parse outcome (trusted side), then drop the report. Idempotent.

    The report was written by the parse role - assume by an escaped child: it is
    re-checked in full (ats.sandbox.validate.check_report) before anything is applied,
    and only the checked values are stored. A report that fails ends the attempt
    `parse_failed` / `report_rejected`, naming the check.

    Returns the attachment id when the document moved to `parsed` (else None) and the
    report's figures for the metrics. The caller records them once its transaction has
    committed (ats.pipeline's `intake.apply_parse_result`, after its atomic block): a
    rolled-back apply is not counted, and no `transaction.on_commit` is needed (ADR R1).
    `defer_candidate=False`: the caller runs the candidate step itself, in this same
    transaction, instead of a job.
    """
    rejected: str | None = None
    checked: Any = None
    parsed: int | None = None
    # No savepoint when the caller's transaction is open (the folded apply job): nothing
    # catches a failure in here and goes on (issue 26, round trips per hop).
    with transaction.atomic(savepoint=False):
        report = ParseResult.objects.select_for_update().filter(pk=parse_result_id).first()
        if report is None:
            return ParseReportApplied(parsed_attachment_id=None, figures=None)
        # Locked now rather than read here and locked again by the success path (issue 26:
        # one round trip fewer per document); the order (report, then document) is the same.
        # With its intake: the candidate step this transaction runs next takes the row as
        # it is (ParsedAttempt.locked_row), not locked and read again (issue 26).
        att = _locked(report.attachment_id, with_intake=True)
        if att is None:  # erased since: nothing to apply, nothing to check it against
            report.delete()
            return ParseReportApplied(parsed_attachment_id=None, figures=None)
        try:
            checked = sandbox_api.check_report(
                ok=report.ok,
                code=report.code,
                detail=report.detail,
                text=report.text,
                page_count=report.page_count,
                result=report.result,
                policy_hash=report.policy_hash,
                kind=att.detected_type,
                deployment=report_deployment(),
            )
        except sandbox_api.ReportRejected as exc:
            rejected = exc.check
            _record_report_rejected(report, exc)
        else:
            if checked.ok:
                parsed = _record_success(
                    att,
                    attempt_no=report.attempt_no,
                    text=checked.text,
                    page_count=checked.page_count or 0,
                    result=checked.result,
                    policy_hash=checked.policy_hash,
                    defer_candidate=defer_candidate,
                )
            else:
                parse_attempt_record_failure(
                    attachment_id=report.attachment_id,
                    attempt_no=report.attempt_no,
                    code=checked.code,
                    reason=parse_reason(checked.code),
                    policy_hash=checked.policy_hash,
                )
        _parse_result_delete(report.pk)
    # Sandbox figures reach Prometheus from a trusted process (worker-untrusted opens no
    # port, docs/observability.md), recorded by the caller after its commit. A rejected
    # report's figures are not believed: only the rejection is counted.
    if rejected is not None:
        figures = ParseReportFigures(ok=False, code=REPORT_REJECTED, sandbox=None, rejected_check=rejected)
    else:
        figures = ParseReportFigures(ok=checked.ok, code=checked.code, sandbox=checked.result.get("sandbox"))
    just_parsed = None
    if parsed is not None:
        just_parsed = ParsedAttempt(
            attempt_no=report.attempt_no, text=checked.text, result=checked.result, locked_row=att
        )
    return ParseReportApplied(parsed_attachment_id=parsed, figures=figures, parsed=just_parsed)


def _parse_result_delete(parse_result_id: int) -> None:
    # Written out (h50perf): Model.delete() collected the row's relations (none refer to a
    # report, and no signal listens) to send this same statement.
    with connection.cursor() as cur:
        cur.execute("DELETE FROM intake_parse_result WHERE id = %s", [parse_result_id])


def _record_report_rejected(report: ParseResult, exc: Any) -> None:
    # Our own sandbox never writes such a report: a bug, or someone holding the parse
    # role. Logged and audited for the investigation; the stored values are dropped.
    logger.error(
        "parse report %s for attachment %s attempt %s rejected: %s",
        report.pk,
        report.attachment_id,
        report.attempt_no,
        exc.detail,
        extra={"check": exc.check, "attachment_id": report.attachment_id, "job_id": report.job_id},
    )
    changed = parse_attempt_record_failure(
        attachment_id=report.attachment_id,
        attempt_no=report.attempt_no,
        code=REPORT_REJECTED,
        reason=report_rejected_reason(exc.check),
    )
    if changed:
        audit_api.audit_event_record(
            actor="system:parse",
            action="intake.parse_report_rejected",
            object_type="attachment",
            object_id=report.attachment_id,
            payload={
                "attempt_no": report.attempt_no,
                "job_id": report.job_id,
                "check": exc.check,
                "detail": exc.detail,
            },
        )


def parse_result_apply_exhausted(*, parse_result_id: int, reason_code: str, reason: str, **_: Any) -> None:
    report = ParseResult.objects.filter(pk=parse_result_id).first()
    if report is not None:
        parse_attempt_record_failure(
            attachment_id=report.attachment_id, attempt_no=report.attempt_no, code=reason_code, reason=reason
        )


def parse_attempt_record_success(
    *,
    attachment_id: int,
    attempt_no: int,
    text: str,
    page_count: int,
    result: dict[str, Any],
    policy_hash: str,
    defer_candidate: bool = True,
) -> int | None:
    """Record a parse result and defer candidate creation in one transaction. Idempotent.

    Returns the attachment id when the document moved to `parsed` (the candidate step is
    due), else None. `defer_candidate=False`: the caller runs that step itself."""
    with transaction.atomic(savepoint=False):  # see parse_result_apply
        att = _locked(attachment_id)
        if att is None:
            return None
        return _record_success(
            att,
            attempt_no=attempt_no,
            text=text,
            page_count=page_count,
            result=result,
            policy_hash=policy_hash,
            defer_candidate=defer_candidate,
        )


def _record_success(
    att: Attachment,
    *,
    attempt_no: int,
    text: str,
    page_count: int,
    result: dict[str, Any],
    policy_hash: str,
    defer_candidate: bool,
) -> int | None:
    """parse_attempt_record_success with the document already locked by the caller."""
    attachment_id = att.pk
    with transaction.atomic(savepoint=False):
        # One conditional UPDATE (issue 26; was a locking read, then the UPDATE): it locks
        # the attempt and re-checks `pending` under the lock, as the read did. Written out,
        # as the hand-off's DELETE below (h50perf): the ORM built each anew per job, ~0.2 ms
        # of the worker's CPU apiece, for the same statement.
        with connection.cursor() as cur:
            cur.execute(
                "UPDATE intake_parse_attempt SET state = %s, text = %s, page_count = %s, result = %s::jsonb,"
                " policy_hash = %s, finished_at = %s WHERE attachment_id = %s AND attempt_no = %s AND state = %s",
                [
                    ParseAttemptState.SUCCEEDED.value,
                    text,
                    page_count,
                    json.dumps(result),
                    policy_hash,
                    timezone.now(),
                    attachment_id,
                    attempt_no,
                    ParseAttemptState.PENDING.value,
                ],
            )
            if not cur.rowcount:
                return None
            # No row refers to a hand-off, and no signal listens: what the ORM's fast delete sent.
            cur.execute(
                "DELETE FROM intake_parse_handoff WHERE attachment_id = %s AND attempt_no = %s",
                [attachment_id, attempt_no],
            )
        audit_api.audit_event_record(
            actor="system:parse",
            action="intake.parsed",
            object_type="attachment",
            object_id=attachment_id,
            payload={
                "attempt_no": attempt_no,
                "policy_hash": policy_hash,
                "output_sha256": selectors.parse_output_sha256(text=text, page_count=page_count, result=result),
            },
        )
        if att.state == State.PROMOTED and att.parse_attempts_requested == attempt_no:
            _set_state(att, State.PARSED)
            _save(att)
            if defer_candidate:
                jobs_api.defer(CANDIDATE, payload={"attachment_id": att.pk})
            return att.pk
        return None


def parse_attempt_record_failure(
    *, attachment_id: int, attempt_no: int, code: str, reason: str, policy_hash: str = ""
) -> bool:
    """Terminal parse failure: the attempt and the attachment carry the readable reason."""
    with transaction.atomic():
        att = _locked(attachment_id)
        attempt = (
            ParseAttempt.objects.select_for_update().filter(attachment_id=attachment_id, attempt_no=attempt_no).first()
        )
        if att is None or attempt is None or attempt.state != ParseAttemptState.PENDING:
            return False
        attempt.state = ParseAttemptState.FAILED
        attempt.error_code = code
        attempt.reason = reason
        attempt.policy_hash = policy_hash
        attempt.finished_at = timezone.now()
        attempt.save()
        ParseHandoff.objects.filter(attachment_id=attachment_id, attempt_no=attempt_no).delete()
        if att.state == State.PROMOTED and att.parse_attempts_requested == attempt_no:
            _set_state(att, State.PARSE_FAILED, reason_code=code, reason=reason)
            _save(att)
        return True


def attachment_mark_candidate_created(*, attachment_id: int, candidate_id: int) -> None:
    # One conditional UPDATE (issue 26; was a locking read, then the UPDATE): only a
    # `parsed` document moves, as _locked_in checked. The candidate step calling this
    # holds the row's lock already; any other caller's UPDATE takes it.
    check_transition(State.PARSED, State.CANDIDATE_CREATED)
    now = timezone.now()
    moved = Attachment.objects.filter(pk=attachment_id, state=State.PARSED).update(
        state=State.CANDIDATE_CREATED,
        state_changed_at=now,
        reason_code="",
        reason="",
        candidate_id=candidate_id,
        updated_at=now,
    )
    if not moved:
        return
    # The document is now findable under its candidate: index both with this commit.
    from ats.search import api as search_api

    search_api.search_reindex(kind="document", object_id=attachment_id)
    search_api.search_reindex(kind="candidate", object_id=candidate_id)


def attachments_lock(*, attachment_ids: list[int]) -> None:
    """Lock documents in id order. The candidates module locks a candidate's documents
    before the candidate rows - the order the candidate task uses (document, then
    candidate) - so a merge and a re-parse of the same document cannot deadlock."""
    list(Attachment.objects.select_for_update().filter(pk__in=sorted(set(attachment_ids))).order_by("pk").values("pk"))


def attachments_set_candidate(*, attachment_ids: list[int], candidate_id: int) -> None:
    """A merge or unmerge moved these documents: `candidate_id` names who holds them now."""
    Attachment.objects.filter(pk__in=attachment_ids).update(candidate_id=candidate_id)


NO_IDENTITY_REASONS = {
    "name": "The document names no person.",
    "contact": "The document gives no e-mail address or phone number.",
    "kind": "Its text was read by OCR alone and it does not read as a CV or a cover letter.",
}


def _no_identity_reason(missing: list[str]) -> str:
    parts = [NO_IDENTITY_REASONS[m] for m in missing if m in NO_IDENTITY_REASONS]
    return " ".join(["No name or contact details found.", *parts, "No candidate was created from it."])


def attachment_mark_no_candidate_details(*, attachment_id: int, missing: list[str]) -> None:
    """The candidate step found no identity (candidates.identity): the document ends in
    the needs-attention state with what is missing, for a recruiter to attach or create."""
    att = _locked_in(attachment_id, State.PARSED)
    if att is None:
        return
    _move(att, State.NO_CANDIDATE_DETAILS, reason_code="no_candidate_details", reason=_no_identity_reason(missing))


def attachment_lock_without_candidate(*, attachment_id: int) -> None:
    """Lock a `no_candidate_details` document for attach / create-by-hand, else refuse."""
    att = _locked(attachment_id)
    if att is None:
        raise LookupError(f"document {attachment_id} does not exist")
    if att.state != State.NO_CANDIDATE_DETAILS:
        raise ActionRefused(
            f"document {attachment_id} is {INFO[State(att.state)].label.lower()}; "
            "only a document without name or contact details can be attached to a candidate"
        )


def attachment_mark_attached(*, attachment_id: int, candidate_id: int, actor: Any = None, how: str) -> None:
    """A recruiter attached the document to a candidate (or created one for it by hand).
    Caller holds the row lock (attachment_lock_without_candidate) in this transaction."""
    # `parsed`: the candidate step itself attaches a document that came with a CV.
    att = _locked_in(attachment_id, State.NO_CANDIDATE_DETAILS, State.PARSED)
    if att is None:
        raise ActionRefused(f"document {attachment_id} no longer lacks a candidate")
    _move(att, State.CANDIDATE_CREATED, candidate_id=candidate_id)
    audit_api.audit_event_record(
        actor=_actor_label(actor, "cli"),
        action="intake.attached_to_candidate",
        object_type="attachment",
        object_id=att.pk,
        payload={"candidate_id": candidate_id, "how": how},
    )
    from ats.search import api as search_api

    search_api.search_reindex(kind="document", object_id=attachment_id)
    search_api.search_reindex(kind="candidate", object_id=candidate_id)


def attachments_lock_waiting_for_candidate(*, attachment_ids: list[int]) -> list[int]:
    """Lock those of `attachment_ids` that are `no_candidate_details`, skipping rows another
    transaction holds (the caller already holds a candidate lock, so waiting for a
    document here would invert the documents-then-candidate order).

    FOR NO KEY UPDATE, as every pipeline writer of the document: a row that only its page
    store holds (FOR KEY SHARE, ats.intake.pages) is not skipped - it was, and a cover
    letter whose page images were being stored while its CV's step collected it stayed
    `no_candidate_details` beside the CV's candidate."""
    return list(
        Attachment.objects.select_for_update(skip_locked=True, no_key=True)
        .filter(pk__in=sorted(attachment_ids), state=State.NO_CANDIDATE_DETAILS)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def attachments_turn_back(*, attachment_ids: list[int], missing: list[str], actor: Any = None) -> list[int]:
    """`ats candidate review-identity --apply`: documents of a candidate without identity
    return to `no_candidate_details` (no candidate), each audited. Returns those moved."""
    moved = []
    for att in Attachment.objects.select_for_update().filter(pk__in=sorted(attachment_ids)).order_by("pk"):
        if att.state != State.CANDIDATE_CREATED:
            continue
        previous = att.candidate_id
        _move(
            att,
            State.NO_CANDIDATE_DETAILS,
            reason_code="no_candidate_details",
            reason=_no_identity_reason(missing),
            candidate_id=None,
        )
        audit_api.audit_event_record(
            actor=_actor_label(actor, "cli"),
            action="intake.turned_back_no_identity",
            object_type="attachment",
            object_id=att.pk,
            payload={"from_candidate_id": previous, "missing": missing},
        )
        moved.append(att.pk)
    return moved


def attachment_mark_candidate_failed(*, attachment_id: int, code: str, reason: str) -> None:
    att = _locked_in(attachment_id, State.PARSED)
    if att is None:
        return
    _move(att, State.CANDIDATE_FAILED, reason_code=code, reason=reason)


def max_upload_bytes() -> int:
    return int(ats_settings()["MAX_UPLOAD_BYTES"])


def max_upload_request_bytes() -> int:
    """The cap on one whole upload request (every file and field together)."""
    return int(ats_settings()["MAX_UPLOAD_REQUEST_BYTES"])


# --- exhaustion handlers named in the jobs policy table (idempotent: state-checked) ---


def ingest_exhausted(*, attachment_id: int, reason_code: str, reason: str, **_: Any) -> None:
    attachment_mark_scan_failed(attachment_id=attachment_id, reason=reason)


def parse_exhausted(*, attachment_id: int, attempt_no: int, reason_code: str, reason: str, **_: Any) -> None:
    """Trusted sweep path: a parse job failed without a report (e.g. its worker died)."""
    if ParseResult.objects.filter(attachment_id=attachment_id, attempt_no=attempt_no).exists():
        # It did report (a typed failure ends the parse job `failed` right after the
        # report): intake.apply_parse_result, deferred with the report, records the
        # outcome - a sweep in between must not overwrite it with "exhausted".
        return
    parse_attempt_record_failure(
        attachment_id=attachment_id,
        attempt_no=attempt_no,
        code=reason_code,
        reason=REASONS.get(reason_code, reason),
    )


def candidate_exhausted(*, attachment_id: int, reason_code: str, reason: str, **_: Any) -> None:
    attachment_mark_candidate_failed(attachment_id=attachment_id, code=reason_code, reason=reason)


def parse_jobs_settle_unreported(*, limit: int = 200) -> list[tuple[int, int]]:
    """A parse job `succeeded` while its attempt never got a report (issue 21 N5): end the
    attempt `parse_failed` / `report_missing`, so the document is never stuck waiting.

    The parse worker reports (its own transaction, committed) before procrastinate marks
    the job succeeded, and the trusted apply drops the report in the transaction that
    settles the attempt - so "job succeeded, attempt pending, no report" is never a moment
    of the normal flow: the parse role (or an escaped child holding it) finished the job
    without reporting. policy/db-role.sql refuses that for the role; this catches whatever
    got past (rows from before that guard, an operator's hand edit). The recruiter sees
    the reason and can re-parse. Runs with the lost-document detector. Returns the
    (attachment, attempt) pairs settled.
    """
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT a.attachment_id, a.attempt_no
              FROM intake_parse_attempt a
              JOIN procrastinate_jobs j
                ON j.task_name = %s AND j.status = 'succeeded'
               AND (j.args->>'attachment_id')::bigint = a.attachment_id
               AND (j.args->>'attempt_no')::integer = a.attempt_no
             WHERE a.state = %s
               AND NOT EXISTS (SELECT 1 FROM intake_parse_result r
                                WHERE r.attachment_id = a.attachment_id AND r.attempt_no = a.attempt_no)
               AND NOT EXISTS (SELECT 1 FROM procrastinate_jobs t
                                WHERE t.task_name = j.task_name AND t.status IN ('todo', 'doing')
                                  AND t.args->'attachment_id' = j.args->'attachment_id'
                                  AND t.args->'attempt_no' = j.args->'attempt_no')
             ORDER BY a.attachment_id, a.attempt_no
             LIMIT %s
            """,
            [PARSE, ParseAttemptState.PENDING, limit],
        )
        rows = [(int(att), int(no)) for att, no in cur.fetchall()]
    settled = []
    for attachment_id, attempt_no in rows:
        if parse_attempt_record_failure(
            attachment_id=attachment_id, attempt_no=attempt_no, code=REPORT_MISSING, reason=REASONS[REPORT_MISSING]
        ):
            logger.warning(
                "parse job of attachment %s attempt %s succeeded without a report: settled as %s",
                attachment_id,
                attempt_no,
                REPORT_MISSING,
            )
            settled.append((attachment_id, attempt_no))
    return settled


def verification_run_record() -> VerificationRunSummary:
    """Run the lost-document detector and keep its count (exposed on /metrics)."""
    from ats.intake.selectors import lost_documents

    lost = lost_documents()
    run = VerificationRun.objects.create(lost_count=len(lost), lost=[d.as_json() for d in lost[:200]])
    return VerificationRunSummary(id=run.pk, ran_at=run.ran_at, lost_count=run.lost_count, lost=tuple(run.lost))
