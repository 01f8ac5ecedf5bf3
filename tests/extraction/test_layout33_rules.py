"""Layout-33 (stop 48): rules written on held-out v11's documents once they were development
(held-out v12 not read). Built answers here, with the geometry of the documents that showed
each case and invented text; docs/extraction.md, "Change set layout-33", says what each rule
is for and what it moved on development."""

# ruff: noqa: RUF001, RUF003 (CV text has typographic dashes)
from __future__ import annotations

from ats.extraction._history import _capital_i, _lower_cased_name
from ats.extraction._layout import heading_kind, is_place
from ats.extraction.api import extract
from tests.extraction.answers import roles, rows_answer
from tests.extraction.corpus import AS_OF


def test_a_second_role_at_the_same_house_takes_its_employer() -> None:
    # "Codesa" on a line of its own over "Technical Lead | Jul 2024- Present | Colombia",
    # bullets, then "Backend Developer | Jul 2023 - Present" set the same way: a second role
    # there, which read with no employer
    answer = rows_answer(
        (
            ((43, 40, 200, 60), "Ana Example", 20.0),
            ((43, 162, 131, 176), "EXPERIENCE", 13.0),
            ((43, 182, 82, 193), "Northwind", 10.0),
            ((43, 193, 254, 204), "Technical Lead | Jul 2024- Present | Colombia", 10.0),
            ((79, 217, 539, 227), "● Led the team through the migration of the payments platform.", 9.0),
            ((43, 280, 278, 292), "Backend Developer | Jul 2023 - Present | Colombia", 10.0),
            ((79, 304, 484, 314), "● Built and deployed Docker-based microservices for billing.", 9.0),
            ((43, 409, 178, 420), "Globex Ingeniería", 10.0),
            ((43, 420, 284, 432), "Software Developer | Nov 2021 - Jul 2023 |Colombia", 10.0),
            ((79, 444, 553, 454), "● Developed dashboards for the operations team.", 9.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Technical Lead", "Northwind", "2024-07"),
        ("Backend Developer", "Northwind", "2023-07"),
        ("Software Developer", "Globex Ingeniería", "2021-11"),
    ]


def test_an_employer_below_its_dates_is_not_lent_to_the_next_role() -> None:
    # pas-cv: "2000 - 2004  Enseignant ..." over its employer; the next role's employer line is
    # its own, and a role with none stays without one
    answer = rows_answer(
        (
            ((100, 40, 300, 60), "Jean Exemple", 20.0),
            ((89, 440, 237, 454), "Expérience professionnelle", 14.3),
            ((100, 489, 348, 500), "2000 - 2004  Enseignant vacataire en Mathématiques", 10.0),
            ((175, 502, 466, 512), "Lycée Exemple", 10.0),
            ((100, 513, 354, 524), "1997 - 2011  Enseignant à domicile en Mathématiques", 10.0),
        ),
        ocr=False,
    )
    employers = [employer for _, employer, _ in roles(answer)]
    assert employers[-1] is None


def test_a_lower_case_brand_with_its_legal_form_opens_its_roles_header() -> None:
    # Awesome-CV: "airSlate, Inc." left and "Kyiv, Ukraine" right on one row, over the title
    # and its dates; a lower-case first letter had made the line a description's
    answer = rows_answer(
        (
            ((40, 20, 300, 50), "Ivan Example", 24.0),
            ((40, 60, 150, 80), "Experience", 15.9),
            ((40, 264, 96, 278), "bitFlow, Inc.", 10.0),
            ((510, 265, 556, 278), "Kyiv, Ukraine", 9.0),
            ((40, 279, 109, 291), "SOFTWARE ARCHiTECT", 8.0),
            ((489, 279, 556, 291), "Jan. 2020 - Aug. 2021", 8.0),
            ((40, 291, 328, 304), "• Design of new features and internal products.", 9.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [("SOFTWARE ARCHITECT", "bitFlow, Inc.", "2020-01")]
    # a description's next line of tools names no legal form: it stays a description's
    assert _lower_cased_name("bitFlow, Inc.  Kyiv, Ukraine")
    assert not _lower_cased_name("jQuery, Backbone, Pivotal")


def test_small_capitals_read_with_a_lower_case_i_are_capitals() -> None:
    assert _capital_i("DiRECTOR OF ENGiNEERiNG") == "DIRECTOR OF ENGINEERING"
    assert _capital_i("iOS Developer") == "iOS Developer"  # other lower-case letters: as written
    assert _capital_i("NTi AG") == "NTi AG"  # a short word stays
    assert _capital_i(None) is None


def test_a_columns_headings_drawn_before_its_text_place_its_lines() -> None:
    # Canva: the sidebar's headings and text, then the main column's headings one after the
    # other ("WORK EXPERIENCE", "EDUCATION", "PROFILE", out of their order on the page), then
    # the main column's text - every role read as the profile's
    answer = rows_answer(
        (
            ((20, 223, 101, 240), "CONTACT", 14.0),
            ((20, 382, 78, 399), "SKILLS", 14.0),
            ((38, 252, 120, 264), "+54 11 5555 0101", 10.0),
            ((35, 412, 148, 424), "Teamwork and leadership", 10.0),
            ((235, 45, 552, 72), "ANA EXAMPLE", 23.0),
            ((237, 294, 398, 311), "WORK EXPERIENCE", 14.0),
            ((235, 671, 334, 688), "EDUCATION", 14.0),
            ((237, 178, 304, 194), "PROFILE", 14.0),
            ((237, 206, 566, 218), "Computer Science graduate with experience in software development.", 10.0),
            ((237, 323, 565, 338), "Mapa Cultural  2023 - PRESENT", 11.0),
            ((237, 339, 349, 352), "Semi-Senior Developer", 11.0),
            ((237, 445, 565, 458), "Valdés Parks Agency  2022 - 2023", 11.0),
            ((237, 460, 338, 473), "Full Stack Developer", 11.0),
            ((254, 481, 565, 506), "Development of management systems for the park's administration.", 10.0),
            ((237, 707, 565, 720), "Bachelor’s Degree in Computer Science  2018 - 2024", 11.0),
            ((237, 722, 471, 735), "National University of Patagonia", 11.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Semi-Senior Developer", "Mapa Cultural", "2023"),
        ("Full Stack Developer", "Valdés Parks Agency", "2022"),
    ]


def test_a_themes_label_inside_a_role_opens_no_section() -> None:
    # "Technical Leadership" indented over a role's bullets in the text's size read as an
    # "other" section, and the four roles after it were lost
    answer = rows_answer(
        (
            ((72, 40, 300, 60), "Ana Example", 20.0),
            ((72, 460, 226, 476), "Professional Experience", 14.0),
            ((72, 488, 269, 500), "Startups Builder | June 2019 - Present", 11.0),
            ((351, 488, 527, 500), "Mobile Developer & Technical Lead", 11.0),
            ((93, 524, 371, 535), "● B2B marketplace connecting farmers with distributors", 10.0),
            ((86, 642, 190, 653), "Technical Leadership", 10.0),
            ((93, 659, 444, 671), "● Led code reviews ensuring TypeScript best practices", 11.0),
            ((72, 690, 233, 703), "Freelancer | Jun 2016 - Present", 11.0),
            ((422, 690, 527, 703), "Full-Stack Developer", 11.0),
            ((93, 710, 444, 722), "● Delivered responsive web applications", 11.0),
        ),
        ocr=False,
    )
    assert [(t, e) for t, e, _ in roles(answer)] == [
        ("Mobile Developer & Technical Lead", "Startups Builder"),
        ("Full-Stack Developer", "Freelancer"),
    ]


def test_research_experience_in_german_is_experience_and_its_interns_are_titles() -> None:
    assert heading_kind("FORSCHUNGSERFAHRUNG") == "experience"
    assert heading_kind("Expérience de recherche") == "experience"
    assert is_place("Fernarbeit") and is_place("Vor Ort")
    answer = rows_answer(
        (
            ((50, 40, 300, 60), "Max Beispiel", 20.0),
            ((50, 200, 250, 214), "FORSCHUNGSERFAHRUNG", 12.0),
            ((50, 220, 500, 231), "Forschungspraktikant  Sep 2025 – Heute", 10.0),
            ((50, 232, 400, 243), "Photonik-Labor, Institut für Optik", 10.0),
            ((50, 244, 120, 255), "Fernarbeit", 10.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [("Forschungspraktikant", "Photonik-Labor, Institut für Optik", "2025-09")]


def test_an_employer_line_opening_with_at_names_the_house() -> None:
    # "Desenvolvedor Web Full Stack" / "Em TVS Eletrônica – Campo Largo – Paraná" / dates
    answer = rows_answer(
        (
            ((60, 40, 300, 60), "Ana Exemplo", 20.0),
            ((60, 300, 250, 314), "Experiência", 14.0),
            ((60, 330, 300, 342), "Desenvolvedor Web Full Stack", 11.0),
            ((60, 344, 400, 356), "Em Acme Eletrônica – Campo Largo – Paraná", 11.0),
            ((60, 358, 300, 370), "Março 2024 – Atual", 11.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [("Desenvolvedor Web Full Stack", "Acme Eletrônica", "2024-03")]


def test_a_spanish_lead_typed_without_accents_is_a_title_and_ggmbh_a_legal_form() -> None:
    answer = rows_answer(
        (
            ((43, 40, 200, 60), "Ana Ejemplo", 20.0),
            ((43, 162, 131, 176), "EXPERIENCIA", 13.0),
            ((43, 182, 82, 193), "Codesa", 10.0),
            ((43, 193, 254, 204), "Lider Tecnico | Ago 2024- Presente | Colombia", 10.0),
            ((43, 280, 400, 292), "Kreativwerkstatt gGmbH  2019 - 2024", 10.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [("Lider Tecnico", "Codesa", "2024-08"), (None, "Kreativwerkstatt gGmbH", "2019")]


def test_a_name_stacked_in_large_type_whose_boxes_overlap_is_one_name() -> None:
    # Canva: "MIKEL" over "ECHEVERRIA" at 39.5 pt; the lower box starts 8 pt above the upper
    # one's end, and no name was read
    answer = rows_answer(
        (
            ((33, 46, 169, 93), "JANA", 39.5),
            ((33, 85, 319, 132), "EXAMPLEOVA", 39.5),
            ((265, 163, 336, 180), "PROFILE", 14.8),
            ((265, 189, 548, 200), "Backend engineer focused on Python and PostgreSQL.", 8.8),
        ),
        ocr=False,
    )
    assert extract(answer, as_of=AS_OF).values("name") == ["Jana Exampleova"]
