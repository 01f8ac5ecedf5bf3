"""Change set layout-51 (stop 62), from held-out v21's documents once they were development:
LinkedIn's profile export (its "Top Skills", one per line, and its roles set apart by type
size alone), a Brazilian CV's day-month-year ranges, its section of courses after the roles,
a time spent cut by a line break and a post behind its label in its own style, and online
job simulations (docs/extraction.md, "Change set layout-51"). Invented text in the showing
documents' geometry; each test but the guards fails on the layout before it."""

# ruff: noqa: RUF001 - the en dashes are what these documents hold

from __future__ import annotations

import time
from typing import Any

from ats.extraction._history import date_ranges
from ats.extraction._layout import heading_kind
from ats.extraction.api import extract
from tests.extraction.answers import Row, pdf_answer, roles, styled_answer, styled_block
from tests.extraction.corpus import AS_OF

# LinkedIn's "Save to PDF": a contact column at x 22 and the profile at x 224; the column's
# headings 13 pt, the name 26 pt, section headings 15.8 pt, a company 12 pt, a role's title
# 11.5 pt, its dates, place and description 10.5 pt, the page footer 9 pt.
_COLUMN: list[Row] = [
    ((22, 40, 66, 59), "Contact", 13.0),
    ((22, 62, 133, 77), "mira.okafor@example.org", 10.5),
    ((22, 86, 161, 102), "www.linkedin.com/in/mira-", 11.0),
    ((22, 101, 152, 116), "okafor-4b2c (LinkedIn)", 11.0),
    ((22, 134, 78, 152), "Top Skills", 13.0),
    ((22, 156, 162, 171), "Object-Oriented Programming", 10.5),
    ((22, 169, 52, 183), "(OOP)", 10.5),
    ((22, 186, 164, 201), "Data Entry", 10.5),
    ((22, 204, 68, 219), "English", 10.5),
    ((22, 240, 100, 258), "Languages", 13.0),
    ((22, 262, 160, 277), "Yoruba (Native or Bilingual)", 10.5),
]
_HEAD: list[Row] = [
    ((224, 38, 362, 74), "Mira Okafor", 26.0),
    ((224, 74, 458, 91), "Web Developer | React | SQL", 12.0),
    ((224, 89, 423, 106), "Lagos, Nigeria", 12.0),
    ((224, 123, 291, 145), "Summary", 15.8),
    ((224, 152, 564, 169), "Developer who enjoys building accessible web applications with Python.", 12.0),
    ((224, 310, 302, 332), "Experience", 15.8),
]


def _export(experience: list[Row], *, column: list[Row] = _COLUMN) -> dict[str, Any]:
    return styled_answer([*column, *_HEAD, *experience])


def _entries(answer: dict[str, Any]) -> list[tuple[str | None, str | None, str | None, str | None]]:
    found = extract(answer, as_of=AS_OF).values("work_history")
    return [(e["title"], e["employer"], e["start"], e["end"]) for e in found]


def test_a_linkedin_exports_top_skills_are_its_skills_list_one_per_line() -> None:
    # v21's aravi, haziz, nvtung: "Object-Oriented Programming" / "(OOP)", "Data Entry" (no
    # taxonomy entry names them) were lost, and the prose's mentions stood in for the list
    rows: list[Row] = [
        ((224, 345, 312, 362), "Contoso Digital", 12.0),
        ((224, 361, 352, 377), "Web Developer", 11.5),
        ((224, 377, 417, 392), "April 2021 - May 2023 (2 years 2 months)", 10.5),
        ((224, 413, 561, 428), "Built dashboards with Django and PostgreSQL for the sales team.", 10.5),
    ]
    found = extract(_export(rows), as_of=AS_OF)
    assert found.values("skills") == ["Object-Oriented Programming (OOP)", "Data Entry"]  # not "English"
    (oop, _) = found.fields["skills"]
    assert {s.rule for s in oop.sources} == {"skill.list_item"}
    assert [s.text for s in oop.sources] == ["Object-Oriented Programming (OOP)"]


def test_the_top_skills_block_ends_at_three_items_and_at_the_name() -> None:
    # enjeri's column: three skills, then the profile's name in the same reading column
    column: list[Row] = [
        *_COLUMN[:4],
        ((22, 134, 78, 152), "Top Skills", 13.0),
        ((22, 156, 162, 171), "Software Development", 10.5),
        ((22, 174, 162, 189), "Quality Assurance Testing", 10.5),
        ((22, 192, 162, 207), "Cloud Services", 10.5),
        ((22, 210, 162, 225), "Front-end Development", 10.5),
    ]
    found = extract(_export([], column=column), as_of=AS_OF)
    assert found.values("skills") == ["Software Development", "Quality Assurance Testing", "Cloud Services"]


