"""Change set layout-41 (stop 57): structure Chinese CVs share, not one document's rules
(docs/extraction.md). Development's Chinese CVs (46, most of them scans) read 0.16 work
history: OCR cuts a Chinese row into overlapping pieces, a heading's icon is read as a Han
character, a heading or a town the lexicon did not know left a whole section or an
employer's place unread. Invented text in the showing documents' geometry; each test but
the guards fails on layout-40."""

# ruff: noqa: RUF001, RUF003 - the full-width comma and brackets are what these documents hold

from __future__ import annotations

import pytest

from ats.extraction._layout import Line, _heading_second_lines, heading_kind, is_place, lines_of
from ats.extraction.api import extract
from tests.extraction.answers import roles, rows_answer
from tests.extraction.corpus import AS_OF


def _texts(rows: list[tuple[tuple[float, float, float, float], str, float]]) -> list[str]:
    return [line.text for line in lines_of(rows_answer(rows, ocr=True))]


def test_ocr_pieces_of_one_chinese_row_are_one_line_written_without_spaces() -> None:
    # spiffy8's scan: Tesseract's boxes of one row overlap, their sizes guessed apart
    rows = [
        ((44, 118, 117, 131), "西安", 30.3),
        ((73, 118, 181, 134), "欧亚学院, 西安，陕西", 22.6),
        ((47, 135, 254, 150), "学士，统招本科软件工程，信息工程", 23.2),
        ((238, 135, 254, 150), "学院", 15.7),
    ]
    assert _texts(rows) == ["西安欧亚学院, 西安，陕西", "学士，统招本科软件工程，信息工程学院"]


def test_a_chinese_date_read_as_pieces_is_one_range() -> None:
    # bingosun's scan: "2026年09月 - 2027年09月" in four pieces
    rows = [
        ((482, 197, 521, 213), "2026", 17.6),
        ((502, 197, 509, 212), "年", 14.7),
        ((509, 197, 570, 212), "09月- 2027", 17.6),
        ((551, 197, 571, 221), "年09月", 17.0),
    ]
    assert _texts(rows) == ["2026年09月- 2027年09月"]


def test_a_number_before_a_label_keeps_its_bar_and_latin_pieces_apart_stay_apart() -> None:
    # guards: a digit joins Han only at a date's 年/月/日; Latin pieces that overlap (no
    # word space between) are no row's pieces
    rows = [
        ((42, 55, 95, 66), "15267452924 |", 9.7),
        ((100, 55, 209, 66), "邮箱: 1234946@example.cn", 12.4),
        ((40, 300, 120, 312), "Berlin", 10.0),
        ((90, 300, 200, 312), "Hamburg", 10.0),
    ]
    texts = _texts(rows)
    assert texts[0] == "15267452924 | 邮箱: 1234946@example.cn"
    assert texts[1:] == ["Berlin", "Hamburg"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("念教育经历", "education"),  # an icon read as a Han character, glued on
        ("党工作经历", "experience"),
        ("好技能", "skills"),
        ("i 杂项", "other"),  # an icon read as a letter
        ("I作经历", "experience"),  # 工 read as "I"
        ("個人資料", "contact"),  # traditional script
        ("语言能力", "languages"),
        ("荣誉证书", "other"),
    ],
)
def test_chinese_headings_as_ocr_reads_them(text: str, kind: str) -> None:
    assert heading_kind(text) == kind


@pytest.mark.parametrize("text", ["我的技能", "项目经理", "温锐华", "高级工程师"])
def test_no_heading_from_two_glued_characters_a_post_or_a_name(text: str) -> None:
    # guards: one icon character at most; a Han character misread as another Han character
    # is not matched ("项目经理", a post, is one stroke from "项目经验")
    assert heading_kind(text) is None


def test_chinese_towns_countries_and_remote_are_places_a_school_abroad_is_not() -> None:
    assert is_place("深圳, 中国")
    assert is_place("新竹, 臺灣")
    assert is_place("远程")
    assert is_place("中国")
    assert not is_place("宾夕法尼亚州州立大学, 美国")  # a university and its country
    assert is_place("Berlin, Germany")  # guard


def test_an_employer_and_its_chinese_town_read_as_employer_and_place() -> None:
    # ice1000: "Company, 深圳, 中国" and "JetBrains Research, 远程" over the post
    rows = [
        ((262, 44, 334, 67), "张三丰", 24.0),
        ((54, 74, 213, 87), "zhang@example.cn", 9.0),
        ((43, 96, 124, 109), "工作经历", 12.0),
        ((44, 118, 400, 131), "JetBrains Research, 远程  2020.01 – 现在", 10.0),
        ((44, 135, 254, 150), "开发实习", 10.0),
        ((44, 160, 400, 173), "深圳市前海源伞科技有限公司, 深圳, 中国  2018.02 – 2018.07", 10.0),
        ((44, 177, 254, 190), "插件开发实习", 10.0),
    ]
    answer = rows_answer(rows, ocr=False)
    assert roles(answer) == [
        ("开发实习", "JetBrains Research", "2020-01"),
        ("插件开发实习", "深圳市前海源伞科技有限公司", "2018-02"),
    ]


