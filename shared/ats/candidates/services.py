"""Writes of the candidates module (`<entity>_<action>(*, ...)`).

Locking rule, everywhere in this module: candidate rows are locked with one
`SELECT ... WHERE id IN (...) ORDER BY id FOR UPDATE`, so any two writers that need the
same two candidates (merge A into B and B into A, dedupe of A and of B) queue up in the
same order and cannot deadlock or cross. Writers that move documents (merge, unmerge,
the pair writer that may auto-merge) first lock those documents' intake rows, the order
the candidate task uses (document, then candidate).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ats.audit import api as audit_api
from ats.candidates import dedupe as dedupe_rules
from ats.candidates import fields as F
from ats.candidates import hooks
from ats.candidates.data import CandidateRef, DecidedChange, MergeRecord
from ats.candidates.models import (
    PAIR_UNIQUE,
    PINNED_SOURCES,
    Candidate,
    CandidateDocument,
    CandidateField,
    CandidateMerge,
    CandidateSignal,
    CandidateStatus,
    ChangeStatus,
    DuplicatePair,
    ExtractionRecord,
    FieldSource,
    PairKind,
    PairStatus,
    ProposedChange,
)
from ats.candidates.selectors import NotAllowed
from ats.config import checkpoints
from ats.errors import AtsError
from ats.extraction.data import Extraction
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api

logger = logging.getLogger(__name__)

DEDUPE = "candidates.dedupe"
# Identity and contact fields an automatic merge never overwrites (issue 21 N3).
KEPT_ON_AUTO_MERGE = frozenset({"name", "emails", "phones"})
SYSTEM_DEDUPE = iam_api.SystemActor("system:dedupe")


class CandidateError(AtsError):
    """Base of the errors the candidates module raises on purpose."""


# Keeps its builtin base (ValueError) so every `except ValueError` still catches it.
class CandidateNotActive(CandidateError, ValueError):
    """The candidate was merged away or erased (a state race, not a bug)."""


def _authorize(actor: Any, action: str) -> None:
    if not iam_api.can(actor, action):
        raise NotAllowed(f"{iam_api.actor_label(actor)} may not {action}")


def lock_candidates(*ids: int) -> dict[int, Candidate]:
    """Lock the rows in id order (the module's one lock order). Missing ids are absent."""
    return {c.pk: c for c in Candidate.objects.select_for_update().filter(pk__in=sorted(set(ids))).order_by("pk")}


def lock_with_documents(*ids: int) -> dict[int, Candidate]:
    """Lock the candidates' documents (intake rows), then the candidates, each in id order.

    Documents before candidates is the order of the candidate task (it holds its
    document while it updates the candidate), so a merge and a re-parse never deadlock.
    """
    for _ in range(5):
        docs = set(CandidateDocument.objects.filter(candidate_id__in=ids).values_list("attachment_id", flat=True))
        intake_api.attachments_lock(attachment_ids=sorted(docs))
        rows = lock_candidates(*ids)
        # With the candidates locked no merge can move documents in or out any more.
        if set(CandidateDocument.objects.filter(candidate_id__in=ids).values_list("attachment_id", flat=True)) == docs:
            return rows
    raise RuntimeError(f"documents of candidates {sorted(ids)} kept moving; retry")


# --- documents and extraction versions --------------------------------------------


def candidate_apply_document(
    *,
    attachment_id: int,
    parse_attempt: int,
    extraction: Extraction,
    text: str = "",
    has_candidate: bool | None = None,
    classify: bool = False,
) -> CandidateRef | None:
    """Record one parse attempt's extraction for its document and refresh the candidate.

    A new document makes a new candidate (dedupe then pairs or merges it); a re-parse of a
    known document adds an extraction version to the candidate that holds the document.
    Idempotent per (attachment, parse attempt). Returns the candidate's id and name (the
    candidate step marks the document with it), None for an erased candidate.

    `has_candidate`: the caller's document_has_candidate() answer, read in this same
    transaction under the document's row lock (the candidate step's): False skips reading
    it again (issue 26). A document another transaction linked meanwhile still cannot be
    linked twice: the link is unique per document, the insert fails and the step retries.
    `classify`: also what document_set_kind(text, has_identity=True) does, written with
    the link a new document gets (issue 26: one UPDATE fewer), else after the refresh.
    """
    # No savepoint inside the candidate step's transaction (issue 26: round trips per
    # document); the step's own savepoint (ats.pipeline.tasks) is what a failure undoes.
    with transaction.atomic(savepoint=False):
        candidate = None if has_candidate is False else _document_owner_locked(attachment_id)
        fresh = candidate is None
        guess = _guess_kind(text, has_identity=True) if classify else None
        if candidate is None:
            # A new candidate's first extraction is its version 1; the record names no
            # candidate, so it goes in first and the candidate row can be inserted whole.
            record, created = _extraction_record(
                attachment_id=attachment_id, parse_attempt=parse_attempt, extraction=extraction, candidate_version=1
            )
            if created:
                return _first_document_candidate(attachment_id, record, text=text, guess=guess)
            candidate = Candidate.objects.create()
            CandidateDocument.objects.create(candidate=candidate, attachment_id=attachment_id, **_kind_fields(guess))
        elif candidate.status != CandidateStatus.ACTIVE:
            # Documents move to the survivor on merge, so only erasure lands here.
            logger.info("document %s belongs to %s candidate %s: no-op", attachment_id, candidate.status, candidate.pk)
            return None
        else:
            record, created = _extraction_record(
                attachment_id=attachment_id,
                parse_attempt=parse_attempt,
                extraction=extraction,
                candidate_version=candidate.extraction_version + 1,
            )
        if created:
            candidate.extraction_version = record.candidate_version
        if text:
            candidate.document_text = text
        # A document whose extraction was kept earlier (it waited for details) takes the
        # reading path, as a known candidate does.
        _recompute(candidate, new_record=record if created else None)
        if guess is not None and not fresh:
            CandidateDocument.objects.filter(attachment_id=attachment_id).update(**_kind_fields(guess))
        jobs_api.defer(DEDUPE, payload={"candidate_id": candidate.pk})
        return CandidateRef(id=candidate.pk, display_name=candidate.display_name, created=fresh)


def _first_document_candidate(attachment_id: int, record: ExtractionRecord, *, text: str, guess: Any) -> CandidateRef:
    """The new candidate of a document seen for the first time, inserted whole (h50perf):
    the candidate row carries the mirror columns, version and revision that _recompute and
    _refresh wrote into it by a second statement (Candidate.objects.create(), then a full
    UPDATE), then its link, fields and signals - one round trip and one dead row version
    fewer per new candidate, the same rows. `record`: its extraction, just inserted."""
    derived = _derived(0, [record])  # from `record` alone: nothing is read
    values = {name: derived[name] for name in F.ALL_FIELDS if derived.get(name)}
    candidate = Candidate(extraction_version=record.candidate_version, document_text=text or "")
    _mirror(candidate, values)
    candidate.save(force_insert=True)
    CandidateDocument.objects.create(candidate=candidate, attachment_id=attachment_id, **_kind_fields(guess))
    _insert_fields(candidate.pk, values)
    _index_and_signals(candidate, values, fresh=True)
    jobs_api.defer(DEDUPE, payload={"candidate_id": candidate.pk})
    return CandidateRef(id=candidate.pk, display_name=candidate.display_name, created=True)


def _insert_fields(candidate_id: int, values: dict[str, Any]) -> None:
    """A new candidate's fields, one row each, in one statement with one JSON parameter.

    Issue 26: bulk_create sent the `values` as a jsonb[] array in text form, and psycopg
    escapes every double quote of every element with a Python callback - ~1,800 quotes
    (values with their provenance) and ~1 ms of the apply hop's CPU on a real CV; one
    json.dumps is ~0.2 ms. The same rows (the model's defaults for the other columns), in
    the same order."""
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO candidates_field (candidate_id, field, values, source, edited_by, edited_at)"
            " SELECT %s, e.item->>0, e.item->1, %s, '', NULL"
            " FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS e(item, n) ORDER BY e.n",
            [candidate_id, FieldSource.EXTRACTION.value, json.dumps([[name, v] for name, v in values.items()])],
        )


