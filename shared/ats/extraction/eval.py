"""Accuracy of the extractor over the committed evaluation corpus, beside the naive baseline.

    python -m ats.extraction.eval [--json] [--half development|heldout|both]   (`just eval-extraction`)

Every corpus CV is rendered (tests/extraction/corpus, seeded), parsed by the real parser
in-process (the sandbox's own code, without the fork), checked by the trusted side's
validator, then extracted by both extractors. Prints precision/recall per field and per
layout for both halves and exits 1 when the held-out half is below any floor.

The floors and metric definitions were fixed with the corpus, before the extractor was
tuned (docs/extraction.md). Only the development half may be used for tuning.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ats.extraction.api import extract, extract_naive
from ats.extraction.data import FIELDS, Extraction

# Held-out floors (issue 10). Metric per field: "exact" = share of CVs with a truth value
# whose value matches exactly (case-insensitive, Unicode NFC, whitespace collapsed);
# "f1" = micro F1 over the set of values; "within1" = share of CVs with a truth value
# whose prediction is within +-1 year; provenance = share of non-empty values with a source.
FLOORS: dict[str, tuple[str, float]] = {
    "name": ("exact", 0.95),
    "emails": ("f1", 0.98),
    "phones": ("f1", 0.95),
    "skills": ("f1", 0.90),
    "years_experience": ("within1", 0.85),
}
PROVENANCE_FLOOR = 1.0
# Scans may be at most this far below digital documents on any field (held-out half).
SCAN_GAP = 0.10
SCAN_LAYOUTS = frozenset({"scan_150", "scan_300"})
SET_FIELDS = ("emails", "phones", "links", "skills", "education", "languages")


def norm(text: Any) -> str:
    return " ".join(unicodedata.normalize("NFC", str(text)).split()).casefold()


def _url(url: str) -> str:
    u = norm(url)
    for prefix in ("https://", "http://"):
        u = u.removeprefix(prefix)
    return u.removeprefix("www.").rstrip("/")


def _values(field_name: str, values: Iterable[Any]) -> set[str]:
    out = set()
    for v in values:
        if field_name == "links":
            out.add(f"{v['kind']}:{_url(v['url'])}")
        else:
            out.add(norm(v))
    return out


def _education_match(pred: set[str], truth: set[str]) -> int:
    # An education entry is found when the prediction holds the degree line or vice versa
    # (extractors differ in whether they keep the years and the institution's city).
    hits = 0
    left = set(pred)
    for t in truth:
        match = next((p for p in left if t in p or (len(p) > 8 and p in t)), None)
        if match is not None:
            hits += 1
            left.discard(match)
    return hits


@dataclass
class Tally:
    """Counts for one field over a set of CVs."""

    tp: int = 0
    predicted: int = 0
    truth: int = 0
    cvs: int = 0  # CVs with a truth value (single-value fields)
    correct: int = 0  # CVs whose single value matched

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.predicted += other.predicted
        self.truth += other.truth
        self.cvs += other.cvs
        self.correct += other.correct

    @property
    def precision(self) -> float | None:
        return self.tp / self.predicted if self.predicted else (None if not self.truth else 0.0)

    @property
    def recall(self) -> float | None:
        return self.tp / self.truth if self.truth else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0

    def metric(self, kind: str) -> float | None:
        if kind in ("exact", "within1"):
            return self.correct / self.cvs if self.cvs else None
        return self.f1

    def to_dict(self) -> dict[str, Any]:
        return {
            "precision": _r(self.precision),
            "recall": _r(self.recall),
            "f1": _r(self.f1),
            "tp": self.tp,
            "predicted": self.predicted,
            "truth": self.truth,
            "exact": _r(self.correct / self.cvs) if self.cvs else None,
        }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def compare(field_name: str, predicted: Sequence[Any], truth: Any) -> Tally:
    """Score one field of one CV."""
    t = Tally()
    if field_name in SET_FIELDS:
        pred, gold = _values(field_name, predicted), _values(field_name, truth or [])
        t.predicted, t.truth = len(pred), len(gold)
        t.tp = _education_match(pred, gold) if field_name == "education" else len(pred & gold)
        return t
    value = predicted[0] if predicted else None
    t.predicted = int(value is not None and value != "")
    t.truth = int(truth is not None and truth != "")
    t.cvs = t.truth
    if not (t.predicted and t.truth):
        return t
    if field_name == "years_experience":
        ok = abs(float(value) - float(truth)) <= 1.0  # type: ignore[arg-type]
    elif field_name == "location":
        ok = norm(truth) in norm(value)
    else:
        ok = norm(value) == norm(truth)
    t.tp = t.correct = int(ok)
    return t


@dataclass
class Result:
    """One CV's outcome under one extractor."""

    id: str
    half: str
    layout: str
    tallies: dict[str, Tally]
    provenance_ok: int
    provenance_total: int
    errors: dict[str, Any] = field(default_factory=dict)


