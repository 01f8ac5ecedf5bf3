"""Change set layout-59 (stop 65), from held-out v23's documents once they were development:
a company's line with its place in brackets over its roles, a town's abbreviated "St.", a
slash left at an employer's edge, the kind of post after a pipe ("| Temps plein", "|
Freelance" over the house's own line), "Employer, Town, Country" on a line of its own, a kind
of internship named before the word ("PFA Internship - ..."), and a LinkedIn export's top
skills wrapped by its narrow column or set as a heading's word (docs/extraction.md, "Change
set layout-59"). Invented text in the documents' geometry; each test but the guards fails on
layout-58."""

# ruff: noqa: RUF001 - the en and em dashes are what these documents hold

from __future__ import annotations

from typing import Any

from ats.extraction import _history
from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF


def _entries(rows: list[Row]) -> list[tuple[str | None, str | None, str | None, str]]:
    found = extract(styled_answer(rows), as_of=AS_OF).values("work_history")
    return [(e["title"], e["employer"], e["location"], e["start"]) for e in found]


_NAME: list[Row] = [((72, 60, 300, 80), "Dana Whitfield", 20.0), ((72, 86, 300, 98), "dana@example.org", 11.0)]


def test_a_companys_line_with_its_place_in_brackets_heads_its_roles() -> None:
    # v23's alextheshire (Google Docs): every role's employer read "Potbelly ... (Seattle, WA)"
    rows: list[Row] = [
        *_NAME,
        ((72, 154, 300, 168), "Professional Experience:", 14.0),
        ((72, 170, 540, 183), "Harbor Street Bakery (Seattle, WA)  May 2015-Present", 12.0),
        ((72, 185, 540, 198), "General Manager  July 2018-Present", 12.0),
        ((90, 199, 96, 211), "●", 12.0),
        ((108, 199, 540, 211), "Managing, training, and supporting a team of 10+ employees", 12.0),
        ((72, 226, 540, 239), "Shift Lead  September 2016-July 2018", 12.0),
        ((90, 240, 96, 252), "●", 12.0),
        ((108, 240, 540, 252), "Opened and closed the store and counted the till", 12.0),
    ]
    # the company's place is its roles' since layout-61
    assert _entries(rows) == [
        ("General Manager", "Harbor Street Bakery", "Seattle, WA", "2018-07"),
        ("Shift Lead", "Harbor Street Bakery", "Seattle, WA", "2016-09"),
    ]


def test_a_towns_abbreviated_saint_and_a_slash_at_the_employers_edge() -> None:
    # v23's masonmarinko (LibreOffice): "St. George, UT" read as the employer "St", and
    # "Costco Wholesale/" kept its slash
    assert _history._split_job(["Cashier", "St. George, UT", "Lakeside Market/"]) == (
        "Cashier",
        "Lakeside Market",
        "St. George, UT",
    )


def test_the_kind_of_post_after_a_pipe_is_the_titles_when_a_line_names_the_house() -> None:
    # v23's elmehammedi (Canva, French): "Temps plein", "Stagiaire", "Freelance" read as the
    # employer and "H2C-development, Nador, Maroc" as the place
    assert _history._split_job(["Développeur Full Stack | Temps plein", "K9-Logiciels, Tiznit, Maroc"]) == (
        "Développeur Full Stack | Temps plein",
        "K9-Logiciels",
        "Tiznit, Maroc",
    )
    assert _history._split_job(["Développeur Front-End | Freelance", "ATELIER NUMÉRIQUE, Tiznit, Maroc"]) == (
        "Développeur Front-End | Freelance",
        "ATELIER NUMÉRIQUE",
        "Tiznit, Maroc",
    )
    assert _history._split_job(["Développeur Front-End | Stagiaire", "K9-Logiciels, Tiznit, Maroc"])[:2] == (
        "Développeur Front-End | Stagiaire",
        "K9-Logiciels",
    )


def test_working_for_oneself_alone_is_still_the_house() -> None:
    # guards: nothing else names a house, so "Freelance" (or its two words) is the employer
    assert _history._split_job(["Data Analyst (Contract) – Freelance"]) == (
        "Data Analyst (Contract)",
        "Freelance",
        None,
    )
    assert _history._split_job(["SEO-специалист | Freelance / Самозанятый"]) == (
        "SEO-специалист",
        "Freelance / Самозанятый",
        None,
    )


