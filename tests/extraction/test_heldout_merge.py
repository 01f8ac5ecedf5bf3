"""scripts/heldout_merge.py: a draw's fragments merge only when every check passes, the spent
half moves to development first, and nothing it prints holds a label."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "heldout_merge.py"
SECRET = "Zed Quixotic-Example"  # a label value that must never be printed


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests/extraction/corpus/real").mkdir(parents=True)
    (root / "tests/extraction/heldout/files").mkdir(parents=True)
    (root / "tests/extraction/corpus/real/manifest.json").write_text(json.dumps({"files": [], "cvs": []}))
    old = b"%PDF-1.4 old held-out"
    (root / "tests/extraction/heldout/files/old_cv.pdf").write_bytes(old)
    held = {
        "files": [{"file": "old_cv.pdf", "origin": "GitHub a/b @ 0123456789ab: cv.pdf", "licence": "MIT",
                   "sha256": hashlib.sha256(old).hexdigest()}],
        "cvs": [{"id": "old-en", "file": "old_cv.pdf", "group": "old", "layout": "word_export_pdf",
                 "locale": "en_GB", "source": "real_document", "truth": {"name": "Old Example"}}],
    }  # fmt: skip
    (root / "tests/extraction/heldout/manifest.json").write_text(json.dumps(held))
    return root


def _stage(tmp_path: Path, *, sha: str | None = None) -> Path:
    stage = tmp_path / "stage"
    group = stage / "zed"
    group.mkdir(parents=True)
    (stage / "EXCLUDE.txt").write_text("a/b\n")
    cv, licence = b"%PDF-1.4 a CV", b"MIT License\nCopyright (c) Zed"
    (group / "zed_cvé.pdf").write_bytes(cv)
    (group / "zed-LICENSE.txt").write_bytes(licence)
    truth = {
        "name": SECRET,
        "work_history": [{"employer": "Acme", "title": "Dev", "start": "2020-01", "end": "present"}],
    }
    fragment = {
        "files": [
            {"file": "zed_cvé.pdf", "origin": "GitHub zed/cv @ 0123456789ab: cv.pdf", "licence": "MIT",
             "sha256": sha or hashlib.sha256(cv).hexdigest()},
            {"file": "zed-LICENSE.txt", "origin": "GitHub zed/cv @ 0123456789ab: LICENSE", "licence": "MIT",
             "sha256": hashlib.sha256(licence).hexdigest()},
        ],
        "cvs": [
            {"id": "zed-en", "file": "zed_cvé.pdf", "group": "zed", "layout": "latex_article", "locale": "en_US",
             "source": "real_document", "truth": truth},
            {"id": "zed-en-scan150", "file": "zed_cvé.pdf", "group": "zed", "layout": "scan_150", "scan_dpi": 150,
             "locale": "en_US", "source": "real_document", "truth": truth},
        ],
    }  # fmt: skip
    (group / "fragment.json").write_text(json.dumps(fragment, ensure_ascii=False))
    return stage


def _run(root: Path, stage: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), "--stage", str(stage), *extra],
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_clean_draw_retires_the_spent_half_and_merges_with_ascii_names(tmp_path: Path) -> None:
    root, stage = _root(tmp_path), _stage(tmp_path)
    done = _run(root, stage, "--retire")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "retired: 1 files, 1 CVs, 1 groups" in done.stdout
    assert "merged: 1 groups, 2 files, 1 documents + 1 scan rows = 2 CVs" in done.stdout
    dev = json.loads((root / "tests/extraction/corpus/real/manifest.json").read_text())
    held = json.loads((root / "tests/extraction/heldout/manifest.json").read_text())
    assert [c["id"] for c in dev["cvs"]] == ["old-en"] and (root / "tests/extraction/corpus/real/old_cv.pdf").exists()
    assert [c["id"] for c in held["cvs"]] == ["zed-en", "zed-en-scan150"]
    assert {c["file"] for c in held["cvs"]} == {"zed_cve.pdf"}  # the committed name, ASCII-folded
    assert (root / "tests/extraction/heldout/files/zed_cve.pdf").read_bytes() == b"%PDF-1.4 a CV"
    assert SECRET not in done.stdout + done.stderr


def test_a_wrong_sha256_merges_nothing_and_names_no_label(tmp_path: Path) -> None:
    root, stage = _root(tmp_path), _stage(tmp_path, sha="0" * 64)
    before = (root / "tests/extraction/heldout/manifest.json").read_text()
    done = _run(root, stage)
    assert done.returncode == 1
    assert "zed: zed_cvé.pdf missing or its sha256 differs" in done.stdout
    assert (root / "tests/extraction/heldout/manifest.json").read_text() == before
    assert not (root / "tests/extraction/heldout/files/zed_cve.pdf").exists()
    assert SECRET not in done.stdout + done.stderr


def test_a_dropped_group_is_left_out_with_its_reason(tmp_path: Path) -> None:
    root, stage = _root(tmp_path), _stage(tmp_path)
    done = _run(root, stage, "--retire", "--drop", "zed=publishes a home address")
    assert done.returncode == 0, done.stdout
    assert "group zed left out: publishes a home address" in done.stdout
    assert json.loads((root / "tests/extraction/heldout/manifest.json").read_text())["cvs"] == []


def test_a_development_batch_is_appended_to_the_development_half_and_the_held_out_half_is_kept(
    tmp_path: Path,
) -> None:
    root, stage = _root(tmp_path), _stage(tmp_path)
    held_before = (root / "tests/extraction/heldout/manifest.json").read_text()
    done = _run(root, stage, "--development")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "merged into development: 1 groups, 2 files, 1 documents + 1 scan rows = 2 CVs" in done.stdout
    assert SECRET not in done.stdout + done.stderr
    dev = json.loads((root / "tests/extraction/corpus/real/manifest.json").read_text())
    assert [c["id"] for c in dev["cvs"]] == ["zed-en", "zed-en-scan150"]
    assert (root / "tests/extraction/corpus/real/zed_cve.pdf").read_bytes() == b"%PDF-1.4 a CV"
    assert (root / "tests/extraction/heldout/manifest.json").read_text() == held_before
    # A held-out id is taken for a development batch too: one id space over both halves.
    (stage / "zed" / "fragment.json").write_text(
        (stage / "zed" / "fragment.json").read_text().replace('"zed-en"', '"old-en"')
    )
    again = _run(root, stage, "--development")
    assert again.returncode == 1 and "old-en: id taken" in again.stdout


def test_retire_and_development_are_one_or_the_other(tmp_path: Path) -> None:
    root, stage = _root(tmp_path), _stage(tmp_path)
    done = _run(root, stage, "--retire", "--development")
    assert done.returncode == 2 and "not allowed with" in done.stderr


def test_a_group_whose_owner_or_person_is_already_in_the_corpus_merges_nothing(tmp_path: Path) -> None:
    # stop 56: the same owner's second repository was staged while the first was a corpus group
    root, stage = _root(tmp_path), _stage(tmp_path)
    fragment = json.loads((stage / "zed" / "fragment.json").read_text())
    for f in fragment["files"]:
        f["origin"] = f["origin"].replace("GitHub zed/cv", "GitHub A/portfolio-website")  # owner "a" holds a/b
    (stage / "zed" / "fragment.json").write_text(json.dumps(fragment, ensure_ascii=False))
    out = _run(root, stage)
    assert out.returncode == 1 and "its owner a is already in the corpus (a/b)" in out.stdout
    assert SECRET not in out.stdout + out.stderr
    # ... and a CV whose name (folded) is a corpus CV's, under any owner
    fragment["files"] = [
        {**f, "origin": f["origin"].replace("A/portfolio-website", "other/cv")} for f in fragment["files"]
    ]
    for cv in fragment["cvs"]:
        cv["truth"] = {**cv["truth"], "name": "OLD EXAMPLE"}
    (stage / "zed" / "fragment.json").write_text(json.dumps(fragment, ensure_ascii=False))
    out = _run(root, stage)
    assert out.returncode == 1 and "zed-en: its name or an e-mail is a corpus CV's" in out.stdout
    assert "old example" not in out.stdout.casefold()  # the label matched is never printed