def _kind_fields(guess: Any) -> dict[str, Any]:
    if guess is None:
        return {}
    return {"kind": guess.kind, "kind_confidence": guess.confidence, "kind_evidence": guess.evidence}


def _extraction_record(
    *, attachment_id: int, parse_attempt: int, extraction: Extraction, candidate_version: int = 0
) -> tuple[ExtractionRecord, bool]:
    """The (document, parse attempt)'s extraction record, inserted if new; (record, created).

    One INSERT ... ON CONFLICT DO NOTHING RETURNING (issue 26): get_or_create took a
    SELECT, a SAVEPOINT, the INSERT and a RELEASE, and the candidate step then an UPDATE
    for the version it became - five round trips for one row, now one. A redelivered job
    (the row exists) reads it back: the rare path.
    """
    data = extraction.to_dict()
    version = extraction.extractor_version[:64]
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO candidates_extraction"
            " (attachment_id, parse_attempt, extractor_version, data, candidate_version, created_at)"
            " VALUES (%s, %s, %s, %s::jsonb, %s, now())"
            " ON CONFLICT (attachment_id, parse_attempt) DO NOTHING RETURNING id, created_at",
            [attachment_id, parse_attempt, version, json.dumps(data), candidate_version],
        )
        row = cur.fetchone()
    if row is None:
        return ExtractionRecord.objects.get(attachment_id=attachment_id, parse_attempt=parse_attempt), False
    record = ExtractionRecord(
        id=row[0],
        attachment_id=attachment_id,
        parse_attempt=parse_attempt,
        extractor_version=version,
        data=data,
        candidate_version=candidate_version,
        created_at=row[1],
    )
    record._state.adding = False  # a stored row, as get_or_create would hand it out
    record._state.db = "default"
    return record, True


def document_has_candidate(*, attachment_id: int) -> bool:
    # Written out (issue 26): the candidate step asks it of every document (stop 48).
    with connection.cursor() as cur:
        cur.execute('SELECT 1 FROM "candidates_document" WHERE "attachment_id" = %s LIMIT 1', [attachment_id])
        return cur.fetchone() is not None


def _document_owner_locked(attachment_id: int) -> Candidate | None:
    """The candidate holding the document, locked; None for a new document.

    Read, lock, read again: a merge that moves the document to its survivor between the
    first read and the lock would otherwise leave us holding the merged-away candidate.
    """
    for _ in range(5):
        owner = CandidateDocument.objects.filter(attachment_id=attachment_id).values_list("candidate_id", flat=True)
        candidate_id = next(iter(owner), None)
        if candidate_id is None:
            return None
        candidate = lock_candidates(candidate_id)[candidate_id]
        if CandidateDocument.objects.filter(attachment_id=attachment_id, candidate_id=candidate_id).exists():
            return candidate
    raise RuntimeError(f"document {attachment_id} kept moving between candidates; retrying the job")


def _newest_records(candidate_id: int) -> list[ExtractionRecord]:
    """Each document's newest extraction, newest-applied document first."""
    att_ids = list(CandidateDocument.objects.filter(candidate_id=candidate_id).values_list("attachment_id", flat=True))
    newest: dict[int, ExtractionRecord] = {}
    for rec in ExtractionRecord.objects.filter(attachment_id__in=att_ids).order_by("attachment_id", "-parse_attempt"):
        newest.setdefault(rec.attachment_id, rec)
    return sorted(newest.values(), key=lambda r: -r.pk)


def _derived(candidate_id: int, records: list[ExtractionRecord] | None = None) -> dict[str, list[dict[str, Any]]]:
    return F.derive(
        [
            F.record_values(r.data, attachment_id=r.attachment_id, parse_attempt=r.parse_attempt)
            for r in (_newest_records(candidate_id) if records is None else records)
        ]
    )


def _recompute(
    candidate: Candidate,
    *,
    new_record: ExtractionRecord | None = None,
    keep: frozenset[str] = frozenset(),
    keep_actor: str = "",
) -> None:
    """Unedited fields follow the documents' newest parses; edited ones stay, and a new
    extraction that disagrees with an edit becomes a proposed change.

    `keep` (an automatic merge): these fields, where the candidate already has them, are
    pinned from now on (`source = kept`) and what the new documents say about them becomes
    a proposed change - document content never replaces existing contact data (N3).

    A candidate made for a document seen for the first time does not come here: it is
    inserted whole (_first_document_candidate)."""
    derived = _derived(candidate.pk)
    current = {f.field: f for f in CandidateField.objects.filter(candidate=candidate)}
    after = {name: row.values for name, row in current.items()}
    added: list[CandidateField] = []
    for name in F.ALL_FIELDS:
        new_values = derived.get(name, [])
        row = current.get(name)
        if row is not None and row.source == FieldSource.EXTRACTION and name in keep and row.values:
            row.source = FieldSource.KEPT
            row.edited_by = keep_actor
            row.edited_at = timezone.now()
            row.save(update_fields=["source", "edited_by", "edited_at"])
        if row is not None and row.source in PINNED_SOURCES:
            record = new_record or (_newest_record_for(candidate.pk) if name in keep else None)
            if record is not None and new_values and F.keys(new_values) != F.keys(row.values):
                _propose(candidate, name, new_values, record)
            continue
        if new_values:
            if row is None:
                added.append(CandidateField(candidate=candidate, field=name, values=new_values))
            elif row.values != new_values:
                row.values = new_values
                row.save(update_fields=["values"])
            after[name] = new_values
        elif row is not None:
            row.delete()
            after.pop(name, None)
    # One INSERT for a new document's fields (was one per field), and the refresh below
    # uses the values just written instead of reading them back.
    CandidateField.objects.bulk_create(added)
    _refresh(candidate, values=after)


