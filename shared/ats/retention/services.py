"""Writes of the retention module: erasure, tombstones, the nightly purge, due dates, the
erasure log and its replay, the purge verifier (docs/compliance.md).

Every module that stores personal data exposes its own erasure service in its api.py;
this module only orders the calls, records one `retention_action` row per subject and
step, and keeps the tombstone and the erasure log. One subject is erased in one
transaction: either every step is committed or none is (blob deletes, which cannot roll
back, are idempotent and run inside it, so a retry finishes them).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import hmac
import json
import logging
import os
import re
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from ats.ai import api as ai_api
from ats.audit import api as audit_api
from ats.candidates import api as candidates_api
from ats.channels import api as channels_api
from ats.config import checkpoints
from ats.config.env import ats_settings
from ats.errors import AtsError, Refused
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from ats.retention import compaction
from ats.retention.data import (
    ErasureSummary,
    PurgeRunSummary,
    PurgeVerificationResult,
    SubjectRetention,
)
from ats.retention.models import (
    Erasure,
    ErasureOrigin,
    ErasureState,
    PurgeRun,
    PurgeState,
    PurgeVerification,
    RetentionAction,
    RetentionSubject,
    Tombstone,
)
from ats.scoring import api as scoring_api
from ats.search import api as search_api
from ats.selfid import api as selfid_api
from ats.storage import api as storage_api

logger = logging.getLogger(__name__)

# A chunk of the purge (one subject's transaction) must commit well inside the 90 s
# deploy grace (ADR §6); the purge stops taking subjects after this much wall time and
# the next run (or retry) continues.
CHUNK_COMMIT_S = 60
PURGE_WALL_S = 25 * 60  # inside the policy's 30 min wall
# The purge rewrites the touched tables after this many subjects (and at its end).
PURGE_COMPACT_EVERY = 25
# A later document of an erased person is held (bytes and text) this long for an admin to
# re-admit the sender; then the purge erases it like the person's other documents.
HELD_BACK_DAYS = int(os.environ.get("ATS_RETENTION_HELD_BACK_DAYS", "30"))


class RetentionError(AtsError):
    """Base of the errors the retention module raises on purpose."""


# Keeps its builtin base (PermissionError) so every `except PermissionError` still catches it.
class ErasureRefused(RetentionError, Refused, PermissionError):
    pass


class PurgeHalted(RetentionError):
    """The purge stopped at its first unexplained failure (ADR 0004 §2, R6)."""


# ------------------------------------------------------------------------------ tombstones


def tombstone_key() -> bytes:
    """settings.TOMBSTONE_HMAC_KEY, else derived from SECRET_KEY (dev/test) - the audit
    module's pattern (ats.audit.keys): production keeps the key out of the database, so
    the tombstone table alone cannot confirm a guessed e-mail address."""
    explicit = getattr(settings, "TOMBSTONE_HMAC_KEY", "")
    if explicit:
        return str(explicit).encode()
    return hmac.new(str(settings.SECRET_KEY).encode(), b"ats.retention.tombstone", hashlib.sha256).digest()


def normalise_email(value: str) -> str:
    return unicodedata.normalize("NFKC", str(value)).strip().lower()


def normalise_phone(value: str) -> str:
    return candidates_api.normalise_phone(unicodedata.normalize("NFKC", str(value)))


def tombstone_digests(*, emails: Iterable[str] = (), phones: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(kind, HMAC hex) of each usable identifier: an e-mail with an @, a phone of >= 7 digits."""
    key = tombstone_key()
    out: set[tuple[str, str]] = set()
    for e in emails:
        n = normalise_email(e)
        if "@" in n:
            out.add(("email", hmac.new(key, b"email:" + n.encode(), hashlib.sha256).hexdigest()))
    for p in phones:
        n = normalise_phone(p)
        if len(n.lstrip("+")) >= 7:
            out.add(("phone", hmac.new(key, b"phone:" + n.encode(), hashlib.sha256).hexdigest()))
    return sorted(out)


_ERASURE_LOCK = 0x72657431  # "ret1"


