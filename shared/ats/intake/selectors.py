"""Reads of the intake module, including the lost-document detector."""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from ats.intake.models import Attachment, ParseAttempt, ParseAttemptState, ParseResult, RawIntake, VerificationRun
from ats.intake.states import INFO, WAITING, State, is_terminal
from ats.jobs import api as jobs_api


@dataclasses.dataclass(frozen=True)
class ParsedDocument:
    attachment_id: int
    filename: str
    text: str
    # The validated parse answer (text, blocks, paragraphs, tables...) and its attempt number:
    # the extractor's input and the provenance of every value it finds.
    parse_attempt: int = 0
    result: dict[str, Any] = dataclasses.field(default_factory=dict)


def parsed_document_for_update(*, attachment_id: int) -> ParsedDocument | None:
    """Lock a `parsed` attachment and return its latest successful parse, else None."""
    att = Attachment.objects.select_for_update().filter(pk=attachment_id, state=State.PARSED).first()
    if att is None:
        return None
    attempt = (
        ParseAttempt.objects.filter(attachment=att, state=ParseAttemptState.SUCCEEDED).order_by("-attempt_no").first()
    )
    if attempt is None:
        return None
    return ParsedDocument(
        attachment_id=att.pk,
        filename=att.filename,
        text=attempt.text,
        parse_attempt=attempt.attempt_no,
        result={**(attempt.result or {}), "text": attempt.text},
    )


def _original_of(att: Attachment) -> Attachment | None:
    """The document a byte-identical duplicate repeats (the chain ends at a non-duplicate)."""
    original = att
    for _ in range(10):
        if original.duplicate_of_id is None:
            break
        original = Attachment.objects.get(pk=original.duplicate_of_id)
    return original if original.pk != att.pk else None


def attachment_status(att: Attachment) -> dict[str, Any]:
    candidate_id = att.candidate_id
    awaiting_original = False
    if att.state == State.DUPLICATE and (original := _original_of(att)) is not None:
        # A byte-identical duplicate is not read again: it reports its original's candidate,
        # and a caller waiting for it waits for the original to settle.
        candidate_id = original.candidate_id
        awaiting_original = not is_terminal(original.state)
    return {
        "attachment_id": att.pk,
        "raw_intake_id": att.raw_intake_id,
        "filename": att.filename,
        "state": att.state,
        "state_label": INFO[State(att.state)].label,
        "terminal": is_terminal(att.state),
        "reason_code": att.reason_code or None,
        "reason": att.reason or None,
        "action": INFO[State(att.state)].action,
        "detected_type": att.detected_type or None,
        "virus_scan_status": att.virus_scan_status,
        "scan_signature": att.scan_signature or None,
        "candidate_id": candidate_id,
        "duplicate_of": att.duplicate_of_id,
        "awaiting_original": awaiting_original,
    }


def document_requisitions(*, attachment_id: int) -> list[tuple[int, int]]:
    """(attachment_id, requisition_id) for every requisition this document was sent for:
    its own raw intake's, and those of its byte-identical duplicates (routing recorded in
    the raw intake's metadata at receipt)."""
    rows = Attachment.objects.filter(Q(pk=attachment_id) | Q(duplicate_of_id=attachment_id)).order_by("pk")
    out: list[tuple[int, int]] = []
    for pk, meta in rows.values_list("pk", "raw_intake__metadata"):
        req = (meta or {}).get("requisition_id")
        if req:
            out.append((int(pk), int(req)))
    return out


def original_candidate_for_update(*, attachment_id: int) -> tuple[int, int | None] | None:
    """For a byte-identical duplicate: lock its original and return (original id, its
    candidate id or None while it has none). None when the document is not a duplicate."""
    att = Attachment.objects.filter(pk=attachment_id).only("duplicate_of_id").first()
    if att is None or att.duplicate_of_id is None:
        return None
    original = Attachment.objects.select_for_update().only("pk", "candidate_id").get(pk=att.duplicate_of_id)
    return original.pk, original.candidate_id


def raw_intake_attachments(raw_intake_id: int) -> list[Attachment]:
    return list(Attachment.objects.filter(raw_intake_id=raw_intake_id).order_by("pk"))


def raw_intake_get(raw_intake_id: int) -> RawIntake | None:
    return RawIntake.objects.filter(pk=raw_intake_id).first()


@dataclasses.dataclass(frozen=True)
class LostDocument:
    attachment_id: int
    filename: str
    state: str
    why: str

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def lost_documents() -> list[LostDocument]:
    """Every document that is neither terminal nor backed by a live job.

    Safe = terminal state, or a `todo` job of the task its state waits for, or such a job
    `doing` on a worker whose heartbeat is live. Everything else is reported, with why.

    Documents and jobs are read in one snapshot (REPEATABLE READ): read in two, a document
    that moved on between the reads would look lost (its old state's job done, its new
    state not yet seen).
    """
    if connection.in_atomic_block:
        return _lost_documents()  # the caller's transaction decides the snapshot
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return _lost_documents()


def _lost_documents() -> list[LostDocument]:
    waiting = list(Attachment.objects.filter(state__in=[s.value for s in WAITING]).only("pk", "filename", "state"))
    ids = [a.pk for a in waiting]
    jobs = jobs_api.jobs_by_payload_key("attachment_id", ids)
    # Apply jobs carry the result row's id; map them back to their attachments.
    results = dict(ParseResult.objects.filter(attachment_id__in=ids).values_list("pk", "attachment_id"))
    for result_id, refs in jobs_api.jobs_by_payload_key("parse_result_id", list(results)).items():
        jobs.setdefault(results[result_id], []).extend(refs)
    stalled_after = jobs_api.stalled_after_s()
    lost: list[LostDocument] = []
    for att in waiting:
        expected = INFO[State(att.state)].waits_for
        mine = sorted((j for j in jobs.get(att.pk, []) if j.task_name in expected), key=lambda j: -j.id)
        if any(j.is_backing(stalled_after) for j in mine):
            continue
        if not mine:
            why = f"state {att.state} waits for {' or '.join(expected)} but no such job exists"
        else:
            latest = mine[0]
            if latest.status == "doing":
                age = "never" if latest.heartbeat_age_s is None else f"{latest.heartbeat_age_s:.0f} s ago"
                why = f"job {latest.id} is doing but its worker's last heartbeat was {age}"
            else:
                why = f"job {latest.id} is {latest.status} but the document's state {att.state} was never resolved"
        lost.append(LostDocument(att.pk, att.filename, att.state, why))
    return lost


@dataclasses.dataclass(frozen=True)
class VerificationSummary:
    lost_count: int
    age_s: float


def latest_verification() -> VerificationSummary | None:
    run = VerificationRun.objects.order_by("-ran_at").first()
    if run is None:
        return None
    return VerificationSummary(run.lost_count, (timezone.now() - run.ran_at).total_seconds())


def state_counts() -> dict[str, int]:
    return {r["state"]: r["n"] for r in Attachment.objects.values("state").annotate(n=Count("pk")).order_by("state")}
