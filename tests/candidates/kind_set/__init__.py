"""The labelled set that measures document kind (ats.candidates.kind, issue 28 item 3).

Items, each labelled cv / cover_letter / certificate / other:
- ``own.json``: 40 short texts written for this set (cover letters, certificates and
  transcripts, other documents - invoices, job ads with CV-like headings, forms...) in
  English, German, French, Spanish, Dutch and Italian;
- CVs: the extraction corpus's generated CVs (tests/extraction/corpus) in every layout but
  the scans, rendered and parsed as the pipeline would;
- ``thirdparty.json``: text-layer PDFs/DOCX of the third-party corpus (tests/thirdparty),
  labelled by hand after reading each one's parsed text (all `other`: test pages, forms,
  tables, "Hello World"), parsed in the production sandbox (slow; needs the sdist cache).

Split: an item is held out when sha256(id) % 3 == 0 (a third, fixed by the id, no choice
by hand). ``HELDOUT.sha256`` pins the held-out ids. Rules are tuned on development items
only; the held-out figure was measured once and is recorded in docs/candidates.md. A
held-out miss looked at must move that item to development (and a new one be drawn).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections import Counter
from pathlib import Path

from ats.candidates import identity, kind
from ats.extraction import api as extraction_api

HERE = Path(__file__).resolve().parent


@dataclasses.dataclass(frozen=True)
class Item:
    id: str
    label: str
    text: str
    has_identity: bool
    source: str  # own | cv | thirdparty

    @property
    def half(self) -> str:
        return "heldout" if is_heldout(self.id) else "development"


def _item(item_id: str, label: str, answer: dict, source: str) -> Item:
    text = str(answer.get("text") or "")
    has_identity = not identity.missing_in_extraction(extraction_api.extract(answer))
    return Item(item_id, label, text, has_identity, source)


def own_items() -> list[Item]:
    return [_item(r["id"], r["label"], {"text": r["text"]}, "own") for r in json.loads((HERE / "own.json").read_text())]


@functools.cache
def cv_items() -> tuple[Item, ...]:
    from ats.parsing.api import DEFAULT_LIMITS, parse_document
    from tests.extraction import corpus

    out = []
    for cv in [*corpus.generated(), *corpus.extra_development()]:
        if cv.layout in corpus.SCAN_LAYOUTS:
            continue  # OCR is slow and measured by the extraction suite; kind reads text
        doc_kind, data = corpus.render(cv)
        answer = dict(parse_document(data, kind=doc_kind, limits=DEFAULT_LIMITS))
        out.append(_item(f"cv-{cv.id}", kind.CV, answer, "cv"))
    return tuple(out)


def thirdparty_items(half: str | None = None) -> list[Item]:
    """The third-party items (of one half only, if given: each is a sandboxed parse)."""
    from tests import thirdparty
    from tests.sandbox_parse import parse_in_production_sandbox

    wanted = {r["key"]: r["label"] for r in json.loads((HERE / "thirdparty.json").read_text())}
    out = []
    for f in thirdparty.files():
        if f.key in wanted and (half is None or ("heldout" if is_heldout(f"tp-{f.key}") else "development") == half):
            doc_kind = "docx" if f.key.lower().endswith(".docx") else "pdf"
            answer, _cpu = parse_in_production_sandbox(doc_kind, f.data)
            out.append(_item(f"tp-{f.key}", wanted[f.key], answer, "thirdparty"))
    return out


def is_heldout(item_id: str) -> bool:
    return int(hashlib.sha256(item_id.encode()).hexdigest(), 16) % 3 == 0


def all_ids() -> list[str]:
    """Every item's id, without parsing anything (the held-out pin reads these)."""
    from tests.extraction import corpus

    own = [r["id"] for r in json.loads((HERE / "own.json").read_text())]
    cvs = [
        f"cv-{cv.id}"
        for cv in [*corpus.generated(), *corpus.extra_development()]
        if cv.layout not in corpus.SCAN_LAYOUTS
    ]
    third = [f"tp-{r['key']}" for r in json.loads((HERE / "thirdparty.json").read_text())]
    return [*own, *cvs, *third]


def heldout_ids_sha256(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(i for i in ids if is_heldout(i))).encode()).hexdigest()


def measure(items: list[Item]) -> dict[str, object]:
    """Accuracy over the four kinds, CV-vs-not precision and recall, and the confusions."""
    confusion: Counter[tuple[str, str]] = Counter()
    for item in items:
        confusion[(item.label, kind.classify(item.text, has_identity=item.has_identity).kind)] += 1
    n = sum(confusion.values())
    right = sum(c for (truth, got), c in confusion.items() if truth == got)
    cv_tp = confusion[(kind.CV, kind.CV)]
    cv_pred = sum(c for (_, got), c in confusion.items() if got == kind.CV)
    cv_true = sum(c for (truth, _), c in confusion.items() if truth == kind.CV)
    return {
        "items": n,
        "accuracy": round(right / n, 3) if n else 0.0,
        "cv_precision": round(cv_tp / cv_pred, 3) if cv_pred else 1.0,
        "cv_recall": round(cv_tp / cv_true, 3) if cv_true else 1.0,
        "misses": {f"{t}->{g}": c for (t, g), c in sorted(confusion.items()) if t != g},
    }