def tombstone_match(*, emails: Iterable[str] = (), phones: Iterable[str] = ()) -> int | None:
    """The erasure id whose live tombstone matches any of these identifiers, else None.

    In a transaction (the candidate step), first waits for any erasure in progress
    (shared advisory lock, held to the caller's commit): its tombstone is then visible.
    """
    digests = [d for _, d in tombstone_digests(emails=emails, phones=phones)]
    if not digests:
        return None
    with connection.cursor() as cur:
        if connection.in_atomic_block:
            cur.execute("SELECT pg_advisory_xact_lock_shared(%s, 0)", [_ERASURE_LOCK])
        # Written out (issue 26): the candidate step asks this of every new document, and
        # the ORM's query building cost ~4x the statement (stop 48's profile).
        cur.execute(
            'SELECT "erasure_id" FROM "retention_tombstone" WHERE "digest" = ANY(%s) AND "lifted_at" IS NULL'
            ' ORDER BY "erasure_id" LIMIT 1',
            [digests],
        )
        row = cur.fetchone()
    return int(row[0]) if row is not None else None


# ------------------------------------------------------------------------------ erasure log


@functools.cache
def _log_store() -> Any:
    store = storage_api.store_for(ats_settings())
    store.ensure_container(log_container())
    return store


def log_container() -> str:
    return str(getattr(settings, "ERASURE_LOG_CONTAINER", "") or "erasure-log")


def _log_key(erasure_id: int) -> str:
    return f"erasures/{erasure_id:012d}.json"


def _log_write(erasure: Erasure, digests: list[tuple[str, str]]) -> None:
    """One blob per erasure, outside the database and its backups: ids and digests only.
    Written before the subject's transaction commits (an intent log): replaying an entry
    whose transaction rolled back erases a person whose erasure was requested anyway."""
    entry = {
        "erasure_id": erasure.pk,
        "candidate_id": erasure.candidate_id,
        "candidate_ids": erasure.candidate_ids,
        "attachment_ids": erasure.attachment_ids,
        "tombstones": [{"kind": k, "digest": d} for k, d in digests],
        "origin": erasure.origin,
        "requested_at": erasure.requested_at.isoformat(),
    }
    data = json.dumps(entry, sort_keys=True).encode()
    _log_store().put(log_container(), _log_key(erasure.pk), data, overwrite=True)


def erasure_log_entries() -> list[dict[str, Any]]:
    store = _log_store()
    out = []
    for info in store.list_blobs(log_container(), prefix="erasures/"):
        out.append(json.loads(store.get(log_container(), info.key)))
    return sorted(out, key=lambda e: e["erasure_id"])


# ------------------------------------------------------------------------------ erasure


class _StepFailed(RetentionError):
    def __init__(self, step: str, exc: BaseException) -> None:
        super().__init__(f"step {step}: {type(exc).__name__}: {exc}")
        self.step = step