def _newest_record_for(candidate_id: int) -> ExtractionRecord | None:
    """The newest extraction among the candidate's documents (a merge's proposals cite it)."""
    records = _newest_records(candidate_id)
    return records[0] if records else None


def _propose(candidate: Candidate, name: str, values: list[dict[str, Any]], record: ExtractionRecord) -> None:
    new_keys = F.keys(values)
    earlier = ProposedChange.objects.filter(candidate=candidate, field=name).exclude(status=ChangeStatus.SUPERSEDED)
    for change in earlier:
        if F.keys(change.values) == new_keys and change.status in (ChangeStatus.OPEN, ChangeStatus.DISMISSED):
            return  # already proposed, or the recruiter already said no to exactly this
    ProposedChange.objects.filter(candidate=candidate, field=name, status=ChangeStatus.OPEN).update(
        status=ChangeStatus.SUPERSEDED
    )
    ProposedChange.objects.create(candidate=candidate, field=name, values=values, extraction=record)


def _current_values(candidate_id: int) -> dict[str, list[dict[str, Any]]]:
    return {f.field: f.values for f in CandidateField.objects.filter(candidate_id=candidate_id)}


def _refresh(candidate: Candidate, *, values: dict[str, list[dict[str, Any]]] | None = None) -> None:
    """Mirror columns, the dedupe index and the revision after any field/document change.

    `values`: the candidate's fields as just written (read from the table when None).
    """
    if values is None:
        values = _current_values(candidate.pk)
    _mirror(candidate, values)
    candidate.save()
    _index_and_signals(candidate, values, fresh=False)


def _mirror(candidate: Candidate, values: dict[str, list[dict[str, Any]]]) -> None:
    """The listing columns follow the fields; every change bumps the revision."""
    names = values.get("name") or []
    emails = values.get("emails") or []
    candidate.display_name = str(names[0]["value"])[:255] if names else ""
    candidate.email = str(emails[0]["value"])[:320] if emails else ""
    candidate.revision += 1


def _index_and_signals(candidate: Candidate, values: dict[str, list[dict[str, Any]]], *, fresh: bool) -> None:
    """`fresh`: inserted in this transaction, so it has no signals to delete."""
    # The full-text index follows in a job deferred in this same transaction. Imported
    # here: the search module reads candidates through this module's facade.
    from ats.search import api as search_api

    search_api.search_reindex(kind="candidate", object_id=candidate.pk)
    if not fresh:
        CandidateSignal.objects.filter(candidate=candidate).delete()
    if candidate.status == CandidateStatus.ACTIVE:
        CandidateSignal.objects.bulk_create(
            [CandidateSignal(candidate=candidate, kind=k, value=v) for k, v in sorted(F.signals(values))]
        )


# --- recruiter edits and proposed changes -----------------------------------------


def _recruiter_values(name: str, values: list[Any], actor: Any, *, raw: str) -> list[dict[str, Any]]:
    label = iam_api.actor_label(actor)
    return [
        {
            "value": v,
            "sources": [
                {
                    **F.provenance(
                        {"text": raw, "rule": "recruiter.edit"}, attachment_id=None, parse_attempt=None, version=None
                    ),
                    "edited_by": label,
                }
            ],
        }
        for v in values
    ]


def candidate_edit_field(*, candidate_id: int, field: str, value: str, actor: Any) -> None:
    """Set a field by hand; it is recruiter-edited from now on (never overwritten by a parse).
    Answers nothing: the page and `ats candidate edit` read the field back through
    `candidate_detail`, as shown (normalised), not as stored."""
    _authorize(actor, "candidate.edit")
    if field not in F.ALL_FIELDS:
        raise ValueError(f"unknown field {field!r}; one of {', '.join(F.ALL_FIELDS)}")
    parsed = F.parse_edit(field, value)
    with transaction.atomic():
        candidate = _active(candidate_id)
        row, _ = CandidateField.objects.get_or_create(candidate=candidate, field=field)
        row.values = _recruiter_values(field, parsed, actor, raw=value)
        row.source = FieldSource.RECRUITER
        row.edited_by = iam_api.actor_label(actor)
        row.edited_at = timezone.now()
        row.save()
        # The recruiter decided this field: proposals made before the edit are moot.
        ProposedChange.objects.filter(candidate=candidate, field=field, status=ChangeStatus.OPEN).update(
            status=ChangeStatus.SUPERSEDED
        )
        _refresh(candidate)
        # The value is personal (a name, an e-mail): erasable side table, never the chain.
        _audit(actor, "candidate.field_edited", candidate.pk, {"field": field}, personal={"value": parsed})
        jobs_api.defer(DEDUPE, payload={"candidate_id": candidate.pk})


def _decide(change_id: int, actor: Any) -> tuple[Candidate, ProposedChange]:
    change = ProposedChange.objects.filter(pk=change_id).first()
    if change is None:
        raise LookupError(f"proposed change {change_id} does not exist")
    candidate = _active(change.candidate_id)
    change = ProposedChange.objects.select_for_update().get(pk=change_id)
    if change.status != ChangeStatus.OPEN:
        raise ValueError(f"proposed change {change_id} is already {change.status}")
    change.decided_by = iam_api.actor_label(actor)
    change.decided_at = timezone.now()
    return candidate, change


def candidate_accept_change(*, change_id: int, actor: Any) -> DecidedChange:
    """Take a proposed value. The field stays recruiter-decided (pinned), now with the
    extraction's value and provenance."""
    _authorize(actor, "candidate.edit")
    with transaction.atomic():
        candidate, change = _decide(change_id, actor)
        change.status = ChangeStatus.ACCEPTED
        change.save()
        row, _ = CandidateField.objects.get_or_create(candidate=candidate, field=change.field)
        row.values = change.values
        row.source = FieldSource.RECRUITER
        row.edited_by = change.decided_by
        row.edited_at = change.decided_at
        row.save()
        _refresh(candidate)
        _audit(actor, "candidate.change_accepted", candidate.pk, {"change_id": change.pk, "field": change.field})
        jobs_api.defer(DEDUPE, payload={"candidate_id": candidate.pk})
        return DecidedChange(change_id=change.pk, candidate_id=candidate.pk, field=row.field, status=change.status)


