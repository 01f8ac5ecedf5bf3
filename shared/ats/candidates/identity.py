"""The creation gate: a document yields a candidate only when it carries an identity.

Rule (docs/candidates.md, "A candidate needs an identity"): a person's NAME and at least
one way to reach them - an E-MAIL address or a PHONE number - all three as the extractor
validated them (a name line without digits, an address with a domain, a phone that
`phonenumbers` accepts). A signature logo, a photo, a glyph sheet, a certificate or a
cover letter without a contact block has at least one of the two missing, and ends in the
needs-attention state `no_candidate_details` instead of becoming a non-person.

A name plus a contact is not enough on its own: the third-party corpus (tests/thirdparty)
made candidates of a signature stamp's "Hello World", a form's "Va Date Stamp", a
product's "The LinnSequencer" and an OCR'd map's "S Tarnose". So, further:

- the name must READ LIKE A PERSON'S NAME (`name_problem`): no sentence punctuation,
  no word that is never part of a person's name (articles, pronouns, forms of "to be",
  greetings), not two or more words that label parts of forms and documents;
- a document whose text came from OCR alone (a photo, a scan, a map) must also READ AS A
  CV OR A COVER LETTER (`candidates.kind`): OCR reads a name-shaped line and a phone
  out of almost any picture with text, so there the pair alone proves nothing.

The same rule judges existing candidates (`ats candidate review-identity`), over their
current field values (recruiter edits included), so the two can never disagree (the
OCR condition is about a document, not about field values: only the creation gate
applies it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from ats.candidates import kind as kind_rule
from ats.extraction.data import Extraction

NAME = "name"
CONTACT = "contact"
# The document's text came from OCR only and it does not read as a CV or cover letter.
KIND = "kind"

# Sentence punctuation: a name never holds these ("Previous Edition Is Obsolete." did).
_SENTENCE_MARKS = frozenset("!?;:\u2026")
# A full stop is a name's only after an initial ("J.", "Ma.") or one of these.
_ABBREVIATIONS = frozenset({"jr.", "sr.", "dr.", "mr.", "mrs.", "ms.", "mx.", "prof.", "st.", "ste.", "hon."})
# English closed-class words that are never (part of) a person's name. Deliberately
# small and without the short words that ARE names or name particles elsewhere (An,
# To, Do, Ha, Le, La, De, Van, Von, Da, Di, Del, Will, May): a word here must be
# unmistakable in any CV of any origin.
_NEVER_IN_A_NAME = frozenset(
    {
        "the",
        "this",
        "that",
        "these",
        "those",
        "is",
        "are",
        "was",
        "were",
        "been",
        "it",
        "its",
        "our",
        "your",
        "their",
        "we",
        "you",
        "they",
        "with",
        "from",
        "for",
        "of",
        "hello",
        "please",
        "thank",
        "thanks",
    }
)
# Words that label parts of forms and documents. Each can be a surname (Larry Page,
# Terence Stamp), so ONE is allowed; two or more make a label line, not a person
# ("Va Date Stamp", "Sample Page", "Form Number").
_DOCUMENT_WORDS = frozenset(
    {
        "address",
        "appendix",
        "attachment",
        "code",
        "copy",
        "date",
        "document",
        "draft",
        "edition",
        "email",
        "example",
        "fax",
        "figure",
        "file",
        "form",
        "invoice",
        "name",
        "number",
        "obsolete",
        "office",
        "official",
        "page",
        "phone",
        "previous",
        "print",
        "reference",
        "report",
        "revised",
        "sample",
        "section",
        "signature",
        "signed",
        "stamp",
        "subject",
        "table",
        "test",
        "title",
        "total",
        "version",
        "world",
    }
)


def _words(name: str) -> list[str]:
    folded = unicodedata.normalize("NFC", name).casefold()
    return [w.strip(",.'\"()[]") for w in folded.split()]


def name_problem(name: str) -> str | None:
    """Why `name` does not read like a person's name, or None when it does.

    Shape only, no list of names: hyphenated, accented, apostrophised, all-caps, CJK and
    initial-plus-surname names all pass ("Jane O'Neil", "Ana María López-García",
    "山田 太郎", "J. Smith", "JANE DOE")."""
    text = name.strip()
    if any(c in _SENTENCE_MARKS for c in text):
        return "it holds sentence punctuation"
    for token in text.split():
        if token.endswith(".") and token.casefold() not in _ABBREVIATIONS and len(token.rstrip(".")) > 2:
            return "it holds sentence punctuation"
    words = [w for w in _words(text) if w]
    never = [w for w in words if w in _NEVER_IN_A_NAME]
    if never:
        return f'"{never[0]}" is never part of a person\'s name'
    labels = [w for w in words if w in _DOCUMENT_WORDS]
    if len(labels) >= 2:
        return "its words label a form or document (" + ", ".join(labels) + ")"
    return None


def missing(values: Mapping[str, Sequence[Any]]) -> list[str]:
    """What is missing for an identity: [] when there is one, else "name" and/or "contact".

    `values`: field name -> the plain values (strings) of name, emails, phones. A name
    that does not read like a person's (`name_problem`) is no name.
    """

    def present(field: str) -> bool:
        return any(str(v).strip() for v in values.get(field, ()) if v is not None)

    names = [str(v) for v in values.get("name", ()) if v is not None and str(v).strip()]
    out = []
    if not any(name_problem(n) is None for n in names):
        out.append(NAME)
    if not (present("emails") or present("phones")):
        out.append(CONTACT)
    return out


def missing_in_extraction(extraction: Extraction) -> list[str]:
    return missing({f: extraction.values(f) for f in ("name", "emails", "phones")})


def read_by_ocr_only(result: Mapping[str, Any]) -> bool:
    """Whether every page's text came from OCR (an image, a scan without a text layer)."""
    pages = result.get("pages") or 0
    ocr_pages = result.get("ocr_pages") or 0
    # Scanned pages past the OCR page cap or time budget have no text at all (warnings
    # "ocr_page_cap: N ..." / "ocr_time_budget: N ..."): they count as pages without a
    # text layer too.
    for warning in result.get("warnings") or ():
        capped = re.match(r"ocr_(?:page_cap|time_budget): (\d+) ", str(warning))
        if capped:
            ocr_pages += int(capped.group(1))
    return bool(result.get("ocr_used")) and pages > 0 and ocr_pages >= pages


def missing_for_document(extraction: Extraction, *, result: Mapping[str, Any], text: str) -> list[str]:
    """The creation gate for a new document: `missing_in_extraction`, and for a document
    read by OCR alone, `KIND` unless it reads as a CV or a cover letter."""
    out = missing_in_extraction(extraction)
    if not out and read_by_ocr_only(result):
        guess = kind_rule.classify(text, has_identity=True)
        if guess.kind not in (kind_rule.CV, kind_rule.COVER_LETTER):
            out.append(KIND)
    return out


def missing_in_fields(fields: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    """Over CandidateField.values shapes ({"value": ..., "sources": [...]})."""
    return missing({f: [v.get("value") for v in fields.get(f, [])] for f in ("name", "emails", "phones")})
