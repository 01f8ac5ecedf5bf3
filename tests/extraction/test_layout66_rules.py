"""Change set layout-66 (stop 68): skills lists as the development half's real CVs print
them - a skill the prose names five times before the list names it, bullets that are
glyphs with no space after them, a list's label set off by a dash, ".NET", "C" and "R" as
items, how long an item was used, labelled lines that list no skills, and a column of
one-item lines (docs/extraction.md, "Change set layout-66"). Invented text in the
documents' geometry; each test fails on layout-65 but the last, a guard."""

from __future__ import annotations

from typing import Any

from ats.extraction._rules import _list_items
from ats.extraction.api import extract
from tests.extraction.answers import Row, block, pdf_answer, styled_answer, styled_block
from tests.extraction.corpus import AS_OF

_HEAD: list[Row] = [
    ((40, 40, 300, 64), "Ines Varela Rocha", 22.0),
    ((40, 70, 300, 84), "ines.rocha@example.org", 10.0),
]


def _skills(rows: list[Row]) -> list[str]:
    return [str(v) for v in extract(styled_answer(_HEAD + rows), as_of=AS_OF).values("skills")]


def test_a_skill_the_prose_names_five_times_before_the_list_is_a_listed_skill() -> None:
    # Each mention kept a source of its own; the list's was the sixth and was not kept, so
    # the skill read as mentioned only and left the skills field (patd3f's "Debian, Ubuntu").
    prose: list[Row] = [((40, 100, 300, 114), "Experience", 14.0)]
    prose += [((40, 120 + 14 * k, 540, 132 + 14 * k), f"Built service {k} in Python", 10.0) for k in range(6)]
    listed: list[Row] = [
        ((40, 220, 300, 234), "Skills", 14.0),
        ((40, 240, 540, 252), "Python, Terraform, Grafana", 10.0),
    ]
    found = _skills(prose + listed)
    assert "Python" in found
    assert "Terraform" in found and "Grafana" in found


def test_glyph_bullets_with_no_space_after_them_are_bullets() -> None:
    rows: list[Row] = [
        ((40, 100, 300, 114), "Skills", 14.0),
        ((40, 120, 200, 132), "●JavaScript", 10.0),
        ((40, 134, 200, 146), "●Svelte", 10.0),
        ((40, 148, 260, 160), "✔ Bitbucket Pipelines", 10.0),
        ((40, 162, 260, 174), "\ufffdSTM32 & ARM", 10.0),
    ]
    found = _skills(rows)
    assert "JavaScript" in found and "Svelte" in found
    assert "Bitbucket Pipelines" in found
    assert "STM32 & ARM" in found


def test_a_list_label_set_off_by_a_dash_is_no_item_and_dotnet_is_one() -> None:
    assert _list_items("Backend — C#, .NET 8, ASP.NET Core Web API, MediatR") == [
        "C#",
        ".NET",
        "ASP.NET Core Web API",
        "MediatR",
    ]
    assert _list_items("AI & LLM Integration — OpenAI, Anthropic Claude, Whisper") == [
        "OpenAI",
        "Anthropic Claude",
        "Whisper",
    ]
    # a spoken language's line is no skills list, whatever it is set off by
    assert _list_items("English — reading & writing (good); listening & speaking (fair)") == []


def test_one_letter_languages_and_how_long_an_item_was_used() -> None:
    assert _list_items("C, Assembleur, Python, HTML") == ["C", "Assembleur", "Python", "HTML"]
    assert _list_items("Python, R, SQL") == ["Python", "R", "SQL"]
    assert _list_items("Familiar with jQuery, Bootstrap, Express - 1 year") == [
        "Familiar with jQuery",
        "Bootstrap",
        "Express",
    ]
    assert _list_items("Java (4 years), Kotlin (2 yrs)") == ["Java", "Kotlin"]


def test_labelled_lines_that_list_no_skills() -> None:
    assert _list_items("Languages: Portuguese - Native, English - Intermediate") == []
    assert _list_items("Certifications: AWS Solutions Architect | AWS Cloud Foundations") == []
    assert _list_items("Interests: Fitness; Short video creation") == []
    # a programming languages' list under the same label is still a list, and so is "Other"
    assert _list_items("Languages: Go, Rust, Python") == ["Go", "Rust", "Python"]
    assert _list_items("Other: LaTeX, Markdown, FL Studio") == ["LaTeX", "Markdown", "FL Studio"]


def test_a_labelled_line_after_a_list_that_runs_on_keeps_its_first_item() -> None:
    # "• Go, Rust, Ruby" ends with no separator: the next line's first item was taken for
    # the end of a wrapped item and left out - but that line has a label of its own, so it
    # opens a new list.
    rows: list[Row] = [
        ((40, 100, 300, 114), "Skills", 14.0),
        ((40, 120, 540, 132), "• Go, Rust, Ruby", 10.0),
        ((40, 134, 540, 146), "Expertise: Distributed Tracing, Developer Tooling, Capacity Planning", 10.0),
    ]
    found = _skills(rows)
    assert "Distributed Tracing" in found
    assert "Capacity Planning" in found


def _tag_column(subheading_style: int) -> dict[str, Any]:
    rows: list[tuple[Row, int]] = [
        (((40, 40, 300, 64), "Ines Varela Rocha", 22.0), 0),
        (((40, 70, 300, 84), "ines.rocha@example.org", 10.0), 0),
        (((40, 100, 300, 114), "Skills", 14.0), 1),
        (((40, 120, 200, 132), "Backend", 10.0), subheading_style),
        (((40, 134, 200, 146), "Livewire", 10.0), 0),
        (((40, 148, 200, 160), "FilamentPHP", 10.0), 0),
        (((40, 162, 200, 174), "REST API Design", 10.0), 0),
    ]
    return pdf_answer([styled_block(bbox, text, size, style=style) for (bbox, text, size), style in rows], ocr=False)


def test_a_column_of_one_item_lines_is_a_list_but_not_its_bold_subheading() -> None:
    found = [str(v) for v in extract(_tag_column(subheading_style=1), as_of=AS_OF).values("skills")]
    assert {"Livewire", "FilamentPHP", "REST API Design"} <= set(found)
    assert "Backend" not in found


def test_one_item_lines_need_a_run_of_three_and_a_known_style() -> None:
    two: list[Row] = [
        ((40, 100, 300, 114), "Skills", 14.0),
        ((40, 120, 200, 132), "Livewire", 10.0),
        ((40, 134, 200, 146), "FilamentPHP", 10.0),
    ]
    assert "Livewire" not in _skills(two)
    # an OCR'd page has no styles to tell a sub-heading by: its one-item lines are not read so
    column: list[Row] = [
        ((40, 100, 300, 114), "Skills", 14.0),
        ((40, 120, 200, 132), "Livewire", 10.0),
        ((40, 134, 200, 146), "FilamentPHP", 10.0),
        ((40, 148, 200, 160), "Backpack", 10.0),
    ]
    ocr = pdf_answer([block(1, bbox, text, size) for bbox, text, size in _HEAD + column], ocr=True)
    assert "Livewire" not in [str(v) for v in extract(ocr, as_of=AS_OF).values("skills")]
