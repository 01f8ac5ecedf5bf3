"""Change set layout-53 (stop 62), from held-out v21's documents as development: projects
under a heading that says experience, and an entry's title with a colon under education
read as a heading (docs/extraction.md, "Change set layout-53"). Invented text in the showing
documents' geometry; each test but the guards fails on the layout before it."""

# ruff: noqa: RUF001 - the en dashes are what these documents hold

from __future__ import annotations

from ats.extraction._layout import heading_kind
from tests.extraction.answers import Row, roles, styled_answer


def test_projects_under_a_heading_that_says_experience_are_no_roles() -> None:
    # dtang: "Projects Experience" after "Work Experience", each project with its dates
    for text in ("Projects Experience", "Project Experience", "PROJECT EXPERIENCES"):
        assert heading_kind(text) == "other", text
    rows: list[Row] = [
        ((40, 40, 300, 60), "Wen Li", 20.0),
        ((40, 100, 300, 114), "Work Experience", 13.0),
        ((40, 120, 560, 132), "University of Contoso  August 2024 – Present", 11.0),
        ((40, 136, 560, 148), "Position: Academic Tutor, School of Computer Science", 10.0),
        ((40, 170, 300, 184), "Projects Experience", 13.0),
        ((40, 190, 560, 202), "Northwind Planner  April 2023 – August 2024", 11.0),
        ((40, 206, 560, 218), "Position: Co-founder", 10.0),
    ]
    assert roles(styled_answer(rows)) == [("Academic Tutor", "University of Contoso", "2024-08")]


def test_an_entry_title_with_a_colon_is_no_heading_of_two_topics() -> None:
    # abcontarini (AltaCV): "Internship and Research Thesis: Physics" under EDUCATION turned
    # the rest of the education section into roles
    assert heading_kind("Internship and Research Thesis: Physics") is None
    # guards: headings of two topics, and a heading with its colon at the end, stay headings
    assert heading_kind("Work & Education") == "experience"
    assert heading_kind("Languages & Tools") == "skills"
    assert heading_kind("Skills and Tools:") == "skills"
    rows: list[Row] = [
        ((40, 40, 300, 60), "Andrea Rossi", 20.0),
        ((40, 100, 300, 114), "EXPERIENCE", 13.0),
        ((40, 120, 560, 132), "Data Analyst", 11.0),
        ((40, 136, 560, 148), "Contoso Analytics", 10.0),
        ((40, 152, 560, 164), "Nov 2022 – May 2023", 10.0),
        ((40, 190, 300, 204), "EDUCATION", 13.0),
        ((40, 210, 560, 222), "Internship and Research Thesis: Physics", 11.0),
        ((40, 226, 560, 238), "University of Fabrikam", 10.0),
        ((40, 242, 560, 254), "Feb 2025 – Jul 2025", 10.0),
        ((40, 270, 560, 282), "High School Diploma", 11.0),
        ((40, 286, 560, 298), "Liceo Scientifico Northwind", 10.0),
        ((40, 302, 560, 314), "2014 – 2019", 10.0),
    ]
    assert roles(styled_answer(rows)) == [("Data Analyst", "Contoso Analytics", "2022-11")]