def subject_erase(
    *,
    candidate_id: int,
    reason: str,
    actor: Any,
    origin: str = ErasureOrigin.REQUEST,
    run: PurgeRun | None = None,
    erasure_id: int | None = None,
    batch: compaction.Batch | None = None,
) -> ErasureSummary:
    """Erase one person everywhere, in one transaction; idempotent.

    A second call for the same person returns the first erasure (same id) after running
    every step again (each is a no-op by then, so a half-applied earlier attempt - e.g. a
    restore - is finished). `erasure_id` is given by the log replay to keep ids stable.

    Once committed, the tables it changed are rewritten (step `compaction`, before this
    returns): no dead row version keeps the person in the data files. With `batch` (the
    purge) the relations are collected and rewritten per batch by the caller instead.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ValueError("a reason is required")
    if origin == ErasureOrigin.REQUEST and not iam_api.can(actor, "candidate.erase"):
        raise ErasureRefused(f"{iam_api.actor_label(actor)} may not erase candidates (admins only)")
    subject = candidates_api.candidate_subject(candidate_id=candidate_id)
    if subject is None:
        raise LookupError(f"candidate {candidate_id} does not exist")
    label = iam_api.actor_label(actor)
    with transaction.atomic():
        _lock_for_erasure()
        subject, attachment_ids = _lock_documents(subject, candidate_id=candidate_id)
        erasure = _erasure_row(
            subject, attachment_ids, erasure_id=erasure_id, origin=origin, actor=label, reason=reason
        )
        digests = tombstone_digests(emails=subject.emails, phones=subject.phones)
        _log_write(erasure, digests)
        steps = _run_steps(
            erasure,
            root=subject.candidate_id,
            candidate_ids=erasure.candidate_ids,
            attachment_ids=erasure.attachment_ids,
            digests=digests,
            run=run,
        )
        _erasure_complete(erasure, steps, root=subject.candidate_id, origin=origin, actor=label)
        relations, xid = compaction.touched_relations(t for s in steps for t in (s.get("tables") or {}))
    if batch is not None:
        batch.add(relations, xid)
    elif connection.in_atomic_block:
        # Inside a caller's transaction nothing is committed yet, and VACUUM cannot run
        # in one: a caller that wraps erasures (the log replay) passes a batch and
        # compacts after its commit. (Only tests call this inside a bare transaction.)
        logger.warning("erasure %s inside a caller's transaction: compaction left to the caller", erasure.pk)
    else:
        _compact(erasure, relations, xid)
    return ErasureSummary(
        id=erasure.pk,
        candidate_id=erasure.candidate_id,
        candidate_ids=tuple(erasure.candidate_ids),
        attachment_ids=tuple(erasure.attachment_ids),
        origin=erasure.origin,
        state=erasure.state,
        steps=tuple(erasure.steps),
        purged_blobs=tuple(erasure.purged_blobs),
    )


def _lock_for_erasure() -> None:
    """The erasure's statement budget and its exclusive lock, for this transaction."""
    # One erasure of one person at a time (web + CLI + purge racing on the same person).
    with connection.cursor() as cur:
        # A subject is one chunk: no statement of it may run past the 60 s chunk
        # budget (inside the 90 s deploy grace); a slower one fails the chunk, whole.
        cur.execute("SELECT set_config('statement_timeout', %s, true)", [f"{CHUNK_COMMIT_S * 1000}ms"])
        # Exclusive against every candidate step's tombstone check (shared, see
        # tombstone_match): a document of this person read while the erasure runs
        # waits and then sees the tombstone, instead of slipping in before it commits.
        cur.execute("SELECT pg_advisory_xact_lock(%s, 0)", [_ERASURE_LOCK])


def _lock_documents(subject: candidates_api.Subject, *, candidate_id: int) -> tuple[candidates_api.Subject, list[int]]:
    """Lock the person's documents; returns the person as read under the locks, and them."""
    # The project's lock order is documents, then candidates (ats.candidates.services):
    # lock the person's documents first, so a re-parse's candidate step holding one of
    # them finishes before we erase (and we erase what it wrote), never a deadlock.
    # Read the person again under the locks: a merge may have moved documents.
    for _ in range(5):
        attachment_ids = sorted(
            set(subject.attachment_ids) | set(intake_api.subject_attachment_ids(candidate_ids=subject.candidate_ids))
        )
        intake_api.attachments_lock(attachment_ids=attachment_ids)
        again = candidates_api.candidate_subject(candidate_id=candidate_id)
        if again is None or set(again.attachment_ids) <= set(attachment_ids):
            break
        subject = again
    return subject, attachment_ids


def _erasure_row(
    subject: candidates_api.Subject,
    attachment_ids: list[int],
    *,
    erasure_id: int | None,
    origin: str,
    actor: str,
    reason: str,
) -> Erasure:
    """The person's erasure (locked), widened to what they are now; a new one if none."""
    erasure = _existing(subject.candidate_ids, erasure_id)
    if erasure is None:
        return Erasure.objects.create(
            **({"id": erasure_id} if erasure_id else {}),
            candidate_id=subject.candidate_id,
            candidate_ids=subject.candidate_ids,
            attachment_ids=attachment_ids,
            origin=origin,
            actor=actor,
            reason=reason,
        )
    erasure.candidate_ids = sorted(set(erasure.candidate_ids) | set(subject.candidate_ids))
    erasure.attachment_ids = sorted(set(erasure.attachment_ids) | set(attachment_ids))
    return erasure


