"""Change set layout-68 (stop 70), from development only (held-out v26's documents among
them): a house and its town set apart on one row, a description's line of prose, a place's
second part, and Central European legal forms (docs/extraction.md, "Change set layout-68").
Invented text in the documents' geometry."""

# ruff: noqa: RUF001, RUF003 - the en dashes are what these documents hold
from __future__ import annotations

from typing import Any

from ats.extraction._history import _legal_named, _prose, _split_job, work_history
from ats.extraction._layout import PAGE_FOOTER, Line
from tests.extraction.answers import Row, roles, styled_answer
from tests.extraction.corpus import AS_OF

_HEAD: list[Row] = [
    ((14, 20, 200, 44), "Marta Kowalczyk", 20.0),
    ((14, 50, 220, 62), "marta.kowalczyk@example.org", 10.0),
]


def _history_of(texts: list[tuple[str, str, str | None]]) -> list[Any]:
    """The work history of lines given as (text, section, heading) in reading order."""
    lines = [Line(text, n, section=section, heading=heading) for n, (text, section, heading) in enumerate(texts)]
    return work_history(lines, AS_OF)


def test_a_house_and_its_town_on_one_row_above_the_post_are_the_employers() -> None:
    # v26's jwojtyna (Reactive Resume): the town alone was read as the employer
    rows = [
        *_HEAD,
        ((246, 286, 349, 303), "Doświadczenie", 14.0),
        ((14, 468, 112, 480), "Kestrel Labs", 10.0),
        ((543, 468, 581, 480), "Wadowice", 10.0),
        ((14, 484, 581, 496), "PHP Fullstack Developer (Stażysta)  07.2025 – 08.2025", 10.0),
        ((14, 500, 555, 512), "Maintained the legacy catalogue system and began its rewrite.", 10.0),
    ]
    assert roles(styled_answer(rows)) == [("PHP Fullstack Developer (Stażysta)", "Kestrel Labs", "2025-07")]


def test_a_descriptions_line_of_prose_above_the_next_post_is_no_employer() -> None:
    # v26's spritchard (Word): "Researched and develop monthly ... sixteen sectors" was the
    # employer of the role below it
    prose = "Researched and built monthly commercial sales pipeline reporting across five industries"
    rows = [
        *_HEAD,
        ((14, 100, 200, 114), "Experience", 14.0),
        ((14, 120, 300, 132), "Fabrikam Consulting, LLP", 10.0),
        ((14, 134, 300, 146), "Consultant, Sep 2017 – Feb 2021", 10.0),
        ((14, 148, 560, 160), prose, 10.0),
        ((14, 162, 300, 174), "Solution Analyst, Sep 2015 – Aug 2017", 10.0),
        ((14, 176, 560, 188), "Gathered and analysed learning requirements for training materials", 10.0),
    ]
    found = roles(styled_answer(rows))
    assert [(title, start) for title, _, start in found] == [("Consultant", "2017-09"), ("Solution Analyst", "2015-09")]
    assert found[0][1] == "Fabrikam Consulting, LLP"
    assert prose not in {employer for _, employer, _ in found}


def test_prose_is_told_from_posts_and_names_written_in_lower_case() -> None:
    assert _prose("Designed and executed integration and system acceptance test scripts")
    assert _prose("Développement fullstack et administration système en environnement Linux")
    # a post in lower case, a name with its tagline, a name of particles, a post's head first
    assert not _prose("Web development intern / Part-time full-stack developer")
    assert not _prose("Pulpos.- Punto de venta en la nube para comercios independientes")
    assert not _prose("Conselho Regional de Farmácia do Estado do Paraná")
    assert not _prose("Ingénieur d'études et développement en informatique de gestion")
    assert not _prose("Ministry of Health and social affairs of the republic")


def test_a_places_second_part_is_no_employer() -> None:
    # v25's dcarvalho: "Santa Cruz do Sul – RS, Brazil" left "Brazil" as the employer
    rows = [
        *_HEAD,
        ((14, 100, 200, 114), "Experience", 14.0),
        ((14, 120, 300, 132), "IT Technician", 10.0),
        ((14, 134, 560, 146), "Santa Cruz do Sul – RS, Brazil  01/2012 – 05/2017", 10.0),
        ((14, 148, 560, 160), "Kept the office network and its forty workstations running.", 10.0),
    ]
    # no house is written: none is read
    assert roles(styled_answer(rows)) == [("IT Technician", None, "2012-01")]


def test_central_european_legal_forms_name_a_house() -> None:
    for name in ("NEXMODE Sp. z o.o.", "Raintree Systems OÜ", "Waigo s.r.o.", "Pacientská organizace SMÁci, z.s."):
        assert _legal_named(name), name
    # an English sentence's last word is no Norwegian "AS"
    assert not _legal_named("Served on the platform team as")


def test_roles_at_the_top_are_read_when_the_experience_heading_holds_none() -> None:
    # v21's roneil (Resume Builder): "Work History" came first in the reading order, out of
    # its column, and the dated roles stayed at the top with no heading over them
    texts = [
        ("Work History", "experience", "experience"),
        ("Jordan Ellery", "top", None),
        ("Detail-oriented developer who designs and maintains secure, scalable systems.", "top", None),
        ("2022-09 -  Database Engineer / Property Manager", "top", None),
        ("Harbour Property Management, Shoreline, WA", "top", None),
        ("Implemented database solutions for managing properties and payments", "top", None),
        ("2021-09 -  2022-09  Accounting Specialist", "top", None),
        ("City of Lakeview, Lakeview, WA", "top", None),
    ]
    found = [(e.value["title"], e.value["employer"], e.value["start"]) for e in _history_of(texts)]
    assert found == [
        ("Database Engineer / Property Manager", "Harbour Property Management", "2022-09"),
        ("Accounting Specialist", "City of Lakeview", "2021-09"),
    ]


def test_a_post_with_its_level_or_a_trades_head_noun_is_the_title_beside_the_house() -> None:
    # v18's jsumners, v26's erothmuller, v25's lfvalves, vikekh: the house was read as the post
    assert _split_job(["Mezmo", "Software Engineer III"]) == ("Software Engineer III", "Mezmo", None)
    assert _split_job(["Amazon Web Services", "Software Development Engineer I/II"])[:2] == (
        "Software Development Engineer I/II",
        "Amazon Web Services",
    )
    assert _split_job(["Sky Marketing", "Web Developer & Online Marketer"])[:2] == (
        "Web Developer & Online Marketer",
        "Sky Marketing",
    )
    assert _split_job(["AtipicALI", "Cofundador"])[:2] == ("Cofundador", "AtipicALI")


def test_a_footer_of_the_name_and_the_page_count_is_no_employer() -> None:
    # v19's mboiman (HTML printed by Chrome): "Michael Boiman · 2/4" at the foot of a page was
    # read as the employer of the role at the top of the next
    assert PAGE_FOOTER.fullmatch("Jordan Ellery · 2/4")
    assert PAGE_FOOTER.fullmatch("Jordan Ellery | 3 / 4")
    assert not PAGE_FOOTER.fullmatch("Kestrel Labs | 03/2019")
    texts = [
        ("Experience", "experience", "experience"),
        ("Platform Engineer  06/2025 – Present", "experience", None),
        ("Kestrel Labs", "experience", None),
        ("Jordan Ellery · 2/4", "experience", None),
        ("Technical Lead & Automation Architect  01/2024 – 04/2025", "experience", None),
    ]
    employers = [e.value["employer"] for e in _history_of(texts)]
    assert "Jordan Ellery" not in employers
    assert len(employers) == 2
