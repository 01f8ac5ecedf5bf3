"""Merge a held-out draw's staged fragments into the corpus, checking everything and printing
no label (docs/extraction/heldout-draw-brief.md; the lead of each draw wrote this anew
until stop 50).

    /opt/ats/venv/bin/python scripts/heldout_merge.py --stage /work/v14stage \\
        [--drop GROUP=REASON ...] [--retire | --development] [--root .]

Each group directory of the stage holds its files and a `fragment.json` ({"files": [...],
"cvs": [...]}, the brief's shape). Every check runs before anything is written; with any
problem the script prints them (ids and file names, never label values) and exits 1. A group
is one author's content: an origin whose owner is already in the corpus (or in another
staged group), or a CV whose name or e-mail is a corpus CV's, is a problem (stop 56).
`--retire` first moves the current held-out half's files and rows into the development half
(tests/extraction/corpus/real/) - the spent set's move; the generated seed in
tests/extraction/corpus/real.py and HELDOUT.sha256, the history row and NOTICE are the
lead's to update after (the brief says how). `--development` merges a development batch
(stop 49's v13, stop 55's v16): the same checks, the files and rows appended to the
development half; the held-out half is not touched.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRUTH_KEYS = {"name", "emails", "phones", "skills", "work_history", "education_entries", "years_experience", "location"}
_ORIGIN = re.compile(r"GitHub (\S+) @ [0-9a-f]{12}: \S")
_YM = re.compile(r"\d{4}(-\d{2})?")


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"  # the manifests' own layout


def _ascii(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()


def _label_problems(cv: dict[str, Any]) -> list[str]:
    out = []
    truth = cv.get("truth")
    if not isinstance(truth, dict):
        return [f"{cv.get('id')}: no truth"]
    if set(truth) - TRUTH_KEYS:
        out.append(f"{cv['id']}: unknown truth keys {sorted(set(truth) - TRUTH_KEYS)}")
    for entry in truth.get("work_history") or []:
        end = entry.get("end") if isinstance(entry, dict) else None
        if (
            not isinstance(entry, dict)
            or set(entry) != {"employer", "title", "start", "end"}
            or not _YM.fullmatch(str(entry["start"]))
            or not (end is None or end == "present" or _YM.fullmatch(str(end)))
        ):
            out.append(f"{cv['id']}: a work-history entry's shape or dates")
    for phone in truth.get("phones") or []:
        if not str(phone).startswith("+") and re.fullmatch(r"\+?\d+", str(phone)):
            out.append(f"{cv['id']}: a phone neither E.164 nor as written")
    return out


@dataclass
class _Known:
    """What the corpus (and the groups checked so far) already holds."""

    ids: set[str]
    groups: set[str]
    files: set[str]
    excluded: set[str]
    # A group is one author's content: an owner already in the corpus (another repository of
    # theirs) or in another staged group is the same person (stop 56: Cyb3r-Jak3's second
    # repository was staged for held-out v17 while the first was a development group).
    owners: dict[str, str] = field(default_factory=dict)  # owner (casefolded) -> where it is
    people: set[str] = field(default_factory=set)  # the corpus's names and e-mails, folded


def _owner(repo: str) -> str:
    """ "Cyb3r-Jak3/portfolio" -> "cyb3r-jak3": whose repository it is."""
    return repo.split("/", maxsplit=1)[0].casefold()


def _file_problems(group: Path, f: dict[str, Any], name: str, known: _Known) -> list[str]:
    out = []
    path = group / f["file"]
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != f.get("sha256"):
        out.append(f"{group.name}: {f['file']} missing or its sha256 differs")
    if name in known.files:
        out.append(f"{group.name}: file name {name} is taken")
    known.files.add(name)
    origin = _ORIGIN.match(str(f.get("origin", "")))
    if origin is None:
        out.append(f"{group.name}: {f['file']}'s origin is not 'GitHub owner/repo @ commit: path'")
    elif origin.group(1).casefold() in known.excluded:
        out.append(f"{group.name}: {origin.group(1)} is excluded (already in the corpus)")
    else:
        owner = _owner(origin.group(1))
        where = known.owners.setdefault(owner, group.name)
        if where != group.name:
            out.append(f"{group.name}: its owner {owner} is already in {where} (a group is one author's content)")
    if not f.get("licence"):
        out.append(f"{group.name}: {f['file']} has no licence")
    return out


def _person_keys(truth: Any) -> set[str]:
    """A CV's name and e-mails, folded (never printed)."""
    if not isinstance(truth, dict):
        return set()
    name = " ".join(re.sub(r"[\W_]+", " ", _ascii(str(truth.get("name") or ""))).split()).casefold()
    emails = {str(e).strip().casefold() for e in truth.get("emails") or []}
    return ({name} if name else set()) | emails


def _cv_problems(group: Path, cv: dict[str, Any], names: dict[str, str], known: _Known) -> list[str]:
    out = []
    if _person_keys(cv.get("truth")) & known.people:
        out.append(f"{cv['id']}: its name or an e-mail is a corpus CV's (the same person?)")
    if cv["file"] not in names.values():
        out.append(f"{cv['id']}: its file is not among the group's files")
    if cv["id"] in known.ids or cv["id"] != cv["id"].lower():
        out.append(f"{cv['id']}: id taken or not lower case")
    known.ids.add(cv["id"])
    if cv.get("group") != group.name or group.name in known.groups:
        out.append(f"{cv['id']}: group is not its directory's, or is taken")
    if cv.get("source") != "real_document":
        out.append(f"{cv['id']}: source is not real_document")
    if cv["layout"].startswith("scan_") and (
        cv.get("scan_dpi") not in (150, 300) or cv["layout"] != f"scan_{cv.get('scan_dpi')}"
    ):
        out.append(f"{cv['id']}: scan layout and scan_dpi disagree")
    return out + _label_problems(cv)


