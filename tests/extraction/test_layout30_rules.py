"""Layout-30 (stop 45): rules written on held-out v10's documents once they were development.
Built answers here; docs/extraction.md, "Change set layout-30", says what each rule is for and
what it moved on development."""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

from typing import Any

from ats.extraction import _history, _layout
from ats.extraction._layout import heading_kind, is_place
from ats.extraction.api import extract
from tests.extraction.answers import Row, roles, rows_answer
from tests.extraction.corpus import AS_OF


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def _cv(*body: str) -> dict[str, Any]:
    rows: list[Row] = [((36, 40, 236, 67), "Jane Example", 24.0), ((35, 100, 212, 114), "Experience", 16.0)]
    rows += [((35, 120 + 14 * i, 400, 132 + 14 * i), text, 10.0) for i, text in enumerate(body)]
    return _pdf(*rows)


def test_the_two_unicode_hyphens_read_as_a_ranges_dash() -> None:
    answer = _cv("PingCAP, Inc.", "DATABASE DEVELOPER", "Oct. 2015 \u2011 Present", "Sincetimes, Inc.",
                 "GAME DEVELOPER", "May. 2012 \u2010 Sep. 2014")  # fmt: skip
    assert [(t and t.casefold(), e, s) for t, e, s in roles(answer)] == [
        ("database developer", "PingCAP, Inc.", "2015-10"),
        ("game developer", "Sincetimes, Inc.", "2012-05"),
    ]


def test_month_de_year_dates_of_portuguese_and_spanish() -> None:
    assert [(r.start, r.end) for r in _history.date_ranges("Dezembro de 2025 - Atualmente")] == [((2025, 12), None)]
    assert [(r.start, r.end) for r in _history.date_ranges("Janeiro de 2024 - Junho de 2025")] == [
        ((2024, 1), (2025, 6))
    ]
    assert [(r.start, r.end) for r in _history.date_ranges("enero del 2020 – actualidad")] == [((2020, 1), None)]
    # "de" before a year that follows no month is no date's part: the year alone
    assert _history._tokens("Universidade de 2019") == [(16, 20, 2019, None)]


def test_russian_turkish_and_czech_months_and_present_words() -> None:
    assert [(r.start, r.end) for r in _history.date_ranges("Август 2022 — Настоящее время")] == [((2022, 8), None)]
    assert [(r.start, r.end) for r in _history.date_ranges("Февраль 2022 — Май 2022")] == [((2022, 2), (2022, 5))]
    assert [(r.start, r.end) for r in _history.date_ranges("MAYIS 2019 - Günümüz")] == [((2019, 5), None)]
    assert [(r.start, r.end) for r in _history.date_ranges("září 2019 – současnost")] == [((2019, 9), None)]


def test_turkish_russian_and_czech_headings() -> None:
    assert heading_kind("TECRÜBE") == heading_kind("İş Deneyimlerim") == heading_kind("Опыт работы") == "experience"
    assert heading_kind("EĞİTİM") == heading_kind("Образование") == heading_kind("Vzdělání") == "education"
    assert heading_kind("YETENEKLER") == heading_kind("Навыки") == "skills"
    assert heading_kind("Projeler") == "other"


def test_a_colon_or_a_semicolon_separates_a_headers_parts() -> None:
    assert _history._parts("Backend Software Engineer : Danggeun Market Inc.") == [
        "Backend Software Engineer", "Danggeun Market Inc.",
    ]  # fmt: skip
    assert _history._parts("Auckland Transport; Auckland, NZ") == ["Auckland Transport", "Auckland, NZ"]
    assert _history._parts("Lieu : Paris") == ["Paris"]  # a label still goes
    answer = _cv("Software Engineer : Global AI Platform Corporation : Mar 2024 - Dec 2025", "Built backend systems.")
    assert roles(answer) == [("Software Engineer", "Global AI Platform Corporation", "2024-03")]


def test_what_an_employer_does_in_brackets_is_no_part_of_its_name() -> None:
    assert _history._parts("Wurthy (Profitable solutions for growing businesses)") == ["Wurthy"]
    assert _history._parts("CyberVision, Inc. (Nuvo Cares, FDA-cleared remote health monitoring platform)") == [
        "CyberVision, Inc."
    ]
    # a name in brackets stays: capitalised words, a country, an acronym
    assert _history._parts("Devsisters (Studio Kingdom)") == ["Devsisters (Studio Kingdom)"]
    assert _history._parts("EPAM Systems (Poland) Sp. z o. o.") == ["EPAM Systems (Poland) Sp. z o. o."]
    assert _history._parts("Teaching-Research position (ATER ≈192H)") == ["Teaching-Research position (ATER ≈192H)"]


def test_polish_dla_names_the_employer() -> None:
    answer = _cv("Programista front-end dla BASEF LTD", "05.2021 - 08.2021", "Tworzenie aplikacji.")
    assert roles(answer) == [("Programista front-end", "BASEF LTD", "2021-05")]


