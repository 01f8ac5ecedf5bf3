"""Change set layout-57 (stop 64), from development's Canva CVs (held-out v21's and v22's
documents once they were development): a design tool's text layer in the order its boxes were
placed on the canvas, a role's date with its place after it ("June 2024 | Toulouse, France"),
"Laboral Experience", trades named in Spanish and French, and a summary's wrapped line that is
no address (docs/extraction.md, "Change set layout-57"). Invented text in the documents'
geometry; each test but the guards fails on layout-56."""

from __future__ import annotations

import time

from ats.extraction import _history, _layout
from ats.extraction.api import extract
from tests.extraction.answers import Row, roles, styled_answer
from tests.extraction.corpus import AS_OF

# A Canva sidebar CV: contact and languages in a left column, the name, education and
# experience in the right one.
_SIDEBAR: list[Row] = [
    ((40, 150, 200, 160), "+33 6 12 34 56 78", 9.7),
    ((40, 170, 200, 180), "lea.moreau@example.org", 9.7),
    ((40, 190, 200, 200), "31400 TOULOUSE, FRANCE", 9.7),
    ((40, 340, 120, 352), "Languages", 11.5),
    ((40, 370, 200, 380), "French (mother tongue)", 11.0),
    ((40, 390, 200, 400), "English (C1)", 11.0),
    ((40, 410, 200, 420), "German (basics)", 11.0),
    ((40, 500, 120, 512), "Hobbies", 11.5),
    ((40, 530, 200, 540), "Rock climbing", 11.0),
    ((40, 550, 200, 560), "Chess", 11.0),
]
_MAIN: list[Row] = [
    ((240, 37, 500, 70), "LÉA MOREAU", 36.0),
    ((240, 110, 330, 122), "Education", 11.5),
    ((240, 132, 560, 143), "ENSEEIHT - Computer Science Engineer", 10.5),
    ((240, 146, 560, 157), "2023 - 2026 | Toulouse, France", 10.5),
    ((240, 300, 330, 312), "Experience", 11.5),
    ((240, 330, 560, 341), "Fabrikam Robotics - Software Engineer Intern", 10.5),
    ((240, 345, 560, 356), "03/2025 - 08/2025 | Toulouse, France", 10.5),
    ((255, 360, 560, 370), "Wrote the fleet's telemetry service in Go and PostgreSQL.", 9.7),
    ((240, 390, 560, 401), "Contoso Labs - Web Developer", 10.5),
    ((240, 405, 560, 416), "06/2023 - 09/2024 | Paris, France", 10.5),
    ((255, 420, 560, 430), "Built the booking pages in React and TypeScript.", 9.7),
    ((240, 450, 560, 461), "Northwind Books - Sales Assistant", 10.5),
    ((240, 465, 560, 476), "01/2021 - 05/2023 | Paris, France", 10.5),
    ((255, 480, 560, 490), "Advised customers and ran the shop's stock.", 9.7),
]


def _canvas_order() -> list[Row]:
    """The boxes in the order a designer placed them: roles' lines before their section's
    heading, a description before its header, the sidebar's hobbies before its contact lines -
    as far up the page as down it, so no bottom-up export either."""
    m, s = _MAIN, _SIDEBAR
    return [
        m[9], m[10], m[8], m[1], m[2], m[3], m[12], m[13], m[11], m[0], m[7], m[5], m[6], m[4],
        s[7], s[8], s[9], s[0], s[1], s[2], s[3], s[4], s[5], s[6],
    ]  # fmt: skip


def test_a_design_tools_text_layer_in_canvas_order_is_read_by_its_columns() -> None:
    # v22's vhervy, v21's ahalsey and bkrawczyk (Canva): every role lost or split
    page = _layout.lines_of(styled_answer(_canvas_order()))
    assert [ln.text for ln in page if ln.heading] == ["Languages", "Hobbies", "Education", "Experience"]
    assert roles(styled_answer(_canvas_order())) == [
        ("Software Engineer Intern", "Fabrikam Robotics", "2025-03"),
        ("Web Developer", "Contoso Labs", "2023-06"),
        ("Sales Assistant", "Northwind Books", "2021-01"),
    ]
    found = extract(styled_answer(_canvas_order()), as_of=AS_OF)
    assert found.first("name") == "Léa Moreau"
    assert found.first("location") == "31400 TOULOUSE, FRANCE"


def test_a_page_given_column_by_column_keeps_its_order() -> None:
    # guard: a sidebar template's text layer, each column top-down, is the page's own order
    ordered = [*_SIDEBAR, *_MAIN]
    assert [ln.text for ln in _layout.lines_of(styled_answer(ordered))] == [t for _, t, _ in ordered]


def test_a_page_with_no_gutter_keeps_its_order() -> None:
    # guard: with no column to read by, a page's order stays its text layer's (a LaTeX
    # timeline's dates drawn after their roles, foppolo's)
    tops = [100 + 37 * (k * 7 % 20) for k in range(20)]  # every 7th row of 20: up as much as down
    rows: list[Row] = [((60, top, 540, top + 10), f"Item {k}", 10.0) for k, top in enumerate(tops)]
    assert [ln.text for ln in _layout.lines_of(styled_answer(rows))] == [t for _, t, _ in rows]