def plan(root: Path, stage: Path, drop: dict[str, str]) -> tuple[list[str], list[tuple[Path, str]], dict[str, Any]]:
    """(problems, files to copy as (source, name), the new held-out manifest)."""
    dev = json.loads((root / "tests/extraction/corpus/real/manifest.json").read_text())
    held = json.loads((root / "tests/extraction/heldout/manifest.json").read_text())
    exclude_file = stage / "EXCLUDE.txt"
    excluded = exclude_file.read_text().splitlines() if exclude_file.exists() else []
    known = _Known(
        ids={c["id"] for c in dev["cvs"] + held["cvs"]},
        groups={c["group"] for c in dev["cvs"] + held["cvs"]},
        files={f["file"] for f in dev["files"] + held["files"]},
        excluded={ln.strip().casefold() for ln in excluded if ln.strip()},
        people={key for c in dev["cvs"] + held["cvs"] for key in _person_keys(c.get("truth"))},
    )
    for f in dev["files"] + held["files"]:
        origin = _ORIGIN.match(str(f.get("origin", "")))
        if origin:
            known.owners.setdefault(_owner(origin.group(1)), f"the corpus ({origin.group(1)})")
    problems: list[str] = []
    copies: list[tuple[Path, str]] = []
    new: dict[str, Any] = {"files": [], "cvs": []}
    for group in sorted(p for p in stage.iterdir() if p.is_dir()):
        if group.name in drop:
            print(f"group {group.name} left out: {drop[group.name]}")
            continue
        fragment = json.loads((group / "fragment.json").read_text())
        names = {f["file"]: _ascii(f["file"]) for f in fragment["files"]}
        for f in fragment["files"]:
            problems += _file_problems(group, f, names[f["file"]], known)
            copies.append((group / f["file"], names[f["file"]]))
            new["files"].append({**f, "file": names[f["file"]]})
        if not any(n.endswith(("-LICENSE.txt", "-README.md")) for n in names.values()):
            problems.append(f"{group.name}: no licence file (<group>-LICENSE.txt or <group>-README.md)")
        rows = [{**cv, "file": names.get(cv["file"], cv["file"])} for cv in fragment["cvs"]]
        documents = {cv["file"]: cv.get("truth") for cv in rows if not cv["layout"].startswith("scan_")}
        for cv in rows:
            problems += _cv_problems(group, cv, names, known)
            scan_of_no_pdf = not cv["file"].endswith(".pdf") or documents.get(cv["file"]) != cv.get("truth")
            if cv["layout"].startswith("scan_") and scan_of_no_pdf:
                problems.append(f"{cv['id']}: a scan row of no PDF document, or its truth differs from it")
        known.groups.add(group.name)
        known.people |= {key for cv in rows for key in _person_keys(cv.get("truth"))}
        new["cvs"] += rows
    return problems, copies, new


def retire(root: Path) -> None:
    """The current held-out half's files and rows into the development half."""
    dev_dir, held_dir = root / "tests/extraction/corpus/real", root / "tests/extraction/heldout"
    dev = json.loads((dev_dir / "manifest.json").read_text())
    held = json.loads((held_dir / "manifest.json").read_text())
    clash = [f["file"] for f in held["files"] if (dev_dir / f["file"]).exists()]
    if clash:
        sys.exit(f"not retired: {len(clash)} file names exist in the development half ({clash[0]}, ...)")
    for f in held["files"]:
        shutil.move(held_dir / "files" / f["file"], dev_dir / f["file"])
    dev["files"] += held["files"]
    dev["cvs"] += held["cvs"]
    (dev_dir / "manifest.json").write_text(_dump(dev))
    (held_dir / "manifest.json").write_text(_dump({"files": [], "cvs": []}))
    print(
        f"retired: {len(held['files'])} files, {len(held['cvs'])} CVs, {len({c['group'] for c in held['cvs']})} groups"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--drop", action="append", default=[], metavar="GROUP=REASON")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--retire", action="store_true", help="move the current held-out half to development first")
    mode.add_argument("--development", action="store_true", help="a development batch: append to the development half")
    args = parser.parse_args(argv)
    drop = dict(d.split("=", 1) for d in args.drop)
    if args.retire:
        retire(args.root)
    problems, copies, new = plan(args.root, args.stage, drop)
    if problems:
        print(f"{len(problems)} problems; nothing merged:")
        print("\n".join(f"  {p}" for p in problems))
        return 1
    if args.development:
        files_dir = manifest_dir = args.root / "tests/extraction/corpus/real"
        manifest = json.loads((manifest_dir / "manifest.json").read_text())
        written = {"files": manifest["files"] + new["files"], "cvs": manifest["cvs"] + new["cvs"]}
    else:
        manifest_dir = args.root / "tests/extraction/heldout"
        files_dir, written = manifest_dir / "files", new
    files_dir.mkdir(parents=True, exist_ok=True)
    for source, name in copies:
        shutil.copyfile(source, files_dir / name)
    (manifest_dir / "manifest.json").write_text(_dump(written))
    into = " into development" if args.development else ""
    cvs = new["cvs"]
    scans = sum(c["layout"].startswith("scan_") for c in cvs)
    print(
        f"merged{into}: {len({c['group'] for c in cvs})} groups, {len(new['files'])} files,"
        f" {len(cvs) - scans} documents"
        f" + {scans} scan rows = {len(cvs)} CVs; languages {sorted({c['locale'].split('_')[0] for c in cvs})}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
