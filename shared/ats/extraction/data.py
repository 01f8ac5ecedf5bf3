"""Plain data of the candidate extractor (stdlib only: imported by pure code and Django alike).

Interface shared by the extractor (this module's api.extract) and the candidates module,
which stores the values with provenance. Every value carries the sources it came from, so a
recruiter can always see why it is there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FIELDS = ("name", "emails", "phones", "links", "location", "skills", "years_experience", "education", "languages")
# Kept beside the measured fields (the evaluation scores FIELDS; it scores the entries on
# their own terms): national phones as written when the region is unsettled (no E.164), and
# structured entries, dicts (see ats.extraction._history). New keys, so the
# fields above keep their types (contract of `ats candidate show --json`).
# skills_mentioned (h44): skills named only in running text of a CV that has a skills
# list of its own - `skills` is that list; what the CV mentions elsewhere is kept here.
EXTRA_FIELDS = ("phones_as_written", "work_history", "education_entries", "skills_mentioned")
SINGLE_FIELDS = frozenset({"name", "location", "years_experience"})


@dataclass(frozen=True, slots=True)
class Source:
    """Where one value came from inside one parse answer.

    PDF/scan lines have `page` (1-based) and `bbox` [x0, y0, x1, y1] (points for PDFs,
    source pixels for images: the answer's `bbox_unit`); DOCX elements have `part` ("body",
    "table", "header", "footer", "textbox") and `index` (within the part) instead. An answer
    with neither (plain text only) gives part "text" and the line number.
    """

    text: str  # the exact source text the rule read
    rule: str  # which rule produced the value, e.g. "name.top_block"
    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None
    part: str | None = None
    index: int | None = None
    # Skills: the taxonomy entry the CV's wording was linked to ("esco:<id>" or "ats:<name>")
    # and that entry's canonical name ("Kubernetes" for a CV's "k8s"); the value itself is
    # the CV's wording.
    taxonomy_id: str | None = None
    taxonomy_label: str | None = None
    # A template's sample value ("Your Name Here", "john.doe@example.com", "123-456-7890"):
    # kept as read so the recruiter sees it, never used to match or merge people.
    placeholder: bool = False
    # Phones: the region a national number was read in and the signal that decided it
    # ("cv.place", "cv.language", "channel", "default"; "+code" for international form).
    region: str | None = None
    region_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        # Built by hand, not with dataclasses.asdict: asdict deep-copies every field
        # recursively, and a CV's extraction holds hundreds of sources - it was ~7% of the
        # apply hop's CPU (issue 26). tests/extraction/test_data.py holds the two equal.
        d: dict[str, Any] = {
            "text": self.text,
            "rule": self.rule,
            "page": self.page,
            "bbox": list(self.bbox) if self.bbox is not None else None,
            "part": self.part,
            "index": self.index,
        }
        # Only when set: values stored before these keys existed keep their exact shape (only
        # skills have a taxonomy id; only phones a region).
        for key in ("taxonomy_id", "taxonomy_label", "placeholder", "region", "region_from"):
            value = getattr(self, key)
            if value:
                d[key] = value
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Source:
        bbox = d.get("bbox")
        return cls(
            text=str(d["text"]),
            rule=str(d["rule"]),
            page=d.get("page"),
            bbox=tuple(bbox) if bbox is not None else None,  # type: ignore[arg-type]
            part=d.get("part"),
            index=d.get("index"),
            taxonomy_id=d.get("taxonomy_id"),
            taxonomy_label=d.get("taxonomy_label"),
            placeholder=bool(d.get("placeholder", False)),
            region=d.get("region"),
            region_from=d.get("region_from"),
        )


@dataclass(frozen=True, slots=True)
class FieldValue:
    """One extracted value (str; number for years_experience; {"kind", "url"} for links;
    {"employer", "title", "location", "start", "end"} for work_history and
    {"institution", "degree", "start", "end"} for education_entries, dates "YYYY[-MM]",
    end "present" or None)."""

    value: Any
    sources: tuple[Source, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "sources": [s.to_dict() for s in self.sources]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FieldValue:
        return cls(value=d["value"], sources=tuple(Source.from_dict(s) for s in d["sources"]))


@dataclass(frozen=True, slots=True)
class Extraction:
    """The extractor's answer for one parse attempt.

    `fields[name]` is a tuple of FieldValue (at most one for SINGLE_FIELDS).
    `contact_emails` are the e-mails found in the CV's own contact block (not referees'
    or agencies'): the only ones an automatic merge may rely on.
    """

    extractor_version: str
    fields: dict[str, tuple[FieldValue, ...]] = field(default_factory=dict)
    contact_emails: tuple[str, ...] = ()

    def values(self, name: str) -> list[Any]:
        return [fv.value for fv in self.fields.get(name, ())]

    def first(self, name: str) -> Any:
        vals = self.values(name)
        return vals[0] if vals else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "extractor_version": self.extractor_version,
            "fields": {k: [fv.to_dict() for fv in v] for k, v in self.fields.items()},
            "contact_emails": list(self.contact_emails),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Extraction:
        return cls(
            extractor_version=str(d["extractor_version"]),
            fields={k: tuple(FieldValue.from_dict(x) for x in v) for k, v in d.get("fields", {}).items()},
            contact_emails=tuple(d.get("contact_emails", ())),
        )
