"""Change set h55 (layout-29): rules for the development half's real documents' skills
misses. Built answers here; docs/extraction.md, "Change set h55 (layout-29)", says what each
rule is for and what it moved on development."""

from __future__ import annotations

from typing import Any

from ats.extraction._layout import heading_kind
from ats.extraction.api import extract
from tests.extraction.answers import Row, rows_answer
from tests.extraction.corpus import AS_OF


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def _skills(answer: dict[str, Any]) -> dict[str, list[str | None]]:
    """{wording: the taxonomy ids of its sources}."""
    found = extract(answer, as_of=AS_OF).fields.get("skills", ())
    return {str(fv.value): [s.taxonomy_id for s in fv.sources] for fv in found}


def test_a_slash_pair_in_a_skills_list_is_one_skill_in_the_cvs_wording() -> None:
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Skills", 12.0),
        ((70, 130, 400, 140), "C/C++, HTML/CSS, Git/GitHub, Docker", 10.0),
    )
    skills = _skills(answer)
    assert set(skills) == {"C/C++", "HTML/CSS", "Git/GitHub", "Docker"}
    # both sides' taxonomy entries are in the value's provenance
    assert skills["C/C++"] == ["ats:c", "esco:b633eb55-8f1f-4ae6-ab4c-2022ffe2cb7f"]
    assert skills["Git/GitHub"] == ["ats:git", "ats:github"]


def test_a_slash_in_prose_still_reads_each_side() -> None:
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Experience", 12.0),
        ((70, 130, 500, 140), "Built services in Python/Go for a payments team.", 10.0),
    )
    # a sentence is no list: its sides are read as before ("Go" is strict: lists only)
    assert set(_skills(answer)) == {"Python"}


def test_a_list_item_the_taxonomy_names_in_part_is_one_skill_in_the_cvs_wording() -> None:
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Skills", 12.0),
        ((70, 130, 450, 140), "Docker Compose, Azure Pipelines, Kubernetes, Django REST Framework", 10.0),
    )
    skills = _skills(answer)
    assert set(skills) == {"Docker Compose", "Azure Pipelines", "Kubernetes", "Django REST Framework"}
    assert skills["Azure Pipelines"] == ["ats:microsoft-azure"]  # the linked part's entry, in provenance
    assert skills["Docker Compose"] == ["ats:docker-compose"]  # its own entry since taxonomy 5 (layout-39)


def test_a_list_part_joining_two_skills_is_not_one_item() -> None:
    # "GraphQL and jQuery", Spanish "y React", a spaced slash: the parts are read as before
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Skills", 12.0),
        ((70, 130, 450, 140), "GraphQL and jQuery, Vue y React, CSS / Sass", 10.0),
    )
    assert set(_skills(answer)) == {"GraphQL", "jQuery", "Vue", "React", "CSS", "Sass"}


def test_a_technology_stack_heading_opens_a_skills_section() -> None:
    for heading in ("Technology Stack", "Technologie-Stack", "Stack technique", "Areas of Expertise", "Toolbox"):
        assert heading_kind(heading) == "skills", heading
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Technology Stack", 12.0),
        ((70, 130, 450, 140), "Node.js, Go, API Design, Domain Driven Design", 10.0),
    )
    # "Go" is strict (a word elsewhere) and the unlinked items count in a skills list only
    assert set(_skills(answer)) == {"Node.js", "Go", "API Design", "Domain Driven Design"}


def test_a_list_item_keeps_the_version_the_cv_gives_it() -> None:
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Skills", 12.0),
        ((70, 130, 450, 140), "Python 3.6+, HTML 5, CSS 3, Django", 10.0),
    )
    skills = _skills(answer)
    assert set(skills) == {"Python 3.6+", "HTML 5", "CSS 3", "Django"}
    assert skills["HTML 5"] == ["ats:html"]


def test_a_list_that_trails_off_or_names_3d_printing_is_still_a_list() -> None:
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Skills", 12.0),
        ((70, 130, 450, 140), "Hardware Tools: Lab Equipment, 3D printing, KiCad", 10.0),
    )
    assert set(_skills(answer)) == {"Lab Equipment", "3D printing", "KiCad"}
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Skills", 12.0),
        ((70, 130, 450, 140), "squirrelmail, webkit, Thrift, etc. . .", 10.0),
    )
    assert set(_skills(answer)) == {"squirrelmail", "webkit", "Thrift"}


def test_numbers_and_dot_leaders_are_no_list_items() -> None:
    answer = _pdf(
        ((70, 60, 200, 74), "Jane Example", 16.0),
        ((70, 80, 200, 90), "jane@example.org", 10.0),
        ((70, 110, 200, 122), "Skills", 12.0),
        ((70, 130, 450, 140), "(ICATT 2018), Oberpfaffenhofen, Germany, 6-9 November, 2018.", 10.0),
        ((70, 145, 450, 155), "| used, helpful for keyword search. ..............", 10.0),
    )
    assert _skills(answer) == {}