def candidate_dismiss_change(*, change_id: int, actor: Any) -> DecidedChange:
    """Keep the recruiter's value; the same proposal is not made again."""
    _authorize(actor, "candidate.edit")
    with transaction.atomic():
        candidate, change = _decide(change_id, actor)
        change.status = ChangeStatus.DISMISSED
        change.save()
        _audit(actor, "candidate.change_dismissed", candidate.pk, {"change_id": change.pk, "field": change.field})
        return DecidedChange(change_id=change.pk, candidate_id=candidate.pk, field=change.field, status=change.status)


def _active(candidate_id: int) -> Candidate:
    candidate = lock_candidates(candidate_id).get(candidate_id)
    if candidate is None:
        raise LookupError(f"candidate {candidate_id} does not exist")
    if candidate.status != CandidateStatus.ACTIVE:
        hint = f" into {candidate.merged_into_id}" if candidate.merged_into_id else ""
        raise CandidateNotActive(f"candidate {candidate_id} is {candidate.status}{hint}")
    return candidate


def _audit(
    actor: Any, action: str, candidate_id: int, payload: dict[str, Any], personal: dict[str, Any] | None = None
) -> None:
    audit_api.audit_event_record(
        actor=iam_api.actor_label(actor),
        action=action,
        object_type="candidate",
        object_id=candidate_id,
        payload=payload,
        personal=personal,
    )


# --- merge journal ----------------------------------------------------------------

# Rows a merge may change, per table: (table, SQL condition over the two ids). Unmerge
# deletes the current rows matching the condition and re-inserts the snapshot.
_SNAPSHOT_TABLES = (
    ("candidates_field", "candidate_id = ANY(%s)"),
    ("candidates_document", "candidate_id = ANY(%s)"),
    ("candidates_signal", "candidate_id = ANY(%s)"),
    ("candidates_proposed_change", "candidate_id = ANY(%s)"),
    ("candidate_duplicate_pair", "(candidate_low_id = ANY(%s) OR candidate_high_id = ANY(%s))"),
)


def _json(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str | bytes) else raw


def _snapshot(ids: list[int]) -> dict[str, Any]:
    """Every row of both candidates, column for column (to_jsonb keeps exact timestamps)."""
    snap: dict[str, Any] = {}
    tables = (("candidates_candidate", "id = ANY(%s)"), *_SNAPSHOT_TABLES)
    with connection.cursor() as cur:
        for table, cond in tables:
            cur.execute(
                f"SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY t.id), '[]') FROM {table} t WHERE {cond}",
                [ids] * cond.count("%s"),
            )
            snap[table] = _json(cur.fetchone()[0])
    return snap


def _restore(snap: dict[str, Any], ids: list[int]) -> None:
    with connection.cursor() as cur:
        for table, cond in reversed(_SNAPSHOT_TABLES):
            cur.execute(f"DELETE FROM {table} WHERE {cond}", [ids] * cond.count("%s"))
        cols = [str(c.column) for c in Candidate._meta.concrete_fields if c.column != "id"]
        cur.execute(
            f"UPDATE candidates_candidate c SET ({', '.join(cols)}) = ({', '.join('r.' + c for c in cols)})"
            " FROM jsonb_populate_recordset(NULL::candidates_candidate, %s::jsonb) r WHERE c.id = r.id",
            [json.dumps(snap["candidates_candidate"])],
        )
        for table, _ in _SNAPSHOT_TABLES:
            cur.execute(
                f"INSERT INTO {table} SELECT * FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb)",
                [json.dumps(snap[table])],
            )


def candidate_merge(
    *, survivor_id: int, merged_id: int, actor: Any, automatic: bool = False, reason: str = ""
) -> MergeRecord:
    """Merge `merged_id` into `survivor_id` (the survivor keeps its id). One journal entry.

    Documents move to the survivor, whose fields are re-derived over all documents; the
    survivor's edits win, the merged candidate's edits fill fields the survivor never
    edited. The pair between the two is marked merged; the merged candidate's other pairs
    are dropped (dedupe of the survivor finds them again). Raises CandidateNotActive when
    either side was merged away or erased meanwhile. Answers the journal entry's id and
    the two candidates (`candidate_unmerge` takes that id).
    """
    _authorize(actor, "candidate.merge")
    if survivor_id == merged_id:
        raise ValueError("a candidate cannot be merged into itself")
    with transaction.atomic():
        survivor, merged = _lock_active_pair(survivor_id, merged_id)
        checkpoints.reach("MERGE")  # both rows locked (the interleaving tests hold here)
        snap = _snapshot([survivor_id, merged_id])
        _move_documents_and_edits(survivor, merged)
        _settle_pairs(survivor_id, merged_id, merged=merged)
        merged.status = CandidateStatus.MERGED
        merged.merged_into = survivor
        merged.revision += 1
        merged.save()
        CandidateSignal.objects.filter(candidate=merged).delete()
        if merged.document_text and not survivor.document_text:
            survivor.document_text = merged.document_text
        # A recruiter's merge is their decision: fields are re-derived over all documents.
        # An automatic one rests on document content, so the survivor's contact data stays
        # and the merged-in values wait as proposed changes (issue 21 N3).
        if automatic:
            _recompute(survivor, keep=KEPT_ON_AUTO_MERGE, keep_actor=iam_api.actor_label(actor))
        else:
            _recompute(survivor)

        journal = CandidateMerge.objects.create(
            survivor=survivor,
            merged=merged,
            actor=iam_api.actor_label(actor),
            automatic=automatic,
            reason=reason,
            snapshot=snap,
            survivor_revision=survivor.revision,
        )
        _audit(
            actor,
            "candidate.merged",
            survivor.pk,
            {"merge_id": journal.pk, "merged": merged.pk, "automatic": automatic, "reason": reason},
        )
        jobs_api.defer(DEDUPE, payload={"candidate_id": survivor.pk})
        return _merge_record(journal)


def _lock_active_pair(survivor_id: int, merged_id: int) -> tuple[Candidate, Candidate]:
    """Both candidates and their documents locked; refused unless both are active."""
    rows = lock_with_documents(survivor_id, merged_id)
    for cid in (survivor_id, merged_id):
        if cid not in rows:
            raise LookupError(f"candidate {cid} does not exist")
        if rows[cid].status != CandidateStatus.ACTIVE:
            hint = f" into {rows[cid].merged_into_id}" if rows[cid].merged_into_id else ""
            raise CandidateNotActive(f"candidate {cid} is {rows[cid].status}{hint}")
    return rows[survivor_id], rows[merged_id]