def test_a_chinese_cvs_national_mobile_is_chinese_though_its_body_names_a_school_abroad() -> None:
    # guard: bingosun - once "美国" is a country, "西北大学(美国)" in the education section
    # made "15267452924" a US number; the script settles the region first
    rows = [
        ((23, 36, 63, 49), "孙徐斌", 18.0),
        ((23, 55, 300, 66), "电话: 15267452924 | 邮箱: sun@example.cn", 9.0),
        ((23, 180, 58, 188), "教育经历", 12.0),
        ((23, 202, 300, 210), "西北大学(美国) 硕士 计算机科学与技术", 9.0),
        ((23, 215, 300, 223), "主修课程：计算机系统，数据结构，程序设计，离散结构，微积分，线性代数", 9.0),
        ((23, 240, 58, 248), "实习经历", 12.0),
        ((23, 262, 300, 270), "温州肯恩大学 --图书馆IT助理  2023年06月 - 至今", 9.0),
        ((23, 275, 300, 283), "主导开发基于 Python 的自动化爬虫脚本，实现了数据的实时更新与自动化管理。", 9.0),
    ]
    extraction = extract(rows_answer(rows, ocr=False), as_of=AS_OF)
    assert extraction.values("phones") == ["+8615267452924"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("工作与实践经历", "experience"),  # work and practice
        ("实习与工作经历", "experience"),
        ("项目与实习经历", "experience"),  # work first
        ("个人能力", "skills"),
        ("求职意向", "summary"),
    ],
)
def test_a_chinese_compound_heading_reads_by_its_topic(text: str, kind: str) -> None:
    assert heading_kind(text) == kind


@pytest.mark.parametrize("text", ["实践经历", "丰富的项目经验", "科研经历"])
def test_campus_practice_a_phrase_and_research_are_no_role_heading(text: str) -> None:
    # guards: "实践经历" holds a student's campus activities (labels: no roles), a phrase
    # with 的 is no heading, and "科研经历" lists papers as often as posts
    assert heading_kind(text) != "experience"


def test_a_chinese_header_parts_at_its_full_width_comma_and_a_supervisor_is_no_employer() -> None:
    # waterlens: "编程语言工具开发实习，IDEA" over "2025 年3 月 - 2025 年9 月（预计）"
    rows = [
        ((40, 40, 120, 60), "杨小清", 20.0),
        ((40, 64, 300, 74), "yang@example.org", 9.0),
        ((40, 90, 160, 102), "工作与实践经历", 12.0),
        ((40, 110, 400, 120), "编程语言工具开发实习，IDEA", 10.0),
        ((40, 123, 400, 133), "2025 年3 月 - 2025 年9 月（预计）", 10.0),
        ((40, 136, 500, 146), "• 实现了一项OCaml 优化，提升了编译器的性能。", 9.0),
        ((40, 160, 400, 170), "远程研究实习，导师：张屹洲", 10.0),
        ((40, 173, 400, 183), "2022 年9 月 - 2023 年1 月", 10.0),
        ((40, 186, 500, 196), "• 研究了词法代数效应的实现与语义。", 9.0),
    ]
    assert roles(rows_answer(rows, ocr=False)) == [
        ("编程语言工具开发实习", "IDEA", "2025-03"),
        ("远程研究实习", None, "2022-09"),
    ]


def test_a_chinese_volunteers_post_is_no_role() -> None:
    # waterlens: "学生志愿者" is a post now (a Chinese post's head word), and a volunteer's
    # post is no role (layout-40's rule, which looked for a spaced word only)
    rows = [
        ((40, 40, 120, 60), "杨小清", 20.0),
        ((40, 64, 300, 74), "yang@example.org", 9.0),
        ((40, 90, 160, 102), "工作经历", 12.0),
        ((40, 110, 400, 120), "ICFP 学术会议  2024 年9 月 - 2024 年10 月", 10.0),
        ((40, 123, 400, 133), "学生志愿者", 10.0),
        ((40, 136, 400, 146), "联合汽车电子有限公司  2017 年8 月 - 2017 年9 月", 10.0),
        ((40, 149, 400, 159), "实习生", 10.0),
    ]
    assert roles(rows_answer(rows, ocr=False)) == [("实习生", "联合汽车电子有限公司", "2017-08")]


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("黄梦龙 / 男 / 1988", "黄梦龙"),  # name, sex, year of birth
        ("s 黄梦龙/ 男/1988", "黄梦龙"),  # a scan's icon read as a letter
        ("김준호(1993.01.12)", "김준호"),  # a birth date bracketed without a space
    ],
)
def test_a_cjk_name_with_the_persons_particulars(line: str, name: str) -> None:
    rows = [
        ((40, 60, 300, 70), line, 10.0),
        ((40, 74, 300, 84), "example@example.org", 9.0),
    ]
    assert extract(rows_answer(rows, ocr=False), as_of=AS_OF).first("name") == name


