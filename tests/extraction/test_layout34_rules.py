"""Layout-34 (stop 49): rules written on development batch v13 - 22 people's own CVs drawn
this stop from repositories never used before, read before any rule (held-out v12 not
read). Built answers here, with the geometry of the documents that showed each case and
invented text; docs/extraction.md, "Development batch v13 and change set layout-34", says
what each rule is for and what it moved on development."""

# ruff: noqa: RUF001, RUF003 (CV text has typographic dashes)
from __future__ import annotations

from ats.extraction._history import _less_stack, date_ranges
from ats.extraction._layout import _unspaced, heading_kind
from tests.extraction.answers import name_of, roles, rows_answer, styled_block


def test_an_occupation_after_a_comma_is_not_part_of_the_name() -> None:
    # hihuz: "Sylvain Boulade, développeur web" as the page's heading
    answer = rows_answer(
        (
            ((254, 54, 589, 79), "Camille Exemple, développeur web", 20.9),
            ((126, 106, 666, 145), "Développeur passionné, j'aime les problèmes complexes.", 14.4),
            ((487, 307, 591, 319), "camille@example.org", 10.4),
        ),
        ocr=False,
    )
    assert name_of(answer) == "Camille Exemple"


def test_an_icon_fonts_glyph_name_before_a_link_is_no_name() -> None:
    # arthurdiluz: "GLOBE Portfolio" (Font Awesome's glyph name in the text layer) set a
    # point larger than the name above it
    answer = rows_answer(
        (
            ((28, 34, 220, 47), "Ana Diniz da Luz", 10.1),
            ((28, 56, 264, 63), "Backend & Full-Stack Software Developer", 5.8),
            ((28, 84, 153, 95), "Map-marker-alt Campinas, SP", 10.9),
            ((199, 84, 343, 95), "Envelope ana@example.org", 10.9),
            ((507, 84, 564, 95), "GLOBE Portfolio", 10.9),
        ),
        ocr=False,
    )
    assert name_of(answer) == "Ana Diniz da Luz"


def test_a_name_set_a_word_a_line_over_three_lines() -> None:
    # Canva: "Pablo" / "García" / "Robredo" at 42.8, 42.8 and 41.8 pt, each box starting 9 pt
    # above the end of the one before
    answer = {
        **rows_answer((), ocr=False),
        "blocks": [
            styled_block((248, 25, 378, 79), "Lucía", 42.8),
            styled_block((248, 70, 410, 123), "García", 42.8),
            styled_block((248, 114, 439, 167), "Exemplo", 41.8),
            styled_block((248, 180, 383, 196), "W E B D E V E L O P E R", 13.1),
        ],
    }
    assert name_of(answer) == "Lucía García Exemplo"