def test_a_roles_date_with_its_place_after_it() -> None:
    # v22's vhervy: "June 2024 | Toulouse, France" is no range; "2023 | Toulouse, France" was
    # joined to the header above as its place
    answer = styled_answer(
        [
            ((240, 37, 500, 70), "LÉA MOREAU", 36.0),
            ((240, 300, 330, 312), "Experience", 11.5),
            ((240, 330, 560, 341), "Les Maths En Scène - Intern Web developer (WordPress)", 10.5),
            ((240, 345, 560, 356), "June 2024 | Toulouse, France", 10.5),
            ((255, 360, 560, 370), "Redesigned the association's website.", 9.7),
            ((240, 390, 560, 401), "Arcadia Gardens - Waiter", 10.5),
            ((240, 405, 560, 416), "2023 | Toulouse, France", 10.5),
            ((255, 420, 560, 430), "service at the residence restaurant", 9.7),
        ]
    )
    assert roles(answer) == [
        ("Intern Web developer (WordPress)", "Les Maths En Scène", "2024-06"),
        ("Waiter", "Arcadia Gardens", "2023"),
    ]
    assert _history._date_then_place("2023 | Toulouse, France") is not None
    assert _history._date_then_place("2023 | group") is None  # a project's note, no place


def test_laboral_experience_is_the_experience_heading() -> None:
    # v21's probredo-en (Canva): "Experiencia laboral" put into English word by word
    assert _layout.heading_kind("LABORAL EXPERIENCE") == "experience"


def test_a_trade_named_in_spanish_is_the_title() -> None:
    # v21's vdegennaro (Canva): "MOOVECARS - CONDUCTOR" read with the post as the employer
    answer = styled_answer(
        [
            ((240, 37, 500, 70), "VALENTINA DE GENNARO", 30.0),
            ((295, 205, 400, 218), "EXPERIENCIA", 13.0),
            ((295, 236, 560, 247), "MOOVECARS - CONDUCTOR", 10.6),
            ((295, 254, 560, 264), "18/06/2025 - 18/08/2025", 9.6),
            ((295, 285, 560, 296), "4PLAY SRL - ADMINISTRATIVO", 10.6),
            ((295, 301, 560, 311), "Febrero 2024 - Marzo 2025", 9.6),
        ]
    )
    assert roles(answer) == [("CONDUCTOR", "MOOVECARS", "2025-06"), ("ADMINISTRATIVO", "4PLAY SRL", "2024-02")]


def test_a_summarys_wrapped_line_is_no_address() -> None:
    # vhervy's summary, read before its address once the page is read by its columns
    answer = styled_answer(
        [
            ((240, 37, 500, 70), "LÉA MOREAU", 36.0),
            ((40, 146, 200, 156), "I am a student in software", 9.3),
            ((40, 159, 200, 169), "in France. I am looking for a", 9.3),
            ((40, 172, 200, 182), "2025 in software development", 9.3),
            ((40, 226, 200, 236), "lea.moreau@example.org", 9.7),
            ((40, 305, 200, 315), "31400 TOULOUSE, FRANCE", 9.7),
        ]
    )
    assert extract(answer, as_of=AS_OF).first("location") == "31400 TOULOUSE, FRANCE"


def test_a_postcode_before_a_town_is_still_a_place() -> None:
    # guard: "00-950 Warszawa", "75014 paris" typed small stay places beside a capitalised one
    for text in ("00-950 Warszawa", "31400 Toulouse", "8004 ZÜRICH"):
        answer = styled_answer([((240, 37, 500, 70), "LÉA MOREAU", 36.0), ((40, 146, 300, 156), text, 9.3)])
        assert extract(answer, as_of=AS_OF).first("location") == text


def test_a_hostile_page_in_canvas_order_stays_linear() -> None:
    # A page of the parser's most lines (5,000), two columns, each line of a column a jump up
    # or down from the one before: the page is counted once and sorted once, never walked per line
    rows: list[Row] = []
    for x0, x1, text in ((40, 200, "Item"), (240, 560, "Did work")):
        rows += [
            ((x0, 60 + (i * 997 % 2400) * 0.3, x1, 60.2 + (i * 997 % 2400) * 0.3), f"{text} {i}", 9.0)
            for i in range(2400)
        ]
    answer = styled_answer(rows)
    assert _layout._scrambled(_layout._pdf_lines(answer["blocks"]))
    started = time.process_time()
    lines = _layout.lines_of(answer)
    assert time.process_time() - started < 5.0  # CPU seconds, as tests/extraction/test_hostile.py
    assert len(lines) > 4000 and lines[-1].text.startswith("Did work")  # read a column at a time


def test_an_internship_named_as_the_post_is_the_title() -> None:
    # v21's ricardomorim (Word): "Estágio de Verão em Engenharia de Software" beside its house
    answer = styled_answer(
        [
            ((56, 40, 400, 60), "RICARDO MOREIRA", 20.0),
            ((56, 200, 300, 212), "EXPERIÊNCIA PROFISSIONAL", 12.0),
            ((56, 220, 400, 231), "Estágio de Verão em Engenharia de Software", 10.5),
            ((56, 233, 400, 244), "INESC TEC  jul. 2025 - set. 2025", 10.5),
        ]
    )
    assert roles(answer) == [("Estágio de Verão em Engenharia de Software", "INESC TEC", "2025-07")]


def test_a_schools_place_is_no_education_item() -> None:
    # the newcomer check's CV: "2011 - 2015 | Cork, Ireland" under the school listed "Cork,
    # Ireland" as a school of its own once its dates were out
    answer = styled_answer(
        [
            ((240, 37, 500, 70), "JANE O'NEIL", 26.0),
            ((240, 130, 330, 142), "Education", 13.0),
            ((240, 150, 560, 161), "University College Cork - BSc Computer Science", 10.0),
            ((240, 164, 560, 175), "2011 - 2015 | Cork, Ireland", 10.0),
        ]
    )
    assert extract(answer, as_of=AS_OF).values("education") == ["University College Cork - BSc Computer Science"]
