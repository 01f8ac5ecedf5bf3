"""Erasure and subject access for intake's rows and bytes (called by ats.retention).

What a document keeps after erasure: its row (id, state `erased_subject`, timestamps,
size, detected type, scan verdict), so intake counts and the lost-document detector
still add up. What goes: the bytes in every container, the parse hand-off copy, the
parse text and structured result, the file name, the sender's metadata and the source
reference (a CLI path or a mail dedupe key may carry the person's name), and the
content hash (a resend of the same file must not be linked to an erased original: it
goes through the tombstone check instead).
"""

from __future__ import annotations

import base64
import logging
from typing import Any

from django.db import transaction
from django.db.models import Q

from ats.audit import api as audit_api
from ats.intake import adapters, pages
from ats.intake.models import (
    Attachment,
    ParseAttempt,
    ParseAttemptState,
    ParseHandoff,
    ParseResult,
    RawIntake,
    VerificationRun,
)
from ats.intake.services import ActionRefused, _locked, _save, _set_state
from ats.intake.states import CANDIDATE, State
from ats.jobs import api as jobs_api

logger = logging.getLogger(__name__)

ERASED = "erased"
# Metadata keys that are ids, not personal data (routing of the other documents of a message).
_KEEP_METADATA = ("channel_id", "requisition_id")


def subject_attachment_ids(*, candidate_ids: list[int]) -> list[int]:
    """The documents of these candidates and every byte-identical duplicate of them."""
    ids = set(Attachment.objects.filter(candidate_id__in=candidate_ids).values_list("pk", flat=True))
    frontier = set(ids)
    while frontier:  # duplicates of duplicates (a short chain)
        frontier = set(Attachment.objects.filter(duplicate_of_id__in=frontier).values_list("pk", flat=True)) - ids
        ids |= frontier
    return sorted(ids)


def _raw_intake_ids(attachment_ids: list[int]) -> list[int]:
    return sorted(set(Attachment.objects.filter(pk__in=attachment_ids).values_list("raw_intake_id", flat=True)))


