"""Change set layout-42 (stop 58): what held-out v17's documents showed once they were
development (docs/extraction.md). Their work history read 0.581: whole ISO days and US
month-first days left HTML and Word CVs' roles undated, an employer under its post was
taken from the skill chips above, a LinkedIn export's company over its roles was read as a
post. Invented text in the showing documents' geometry; each test but the guards fails on
layout-41."""

# ruff: noqa: RUF001 - the en dashes and guillemets are what these documents hold

from __future__ import annotations

from typing import Any

import pytest

from ats.extraction._history import date_ranges
from ats.extraction._layout import is_place
from ats.extraction.api import extract
from tests.extraction.answers import pdf_answer, roles, styled_block
from tests.extraction.corpus import AS_OF

Row = tuple[tuple[float, float, float, float], str, float]


def _answer(rows: list[Row], *, page_of: dict[int, int] | None = None) -> dict[str, Any]:
    """A text layer's answer (style runs on every line), lines in the order given; rows
    whose index `page_of` names go on that page."""
    blocks = []
    for k, (bbox, text, size) in enumerate(rows):
        b = styled_block(bbox, text, size)
        b["page"] = (page_of or {}).get(k, 1)
        blocks.append(b)
    return pdf_answer(blocks, ocr=False)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Interim CTO  2025-01-01 - Present", (2025, 1), None),  # an HTML CV's machine dates
        ("Web Developer  2019-03-01 - 2022-01-01", (2019, 3), (2022, 1)),
        ("2019.03.01 - 2020.01.31", (2019, 3), (2020, 1)),
        ("2019/03/01 ~ 2020/02/03", (2019, 3), (2020, 2)),
        # a Word CV's US days: a day over 12 second makes the text's days month-first
        ("Sales Associate (Full-time)  (06/07/2020 – 09/30/2022)", (2020, 6), (2022, 9)),
        ("Project Lead  (08/30/2023 – Present)", (2023, 8), None),
        ("12/01/2019 - 11/30/2020", (2019, 12), (2020, 11)),
        # a Canva CV's arrow
        ("03/2023 > 07/2023 - UX Developer, Example Systems, Munich, Germany", (2023, 3), (2023, 7)),
        ("Mar 2020 » Jun 2021", (2020, 3), (2021, 6)),
        # guards: European days stay day-first
        ("01/09/2019 - 31/12/2020", (2019, 9), (2020, 12)),
        ("01.09.2019 - 31.12.2020", (2019, 9), (2020, 12)),
    ],
)
def test_whole_days_us_days_and_arrows_are_ranges(
    text: str, start: tuple[int, int], end: tuple[int, int] | None
) -> None:
    found = date_ranges(text)
    assert [(r.start, r.end) for r in found] == [(start, end)]


@pytest.mark.parametrize("text", ["2019-03-01-2020", "2019-13-01 - 2020", "Team > 2019 > more"])
def test_no_range_from_a_broken_day_or_an_arrow_between_words(text: str) -> None:
    assert date_ranges(text) == []


def test_an_employer_under_its_post_is_not_the_skill_chips_above() -> None:
    # gcrespel: "Post  2024-04-01 - 2025-06-01" over "House - Town, Region, Country", the
    # entry above ending in its skill chips set in from the entries' edge; a house that
    # writes its name in lower case is still a house
    rows: list[Row] = [
        ((52, 54, 282, 81), "Camille Martin", 24.0),
        ((52, 100, 149, 118), "Experience", 14.0),
        ((67, 130, 544, 146), "Interim CTO  2025-01-01 - Present", 12.0),
        ((67, 158, 371, 170), "Cockpit Farming - Nantes, Pays de la Loire, France", 10.0),
        ((67, 182, 521, 208), "Built a SaaS platform for farmers to digitise their financial data and much more.", 9.0),
        ((73, 312, 245, 321), "Technical leadership", 8.0),
        ((263, 312, 418, 321), "Team management", 8.0),
        ((73, 336, 277, 345), "Communication and client relations", 8.0),
        ((67, 369, 544, 385), "Co-founder & Developer  2018-02-01 - Present", 12.0),
        ((67, 397, 256, 409), "uni kumo - Nantes region, France", 10.0),
        ((67, 421, 538, 450), "From CTO to CTO: my journey supporting startups from zero to ten people.", 9.0),
        ((73, 470, 161, 479), "Scalability", 8.0),
        ((67, 503, 544, 519), "Senior Frontend Developer  2024-04-01 - 2025-06-01", 12.0),
        ((67, 531, 360, 543), "Example Sport France - Nantes, Pays de la Loire, France", 10.0),
    ]
    assert roles(_answer(rows)) == [
        ("Interim CTO", "Cockpit Farming", "2025-01"),
        ("Co-founder & Developer", "uni kumo", "2018-02"),
        ("Senior Frontend Developer", "Example Sport France", "2024-04"),
    ]