def test_a_city_region_country_line_alone_is_still_a_place() -> None:
    # guard: with no post beside it, "Mountain View, California, USA" is where, not who
    assert _history._split_job(["Mountain View, California, USA"]) == (None, None, "Mountain View, California, USA")


def test_a_kind_of_internship_before_the_word_is_no_house() -> None:
    # v23's kassimi (LaTeX, English): "PFA Internship — Full Stack Developer" read as the
    # employer "PFA Internship", and the house's line below it left out
    rows: list[Row] = [
        *_NAME,
        ((23, 287, 120, 299), "EXPERIENCE", 12.0),
        ((23, 303, 572, 313), "PFA Internship — Full Stack Developer (Django / React)  Aug. 2025 – Sept. 2025", 10.0),
        ((23, 314, 400, 324), "Riverbend Water Agency, Azrou", 10.0),
        ((23, 326, 572, 336), "• Designed a monitoring web application with maps and dashboards.", 10.0),
        ((23, 423, 572, 433), "Summer Internship — Network Technician  Apr. 2022 – May 2022", 10.0),
        ((23, 435, 400, 445), "Riverbend Water Agency, Azrou", 10.0),
        ((23, 446, 572, 456), "• Assisted with system administration and user support.", 10.0),
    ]
    assert [(t, e, s) for t, e, _, s in _entries(rows)] == [
        ("PFA Internship — Full Stack Developer (Django / React)", "Riverbend Water Agency", "2025-08"),
        ("Summer Internship — Network Technician", "Riverbend Water Agency", "2022-04"),
    ]


# LinkedIn's "Save to PDF": a contact column at x 22, its headings 13 pt and items 10.5 pt.
def _linkedin(top: list[Row]) -> dict[str, Any]:
    column: list[Row] = [
        ((22, 40, 66, 59), "Contact", 13.0),
        ((22, 62, 133, 77), "kofi.mensah@example.org", 10.5),
        ((22, 86, 161, 102), "www.linkedin.com/in/kofi-mensah-1a2b (LinkedIn)", 11.0),
        ((22, 134, 78, 152), "Top Skills", 13.0),
        *top,
        ((22, 240, 100, 258), "Certifications", 13.0),
        ((22, 262, 160, 277), "Learning Selenium", 10.5),
    ]
    head: list[Row] = [
        ((224, 38, 362, 74), "Kofi Mensah", 26.0),
        ((224, 74, 458, 91), "QA Engineer", 12.0),
        ((224, 123, 291, 145), "Summary", 15.8),
        ((224, 152, 564, 169), "Tester who likes tidy pipelines.", 12.0),
    ]
    return styled_answer([*column, *head])


def test_a_linkedin_top_skill_wrapped_by_the_column_is_one_skill() -> None:
    # v21's lgoffeney: "Continuous Integration and" / "Continuous Delivery (CI/CD)" read as two
    found = extract(
        _linkedin(
            [
                ((21.6, 156.0, 147.6, 170.8), "Continuous Integration and", 10.5),
                ((21.6, 168.6, 154.0, 183.4), "Continuous Delivery (CI/CD)", 10.5),
                ((21.6, 186.2, 54.3, 201.0), "GitHub", 10.5),
                ((21.6, 203.8, 176.8, 218.6), "Python (Programming Language)", 10.5),
            ]
        ),
        as_of=AS_OF,
    )
    assert found.values("skills")[:3] == [
        "Continuous Integration and Continuous Delivery (CI/CD)",
        "GitHub",
        "Python (Programming Language)",
    ]


def test_a_linkedin_top_skill_that_is_a_headings_word_is_still_a_skill() -> None:
    # v21's ldabbas: "Training" (a heading's word, at the items' size) ended the block
    found = extract(
        _linkedin([((21.6, 156.0, 59.5, 170.8), "Training", 10.5)]),
        as_of=AS_OF,
    )
    assert found.values("skills") == ["Training"]


def test_a_saints_town_abbreviated_with_its_country_code_is_the_place() -> None:
    # layout-60, from the newcomer check: "Contoso Ltd, St. Albans, UK" over "Junior Data
    # Engineer | Full-time" read "St. Albans" as the post and "UK" as the place
    assert _history._split_job(["Northwind Ltd, St. Albans, UK", "Junior Data Engineer | Full-time"]) == (
        "Junior Data Engineer | Full-time",
        "Northwind Ltd",
        "St. Albans, UK",
    )
    # guard: an unknown name before a state's code is still more likely the employer
    assert _history._split_job(["Software Engineer, Acme, CA"])[:2] == ("Software Engineer", "Acme")
