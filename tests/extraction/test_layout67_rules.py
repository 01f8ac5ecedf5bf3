"""Change set layout-67 (stop 69): contact details as the development half's real CVs write
them - a national number written the one way a single numbering plan writes it, a US
state before a ZIP code, a space typed after the "+", an identity number that is no phone,
a long name with its particles, a certificate after the name, and a sentence's "at" before
an address (docs/extraction.md, "Change set layout-67"). Invented text in the documents'
geometry; each test fails on layout-66 but the guards."""

from __future__ import annotations

import time
from typing import Any

from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF


def _extract(rows: list[Row], **kw: Any) -> Any:
    return extract(styled_answer(rows), as_of=AS_OF, **kw)


def _phones(rows: list[Row], **kw: Any) -> tuple[list[str], list[str]]:
    found = _extract(rows, **kw)
    return [str(v) for v in found.values("phones")], [str(v) for v in found.values("phones_as_written")]


def _contact(*lines: str) -> list[Row]:
    rows: list[Row] = [((40, 40, 300, 64), "Dana Whitfield", 22.0)]
    rows += [((40, 70 + 14 * k, 400, 82 + 14 * k), text, 10.0) for k, text in enumerate(lines)]
    return rows


def test_a_number_written_as_the_north_american_plan_writes_is_plus_one_over_the_default() -> None:
    # With the deployment default, GB, "561-506-4384" read as +44 5615064384, a valid UK range.
    assert _phones(_contact("561-506-4384", "dana.w@example.org"), default_region="GB")[0] == ["+15615064384"]
    assert _phones(_contact("(678) 670-6830"), default_region="GB")[0] == ["+16786706830"]
    # A Caribbean member of the plan: +1 all the same, its region Trinidad's.
    found = _extract(_contact("(868) 389-2499"), default_region="GB")
    assert found.values("phones") == ["+18683892499"]
    assert found.fields["phones"][0].sources[0].region == "TT"
    assert found.fields["phones"][0].sources[0].region_from == "cv.written:nanp"


def test_a_brazilian_mobile_written_as_brazil_writes_it_is_brazils() -> None:
    assert _phones(_contact("(82) 98194-9926"), default_region="GB")[0] == ["+5582981949926"]


def test_the_plan_written_beats_another_country_only_when_the_cv_names_the_plan_too() -> None:
    # "Reading" further down named GB, the address named Colorado: the number is American.
    rows = _contact("2905 Feather Court", "(720)-815-5494", "Castle Rock Colorado, 80109")
    rows.append(((40, 200, 500, 212), "Reading group organiser, Castle Rock library", 10.0))
    assert _phones(rows)[0] == ["+17208155494"]


def test_guard_a_spaced_italian_mobile_is_no_north_american_number() -> None:
    # "347 123 4567" is how Italy writes a mobile; 347 is also a New York area code.
    rows = _contact("347 123 4567", "Via Roma 12, Milano")
    assert _phones(rows)[0] == ["+393471234567"]


def test_guard_a_plan_shaped_number_on_a_cv_naming_only_another_country_keeps_its_reading() -> None:
    # The CV names Colombia and no country of the North American plan: the plan's writing
    # does not overrule it (a Colombian landline "(601) 234-5678" is Bogota's).
    phones, as_written = _phones(_contact("(601) 234-5678", "Bogotá, Colombia"))
    assert "+16012345678" not in phones
    assert phones == ["+576012345678"] or as_written == ["(601) 234-5678"]


def test_a_space_typed_after_the_plus_keeps_the_number_international() -> None:
    assert _phones(_contact("+ 420 608 255 197"), default_region=None)[0] == ["+420608255197"]


def test_an_identity_number_is_no_phone() -> None:
    # A Colombian cédula, "C.C 1.111.761.852", read as an Argentine number.
    phones, as_written = _phones(_contact("C.C 1.111.761.852", "+57 311 500 9832", "DNI: 45123987"))
    assert phones == ["+573115009832"]
    assert as_written == []


def test_a_long_name_with_its_particles_is_a_name() -> None:
    rows: list[Row] = [
        ((160, 38, 450, 55), "Artur Campos Batista de Senna Freitas", 14.5),
        ((50, 64, 112, 75), "Brasília, Brasil", 9.5),
        ((130, 64, 257, 75), "artur.freitas@example.org", 9.5),
    ]
    assert _extract(rows).values("name") == ["Artur Campos Batista de Senna Freitas"]


def test_certificates_after_a_name_are_no_part_of_it() -> None:
    rows = [((40, 40, 400, 64), "Marta Quintero, MBA, PMP", 22.0), ((40, 70, 300, 82), "marta.q@example.org", 10.0)]
    assert _extract(rows).values("name") == ["Marta Quintero"]


def test_a_sentences_at_before_an_address_is_no_part_of_it() -> None:
    rows: list[Row] = [
        ((40, 40, 300, 64), "Kiran Mehta", 22.0),
        ((40, 70, 300, 82), "kiranmehta2003@example.org", 10.0),
        ((40, 90, 300, 102), "SDE-I at Datachecks", 10.0),
        ((40, 120, 560, 132), "Reach me at kiranmehta2003@example.org for work", 10.0),
    ]
    assert _extract(rows).values("emails") == ["kiranmehta2003@example.org"]


def test_the_certificates_after_a_name_are_read_in_linear_time() -> None:
    # Several certificates may follow a name; a line of a million "a®" after commas is read
    # at most four at a time from each comma (a repeat with no bound walked to the line's end
    # from every comma: 35 s on 20 kB).
    from ats.extraction._rules import _POSTNOMINAL

    started = time.process_time()
    assert _POSTNOMINAL.search(", a®" * 250_000 + "x") is None
    assert time.process_time() - started < 5.0  # CPU seconds, as tests/extraction/test_hostile.py
    found = _POSTNOMINAL.search("Dana Whitfield" + ", a®" * 250_000)
    assert found is not None and found.start() == len("Dana Whitfield") + 4 * (250_000 - 4)
