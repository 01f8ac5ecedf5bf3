"""Change set h53 (layout-27): rules for more of the development half's real documents'
role misses. Built answers here; docs/extraction.md, "Change set h53 (layout-27)", says what
each rule is for and what it moved on development."""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

from typing import Any

from ats.extraction import _layout
from ats.extraction._layout import heading_kind
from tests.extraction.answers import Row, pdf_answer, roles, rows_answer, styled_block


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def test_a_title_keeps_the_one_word_field_after_its_comma_when_a_heading_names_the_employer() -> None:
    answer = _pdf(
        ((36, 40, 236, 67), "Andy Example", 24.0),
        ((425, 55, 580, 68), "https://example.com", 12.0),
        ((35, 107, 212, 124), "Professional Experience", 16.0),
        ((35, 135, 208, 150), "University of Washington", 14.0),
        ((35, 152, 176, 165), "Software Engineer, Web", 12.0),
        ((311, 152, 382, 165), "2017 – 2018", 12.0),
        ((36, 167, 375, 180), "• Developed a project management web app", 10.0),
        ((35, 190, 111, 205), "Clevertech", 14.0),
        ((35, 207, 243, 220), "Senior Software Engineer, Fullstack", 12.0),
        ((311, 207, 382, 220), "2019 – 2020", 12.0),
        ((36, 222, 375, 235), "• Developed cross-platform SaaS products", 10.0),
    )
    assert roles(answer) == [
        ("Software Engineer, Web", "University of Washington", "2017"),
        ("Senior Software Engineer, Fullstack", "Clevertech", "2019"),
    ]


def test_a_second_post_after_a_comma_is_part_of_the_title_below_the_employers_dated_line() -> None:
    answer = _pdf(
        ((252, 42, 360, 56), "Max Example", 14.3),
        ((270, 269, 342, 281), "EXPERIENCE", 12.0),
        ((57, 293, 555, 304), "FIRST PRESBYTERIAN CHURCH, Grand Junction, CO  August 2023 - June 2025", 10.0),
        ((57, 305, 130, 315), "Pianist, Organist", 10.0),
        ((50, 320, 383, 330), "– Accompanied the choir on organ and piano.", 10.0),
    )
    assert roles(answer) == [("Pianist, Organist", "FIRST PRESBYTERIAN CHURCH", "2023-08")]


def test_a_one_word_employer_after_the_title_stays_the_employer() -> None:
    # no heading above: "Title, Employer" on one line, the employer a word
    answer = _pdf(
        ((36, 40, 236, 67), "Jane Example", 24.0),
        ((35, 107, 212, 124), "Experience", 16.0),
        ((35, 130, 560, 142), "Designed the tiered-storage architecture of the brokers.", 10.0),
        ((35, 150, 300, 162), "Software Engineer, Rackspace  2015 – 2018", 10.0),
    )
    assert roles(answer) == [("Software Engineer", "Rackspace", "2015")]
    # an acronym after the comma names a unit, not the post's field
    answer = _pdf(
        ((36, 40, 236, 67), "Jane Example", 24.0),
        ((35, 107, 212, 124), "Experiencia", 16.0),
        ((35, 135, 300, 150), "Universidad Nacional Autónoma de México", 14.0),
        ((35, 152, 176, 165), "Servicio Social, CEDETEC", 12.0),
        ((311, 152, 382, 165), "2012 – 2013", 12.0),
    )
    assert [t for t, _, _ in roles(answer)] == ["Servicio Social"]


def test_polish_commercial_experience_headings() -> None:
    assert heading_kind("DOŚWIADCZENIE KOMERCYJNE") == "experience"
    assert heading_kind("Wcześniejsze doświadczenie komercyjne") == "experience"


def test_a_role_header_drawn_before_its_heading_is_in_the_headings_section() -> None:
    answer = _pdf(
        ((163, 48, 432, 72), "Jakub Example", 24.0),
        ((51, 100, 300, 112), "Projects", 12.0),
        ((64, 120, 500, 131), "jQuery Terminal: creator and maintainer of the library.", 10.5),
        # the text layer gives the page's role headers first, then its heading and bullets
        ((51, 250, 544, 260), "Sii Polska | Senior Software Engineer  2025 - 2026", 10.5),
        # a sidebar's line left of the heading's column keeps the section it was read in
        ((10, 300, 45, 310), "Python", 9.0),
        ((51, 223, 226, 235), "Commercial Experience", 12.0),
        ((64, 267, 485, 278), "• Architected and implemented front-end systems.", 10.5),
    )
    lines = _layout.lines_of(answer)
    assert [ln.section for ln in lines if ln.text.startswith(("Sii", "Python"))] == ["experience", "other"]
    assert roles(answer) == [("Senior Software Engineer", "Sii Polska", "2025")]


def _styled(bbox: tuple[float, float, float, float], text: str, size: float = 10.5) -> dict[str, Any]:
    return styled_block(bbox, text, size, style=1)


def test_a_one_year_role_with_its_year_flush_right_on_a_digital_row() -> None:
    answer = pdf_answer(
        [
            _styled((163, 48, 432, 72), "Jakub Example", 24.0),
            _styled((51, 223, 226, 235), "Commercial Experience", 12.0),
            _styled((51, 250, 260, 260), "Sii Polska | Senior Software Engineer"),
            _styled((480, 250, 544, 260), "2025 - 2026"),
            _styled((64, 267, 485, 278), "• Architected and implemented front-end systems."),
            _styled((51, 300, 270, 310), "Piwik PRO | Senior JavaScript Developer"),
            _styled((520, 300, 544, 310), "2024"),
            _styled((64, 317, 485, 328), "• Engineered privacy-focused analytics components."),
        ],
        ocr=False,
    )
    assert roles(answer) == [
        ("Senior Software Engineer", "Sii Polska", "2025"),
        ("Senior JavaScript Developer", "Piwik PRO", "2024"),
    ]
    # a year at the end of an OCR'd line may be a project's, in a column of its own: no role
    ocr = pdf_answer(
        [{**b, "lines": [{k: v for k, v in b["lines"][0].items() if k != "runs"}]} for b in answer["blocks"]], ocr=True
    )
    assert [r[2] for r in roles(ocr)] == ["2025"]
