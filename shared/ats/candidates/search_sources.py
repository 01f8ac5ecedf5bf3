"""What gets indexed, read through the owners' facades.

A candidate contributes its names and e-mail (weight A), skills (B) and the text of its
newest document (C); a document contributes its parsed text (C) under its candidate.
The candidates model is being extended in parallel (issue 10): fields are read
defensively, so a `skills` field and a `status` (merged/erased candidates drop out) are
used as soon as they exist.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from ats.candidates import api as candidates_api
from ats.intake import api as intake_api

MAX_TEXT = 200_000  # characters per source; a tsvector must stay under 1 MB


@dataclasses.dataclass(frozen=True)
class Source:
    kind: str
    object_id: int
    candidate_id: int | None
    names: str
    skills: str
    text: str

    def digest(self) -> str:
        return hashlib.sha256(
            json.dumps([self.candidate_id, self.names, self.skills, self.text], ensure_ascii=False).encode()
        ).hexdigest()


def _skills(candidate: Any) -> str:
    values: list[str] = []
    direct = getattr(candidate, "skills", None)
    if isinstance(direct, list | tuple):
        values += [str(v) for v in direct]
    elif isinstance(direct, str):
        values.append(direct)
    related = getattr(candidate, "fields", None)  # issue 10: CandidateField(field, values)
    if related is not None and hasattr(related, "filter"):
        for f in related.filter(field="skills"):
            for v in f.values or []:
                values.append(str(v.get("value", v)) if isinstance(v, dict) else str(v))
    return " ".join(values)


def _live(candidate: Any) -> bool:
    status = getattr(candidate, "status", "active")
    return str(status) in {"active", ""}


def candidate_source(candidate_id: int) -> Source | None:
    c = candidates_api.Candidate.objects.filter(pk=candidate_id).first()
    if c is None or not _live(c):
        return None
    names = " ".join(x for x in (c.display_name, c.email) if x)
    return Source("candidate", c.pk, c.pk, names, _skills(c), (c.document_text or "")[:MAX_TEXT])


def document_source(attachment_id: int) -> Source | None:
    doc = intake_api.document_texts([attachment_id]).get(attachment_id)
    if doc is None or doc.candidate_id is None or not live_candidate_ids([doc.candidate_id]):
        return None  # not parsed, not (yet) a candidate's document, or its candidate is gone
    return Source("document", attachment_id, doc.candidate_id, "", "", doc.text[:MAX_TEXT])


def source_for(kind: str, object_id: int) -> Source | None:
    if kind == "candidate":
        return candidate_source(object_id)
    if kind == "document":
        return document_source(object_id)
    raise ValueError(f"unknown search kind {kind!r}")


def candidate_ids_changed_since(since: Any) -> list[int]:
    qs = candidates_api.Candidate.objects.all()
    field_names = {f.name for f in candidates_api.Candidate._meta.get_fields()}
    if since is not None:
        stamp = "updated_at" if "updated_at" in field_names else "created_at"
        qs = qs.filter(**{f"{stamp}__gt": since})
    return list(qs.values_list("pk", flat=True))


def all_candidate_ids() -> set[int]:
    return set(candidates_api.Candidate.objects.values_list("pk", flat=True))


def live_candidate_ids(ids: list[int]) -> list[int]:
    """`ids` that still name a live candidate, in the given order."""
    rows = candidates_api.Candidate.objects.filter(pk__in=ids)
    live = {c.pk for c in rows if _live(c)}
    return [i for i in ids if i in live]
