"""Layout-31 (stop 46): rules written on the development half's real documents (held-out v11
not read). Built answers here; docs/extraction.md, "Change set layout-31", says what each
rule is for and what it moved on development."""

# ruff: noqa: RUF001, RUF003 (CV text has typographic dashes)
from __future__ import annotations

from typing import Any

from ats.extraction import _history, _layout
from ats.extraction._layout import is_place
from ats.extraction.api import extract
from tests.extraction.answers import Row, block, pdf_answer, roles, rows_answer
from tests.extraction.corpus import AS_OF


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def test_a_heading_with_the_span_of_the_roles_under_it_is_no_role() -> None:
    # chua's résumé: "Additional Experience" set as a role's title, "2008–2024" beside it as
    # its dates, then the roles of those years - its span counted as years ran them together
    answer = _pdf(
        ((40, 25, 146, 41), "Jane Example", 13.5),
        ((40, 125, 89, 137), "Experience", 9.9),
        ((112, 125, 269, 137), "Senior PM (Product & UX)", 9.9),
        ((278, 127, 412, 137), "Microsoft, Oct 2011–Dec 2015", 9.0),
        ((130, 144, 557, 156), "Shipped the maps product to a million users.", 9.0),
        ((112, 203, 207, 215), "Additional Experience", 9.9),
        ((216, 204, 262, 215), "2008–2024", 9.0),
        ((130, 240, 557, 252), "Software Engineer, IBM, 2008–2010", 9.0),
    )
    assert roles(answer) == [("Senior PM (Product & UX)", "Microsoft", "2011-10"), ("Software Engineer", "IBM", "2008")]
    assert extract(answer, as_of=AS_OF).values("years_experience") == [6.2]


def _two_pages(*, last_sidebar_x: float) -> dict[str, Any]:
    """rogerninow's résumé: a sidebar left (x 36-183) and the roles right (x 198); page 2
    gives the sidebar's courses and their years first, then the main column's roles."""
    return pdf_answer(
        [
            block(1, (198, 30, 400, 50), "Jane Example", 20.0),
            block(1, (198, 80, 300, 94), "Experience", 12.0),
            block(1, (198, 100, 565, 116), "SOFTWARE DEVELOPER Feb-2019 – Jun-2021", 14.0),
            block(1, (198, 116, 335, 130), "Grupo Plan Marketing", 12.0),
            block(1, (198, 131, 437, 141), "Development of a representative portal, integrated with SAP.", 8.0),
            block(1, (84, 80, 137, 94), "Skills", 12.0),
            block(1, (36, 100, 120, 110), "Python, Flutter", 8.0),
            block(2, (84, 36, 137, 51), "Courses", 12.0),
            block(2, (36, 82, 135, 92), "English Grammar Launch", 8.0),
            block(2, (163, 82, 183, 92), "2018", 8.0),
            block(2, (36, 154, 116, 164), "GIT complete guide", 8.0),
            block(2, (163, 154, 183, 164), "2019", 8.0),
            block(2, (last_sidebar_x, 672, 143, 680), "Courses in bold are in progress.", 7.0),
            block(2, (198, 34, 568, 51), "DEVELOPER Feb-2017 – Feb-2019", 14.0),
            block(2, (198, 51, 311, 65), "Result Informática", 12.0),
            block(2, (198, 65, 448, 75), "Development and maintenance of systems, websites and apps.", 8.0),
            block(2, (198, 154, 566, 171), "INFRASTRUCTURE SUPERVISOR Aug-2015 – Aug-2016", 14.0),
            block(2, (198, 171, 266, 186), "Rapidanet", 12.0),
            block(2, (198, 186, 488, 195), "Responsible for supervising support and infrastructure teams.", 8.0),
        ],
        ocr=False,
    )


def test_the_main_column_goes_on_with_its_section_after_a_sidebars_years_on_the_next_page() -> None:
    answer = _two_pages(last_sidebar_x=36)
    texts = [line.text for line in _layout.lines_of(answer)]
    # a sidebar's year takes no line with dates of its own from the main column beside it
    assert "INFRASTRUCTURE SUPERVISOR Aug-2015 – Aug-2016" in texts
    assert roles(answer) == [
        ("SOFTWARE DEVELOPER", "Grupo Plan Marketing", "2019-02"),
        ("DEVELOPER", "Result Informática", "2017-02"),
        ("INFRASTRUCTURE SUPERVISOR", "Rapidanet", "2015-08"),
    ]


