"""Erasure and subject access for the candidates module (called by ats.retention).

A subject is a candidate plus every candidate merged into it (the same person, frozen
by the merge journal). Erasure keeps each candidate row with status `erased` and no
personal data (ids stay valid for other modules' references), and removes fields,
extraction versions (they hold provenance text), proposed changes, match signals,
duplicate pairs, document links and the merge journals' snapshots; a journal whose
snapshot is erased can no longer be undone (`candidate_unmerge` refuses).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction
from django.db.models import Q

from ats.audit import api as audit_api
from ats.candidates import fields as F
from ats.candidates.models import (
    Candidate,
    CandidateDocument,
    CandidateField,
    CandidateMerge,
    CandidateSignal,
    CandidateStatus,
    DuplicatePair,
    ExtractionRecord,
    ProposedChange,
)
from ats.candidates.selectors import candidate_current_id
from ats.candidates.services import lock_candidates

ERASED_SNAPSHOT_KEY = "erased_by"


@dataclasses.dataclass(frozen=True)
class Subject:
    candidate_id: int  # the candidate holding the documents now
    candidate_ids: list[int]  # it and every candidate merged into it
    attachment_ids: list[int]  # their documents (CandidateDocument, extraction records)
    emails: list[str]
    phones: list[str]
    names: list[str]
    status: str


def _merged_into(root: int) -> list[int]:
    ids = {root}
    frontier = {root}
    while frontier:
        frontier = set(Candidate.objects.filter(merged_into_id__in=frontier).values_list("pk", flat=True)) - ids
        ids |= frontier
    return sorted(ids)


def candidate_subject(*, candidate_id: int) -> Subject | None:
    """Who candidate `candidate_id` is, across merges, with the identifiers to tombstone."""
    if not Candidate.objects.filter(pk=candidate_id).exists():
        return None
    root = candidate_current_id(candidate_id)
    ids = _merged_into(root)
    attachments = set(CandidateDocument.objects.filter(candidate_id__in=ids).values_list("attachment_id", flat=True))
    emails: set[str] = set()
    phones: set[str] = set()
    names: set[str] = set()

    def take(values: dict[str, list[Any]]) -> None:
        emails.update(str(v).strip().lower() for v in values.get("emails", []) if v)
        phones.update(str(v).strip() for v in values.get("phones", []) if v)
        names.update(str(v).strip() for v in values.get("name", []) if v)

    for row in CandidateField.objects.filter(candidate_id__in=ids):
        take({row.field: [v.get("value") for v in row.values or []]})
    for rec in ExtractionRecord.objects.filter(attachment_id__in=attachments):
        fields = (rec.data or {}).get("fields", {})
        take({k: [v.get("value") for v in fields.get(k, [])] for k in ("emails", "phones", "name")})
        emails.update(str(e).strip().lower() for e in (rec.data or {}).get("contact_emails", []) if e)
    for c in Candidate.objects.filter(pk__in=ids):
        if c.email:
            emails.add(c.email.strip().lower())
        if c.display_name:
            names.add(c.display_name.strip())
    status = Candidate.objects.filter(pk=root).values_list("status", flat=True).first() or ""
    return Subject(root, ids, sorted(attachments), sorted(emails), sorted(phones), sorted(names), status)


def _pairs(ids: list[int]) -> Any:
    return DuplicatePair.objects.filter(Q(candidate_low_id__in=ids) | Q(candidate_high_id__in=ids))


def _merges(ids: list[int]) -> Any:
    return CandidateMerge.objects.filter(Q(survivor_id__in=ids) | Q(merged_id__in=ids))


def candidate_personal_rows(*, candidate_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """Every candidates-module row about these candidates, column for column."""
    attachments = list(
        CandidateDocument.objects.filter(candidate_id__in=candidate_ids).values_list("attachment_id", flat=True)
    )
    return {
        "candidates_candidate": [dict(r) for r in Candidate.objects.filter(pk__in=candidate_ids).values()],
        "candidates_field": [dict(r) for r in CandidateField.objects.filter(candidate_id__in=candidate_ids).values()],
        "candidates_document": [
            dict(r) for r in CandidateDocument.objects.filter(candidate_id__in=candidate_ids).values()
        ],
        "candidates_extraction": [
            dict(r) for r in ExtractionRecord.objects.filter(attachment_id__in=attachments).values()
        ],
        "candidates_proposed_change": [
            dict(r) for r in ProposedChange.objects.filter(candidate_id__in=candidate_ids).values()
        ],
        "candidates_signal": [dict(r) for r in CandidateSignal.objects.filter(candidate_id__in=candidate_ids).values()],
        "candidate_duplicate_pair": [dict(r) for r in _pairs(candidate_ids).values()],
        "candidates_merge": [dict(r) for r in _merges(candidate_ids).values()],
    }


def candidate_erase_personal(*, candidate_ids: list[int], attachment_ids: list[int], erasure_id: int) -> dict[str, int]:
    """Erase the personal data of these candidates (one subject); idempotent, in the
    caller's transaction. Returns rows changed per table."""
    counts: dict[str, int] = {}
    with transaction.atomic():
        rows = lock_candidates(*candidate_ids)
        counts["candidates_proposed_change"] = ProposedChange.objects.filter(candidate_id__in=candidate_ids).delete()[0]
        counts["candidates_field"] = CandidateField.objects.filter(candidate_id__in=candidate_ids).delete()[0]
        counts["candidates_signal"] = CandidateSignal.objects.filter(candidate_id__in=candidate_ids).delete()[0]
        counts["candidate_duplicate_pair"] = _pairs(candidate_ids).delete()[0]
        counts["candidates_extraction"] = ExtractionRecord.objects.filter(attachment_id__in=attachment_ids).delete()[0]
        counts["candidates_document"] = CandidateDocument.objects.filter(candidate_id__in=candidate_ids).delete()[0]
        counts["candidates_merge"] = (
            _merges(candidate_ids)
            .exclude(snapshot__has_key=ERASED_SNAPSHOT_KEY)
            .update(snapshot={ERASED_SNAPSHOT_KEY: erasure_id}, reason="")
        )
        changed = 0
        for c in rows.values():
            if c.status == CandidateStatus.ERASED and not (c.display_name or c.email or c.document_text):
                continue
            c.status = CandidateStatus.ERASED
            c.display_name = ""
            c.email = ""
            c.document_text = ""
            c.revision += 1
            c.save()
            changed += 1
        counts["candidates_candidate"] = changed
        for cid in candidate_ids:
            audit_api.audit_personal_erase(object_type="candidate", object_id=cid)
    return counts


def normalise_phone(value: str) -> str:
    return F.normalise_phone(value)