def _erasure_complete(erasure: Erasure, steps: list[dict[str, Any]], *, root: int, origin: str, actor: str) -> None:
    erasure.steps = steps
    erasure.state = ErasureState.COMPLETED
    erasure.completed_at = erasure.completed_at or timezone.now()
    erasure.save()
    RetentionSubject.objects.filter(candidate_id__in=erasure.candidate_ids).update(due_on=None)
    audit_api.audit_event_record(
        actor=actor,
        action="retention.erased",
        object_type="candidate",
        object_id=root,
        payload={
            "erasure_id": erasure.pk,
            "origin": origin,
            "candidate_ids": erasure.candidate_ids,
            "steps": {s["step"]: s.get("rows", 0) for s in steps},
        },
    )


def _compact(erasure: Erasure, relations: list[str], xid: str, run: PurgeRun | None = None) -> dict[str, Any]:
    return _compact_record(erasure, compaction.compact(relations, xid=xid), run)


def _compact_record(erasure: Erasure, result: dict[str, Any], run: PurgeRun | None = None) -> dict[str, Any]:
    erasure.steps = [s for s in (erasure.steps or []) if s.get("step") != "compaction"] + [result]
    erasure.save(update_fields=["steps"])
    RetentionAction.objects.create(
        run=run,
        erasure=erasure,
        candidate_id=erasure.candidate_id,
        step="compaction",
        outcome=result["outcome"],
        detail=result,
    )
    return result


def _existing(candidate_ids: list[int], erasure_id: int | None) -> Erasure | None:
    if erasure_id is not None:
        found = Erasure.objects.select_for_update().filter(pk=erasure_id).first()
        if found is not None:
            return found
    match = Q()
    for cid in candidate_ids:
        match |= Q(candidate_ids__contains=[cid])
    return Erasure.objects.select_for_update().filter(match).order_by("pk").first()


@dataclass
class _Erasing:
    """What the steps of one erasure share: whom they erase, and what earlier steps found.

    The steps run in `_ERASURE_STEPS` order; two read what an earlier one found.
    """

    erasure: Erasure
    candidate_ids: list[int]
    attachment_ids: list[int]
    digests: list[tuple[str, str]]
    application_ids: list[int]  # the erasure's, grown by `scoring`; read by ai, audit, jobs
    raw_intake_ids: list[int] = field(default_factory=list)  # set by `documents`; read by mail_ledger


def _erase_tombstones(e: _Erasing) -> dict[str, Any]:
    made = 0
    for kind, digest in e.digests:
        _, created = Tombstone.objects.get_or_create(digest=digest, defaults={"kind": kind, "erasure": e.erasure})
        made += int(created)
    return {"rows": made, "identifiers": len(e.digests)}


def _erase_scoring(e: _Erasing) -> dict[str, Any]:
    res = scoring_api.applications_erase_personal(candidate_ids=e.candidate_ids)
    e.application_ids = sorted(set(e.application_ids) | set(res["application_ids"]))
    return {"rows": sum(res["counts"].values()), "tables": res["counts"]}


def _erase_ai(e: _Erasing) -> dict[str, Any]:
    res = ai_api.ai_runs_erase(candidate_ids=e.candidate_ids, application_ids=e.application_ids)
    return {"rows": sum(res.values()), "tables": res}


def _erase_search(e: _Erasing) -> dict[str, Any]:
    res = search_api.search_erase(candidate_ids=e.candidate_ids, attachment_ids=e.attachment_ids)
    return {"rows": sum(res.values()), "tables": res}


def _erase_candidates(e: _Erasing) -> dict[str, Any]:
    res = candidates_api.candidate_erase_personal(
        candidate_ids=e.candidate_ids, attachment_ids=e.attachment_ids, erasure_id=e.erasure.pk
    )
    return {"rows": sum(res.values()), "tables": res}


def _erase_selfid(e: _Erasing) -> dict[str, Any]:
    res = selfid_api.selfid_erase(candidate_ids=e.candidate_ids)
    return {"rows": sum(res.values()), "tables": res}


