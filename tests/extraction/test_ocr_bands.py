"""OCR's second look: a name in large bold capitals that full-page OCR drops is recovered."""

from __future__ import annotations

import pytest

from ats.parsing import _mupdf
from ats.parsing.api import DEFAULT_LIMITS, parse_document
from tests.extraction import corpus

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
