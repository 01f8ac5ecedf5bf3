"""Pure helpers over field values: provenance, derivation, normalised match keys.

A stored value is {"value": ..., "sources": [provenance, ...]}; a provenance entry is the
extractor's Source plus where the answer came from (attachment_id, parse_attempt,
extractor_version) - the recruiter's "why is this here".
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from ats.extraction.data import EXTRA_FIELDS, FIELDS, SINGLE_FIELDS, Extraction

# The fields `ats candidate show` reports (contract) plus the extractor's extra ones.
CONTRACT_FIELDS = ("name", "emails", "phones", "links", "location", "skills", "years_experience")
ALL_FIELDS = tuple(dict.fromkeys((*CONTRACT_FIELDS, *FIELDS, *EXTRA_FIELDS)))
LIST_FIELDS = frozenset(f for f in ALL_FIELDS if f not in SINGLE_FIELDS)
# The extractor's structured entries (ats.extraction._history) and an example of each.
STRUCTURED_FIELDS = {
    "work_history": '[{"employer": "Acme", "title": "Engineer", "location": null, "start": "2019-03", "end": null}]',
    "education_entries": '[{"institution": "University of Leeds", "degree": "BSc", "start": "2012", "end": "2015"}]',
}

# Free-mail domains say nothing about a shared employer or school.
FREEMAIL = frozenset(
    {
        "gmail.com", "googlemail.com", "yahoo.com", "yahoo.co.uk", "hotmail.com", "hotmail.co.uk", "outlook.com",
        "live.com", "msn.com", "icloud.com", "me.com", "aol.com", "gmx.de", "gmx.net", "web.de", "t-online.de",
        "proton.me", "protonmail.com", "mail.ru", "yandex.ru", "orange.fr", "free.fr", "laposte.net", "libero.it",
        "qq.com", "163.com", "wp.pl", "o2.pl",
    }
)  # fmt: skip


def provenance(
    source: dict[str, Any], *, attachment_id: int | None, parse_attempt: int | None, version: str | None
) -> dict[str, Any]:
    """One provenance entry: the source as the extractor gave it plus its document/attempt."""
    out = {
        "attachment_id": attachment_id,
        "parse_attempt": parse_attempt,
        "page": source.get("page"),
        "bbox": source.get("bbox"),
        "part": source.get("part"),
        "index": source.get("index"),
        "text": source.get("text", ""),
        "rule": source.get("rule", ""),
        "extractor_version": version,
        **({"taxonomy_id": source["taxonomy_id"]} if source.get("taxonomy_id") else {}),
    }
    # The extractor's flags, only when it set them (older values keep their exact shape).
    for key in ("taxonomy_label", "placeholder", "region", "region_from"):
        if source.get(key):
            out[key] = source[key]
    return out


def is_placeholder(value: dict[str, Any]) -> bool:
    """A stored value any document showed as a template's sample ("Your Name Here",
    "john.doe@example.com", "123-456-7890"): shown, but never a match key."""
    return any(src.get("placeholder") for src in value.get("sources", ()))


def value_key(value: Any) -> str:
    """Identity of a value for union and comparison (case-insensitive, links by URL)."""
    if isinstance(value, dict):
        value = value.get("url", json.dumps(value, sort_keys=True))
    if isinstance(value, str):
        return " ".join(value.casefold().split())
    return json.dumps(value, sort_keys=True)


def keys(values: Iterable[dict[str, Any]]) -> list[str]:
    return sorted(value_key(v["value"]) for v in values)


def record_values(data: dict[str, Any], *, attachment_id: int, parse_attempt: int) -> dict[str, list[dict[str, Any]]]:
    """An ExtractionRecord's fields as stored values with full provenance."""
    extraction = Extraction.from_dict(data)
    out: dict[str, list[dict[str, Any]]] = {}
    for name, fvs in extraction.fields.items():
        vals = []
        for fv in fvs:
            if fv.value in (None, "", [], {}):
                continue
            sources = [
                provenance(
                    s.to_dict(),
                    attachment_id=attachment_id,
                    parse_attempt=parse_attempt,
                    version=extraction.extractor_version,
                )
                for s in fv.sources
            ] or [
                # The extractor promised sources; if one ever omits them, say so rather than
                # showing a value with no "why".
                provenance(
                    {"text": str(fv.value), "rule": "unsourced"},
                    attachment_id=attachment_id,
                    parse_attempt=parse_attempt,
                    version=extraction.extractor_version,
                )
            ]
            vals.append({"value": fv.value, "sources": sources})
        if vals:
            out[name] = vals
    return out