def _erase_documents(e: _Erasing) -> dict[str, Any]:
    res = intake_api.attachments_erase_personal(
        attachment_ids=e.attachment_ids,
        reason=f"The sender's personal data was erased on request (erasure {e.erasure.pk}).",
    )
    e.raw_intake_ids = res["raw_intake_ids"]
    e.erasure.purged_blobs = sorted(set(e.erasure.purged_blobs or []) | set(res["purged_blobs"]))
    return {"rows": sum(res["counts"].values()), "tables": res["counts"], "blobs": res["blobs_deleted"]}


def _erase_mail_ledger(e: _Erasing) -> dict[str, Any]:
    res = channels_api.ledger_erase_personal(raw_intake_ids=e.raw_intake_ids)
    return {"rows": sum(res.values()), "tables": res}


def _erase_audit(e: _Erasing) -> dict[str, Any]:
    n = 0
    for cid in e.candidate_ids:
        n += audit_api.audit_personal_erase(object_type="candidate", object_id=cid)
    for app_id in e.application_ids:
        n += audit_api.audit_personal_erase(object_type="application", object_id=app_id)
    for att_id in e.attachment_ids:
        n += audit_api.audit_personal_erase(object_type="attachment", object_id=att_id)
    return {"rows": n}


def _erase_jobs(e: _Erasing) -> dict[str, Any]:
    res = jobs_api.jobs_erase_references(
        refs={
            "candidate_id": e.candidate_ids,
            "attachment_id": e.attachment_ids,
            "application_id": e.application_ids,
        }
    )
    return {"rows": sum(res.values()), "tables": res}


# In order: scoring before ai, audit and jobs (it finds the application ids), documents
# before mail_ledger (it finds the raw intakes). The names are the recorded step names.
_ERASURE_STEPS: tuple[tuple[str, Callable[[_Erasing], dict[str, Any]]], ...] = (
    ("tombstone", _erase_tombstones),
    ("scoring", _erase_scoring),
    ("ai", _erase_ai),
    ("search", _erase_search),
    ("candidates", _erase_candidates),
    ("selfid", _erase_selfid),
    ("documents", _erase_documents),
    ("mail_ledger", _erase_mail_ledger),
    ("audit", _erase_audit),
    ("jobs", _erase_jobs),
)


def _run_steps(
    erasure: Erasure,
    *,
    root: int,
    candidate_ids: list[int],
    attachment_ids: list[int],
    digests: list[tuple[str, str]],
    run: PurgeRun | None,
) -> list[dict[str, Any]]:
    erasing = _Erasing(
        erasure=erasure,
        candidate_ids=candidate_ids,
        attachment_ids=attachment_ids,
        digests=digests,
        application_ids=list(erasure.application_ids or []),
    )
    out = []
    for name, step in _ERASURE_STEPS:
        try:
            # Inside the subject's transaction: the fault and SIGKILL tests stop the erasure here.
            checkpoints.reach("ERASE", candidate_id=root, part=name)
            result = step(erasing)
        except Exception as exc:
            raise _StepFailed(name, exc) from exc
        out.append({"step": name, **result})
        RetentionAction.objects.create(
            run=run, erasure=erasure, candidate_id=root, step=name, outcome="done", detail=result
        )
    erasure.application_ids = erasing.application_ids
    return out


def erasure_json(erasure: ErasureSummary) -> dict[str, Any]:
    """The CLI contract: {candidate_id, erasure_id, steps}."""
    return {"candidate_id": erasure.candidate_id, "erasure_id": erasure.id, "steps": list(erasure.steps)}