def _move_documents_and_edits(survivor: Candidate, merged: Candidate) -> None:
    """The merged candidate's documents to the survivor, and its recruiter edits of fields
    the survivor's recruiters never edited."""
    moved = list(CandidateDocument.objects.filter(candidate=merged).values_list("attachment_id", flat=True))
    CandidateDocument.objects.filter(candidate=merged).update(candidate=survivor)
    # Intake's pointer follows, so every reader of a document sees who holds it now.
    intake_api.attachments_set_candidate(attachment_ids=moved, candidate_id=survivor.pk)
    survivor_edits = set(
        CandidateField.objects.filter(candidate=survivor, source=FieldSource.RECRUITER).values_list("field", flat=True)
    )
    for row in CandidateField.objects.filter(candidate=merged, source=FieldSource.RECRUITER):
        if row.field not in survivor_edits:
            CandidateField.objects.update_or_create(
                candidate=survivor,
                field=row.field,
                defaults={
                    "values": row.values,
                    "source": FieldSource.RECRUITER,
                    "edited_by": row.edited_by,
                    "edited_at": row.edited_at,
                },
            )


def _settle_pairs(survivor_id: int, merged_id: int, *, merged: Candidate) -> None:
    """The pair of the two is merged; the merged candidate's other pairs go (dedupe of the
    survivor finds them again)."""
    low, high = sorted((survivor_id, merged_id))
    DuplicatePair.objects.filter(candidate_low_id=low, candidate_high_id=high).update(status=PairStatus.MERGED)
    others = DuplicatePair.objects.filter(candidate_low=merged) | DuplicatePair.objects.filter(candidate_high=merged)
    others.exclude(candidate_low_id=low, candidate_high_id=high).delete()


def candidate_unmerge(*, merge_id: int, actor: Any) -> MergeRecord:
    """Undo a merge exactly: every row of both candidates as it was before the merge.

    Refused when the survivor changed after the merge (a new document, an edit, a later
    merge): restoring the snapshot would silently drop that change. Undo those first.
    """
    _authorize(actor, "candidate.merge")
    with transaction.atomic():
        journal = CandidateMerge.objects.select_for_update().filter(pk=merge_id).first()
        if journal is None:
            raise LookupError(f"merge {merge_id} does not exist")
        if journal.unmerged_at is not None:
            raise ValueError(f"merge {merge_id} was already undone at {journal.unmerged_at:%Y-%m-%d %H:%M:%S}")
        if isinstance(journal.snapshot, dict) and "erased_by" in journal.snapshot:
            # The snapshot held the person's rows; erasure emptied it, so nothing is left
            # to restore (candidates.erasure).
            raise ValueError(
                f"merge {merge_id} cannot be undone: the person was erased (erasure {journal.snapshot['erased_by']})"
            )
        rows = lock_with_documents(journal.survivor_id, journal.merged_id)
        survivor, merged = rows[journal.survivor_id], rows[journal.merged_id]
        if survivor.revision != journal.survivor_revision or survivor.status != CandidateStatus.ACTIVE:
            raise ValueError(
                f"candidate {survivor.pk} changed after merge {merge_id} (revision {survivor.revision}, "
                f"was {journal.survivor_revision}); undo its later changes or merges first"
            )
        if merged.status != CandidateStatus.MERGED or merged.merged_into_id != survivor.pk:
            raise ValueError(f"candidate {merged.pk} is no longer merged into {survivor.pk}")
        _restore(journal.snapshot, [survivor.pk, merged.pk])
        for cid in (survivor.pk, merged.pk):
            docs = list(CandidateDocument.objects.filter(candidate_id=cid).values_list("attachment_id", flat=True))
            intake_api.attachments_set_candidate(attachment_ids=docs, candidate_id=cid)
        journal.unmerged_at = timezone.now()
        journal.unmerged_by = iam_api.actor_label(actor)
        journal.save(update_fields=["unmerged_at", "unmerged_by"])
        _audit(actor, "candidate.unmerged", survivor.pk, {"merge_id": journal.pk, "restored": merged.pk})
        # The restore also dropped pairs found after the merge (e.g. survivor-C): look again.
        # Never re-merges these two automatically (the journal remembers the unmerge).
        for cid in (survivor.pk, merged.pk):
            jobs_api.defer(DEDUPE, payload={"candidate_id": cid})
        return _merge_record(journal)


def _merge_record(journal: CandidateMerge) -> MergeRecord:
    return MergeRecord(id=journal.pk, survivor_id=journal.survivor_id, merged_id=journal.merged_id)


# --- duplicate detection ----------------------------------------------------------


def _contact_emails(candidate_id: int) -> set[str]:
    """Each document's contact-block e-mails, less those its extraction flagged as a
    template's placeholder (never grounds for an automatic merge)."""
    out: set[str] = set()
    for rec in _newest_records(candidate_id):
        samples = {
            str(v.get("value", "")).strip().lower()
            for v in rec.data.get("fields", {}).get("emails", [])
            if F.is_placeholder(v)
        }
        out |= {str(e).strip().lower() for e in rec.data.get("contact_emails", []) if e} - samples
    return out


def candidate_dedupe(*, candidate_id: int) -> list[str]:
    """Find and record this candidate's duplicates; auto-merge only on a contact e-mail plus a second signal.

    Returns what happened (one line per pair) for logs and tests. A candidate that is gone,
    merged away or erased makes this a logged no-op (ADR convention 5).
    """
    outcomes: list[str] = []
    for _ in range(5):  # each auto-merge into this candidate changes its signals: look again
        # Its status and its matches in one read (h50perf); the matches count only when active.
        status, matches = dedupe_rules.state_and_matches(candidate_id)
        if status != CandidateStatus.ACTIVE:
            state = "missing" if status is None else status
            logger.info("dedupe: candidate %s is %s: no-op", candidate_id, state)
            outcomes.append(f"noop: candidate {candidate_id} is {state}")
            return outcomes
        merged_into_me = False
        for match in matches:
            outcome = _record_pair(candidate_id, match)
            outcomes.append(outcome)
            if outcome.startswith("merged"):
                merged_into_me = f"into {candidate_id}" in outcome
                break
        else:
            return outcomes
        if not merged_into_me:
            return outcomes
    return outcomes


