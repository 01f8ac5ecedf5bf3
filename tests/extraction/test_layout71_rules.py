"""Change set layout-71 (stop 72): a role's own sub-headings in the experience section, a
label column's heading set on two lines, a second role under its house's line, OCR's
"Al" / "Intem" / cut Gmail addresses, a house's web address, novoresume's labels on a scan
and Europass's footer (docs/extraction.md, "Change set layout-71")."""

# ruff: noqa: RUF001 - the en dashes are what these documents hold

from __future__ import annotations

from typing import Any

from ats.extraction._layout import PAGE_FOOTER, Line, _ai_read_back
from tests.extraction.answers import Row, emails_of, pdf_answer, roles, rows_answer, styled_answer, styled_block


def _sub_headed_roles() -> dict[str, Any]:
    # an HTML CV printed by Chrome (v19's mboiman): each role's "Tools & technologies" and
    # "Key Achievements" sub-headings set in the body's 8 pt, bold, under a 9.5 pt
    # "PROFESSIONAL EXPERIENCE" - they opened a skills and an "other" section that held the
    # roles after them
    blocks = [styled_block((22, 40, 200, 60), "Michael Boiman", 20.0, style=1)]
    blocks.append(styled_block((22, 80, 200, 91), "PROFESSIONAL EXPERIENCE", 9.5, style=1))
    y = 100.0
    for title, house, dates in [
        ("Technical Lead & AI Automation Architect", "BKS", "01/2024 – 04/2025"),
        ("Platform Quality Architect", "DVAG", "08/2021 – 05/2025"),
        ("Performance Engineering Lead", "DB Systel", "09/2015 – 01/2017"),
    ]:
        blocks.append(styled_block((30, y, 400, y + 11), f"{title}  {dates}", 10.0, style=1))
        blocks.append(styled_block((30, y + 14, 120, y + 24), house, 8.5))
        blocks.append(styled_block((30, y + 28, 500, y + 37), "Design and build of the automation platform.", 8.0))
        blocks.append(styled_block((30, y + 42, 140, y + 51), "Tools & technologies", 8.0, style=1))
        blocks.append(styled_block((39, y + 55, 400, y + 64), "Python: core logic for data extraction", 8.0))
        blocks.append(styled_block((30, y + 68, 140, y + 77), "Key Achievements", 8.0, style=1))
        blocks.append(styled_block((39, y + 81, 400, y + 90), "Established the QA methodology", 8.0))
        y += 110
    blocks.append(styled_block((22, y, 200, y + 11), "EDUCATION", 9.5, style=1))
    blocks.append(styled_block((30, y + 14, 300, y + 24), "Universität Köln, Informatik  2000 – 2005", 8.5))
    return pdf_answer(blocks, ocr=False)


def test_a_role_s_sub_heading_a_step_smaller_keeps_the_roles_after_it() -> None:
    assert [(t, e, s) for t, e, s in roles(_sub_headed_roles())] == [
        ("Technical Lead & AI Automation Architect", "BKS", "2024-01"),
        ("Platform Quality Architect", "DVAG", "2021-08"),
        ("Performance Engineering Lead", "DB Systel", "2015-09"),
    ]


