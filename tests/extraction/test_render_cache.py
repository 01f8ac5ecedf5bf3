"""The corpus's rendered documents are cached by content and renderer version: the
evaluation reads the same bytes it parsed (and whose parse answers it cached) without
rendering and scanning ~500 documents again (~50 s of every run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extraction import corpus as v1


def test_a_rendering_is_made_once_per_key_and_read_back_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATS_CORPUS_RENDER_CACHE", str(tmp_path))
    calls: list[str] = []

    def make(tag: str) -> tuple[str, bytes]:
        calls.append(tag)
        return "pdf", b"%PDF-1.7\n\x00\n" + tag.encode()  # a newline and a NUL inside: kept whole

    first = v1.cached_rendering("cv:a", lambda: make("a"))
    again = v1.cached_rendering("cv:a", lambda: make("never"))
    other = v1.cached_rendering("cv:b", lambda: make("b"))
    assert first == again == ("pdf", b"%PDF-1.7\n\x00\na") and other == ("pdf", b"%PDF-1.7\n\x00\nb")
    assert calls == ["a", "b"]
    # Under the renderers' fingerprint: a change to their code is a new directory.
    assert [p.name for p in tmp_path.iterdir()] == [v1._render_fingerprint()]
    assert not list(tmp_path.rglob("*.part"))