def erasure_replay() -> dict[str, Any]:
    """After a restore: re-apply every logged erasure the restored database has not got.

    Run before web and workers start on the restored database. Candidate ids are the
    restored database's own (the backup is of the same database), so an entry erases the
    same rows again; tombstones are re-inserted from the logged digests.
    """
    replayed, already = [], []
    system = iam_api.SystemActor("system:erasure-replay")
    batch = compaction.Batch()
    for entry in erasure_log_entries():
        done = Erasure.objects.filter(pk=entry["erasure_id"], state=ErasureState.COMPLETED).exists()
        # Not yet erased in this database (an erased candidate row stays, without data).
        present = [
            c.candidate_id
            for c in candidates_api.candidate_activity(candidate_ids=entry["candidate_ids"])
            if c.status != candidates_api.CandidateStatus.ERASED
        ]
        if done and not present:
            already.append(entry["erasure_id"])
            continue
        with transaction.atomic():
            for cid in present or []:
                subject_erase(
                    candidate_id=cid,
                    reason=f"replayed from the erasure log (erasure {entry['erasure_id']})",
                    actor=system,
                    origin=ErasureOrigin.REPLAY,
                    erasure_id=entry["erasure_id"],
                    batch=batch,
                )
            erasure = Erasure.objects.filter(pk=entry["erasure_id"]).first()
            if erasure is None:  # the person is not in this backup at all: keep the tombstones
                erasure = Erasure.objects.create(
                    id=entry["erasure_id"],
                    candidate_id=entry["candidate_id"],
                    candidate_ids=entry["candidate_ids"],
                    attachment_ids=entry["attachment_ids"],
                    origin=ErasureOrigin.REPLAY,
                    state=ErasureState.COMPLETED,
                    actor=system.label,
                    reason="replayed from the erasure log",
                    completed_at=timezone.now(),
                )
            # Documents of the person the backup holds but the candidate link missed.
            intake_api.attachments_erase_personal(
                attachment_ids=entry["attachment_ids"],
                reason=f"The sender's personal data was erased on request (erasure {entry['erasure_id']}).",
            )
            for t in entry["tombstones"]:
                Tombstone.objects.get_or_create(digest=t["digest"], defaults={"kind": t["kind"], "erasure": erasure})
            batch.add(*compaction.touched_relations())
        replayed.append(entry["erasure_id"])
        if not connection.in_atomic_block:
            # Committed: the restored files lose the replayed people too.
            result = batch.run()
            if result is not None:
                _compact_record(erasure, result)
    _bump_sequences()
    return {"replayed": replayed, "already_applied": already}


def _bump_sequences() -> None:
    # Replayed erasures keep their logged ids: move the sequence past them.
    with connection.cursor() as cur:
        cur.execute(
            "SELECT setval(pg_get_serial_sequence('retention_erasure', 'id'),"
            " GREATEST((SELECT coalesce(max(id), 0) FROM retention_erasure), 1))"
        )


def tombstone_lift(*, attachment_id: int, actor: Any, reason: str) -> dict[str, Any]:
    """An admin re-admits the sender of a document held back as `erased_subject`: the
    tombstones of that erasure are lifted (kept, marked) and candidate creation runs."""
    if not iam_api.can(actor, "candidate.erase"):
        raise ErasureRefused(f"{iam_api.actor_label(actor)} may not re-admit an erased person (admins only)")
    att = intake_api.attachment_get(attachment_id)
    match = re.search(r"\(erasure (\d+)\)", att.reason) if att is not None else None
    erasure_id = int(match.group(1)) if match else None
    with transaction.atomic():
        intake_api.attachment_readmit(
            attachment_id=attachment_id, actor_label=iam_api.actor_label(actor), reason=reason
        )
        lifted = 0
        if erasure_id is not None:
            lifted = Tombstone.objects.filter(erasure_id=erasure_id, lifted_at__isnull=True).update(
                lifted_at=timezone.now(), lifted_by=iam_api.actor_label(actor)
            )
    return {"attachment_id": attachment_id, "erasure_id": erasure_id, "tombstones_lifted": lifted}


# ------------------------------------------------------------------------------ due dates


def _add_months(d: datetime.date, months: int) -> datetime.date:
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    for day in (d.day, 30, 29, 28):
        try:
            return datetime.date(year, month, day)
        except ValueError:
            continue
    raise ValueError(d)


