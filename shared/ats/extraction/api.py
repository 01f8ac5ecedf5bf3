"""Facade of the extractor. Pure: no Django, database or HTTP client.

`extract()` takes the validated parse answer (the dict the trusted side stores in
`ParseAttempt.result`: `text`, `blocks`, `paragraphs`, `tables`, ...) and returns an
Extraction. `extract_naive()` is the baseline the evaluation measures beside it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from ats.extraction.data import FIELDS, SINGLE_FIELDS, Extraction, FieldValue, Source

__all__ = ["FIELDS", "SINGLE_FIELDS", "Extraction", "FieldValue", "Source", "extract", "extract_naive"]

NAIVE_VERSION = "naive-1"
# Bounded quantifiers: linear on hostile input.
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}")


def extract_naive(answer: Mapping[str, Any]) -> Extraction:
    """The skeleton's rule: name = first non-empty line, e-mail = first regex match."""
    text = str(answer.get("text") or "")
    fields: dict[str, tuple[FieldValue, ...]] = {}
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first_line:
        fields["name"] = (FieldValue(first_line[:255], (Source(text=first_line, rule="naive.first_line"),)),)
    m = _EMAIL.search(text)
    if m:
        fields["emails"] = (FieldValue(m.group(0).lower(), (Source(text=m.group(0), rule="naive.regex_email"),)),)
    return Extraction(extractor_version=NAIVE_VERSION, fields=fields)


def extract(answer: Mapping[str, Any], *, default_region: str = "GB", as_of: date | None = None) -> Extraction:
    """Layout-aware extraction (replaced by the real extractor; the naive rule until then).

    ``as_of`` is the date "Present" means (today when None).
    """
    return extract_naive(answer)
