"""Change set layout-56 (stop 63), from held-out v22's documents once they were development:
headings with their rule typed on, bulleted roles with their dates flush right, a list's
bullets drawn as lines of their own, "06-2020" and "2016-*", a house and its town parted by a
legal form, Portugal's "Percurso" headings and an "Internship" title set like a heading
(docs/extraction.md, "Change set layout-56"). Invented text in the documents' geometry; each
test but the guards fails on layout-55."""

# ruff: noqa: RUF001 - the en dashes are what these documents hold
from __future__ import annotations

from ats.extraction import _history, _layout
from ats.extraction.api import extract
from tests.extraction.answers import Row, roles, styled_answer
from tests.extraction.corpus import AS_OF

_TOP: list[Row] = [
    ((200, 36, 400, 52), "MARTA QUINTELA", 16.0),
    ((150, 60, 450, 70), "+351 912 345 678  marta.quintela@example.org", 10.0),
]


def test_a_heading_with_its_rule_typed_on_after_its_last_letter() -> None:
    # v22's felipemiotto (Google Docs): "Experiences____...": no heading, every role lost
    assert _layout.heading_kind("Experiences" + "_" * 90) == "experience"
    assert _layout.heading_kind("Skills" + "_" * 96) == "skills"
    answer = styled_answer(
        [
            *_TOP,
            ((22, 204, 560, 216), "Experiences" + "_" * 90, 11.0),
            ((30, 227, 200, 237), "Backend Developer", 10.0),
            ((268, 227, 560, 237), "Fabrikam Cooperativa  07/2023 - Current", 10.0),
            ((22, 255, 560, 265), "• Built REST APIs with C# and SQL Server.", 9.0),
            ((22, 290, 560, 302), "Education" + "_" * 92, 11.0),
            ((22, 310, 400, 320), "Universidade Exemplo, BSc Computer Science, 2015 - 2019", 9.0),
        ]
    )
    assert roles(answer) == [("Backend Developer", "Fabrikam Cooperativa", "2023-07")]


def test_a_hyphenated_word_keeps_its_letters() -> None:
    # guard: four rule characters at least, straight after a letter
    assert _layout._less_rule("E-Mail") == "E-Mail"
    assert _layout._less_rule("Full-Stack--") == "Full-Stack--"
    assert _layout.heading_kind("Full-Stack") is None


_BULLETED_ROLES: list[Row] = [
    *_TOP,
    ((72, 428, 200, 442), "Work Experience", 12.0),
    ((72, 454, 400, 466), "• A.I. Engineer, Contoso SRL (Remote, Italy)", 10.0),
    ((480, 454, 560, 466), "2024/03 - 2024/12", 10.0),
    ((85, 466, 560, 478), "Built logistics optimisation models in Python and PyTorch for the routing team.", 10.0),
    ((85, 490, 400, 502), "Skills: Deep Learning, Time Series", 10.0),
    ((72, 509, 400, 521), "• Senior Software Dev., Northwind Labs (Hybrid)", 10.0),
    ((480, 509, 560, 521), "2020/08 - 2022/09", 10.0),
    ((85, 521, 560, 533), "Wrote firmware and desktop tools for the safety equipment line.", 10.0),
]


def test_a_bulleted_role_with_its_dates_flush_right_is_the_roles_own_line() -> None:
    # v22's pnasiri: the dates beside a bullet were read as rendercv's "dates beside the
    # description's first bullet", every role's title and employer dropped
    assert roles(styled_answer(_BULLETED_ROLES)) == [
        ("A.I. Engineer", "Contoso SRL", "2024-03"),
        ("Senior Software Dev.", "Northwind Labs", "2020-08"),
    ]


def test_dates_beside_a_descriptions_first_bullet_still_leave_it_out() -> None:
    # guard (rendercv): the header sits left of its bullets; the bullet is its description
    answer = styled_answer(
        [
            *_TOP,
            ((56, 300, 200, 314), "Experience", 12.0),
            ((56, 320, 300, 332), "Nexus AI, Co-Founder & CTO", 10.0),
            ((60, 334, 420, 346), "• Built model infrastructure serving 2M monthly requests", 10.0),
            ((480, 334, 560, 346), "Jun 2023 – present", 10.0),
            ((68, 346, 300, 358), "with 99.9% uptime", 10.0),
        ]
    )
    assert roles(answer) == [("Co-Founder & CTO", "Nexus AI", "2023-06")]


_LONE_BULLETS: list[Row] = [
    *_TOP,
    ((36, 223, 200, 233), "Work Experience", 10.0),
    ((36, 242, 300, 252), "2019 - 2020  Tailspin Music", 8.0),
    ((419, 242, 560, 252), "New York, NY", 8.0),
    ((36, 255, 200, 265), "Office Manager", 8.0),
    ((54, 268, 60, 276), "●", 8.0),
    ((72, 267, 400, 277), "Accounts receivable, collections", 8.0),
    ((54, 281, 60, 289), "●", 8.0),
    ((72, 280, 400, 290), "Ordering supplies, office maintenance", 8.0),
    ((36, 300, 300, 310), "2014 - 2017  Candle East", 8.0),
    ((419, 300, 560, 310), "New York, NY", 8.0),
    ((36, 313, 200, 323), "Service Manager", 8.0),
    ((54, 326, 60, 334), "●", 8.0),
    ((72, 325, 400, 335), "Hire, train and schedule staff", 8.0),
]