def due_on_for(*, last_activity: datetime.datetime, consent_until: datetime.date | None, legal_hold: bool) -> Any:
    """retention_due_on: months since the last activity (ATS_RETENTION_MONTHS); with
    consent, the later of that and the consented date (capped by ATS_RETENTION_CONSENT_MONTHS);
    never under a legal hold."""
    if legal_hold:
        return None
    base = _add_months(last_activity.date(), int(getattr(settings, "RETENTION_MONTHS", 24)))
    if consent_until is not None:
        cap = _add_months(last_activity.date(), int(getattr(settings, "RETENTION_CONSENT_MONTHS", 48)))
        return max(base, min(consent_until, cap))
    return base


def retention_due_on_recompute() -> dict[str, int]:
    """Nightly: every active candidate's due date from its last activity and the rules."""
    changed = created = 0
    for active in candidates_api.candidate_activity(active_only=True):
        cid, updated_at = active.candidate_id, active.updated_at
        subj = RetentionSubject.objects.filter(candidate_id=cid).first()
        if subj is None:
            RetentionSubject.objects.create(
                candidate_id=cid,
                last_activity_at=updated_at,
                due_on=due_on_for(last_activity=updated_at, consent_until=None, legal_hold=False),
            )
            created += 1
            continue
        last = max(subj.last_activity_at, updated_at)
        due = due_on_for(last_activity=last, consent_until=subj.consent_until, legal_hold=subj.legal_hold)
        if (subj.last_activity_at, subj.due_on) != (last, due):
            subj.last_activity_at, subj.due_on = last, due
            subj.save(update_fields=["last_activity_at", "due_on", "recomputed_at"])
            changed += 1
    return {"created": created, "changed": changed}


def retention_subject_set(
    *, candidate_id: int, legal_hold: bool | None = None, consent_until: datetime.date | None = None
) -> SubjectRetention:
    """Set a legal hold or a consent date (the due date follows at once)."""
    c = next(candidates_api.candidate_activity(candidate_ids=[candidate_id]), None)
    if c is None:
        raise LookupError(f"candidate {candidate_id} does not exist")
    subj, _ = RetentionSubject.objects.get_or_create(
        candidate_id=candidate_id, defaults={"last_activity_at": c.updated_at}
    )
    if legal_hold is not None:
        subj.legal_hold = legal_hold
    if consent_until is not None:
        subj.consent_until = consent_until
    subj.due_on = due_on_for(
        last_activity=subj.last_activity_at, consent_until=subj.consent_until, legal_hold=subj.legal_hold
    )
    subj.save()
    return SubjectRetention(
        candidate_id=subj.candidate_id,
        last_activity_at=subj.last_activity_at,
        consent_until=subj.consent_until,
        legal_hold=subj.legal_hold,
        due_on=subj.due_on,
    )


# ------------------------------------------------------------------------------ the purge


def _due(today: datetime.date) -> list[int]:
    active = {c.candidate_id for c in candidates_api.candidate_activity(active_only=True)}
    due = RetentionSubject.objects.filter(due_on__lte=today, legal_hold=False).order_by("candidate_id")
    return [cid for cid in due.values_list("candidate_id", flat=True) if cid in active]


