"""What candidates hands the search index, registered at app start (search imports no
module above it, so it cannot come and read these itself).

A candidate contributes its names and e-mail (weight A), skills (B) and the text of its
newest document (C); a document contributes its parsed text (C) under its candidate.
Merged and erased candidates drop out.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import OuterRef, Subquery

from ats.candidates.models import Candidate, CandidateField, CandidateStatus
from ats.intake import api as intake_api
from ats.search import api as search_api
from ats.search.api import MAX_TEXT, Source

# An empty status counts as live, as it did when this module read the column defensively.
_LIVE = (CandidateStatus.ACTIVE.value, "")


def _skills(values: list[Any] | None) -> str:
    words: list[str] = []
    for v in values or []:
        words.append(str(v.get("value", v)) if isinstance(v, dict) else str(v))
        # The CV's wording is the value ("k8s"); the taxonomy's name for it is
        # indexed too, so a search for "Kubernetes" finds that candidate.
        labels = {s.get("taxonomy_label") for s in v.get("sources") or ()} if isinstance(v, dict) else set()
        words += sorted(label for label in labels if label and label.casefold() != words[-1].casefold())
    return " ".join(words)


def candidate_source(candidate_id: int) -> Source | None:
    # The candidate and its skills field in one read (h50perf: was two); the field is unique
    # per candidate and field name, so the subquery has at most one row.
    skills = CandidateField.objects.filter(candidate=OuterRef("pk"), field="skills").values("values")[:1]
    c = Candidate.objects.filter(pk=candidate_id).annotate(skill_values=Subquery(skills)).first()
    if c is None or c.status not in _LIVE:
        return None  # merged or erased candidates drop out of the index
    names = " ".join(x for x in (c.display_name, c.email) if x)
    return Source(
        "candidate", c.pk, c.pk, names, _skills(getattr(c, "skill_values", None)), (c.document_text or "")[:MAX_TEXT]
    )


def document_source(attachment_id: int) -> Source | None:
    doc = intake_api.document_texts([attachment_id]).get(attachment_id)
    if doc is None or doc.candidate_id is None or not live_candidate_ids([doc.candidate_id]):
        return None  # not parsed, not (yet) a candidate's document, or its candidate is gone
    return Source("document", attachment_id, doc.candidate_id, "", "", doc.text[:MAX_TEXT])


def candidate_ids_changed_since(since: datetime.datetime | None) -> list[int]:
    qs = Candidate.objects.all()
    field_names = {f.name for f in Candidate._meta.get_fields()}
    if since is not None:
        stamp = "updated_at" if "updated_at" in field_names else "created_at"
        qs = qs.filter(**{f"{stamp}__gt": since})
    return list(qs.values_list("pk", flat=True))


def live_candidate_ids(ids: list[int]) -> list[int]:
    """`ids` that still name a live candidate, in the given order."""
    # Ids only (h50perf): the rows carry their newest document's text, never needed here.
    live = set(Candidate.objects.filter(pk__in=ids, status__in=_LIVE).values_list("pk", flat=True))
    return [i for i in ids if i in live]


def document_ids_parsed_since(since: datetime.datetime | None) -> list[int]:
    return list(intake_api.documents_parsed_since(since))


def register() -> None:
    """CandidatesConfig.ready(): both kinds of entry belong to a candidate."""
    search_api.register_source(
        "candidate", read=candidate_source, changed_since=candidate_ids_changed_since, live=live_candidate_ids
    )
    search_api.register_source("document", read=document_source, changed_since=document_ids_parsed_since)
