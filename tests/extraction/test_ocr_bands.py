"""OCR's second look: a name in large bold capitals that full-page OCR drops is recovered."""

from __future__ import annotations

import pytest

from ats.parsing import _mupdf
from ats.parsing.api import DEFAULT_LIMITS, parse_document
from tests.extraction import corpus
from tests.sandbox_parse import parse_in_production_sandbox

pytestmark = pytest.mark.timeout(300)


def _scan() -> tuple[str, bytes, str]:
    cv = next(cv for cv in corpus.extra_development() if cv.id == "dev-scan_150-09")
    kind, data = corpus.render(cv)
    return kind, data, cv.name.upper()


def test_dropped_capitals_are_read_on_a_second_look() -> None:
    kind, data, name = _scan()
    result = parse_document(data, kind=kind, limits=DEFAULT_LIMITS)
    assert result["text"].startswith(name)
    first = result["blocks"][0]
    assert first["lines"][0]["text"] == name and first["lines"][0]["size"] > 12  # set large, read as such


def test_without_the_second_look_the_name_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tesseract's full-page layout analysis drops this line (the reason for the second look).
    monkeypatch.setattr(_mupdf, "_uncovered", lambda bands, blocks: [])
    kind, data, name = _scan()
    assert name not in parse_document(data, kind=kind, limits=DEFAULT_LIMITS)["text"]


# A development-half scan whose name full-page OCR reads with a wrong accent ("Bjórn").
_ACCENTED = "dev-scan_300-05"


def _accented_scan() -> tuple[str, bytes, str]:
    cv = next(cv for cv in corpus.extra_development() if cv.id == _ACCENTED)
    kind, data = corpus.render(cv)
    return kind, data, corpus.display_name(cv)


def _first_line(result: dict) -> str:
    return result["blocks"][0]["lines"][0]["text"]


def test_large_lines_are_read_again_for_their_accents() -> None:
    kind, data, name = _accented_scan()
    assert _first_line(parse_document(data, kind=kind, limits=DEFAULT_LIMITS)) == name


def test_without_the_re_read_the_accent_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_mupdf, "_MAX_REREADS", 0)
    kind, data, name = _accented_scan()
    first = _first_line(parse_document(data, kind=kind, limits=DEFAULT_LIMITS))
    assert first != name and _mupdf._fold(first) == _mupdf._fold(name)


def test_the_re_read_runs_inside_the_production_sandbox() -> None:
    # The strip OCR needs no new syscall, and a scan's whole parse stays far below the
    # 90 s CPU cap.
    kind, data, name = _accented_scan()
    document, cpu_ms = parse_in_production_sandbox(kind, data)
    assert _first_line(document) == name
    assert cpu_ms < 30_000, cpu_ms