def attachment_personal_rows(*, attachment_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """Every intake row about these documents, column for column (subject access)."""
    wanted = set(attachment_ids)
    handoffs: list[dict[str, Any]] = []
    for row in ParseHandoff.objects.filter(attachment_id__in=attachment_ids).values():
        handoffs.append({**row, "data": base64.b64encode(bytes(row["data"])).decode()})
    return {
        "intake_raw_intake": [
            dict(r) for r in RawIntake.objects.filter(pk__in=_raw_intake_ids(attachment_ids)).values()
        ],
        "intake_attachment": [dict(r) for r in Attachment.objects.filter(pk__in=attachment_ids).values()],
        "intake_parse_attempt": [
            dict(r) for r in ParseAttempt.objects.filter(attachment_id__in=attachment_ids).values()
        ],
        "intake_parse_handoff": handoffs,
        "intake_parse_result": [dict(r) for r in ParseResult.objects.filter(attachment_id__in=attachment_ids).values()],
        **pages.page_images_personal_rows(attachment_ids=attachment_ids),
        "intake_verification_run": [
            {"id": r.pk, "ran_at": r.ran_at, "lost": [d for d in r.lost or [] if d.get("attachment_id") in wanted]}
            for r in VerificationRun.objects.filter(lost_count__gt=0)
            if any(d.get("attachment_id") in wanted for d in r.lost or [])
        ],
    }


def attachment_original_bytes(*, attachment_id: int) -> bytes | None:
    """The stored bytes of a document (None when gone or never received)."""
    att = Attachment.objects.filter(pk=attachment_id).first()
    if att is None or not att.storage_key:
        return None
    for container in (att.storage_container, adapters.DOCUMENTS, adapters.QUARANTINE):
        try:
            return bytes(adapters.blob_store().get(container, att.storage_key))
        except adapters.BlobNotFound:
            continue  # absent here: a promote moves it between the two containers
    return None


def attachments_erase_personal(*, attachment_ids: list[int], reason: str) -> dict[str, Any]:
    """Erase these documents' personal data; idempotent. Runs in the caller's transaction.

    Bytes are deleted from both containers (a crash between promote's copy and delete
    leaves a copy in each) before the rows are blanked: if the transaction then rolls
    back, the retry deletes nothing twice and finds the rows to blank again. Returns what
    was erased: row counts and the purged blob keys (the weekly verifier re-checks them).
    """
    store = adapters.blob_store()
    purged: list[str] = []
    blobs_deleted = 0
    counts = {
        "intake_attachment": 0,
        "intake_raw_intake": 0,
        "intake_parse_attempt": 0,
        "intake_parse_handoff": 0,
        "intake_parse_result": 0,
        "intake_verification_run": 0,
    }
    with transaction.atomic():
        atts = list(Attachment.objects.select_for_update().filter(pk__in=attachment_ids).order_by("pk"))
        for att in atts:
            if att.storage_key:
                for container in (adapters.QUARANTINE, adapters.DOCUMENTS):
                    if store.delete(container, att.storage_key):
                        blobs_deleted += 1
                    purged.append(f"{container}/{att.storage_key}")
        raw_ids = sorted({a.raw_intake_id for a in atts})
        for raw in RawIntake.objects.select_for_update().filter(pk__in=raw_ids):
            kept = {k: v for k, v in (raw.metadata or {}).items() if k in _KEEP_METADATA}
            if raw.metadata != kept or raw.source_ref not in ("", ERASED):
                raw.metadata = kept
                raw.source_ref = ERASED
                raw.save(update_fields=["metadata", "source_ref"])
                counts["intake_raw_intake"] += 1
        counts["intake_parse_handoff"] = ParseHandoff.objects.filter(attachment_id__in=attachment_ids).delete()[0]
        # The viewer's page images and thumbnail (derivatives) go with the document.
        page_counts, page_blobs = pages.page_images_erase(attachment_ids=attachment_ids)
        blobs_deleted += page_counts.pop("derivative_blobs")
        counts.update(page_counts)
        purged.extend(page_blobs)
        # A pending attempt is closed, so a parse still in flight cannot write text back.
        counts["intake_parse_attempt"] = (
            ParseAttempt.objects.filter(attachment_id__in=attachment_ids)
            .filter(~Q(text="") | ~Q(result={}) | ~Q(reason="") | Q(state=ParseAttemptState.PENDING))
            .update(text="", result={}, reason="", error_code=ERASED, state=ParseAttemptState.FAILED)
        )
        counts["intake_parse_result"] = (
            ParseResult.objects.filter(attachment_id__in=attachment_ids)
            .filter(~Q(text="") | ~Q(result={}) | ~Q(detail=""))
            .update(text="", result={}, detail="")
        )
        for att in atts:
            if att.state == State.ERASED_SUBJECT and att.filename == ERASED and not att.sha256 and not att.storage_key:
                continue
            if att.state != State.ERASED_SUBJECT:
                _set_state(att, State.ERASED_SUBJECT, reason_code="erased_subject", reason=reason)
            att.filename = ERASED
            att.sha256 = ""
            att.scan_signature = ""
            att.declared_content_type = ""
            # No row points at the deleted bytes: the orphan reconciliation would report
            # them missing. The purged keys are kept with the erasure (the verifier's list).
            att.storage_key = ""
            _save(att, "filename", "sha256", "scan_signature", "declared_content_type", "storage_key")
            counts["intake_attachment"] += 1
        counts["intake_verification_run"] = _scrub_verification_runs(set(attachment_ids))
        for att_id in attachment_ids:
            audit_api.audit_personal_erase(object_type="attachment", object_id=att_id)
    return {"counts": counts, "blobs_deleted": blobs_deleted, "purged_blobs": purged, "raw_intake_ids": raw_ids}


def _scrub_verification_runs(ids: set[int]) -> int:
    """The lost-document detector's stored lists name documents by file name: blank them."""
    changed = 0
    for run in VerificationRun.objects.filter(lost_count__gt=0).only("pk", "lost"):
        lost = [
            {**d, "filename": ERASED} if d.get("attachment_id") in ids and d.get("filename") != ERASED else d
            for d in run.lost or []
        ]
        if lost != run.lost:
            VerificationRun.objects.filter(pk=run.pk).update(lost=lost)
            changed += 1
    return changed


def blobs_exist(*, keys: list[str]) -> list[str]:
    """Which of these `container/key` blobs still exist (the weekly purge verifier)."""
    store = adapters.blob_store()
    out = []
    for item in keys:
        container, _, key = item.partition("/")
        if store.exists(container, key):
            out.append(item)
    return out


def attachment_mark_erased_subject(*, attachment_id: int, erasure_id: int) -> bool:
    """A new document matched an erasure tombstone: `parsed -> erased_subject`, its text
    and bytes kept only until an admin re-admits the sender or the purge takes them."""
    att = _locked(attachment_id)
    if att is None or att.state != State.PARSED:
        return False
    _set_state(
        att,
        State.ERASED_SUBJECT,
        reason_code="erased_subject",
        reason=f"The sender's personal data was erased on request (erasure {erasure_id}); "
        "no candidate was created. An admin may re-admit the sender.",
    )
    _save(att)
    audit_api.audit_event_record(
        actor="system:retention",
        action="intake.erased_subject",
        object_type="attachment",
        object_id=att.pk,
        payload={"erasure_id": erasure_id},
    )
    return True


def attachment_readmit(*, attachment_id: int, actor_label: str, reason: str) -> None:
    """An admin re-admits a tombstoned sender: `erased_subject -> parsed` and the candidate
    step runs again, told to skip the tombstone check (payload `readmitted`)."""
    reason = (reason or "").strip()
    if not reason:
        raise ActionRefused("a reason is required to re-admit a document")
    with transaction.atomic():
        att = _locked(attachment_id)
        if att is None:
            raise LookupError(f"attachment {attachment_id} does not exist")
        if att.state != State.ERASED_SUBJECT or att.filename == ERASED:
            raise ActionRefused(
                f"attachment {attachment_id} is {att.state}; only a later document held back by a tombstone "
                "(not an erased one) can be re-admitted"
            )
        if not ParseAttempt.objects.filter(attachment=att, state=ParseAttemptState.SUCCEEDED).exists():
            raise ActionRefused(f"attachment {attachment_id} has no successful parse to create a candidate from")
        _set_state(att, State.PARSED)
        _save(att)
        job_id = jobs_api.defer(CANDIDATE, payload={"attachment_id": att.pk, "readmitted": True})
        audit_api.audit_event_record(
            actor=actor_label,
            action="intake.readmitted",
            object_type="attachment",
            object_id=att.pk,
            payload={"job_id": job_id},
            personal={"reason": reason},
        )


def held_back_documents(*, older_than: Any) -> list[int]:
    """Later documents of erased people (tombstone matches) still holding bytes and text,
    held back since before `older_than` and never re-admitted: the purge deletes them."""
    return list(
        Attachment.objects.filter(state=State.ERASED_SUBJECT, state_changed_at__lt=older_than)
        .exclude(filename=ERASED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
