"""Change set layout-72 (stop 73): held-out v28's documents read as development - a house's
street address, what kind of house it is in brackets, tools glued to a title, a town and its
country's ISO code, a lower-case house with a compound legal form, a freelance role under
two houses, a date cell in ISO's year-month, a town before its country on a title's line, a
canvas order with few climbs, and "BOOTCAMPS & SPECIALIZED TRAINING" (docs/extraction.md,
"Change set layout-72")."""

# ruff: noqa: RUF001 - the en dashes are what these documents hold

from __future__ import annotations

from ats.extraction._history import _less_contract, _split_job
from ats.extraction._layout import _pdf_lines, _scrambled, heading_kind, is_place
from tests.extraction.answers import Row, roles, styled_answer

_HEAD: list[Row] = [((60, 40, 300, 60), "Alex Martin", 20.0), ((60, 100, 200, 112), "EXPERIENCE", 12.0)]


def _roles_of(*rows: Row) -> list[tuple[str | None, str | None, str]]:
    return roles(styled_answer([*_HEAD, *rows]))


def test_a_house_s_street_address_is_no_part_of_its_name() -> None:
    # v19's ahalsey (French, Swiss and English CVs) and tpapini: the house, its street, its
    # postcode and town on the line under the title
    found = _roles_of(
        ((60, 120, 500, 131), "Product Owner  Mar 2021 – Present", 10.0),
        ((60, 133, 400, 144), "Happytal, 59 Rue Pernety, 75014 Paris, France", 10.0),
        ((60, 160, 500, 171), "Software Developer  Jan 2017 – Feb 2021", 10.0),
        ((60, 173, 400, 184), "CERN, Route de Meyrin 385, 1217 Meyrin (Switzerland)", 10.0),
    )
    assert [(t, e) for t, e, _ in found] == [("Product Owner", "Happytal"), ("Software Developer", "CERN")]


def test_a_kind_of_house_in_brackets_and_tools_glued_to_a_title_are_dropped() -> None:
    found = _roles_of(
        # v13's wli: the house's kind after its name, English and Chinese brackets
        (
            (60, 120, 500, 131),
            "August 2018 - May 2020  Data engineer @ Leadvisor Technology Inc. (startup company)",
            10.0,
        ),
        ((60, 133, 500, 144), "Built pipelines for the data platform.", 10.0),
        ((60, 146, 500, 157), "2013.09 - 2015.06  网站开发@ 97 随访（初创公司）", 10.0),
        # 0xpoe's: the stack glued to the title
        ((60, 160, 500, 171), "Full-Stack Engineer(Golang/JS)  Aug 2020 – July 2021", 10.0),
        ((60, 173, 300, 184), "PingCAP Inc.", 10.0),
    )
    assert found[0][1] == "Leadvisor Technology Inc."
    assert found[1][1] == "97 随访"
    assert found[2][:2] == ("Full-Stack Engineer", "PingCAP Inc.")


def test_a_stack_set_apart_after_a_title_stays_as_written() -> None:
    # kassimi's labels keep it (layout-59): only a glued bracket is dropped
    found = _roles_of(
        ((60, 120, 500, 131), "PFA Internship — Full Stack Developer (Django / React)  Aug. 2025 – Sept. 2025", 10.0),
        ((60, 133, 400, 144), "Oum Er Rbia Hydraulic Basin Agency", 10.0),
    )
    assert found[0][0] is not None and found[0][0].endswith("(Django / React)")


def test_a_town_and_its_country_s_iso_code_is_a_place() -> None:
    assert all(is_place(p) for p in ("Santiago, CHL", "Lima, PER", "OSTRAVA, CZ", "Lephalale, ZA"))
    assert not any(is_place(p) for p in ("Robert Bosch GmbH, DE", "Marketing, IT", "Backend, API", "Python, AND"))
    # v28's bgbustamante (awesome-cv): the place column's "Santiago, CHL" was read as the house
    found = _roles_of(
        ((60, 120, 300, 131), "Universidad de Santiago de Chile (USACH)", 10.0),
        ((470, 121, 520, 131), "Santiago, CHL", 10.0),
        ((60, 133, 300, 144), "Instructor Professor", 10.0),
        ((470, 134, 520, 144), "2019 - 2024", 10.0),
    )
    assert found == [("Instructor Professor", "Universidad de Santiago de Chile (USACH)", "2019")]