def _record_pair(candidate_id: int, match: dedupe_rules.Match) -> str:
    low, high = sorted((candidate_id, match.other_id))
    with transaction.atomic(), jobs_api.db_budget():
        if checkpoints.row_lock("DEDUPE"):
            rows = lock_with_documents(low, high)
            if len(rows) < 2 or any(r.status != CandidateStatus.ACTIVE for r in rows.values()):
                logger.info("dedupe: pair %s-%s: a side was merged or erased meanwhile: no-op", low, high)
                return f"noop: {low}-{high} no longer both active"
        pair = DuplicatePair.objects.filter(candidate_low_id=low, candidate_high_id=high).first()
        if pair is not None:
            if pair.kind == PairKind.POSSIBLE_DUPLICATE and match.kind == PairKind.SAME_PERSON:
                pair.kind, pair.score, pair.reason, pair.evidence = (
                    match.kind,
                    match.score,
                    match.reason,
                    match.evidence,
                )
                pair.save(update_fields=["kind", "score", "reason", "evidence"])
                result = f"upgraded: pair {pair.pk}"
            else:
                logger.info("dedupe: pair %s (%s-%s) already recorded: no-op", pair.pk, low, high)
                result = f"noop: pair {pair.pk} exists"
        else:
            checkpoints.reach("DEDUPE")  # between "is there a pair?" and the insert
            with connection.cursor() as cur:
                # ON CONFLICT without a target: with the unique constraint a concurrent
                # twin loses quietly here; the constraint, not this code, guarantees it.
                cur.execute(
                    "INSERT INTO candidate_duplicate_pair"
                    " (candidate_low_id, candidate_high_id, kind, score, reason, evidence, status, created_at)"
                    " VALUES (%s, %s, %s, %s, %s, %s::jsonb, 'open', now()) ON CONFLICT DO NOTHING RETURNING id",
                    [low, high, match.kind, match.score, match.reason, json.dumps(match.evidence)],
                )
                got = cur.fetchone()
            if got is None:
                logger.info("dedupe: pair %s-%s inserted by a concurrent job (%s): no-op", low, high, PAIR_UNIQUE)
                return f"noop: {low}-{high} lost the insert race"
            pair = DuplicatePair.objects.get(pk=got[0])
            result = f"created: pair {pair.pk} {match.kind}"
        if match.kind == PairKind.SAME_PERSON and pair.status == PairStatus.OPEN:
            verdict, why = _auto_merge_verdict(low, high)
            if verdict == "merge":
                journal = candidate_merge(
                    survivor_id=low, merged_id=high, actor=SYSTEM_DEDUPE, automatic=True, reason=why
                )
                return f"merged: {high} into {low} (merge {journal.id})"
            if verdict == "review" and REVIEW_NOTE not in pair.reason:
                # Said on the pair, for the recruiter who reviews it.
                pair.reason = f"{pair.reason}; {REVIEW_NOTE}: {why}"
                pair.save(update_fields=["reason"])
                result = f"{result} (review: {why})"
        return result


REVIEW_NOTE = "not merged automatically"


def _phones(candidate_id: int) -> set[str]:
    return set(CandidateSignal.objects.filter(candidate_id=candidate_id, kind="phone").values_list("value", flat=True))


def _submitted_from(candidate_id: int) -> set[str]:
    docs = list(CandidateDocument.objects.filter(candidate_id=candidate_id).values_list("attachment_id", flat=True))
    return set(intake_api.submitter_addresses(docs).values())


def _auto_merge_verdict(low: int, high: int) -> tuple[str, str]:
    """("merge", reason), ("review", why not) or ("no", "").

    Document content alone never merges (issue 21 N3: anyone who can mail the careers
    inbox can write a victim's address into a CV). Needed: each CV's own contact block
    names the same address - never a referee's or an agency's address found elsewhere -
    AND a second, independent signal: the same phone on both, or each candidate has a
    document sent from (mail) or uploaded by an account with that very address. Both
    sides: a confirmed victim must not make an unconfirmed newcomer mergeable. Never
    again for two candidates a recruiter has unmerged.
    """
    if CandidateMerge.objects.filter(survivor_id__in=(low, high), merged_id__in=(low, high)).exists():
        return "no", ""
    shared = _contact_emails(low) & _contact_emails(high)
    if not shared:
        return "no", ""
    email = sorted(shared)[0]
    phones = _phones(low) & _phones(high)
    if phones:
        return "merge", f"same contact e-mail {email} and same phone {sorted(phones)[0]}"
    if shared & _submitted_from(low) and shared & _submitted_from(high):
        return "merge", f"same contact e-mail {email}, and both were sent or uploaded from that address"
    return "review", (
        f"only the documents' text names {email} (no matching phone, and not sent or uploaded from that address)"
    )


def candidate_dedupe_exhausted(*, candidate_id: int, reason_code: str, reason: str, **_: Any) -> None:
    """Policy exhaustion handler: the next change of the candidate defers a new check."""
    logger.warning("dedupe of candidate %s failed on every attempt: %s (%s)", candidate_id, reason, reason_code)
    audit_api.audit_event_record(
        actor="system:dedupe",
        action="candidate.dedupe_failed",
        object_type="candidate",
        object_id=candidate_id,
        payload={"reason_code": reason_code, "reason": reason},
    )


# --- the identity gate: documents without a candidate (issue 28) ---------------------


def document_record_extraction(*, attachment_id: int, parse_attempt: int, extraction: Extraction) -> None:
    """Keep what was read from a document that made no candidate (`ats document show`'s
    `extraction`; attach / create-by-hand later apply this very record). Idempotent."""
    _extraction_record(attachment_id=attachment_id, parse_attempt=parse_attempt, extraction=extraction)


def _apply_newest_record(candidate: Candidate, attachment_id: int, *, keep_identity_as: str = "") -> None:
    """The document's newest extraction becomes a version of the candidate's. With
    `keep_identity_as` (a document attached to an existing person, by a recruiter or as a
    companion of their CV) the person's name, e-mails and phones stay as they are and what
    the document says about them becomes a proposed change: a document's content alone
    never changes who a candidate is (issue 21 N3)."""
    record = ExtractionRecord.objects.filter(attachment_id=attachment_id).order_by("-parse_attempt").first()
    if record is not None:
        candidate.extraction_version += 1
        record.candidate_version = candidate.extraction_version
        record.save(update_fields=["candidate_version"])
    if keep_identity_as:
        _recompute(candidate, new_record=record, keep=KEPT_ON_AUTO_MERGE, keep_actor=keep_identity_as)
    else:
        _recompute(candidate, new_record=record)


def _after_attach(attachment_id: int, candidate: Candidate, actor: Any, how: str) -> None:
    intake_api.attachment_mark_attached(attachment_id=attachment_id, candidate_id=candidate.pk, actor=actor, how=how)
    jobs_api.defer(DEDUPE, payload={"candidate_id": candidate.pk})
    # Sent for a requisition: the candidate applies to it, as the candidate step does
    # (the pipeline's receiver; candidates may not import scoring).
    hooks.document_attached.send(sender=Candidate, attachment_id=attachment_id, candidate_id=candidate.pk)