def test_a_range_broken_after_to_is_one_range() -> None:
    # xvalcarce's résumé: a date column whose ranges wrap after "to"; the roles' own
    # "Publications:" and "Teaching:" labels, set like the body, are no sections
    answer = _pdf(
        ((222, 28, 373, 57), "Xavier Example", 20.7),
        ((147, 126, 206, 141), "Experiences", 10.0),
        ((57, 151, 539, 180), "Sept. 2018 to  Research Assistant at Quantum Optics Theory Group, Basel", 10.0),
        ((57, 166, 93, 180), "present", 10.0),
        ((147, 180, 209, 194), "Publications:", 10.0),
        ((147, 195, 539, 209), "- What is the minimum CHSH score certifying that a state resembles the singlet?", 10.0),
        ((147, 297, 193, 311), "Teaching:", 10.0),
        ((147, 312, 328, 326), "- Quantum Information Theory (FS 2019)", 10.0),
        (
            (57, 364, 539, 379),
            "Apr. 2018 to  Master Thesis at Quantum Information Theory Group, ICFO (Barcelona,",
            10.0,
        ),
        ((57, 379, 176, 393), "Sept. 2018  Spain)", 10.0),
        ((147, 393, 539, 407), "Master thesis project on Machine Learning for Nonlocality Detection.", 10.0),
        ((147, 528, 196, 542), "Education", 10.0),
        ((57, 552, 537, 567), "2016 to 2018  Master in Subatomic Physics, Claude Bernard University, Lyon", 10.0),
    )
    entries = [e.value for e in extract(answer, as_of=AS_OF).fields["work_history"]]
    assert [(e["title"], e["start"], e["end"]) for e in entries] == [
        ("Research Assistant", "2018-09", "present"),
        ("Master Thesis", "2018-04", "2018-09"),
    ]
    # headings written with a colon keep theirs: "Publications:" opens a section there
    with_colons = _pdf(
        ((222, 28, 373, 57), "Xavier Example", 20.7),
        ((147, 126, 206, 141), "Experience:", 10.0),
        ((57, 151, 539, 165), "2018 - 2020  Research Assistant at Quantum Optics Theory Group, Basel", 10.0),
        ((147, 180, 209, 194), "Publications:", 10.0),
        ((57, 195, 539, 209), "2019 - 2020  A paper on the singlet, Physical Review Letters", 10.0),
        ((147, 528, 196, 542), "Education:", 10.0),
    )
    assert [t for t, _, _ in roles(with_colons)] == ["Research Assistant"]


def test_a_post_its_organisation_and_its_country_are_no_place() -> None:
    assert not is_place("Lecturer, University of Liverpool, UK")
    assert not is_place("Professor Doutor, Universidade de São Paulo, Brazil")
    assert is_place("Mountain View, California, EUA")
    answer = _pdf(
        ((35, 40, 235, 60), "Leo Example", 20.0),
        ((35, 135, 205, 150), "Professional Appointments", 14.3),
        ((35, 163, 329, 173), "2023-on  Professor Doutor, Universidade de São Paulo, Brazil", 10.0),
        ((35, 179, 258, 190), "2019-2023  Lecturer, University of Liverpool, UK", 10.0),
        ((35, 196, 352, 206), "2017-2019  Visiting Researcher, University of Hawai‘i at Mānoa, USA", 10.0),
    )
    assert roles(answer) == [
        ("Professor Doutor", "Universidade de São Paulo", "2023"),
        ("Lecturer", "University of Liverpool", "2019"),
        ("Visiting Researcher", "University of Hawai‘i at Mānoa", "2017"),
    ]


def test_an_employers_own_row_over_a_description_names_the_roles_below() -> None:
    # casmith's résumé: "Employer  City", a sentence on what it does, then each role's
    # "Title  dates" - the roles named no employer
    answer = _pdf(
        ((232, 24, 385, 55), "ADAM EXAMPLE", 22.0),
        ((36, 228, 150, 243), "WORK EXPERIENCE", 11.0),
        ((36, 243, 225, 257), "Auburn University: Campus Web Solutions", 10.0),
        ((468, 243, 578, 257), "Auburn, AL", 10.0),
        ((36, 255, 540, 268), "CWS is a software development unit that builds and maintains web applications.", 10.0),
        ((36, 266, 578, 280), "Associate Systems Engineer / Technical Lead  Jan 2023 - Present", 10.0),
        (
            (54, 278, 531, 291),
            "- Continue responsibilities started as a student developer, with project leadership.",
            10.0,
        ),
        ((36, 290, 578, 303), "Student Developer (Co-op)  Jan 2021 - Aug 2022", 10.0),
        ((54, 302, 531, 315), "- Built and maintained web applications for the university's departments.", 10.0),
    )
    assert roles(answer) == [
        ("Associate Systems Engineer / Technical Lead", "Auburn University: Campus Web Solutions", "2023-01"),
        ("Student Developer (Co-op)", "Auburn University: Campus Web Solutions", "2021-01"),
    ]


