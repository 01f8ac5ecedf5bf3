"""Writes of the audit module: chained events, erasure, verification, export, partitions.

Chaining scheme (docs/compliance.md): every row is chained *at write time*. The writer
locks the single chain-head row (`SELECT ... FOR UPDATE`), reads the tail's seq and
hash, takes its timestamp from `clock_timestamp()` while holding the lock, inserts the
row and moves the head - all in the caller's transaction, in one round trip
(ats_audit_insert_v1(), migration audit.0005). Concurrent writers queue on the head row,
so each one links to the tail the previous one *committed*; a writer that rolls back
takes its row and its head move with it. The chain therefore never forks and `seq` is
gapless, and `occurred_at` grows with `seq`, so a month is closed for good once the head
lock has been taken after the month ended. Under `audit_events_at_end()` a transaction's
events are appended at its end, so it holds the head lock only from there to its commit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ats.audit import adapters, chain, partitions
from ats.audit.data import RecordedEvent
from ats.audit.keys import hmac_key
from ats.audit.models import (
    AuditChainHead,
    AuditEvent,
    AuditEventPersonal,
    AuditExport,
    AuditSubjectKey,
    AuditVerification,
)
from ats.config import checkpoints
from ats.errors import AtsError, Refused
from ats.storage import api as storage_api

logger = logging.getLogger(__name__)

KEEP_MONTHS = 13  # partitions older than this are detached and dropped once exported
AHEAD_MONTHS = 2  # partitions created ahead of need by the monthly job
_BATCH = 5000


# ------------------------------------------------------------------------------ record


def audit_event_record(
    *,
    actor: str,
    action: str,
    object_type: str,
    object_id: Any,
    payload: dict[str, Any] | None = None,
    personal: dict[str, Any] | None = None,
) -> RecordedEvent | None:
    """Append one chained event in the caller's transaction (or its own).

    `payload` holds ids and codes; personal details go in `personal` (kept in the
    erasable side table, covered by the chain only through an HMAC). Payload keys that
    name personal data (chain.PERSONAL_KEYS, e.g. `filename`) are moved there too.

    Under `audit_events_at_end()` the event is kept and appended when that block ends,
    and None is returned (its seq and hash do not exist yet); otherwise the appended event.
    """
    payload = _keyed_digests(chain.normalise(payload or {}), object_type, str(object_id))
    kept, moved = chain.split_personal(payload)
    details = {**moved, **chain.normalise(personal or {})}
    event = _Pending(
        actor=actor,
        action=action,
        object_type=object_type,
        object_id=str(object_id),
        payload=kept,
        personal_hmac=chain.personal_hmac(hmac_key(), details),
        details=details,
    )
    frame = _frames()[-1] if _frames() else None
    if frame is not None and frame.may_keep():
        frame.events.append(event)
        return None
    return _append(event)


@dataclasses.dataclass(frozen=True)
class _Pending:
    """An event with everything but its place in the chain (seq, time, links)."""

    actor: str
    action: str
    object_type: str
    object_id: str
    payload: dict[str, Any]
    personal_hmac: str
    details: dict[str, Any]


_APPEND = (
    "SELECT missing, event_id, seq, occurred_at, prev_hash, row_hash"
    " FROM ats_audit_insert_v1(%s, %s, %s, %s, %s, %s, %s::jsonb)"
)


def _append(event: _Pending) -> RecordedEvent:
    """One round trip (ats_audit_insert_v1, migration audit.0005): lock the head, read the
    clock, insert the row (and its personal details), move the head - in the caller's
    transaction, the head lock held until it commits."""
    params = [
        event.actor,
        event.action,
        event.object_type,
        event.object_id,
        chain.canonical_json(event.payload),
        event.personal_hmac,
        chain.canonical_json(event.details) if event.details else None,
    ]
    with transaction.atomic(savepoint=False), connection.cursor() as cur:
        for _ in range(3):  # at most: create the head, create the partition, append
            cur.execute(_APPEND, params)
            missing, event_id, seq, occurred_at, prev_hash, digest = cur.fetchone()
            if missing is None:
                break
            if missing == "head":
                # Only the very first event creates the head. Concurrent first writers agree
                # through the conflict clause, then lock the one row like everyone else.
                cur.execute(
                    "INSERT INTO audit_chain_head (id, last_seq, last_hash, updated_at) VALUES (1, 0, %s, now())"
                    " ON CONFLICT (id) DO NOTHING",
                    [chain.GENESIS],
                )
            else:
                # The monthly job creates partitions ahead; if it has not run, the write still succeeds.
                logger.warning("audit partition for %s missing: created on demand", partitions.month_of(occurred_at))
                partitions.create(partitions.month_of(occurred_at))
        else:  # pragma: no cover - each missing piece is created once above
            raise AuditError(f"audit event not appended: {missing} still missing")
    # The function hashes in SQL; the chain is defined by chain.row_hash. A difference
    # fails this unit of work rather than commit a link `audit verify` would reject.
    expected = chain.row_hash(
        seq=seq,
        occurred_at=occurred_at,
        actor=event.actor,
        action=event.action,
        object_type=event.object_type,
        object_id=event.object_id,
        payload=event.payload,
        personal_hmac=event.personal_hmac,
        prev_hash=prev_hash,
    )
    if digest != expected:
        raise AuditError(f"ats_audit_insert_v1 hashed seq {seq} as {digest}, the chain's form gives {expected}")
    return RecordedEvent(
        id=event_id,
        seq=seq,
        occurred_at=occurred_at,
        actor=event.actor,
        action=event.action,
        object_type=event.object_type,
        object_id=event.object_id,
        payload=event.payload,
        personal_hmac=event.personal_hmac,
        prev_hash=prev_hash,
        row_hash=digest,
    )


# ------------------------------------------------------------------ events at the end


class _Frame:
    def __init__(self) -> None:
        self.events: list[_Pending] = []
        self.savepoints = _open_savepoints()

    def may_keep(self) -> bool:
        """An event may wait for the end only in the transaction state the block began
        in: inside a savepoint opened since, a rollback to it (caught further in) must
        take the event with it, and a kept event would not go - so it is written now,
        the way it always was (correct, just with the head lock taken early)."""
        return connection.in_atomic_block and _open_savepoints() == self.savepoints


def _open_savepoints() -> tuple[str, ...]:
    return tuple(sid for sid in connection.savepoint_ids if sid)


_local = threading.local()


def _frames() -> list[_Frame]:
    frames = getattr(_local, "frames", None)
    if frames is None:
        frames = _local.frames = []
    return frames


@contextlib.contextmanager
def audit_events_at_end() -> Iterator[None]:
    """Keep the audit events recorded in this block and append them when it ends, under
    ONE take of the chain head's lock, right before the caller commits (issue 26).

    Each event otherwise locks the head when it is recorded - early in a long unit of
    work - and every other writer of the chain then waits for that whole unit to commit.
    Use it directly inside `transaction.atomic()`; nested inside another such block (a
    savepoint's), its events join the outer block's when it ends normally and are dropped
    when it raises (the savepoint rolls back). Events recorded in a savepoint opened
    inside the block are written at once (see _Frame.may_keep), so they precede the kept
    ones in the chain; the rest are appended in recording order. The chain is the same:
    the same function appends each event under the same lock, all in one transaction.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("audit_events_at_end() must be used inside transaction.atomic()")
    frames = _frames()
    frame = _Frame()
    frames.append(frame)
    try:
        yield
    except BaseException:
        frame.events.clear()  # the transaction or savepoint they belong to rolls back
        raise
    finally:
        frames.pop()
    if connection.needs_rollback:
        return  # set_rollback(True): the atomic block around this one rolls back what it kept
    if frames:
        frames[-1].events.extend(frame.events)
    else:
        for event in frame.events:
            _append(event)


_SUBJECT_KEY_SQL = 'SELECT "key" FROM "audit_subject_key" WHERE "object_type" = %s AND "object_id" = %s'


def _subject_key(object_type: str, object_id: str, *, create: bool) -> bytes | None:
    # Read first: an object's later events (most of them) find the key in one round trip
    # (issue 26; it was an upsert and a read on every event). Written out: every audited
    # event reads it, and the ORM's query building cost ~4x the statement (stop 48).
    with connection.cursor() as cur:
        cur.execute(_SUBJECT_KEY_SQL, [object_type, object_id])
        row = cur.fetchone()
        found = row[0] if row is not None else None
        if found is None and create:
            # Concurrent first events of one object agree on one key (the row is unique):
            # the loser inserts nothing and reads the winner's.
            cur.execute(
                "INSERT INTO audit_subject_key (object_type, object_id, key, created_at)"
                " VALUES (%s, %s, %s, now()) ON CONFLICT (object_type, object_id) DO NOTHING RETURNING key",
                [object_type, object_id, os.urandom(32)],
            )
            inserted = cur.fetchone()
            if inserted is None:
                cur.execute(_SUBJECT_KEY_SQL, [object_type, object_id])
                inserted = cur.fetchone()
            found = inserted[0] if inserted is not None else None
    return bytes(found) if found is not None else None


def _keyed_digests(payload: dict[str, Any], object_type: str, object_id: str) -> dict[str, Any]:
    """Content digests (chain.DIGEST_KEYS) enter the chain only keyed per object."""
    names = [k for k, v in payload.items() if k in chain.DIGEST_KEYS and isinstance(v, str) and v]
    if not names:
        return payload
    key = _subject_key(object_type, object_id, create=True)
    assert key is not None
    return {**payload, **{k: chain.keyed_digest(key, payload[k]) for k in names}}


def audit_keyed_digest(*, object_type: str, object_id: Any, value: str) -> str | None:
    """What a content digest of this object reads as in the chain (to compare a value
    re-computed now with the recorded one); None once the object's key is erased."""
    key = _subject_key(object_type, str(object_id), create=False)
    return chain.keyed_digest(key, value) if key is not None and value else None


def audit_personal_erase(
    *, event_ids: list[int] | None = None, object_type: str | None = None, object_id: Any = None
) -> int:
    """Erase the personal details of these events (or of every event about one object);
    the rows, their HMACs and the chain stay valid."""
    if event_ids is None:
        if object_type is None or object_id is None:
            raise ValueError("give event_ids, or object_type and object_id")
        event_ids = list(
            AuditEvent.objects.filter(object_type=object_type, object_id=str(object_id)).values_list("id", flat=True)
        )
        # The object's digest key goes too: its keyed digests in the chain now confirm nothing.
        AuditSubjectKey.objects.filter(object_type=object_type, object_id=str(object_id)).delete()
    return AuditEventPersonal.objects.filter(event_id__in=event_ids, details__isnull=False).update(
        details=None, erased_at=timezone.now()
    )


# ------------------------------------------------------------------------------ verify


@dataclasses.dataclass
class _Row:
    id: int
    seq: int
    occurred_at: datetime.datetime
    actor: str
    action: str
    object_type: str
    object_id: str
    payload: Any
    personal_hmac: str
    prev_hash: str
    row_hash: str
    details: Any

    def recomputed(self) -> str:
        return chain.row_hash(
            seq=self.seq,
            occurred_at=self.occurred_at,
            actor=self.actor,
            action=self.action,
            object_type=self.object_type,
            object_id=self.object_id,
            payload=self.payload,
            personal_hmac=self.personal_hmac,
            prev_hash=self.prev_hash,
        )

    def export_line(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "id": self.id,
            "occurred_at": chain.timestamp(self.occurred_at),
            "actor": self.actor,
            "action": self.action,
            "object_type": self.object_type,
            "object_id": self.object_id,
            "payload": self.payload,
            "personal_hmac": self.personal_hmac,
            "prev_hash": self.prev_hash,
            "row_hash": self.row_hash,
        }


def _decode(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _rows(partition: str) -> Iterator[_Row]:
    """Rows of one partition in chain order, in keyset-paged batches."""
    after: tuple[int, int] = (-1, -1)
    while True:
        with connection.cursor() as cur:
            cur.execute(
                f"""SELECT e.id, e.seq, e.occurred_at, e.actor, e.action, e.object_type, e.object_id, e.payload,
                           e.personal_hmac, e.prev_hash, e.row_hash, p.details
                      FROM {partition} e LEFT JOIN audit_event_personal p ON p.event_id = e.id
                     WHERE (e.seq, e.id) > (%s, %s)
                     ORDER BY e.seq, e.id LIMIT %s""",
                [after[0], after[1], _BATCH],
            )
            batch = cur.fetchall()
        for r in batch:
            yield _Row(
                id=r[0],
                seq=r[1],
                occurred_at=r[2],
                actor=r[3],
                action=r[4],
                object_type=r[5],
                object_id=r[6],
                payload=_decode(r[7]),
                personal_hmac=r[8],
                prev_hash=r[9],
                row_hash=r[10],
                details=_decode(r[11]),
            )
        if len(batch) < _BATCH:
            return
        after = (batch[-1][1], batch[-1][0])


def _link_into(first_month: datetime.date | None) -> tuple[int, str]:
    """(seq, hash) the oldest present partition must link to: genesis, or the last
    exported month before it whose partition was dropped."""
    if first_month is None:
        return 0, chain.GENESIS
    earlier = AuditExport.objects.filter(month__lt=first_month, last_seq__isnull=False).order_by("-month").first()
    if earlier is None:
        return 0, chain.GENESIS
    return int(earlier.last_seq or 0), earlier.last_row_hash


def _check_row(row: _Row, prev_seq: int, prev_hash: str, key: bytes) -> str | None:
    if row.seq <= prev_seq:
        return f"seq {row.seq} repeats or goes backwards after {prev_seq} (a row was inserted)"
    if row.seq != prev_seq + 1:
        missing = f"{prev_seq + 1}" if row.seq == prev_seq + 2 else f"{prev_seq + 1}..{row.seq - 1}"
        return f"seq {missing} missing before this row (deleted)"
    if row.prev_hash != prev_hash:
        return "prev_hash does not link to the previous row (a row before it was altered or replaced)"
    if row.recomputed() != row.row_hash:
        return "row content does not match its row_hash (altered)"
    if row.details is not None and chain.personal_hmac(key, row.details) != row.personal_hmac:
        return "personal details do not match the row's HMAC (side table altered)"
    return None


def audit_verify(*, record: bool = True) -> dict[str, Any]:  # noqa: PLR0912 - one walk over the chain; each branch is one kind of broken link, reported in order
    """Walk the whole chain; `{ok, partitions: [{name, ok, rows}], first_broken}`.

    Read-only apart from the one result row written at the end, so a run killed at any
    point loses nothing and the next run simply starts again.
    """
    key = hmac_key()
    parts = partitions.existing()
    exported = {e.month: e for e in AuditExport.objects.filter(dropped_at__isnull=True)}
    prev_seq, prev_hash = _link_into(parts[0].month if parts else None)
    first_broken: dict[str, Any] | None = None
    report = []
    last_part: str | None = None
    last_event_id: int | None = None
    for part in parts:
        ok, rows = True, 0
        for row in _rows(part.name):
            rows += 1
            reason = _check_row(row, prev_seq, prev_hash, key)
            if reason is not None:
                ok = False
                if first_broken is None:
                    first_broken = {"partition": part.name, "event_id": row.id, "reason": reason}
            # Continue from the stored values, so later partitions are judged on their own.
            prev_seq, prev_hash = row.seq, row.row_hash
            last_part, last_event_id = part.name, row.id
            checkpoints.reach("verify-row")  # the SIGKILL tests kill the CLI here
        export = exported.get(part.month)
        if export is not None:
            found = _against_archive(part, export)
            if found is not None:
                ok = False
                if first_broken is None:
                    first_broken = {"partition": part.name, "event_id": found[1], "reason": found[0]}
        report.append({"name": part.name, "ok": ok, "rows": rows})
    head = AuditChainHead.objects.filter(pk=1).first()
    head_seq, head_hash = (head.last_seq, head.last_hash) if head else (0, chain.GENESIS)
    if (head_seq, head_hash) != (prev_seq, prev_hash):
        reason = (
            f"the chain ends at seq {prev_seq} but its head records seq {head_seq}"
            + (" (trailing rows deleted)" if head_seq > prev_seq else "")
            if head_seq != prev_seq
            else "the last row's hash differs from the chain head (last row altered)"
        )
        event_id = head.last_event_id if head and head.last_event_id else last_event_id
        part_name = _partition_of_event(event_id) or last_part or ""
        for p in report:
            if p["name"] == part_name:
                p["ok"] = False
        if first_broken is None:
            first_broken = {"partition": part_name, "event_id": event_id, "reason": reason}
    ok = first_broken is None
    result = {"ok": ok, "partitions": report, "first_broken": first_broken}
    if record:
        AuditVerification.objects.create(ok=ok, result=result)
    if first_broken:
        logger.error("audit chain broken: %s", first_broken)
    return result


def _against_archive(part: partitions.Partition, export: AuditExport) -> tuple[str, int | None] | None:  # noqa: PLR0911 - one return per way an archived month can disagree with the chain
    """An exported month must still produce its archived bytes.

    This is what catches a rewrite of the chain that recomputed every later hash (which
    the links alone cannot): the archive object is immutable and outside the database.
    Returns (reason, event id) for the first difference, or None.
    """
    data, _ = export_bytes(part, 0, export.prev_hash_in)
    if hashlib.sha256(data).hexdigest() == export.sha256:
        return None
    try:
        archived = adapters.archive_store().get(export.container, export.key)
    except Exception as exc:
        return f"the archived export {export.container}/{export.key} is unreadable ({type(exc).__name__})", None
    if hashlib.sha256(archived).hexdigest() != export.sha256:
        return "the archived export no longer matches its recorded sha256", None
    then = {r["seq"]: r for r in map(json.loads, archived.decode().splitlines()[1:])}
    for row in _rows(part.name):
        was = then.pop(row.seq, None)
        if was is None:
            return "row not in the archived export of its month (inserted after export)", row.id
        if was != row.export_line():
            return "row differs from the archived export of its month (rewritten after export)", row.id
    if then:
        first = then[min(then)]
        return f"seq {first['seq']} of the archived export is missing (deleted after export)", int(first["id"])
    return "the partition no longer reproduces its archived export", None


def _partition_of_event(event_id: int | None) -> str | None:
    if event_id is None:
        return None
    with connection.cursor() as cur:
        cur.execute("SELECT tableoid::regclass::text FROM audit_event WHERE id = %s", [event_id])
        row = cur.fetchone()
    return str(row[0]) if row else None


# ------------------------------------------------------------------------------ export


@dataclasses.dataclass(frozen=True)
class ExportResult:
    month: str
    partition: str
    container: str
    key: str
    sha256: str
    rows: int
    status: str  # created | unchanged (already in the archive, recorded now) | recorded (earlier run)

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class AuditError(AtsError):
    """Base of the errors the audit module raises on purpose."""


class ExportRefused(AuditError, Refused):
    pass


def _closed_before(now: datetime.datetime) -> datetime.date:
    """Months before the returned one are closed: no writer can still add to them.

    Taking the head lock waits out any writer that read its timestamp before `now`;
    every later writer reads a later timestamp (docs/compliance.md).
    """
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SELECT 1 FROM audit_chain_head WHERE id = 1 FOR UPDATE")
    return partitions.month_of(now)


def export_bytes(part: partitions.Partition, prev_seq: int, prev_hash: str) -> tuple[bytes, dict[str, Any]]:
    """The month's export: a header line, then one canonical JSON line per row.

    Deterministic (nothing time-dependent), so a re-run after a crash produces the same
    bytes and the archive's no-overwrite put reports them unchanged.
    """
    lines = []
    first_seq: int | None = None
    last_seq: int | None = None
    last_hash = prev_hash
    for row in _rows(part.name):
        lines.append(chain.canonical_json(row.export_line()))
        first_seq = row.seq if first_seq is None else first_seq
        last_seq, last_hash = row.seq, row.row_hash
    header = {
        "format": chain.EXPORT_FORMAT,
        "partition": part.name,
        "month": f"{part.month:%Y-%m}",
        "rows": len(lines),
        "first_seq": first_seq,
        "last_seq": last_seq,
        "prev_hash_in": prev_hash,
        "last_row_hash": last_hash,
    }
    data = ("\n".join([chain.canonical_json(header), *lines]) + "\n").encode()
    return data, header


def export_key(part: partitions.Partition) -> str:
    return f"audit/{part.month:%Y}/{part.month:%m}/{part.name}.jsonl"


def audit_export(*, month: datetime.date | None = None, now: datetime.datetime | None = None) -> list[ExportResult]:
    """Export closed, verified partitions not yet exported (or just `month`).

    Order of effects makes a SIGKILL harmless: the archive object is written first
    (no overwrite), the AuditExport row after; a run killed in between finds identical
    bytes in the archive next time and records them.
    """
    now = now or timezone.now()
    open_from = _closed_before(now)
    parts = partitions.existing()
    if month is not None:
        if month >= open_from:
            raise ExportRefused(f"{month:%Y-%m} is not closed yet")
        if month not in {p.month for p in parts} and not AuditExport.objects.filter(month=month).exists():
            raise ExportRefused(f"no audit partition for {month:%Y-%m}")
    done = {e.month: e for e in AuditExport.objects.all()}
    targets = [p for p in parts if p.month < open_from and (month is None or p.month == month)]
    results: list[ExportResult] = []
    if month is not None and month in done:
        e = done[month]
        return [ExportResult(f"{month:%Y-%m}", e.partition, e.container, e.key, e.sha256, e.rows, "recorded")]
    targets = [p for p in targets if p.month not in done]
    if not targets:
        return results
    verdict = audit_verify(record=False)
    broken = {p["name"] for p in verdict["partitions"] if not p["ok"]}
    store = adapters.archive_store()
    container = adapters.archive_container()
    for part in targets:
        if part.name in broken:
            raise ExportRefused(f"{part.name} fails verification: {verdict['first_broken']}")
        prev_seq, prev_hash = _link_before(part, parts)
        data, header = export_bytes(part, prev_seq, prev_hash)
        key = export_key(part)
        digest = hashlib.sha256(data).hexdigest()
        try:
            put = store.put(container, key, data)  # never overwrites: the archive is immutable
        except storage_api.BlobConflict as exc:
            raise ExportRefused(
                f"{container}/{key} already holds different bytes: {part.name} changed after it was archived"
            ) from exc
        checkpoints.reach("export-after-put")  # blob written, row not yet: the SIGKILL test
        with transaction.atomic():
            AuditExport.objects.create(
                month=part.month,
                partition=part.name,
                container=container,
                key=key,
                sha256=digest,
                size_bytes=len(data),
                rows=header["rows"],
                first_seq=header["first_seq"],
                last_seq=header["last_seq"],
                prev_hash_in=header["prev_hash_in"],
                last_row_hash=header["last_row_hash"],
            )
        status = "created" if put.value == "created" else "unchanged"
        logger.info("audit partition %s exported to %s/%s sha256=%s (%s)", part.name, container, key, digest, status)
        results.append(ExportResult(f"{part.month:%Y-%m}", part.name, container, key, digest, header["rows"], status))
    return results


def _link_before(part: partitions.Partition, parts: list[partitions.Partition]) -> tuple[int, str]:
    """The (seq, hash) the month's first row links to: the last row of any earlier month."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT seq, row_hash FROM audit_event WHERE occurred_at < %s ORDER BY seq DESC, id DESC LIMIT 1",
            [partitions.bounds(part.month)[0]],
        )
        row = cur.fetchone()
    if row is not None:
        return int(row[0]), str(row[1])
    return _link_into(part.month)


# -------------------------------------------------------------------------- partitions


def audit_partitions_maintain(*, now: datetime.datetime | None = None) -> dict[str, list[str]]:
    """Create this month's and the next AHEAD_MONTHS partitions; detach and drop the
    partitions older than KEEP_MONTHS whose export is in the archive with its hash."""
    now = now or timezone.now()
    current = partitions.month_of(now)
    created = [
        partitions.name_for(m)
        for m in (partitions.add_months(current, i) for i in range(AHEAD_MONTHS + 1))
        if partitions.create(m)
    ]
    cutoff = partitions.add_months(current, -KEEP_MONTHS)
    dropped: list[str] = []
    kept: list[str] = []
    for part in partitions.existing():
        if part.month >= cutoff:
            continue
        export = AuditExport.objects.filter(month=part.month).first()
        if export is None or not _archived_intact(export):
            logger.error("audit partition %s is past retention but not safely exported: kept", part.name)
            kept.append(part.name)
            continue
        with transaction.atomic():
            partitions.drop(part.month)
            export.dropped_at = timezone.now()
            export.save(update_fields=["dropped_at"])
        dropped.append(part.name)
    return {"created": created, "dropped": dropped, "kept_unexported": kept}


def _archived_intact(export: AuditExport) -> bool:
    try:
        data = adapters.archive_store().get(export.container, export.key)
    except Exception:
        logger.exception("archive object %s/%s unreadable", export.container, export.key)
        return False
    return hashlib.sha256(data).hexdigest() == export.sha256


# ------------------------------------------------------------------------------ subject access


def audit_subject_rows(*, objects: list[tuple[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The audit events about these (object_type, object_id) pairs, with their personal
    details from the side table (subject access, GDPR art. 15)."""
    events: list[dict[str, Any]] = []
    for object_type, object_id in objects:
        events.extend(
            dict(r) for r in AuditEvent.objects.filter(object_type=object_type, object_id=str(object_id)).values()
        )
    ids = [e["id"] for e in events]
    personal = [dict(r) for r in AuditEventPersonal.objects.filter(event_id__in=ids).values()]
    return {"audit_event": sorted(events, key=lambda e: e["seq"]), "audit_event_personal": personal}
