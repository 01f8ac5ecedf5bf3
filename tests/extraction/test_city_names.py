"""What the extractor does with the vendored cities (shared/ats/extraction/cities.csv; that it
is what scripts/city_names.py makes is tests/extraction/test_country_names.py's):
a city names a phone's region and a candidate's location, but a person's name line names no
place, and a place is never the name (h49)."""

from __future__ import annotations

from typing import Any

from ats.extraction import _lexicon as lex
from ats.extraction.api import extract
from tests.extraction.corpus import AS_OF


def test_the_larger_cities_are_known_and_the_ambiguous_names_are_not() -> None:
    assert lex.CITIES["são paulo"] == "BR" and lex.CITIES["bengaluru"] == "IN" and lex.CITIES["toronto"] == "CA"
    assert lex.CITIES["berlin"] == "DE"  # the hand list wins
    for name in ("sofia", "santos", "colombo", "carrefour", "batman"):
        assert name not in lex.CITIES


def _answer(*texts: str) -> dict[str, Any]:
    blocks, y = [], 40
    for text in texts:
        line = {"bbox": [60, y, 60 + 6 * len(text), y + 12], "text": text, "size": 10.0}
        blocks.append({"page": 1, "bbox": line["bbox"], "text": text, "lines": [line]})
        y += 16
    return {"schema": 3, "kind": "pdf", "text": "\n".join(texts), "blocks": blocks, "elements": []}


def test_a_city_gives_a_national_number_its_region() -> None:
    answer = _answer("Davi Mendes", "Rua Tereza Valverde, 125", "São Paulo", "Telefone: (19) 99189-2222")
    extraction = extract(answer, as_of=AS_OF)
    assert extraction.values("phones") == ["+5519991892222"]
    assert extraction.values("name") == ["Davi Mendes"]


def test_a_surname_that_is_also_a_city_names_no_region() -> None:
    # "Colombo" (Sri Lanka's largest city, an Italian surname) is left out of the list; a
    # surname that is a listed city ("Paris": France, where this number is valid too) still
    # names no region on the name line: Bologna decides.
    answer = _answer("Chiara Paris", "DevOps Engineer", "011 513 0677", "40121 Bologna")
    assert extract(answer, as_of=AS_OF).values("phones") == ["+390115130677"]