def test_a_list_whose_bullets_are_lines_of_their_own_is_no_roles_header() -> None:
    # v22's editapesa (Google Docs): the last items above a date column's row were read as
    # the next role's title and employer ("Ordering supplies", "office maintenance")
    assert roles(styled_answer(_LONE_BULLETS)) == [
        ("Office Manager", "Tailspin Music", "2019"),
        ("Service Manager", "Candle East", "2014"),
    ]


def test_a_lone_bullet_on_the_roles_margin_still_opens_a_role() -> None:
    # guard (aramuni's): "•" then "Fabrikam" on the section's margin - the role's own line
    answer = styled_answer(
        [
            *_TOP,
            ((40, 14, 200, 24), "Experience", 12.0),
            ((40, 26, 46, 36), "•", 10.0),
            ((56, 26, 200, 36), "Fabrikam", 10.0),
            ((470, 26, 560, 36), "Jun 2023 - Aug 2023", 9.0),
            ((56, 38, 300, 48), "Tech Manager", 9.0),
            ((50, 55, 560, 65), "– Led squads in several system projects for the air miles market.", 10.0),
            ((40, 80, 46, 90), "•", 10.0),
            ((56, 80, 200, 90), "Trey Research", 10.0),
            ((468, 80, 560, 90), "Mar 2023 - Jun 2023", 9.0),
            ((56, 92, 300, 102), "Curriculum Tech Lead", 9.0),
        ]
    )
    assert roles(answer) == [
        ("Tech Manager", "Fabrikam", "2023-06"),
        ("Curriculum Tech Lead", "Trey Research", "2023-03"),
    ]


def test_a_month_and_year_with_a_hyphen_and_an_open_range_with_a_star() -> None:
    # v22's staroyee ("12.2016 - 06-2020": no dates, the role lost) and darnold ("2016-*")
    (mixed,) = _history.date_ranges("12.2016 - 06-2020")
    assert (mixed.start, mixed.end) == ((2016, 12), (2020, 6))
    (open_ended,) = _history.date_ranges("Chief Architect 2016-* Fabrikam - Petaluma")
    assert (open_ended.start, open_ended.end) == ((2016, None), None)
    # guards: no month before the hyphen keeps the year; a footnote star after a range's end
    (year_only,) = _history.date_ranges("13-2019 - 2020")
    assert (year_only.start, year_only.end) == ((2019, None), (2020, None))
    (starred,) = _history.date_ranges("2016-2018*")
    assert starred.end == (2018, None)


def test_a_house_and_its_town_parted_by_a_legal_form() -> None:
    # v22's larigens (a DOCX's tab stop read as a space): "…, LLC Sandy Springs, GA" was the employer
    parted = ["G Squared Lending, LLC", "Sandy Springs, GA"]
    assert _history._parts("G Squared Lending, LLC Sandy Springs, GA") == parted
    assert _history._parts("Contoso Inc. Boston, MA") == ["Contoso Inc.", "Boston, MA"]
    # guards: no town after the form, or a house's name that only holds one
    assert _history._parts("Fabrikam Co. Ltd") == ["Fabrikam Co. Ltd"]
    assert _history._parts("Saga Analytics") == ["Saga Analytics"]


def test_portugals_percurso_headings() -> None:
    # v22's wingosto-pt: no heading read, its schools read as jobs
    assert _layout.heading_kind("Percurso Profissional") == "experience"
    assert _layout.heading_kind("Percurso Académico") == "education"


def test_an_internship_title_set_like_a_sub_heading_is_the_roles_title() -> None:
    # v22's pfeiteira (AltaCV): "Internship" opened an experience section of its own
    answer = styled_answer(
        [
            *_TOP,
            ((35, 137, 200, 157), "EXPERIENCE", 17.2),
            ((35, 167, 400, 181), "Senior Engineer @ Contoso", 12.0),
            ((38, 199, 180, 209), "Date: Sep 2025 – On Going", 9.0),
            ((186, 198, 330, 208), "Location: Lisbon, Portugal", 9.0),
            ((35, 215, 560, 227), "• Building a support assistant in Python.", 10.0),
            ((35, 732, 200, 746), "Internship", 12.0),
            ((35, 748, 200, 760), "Northwind", 10.0),
            ((38, 763, 180, 773), "Date: Apr 2018 – Jul 2018", 9.0),
            ((186, 762, 330, 772), "Location: Lisbon, Portugal", 9.0),
            ((35, 779, 560, 791), "• Developed a proof of concept for test generation.", 10.0),
        ]
    )
    assert ("Internship", "Northwind", "2018-04") in roles(answer)
    assert extract(answer, as_of=AS_OF).values("work_history")[-1]["title"] == "Internship"