def test_a_post_mixing_latin_and_chinese_is_no_name() -> None:
    # disksing's scan: "Ping CAP数据库开发工程师" in larger type than the name
    rows = [
        ((40, 40, 300, 60), "Ping CAP数据库开发工程师", 16.0),
        ((40, 64, 300, 74), "黄梦龙/ 男/1988", 10.0),
        ((40, 78, 300, 88), "example@example.org", 9.0),
    ]
    assert extract(rows_answer(rows, ocr=False), as_of=AS_OF).first("name") == "黄梦龙"


def _canva_page() -> list[tuple[tuple[float, float, float, float], str, float]]:
    # mecheverria's Canva export: the name, the profile's text, then the page's headings one
    # after the other, out of their order on the page, then each column's body; the sidebar's
    # rows level with the main column's
    return [
        ((33, 40, 200, 64), "MIKEL", 26.0),
        ((33, 70, 240, 94), "ECHEVERRIA", 26.0),
        ((265, 180, 560, 192), "Backend engineer focused on Python and Django.", 9.0),
        ((265, 160, 400, 174), "PROFILE", 12.0),
        ((265, 660, 460, 674), "EARLIER EXPERIENCE", 12.0),
        ((265, 285, 500, 299), "PROFESSIONAL EXPERIENCE", 12.0),
        ((33, 381, 220, 395), "TECHNICAL SKILLS", 12.0),
        ((33, 285, 200, 299), "EDUCATION", 12.0),
        ((33, 305, 240, 317), "BSc Computer Science", 9.0),
        ((33, 321, 240, 333), "Universidad Publica de Navarra", 9.0),
        ((33, 337, 240, 349), "2016–2020", 9.0),
        ((265, 690, 560, 702), "Backend Developer · IT Support", 9.0),
        ((265, 706, 560, 718), "Tesicnor SL · Burlada City Council", 9.0),
        ((265, 722, 560, 734), "2022–2024", 9.0),
        ((265, 305, 560, 317), "Software Developer", 10.0),
        ((265, 321, 560, 333), "Biodatup", 9.0),
        ((265, 337, 560, 349), "October 2025 – Present", 9.0),
        ((265, 353, 560, 365), "• Built and maintained Django APIs for a clinical-trials platform.", 9.0),
        ((265, 381, 560, 393), "Full Stack Developer", 10.0),
        ((265, 397, 560, 409), "Codetec Servicios Informáticos SL", 9.0),
        ((265, 413, 560, 425), "January 2025 – September 2025", 9.0),
        ((265, 429, 560, 441), "• Built applications across four business areas.", 9.0),
        ((33, 397, 240, 409), "Python · Django · PostgreSQL", 9.0),
        ((33, 413, 240, 425), "React · Next.js · TypeScript", 9.0),
        ((33, 429, 240, 441), "Docker · Git · CI/CD", 9.0),
        ((33, 120, 240, 132), "mikel@example.org", 9.0),
    ]


def test_a_page_whose_headings_come_apart_from_their_bodies_is_read_by_its_columns() -> None:
    answer = rows_answer(_canva_page(), ocr=False)
    found = roles(answer)
    assert found[:2] == [
        ("Software Developer", "Biodatup", "2025-10"),
        ("Full Stack Developer", "Codetec Servicios Informáticos SL", "2025-01"),
    ]
    assert extract(answer, as_of=AS_OF).first("name") == "Mikel Echeverria"  # the lines above, as given


def test_headings_of_a_column_given_top_down_keep_the_text_order() -> None:
    # guard: brunopc's HTML export gives a sidebar's headings one after the other, top-down:
    # the page's own order, not a layer apart
    rows = [
        ((24, 332, 200, 346), "EDUCATION", 12.0),
        ((24, 407, 200, 421), "CERTIFICATIONS", 12.0),
        ((24, 543, 200, 557), "PROJECTS", 12.0),
        ((24, 696, 200, 710), "LANGUAGES", 12.0),
        ((24, 352, 200, 364), "Bachelor, Software Engineering", 9.0),
    ]
    texts = [line.text for line in lines_of(rows_answer(rows, ocr=False))]
    assert texts == [text for _, text, _ in rows]


def test_a_heading_set_on_two_lines_is_one_heading() -> None:
    # markeljaure's sidebar, read by its columns: "HABILIDADES" over "TÉCNICAS" (technical
    # skills), the second line in the headings' style - no "other" section of its own after
    # the skills heading, so the list under it stays the skills'
    lines = [
        Line("HABILIDADES", 0, page=1, bbox=(20, 150, 200, 164), size=12.0),
        Line("TÉCNICAS", 1, page=1, bbox=(20, 166, 200, 180), size=12.0),
        Line("IDIOMAS", 2, page=1, bbox=(20, 240, 200, 254), size=12.0),
        Line("DESTACADOS", 3, page=1, bbox=(20, 256, 200, 270), size=12.0),
    ]
    kinds = {ln.n: heading_kind(ln.text) for ln in lines}
    styled = {1: "other", 3: "other"}
    _heading_second_lines(lines, kinds, styled)
    assert styled == {3: "other"}  # "IDIOMAS DESTACADOS" is no known heading: its line stays one