def derive(per_document: list[dict[str, list[dict[str, Any]]]]) -> dict[str, list[dict[str, Any]]]:
    """Current values from each document's newest extraction, newest document first.

    Single fields come from the newest document that has one; list fields are the union
    over documents (same value from two documents keeps both sources).
    """
    out: dict[str, list[dict[str, Any]]] = {}
    for name in ALL_FIELDS:
        if name not in LIST_FIELDS:
            for doc in per_document:
                if doc.get(name):
                    out[name] = [doc[name][0]]
                    break
            continue
        merged: dict[str, dict[str, Any]] = {}
        for doc in per_document:
            for v in doc.get(name, []):
                k = value_key(v["value"])
                if k in merged:
                    merged[k]["sources"] = [*merged[k]["sources"], *v["sources"]]
                else:
                    merged[k] = {"value": v["value"], "sources": list(v["sources"])}
        if merged:
            out[name] = list(merged.values())
    return out


def parse_edit(field: str, raw: str) -> list[Any]:  # noqa: PLR0911 - one return per field shape (JSON, list, scalar), read top to bottom
    """A recruiter's `--value` as values: JSON accepted; lists also comma-separated."""
    raw = raw.strip()
    if not raw:
        return []
    parsed: Any
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = raw
    if field == "years_experience":
        try:
            return [float(parsed)]
        except (TypeError, ValueError):
            raise ValueError(f"years_experience must be a number, not {raw!r}") from None
    if field not in LIST_FIELDS:
        return [str(parsed)]
    items = parsed if isinstance(parsed, list) else [p.strip() for p in raw.split(",") if p.strip()]
    if field == "links":
        return [item if isinstance(item, dict) else {"kind": link_kind(str(item)), "url": str(item)} for item in items]
    if field == "phones":
        return [normalise_phone(str(item)) for item in items]
    if field in {"emails", "contact_emails"}:
        return [str(item).strip().lower() for item in items]
    if field in STRUCTURED_FIELDS:
        # Entries stay objects (JSON), never their Python repr as a string.
        entries = [item for item in items if isinstance(item, dict)]
        if len(entries) != len(items):
            raise ValueError(f"{field} must be a JSON list of objects, e.g. {STRUCTURED_FIELDS[field]}")
        return entries
    return [str(item) for item in items]


def link_kind(url: str) -> str:
    low = url.lower()
    if "linkedin." in low:
        return "linkedin"
    if "github." in low:
        return "github"
    return "website"


def normalise_phone(value: str) -> str:
    # E.164 from the extractor already; hand-typed values lose spaces, dashes, brackets.
    return re.sub(r"[^\d+]", "", value)


def normalise_link(url: str) -> str:
    u = url.strip().lower()
    u = re.sub(r"^[a-z]+://", "", u)
    u = u.removeprefix("www.")
    return u.rstrip("/")


def fold(text: str) -> str:
    """Lower-case without diacritics: 'Zoë Müller' -> 'zoe muller'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())


def name_tokens(name: str) -> set[str]:
    return {t for t in re.split(r"[^\w]+", fold(name)) if len(t) >= 3}


def signals(values: dict[str, list[dict[str, Any]]]) -> set[tuple[str, str]]:
    """Match keys (kind, value) of one candidate's current values.

    Template placeholders give none: two people who both left "john.doe@example.com" or
    "123-456-7890" in their CV are not the same person.
    """
    out: set[tuple[str, str]] = set()
    values = {field: [v for v in vals if not is_placeholder(v)] for field, vals in values.items()}
    for v in values.get("emails", []):
        email = str(v["value"]).strip().lower()
        if "@" in email:
            out.add(("email", email[:512]))
            domain = email.rsplit("@", 1)[1]
            if domain not in FREEMAIL:
                out.add(("email_domain", domain[:512]))
    for v in values.get("phones", []):
        phone = normalise_phone(str(v["value"]))
        if len(phone.lstrip("+")) >= 7:
            out.add(("phone", phone[:512]))
    for v in values.get("links", []):
        url = v["value"].get("url", "") if isinstance(v["value"], dict) else str(v["value"])
        if url:
            out.add(("link", normalise_link(url)[:512]))
    for v in values.get("location", []):
        if str(v["value"]).strip():
            out.add(("location", fold(str(v["value"]))[:512]))
    for v in values.get("name", []):
        out |= {("name_token", t[:512]) for t in name_tokens(str(v["value"]))}
    return out