def test_a_top_skills_heading_elsewhere_keeps_its_sub_headings_out() -> None:
    # guard: hmoradi's AltaCV sidebar heads "Frontend" and bulleted lists with "TOP SKILLS";
    # with no "(LinkedIn)" profile line it is no export, and "Frontend" is no skill
    rows: list[Row] = [
        ((40, 40, 300, 60), "Mira Okafor", 20.0),
        ((40, 70, 300, 82), "mira.okafor@example.org", 10.0),
        ((40, 100, 300, 114), "Top Skills", 13.0),
        ((40, 120, 300, 132), "Frontend", 10.0),
        ((40, 136, 400, 148), "Javascript • Typescript • React", 10.0),
    ]
    assert extract(styled_answer(rows), as_of=AS_OF).values("skills") == ["Javascript", "Typescript", "React"]


def test_portuguese_top_skills_heading_opens_the_skills_list() -> None:
    # dfelipe's export in Portuguese: "Principais competências"
    assert heading_kind("Principais competências") == "skills"
    assert heading_kind("Principales compétences") == "skills"


_TWO_HOUSES: list[Row] = [
    ((224, 345, 312, 362), "Contoso Digital", 12.0),
    ((224, 361, 352, 377), "Quality Control - Map Data Validation", 11.5),
    ((224, 377, 417, 392), "September 2024 - Present (1 year 3 months)", 10.5),
    ((224, 392, 318, 406), "Lagos, Nigeria", 10.5),
    ((224, 413, 561, 428), "Reviewed map data from contributors and the quality of their photos.", 10.5),
    ((224, 431, 561, 446), "Website: https://example.org/quality-dashboard", 10.5),
    ((224, 476, 312, 493), "Northwind Traders", 12.0),
    ((224, 493, 312, 508), "3 years 1 month", 10.5),
    ((224, 510, 352, 526), "Senior Software Engineer", 11.5),
    ((384, 768, 430, 781), "Page 1 of 2", 9.0),
    ((224, 790, 417, 805), "March 2022 - August 2024 (2 years 6 months)", 10.5),
    ((224, 806, 318, 820), "Ibadan, Nigeria", 10.5),
    ((224, 826, 561, 841), "Led the front-end of the ordering platform.", 10.5),
    ((224, 850, 352, 866), "Software Engineer", 11.5),
    ((224, 866, 417, 881), "August 2021 - February 2022 (7 months)", 10.5),
    ((224, 896, 561, 911), "Software Engineering Virtual Experience Program", 10.5),
]


def test_a_linkedin_exports_roles_are_read_by_type_size() -> None:
    # aravi's "Quadrant.io" / "Quality Control - POI Data Validation" (split at its dash),
    # haziz's place read as the next role's house, nvtung's "Website: ..." line read as the
    # house of the role under it, a page footer between a title and its dates
    assert _entries(_export(_TWO_HOUSES)) == [
        ("Quality Control - Map Data Validation", "Contoso Digital", "2024-09", "present"),
        ("Senior Software Engineer", "Northwind Traders", "2022-03", "2024-08"),
        ("Software Engineer", "Northwind Traders", "2021-08", "2022-02"),
    ]
    (first, *_) = extract(_export(_TWO_HOUSES), as_of=AS_OF).fields["work_history"]
    assert first.value["location"] == "Lagos, Nigeria"
    assert [s.text for s in first.sources if s.rule == "work_history.linkedin"] == [
        "Contoso Digital",
        "Quality Control - Map Data Validation",
    ]


def test_an_export_whose_sizes_do_not_show_the_order_is_read_as_any_cv() -> None:
    # guard: a scan's OCR (or an edited export) sets every line at one size - no line is
    # larger than the dates, so the general reader reads the section as before
    flat = [(bbox, text, 10.5) for bbox, text, _ in _TWO_HOUSES[:5]]
    from ats.extraction import _history, _layout

    lines = _layout.lines_of(_export(flat))
    assert _history._linkedin_roles(lines, 2026 * 12) is None
    assert _entries(_export(flat)) == _entries(
        styled_answer([*[r for r in _COLUMN if "LinkedIn" not in r[1]], *_HEAD, *flat])
    )


def test_an_online_job_simulation_is_no_role() -> None:
    # kmanna's export: "Software Engineering Virtual Experience Program" at a retailer (a
    # Forage course), beside a real role
    rows: list[Row] = [
        ((224, 345, 312, 362), "Contoso Retail", 12.0),
        ((224, 361, 352, 377), "Software Engineering Virtual Experience Program", 11.5),
        ((224, 377, 417, 392), "July 2023 - August 2023 (2 months)", 10.5),
        ((224, 413, 312, 430), "Northwind Traders", 12.0),
        ((224, 430, 352, 446), "Software Engineer", 11.5),
        ((224, 446, 417, 461), "March 2024 - Present (2 years 9 months)", 10.5),
    ]
    assert _entries(_export(rows)) == [("Software Engineer", "Northwind Traders", "2024-03", "present")]