def retention_purge(*, today: datetime.date | None = None, job_id: int | None = None) -> PurgeRunSummary:
    """The nightly purge: erase every subject whose retention ended, in candidate id order,
    one subject per transaction, halting at the first unexplained failure.

    A halt records the failed step as a `retention_action` row, marks the run halted with
    the boundary (`halted_at`) and raises PurgeHalted: the job fails and is retried per
    policy, and every later run starts again at the first subject not yet erased - which
    is the boundary, because erased subjects are no longer due. Nothing is skipped.
    """
    today = today or timezone.localdate()
    previous = PurgeRun.objects.filter(state=PurgeState.HALTED).order_by("-pk").first()
    due = _due(today)
    run = PurgeRun.objects.create(
        job_id=job_id, due_count=len(due), resumed_from=previous.halted_at if previous else None
    )
    started = time.monotonic()
    system = iam_api.SystemActor("system:retention-purge")
    batch = compaction.Batch()
    for cid in due:
        if time.monotonic() - started > PURGE_WALL_S:
            break  # the next run continues; the run is 'completed' for what it took on
        try:
            subject_erase(
                candidate_id=cid,
                reason="retention period ended",
                actor=system,
                origin=ErasureOrigin.PURGE,
                run=run,
                batch=batch,
            )
        except Exception as exc:
            _compact_batch(run, batch)  # what the committed subjects before the halt touched
            step = exc.step if isinstance(exc, _StepFailed) else "subject"
            RetentionAction.objects.create(
                run=run, candidate_id=cid, step=step, outcome="failed", detail={"error": str(exc)[:2000]}
            )
            run.state = PurgeState.HALTED
            run.halted_at = cid
            run.error = str(exc)[:2000]
            run.finished_at = timezone.now()
            run.save()
            logger.error("retention purge halted at candidate %s: %s", cid, exc)
            raise PurgeHalted(f"retention purge halted at candidate {cid}: {exc}") from exc
        run.done_count += 1
        run.save(update_fields=["done_count"])
        if run.done_count % PURGE_COMPACT_EVERY == 0:
            _compact_batch(run, batch)
    _compact_batch(run, batch)
    try:
        _purge_held_back(run, started, batch)
    finally:
        _compact_batch(run, batch)
    run.state = PurgeState.COMPLETED
    run.finished_at = timezone.now()
    run.save()
    return PurgeRunSummary(
        id=run.pk,
        state=run.state,
        job_id=run.job_id,
        due_count=run.due_count,
        done_count=run.done_count,
        resumed_from=run.resumed_from,
        halted_at=run.halted_at,
        error=run.error,
    )


def _compact_batch(run: PurgeRun, batch: compaction.Batch) -> None:
    """The purge rewrites the tables its committed subjects changed once per batch
    (one rewrite of a big table per batch, not per person)."""
    if connection.in_atomic_block:
        return  # a caller's transaction (tests): nothing is committed yet to compact
    result = batch.run()
    if result is not None:
        RetentionAction.objects.create(
            run=run, candidate_id=0, step="compaction", outcome=result["outcome"], detail=result
        )


def _purge_held_back(run: PurgeRun, started: float, batch: compaction.Batch) -> None:
    """Held-back documents past HELD_BACK_DAYS, one per transaction; a failure halts too."""
    cutoff = timezone.now() - datetime.timedelta(days=HELD_BACK_DAYS)
    for att_id in intake_api.held_back_documents(older_than=cutoff):
        if time.monotonic() - started > PURGE_WALL_S:
            return
        try:
            with transaction.atomic():
                res = intake_api.attachments_erase_personal(
                    attachment_ids=[att_id],
                    reason=f"Held back as an erased person's document for {HELD_BACK_DAYS} days; erased.",
                )
                RetentionAction.objects.create(
                    run=run,
                    candidate_id=0,  # no candidate: the sender was erased before
                    step="held_back_document",
                    outcome="done",
                    detail={"attachment_id": att_id, "tables": res["counts"], "blobs": res["blobs_deleted"]},
                )
                batch.add(*compaction.touched_relations(res["counts"]))
        except Exception as exc:
            RetentionAction.objects.create(
                run=run,
                candidate_id=0,
                step="held_back_document",
                outcome="failed",
                detail={"attachment_id": att_id, "error": str(exc)[:2000]},
            )
            run.state = PurgeState.HALTED
            run.error = f"held-back document {att_id}: {exc}"[:2000]
            run.finished_at = timezone.now()
            run.save()
            raise PurgeHalted(f"retention purge halted at held-back document {att_id}: {exc}") from exc


def purge_verify() -> PurgeVerificationResult:
    """Weekly: every blob key an erasure purged must be gone from the store (ADR 0003 R4)."""
    keys: list[str] = []
    for purged in Erasure.objects.values_list("purged_blobs", flat=True):
        keys.extend(purged or [])
    present = intake_api.blobs_exist(keys=sorted(set(keys)))
    row = PurgeVerification.objects.create(ok=not present, checked=len(set(keys)), still_present=present[:200])
    return PurgeVerificationResult(id=row.pk, ok=row.ok, checked=row.checked, still_present=tuple(row.still_present))