def test_a_stack_line_is_no_employer_and_a_weeks_hours_no_part_of_a_post() -> None:
    # adufrenot: "Next.js · TypeScript · PostgreSQL" under the role above; reggieh31:
    # "(Full-time, 40 hours/week)" after the post
    rows: list[Row] = [
        ((222, 40, 400, 60), "Jean Dupont", 20.0),
        ((222, 153, 281, 161), "EXPERIENCE", 10.0),
        ((222, 166, 575, 176), "Founder  Dec. 2025 – Present", 9.0),
        ((222, 179, 246, 188), "Novado", 9.0),
        ((220, 218, 562, 236), "• Shipped a platform from idea to production, reaching 900+ users", 8.0),
        ((222, 280, 366, 288), "Next.js · TypeScript · PostgreSQL · Vercel", 8.0),
        ((222, 292, 575, 302), "Worker Internship  June 2024 – July 2024", 9.0),
        ((222, 305, 281, 314), "Example-Paysage", 9.0),
        ((222, 318, 574, 326), "On-site team operations under tight deadlines.", 8.0),
        ((222, 359, 535, 371), "Example Air Base Exchange, Clinton, Maryland", 9.0),
        ((222, 371, 562, 384), "Technology Sales Associate (Full-time, 40 hours/week)  (06/01/2023 – 09/15/2023)", 9.0),
    ]
    assert roles(_answer(rows)) == [
        ("Founder", "Novado", "2025-12"),
        ("Worker Internship", "Example-Paysage", "2024-06"),
        ("Technology Sales Associate", "Example Air Base Exchange", "2023-06"),
    ]


def test_a_post_in_capitals_over_house_country_and_mode() -> None:
    # akindejie: "FULL-STACK SOLUTIONS ENGINEER" ("Solutions" is a house's word too) over
    # "House, Country (Remote) | dates"; "Canada/USA" is two countries
    rows: list[Row] = [
        ((72, 60, 300, 80), "Ada Okafor", 20.0),
        ((72, 449, 324, 468), "PROFESSIONAL EXPERIENCE", 14.0),
        ((72, 485, 306, 499), "TECHNICAL SOLUTIONS ENGINEER", 11.0),
        ((72, 514, 372, 526), "Phoenix.Tech, Canada/USA (Remote) | March 2021 - Present", 10.0),
        ((90, 541, 507, 553), "● Provide advanced troubleshooting for Microsoft 365 services", 10.0),
        ((72, 573, 310, 587), "FULL-STACK SOLUTIONS ENGINEER", 11.0),
        ((72, 602, 353, 614), "ZenDesko, Germany (Remote) | December 2020 - May 2021", 10.0),
        ((90, 628, 535, 655), "● Resolved complex Office 365 incidents across the EMEA region", 10.0),
    ]
    assert roles(_answer(rows)) == [
        ("TECHNICAL SOLUTIONS ENGINEER", "Phoenix.Tech", "2021-03"),
        ("FULL-STACK SOLUTIONS ENGINEER", "ZenDesko", "2020-12"),
    ]


@pytest.mark.parametrize(("text", "place"), [("Canada/USA", True), ("Berlin/Munich", True), ("UI/UX", False)])
def test_two_places_with_a_slash_are_a_place(text: str, place: bool) -> None:
    assert is_place(text) is place


def test_a_linkedin_exports_company_over_its_roles() -> None:
    # dfelipe: "House" over "5 anos 4 meses" (the time spent there), then each post, its
    # dates and its town; a page's footer between them
    rows: list[Row] = [
        ((224, 40, 400, 60), "Maria Souza", 20.0),
        ((224, 596, 306, 618), "Experiência", 15.0),
        ((224, 631, 303, 648), "Rotas Exemplo", 12.0),
        ((224, 647, 332, 664), "Analista Cloud Junior", 11.0),
        ((224, 663, 372, 678), "junho de 2023 - Present (1 ano)", 10.0),
        ((224, 683, 580, 698), "Empresa voltada para API de mapeamento de vias públicas, criada em 2015.", 10.0),
        ((384, 768, 430, 781), "Page 2 of 3", 8.0),
        ((224, 47, 280, 64), "Belezza", 12.0),
        ((224, 66, 298, 80), "5 anos 4 meses", 10.0),
        ((224, 86, 277, 102), "Separador", 11.0),
        ((224, 101, 462, 116), "fevereiro de 2020 - maio de 2023 (3 anos 4 meses)", 10.0),
        ((224, 116, 282, 131), "Nova Iguaçu", 10.0),
        ((224, 150, 328, 166), "Auxiliar de produção", 11.0),
        ((224, 165, 475, 180), "fevereiro de 2018 - outubro de 2020 (2 anos 9 meses)", 10.0),
        ((224, 180, 388, 195), "Nova Iguaçu, Rio de Janeiro, Brasil", 10.0),
    ]
    answer = _answer(rows, page_of={k: 2 for k in range(7, 15)})
    assert roles(answer) == [
        ("Analista Cloud Junior", "Rotas Exemplo", "2023-06"),
        ("Separador", "Belezza", "2020-02"),
        ("Auxiliar de produção", "Belezza", "2018-02"),
    ]