_LABEL_COLUMN: list[Row] = [
    # a Google Docs table (v21's jwhite): "TECHNICAL" / "EXPERIENCE" in a label column left
    # of the roles; the first role's house sits level with the heading's first line, so the
    # text layer gives it between the heading's two lines
    ((72, 40, 300, 60), "Jordan White", 20.0),
    ((72, 100, 140, 112), "TECHNICAL", 11.0),
    ((180, 100, 260, 112), "AWS", 11.0),
    ((72, 113, 140, 125), "SKILLS", 11.0),
    ((180, 113, 300, 125), "Terraform", 11.0),
    ((72, 232.6, 150, 244), "TECHNICAL", 11.0),
    ((180, 232.6, 320, 244), "SimpliSafe, Boston MA", 11.0),
    ((72, 245.3, 150, 257), "EXPERIENCE", 11.0),
    ((180, 245.3, 330, 257), "Senior DevOps Engineer", 11.0),
    ((180, 257.9, 300, 270), "June 2025 - Present", 11.0),
    ((180, 270.6, 520, 283), "- Oversaw projects from inception to completion.", 11.0),
    ((180, 283.2, 520, 296), "- Administered services such as Okta, AWS, GCP.", 11.0),
    ((180, 296.0, 330, 308), "IT Infrastructure Engineer", 11.0),
    ((180, 308.6, 300, 321), "April 2023 - June 2025", 11.0),
    ((180, 321.3, 520, 334), "- Ran the office network and its monitoring.", 11.0),
    ((180, 346.5, 330, 359), "Vicarious Surgical, Boston MA", 11.0),
    ((180, 359.1, 330, 372), "DevOps Engineer", 11.0),
    ((180, 371.8, 330, 384), "November 2021 - April 2023", 11.0),
    ((180, 384.4, 520, 397), "- Built the release pipeline.", 11.0),
]


def test_a_label_column_s_two_line_heading_holds_the_role_level_with_its_first_line() -> None:
    found = roles(styled_answer(_LABEL_COLUMN))
    assert found[0] == ("Senior DevOps Engineer", "SimpliSafe", "2025-06")
    assert found[2] == ("DevOps Engineer", "Vicarious Surgical", "2021-11")


def test_a_second_role_set_as_the_first_under_its_house_line_is_at_that_house() -> None:
    assert roles(styled_answer(_LABEL_COLUMN))[1] == ("IT Infrastructure Engineer", "SimpliSafe", "2023-04")


def test_a_role_with_a_house_line_of_its_own_is_not_the_house_above_s() -> None:
    # the same shape, but the second role names its house on the line above its title
    rows = list(_LABEL_COLUMN)
    rows.insert(12, ((180, 290.0, 330, 295.5), "Acme Corp", 11.0))
    assert [e for _, e, _ in roles(styled_answer(rows))][:2] != ["SimpliSafe", "SimpliSafe"]


def _ocr_lines(*texts: str) -> list[str]:
    lines = [Line(text, n, page=1, bbox=(50, 50 + 14 * n, 400, 62 + 14 * n), size=11.0) for n, text in enumerate(texts)]
    return [ln.text for ln in _ai_read_back(lines)]


def test_ocr_s_al_for_ai_and_m_for_rn_are_read_back() -> None:
    assert _ocr_lines(
        "Al Software Engineer",
        "GenieAl - https ://www.genieai.tech",
        "Gen al intem",
        "Senior Full-Stack Engineer & AIl Integration Lead",
        "Frameworks: PyTorch, Pydantic-Al.",
        "Vision and Generative Al. Contributing to projects",
        "Intemship at the Intemational Office",
    ) == [
        "AI Software Engineer",
        "GenieAI - https ://www.genieai.tech",
        "Gen AI intern",
        "Senior Full-Stack Engineer & AI Integration Lead",
        "Frameworks: PyTorch, Pydantic-AI.",
        "Vision and Generative AI. Contributing to projects",
        "Internship at the International Office",
    ]


def test_arabic_al_and_real_words_are_left_alone() -> None:
    kept = ["Al Rajhi Bank", "Al-Ahli Club", "Universidad de Al Ain", "Royal Bank", "internal tools", "al cliente"]
    assert _ocr_lines(*kept) == kept


def test_a_house_s_web_address_is_no_part_of_its_name() -> None:
    # development's abcontarini scan at 300 dpi: the site OCR'd with a space before its colon
    rows: list[Row] = [
        ((40, 40, 300, 62), "Andrea Contarini", 22.0),
        ((40, 100, 200, 114), "EXPERIENCE", 13.0),
        ((40, 120, 220, 132), "Al Software Engineer", 11.0),
        ((40, 134, 330, 146), "GenieAl - https ://www.genieai.tech", 10.0),
        ((400, 134, 520, 146), "09/2025 - Present", 10.0),
        ((50, 150, 520, 162), "e Built the retrieval pipeline for contract review.", 10.0),
    ]
    assert roles(rows_answer(rows, ocr=True)) == [("AI Software Engineer", "GenieAI", "2025-09")]


