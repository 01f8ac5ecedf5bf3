"""The evaluation corpus is what was committed: ground truth and the held-out half's hash."""

from __future__ import annotations

from collections import Counter

from tests.extraction import corpus


def test_truth_file_is_what_the_generator_produces() -> None:
    # A change to the generator or the hand-made specs shows up here; regenerate with
    # `python -m tests.extraction.corpus --write` only for development-half changes.
    committed = (corpus.HERE / "truth.jsonl").read_text().splitlines()
    assert committed == corpus.truth_lines()


def test_heldout_half_is_unchanged_since_the_corpus_commit() -> None:
    # Recorded when the corpus was committed, before the extractor was tuned.
    assert (corpus.HERE / "HELDOUT.sha256").read_text().strip() == corpus.heldout_sha256()


def test_corpus_covers_layouts_locales_and_both_halves() -> None:
    entries = corpus.entries()
    assert len(entries) >= 60
    assert len({e.locale for e in entries}) >= 6
    halves = Counter(e.half for e in entries)
    assert abs(halves["development"] - halves["heldout"]) <= 1
    for layout in corpus.GENERATED_LAYOUTS:
        assert {e.half for e in entries if e.layout == layout} == {"development", "heldout"}, layout
    assert {e.source for e in entries} == {"generated", "hand"}
    assert len({e.id for e in entries}) == len(entries)
    # Locale features the extractor must handle are present: diacritics, ongoing roles.
    assert any(any(ord(ch) > 127 for ch in e.truth["name"]) for e in entries if e.half == "heldout")
    assert all(e.truth["name"] for e in entries)