def test_day_month_two_digit_year_ranges_date_a_role() -> None:
    # zehguilherme (Word, Brazil): "23/11/20 - Presente - House", "05/11/18 à 15/12/19 - House"
    for text, start, end in (
        ("23/11/20 - Presente - Contoso Tecnologia", (2020, 11), None),
        ("05/11/18 à 15/12/19 - Northwind Sistemas", (2018, 11), (2019, 12)),
        ("01/04/19 à 31/05/19 – Fabrikam (1 mês)", (2019, 4), (2019, 5)),
    ):
        (found,) = date_ranges(text)
        assert (found.start, found.end) == (start, end), text
    assert date_ranges("Período: 08/02/20") == []  # a lone day is no range
    assert [(r.start, r.end) for r in date_ranges("12/03/2019 - 15/06/2020")] == [((2019, 3), (2020, 6))]


def test_a_brazilian_cvs_roles_with_labelled_posts_and_a_cut_time_spent() -> None:
    # zehguilherme: "(1 ano e" / "1 mês)" over two lines, "Cargo: ..." under each house, and
    # "QUALIFICAÇÕES E ATIVIDADES COMPLEMENTARES" (courses and side projects) after the roles
    assert heading_kind("QUALIFICAÇÕES E ATIVIDADES COMPLEMENTARES") == "other"
    rows: list[Row] = [
        ((72, 40, 400, 60), "Rafael Nogueira Prado", 16.0),
        ((72, 100, 300, 112), "EXPERIÊNCIA PROFISSIONAL", 11.0),
        ((72, 120, 540, 134), "23/11/20 - Presente - Contoso Inovações em Tecnologia", 12.0),
        ((72, 136, 400, 150), "Cargo: Desenvolvedor Front-end Júnior", 12.0),
        ((72, 152, 540, 166), "Desenvolvimento de aplicações para hospitais com JavaScript.", 12.0),
        ((72, 170, 540, 184), "05/11/18 à 15/12/19 - Northwind Sistemas de Gestão (1 ano e", 12.0),
        ((72, 186, 120, 200), "1 mês)", 12.0),
        ((72, 202, 400, 216), "Cargo: Estagiário - Programador (C++).", 12.0),
        ((72, 230, 540, 244), "QUALIFICAÇÕES E ATIVIDADES COMPLEMENTARES", 11.0),
        ((72, 250, 400, 264), "Clone da interface de um site de medição", 12.0),
        ((72, 266, 400, 280), "Período: 22/07/21 - presente", 11.0),
    ]
    assert _entries(styled_answer(rows)) == [
        ("Desenvolvedor Front-end Júnior", "Contoso Inovações em Tecnologia", "2020-11", "present"),
        # (the dash read as an en dash, as before)
        ("Estagiário – Programador (C++).", "Northwind Sistemas de Gestão", "2018-11", "2019-12"),
    ]


def test_a_label_in_the_posts_own_style_is_no_part_of_it() -> None:
    # zehguilherme: house lines in one style, "Cargo: ..." lines in another - the house style reads the
    # post from its stretch, label and all, unless the label is left out there too
    def row(y: float, text: str, style: int) -> dict[str, Any]:
        return styled_block((72, y, 540, y + 14), text, 12.0, style=style)

    answer = pdf_answer(
        [
            styled_block((72, 40, 400, 60), "Rafael Nogueira Prado", 16.0),
            styled_block((72, 100, 300, 112), "EXPERIÊNCIA PROFISSIONAL", 11.0),
            row(120, "23/11/20 - Presente - Contoso Inovações", 1),
            row(136, "Cargo: Desenvolvedor Front-end Júnior", 0),
            row(170, "05/11/18 à 15/12/19 - Northwind Sistemas", 1),
            row(186, "Cargo: Estagiário de Programação", 0),
            row(220, "01/04/19 à 31/05/19 – Fabrikam Energia", 1),
            row(236, "Cargo: Estagiário – Desenvolvedor Web", 0),
        ],
        ocr=False,
    )
    assert [t for t, _, _ in roles(answer)] == [
        "Desenvolvedor Front-end Júnior",
        "Estagiário de Programação",
        "Estagiário – Desenvolvedor Web",
    ]


def test_a_hostile_export_of_many_roles_stays_linear() -> None:
    # One company over 6,000 dated roles with a description each (the validator's 200k
    # characters): each role's company is found by one pass, not by a walk back per role
    rows: list[Row] = [((224, 345, 312, 362), "Contoso", 12.0)]
    for i in range(6000):
        y = 400 + i * 3
        rows += [
            ((224, y, 300, y + 1), "Engineer", 11.5),
            ((224, y + 1, 300, y + 2), "May 2020 - June 2021 (1 year)", 10.5),
            ((224, y + 2, 300, y + 3), "Did work.", 10.5),
        ]
    answer = _export(rows)
    started = time.process_time()
    found = extract(answer, as_of=AS_OF).values("work_history")
    assert time.process_time() - started < 5.0  # CPU seconds, as tests/extraction/test_hostile.py
    assert found[0]["employer"] == "Contoso"
