"""Change set layout-40 (stop 56): what held-out v15's documents showed once v15 was spent and
moved to development (docs/extraction.md). Invented text in the showing documents' geometry;
each test but the guards fails on layout-39."""

# ruff: noqa: RUF001, RUF003 - the en dash is what these documents hold

from __future__ import annotations

from typing import Any

from ats.extraction._layout import lines_of
from ats.extraction.api import extract
from tests.extraction.answers import block, name_of, pdf_answer, roles, rows_answer, styled_block
from tests.extraction.corpus import AS_OF


def _entries(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(v.value) for v in extract(answer, as_of=AS_OF).fields.get("work_history", ())]


def test_a_column_back_below_its_heading_after_a_sidebar_goes_on_in_its_section() -> None:
    # krogozhkin (HTML, Chrome): the text layer gives the sidebar's lines between
    # "PROFESSIONAL EXPERIENCE" and the main column's first role, which sits below it
    rows = [
        ((56, 76, 200, 94), "Mira Kaplan", 18.0),
        ((23, 194, 100, 206), "CONTACT", 12.0),
        ((39, 230, 200, 240), "mira@example.org", 8.2),
        ((235, 190, 400, 204), "TECHNICAL EXPERTISE", 13.5),
        ((246, 239, 400, 249), "Python, Docker, PostgreSQL", 9.0),
        ((235, 458, 420, 472), "PROFESSIONAL EXPERIENCE", 13.5),
        ((62, 136, 150, 148), "Software Engineer", 10.5),
        ((34, 392, 150, 400), "15+ years | Expert", 7.5),
        ((34, 437, 150, 445), "Production APIs", 7.5),
        ((254, 497, 560, 509), "Northwind Analytics  Jan 2024 - Present", 10.5),
        ((254, 524, 400, 533), "Tech Team Lead", 9.0),
        ((254, 542, 560, 551), "Leading the engineering team with a focus on code quality.", 8.2),
        ((254, 659, 560, 671), "Globex Corp  Aug 2017 - Feb 2022", 10.5),
        ((254, 685, 400, 694), "Senior Engineer", 9.0),
        ((254, 704, 560, 713), "Built the billing platform.", 8.2),
    ]
    assert roles(rows_answer(rows, ocr=False)) == [
        ("Tech Team Lead", "Northwind Analytics", "2024-01"),
        ("Senior Engineer", "Globex Corp", "2017-08"),
    ]


def test_a_role_set_above_the_heading_its_text_layer_gives_first_is_not_that_headings() -> None:
    # krogozhkin: page 2 gives "EDUCATION" (set lower) before the last role, which the page
    # opens with
    page1 = [
        ((56, 76, 200, 94), "Mira Kaplan", 18.0),
        ((39, 100, 200, 110), "mira@example.org", 8.2),
        ((235, 158, 420, 172), "PROFESSIONAL EXPERIENCE", 13.5),
        ((254, 197, 560, 209), "Northwind Analytics  Jan 2024 - Present", 10.5),
        ((254, 224, 400, 233), "Tech Team Lead", 9.0),
        ((254, 242, 560, 251), "Leading the engineering team with a focus on code quality.", 8.2),
    ]
    page2 = [
        ((235, 221, 330, 235), "EDUCATION", 13.5),
        ((254, 68, 560, 80), "Initech  Jan 2015 - 2017", 10.5),
        ((254, 94, 400, 103), "Backend Engineer", 9.0),
        ((254, 113, 560, 122), "Built the payments service.", 8.2),
        ((254, 262, 560, 274), "Applied Informatics  2007 - 2012", 10.5),
        ((254, 283, 560, 292), "Vyatka State University", 9.0),
    ]
    blocks = [block(1, *row) for row in page1] + [block(2, *row) for row in page2]
    assert ("Backend Engineer", "Initech", "2015-01") in roles(pdf_answer(blocks, ocr=False))


def test_a_date_cell_wrapped_between_its_end_month_and_year_keeps_its_end() -> None:
    # krogozhkin-ru: "Авг 2017 - Фев" over "2022" in a narrow flex cell
    rows = [
        ((56, 76, 200, 94), "Mira Kaplan", 18.0),
        ((39, 100, 200, 110), "mira@example.org", 8.2),
        ((235, 158, 420, 172), "ОПЫТ РАБОТЫ", 13.5),
        ((254, 199, 480, 211), "Northwind Analytics", 10.5),
        ((499, 202, 560, 211), "Авг 2017 - Фев", 7.5),
        ((499, 214, 520, 223), "2022", 7.5),
        ((254, 242, 400, 251), "Tech Team Lead", 9.0),
        ((254, 260, 560, 269), "Руководство командой разработки.", 8.2),
    ]
    (entry,) = _entries(rows_answer(rows, ocr=False))
    assert (entry["start"], entry["end"]) == ("2017-08", "2022-02")


