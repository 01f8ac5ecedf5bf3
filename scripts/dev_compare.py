"""Two extractors side by side on the DEVELOPMENT half, per CV and field (issue 25).

    /opt/ats/venv/bin/python scripts/dev_compare.py --base REF [--limit N] [--no-scans]
        [--only REGEX] [--cached] [--show FIELD ...]

What a change set did to the development half, before the held-out half is read once:
the extractor of git ref REF (its `shared/`, from `git archive` into /tmp once per commit:
ats.devtools.gittree) and this tree's, each in its own process, on the same parse
answers - this tree's corpus and this tree's parse cache (`ats.extraction.eval`'s; a missing answer is
parsed and cached first, so a cold cache costs the corpus's parse once) - scored by this
tree's eval. It prints:

- the floor fields' metrics (F1, or exact for name and years) for all development CVs,
  the real documents, the real scans, before -> after;
- every CV and field whose score changed, "better" or "worse" by how far the field is
  from right (true positives less the larger of predicted and truth), and with
  `--show FIELD` what each worse one now reads against its label.

It never reads the held-out half: the corpus is loaded for development only and every row
is checked to be development's. Stop 55 compared layout-38 with layout-39 this way
(docs/extraction.md); earlier stops wrote a one-off script each time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
Tallies = dict[str, dict[str, list[int]]]  # CV id -> field -> [tp, predicted, truth]


def _answers(
    limit: int | None, scans: bool, only: str | None = None, cached: bool = False
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(corpus row, parse answer) of each development CV, this tree's corpus and cache;
    with `only`, the CVs whose id the regular expression finds (no other one is parsed);
    with `cached`, the CVs whose answer is already cached (none is parsed: a cold cache
    warming in the background is not waited for)."""
    from ats.extraction import eval as ev

    pick = re.compile(only) if only else None
    out = []
    for entry, kind, data in ev.load_corpus(["development"], development_scans=scans):
        if entry["half"] != "development":
            raise SystemExit(f"{entry['id']}: not a development CV - this script never reads the held-out half")
        if not scans and entry["layout"].startswith("scan_"):
            continue
        if pick is not None and not pick.search(entry["id"]):
            continue
        if cached and not ev._answer_path(kind, data).exists():
            continue
        out.append((entry, ev.parse_answer(kind, data, cache=True)))
        if limit is not None and len(out) >= limit:
            break
    return out


def _extract(rows_file: Path, out_file: Path) -> None:
    """In the child: the importable `ats`'s extraction of every row, as the scored fields'
    values (JSON), one dict per CV id."""
    from ats.extraction.api import EXTRACTOR_VERSION, extract

    fields = json.loads(os.environ["ATS_COMPARE_FIELDS"])
    as_of = __import__("datetime").date.fromisoformat(os.environ["ATS_COMPARE_AS_OF"])
    rows = json.loads(rows_file.read_text())
    out = {}
    for entry, answer in rows:
        found = extract(answer, as_of=as_of)
        out[entry["id"]] = {name: found.values(name) if name in found.fields else [] for name in fields}
    out_file.write_text(json.dumps({"version": EXTRACTOR_VERSION, "cvs": out}, default=str))


def _run_child(shared: Path, rows_file: Path, out_file: Path, fields: Sequence[str], as_of: str) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": str(shared),
        "ATS_COMPARE_FIELDS": json.dumps(list(fields)),
        "ATS_COMPARE_AS_OF": as_of,
    }
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(rows_file), str(out_file)]
    subprocess.run(argv, env=env, check=True, cwd=tempfile.gettempdir())
    result: dict[str, Any] = json.loads(out_file.read_text())
    return result


def tallies(rows: Iterable[Mapping[str, Any]], predicted: Mapping[str, Mapping[str, list[Any]]]) -> Tallies:
    """Each row's fields scored as ats.extraction.eval scores them."""
    from ats.extraction import eval as ev

    out: Tallies = {}
    for row in rows:
        got = predicted[row["id"]]
        out[row["id"]] = {}
        for name in ev.SCORED_FIELDS:
            if name in row["truth"]:
                t = ev.compare(name, got.get(name, []), row["truth"].get(name))
                out[row["id"]][name] = [t.tp, t.predicted, t.truth]
    return out


def _distance(t: list[int] | None) -> int:
    """How far a field is from right: 0 when every value is right, negative otherwise."""
    return t[0] - max(t[1], t[2]) if t else 0


