"""The creation gate: a document yields a candidate only when it carries an identity.

Rule (docs/candidates.md, "A candidate needs an identity"): a person's NAME and at least
one way to reach them - an E-MAIL address or a PHONE number - all three as the extractor
validated them (a name line without digits, an address with a domain, a phone that
`phonenumbers` accepts). A signature logo, a photo, a glyph sheet, a certificate or a
cover letter without a contact block has at least one of the two missing, and ends in the
needs-attention state `no_candidate_details` instead of becoming a non-person.

The same rule judges existing candidates (`ats candidate review-identity`), over their
current field values (recruiter edits included), so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ats.extraction.data import Extraction

NAME = "name"
CONTACT = "contact"


def missing(values: Mapping[str, Sequence[Any]]) -> list[str]:
    """What is missing for an identity: [] when there is one, else "name" and/or "contact".

    `values`: field name -> the plain values (strings) of name, emails, phones.
    """

    def present(field: str) -> bool:
        return any(str(v).strip() for v in values.get(field, ()) if v is not None)

    out = []
    if not present("name"):
        out.append(NAME)
    if not (present("emails") or present("phones")):
        out.append(CONTACT)
    return out


def missing_in_extraction(extraction: Extraction) -> list[str]:
    return missing({f: extraction.values(f) for f in ("name", "emails", "phones")})


def missing_in_fields(fields: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    """Over CandidateField.values shapes ({"value": ..., "sources": [...]})."""
    return missing({f: [v.get("value") for v in fields.get(f, [])] for f in ("name", "emails", "phones")})