def test_a_post_a_lone_dash_and_an_employer_on_one_row_are_one_header() -> None:
    # dlevy (a LaTeX class): "BACKEND ENGINEER", "—", "Bambu" and the dates as four lines
    rows = [
        ((60, 60, 200, 74), "Dana Levi", 16.0),
        ((60, 80, 300, 90), "dana@example.org", 9.0),
        ((56, 440, 200, 452), "EXPERIENCE", 12.0),
        ((60, 474, 215, 486), "BACKEND ENGINEER", 10.9),
        ((220, 474, 236, 486), "—", 10.9),
        ((239, 476, 300, 486), "Globex", 9.0),
        ((452, 476, 560, 486), "January 2022 - June 2022", 9.0),
        ((77, 490, 560, 500), "• Kept the Kubernetes deployments of a payments platform healthy.", 10.9),
        ((60, 522, 215, 534), "FULL STACK DEVELOPER", 10.9),
        ((220, 522, 236, 534), "—", 10.9),
        ((242, 524, 320, 534), "Initech", 9.0),
        ((418, 524, 560, 534), "November 2020 - November 2021", 9.0),
    ]
    assert roles(rows_answer(rows, ocr=False)) == [
        ("BACKEND ENGINEER", "Globex", "2022-01"),
        ("FULL STACK DEVELOPER", "Initech", "2020-11"),
    ]


def test_a_double_hyphen_parts_employer_and_post() -> None:
    # bingosun-zh (an online builder): "温州肯恩大学 --图书馆IT助理"
    rows = [
        ((23, 30, 200, 46), "Mira Kaplan", 16.0),
        ((23, 50, 300, 60), "mira@example.org", 7.5),
        ((23, 260, 120, 272), "EXPERIENCE", 10.0),
        ((23, 285, 560, 295), "Northwind Analytics --Data Platform Intern  2025.04 - 2025.07", 7.5),
        ((23, 300, 560, 310), "Built the reporting pipeline.", 7.5),
    ]
    assert roles(rows_answer(rows, ocr=False)) == [("Data Platform Intern", "Northwind Analytics", "2025-04")]


def test_an_employer_before_its_town_and_country_is_the_employer() -> None:
    # sjkumar (Word): "Store Manager | T.K. Market, Correggio, Italy | March 2018 – Dec. 2021"
    rows = [
        ((36, 20, 200, 36), "Sam Kumar", 16.0),
        ((36, 40, 300, 50), "sam@example.org", 10.0),
        ((36, 60, 300, 74), "WORK EXPERIENCE", 14.0),
        ((36, 84, 560, 96), "Store Manager | Corner Market, Correggio, Italy | March 2018 – Dec. 2021", 12.0),
        ((72, 100, 560, 112), "Managed the customer escalations.", 12.0),
    ]
    assert roles(rows_answer(rows, ocr=False)) == [("Store Manager", "Corner Market", "2018-03")]
    # guard: a town, its region and its country stay one place ("Toulouse" is no employer)
    rows[3] = ((36, 84, 560, 96), "Staff Engineer | Toulouse, Occitanie, France | March 2018 – Dec. 2021", 12.0)
    assert [employer for _, employer, _ in roles(rows_answer(rows, ocr=False))] != ["Toulouse"]


def test_a_deep_or_core_expertise_heading_opens_a_skills_list() -> None:
    # krogozhkin: "DEEP EXPERTISE" over one tool a line in the sidebar
    for heading in ("DEEP EXPERTISE", "Core Expertise"):
        rows = [
            ((56, 76, 200, 94), "Mira Kaplan", 18.0),
            ((23, 194, 100, 206), "CONTACT", 12.0),
            ((39, 230, 200, 240), "mira@example.org", 8.2),
            ((23, 334, 150, 346), heading, 12.0),
            ((34, 376, 120, 385), "Python", 8.2),
            ((34, 422, 120, 431), "FastAPI", 8.2),
            ((34, 467, 120, 476), "PostgreSQL", 8.2),
        ]
        skills = extract(rows_answer(rows, ocr=False), as_of=AS_OF).values("skills")
        assert {"Python", "FastAPI", "PostgreSQL"} <= set(skills), heading