def changes(before: Tallies, after: Tallies) -> list[tuple[str, str, str, list[int] | None, list[int] | None]]:
    """(verdict, CV id, field, before, after) of every field whose score changed; verdict
    "better", "worse", or "changed" (the same distance from right, other counts)."""
    out = []
    for cv in sorted(set(before) & set(after)):
        for name in sorted(set(before[cv]) | set(after[cv])):
            a, b = before[cv].get(name), after[cv].get(name)
            if a == b:
                continue
            step = _distance(b) - _distance(a)
            out.append(("better" if step > 0 else "worse" if step < 0 else "changed", cv, name, a, b))
    return out


def metric(t: Tallies, ids: Iterable[str], name: str, kind: str) -> float | None:
    """The eval's metric of one field over some CVs (its Tally: exact share or F1)."""
    from ats.extraction import eval as ev

    rows = [t[i][name] for i in ids if name in t[i]]
    tp, predicted, truth = (sum(r[k] for r in rows) for k in range(3))
    # one value per CV for the exact fields: a CV with a truth counts, a true positive is right
    return ev.Tally(tp=tp, predicted=predicted, truth=truth, cvs=truth, correct=tp).metric(kind)


def table(rows: Sequence[Mapping[str, Any]], before: Tallies, after: Tallies) -> str:
    from ats.extraction import eval as ev

    real = [r["id"] for r in rows if str(r.get("source", "")).startswith("real_")]
    groups = {
        "all": [r["id"] for r in rows],
        "real": real,
        "real scans": [r["id"] for r in rows if r["id"] in set(real) and r["layout"].startswith("scan_")],
    }
    lines = ["| development | CVs | " + " | ".join(ev.TARGETS) + " |", "|---|---|" + "---|" * len(ev.TARGETS)]
    for label, ids in groups.items():
        cells = []
        for name, (kind, _) in ev.TARGETS.items():
            a, b = metric(before, ids, name, kind), metric(after, ids, name, kind)
            cells.append("-" if a is None or b is None else f"{a:.3f} -> {b:.3f}")
        lines.append(f"| {label} | {len(ids)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="git ref whose extractor is compared with this tree's")
    ap.add_argument("--limit", type=int, help="the first N development CVs only")
    ap.add_argument("--no-scans", action="store_true", help="leave the scan rows out (a cold cache parses fast)")
    ap.add_argument("--only", metavar="REGEX", help="the development CVs whose id matches REGEX only")
    ap.add_argument("--cached", action="store_true", help="the CVs whose parse answer is cached only (none is parsed)")
    ap.add_argument("--show", nargs="*", default=[], metavar="FIELD", help="print each worse CV's reading of FIELD")
    ap.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _extract(*args.child)
        return 0
    if not args.base:
        ap.error("--base REF is required")
    from ats.devtools.gittree import tree_at
    from ats.extraction import eval as ev

    pairs = _answers(args.limit, scans=not args.no_scans, only=args.only, cached=args.cached)
    rows = [entry for entry, _ in pairs]
    with tempfile.TemporaryDirectory(prefix="ats-dev-compare-") as tmp:
        work = Path(tmp)
        rows_file = work / "rows.json"
        rows_file.write_text(json.dumps(pairs))
        as_of = ev.as_of().isoformat()
        fields = list(ev.SCORED_FIELDS)
        _, base = tree_at(REPO, args.base, prefix="ats-dev-compare", paths=("shared",))
        got_before = _run_child(base / "shared", rows_file, work / "before.json", fields, as_of)
        got_after = _run_child(REPO / "shared", rows_file, work / "after.json", fields, as_of)
    print(f"extractor before {got_before['version']}, after {got_after['version']}")
    got_before, got_after = got_before["cvs"], got_after["cvs"]
    before, after = tallies(rows, got_before), tallies(rows, got_after)
    print(table(rows, before, after))
    found = changes(before, after)
    truth = {r["id"]: r["truth"] for r in rows}
    for verdict, cv, name, a, b in found:
        print(f"{verdict:7} {cv} {name} {a} -> {b}")
        if verdict == "worse" and name in args.show:
            print(f"    reads {json.dumps(got_after[cv].get(name), ensure_ascii=False, default=str)[:400]}")
            print(f"    label {json.dumps(truth[cv].get(name), ensure_ascii=False, default=str)[:400]}")
    count = {v: sum(1 for f in found if f[0] == v) for v in ("better", "worse", "changed")}
    better, worse, changed = count["better"], count["worse"], count["changed"]
    print(f"{len(rows)} development CVs: {better} field-CVs better, {worse} worse, {changed} changed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
