"""Change set h54 (layout-28): rules for the development half's real documents' e-mail and
name misses. Built answers here; docs/extraction.md, "Change set h54 (layout-28)", says what
each rule is for and what it moved on development."""

from __future__ import annotations

from typing import Any

from ats.extraction.api import extract
from tests.extraction.answers import Row, rows_answer
from tests.extraction.corpus import AS_OF


def _scan(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=True)


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def _emails(answer: dict[str, Any]) -> list[str]:
    return list(extract(answer, as_of=AS_OF).values("emails"))


def _name(answer: dict[str, Any]) -> str | None:
    found = extract(answer, as_of=AS_OF).values("name")
    return str(found[0]) if found else None


def test_an_at_sign_ocr_read_as_a_letter_before_a_known_provider_is_an_at_sign() -> None:
    answer = _scan(
        ((71, 106, 160, 116), "Samuel Example", 12.5),
        ((71, 130, 164, 140), "| samexampleQgmail.com", 9.6),
        ((168, 130, 267, 140), "| linkedin.com/in/sexample", 9.1),
    )
    assert _emails(answer) == ["samexample@gmail.com"]
    source = extract(answer, as_of=AS_OF).fields["emails"][0].sources[0]
    assert (source.rule, source.text) == ("email.ocr_at", "samexampleQgmail.com")
    # a zero for the "@": the local part keeps its own digits
    answer = _scan(((54, 70, 213, 83), "Z spiffy770gmail.com", 17.9))
    assert _emails(answer) == ["spiffy77@gmail.com"]


def test_no_at_sign_is_read_into_a_word_or_an_unknown_domain_or_a_text_layer() -> None:
    # a lower-case "o" is a letter ("foo" + "gmail.com" is no address), an unknown domain
    # proves nothing, nor does a digital text layer (it has the "@" when there is one)
    for text in ("fooogmail.com", "janeQexample.org", "janeQgmail.com.br"):
        assert _emails(_scan(((54, 70, 213, 83), "Jane Example", 18.0), ((54, 90, 213, 100), text, 10.0))) == []
    assert _emails(_pdf(((54, 70, 213, 83), "Jane Example", 18.0), ((54, 90, 213, 100), "janeQgmail.com", 10.0))) == []
