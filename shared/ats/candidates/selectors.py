"""Reads of the candidates module: the `ats candidate show|list` shapes (a CLI contract)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL

from ats.candidates import fields as F
from ats.candidates import hooks
from ats.candidates.data import CandidateActivity
from ats.candidates.models import (
    Candidate,
    CandidateDocument,
    CandidateField,
    CandidateMerge,
    CandidateStatus,
    ChangeStatus,
    DuplicatePair,
    FieldSource,
    ProposedChange,
)
from ats.errors import NotAllowed
from ats.extraction.data import SINGLE_FIELDS
from ats.iam import api as iam_api


def candidate_current_id(candidate_id: int) -> int:
    """Follow merges to the candidate that holds the documents now."""
    seen = {candidate_id}
    current = candidate_id
    while True:
        nxt = Candidate.objects.filter(pk=current, status=CandidateStatus.MERGED).values_list("merged_into", flat=True)
        target = next(iter(nxt), None)
        if target is None or target in seen:
            return current
        seen.add(target)
        current = target


def _current_ids(ids: set[int]) -> dict[int, int]:
    """candidate_current_id for many ids at once: one query per merge hop for all of them,
    not one per id (a ranking of 100 applications made 100 queries: bench/page_load.py)."""
    current = {i: i for i in ids}
    seen = {i: {i} for i in ids}
    frontier = set(ids)
    while frontier:
        hops = dict(
            Candidate.objects.filter(pk__in=frontier, status=CandidateStatus.MERGED).values_list("pk", "merged_into")
        )
        frontier = set()
        for i, cur in current.items():
            target = hops.get(cur)
            if target is not None and target not in seen[i]:
                seen[i].add(target)
                current[i] = target
                frontier.add(target)
    return current


def _plain(name: str, values: list[dict[str, Any]]) -> Any:
    plain = [v["value"] for v in values]
    if name in SINGLE_FIELDS:
        return plain[0] if plain else None
    return plain


def _authorize_view(actor: Any) -> None:
    # Hiring managers read candidates; recruiters and admins too (iam's one table).
    if not iam_api.can(actor, "candidate.view"):
        raise NotAllowed(f"{iam_api.actor_label(actor)} may not candidate.view")


def candidates_visible_to(actor: Any) -> QuerySet[Candidate]:
    """THE candidate scope of an actor: every read of candidates for a person goes through it
    (lists, search, the candidate page, /api/candidates/<id>, the pages built on them).

    Recruiters, admins and system actors see every candidate; a hiring manager only those
    with an application in a requisition assigned to them (scoring's RequisitionAssignment),
    plus the survivor a merge folded such a candidate into (applications keep the id they
    were made with). Raises NotAllowed for a role without candidate.view.
    """
    _authorize_view(actor)
    qs = Candidate.objects.all()
    if iam_api.role_of(actor) == iam_api.Role.HIRING_MANAGER:
        # Scoring owns requisition assignments and registers this lookup (hooks.py).
        ids = hooks.assigned_candidate_ids(actor.pk)
        survivors = Candidate.objects.filter(pk__in=ids, merged_into__isnull=False).values("merged_into")
        qs = qs.filter(Q(pk__in=ids) | Q(pk__in=survivors))
    return qs


def candidate_visible(candidate_id: int, *, actor: Any) -> bool:
    """Whether `actor` may read this candidate (False for unknown ones too: same answer)."""
    return candidates_visible_to(actor).filter(pk=candidate_id).exists()


def candidate_documents_visible_to(actor: Any) -> list[int]:
    """The attachment ids of the documents of the candidates `actor` may read (for
    document pages and viewers that serve hiring managers)."""
    return list(
        CandidateDocument.objects.filter(candidate__in=candidates_visible_to(actor)).values_list(
            "attachment_id", flat=True
        )
    )


def candidate_names(candidate_ids: Iterable[int], *, actor: Any) -> dict[int, Any]:
    """Each candidate's name as `candidate_detail` gives it (None when it has none), for the
    ids `actor` may read, in one query; unknown ids and ids outside the scope are absent.
    Raises NotAllowed like candidates_visible_to."""
    visible = candidates_visible_to(actor).filter(pk__in=list(candidate_ids))
    rows = CandidateField.objects.filter(candidate__in=visible, field="name").values_list("candidate_id", "values")
    return {cid: _plain("name", values) for cid, values in rows}


def candidate_detail(candidate_id: int, *, actor: Any) -> dict[str, Any] | None:
    """`ats candidate show ID --json`: fields, provenance, duplicates, documents, versions.
    None when the candidate does not exist or lies outside the actor's scope."""
    c = candidates_visible_to(actor).filter(pk=candidate_id).first()
    if c is None:
        return None
    rows = {f.field: f for f in CandidateField.objects.filter(candidate=c)}
    out: dict[str, Any] = {"id": c.pk}
    provenance: dict[str, list[dict[str, Any]]] = {}
    for name in F.ALL_FIELDS:
        values = rows[name].values if name in rows else []
        out[name] = _plain(name, values)
        # Every source of every value, each naming the value it explains.
        provenance[name] = [{**src, "value": v["value"]} for v in values for src in v["sources"]]
    out["provenance"] = provenance
    pairs = DuplicatePair.objects.filter(Q(candidate_low=c) | Q(candidate_high=c)).order_by("pk")
    out["duplicates"] = [
        {
            "pair_id": p.pk,
            "other_candidate_id": p.candidate_high_id if p.candidate_low_id == c.pk else p.candidate_low_id,
            "kind": p.kind,
            "score": p.score,
            "reason": p.reason,
            "status": p.status,
            "evidence": p.evidence,
        }
        for p in pairs
    ]
    docs = CandidateDocument.objects.filter(candidate=c).order_by("attachment_id")
    out["documents"] = [d.attachment_id for d in docs]
    out["extraction_version"] = c.extraction_version
    out["edited_fields"] = sorted(n for n, r in rows.items() if r.source == FieldSource.RECRUITER)
    out["proposed_changes"] = [
        {
            "change_id": pc.pk,
            "field": pc.field,
            "value": _plain(pc.field, pc.values),
            "current": _plain(pc.field, rows[pc.field].values) if pc.field in rows else None,
            "provenance": [src for v in pc.values for src in v["sources"]],
            "extraction_id": pc.extraction_id,
            "created_at": pc.created_at.isoformat(),
        }
        for pc in ProposedChange.objects.filter(candidate=c, status=ChangeStatus.OPEN).order_by("pk")
    ]
    out["status"] = c.status
    out["merged_into"] = c.merged_into_id
    out["revision"] = c.revision
    out["merges"] = [
        {
            "merge_id": m.pk,
            "survivor": m.survivor_id,
            "merged": m.merged_id,
            "automatic": m.automatic,
            "actor": m.actor,
            "reason": m.reason,
            "undone": m.unmerged_at is not None,
        }
        for m in CandidateMerge.objects.filter(Q(survivor=c) | Q(merged=c)).order_by("pk")
    ]
    return out


def candidate_search(query: str) -> Q:
    """Full-text matches (names, e-mail, skills, document text; ats.search's side table,
    indexed by a job moments after each change) or a plain substring of name, e-mail or a
    skill, so a candidate created a moment ago is found before its index job has run."""
    from ats.search import api as search_api

    pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    skill_ids = RawSQL(
        "SELECT f.candidate_id FROM candidates_field f, jsonb_array_elements(f.values) e"
        " WHERE f.field = 'skills' AND e->>'value' ILIKE %s",
        [pattern],
    )
    return (
        Q(pk__in=search_api.search_candidates(query))
        | Q(display_name__icontains=query)
        | Q(email__icontains=query)
        | Q(pk__in=skill_ids)
    )


def candidate_list(
    *, actor: Any, search: str | None = None, include_inactive: bool = False, limit: int = 200
) -> list[dict[str, Any]]:
    qs = candidates_visible_to(actor)
    if not include_inactive:
        qs = qs.filter(status=CandidateStatus.ACTIVE)
    if search:
        qs = qs.filter(candidate_search(search))
    out = []
    for c in qs.order_by("pk")[:limit]:
        out.append(
            {
                "id": c.pk,
                "name": c.display_name or None,
                "email": c.email or None,
                "status": c.status,
                "merged_into": c.merged_into_id,
                "extraction_version": c.extraction_version,
                "created_at": c.created_at.isoformat(),
            }
        )
    return out


# The only fields scoring may read. Protected or proxy attributes (name, photo, date of
# birth, gender, nationality, address, location, languages...) are never handed out here,
# so the scorer cannot use them even by mistake.
SCORING_FIELDS = ("skills", "years_experience")


def candidate_scoring_inputs(candidate_id: int) -> dict[str, Any] | None:
    """The scoring inputs of a candidate (following merges): {candidate_id, status,
    skills, years_experience}, each field as stored values with their provenance.
    None when the candidate does not exist."""
    # Merges followed with the row read (issue 26: candidate_current_id, then the row, read
    # an active candidate twice).
    seen = {candidate_id}
    current = candidate_id
    while True:
        c = Candidate.objects.filter(pk=current).only("pk", "status", "merged_into").first()
        if c is None:
            return None
        target = c.merged_into_id if c.status == CandidateStatus.MERGED else None
        if target is None or target in seen:
            break
        seen.add(target)
        current = target
    rows = {f.field: f.values for f in CandidateField.objects.filter(candidate_id=current, field__in=SCORING_FIELDS)}
    return {"candidate_id": c.pk, "status": c.status, **{name: rows.get(name, []) for name in SCORING_FIELDS}}


# Fields of a document's `extraction` (`ats document show --json`), as `ats candidate show`.
EXTRACTION_FIELDS = ("name", "emails", "phones", "skills")


def document_extraction(attachment_id: int) -> dict[str, Any] | None:
    """What was read from one document (its newest extraction), whether or not it became
    or joined a candidate: name, emails, phones, skills shaped as in `ats candidate show`,
    plus which parse attempt and extractor produced it. None before any extraction."""
    from ats.candidates.models import ExtractionRecord

    record = ExtractionRecord.objects.filter(attachment_id=attachment_id).order_by("-parse_attempt").first()
    if record is None:
        return None
    fields = record.data.get("fields", {}) if isinstance(record.data, dict) else {}
    out: dict[str, Any] = {name: _plain(name, fields.get(name, [])) for name in EXTRACTION_FIELDS}
    out["parse_attempt"] = record.parse_attempt
    out["extractor_version"] = record.extractor_version
    return out


def candidate_attach_search(*, actor: Any, query: str, limit: int = 20) -> list[dict[str, Any]]:
    """Active candidates a document may be attached to, by name, e-mail or phone: the
    list search, plus phone numbers (typed with spaces or dashes, matched on digits)."""
    import re

    from ats.candidates.models import CandidateSignal

    _authorize_view(actor)
    digits = re.sub(r"[^\d]", "", query)
    q = candidate_search(query)
    if len(digits) >= 4:
        q |= Q(pk__in=CandidateSignal.objects.filter(kind="phone", value__contains=digits).values("candidate_id"))
    qs = Candidate.objects.filter(status=CandidateStatus.ACTIVE).filter(q).order_by("pk")[:limit]
    phones = {
        f.candidate_id: [v["value"] for v in f.values]
        for f in CandidateField.objects.filter(candidate__in=[c.pk for c in qs], field="phones")
    }
    return [
        {"id": c.pk, "name": c.display_name or None, "email": c.email or None, "phones": phones.get(c.pk, [])}
        for c in qs
    ]


def document_membership(attachment_id: int) -> dict[str, Any] | None:
    """Which candidate holds the document, as what kind (with confidence and evidence)
    and why (attach reason); None when it belongs to no candidate."""
    from ats.candidates import kind

    doc = CandidateDocument.objects.filter(attachment_id=attachment_id).select_related("candidate").first()
    if doc is None:
        return None
    return {
        "candidate_id": doc.candidate_id,
        "candidate_name": doc.candidate.display_name or None,
        "kind": doc.kind or None,
        "kind_label": kind.LABELS.get(doc.kind or "", None),
        "kind_confidence": doc.kind_confidence,
        "kind_evidence": doc.kind_evidence or [],
        "attach_reason": doc.attach_reason or None,
        "documents": CandidateDocument.objects.filter(candidate_id=doc.candidate_id).count(),
    }


def candidate_people(candidate_ids: Any) -> dict[int, dict[str, Any]]:
    """For screens that list people: each id -> {"id": the person it is now (merges
    followed), "name": that person's current name or None, "status", "own_name"}. No access check:
    callers show only ids they were allowed to read (rankings, applications)."""
    ids = {int(i) for i in candidate_ids}
    current = _current_ids(ids)
    rows = {
        c.pk: c
        for c in Candidate.objects.filter(pk__in=set(current.values()) | ids).only("pk", "display_name", "status")
    }
    out: dict[int, dict[str, Any]] = {}
    for i, cur in current.items():
        row, own = rows.get(cur), rows.get(i)
        out[i] = {
            "id": cur,
            "name": (row.display_name or None) if row else None,
            "status": row.status if row else None,
            "own_name": (own.display_name or None) if own else None,  # the record's own (merged-away) name
        }
    return out


def candidate_activity(
    *, candidate_ids: Iterable[int] | None = None, active_only: bool = False
) -> Iterator[CandidateActivity]:
    """Status and last change of candidates (`candidate_ids`, or all), in id order,
    streamed: the nightly due-date pass reads every active candidate. No access check:
    for system callers (retention), never a screen."""
    rows = Candidate.objects.order_by("pk")
    if candidate_ids is not None:
        rows = rows.filter(pk__in=list(candidate_ids))
    if active_only:
        rows = rows.filter(status=CandidateStatus.ACTIVE)
    for pk, status, updated_at in rows.values_list("pk", "status", "updated_at").iterator():
        yield CandidateActivity(candidate_id=pk, status=status, updated_at=updated_at)
