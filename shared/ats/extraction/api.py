"""Facade of the extractor. Pure: no Django, database or HTTP client.

`extract()` takes the validated parse answer (the dict the trusted side stores in
`ParseAttempt.result`: `text`, `blocks`, `paragraphs`, `tables`, ...) and returns an
Extraction. `extract_naive()` is the baseline the evaluation measures beside it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from ats.extraction.data import EXTRA_FIELDS, FIELDS, SINGLE_FIELDS, Extraction, FieldValue, Source

__all__ = [
    "EXTRACTOR_VERSION",
    "EXTRA_FIELDS",
    "FIELDS",
    "NAIVE_VERSION",
    "SINGLE_FIELDS",
    "Extraction",
    "FieldValue",
    "Source",
    "extract",
    "extract_naive",
    "skill_taxonomy_ids",
    "skill_vocabulary",
]

NAIVE_VERSION = "naive-1"
# Bump RULES_VERSION when a rule changes what it extracts: stored values record the version
# that made them. The skills taxonomy's own version (skills.csv) is part of it.
RULES_VERSION = "layout-73"  # layout-7 was measured, failed the gate and was reverted (docs/extraction.md)


def _extractor_version() -> str:
    from ats.extraction import _lexicon

    return f"{RULES_VERSION}+skills-{_lexicon.taxonomy_version()}"


EXTRACTOR_VERSION = _extractor_version()
# Bounded quantifiers: linear on hostile input.
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}")


def extract_naive(answer: Mapping[str, Any]) -> Extraction:
    """The skeleton's rule: name = first non-empty line, e-mail = first regex match."""
    text = str(answer.get("text") or "")
    fields: dict[str, tuple[FieldValue, ...]] = {}
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first_line:
        fields["name"] = (FieldValue(first_line[:255], (Source(text=first_line, rule="naive.first_line"),)),)
    # A validated answer holds at most 200k characters; the cap keeps the regex's
    # per-position work (up to 64 characters) bounded on other input too.
    m = _EMAIL.search(text, 0, 200_000)
    if m:
        fields["emails"] = (FieldValue(m.group(0).lower(), (Source(text=m.group(0), rule="naive.regex_email"),)),)
    return Extraction(extractor_version=NAIVE_VERSION, fields=fields)


def extract(
    answer: Mapping[str, Any],
    *,
    default_region: str | None = "GB",
    channel_region: str | None = None,
    as_of: date | None = None,
) -> Extraction:
    """Layout-aware extraction over a validated parse answer (schema 2, or 1 as a fallback).

    A national phone number's region comes from the document's own signals (+codes of its
    other numbers, a country or city, a national e-mail domain, its language), else
    ``channel_region`` (the mailbox's or upload's setting), else ``default_region`` (the
    deployment's); with none of them, or when the signals disagree, the number is kept as
    written under ``phones_as_written``. ``as_of`` is the date "Present" means (today when
    None). Pure and linear in the input.
    """
    from ats.extraction import _history, _layout, _rules

    today = as_of or date.today()
    lines = _layout.lines_of(answer)
    fields: dict[str, tuple[FieldValue, ...]] = {}

    def put(name: str, found: Iterable[_rules.Found]) -> None:
        values = tuple(FieldValue(f.value, tuple(f.sources)) for f in found if f.sources)
        if values:
            fields[name] = values[:1] if name in SINGLE_FIELDS else values

    own_emails, contact_emails = _rules.emails(lines, ocr=bool(answer.get("ocr_used")))
    found_name = _rules.name(lines, [str(f.value) for f in own_emails])
    put("emails", own_emails)
    evidence = _rules.region_evidence(
        lines, [str(f.value) for f in own_emails], channel=channel_region, default=default_region
    )
    phones, as_written = _rules.phones(lines, evidence)
    put("phones", phones)
    put("phones_as_written", as_written)
    # A template's sample name is kept as read but flagged, like its sample e-mail and
    # phone: the candidates module never matches or merges people on flagged values.
    sample_contact = any(s.placeholder for f in (*own_emails, *phones, *as_written) for s in f.sources)
    if found_name and _rules.placeholder_name(str(found_name.value), sample_contact=sample_contact):
        found_name.sources = [dataclasses.replace(s, placeholder=True) for s in found_name.sources]
    put("name", [found_name] if found_name else [])
    put("links", _rules.links(lines))
    found_location = _rules.location(lines)
    put("location", [found_location] if found_location else [])
    listed, mentioned = _rules.listed_and_mentioned(_rules.skills(lines))
    put("skills", listed)
    put("skills_mentioned", mentioned)
    history = _history.work_history(lines, today)
    put("work_history", [_rules.Found(e.value, e.sources) for e in history])
    # Years come from the structured entries when there are any (so the recruiter sees the
    # roles they were added up from); a CV with dates but no experience section keeps the
    # line-based reading.
    from_entries = _history.years_from(history)
    years = _rules.Found(from_entries[0], from_entries[1]) if from_entries else _rules.years_experience(lines, today)
    put("years_experience", [years] if years else [])
    put("education", _rules.education(lines))
    put("education_entries", [_rules.Found(e.value, e.sources) for e in _history.education_entries(lines)])
    put("languages", _rules.languages(lines))
    ordered = {k: fields[k] for k in (*FIELDS, *EXTRA_FIELDS) if k in fields}
    return Extraction(extractor_version=EXTRACTOR_VERSION, fields=ordered, contact_emails=tuple(contact_emails))


def skill_taxonomy_ids() -> dict[str, str]:
    """Canonical skill name -> its taxonomy id ("esco:<concept id>" or "ats:<name>")."""
    from ats.extraction import _lexicon

    return {skill.canonical: skill.taxonomy_id for skill in _lexicon.skills().values()}


def skill_vocabulary() -> dict[str, str]:
    """Every spelling of a known skill (case-folded canonical name or alias) -> its canonical
    name: what requisitions validate their skills against (the extractor's own vocabulary)."""
    from ats.extraction import _lexicon

    return {spelling: skill.canonical for spelling, skill in _lexicon.skills().items()}