def test_places_in_turkish_russian_and_remote_words() -> None:
    assert is_place("İstanbul, Türkiye") and is_place("İSTANBUL") and is_place("Москва, Россия")
    assert is_place("Удаленно") and is_place("Uzaktan")
    assert not is_place("Яндекс Карты")


def test_text_drawn_over_itself_is_read_once() -> None:
    shadow = [((31 + i % 2, 109 + i % 3 / 2, 62, 119), "Ansys", 10.0) for i in range(16)]
    answer = _pdf(
        ((36, 40, 236, 67), "Jane Example", 24.0),
        ((28, 73, 128, 87), "EXPERIENCES", 16.0),
        ((31, 98, 206, 108), "Quality Assurance Engineering Intern", 10.0),
        *shadow,
        ((31, 130, 260, 140), "6 months: 04/2025 – 10/2025", 10.0),
        ((31, 142, 260, 152), "La Farlède, France", 10.0),
        (
            (31, 154, 560, 164),
            "In collaboration with the optics QA team, I helped improve the validation processes by"
            " converting manual tests to automatic ones.",
            10.0,
        ),
    )
    lines = [line.text for line in _layout.lines_of(answer)]
    assert lines.count("Ansys") == 1
    assert roles(answer) == [("Quality Assurance Engineering Intern", "Ansys", "2025-04")]
    # the same text at another place on the page is another line (two roles at one employer)
    two = _pdf(
        ((36, 40, 236, 67), "Jane Example", 24.0),
        ((28, 73, 128, 87), "Experience", 16.0),
        ((31, 98, 206, 108), "Acme", 10.0),
        ((31, 110, 206, 120), "Acme", 10.0),
    )
    assert [line.text for line in _layout.lines_of(two)].count("Acme") == 2


def test_a_month_before_a_lines_last_open_year_is_the_starts() -> None:
    # "01.2021 -" at a line's end, its end date on the next line: the month is the start's,
    # not a word of the employer's
    assert [(r.start, r.end) for r in _history.date_ranges("Front-end at PrintSoft NT sp. zoo. 01.2021 -")] == [
        ((2021, 1), None)
    ]
    assert [(r.start, r.end) for r in _history.date_ranges("Jan 2021 –")] == [((2021, 1), None)]
    assert [(r.start, r.end) for r in _history.date_ranges("2017–")] == [((2017, None), None)]


def test_what_follows_the_name_in_brackets_is_not_the_name() -> None:
    for line in ("Rakan Al Masri (US Citizen)", "Rakan Al Masri (he/him)"):
        answer = _pdf(((36, 40, 336, 67), line, 24.0), ((36, 80, 336, 92), "rakan@example.org", 10.0))
        assert extract(answer).values("name") == ["Rakan Al Masri"], line
    answer = _pdf(((36, 40, 336, 67), "Robert (Bob) Smith", 24.0), ((36, 80, 336, 92), "bob@example.org", 10.0))
    assert extract(answer).values("name") == ["Robert (Bob) Smith"]


def test_an_end_date_alone_on_the_next_line_closes_a_range_broken_after_its_dash() -> None:
    answer = _cv(
        "Front-end developer at BASEF LTD - 05.2021 -", "08.2021", "- writing e2e tests (Cypress)",
        "Front-end at PrintSoft NT sp. zoo. 01.2021 -", "05.2021", "- writing e2e tests",
    )  # fmt: skip
    entries = [e.value for e in extract(answer, as_of=AS_OF).fields["work_history"]]
    assert [(e["employer"], e["start"], e["end"]) for e in entries] == [
        ("BASEF LTD", "2021-05", "2021-08"),
        ("PrintSoft NT sp. zoo.", "2021-01", "2021-05"),
    ]


def test_a_date_columns_range_over_two_rows_is_one_range() -> None:
    answer = _pdf(
        ((36, 40, 236, 67), "Jane Example", 24.0),
        ((35, 100, 212, 114), "Work Experience", 16.0),
        ((53, 130, 100, 142), "Aug 2021 -", 10.0),
        ((114, 130, 255, 142), "Software Engineering Intern", 10.0),
        ((60, 143, 100, 155), "Dec 2021", 10.0),
        ((114, 143, 200, 155), "Datadog", 10.0),
        (
            (114, 157, 576, 168),
            "• Designed a monitoring daemon using eBPF to collect traffic from Go programs in-memory",
            9.0,
        ),
        ((53, 180, 100, 192), "May 2021 -", 10.0),
        ((114, 180, 255, 192), "Software Engineering Intern", 10.0),
        ((60, 193, 100, 205), "Aug 2021", 10.0),
        ((114, 193, 200, 205), "Stripe", 10.0),
        (
            (114, 207, 576, 218),
            "• Developed a last-mile caching sidecar in Go to bypass limitations of Ruby threads",
            9.0,
        ),
    )
    assert roles(answer) == [
        ("Software Engineering Intern", "Datadog", "2021-08"),
        ("Software Engineering Intern", "Stripe", "2021-05"),
    ]