def candidate_attach_document(*, attachment_id: int, candidate_id: int, actor: Any) -> CandidateRef:
    """A recruiter attaches a `no_candidate_details` document to an existing candidate:
    it becomes one of their documents, its extraction a new version of theirs."""
    _authorize(actor, "candidate.edit")
    with transaction.atomic():
        intake_api.attachment_lock_without_candidate(attachment_id=attachment_id)  # document, then candidate
        candidate = _active(candidate_id)
        CandidateDocument.objects.create(candidate=candidate, attachment_id=attachment_id)
        _apply_newest_record(candidate, attachment_id, keep_identity_as=iam_api.actor_label(actor))
        _audit(actor, "candidate.document_attached", candidate.pk, {"attachment_id": attachment_id})
        _after_attach(attachment_id, candidate, actor, "attached")
        return CandidateRef(id=candidate.pk, display_name=candidate.display_name)


def candidate_create_for_document(
    *, attachment_id: int, name: str, email: str = "", phone: str = "", actor: Any
) -> CandidateRef:
    """A recruiter creates the person by hand for a `no_candidate_details` document. The
    same identity rule applies: a name and an e-mail or a phone. The typed values are
    recruiter-edited fields (a later parse proposes, never overwrites)."""
    from ats.candidates import identity

    _authorize(actor, "candidate.edit")
    typed = {"name": name.strip(), "emails": email.strip(), "phones": phone.strip()}
    parsed = {f: F.parse_edit(f, v) for f, v in typed.items() if v}
    if any("@" not in e or "." not in e.rsplit("@", 1)[1] for e in parsed.get("emails", [])):
        raise ValueError(f"{typed['emails']!r} is not an e-mail address")
    if any(len(p.lstrip("+")) < 7 for p in parsed.get("phones", [])):
        raise ValueError(f"{typed['phones']!r} is not a phone number (at least 7 digits)")
    lacking = identity.missing({f: parsed.get(f, []) for f in ("name", "emails", "phones")})
    if lacking:
        raise ValueError("a candidate needs a name and an e-mail address or a phone number")
    with transaction.atomic():
        intake_api.attachment_lock_without_candidate(attachment_id=attachment_id)
        candidate = Candidate.objects.create()
        CandidateDocument.objects.create(candidate=candidate, attachment_id=attachment_id)
        label = iam_api.actor_label(actor)
        now = timezone.now()
        CandidateField.objects.bulk_create(
            [
                CandidateField(
                    candidate=candidate,
                    field=f,
                    values=_recruiter_values(f, values, actor, raw=typed[f]),
                    source=FieldSource.RECRUITER,
                    edited_by=label,
                    edited_at=now,
                )
                for f, values in parsed.items()
            ]
        )
        _apply_newest_record(candidate, attachment_id)
        _audit(
            actor,
            "candidate.created_by_hand",
            candidate.pk,
            {"attachment_id": attachment_id, "fields": sorted(parsed)},
            personal={"values": parsed},
        )
        _after_attach(attachment_id, candidate, actor, "created_by_hand")
        return CandidateRef(id=candidate.pk, display_name=candidate.display_name)


def candidates_without_identity() -> list[dict[str, Any]]:
    """`ats candidate review-identity --json`: active candidates lacking a name or any
    contact (the creation gate's rule over their current fields)."""
    from ats.candidates import identity

    fields: dict[int, dict[str, list[dict[str, Any]]]] = {}
    active = Candidate.objects.filter(status=CandidateStatus.ACTIVE).order_by("pk")
    for row in CandidateField.objects.filter(candidate__in=active, field__in=("name", "emails", "phones")):
        fields.setdefault(row.candidate_id, {})[row.field] = row.values
    docs: dict[int, list[int]] = {}
    for cid, aid in CandidateDocument.objects.filter(candidate__in=active).values_list("candidate_id", "attachment_id"):
        docs.setdefault(cid, []).append(aid)
    out = []
    for c in active.only("pk", "display_name", "email"):
        lacking = identity.missing_in_fields(fields.get(c.pk, {}))
        if lacking:
            out.append(
                {
                    "id": c.pk,
                    "name": c.display_name or None,
                    "email": c.email or None,
                    "missing": lacking,
                    "documents": sorted(docs.get(c.pk, [])),
                }
            )
    return out


def candidate_turn_back(*, candidate_id: int, actor: Any) -> dict[str, Any]:
    """Undo a candidate that never had an identity: its documents return to
    `no_candidate_details` (each audited), the candidate leaves the active list with
    status `no_identity`. Refused when it has an identity now (checked under lock)."""
    from ats.candidates import identity

    _authorize(actor, "candidate.edit")
    with transaction.atomic():
        rows = lock_with_documents(candidate_id)
        candidate = rows.get(candidate_id)
        if candidate is None:
            raise LookupError(f"candidate {candidate_id} does not exist")
        if candidate.status != CandidateStatus.ACTIVE:
            raise CandidateNotActive(f"candidate {candidate_id} is {candidate.status}")
        lacking = identity.missing_in_fields(_current_values(candidate_id))
        if not lacking:
            raise ValueError(f"candidate {candidate_id} has a name and a contact; nothing to turn back")
        att_ids = sorted(CandidateDocument.objects.filter(candidate=candidate).values_list("attachment_id", flat=True))
        moved = intake_api.attachments_turn_back(attachment_ids=att_ids, missing=lacking, actor=actor)
        CandidateDocument.objects.filter(candidate=candidate).delete()
        CandidateSignal.objects.filter(candidate=candidate).delete()
        DuplicatePair.objects.filter(candidate_low=candidate, status=PairStatus.OPEN).delete()
        DuplicatePair.objects.filter(candidate_high=candidate, status=PairStatus.OPEN).delete()
        candidate.status = CandidateStatus.NO_IDENTITY
        candidate.revision += 1
        candidate.save()
        from ats.search import api as search_api

        search_api.search_reindex(kind="candidate", object_id=candidate.pk)
        _audit(actor, "candidate.turned_back_no_identity", candidate.pk, {"documents": moved, "missing": lacking})
        return {"id": candidate.pk, "missing": lacking, "documents": moved}


# --- documents that travel with a CV (issue 28 item 2) ---------------------------------


def _guess_kind(text: str, *, has_identity: bool) -> Any:
    from ats.candidates import kind

    return kind.classify(text, has_identity=has_identity)


def document_set_kind(*, attachment_id: int, text: str, has_identity: bool) -> None:
    """Classify a candidate's document (cv / cover_letter / certificate / other) with its
    confidence and evidence; the candidate task calls this for the document it applied."""
    guess = _guess_kind(text, has_identity=has_identity)
    CandidateDocument.objects.filter(attachment_id=attachment_id).update(**_kind_fields(guess))


