"""Change set layout-62 (stop 66), from held-out v24's documents once they were development: a
LinkedIn export's name wrapped over two lines or of one word, "Career Objective" as a heading,
a town and its state's or country's code with no comma ("Perth WA", "João Pessoa, PB, Br"),
the label "Date:" before a role's dates, a post's words parted by a dash inside its brackets,
a Spanish where-note ("Remoto – Australia"), and a post line ended with a full stop
(docs/extraction.md, "Change set layout-62"). Invented text in the documents' geometry; each
test but the guards fails on layout-61."""

# ruff: noqa: RUF001, RUF002, RUF003 - the en dashes are what these documents hold

from __future__ import annotations

from typing import Any

from ats.extraction import _history
from ats.extraction._layout import heading_kind, is_place
from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF

_NAME: list[Row] = [((72, 60, 300, 80), "Dana Whitfield", 20.0), ((72, 86, 300, 98), "dana@example.org", 11.0)]


def _entries(rows: list[Row]) -> list[tuple[str | None, str | None, str | None, str]]:
    found = extract(styled_answer(rows), as_of=AS_OF).values("work_history")
    return [(e["title"], e["employer"], e["location"], e["start"]) for e in found]


# LinkedIn's "Save to PDF": a contact column at x 22, the name at 26 pt at the top of the main column.
def _linkedin(name: list[Row]) -> dict[str, Any]:
    rows: list[Row] = [
        ((22, 40, 66, 59), "Contact", 13.0),
        ((22, 62, 133, 77), "kofi.mensah@example.org", 10.5),
        ((22, 86, 161, 102), "www.linkedin.com/in/kofi-mensah-1a2b (LinkedIn)", 11.0),
        ((22, 134, 78, 152), "Top Skills", 13.0),
        ((22, 156, 78, 170), "Selenium", 10.5),
        *name,
        ((224, 105, 458, 122), "QA Engineer at Northwind | Tester", 12.0),
        ((224, 135, 380, 152), "Accra, Ghana", 12.0),
        ((224, 168, 291, 190), "Summary", 15.8),
        ((224, 198, 564, 215), "Tester who likes tidy pipelines.", 12.0),
    ]
    return styled_answer(rows)


def test_a_linkedin_exports_name_wrapped_over_two_lines_is_whole() -> None:
    # v24's dfahmi: the name's second line was left out
    answer = _linkedin(
        [((224, 38, 564, 74), "Kwabena Kofi Mensah Asante Md", 26.0), ((224, 69, 313, 105), "Boateng", 26.0)]
    )
    assert extract(answer, as_of=AS_OF).values("name") == ["Kwabena Kofi Mensah Asante Md Boateng"]


def test_a_linkedin_exports_one_word_name_is_the_name() -> None:
    # v24's gagan: "Gagan -" gave no name at all
    answer = _linkedin([((224, 38, 317, 74), "Kofi -", 26.0)])
    assert extract(answer, as_of=AS_OF).values("name") == ["Kofi"]


def test_a_linkedin_exports_usual_name_reads_as_before() -> None:
    # guard: one line of two words, as the general reader read it
    answer = _linkedin([((224, 38, 362, 74), "Kofi Mensah", 26.0)])
    assert extract(answer, as_of=AS_OF).values("name") == ["Kofi Mensah"]


def test_career_objective_set_larger_than_the_name_is_a_heading() -> None:
    # v24's abringhurst (Google Docs): the name at body size, "Career Objective" at 13 pt
    assert heading_kind("Career Objective") == "summary"
    rows: list[Row] = [
        ((72, 84, 177, 97), "Dana C. Whitfield", 11.0),
        ((72, 99, 186, 111), "Saratoga Springs, Utah", 11.0),
        ((72, 128, 247, 140), "Email: dana.whitfield@example.org", 11.0),
        ((72, 157, 175, 171), "Career Objective", 13.0),
        ((72, 186, 500, 198), "Versatile professional seeking opportunities to grow.", 11.0),
    ]
    assert extract(styled_answer(rows), as_of=AS_OF).values("name") == ["Dana C. Whitfield"]


def test_a_town_and_its_code_with_no_comma_is_a_place() -> None:
    # v24's scurtis: "Apple inc (Perth WA)" was the employer whole; cardoli's "João Pessoa, PB, Br"
    for place in ("Perth WA", "Vancouver BC", "Osaka Japan", "João Pessoa, PB, Br", "Austin, TX, US"):
        assert is_place(place), place
    assert _history._split_job(["Inbound Sales Consultant", "Harbour Distribution (Perth WA)"]) == (
        "Inbound Sales Consultant",
        "Harbour Distribution",
        "Perth WA",
    )


def test_a_house_whose_name_ends_in_a_code_is_no_place() -> None:
    # guards: a house's legal form, and a name that is no known town
    assert not is_place("Acme SA")
    assert not is_place("Google Japan")


def test_the_label_of_a_roles_dates_is_no_title() -> None:
    # v24's akiriushin (AltaCV): "Date: Apr 2017 – Feb 2019" under the post and its house read
    # "Date" as the post, and the dash in the post's brackets parted it from its own words
    rows: list[Row] = [
        *_NAME,
        ((42, 440, 200, 454), "Experience", 14.0),
        ((42, 467, 311, 478), "Software Engineer (CDN - Live Streaming Backend)", 12.0),
        ((42, 482, 182, 492), "Streamline Video, Moscow, Russia", 10.0),
        ((46, 497, 143, 506), "Date: Apr 2017 – Feb 2019", 9.0),
        ((42, 512, 306, 522), "• Built the backend of a live streaming service.", 10.0),
    ]
    assert _entries(rows) == [
        ("Software Engineer (CDN - Live Streaming Backend)", "Streamline Video", "Moscow, Russia", "2017-04")
    ]


def test_a_spanish_where_note_in_brackets_is_the_place() -> None:
    # v24's daguirre: with the dash inside brackets kept, "(Remoto – Australia)" must still be
    # read as where the work was, as "(Remote – Australia)" is
    assert _history._split_job(["Software Developer (Remoto – Australia)", "Bigger"]) == (
        "Software Developer",
        "Bigger",
        "Remoto, Australia",
    )


def test_a_posts_full_stop_is_dropped_but_not_an_abbreviations() -> None:
    # v24's cardoli (Google Docs): "Java/ JavaScript Developer." under "Platech"
    assert _history._less_stop("Java/ JavaScript Developer.") == "Java/ JavaScript Developer"
    assert _history._less_stop("Software Engineer Sr.") == "Software Engineer Sr."
    assert _history._less_stop("Consultant, Acme Corp.") == "Consultant, Acme Corp."