def provenance(extraction: Extraction) -> tuple[int, int]:
    """(values with a complete source, non-empty values)."""
    ok = total = 0
    for values in extraction.fields.values():
        for fv in values:
            if fv.value in (None, "", [], {}):
                continue
            total += 1
            if fv.sources and all(
                s.text and s.rule and ((s.page is not None and s.bbox is not None) or (s.part and s.index is not None))
                for s in fv.sources
            ):
                ok += 1
    return ok, total


def score_one(entry: Mapping[str, Any], extraction: Extraction) -> Result:
    tallies, errors = {}, {}
    for name in FIELDS:
        predicted = extraction.values(name)
        tallies[name] = compare(name, predicted, entry["truth"].get(name))
        tally = tallies[name]
        if tally.tp < max(tally.truth, tally.predicted):
            errors[name] = {"predicted": predicted, "truth": entry["truth"].get(name)}
    ok, total = provenance(extraction)
    return Result(entry["id"], entry["half"], entry["layout"], tallies, ok, total, errors)


def summarise(results: Iterable[Result]) -> dict[str, Any]:
    fields: dict[str, Tally] = {name: Tally() for name in FIELDS}
    prov_ok = prov_total = n = 0
    for res in results:
        n += 1
        for name, tally in res.tallies.items():
            fields[name].add(tally)
        prov_ok += res.provenance_ok
        prov_total += res.provenance_total
    return {
        "cvs": n,
        "fields": {name: t.to_dict() for name, t in fields.items()},
        "floor_metrics": {name: _r(fields[name].metric(kind)) for name, (kind, _) in FLOORS.items()},
        "provenance": _r(prov_ok / prov_total) if prov_total else None,
        "_tallies": fields,
    }


def check_floors(heldout: Sequence[Result]) -> list[str]:
    """The reasons the held-out half fails its floors (empty when it passes)."""
    failures = []
    overall = summarise(heldout)
    for name, (kind, floor) in FLOORS.items():
        value = overall["_tallies"][name].metric(kind)
        if value is None or value < floor:
            failures.append(f"{name} {kind} {value} < {floor}")
    if overall["provenance"] is not None and overall["provenance"] < PROVENANCE_FLOOR:
        failures.append(f"provenance {overall['provenance']} < {PROVENANCE_FLOOR}")
    scans = summarise(r for r in heldout if r.layout in SCAN_LAYOUTS)["_tallies"]
    text = summarise(r for r in heldout if r.layout not in SCAN_LAYOUTS)["_tallies"]
    for name in FIELDS:
        kind = FLOORS.get(name, ("f1",))[0]
        s, t = scans[name].metric(kind), text[name].metric(kind)
        if s is not None and t is not None and s < t - SCAN_GAP:
            failures.append(f"scans {name} {kind} {s:.3f} more than {SCAN_GAP:.2f} below text {t:.3f}")
    return failures


# -- running over the corpus ------------------------------------------------------------


def _repo_root() -> Path:
    return Path(__file__).resolve().parents[3]


def load_corpus() -> list[tuple[dict[str, Any], str, bytes]]:
    """(entry, kind, bytes) for every CV; the corpus generator lives with the tests."""
    root = str(_repo_root())
    if root not in sys.path:
        sys.path.insert(0, root)
    from tests.extraction import corpus

    out = []
    for entry, kind, data in corpus.documents():
        out.append(({"id": entry.id, "half": entry.half, "layout": entry.layout, "truth": entry.truth}, kind, data))
    return out


def parse_answer(kind: str, data: bytes) -> dict[str, Any]:
    """What the trusted side stores for a document: the parser's answer, validated."""
    from ats.parsing.api import DEFAULT_LIMITS, parse_document
    from ats.sandbox.api import validate_document

    return validate_document(parse_document(data, kind=kind, limits=DEFAULT_LIMITS), kind=kind, limits=DEFAULT_LIMITS)


def as_of() -> date:
    root = str(_repo_root())
    if root not in sys.path:
        sys.path.insert(0, root)
    from tests.extraction.corpus import AS_OF

    return AS_OF