def test_an_employer_and_dates_as_list_items_under_the_title() -> None:
    # pandoc's résumé: "Senior Software Engineer" / "• Method" / "• Mar 2024 – Present"
    answer = rows_answer(
        (
            ((242, 41, 370, 58), "Ana Example", 17.2),
            ((57, 185, 122, 197), "Experience", 12.0),
            ((57, 231, 184, 241), "Senior Software Engineer", 10.0),
            ((69, 249, 113, 259), "• Northwind", 10.0),
            ((69, 261, 168, 271), "• Mar 2024 – Present", 10.0),
            ((56, 279, 557, 301), "As a senior engineer, I built the billing APIs.", 9.9),
            ((57, 329, 190, 339), "Team Lead", 10.0),
            ((69, 347, 109, 357), "• Globex", 10.0),
            ((69, 359, 173, 369), "• Oct 2020 - Mar 2024", 10.0),
            ((69, 377, 356, 387), "• Back-End: Node (Express), PostgreSQL", 10.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Senior Software Engineer", "Northwind", "2024-03"),
        ("Team Lead", "Globex", "2020-10"),
    ]


def test_month_numbers_with_their_dot() -> None:
    # "09. 2017 – 12. 2020", "10. 2020 – now" (a German Word CV)
    assert [(r.start, r.end) for r in date_ranges("09. 2017 – 12. 2020")] == [((2017, 9), (2020, 12))]
    assert [(r.start, r.end) for r in date_ranges("Online Programme  10. 2020 – now")] == [((2020, 10), None)]
    assert date_ranges("1. 2019") == []  # a numbered item and a year: no range


def test_a_legal_name_alone_above_the_post_is_its_employer() -> None:
    # "NORMA ... STIFTUNG UND CO KG" over "Division manager, Subsidiary Eutingen im Gäu –
    # Germany  09. 2017 – 12. 2020"
    answer = rows_answer(
        (
            ((40, 30, 453, 50), "ANNA EXAMPLE", 15.5),
            ((41, 61, 198, 79), "WORK EXPERIENCE", 15.5),
            ((41, 99, 332, 109), "NORTHWIND HANDELS GMBH UND CO KG", 9.7),
            ((41, 114, 553, 126), "Division manager, Subsidiary Eutingen – Germany  09. 2017 – 12. 2020", 9.7),
            ((60, 127, 427, 138), "Autonomous leading of 5 to 7 supermarkets / Cost responsibility", 9.7),
            ((40, 222, 140, 233), "GLOBEX AG", 9.7),
            (
                (41, 238, 540, 250),
                "Working student, International Sales, Ludwigsburg – Germany  09. 2016 – 09. 2017",
                9.7,
            ),
            ((60, 251, 427, 273), "Development and implementation of a dealer partner concept", 9.7),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Division manager", "NORTHWIND HANDELS GMBH UND CO KG", "2017-09"),
        ("Working student", "GLOBEX AG", "2016-09"),
    ]


def test_letter_spaced_text_is_read_as_words() -> None:
    # Canva's letter-spacing: a space after every letter, two where the word gap is wider
    assert _unspaced("S p e c i a l i z e d I T") == "Specialized IT"
    assert _unspaced("W e b d e v e l o p e r  05/2025 - 08/2025") == "Web developer  05/2025 - 08/2025"
    assert _unspaced("D a i r y P r o d u c t s C l e r k") == "Dairy Products Clerk"
    assert _unspaced("I am a good fit") == "I am a good fit"  # ordinary words stay
    assert _unspaced("+ 3 3 6 1 2 3 4 5 6 7 8") == "+ 3 3 6 1 2 3 4 5 6 7 8"  # numbers: the phone rules'
    assert heading_kind(_unspaced("P r o f e s s i o n a l E x p e r i e n c e s")) == "experience"
    answer = rows_answer(
        (
            ((28, 24, 128, 60), "Ana Exemple", 30.0),
            ((228, 198, 499, 217), "P r o f e s s i o n a l E x p e r i e n c e s", 16.0),
            ((248, 233, 599, 244), "W e b d e v e l o p e r  05/2025 - 08/2025", 9.2),
            ((248, 248, 410, 259), "Northwind Technologies Inc, Montréal, QC", 9.2),
            ((261, 264, 529, 273), "Implemented a visualization system for the probability zones.", 7.5),
        ),
        ocr=False,
    )
    assert roles(answer) == [("Web developer", "Northwind Technologies Inc", "2025-05")]


def test_japanese_and_chinese_dates() -> None:
    # "2024年5月 – 現在" (a Japanese CV), "2019年4月～2021年3月", "2018年9月 至今"
    assert [(r.start, r.end) for r in date_ranges("エンジニア | Wakyu | 2024年5月 – 現在")] == [((2024, 5), None)]
    assert [(r.start, r.end) for r in date_ranges("2019年4月～2021年3月")] == [((2019, 4), (2021, 3))]
    assert [(r.start, r.end) for r in date_ranges("2018年9月 至今")] == [((2018, 9), None)]
    assert [(r.start, r.end) for r in date_ranges("2015年 - 2019年")] == [((2015, None), (2019, None))]
    assert date_ranges("2019年13月") == []  # no such month


def test_a_date_columns_duration_line_is_no_employer() -> None:
    # CV.ee: "Nov 2021 – Dec 2021  Tarkvaraarendaja" over "(about 1 month)" in the date
    # column, the employer beside it
    answer = rows_answer(
        (
            ((166, 74, 311, 94), "ANNA EXAMPLE", 18.0),
            ((39, 200, 148, 212), "WORK EXPERIENCE", 10.0),
            ((53, 297, 238, 308), "Jun 2022 – Oct 2022  Tarkvaraarendaja", 10.0),
            ((93, 311, 136, 321), "(4 months)", 9.0),
            ((156, 312, 335, 322), "Northwind OÜ", 9.0),
            ((49, 366, 238, 377), "Nov 2021 – Dec 2021  Tarkvaraarendaja", 10.0),
            ((73, 379, 136, 389), "(about 1 month)", 9.0),
            ((156, 381, 234, 391), "Globex Estonia OÜ", 9.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Tarkvaraarendaja", "Northwind OÜ", "2022-06"),
        ("Tarkvaraarendaja", "Globex Estonia OÜ", "2021-11"),
    ]


def test_the_tools_after_a_title_are_no_part_of_it() -> None:
    answer = rows_answer(
        (
            ((40, 30, 300, 50), "Ana Example", 20.0),
            ((40, 60, 150, 80), "Experience", 14.0),
            ((40, 90, 400, 100), "Summer Internship – Python, C#, Unity, Docker", 10.0),
            ((40, 101, 200, 111), "Northwind", 10.0),
            ((40, 112, 200, 122), "Jul 2025 – Sep 2025", 10.0),
        ),
        ocr=False,
    )
    assert [title for title, _, _ in roles(answer)] == ["Summer Internship"]
    # what follows the dash stays when it is not a list of known skills
    assert _less_stack("Head of Sales – Spain, Portugal, Italy") == "Head of Sales – Spain, Portugal, Italy"
    assert _less_stack("Developer – Python") == "Developer – Python"  # one item: no list


def test_a_chinese_cvs_employer_and_post_parted_by_a_space() -> None:
    # "PingCAP 数据库开发工程师（ 2015年10月 - 现在）", "华清飞扬 游戏开发/主程 （2012年5月 - 2014年9月）",
    # each over a description whose long lines hold full-width commas
    answer = rows_answer(
        (
            ((74, 195, 164, 209), "黄梦龙 / 男 / 1988", 10.8),
            ((61, 480, 141, 507), "工作经历", 20.0),
            ((61, 526, 472, 550), "Northwind 数据库开发工程师（ 2015年10月 - 现在）", 17.7),
            (
                (74, 568, 523, 583),
                "设计和实现分布式事务。在分布式环境下完全支持事务的特性，其正确性和性能经验超过",
                10.8,
            ),
            ((61, 742, 483, 766), "华清 游戏开发/主程 （2012年5月 - 2014年9月）", 17.7),
            (
                (74, 784, 525, 798),
                "负责开发多个网络游戏项目的服务端，包括页游手游等不同的类型针对新的游戏类型对公司的",
                10.8,
            ),
        ),
        ocr=False,
    )
    assert roles(answer) == [("数据库开发工程师", "Northwind", "2015-10"), ("游戏开发/主程", "华清", "2012-05")]


def test_the_largest_type_on_the_first_page_is_read_for_the_name_wherever_it_is_drawn() -> None:
    # a sidebar drawn last, its name under the sidebar's own "PERSÖNLICHES" heading in the
    # text layer's order, the name set 22 pt over 8 pt text
    body = tuple(
        ((295, 100 + 12 * k, 520, 110 + 12 * k), f"Produkt Datenbank für Telekom, Zeile {k}", 7.9) for k in range(12)
    )
    answer = rows_answer(
        (
            ((295, 48, 416, 60), "Berufserfahrung", 10.1),
            ((295, 71, 527, 80), "SENIOR SOFTWARE ENTWICKLER / ARCHITECT", 7.8),
            ((295, 81, 476, 91), "Northwind Digitalagentur | 06/2022 – HEUTE", 7.9),
            *body,
            ((52, 421, 158, 434), "PERSÖNLICHES", 10.1),
            ((50, 46, 157, 73), "Jonas", 22.1),
            ((50, 79, 188, 106), "Exemplar", 22.1),
            ((53, 114, 248, 127), "Senior Software Ingenieur", 10.1),
        ),
        ocr=False,
    )
    assert name_of(answer) == "Jonas Exemplar"


def test_czech_and_slovak_present() -> None:
    assert [(r.start, r.end) for r in date_ranges("01/2023 — DNES")] == [((2023, 1), None)]
    assert [(r.start, r.end) for r in date_ranges("03/2019 – súčasnosť")] == [((2019, 3), None)]