_CANVA: list[Row] = [
    # v28's sbrumbaugh (Canva): no bullet glyph, each duty set deeper than its role's lines,
    # a lower-case house with a compound legal form, and a freelance role after two houses
    ((102, 177, 233, 189), "Fullstack Web Developer", 10.6),
    ((102, 191, 243, 204), "empiriecom GmbH & Co. KG", 10.6),
    ((102, 206, 200, 218), "July 2022 to Present", 10.6),
    ((120, 234, 373, 246), "Developed, Implemented, and Planned a Migration", 10.6),
    ((120, 277, 363, 289), "Implemented CI/CD to check for vulnerabilities.", 10.6),
    ((102, 406, 233, 419), "Fullstack Web Developer", 10.6),
    ((102, 421, 189, 433), "s2k digital GmbH", 10.6),
    ((102, 435, 294, 447), "November 2021 to July 2022", 10.6),
    ((120, 464, 374, 476), "Headed the building of the Messaging Application.", 10.6),
    ((120, 550, 356, 562), "Upgraded initial Design from React Component-", 10.6),
    ((120, 564, 254, 576), "Based API to new Hook API", 10.6),
    ((102, 622, 238, 634), "Freelance Web Developer", 10.6),
    ((102, 636, 305, 648), "June 2019 to July 2022", 10.6),
    ((120, 664, 336, 676), "Meet with clients to build user personas", 10.6),
]


def test_a_canva_role_s_deeper_duties_a_compound_legal_form_and_a_freelance_role() -> None:
    found = roles(
        styled_answer([((60, 40, 300, 60), "Sam Brown", 20.0), ((60, 149, 189, 163), "WORK EXPERIENCE", 12.0), *_CANVA])
    )
    assert found == [
        ("Fullstack Web Developer", "empiriecom GmbH & Co. KG", "2022-07"),
        ("Fullstack Web Developer", "s2k digital GmbH", "2021-11"),
        ("Freelance Web Developer", None, "2019-06"),
    ]


def test_a_date_cell_in_iso_year_month_joins_its_end_on_the_next_row() -> None:
    # v28's etymoshuk (an HTML CV printed by Chrome): "2022-07  Web Developer" over "- 2023-02"
    found = _roles_of(
        ((60, 120, 350, 132), "2022-07  Web Developer", 10.8),
        ((60, 134, 99, 144), "- 2023-02", 9.0),
        ((128, 140, 217, 151), "Crowbox, Remotely", 10.2),
        ((128, 160, 400, 170), "Web developer in Woocommerce, Elementor and other software using", 9.0),
        ((60, 194, 350, 206), "2016-01  Fiber optical specialist", 10.8),
        ((60, 209, 96, 219), "- present", 9.0),
        ((128, 214, 213, 226), "HUZZAR , Gdańsk", 10.2),
    )
    assert [(t, e, s) for t, e, s in found] == [
        ("Web Developer", "Crowbox", "2022-07"),
        ("Fiber optical specialist", "HUZZAR", "2016-01"),
    ]


def test_a_town_before_its_country_ends_no_title_and_a_contract_is_no_house() -> None:
    # v28's mmamdoh (Google Docs): the place set one space after the title
    assert _split_job(["Business Intelligence Analyst Cairo, Egypt", "Addiction Treatment Center | Internship"]) == (
        "Business Intelligence Analyst",
        "Addiction Treatment Center",
        "Cairo, Egypt",
    )
    assert _less_contract("Addiction Treatment Center | Internship") == "Addiction Treatment Center"
    assert _less_contract("Internship") == "Internship"


def test_bootcamps_and_training_open_a_section_of_their_own() -> None:
    assert heading_kind("BOOTCAMPS & SPECIALIZED TRAINING") == "other"
    # a wrapped line's end and a course's first word stay text (probredo's, paul-freeman's)
    assert heading_kind("PROJECT)") is None
    assert heading_kind("BOOTCAMP EN") is None


def test_a_canvas_order_with_three_climbs_is_read_by_its_columns() -> None:
    # v28's sbrumbaugh as Canva's text layer gives it: the sidebar's skills, then its name
    # and contact, then the right column's duties, its roles' lines, and its heading last -
    # three climbs up the page in 24 lines (layout-71 wanted five, and one line in fourteen)
    duties = [row for row in _CANVA if row[0][0] == 120]
    heads = [row for row in _CANVA if row[0][0] == 102]
    skills: list[Row] = [
        ((10, 300, 90, 311), "SKILLS", 11.0),
        ((10, 314, 90, 324), "React", 9.0),
        ((10, 327, 90, 337), "Node.js", 9.0),
        ((10, 340, 90, 350), "Docker", 9.0),
        ((10, 353, 90, 363), "TypeScript", 9.0),
    ]
    contact: list[Row] = [
        ((10, 40, 90, 60), "Sam Brown", 20.0),
        ((10, 100, 90, 111), "CONTACT", 11.0),
        ((10, 114, 90, 124), "sam@example.org", 9.0),
        ((10, 127, 90, 137), "Berlin", 9.0),
    ]
    answer = styled_answer([*skills, *contact, *duties, *heads, ((100, 149, 229, 163), "WORK EXPERIENCE", 12.0)])
    assert _scrambled(_pdf_lines(answer["blocks"]))
    assert [(t, e) for t, e, _ in roles(answer)] == [
        ("Fullstack Web Developer", "empiriecom GmbH & Co. KG"),
        ("Fullstack Web Developer", "s2k digital GmbH"),
        ("Freelance Web Developer", None),
    ]