def test_a_text_layer_that_climbs_the_page_is_read_top_down() -> None:
    # mquezada (InDesign): the page's lines given from its foot to its head
    top_down = [
        ((71, 34, 200, 46), "Mira Kaplan", 12.0),
        ((259, 49, 400, 59), "mira@example.org", 10.0),
        ((36, 76, 200, 88), "EXPERIENCE", 10.0),
        ((36, 100, 560, 110), "Technical Artist, Northwind Studio  2021 - 2023", 9.0),
        ((36, 114, 560, 124), "Built the studio's shader library.", 7.5),
    ]
    for k in range(8):  # more roles down the page
        y = 150 + 70 * k
        top_down += [
            ((36, y, 560, y + 10), f"Game Programmer, Studio {chr(65 + k)}  {2012 - k} - {2013 - k}", 9.0),
            ((36, y + 14, 560, y + 24), "Wrote gameplay systems.", 7.5),
        ]
    answer = rows_answer(list(reversed(top_down)), ocr=False)
    assert name_of(answer) == "Mira Kaplan"
    assert roles(answer)[0] == ("Technical Artist", "Northwind Studio", "2021")
    assert len(roles(answer)) == 9


def _one_column(entry_rows: list[tuple[str, float]], heading: str = "EXPERIENCE") -> dict[str, Any]:
    """A one-column page: a name, an address, the heading, then the rows given, 16 pt apart."""
    rows = [((36, 20, 200, 36), "Sam Kumar", 16.0), ((36, 40, 300, 50), "sam@example.org", 10.0)]
    rows.append(((36, 60, 300, 74), heading, 14.0))
    rows += [((36, 84 + 16 * k, 560, 96 + 16 * k), text, size) for k, (text, size) in enumerate(entry_rows)]
    return rows_answer(rows, ocr=False)


def test_a_world_region_after_a_post_is_its_place_not_its_employer() -> None:
    # jbetancourt (Word): "Management & Analytics Consultant (2008–2017), Mexico City and Latin America"
    answer = _one_column(
        [
            ("Adjunct Professor, Universidad Panamericana (2008–Present)", 11.0),
            ("Management & Analytics Consultant (2008–2017), Mexico City and Latin America", 11.0),
            ("Delivered analytics projects for retail clients.", 11.0),
        ]
    )
    assert ("Management & Analytics Consultant", None, "2008") in roles(answer)


def test_a_seasons_range_is_the_years_and_the_season_no_part_of_the_header() -> None:
    # a student's terms: "Fall 2019 - Spring 2020"
    answer = _one_column(
        [("Teaching Assistant, Initech University  Fall 2019 - Spring 2020", 11.0), ("Graded the labs.", 11.0)]
    )
    (entry,) = _entries(answer)
    assert (entry["title"], entry["employer"], entry["start"], entry["end"]) == (
        "Teaching Assistant",
        "Initech University",
        "2019",
        "2020",
    )


def test_an_internship_heading_opens_the_roles_and_an_education_background_the_schools() -> None:
    # bingosun-en (WPS): "INTERNSHIP EXPERIENCE" after "PUBLICATIONS", "EDUCATION BACKGROUND",
    # every heading in the body's size
    rows = [
        ((243, 33, 360, 53), "SAM KUMAR", 20.1),
        ((198, 63, 420, 74), "+86 15267452924 | sam@example.org", 11.1),
        ((31, 94, 200, 105), "EDUCATION BACKGROUND", 11.1),
        ((31, 109, 200, 120), "Kean University", 11.1),
        ((358, 109, 560, 120), "Union, NJ | Sep. 2022 - Jun. 2026", 11.1),
        ((31, 195, 200, 206), "PUBLICATIONS", 11.1),
        ((31, 211, 560, 222), "Kumar, S. (2024). Privacy dataset distillation. Journal of Imaging.", 11.1),
        ((31, 233, 250, 244), "INTERNSHIP EXPERIENCE", 11.1),
        ((31, 248, 250, 259), "Northwind Analytics", 11.1),
        ((388, 248, 560, 259), "Hangzhou, China | Dec. 2025 - Present", 11.1),
        ((31, 264, 400, 275), "AI Product Intern, Platform R&D Department", 11.1),
        ((52, 280, 560, 291), "Led the requirements planning for three features.", 11.1),
    ]
    found = extract(rows_answer(rows, ocr=False), as_of=AS_OF)
    assert [v.value["employer"] for v in found.fields.get("work_history", ())] == ["Northwind Analytics"]
    assert [v.value["institution"] for v in found.fields.get("education_entries", ())] == ["Kean University"]


def test_two_words_for_working_for_oneself_are_one_employer_beside_a_russian_post() -> None:
    # rnady-ru (Word): "SEO-специалист | Freelance / Самозанятый (Январь 2024 – настоящее время)"
    answer = _one_column(
        [
            ("SEO-специалист | Freelance / Самозанятый (Январь 2024 – настоящее время)", 11.0),
            ("- Продвижение многоязычных сайтов.", 11.0),
        ],
        heading="Опыт работы",
    )
    assert roles(answer) == [("SEO-специалист", "Freelance / Самозанятый", "2024-01")]