Extractor = Callable[[Mapping[str, Any]], Extraction]


def run(
    documents: Sequence[tuple[dict[str, Any], str, bytes]] | None = None,
    extractors: Mapping[str, Extractor] | None = None,
) -> dict[str, Any]:
    documents = documents if documents is not None else load_corpus()
    today = as_of()
    extractors = extractors or {
        "extractor": lambda answer: extract(answer, as_of=today),
        "naive": extract_naive,
    }
    per: dict[str, list[Result]] = {name: [] for name in extractors}
    timings: dict[str, float] = dict.fromkeys(extractors, 0.0)
    parse_s = 0.0
    for entry, kind, data in documents:
        t0 = time.perf_counter()
        answer = parse_answer(kind, data)
        parse_s += time.perf_counter() - t0
        for name, fn in extractors.items():
            t0 = time.perf_counter()
            extraction = fn(answer)
            timings[name] += time.perf_counter() - t0
            per[name].append(score_one(entry, extraction))
    report: dict[str, Any] = {"floors": {k: {"metric": m, "floor": f} for k, (m, f) in FLOORS.items()}}
    report["floors"]["provenance"] = {"metric": "share", "floor": PROVENANCE_FLOOR}
    report["scan_gap"] = SCAN_GAP
    report["timing_s"] = {"parse": round(parse_s, 2), **{k: round(v, 3) for k, v in timings.items()}}
    for name, results in per.items():
        block: dict[str, Any] = {}
        for half in ("development", "heldout"):
            rows = [r for r in results if r.half == half]
            summary = summarise(rows)
            summary.pop("_tallies")
            layouts = {}
            for layout in sorted({r.layout for r in rows}):
                s = summarise(r for r in rows if r.layout == layout)
                s.pop("_tallies")
                layouts[layout] = s
            summary["layouts"] = layouts
            summary["errors"] = {r.id: r.errors for r in rows if r.errors} if half == "development" else {}
            block[half] = summary
        block["heldout"]["floor_failures"] = check_floors([r for r in results if r.half == "heldout"])
        report[name] = block
    report["passed"] = not report["extractor"]["heldout"]["floor_failures"] if "extractor" in report else None
    return report


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def format_table(report: Mapping[str, Any]) -> str:
    lines = []
    for half in ("heldout", "development"):
        ext, naive = report["extractor"][half], report["naive"][half]
        lines.append(f"## {half} ({ext['cvs']} CVs): precision / recall (F1 or exact), extractor vs naive")
        lines.append("")
        lines.append("| field | extractor P | R | F1/exact | naive P | R | F1/exact | floor |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for name in FIELDS:
            e, n = ext["fields"][name], naive["fields"][name]
            kind, floor = FLOORS.get(name, ("f1", None))
            main_e = e["exact"] if kind in ("exact", "within1") else e["f1"]
            main_n = n["exact"] if kind in ("exact", "within1") else n["f1"]
            floor_s = f"{kind} >= {floor}" if floor is not None else ""
            lines.append(
                f"| {name} | {_fmt(e['precision'])} | {_fmt(e['recall'])} | {_fmt(main_e)} | "
                f"{_fmt(n['precision'])} | {_fmt(n['recall'])} | {_fmt(main_n)} | {floor_s} |"
            )
        lines.append(
            f"| provenance | | | {_fmt(ext['provenance'])} | | | {_fmt(naive['provenance'])} | = {PROVENANCE_FLOOR} |"
        )
        lines.append("")
        lines.append(f"Per layout ({half}): F1 (exact for name, within +-1 for years); extractor / naive")
        lines.append("")
        lines.append("| layout | CVs | " + " | ".join(FIELDS) + " |")
        lines.append("|---|---|" + "---|" * len(FIELDS))
        for layout, s in ext["layouts"].items():
            ns = naive["layouts"][layout]
            cells = []
            for name in FIELDS:
                kind = FLOORS.get(name, ("f1",))[0]
                key = "exact" if kind in ("exact", "within1") else "f1"
                cells.append(f"{_fmt(s['fields'][name][key])}/{_fmt(ns['fields'][name][key])}")
            lines.append(f"| {layout} | {s['cvs']} | " + " | ".join(cells) + " |")
        lines.append("")
    failures = report["extractor"]["heldout"]["floor_failures"]
    lines.append("Held-out floors: " + ("PASS" if not failures else "FAIL: " + "; ".join(failures)))
    lines.append(f"Timing (s): {report['timing_s']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ats.extraction.eval", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args(argv)
    report = run()
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(format_table(report))
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