def test_a_line_drawn_whole_and_again_in_pieces_is_read_once() -> None:
    # gtrofino's CV: "ISIR, Sorbonne Université" drawn whole and each name again as a link
    answer = _pdf(
        ((36, 40, 236, 67), "Jane Example", 24.0),
        ((28, 73, 128, 87), "EXPERIENCES", 14.3),
        ((31, 434, 173, 444), "Neuroscience Research Intern", 10.0),
        ((31, 445, 49, 455), "ISIR", 10.0),
        ((31, 445, 154, 455), "ISIR, Sorbonne Université", 10.0),
        ((55, 445, 154, 455), "Sorbonne Université", 10.0),
        ((36, 457, 153, 465), "3 months: 05/2023 – 08/2023", 8.0),
    )
    assert [line.text for line in _layout.lines_of(answer)].count("Sorbonne Université") == 0
    assert roles(answer) == [("Neuroscience Research Intern", "ISIR, Sorbonne Université", "2023-05")]


def test_a_french_contract_after_a_title_is_no_part_of_it() -> None:
    answer = _pdf(
        ((36, 40, 236, 67), "Jean Exemple", 24.0),
        ((28, 401, 112, 425), "EXPÉRIENCES", 16.0),
        ((29, 482, 277, 503), "Développeur Web Python (CDI - 4 ans et 3 mois)", 14.0),
        ((30, 502, 250, 517), "SCIFORMA - MARSEILLE – De Novembre 2018 à Février 2023", 10.0),
        ((29, 656, 299, 676), "Technicien Réseaux et Télécom (Alternance - 6 mois)", 14.0),
        ((30, 676, 228, 691), "DOYOUSOFT SA - BÉZIERS - De Mars 2011 à Août 2011", 10.0),
    )
    assert roles(answer) == [
        ("Développeur Web Python", "SCIFORMA", "2018-11"),
        ("Technicien Réseaux et Télécom", "DOYOUSOFT SA", "2011-03"),
    ]


def test_a_link_note_or_a_two_word_stack_in_brackets_is_no_part_of_the_employer() -> None:
    answer = _pdf(
        ((36, 40, 236, 67), "Luis Example", 24.0),
        ((35, 100, 212, 114), "Work Experience", 16.0),
        ((35, 120, 500, 132), "Senior Software Engineer @ Kritik (website) 2022-04 – today", 10.0),
        ((35, 134, 500, 146), "Helping Kritik build a first-class peer-grading platform for universities.", 10.0),
        ((43, 370, 109, 379), "Sept. 14 – Oct. 15", 8.0),
        ((133, 368, 422, 380), "Ingénieur en développement Web, Homeloc (Python, Django)", 10.0),
        ((169, 380, 556, 403), "Développement de sites Web et de solutions de gestion de locations.", 10.0),
    )
    assert [e for _, e, _ in roles(answer)] == ["Kritik", "Homeloc"]
    # a name in brackets stays, and so does a place's (split off as the location before)
    assert _history._less_note("Devsisters (Studio Kingdom)") == "Devsisters (Studio Kingdom)"
    assert _history._less_note("Skyworks (Mexicali, México)") == "Skyworks (Mexicali, México)"


def test_a_bracket_before_a_lines_dates_keeps_its_partner() -> None:
    def rest(text: str) -> str:
        return _history._without_all(text, _history.date_ranges(text))

    assert rest("Ingénieur en développement Web, Homeloc (Python, Django)  Sept. 14 – Oct. 15") == (
        "Ingénieur en développement Web, Homeloc (Python, Django)"
    )
    assert rest("Google (Mountain View, 2019 – 2021)") == "Google (Mountain View)"
    assert rest("Acme [2019 - 2020]") == "Acme"
    assert rest("(Jan 2019 – Present)") == ""