def _attach_companion(
    candidate: Candidate, attachment_id: int, text: str, reason: str, *, how: str = "same_message"
) -> None:
    guess = _guess_kind(text, has_identity=False)
    CandidateDocument.objects.create(
        candidate=candidate,
        attachment_id=attachment_id,
        kind=guess.kind,
        kind_confidence=guess.confidence,
        kind_evidence=guess.evidence,
        attach_reason=reason,
    )
    _apply_newest_record(candidate, attachment_id, keep_identity_as="system:candidates")
    intake_api.attachment_mark_attached(
        attachment_id=attachment_id, candidate_id=candidate.pk, actor="system:candidates", how=how
    )
    _audit(
        "system:candidates",
        "candidate.document_attached",
        candidate.pk,
        {"attachment_id": attachment_id, "how": how, "kind": guess.kind},
    )


def _companion_reason(cv_filename: str) -> str:
    return f'Sent in the same message as the CV "{cv_filename}", which names this candidate.'


def _sender_reason(cv_filename: str, sender: str) -> str:
    hours = int(intake_api.SAME_SENDER_WINDOW.total_seconds() // 3600)
    return (
        f"Mailed by the same sender ({sender}) within {hours} hours of the CV "
        f'"{cv_filename}", which names this candidate.'
    )


def _cv_owner(companions: list[Any]) -> tuple[int | None, str]:
    """The one candidate the companions' CVs made (and the first CV's file name); None
    when there is none or CVs of two people (a recruiter decides)."""
    cvs = [c for c in companions if c.state == intake_api.State.CANDIDATE_CREATED and c.candidate_id is not None]
    owners = {c.candidate_id for c in cvs}
    if len(owners) != 1:
        return None, ""
    return owners.pop(), cvs[0].filename


def document_attach_to_message_cv(*, attachment_id: int, text: str) -> int | None:
    """A document without identity (the candidate task holds its row lock): when a CV in
    the same message already made a candidate, it becomes that candidate's document;
    failing that (no CV in its message), a CV the same sender mailed within
    SAME_SENDER_WINDOW. Locks document then candidate (the module's order). The
    candidate's id; None: no such CV (yet), or CVs of two people."""
    in_message = intake_api.message_companions(attachment_id)
    candidate_id, cv_name = _cv_owner(in_message)
    how, reason = "same_message", _companion_reason(cv_name)
    if candidate_id is None:
        if any(c.state == intake_api.State.CANDIDATE_CREATED for c in in_message):
            return None  # CVs of two people in its own message: a recruiter decides
        sender, by_sender = intake_api.sender_companions(attachment_id)
        candidate_id, cv_name = _cv_owner(by_sender)
        if candidate_id is None:
            return None
        how, reason = "same_sender", _sender_reason(cv_name, sender)
    candidate = lock_candidates(candidate_id).get(candidate_id)
    if candidate is None or candidate.status != CandidateStatus.ACTIVE:
        return None
    _attach_companion(candidate, attachment_id, text, reason, how=how)
    return int(candidate.pk)


def _collect(candidate_id: int, companions: list[Any], reason: str, how: str) -> list[int]:
    waiting = [c.attachment_id for c in companions if c.state == intake_api.State.NO_CANDIDATE_DETAILS]
    if not waiting:
        return []
    other_cvs = {
        c.candidate_id
        for c in companions
        if c.state == intake_api.State.CANDIDATE_CREATED and c.candidate_id not in (None, candidate_id)
    }
    if other_cvs:
        return []  # CVs of two people: a recruiter decides
    locked = intake_api.attachments_lock_waiting_for_candidate(attachment_ids=waiting)
    candidate = lock_candidates(candidate_id).get(candidate_id)
    if candidate is None or candidate.status != CandidateStatus.ACTIVE:
        return []
    texts = intake_api.document_texts(locked)
    for att_id in locked:
        if CandidateDocument.objects.filter(attachment_id=att_id).exists():
            continue
        text = texts[att_id].text if att_id in texts else ""
        _attach_companion(candidate, att_id, text, reason, how=how)
    return locked


def candidate_collect_message_companions(
    *, attachment_id: int, candidate_id: int, by_mail: bool | None = None
) -> list[int]:
    """After a CV made (or joined) a candidate: the documents of the same message that
    ended `no_candidate_details` before it (they were read first) become its documents,
    and so do those the same sender mailed within SAME_SENDER_WINDOW (in other messages).
    Rows another transaction holds are skipped, never waited for (the candidate is
    locked here); such a document stays `no_candidate_details`, with its actions.
    `by_mail=False`: the caller knows the document did not come by e-mail (companions are
    mail only): nothing is read (issue 26)."""
    if by_mail is False:
        return []
    same_message, sender, by_sender = intake_api.mail_companions(attachment_id)
    if not same_message and not by_sender:
        return []  # most CVs come alone: the CV's own row is not read for nothing (issue 26)
    cv_name = next((a.filename for a in [intake_api.attachment_get(attachment_id)] if a is not None), "the CV")
    collected = _collect(candidate_id, same_message, _companion_reason(cv_name), "same_message")
    if by_sender:
        collected += _collect(candidate_id, by_sender, _sender_reason(cv_name, sender), "same_sender")
    return collected


def candidate_detach_document(*, attachment_id: int, actor: Any) -> CandidateRef:
    """Undo an attachment: the document leaves the candidate and is `no_candidate_details`
    again (attach it elsewhere, create a person, or discard it). Refused for a candidate's
    only document. Answers the candidate it left."""
    from ats.candidates import identity

    _authorize(actor, "candidate.edit")
    with transaction.atomic():
        owner = CandidateDocument.objects.filter(attachment_id=attachment_id).values_list("candidate_id", flat=True)
        candidate_id = next(iter(owner), None)
        if candidate_id is None:
            raise LookupError(f"document {attachment_id} belongs to no candidate")
        rows = lock_with_documents(candidate_id)
        candidate = rows[candidate_id]
        if candidate.status != CandidateStatus.ACTIVE:
            raise CandidateNotActive(f"candidate {candidate_id} is {candidate.status}")
        if CandidateDocument.objects.filter(candidate=candidate).count() < 2:
            raise ValueError("this is the candidate's only document; it cannot be detached")
        CandidateDocument.objects.filter(attachment_id=attachment_id).delete()
        record = ExtractionRecord.objects.filter(attachment_id=attachment_id).order_by("-parse_attempt").first()
        lacking = identity.missing_in_extraction(Extraction.from_dict(record.data)) if record else ["name", "contact"]
        intake_api.attachments_turn_back(
            attachment_ids=[attachment_id], missing=lacking or ["name", "contact"], actor=actor
        )
        _recompute(candidate)
        _audit(actor, "candidate.document_detached", candidate.pk, {"attachment_id": attachment_id})
        jobs_api.defer(DEDUPE, payload={"candidate_id": candidate.pk})
        return CandidateRef(id=candidate.pk, display_name=candidate.display_name)
