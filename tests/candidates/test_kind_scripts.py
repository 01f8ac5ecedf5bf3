"""A CV in Cyrillic or a CJK script reads as a CV (ats.candidates.kind).

Since stop 51 the parser reads scans in these scripts in their own letters; a document
read by OCR alone must also read as a CV to create a candidate
(ats.candidates.identity.missing_for_document), and no heading of these languages was known:
a scanned Russian CV ended in no_candidate_details."""

from __future__ import annotations

import pytest

from ats.candidates import kind
from tests import corpus


@pytest.mark.parametrize("language", sorted(corpus.SCRIPT_CVS))
def test_a_cv_in_another_script_reads_as_a_cv(language: str) -> None:
    text = "\n".join(corpus.SCRIPT_CVS[language])
    assert kind.classify(text, has_identity=True).kind == kind.CV


def test_a_japanese_and_a_korean_cv_read_as_cvs() -> None:
    japanese = "渡邊朝太\ncontact@example.com\n学歴\n中央大学 2028年3月\nスキル\nPython、Java"
    korean = "노찬우\nrajephon@example.com\n경력\nBackend Software Engineer\n기술\nGo, Kotlin"
    assert kind.classify(japanese, has_identity=True).kind == kind.CV
    assert kind.classify(korean, has_identity=True).kind == kind.CV