def _contact(*rows: Row) -> dict[str, Any]:
    head: list[Row] = [((40, 40, 300, 62), "Pooya Nasiri", 22.0)]
    tail: list[Row] = [((40, 300, 200, 314), "EXPERIENCE", 13.0)]
    return rows_answer([*head, *rows, *tail], ocr=True)


def test_a_gmail_address_ocr_cut_is_made_whole() -> None:
    # a space OCR set inside the local part (development's pnasiri scan)
    assert emails_of(_contact(((40, 70, 260, 82), "pooya.nasiri7 5@gmail.com", 11.0))) == ["pooya.nasiri75@gmail.com"]
    # the "@" read as an "a" before the provider (yhhuang's scan)
    assert emails_of(_contact(((40, 70, 260, 82), "Z yunghunghuang984agmail.com", 11.0))) == [
        "yunghunghuang984@gmail.com"
    ]
    # a row OCR'd as two pieces that overlap (smendapara's scan)
    pieces = _contact(
        ((56, 70, 300, 84), "Ahmedabad | +91 93281 47933 | sunnymendapara09", 13.6),
        ((285, 70, 520, 82), "09@gmail.com | https://linkedin.com/in/sunnymendapara09", 10.8),
    )
    assert emails_of(pieces) == ["sunnymendapara09@gmail.com"]


def test_a_short_gmail_address_stands_where_nothing_cut_it() -> None:
    # a template's "john@gmail.com" and a number's digits are no cut address
    assert emails_of(_contact(((40, 70, 260, 82), "john@gmail.com", 11.0))) == ["john@gmail.com"]
    assert emails_of(_contact(((40, 70, 260, 82), "+1 987 6543210@site.com", 11.0))) == []
    assert emails_of(_contact(((40, 70, 260, 82), "12345@gmail.com", 11.0))) == []


def test_novoresume_s_labels_on_a_scan_open_no_section() -> None:
    # development's aupadhyay scan at 150 dpi: "Achievements/Tasks" (6.6 pt as OCR'd, the
    # headings 16.4 pt) cut the experience after its first role
    rows: list[Row] = [((25, 20, 300, 45), "Amit Upadhyay", 24.0), ((25, 225, 200, 241), "WORK EXPERIENCE", 16.4)]
    y = 250.0
    for title, house, dates in [
        ("Senior Software Engineer", "Trivago", "11/2021 - Present"),
        ("Backend Engineer", "Ola Cabs", "08/2019 - 08/2021"),
    ]:
        rows += [
            ((25, y, 200, y + 14), title, 14.2),
            ((25, y + 15, 120, y + 26), house, 11.2),
            ((27, y + 27, 110, y + 36), dates, 9.2),
            ((27, y + 44, 100, y + 51), "Achievements/Tasks", 6.6),
            ((27, y + 52, 400, y + 63), "e Migrating micro services to go services.", 10.0),
        ]
        y += 80
    rows.append(((25, y, 200, y + 16), "EDUCATION", 16.4))
    assert [(t, e) for t, e, _ in roles(rows_answer(rows, ocr=True))] == [
        ("Senior Software Engineer", "Trivago"),
        ("Backend Engineer", "Ola Cabs"),
    ]


def test_europass_s_footer_is_a_page_footer() -> None:
    assert PAGE_FOOTER.fullmatch("© European Union, 2002 — 2018 | http://europass.cedefop.europa.eu")
    assert PAGE_FOOTER.fullmatch("European Union, 2002-2013 | europass.cedefop.europa.eu")
    assert not PAGE_FOOTER.fullmatch("European Union")
    assert not PAGE_FOOTER.fullmatch("European Union, Brussels")