def test_a_range_wrapped_before_its_dash_is_joined_again() -> None:
    # rnady-ru: "Frontend-разработчик | Rabbit Technology – Александрия, Египет (Удалённо) (2024"
    # over "– 2025)"
    answer = _one_column(
        [
            ("Frontend-разработчик | Rabbit Technology – Александрия, Египет (Удалённо) (2024", 11.0),
            ("– 2025)", 11.0),
            ("- Разработка веб-интерфейсов.", 11.0),
        ],
        heading="Опыт работы",
    )
    (entry,) = _entries(answer)
    assert (entry["employer"], entry["start"], entry["end"]) == ("Rabbit Technology", "2024", "2025")


def test_a_korean_names_letter_spaced_syllables_are_one_name() -> None:
    # taki0112-ko (HTML): "김 준 호 (1993.01.12)" at the top in the largest type
    rows = [
        ((122, 68, 300, 86), "이 서 연 (1995.03.04)", 17.7),
        ((122, 97, 400, 107), "서울 중앙대학교 졸업 (2017.02)", 9.4),
        ((122, 241, 300, 251), "seoyeon@example.org", 9.4),
    ]
    assert name_of(rows_answer(rows, ocr=False)) == "이서연"
    # guard: the name as Korean writes it (no spaces) reads the same
    rows[0] = ((122, 68, 300, 86), "이서연 (1995.03.04)", 17.7)
    assert name_of(rows_answer(rows, ocr=False)) == "이서연"


def test_a_role_of_one_season_dated_alone_beside_its_employer_is_a_role() -> None:
    # smessina (LibreOffice): "MacUpdate" / "Web Development Internship", and "Summer 2016"
    # flush right on the employer's row, given after the title
    for when, start in (("Summer 2016", "2016"), ("June 2016", "2016-06")):
        rows = [
            ((23, 20, 200, 36), "Sam Messina", 16.0),
            ((451, 47, 560, 57), "sam@example.org", 12.0),
            ((23, 132, 120, 148), "Experience", 16.0),
            ((23, 156, 400, 170), "Initech Web Communications", 14.0),
            ((23, 175, 400, 187), "Student Web Developer", 12.0),
            ((468, 153, 560, 167), "2014 - Present", 14.0),
            ((48, 191, 500, 203), "• Wrote the university's web pages.", 12.0),
            ((23, 253, 200, 267), "Globex Software", 14.0),
            ((23, 272, 300, 284), "Web Development Internship", 12.0),
            ((468, 250, 560, 264), when, 14.0),
            ((48, 286, 500, 298), "• Refactored the directory structure.", 12.0),
        ]
        answer = pdf_answer([styled_block(*row) for row in rows], ocr=False)
        assert ("Web Development Internship", "Globex Software", start) in roles(answer), when


def test_a_volunteers_post_is_no_role() -> None:
    # waterlens (Typst): "Student Volunteer, ICFP 2024" among the posts - unpaid help, which
    # the labels never count as employment
    answer = _one_column(
        [
            ("Teaching Assistant, Initech University  Jan 2024 - Jun 2024", 11.0),
            ("Graded the labs.", 11.0),
            ("Student Volunteer, ICFP 2024  Sep 2024 - Sep 2024", 11.0),
            ("Helped at the registration desk.", 11.0),
        ]
    )
    assert [title for title, _, _ in roles(answer)] == ["Teaching Assistant"]


def test_a_heading_after_an_icon_ocr_read_as_a_capital_is_a_heading() -> None:
    # liweitianux's scans: "B Publications", "Q Awards & Certificates" - the icons read as
    # letters; the sections went on as the experience above them, the awards' dates as roles
    rows = [
        ((45, 20, 300, 40), "Wei Li", 20.0),
        ((45, 50, 300, 62), "wei@example.org", 10.0),
        ((45, 110, 200, 130), "& Work Experience", 20.6),
        ((70, 141, 560, 155), "August 2018 - April 2019  Data engineer @ Northwind Analytics", 13.7),
        ((152, 183, 560, 195), "> Deployed the Airflow server.", 10.7),
        ((47, 327, 300, 345), "B Publications", 17.9),
        ((54, 352, 560, 364), "> Li, W., Xu, H., Ma, Z., Separating foregrounds, 2018, MNRAS", 10.1),
        ((47, 600, 300, 618), "Q Awards & Certificates", 17.5),
        ((51, 627, 560, 639), "September 2016  Participation Award, The 13th Mathematical Contest", 10.8),
    ]
    sections = {ln.text: ln.section for ln in lines_of(rows_answer(rows, ocr=True))}
    assert sections["B Publications"] == sections["Q Awards & Certificates"] == "other"
    assert sections["September 2016  Participation Award, The 13th Mathematical Contest"] == "other"
    # guard: a capital that is a word stays one ("I Love Python" is no heading of any kind)
    assert lines_of(rows_answer([*rows[:2], ((45, 110, 200, 130), "I Love Python", 20.6)], ocr=True))[2].heading is None