def test_a_date_column_town_over_a_duration_is_no_company() -> None:
    # guard: rendercv's "San Francisco, CA" over "2 years 10 months" in its date column
    rows: list[Row] = [
        ((50, 40, 300, 60), "Alex Chen", 20.0),
        ((50, 329, 121, 349), "Experience", 14.0),
        ((56, 350, 175, 364), "Nexus Example, Co-Founder & CTO", 10.0),
        ((483, 350, 556, 364), "San Francisco, CA", 10.0),
        ((60, 362, 440, 376), "• Built model infrastructure serving 2M+ monthly API requests", 10.0),
        ((481, 375, 556, 389), "2 years 10 months", 10.0),
        ((481, 388, 556, 402), "June 2023 – present", 10.0),
        ((56, 475, 198, 489), "Example Research, Research Intern", 10.0),
        ((493, 475, 556, 489), "Santa Clara, CA", 10.0),
        ((60, 488, 440, 502), "• Designed a sparse attention mechanism", 10.0),
        ((481, 500, 556, 514), "May 2022 – Aug 2022", 10.0),
    ]
    employers = [employer for _, employer, _ in roles(_answer(rows))]
    assert "San Francisco, CA" not in employers
    assert "Example Research" in employers


def test_a_second_post_at_the_house_with_its_dates_flush_right() -> None:
    # obiwankeoni: "House  Remote" / "Post  dates" / bullets / "Post  dates" (sb2nov): the
    # dates set flush right start where their width puts them
    rows: list[Row] = [
        ((47, 30, 300, 50), "Keoni Example", 20.0),
        ((47, 440, 150, 452), "Experience", 12.0),
        ((47, 462, 92, 473), "Avadino", 10.0),
        ((534, 462, 571, 473), "Remote", 10.0),
        ((47, 477, 119, 486), "Project Manager", 10.0),
        ((454, 477, 569, 486), "June 2020 – October 2020", 10.0),
        ((62, 488, 534, 512), "• Led and mentored a team of 4 developers across several projects", 10.0),
        ((47, 520, 126, 530), "Software Engineer", 10.0),
        ((458, 520, 569, 530), "August 2018 – June 2020", 10.0),
        ((62, 532, 538, 543), "• Implemented parallelism and batching in a data collection process", 10.0),
    ]
    assert roles(_answer(rows)) == [
        ("Project Manager", "Avadino", "2020-06"),
        ("Software Engineer", "Avadino", "2018-08"),
    ]


def test_a_portuguese_interns_post_beside_a_house_with_no_legal_form() -> None:
    # grezende: "Estagiário de Engenharia de Software" opens with its post's noun
    rows: list[Row] = [
        ((72, 30, 300, 50), "Gabriel Exemplo", 20.0),
        ((72, 60, 259, 80), "Experiência profissional", 14.0),
        ((72, 110, 192, 126), "OpaCaixa e SuperOpa", 12.0),
        ((72, 140, 260, 153), "Estagiário de Engenharia de Software", 10.0),
        ((72, 167, 250, 180), "Junho de 2019 – Fevereiro de 2021", 10.0),
        ((72, 194, 543, 208), "Estágio compartilhado entre projetos de empresas do mesmo grupo.", 10.0),
    ]
    assert roles(_answer(rows)) == [("Estagiário de Engenharia de Software", "OpaCaixa e SuperOpa", "2019-06")]


def test_an_address_whose_last_letters_the_column_wrapped_alone() -> None:
    # dfelipe: "name@gmail.co" over "m" alone, flush under it (a LinkedIn export's contact
    # column); guard: a short word under a whole address is not part of it
    rows: list[Row] = [
        ((22, 62, 156, 77), "maria.souza@gmail.co", 10.0),
        ((22, 75, 30, 90), "m", 10.0),
        ((22, 99, 158, 129), "www.linkedin.com/in/maria-souza-example", 10.0),
        ((224, 40, 400, 60), "Maria Souza", 20.0),
    ]
    assert extract(_answer(rows), as_of=AS_OF).values("emails") == ["maria.souza@gmail.com"]
    rows[0] = ((22, 62, 156, 77), "maria.souza@example.com", 10.0)
    rows[1] = ((22, 75, 30, 90), "cv", 10.0)
    assert extract(_answer(rows), as_of=AS_OF).values("emails") == ["maria.souza@example.com"]
