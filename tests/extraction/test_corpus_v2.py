"""Corpus v2 (issue 25): CVs written by others, and a held-out half that cannot drift unseen."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

from tests.extraction.corpus import real

ROOT = Path(__file__).resolve().parents[2]


def test_heldout_half_is_pinned_and_its_history_recorded() -> None:
    # Changing the held-out half (a file, a label, a generator seed) changes this hash; the
    # change must be recorded in the held-out history of docs/extraction.md with the new hash.
    pinned = (real.HELDOUT_DIR / "HELDOUT.sha256").read_text().strip()
    assert real.heldout_sha256() == pinned
    docs = (ROOT / "docs" / "extraction.md").read_text()
    history = docs.split("### Held-out history (corpus v2)", 1)[1].split("\n## ", 1)[0]
    assert re.search(rf"\|\s*`{pinned[:12]}", history), "no history row for the pinned held-out hash"


def test_heldout_is_large_enough_and_at_least_half_real() -> None:
    held = real.entries("heldout")
    assert len(held) >= 60
    written_by_others = [e for e in held if e.source.startswith("real_")]
    assert 2 * len(written_by_others) >= len(held)
    assert len({e.group for e in written_by_others}) >= 8
    assert {"pdf", "docx"} <= {_kind(e) for e in held}
    assert len({e.locale.split("_")[0] for e in held}) >= 6


def _kind(entry: real.Entry) -> str:
    return "docx" if entry.layout.startswith("docx") else "pdf"


def test_at_least_thirty_real_cvs_and_both_halves_have_them() -> None:
    everything = real.entries()
    assert sum(e.source.startswith("real_") for e in everything) >= 30
    halves = Counter(e.half for e in everything if e.source.startswith("real_"))
    assert halves["development"] >= 10 and halves["heldout"] >= 30


def test_no_content_is_in_both_halves() -> None:
    # Split by author's content, not by file: a template's variants stay together.
    dev = {e.group for e in real.entries("development")}
    held = {e.group for e in real.entries("heldout")}
    assert not dev & held


def test_every_vendored_file_is_the_one_its_source_names() -> None:
    for half, source in real.sources():
        directory = real.DEV_DIR if half == "development" else real.HELDOUT_DIR / "files"
        data = (directory / source.file).read_bytes()
        assert hashlib.sha256(data).hexdigest() == source.sha256, source.file
        assert source.origin and source.licence, source.file
    listed = {s.file for _, s in real.sources()}
    on_disk = {p.name for p in real.DEV_DIR.iterdir() if p.name != "manifest.json"}
    on_disk |= {p.name for p in (real.HELDOUT_DIR / "files").iterdir()}
    assert on_disk == listed


def test_notice_names_the_vendored_cvs() -> None:
    notice = (ROOT / "NOTICE").read_text()
    for name in ("pas-cv", "komacv", "europasscv", "@jsonresume/schema", "fresh-test-resumes"):
        assert name in notice, name


def test_labels_use_the_agreed_shapes() -> None:
    for entry in real.entries():
        for item in entry.truth.get("work_history", []):
            assert set(item) == {"employer", "title", "start", "end"}, entry.id
            assert re.fullmatch(r"\d{4}(-\d{2})?", item["start"]), entry.id
            assert item["end"] is None or item["end"] == "present" or re.fullmatch(r"\d{4}(-\d{2})?", item["end"])
        for phone in entry.truth.get("phones", []):
            assert phone.startswith("+") or not re.fullmatch(r"\+?\d+", phone), (entry.id, phone)
