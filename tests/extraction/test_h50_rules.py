"""Change set h50 (layout-24): rules for the development misses of held-out v9's documents
once they moved to development (German trades, Brazilian and Chinese CVs, exporters that
draw the header last, names over two lines). Built answers here; docs/extraction.md,
"Change set h50 (layout-24)", says what each rule is for and what it moved on development."""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

from typing import Any

from ats.extraction import _history, _layout, _rules
from ats.extraction._history import date_ranges
from ats.extraction._layout import heading_kind, is_place
from ats.extraction._rules import RegionEvidence, phones
from ats.extraction.api import extract
from tests.extraction.answers import Row, roles, rows_answer
from tests.extraction.corpus import AS_OF


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def _y(k: int) -> tuple[float, float]:
    return 100.0 + 14 * k, 110.0 + 14 * k


def _rows(x0: float, texts: list[str], first: int = 0, size: float = 10.0) -> list[Row]:
    return [((x0, *_y(first + k)[:1], x0 + 300, _y(first + k)[1]), t, size) for k, t in enumerate(texts)]


def test_german_trades_are_titles_whichever_line_they_are_on() -> None:
    answer = _pdf(
        ((60, 40, 200, 70), "Oliver Example", 30.0),
        *_rows(60, ["Erfahrung", "Familie Zordel  05.2020 - 07.2022", "Hotelfachmann",
                    "Gerweck  07.2018 - 02.2020", "Bäckereifachverkäufer",
                    "Amazon  10.2015 - 02.2016", "Verpackungshelfer"]),
    )  # fmt: skip
    assert roles(answer) == [
        ("Hotelfachmann", "Familie Zordel", "2020-05"),
        ("Bäckereifachverkäufer", "Gerweck", "2018-07"),
        ("Verpackungshelfer", "Amazon", "2015-10"),
    ]


def test_a_personal_details_heading_opens_the_contact_block() -> None:
    answer = _pdf(
        ((60, 40, 200, 70), "Oliver Example", 30.0),
        *_rows(60, ["Persönliche Infos", "84508 Burgkirchen", "Germany", "015128064881"]),
    )
    lines = _layout.lines_of(answer)
    assert [ln.section for ln in lines[2:]] == ["contact", "contact", "contact"]
    assert extract(answer, as_of=AS_OF).values("phones") == ["+4915128064881"]
    assert heading_kind("Persönliche Infos") == "contact"


def test_month_numbers_spaced_from_their_years_are_a_range_only_as_a_whole() -> None:
    assert [(r.start, r.end) for r in date_ranges("01 2025 – 09 2025")] == [((2025, 1), (2025, 9))]
    assert [(r.start, r.end) for r in date_ranges("3 2022 – 8 2022")] == [((2022, 3), (2022, 8))]
    assert [(r.start, r.end) for r in date_ranges("04 2021 – heute")] == [((2021, 4), None)]
    # a count before a year range is no month
    assert [(r.start, r.end) for r in date_ranges("Top 3 2022 - 2023")] == [((2022, None), (2023, None))]


def test_a_company_that_writes_its_name_in_lower_case_still_heads_its_role() -> None:
    answer = _pdf(
        ((60, 40, 200, 70), "Marc Example", 30.0),
        *_rows(60, ["Berufserfahrung", "clinicom GmbH, Verl — Mediengestalter", "01 2025 – 09 2025",
                    "Nach der Ausbildung weitergearbeitet."]),
    )  # fmt: skip
    assert roles(answer) == [("Mediengestalter", "clinicom GmbH", "2025-01")]
    # a description's next line in lower case is still no header
    assert not _history._is_header(_layout.Line("continued the work on the platform", 0))


def test_german_school_compounds_name_the_institution() -> None:
    institution, _ = _history._split_school(["Grundschule Große Heide, Gütersloh — Grundschule"])
    assert institution == "Grundschule Große Heide"
    assert _history._split_school(["Reckenberg Berufskolleg, Rheda — Fach Abitur"])[0] == "Reckenberg Berufskolleg"


def test_an_employer_before_its_city_and_country_is_no_place() -> None:
    assert not is_place("PeroPeroGames, Beijing, China")
    assert is_place("Mountain View, California, USA")
    assert is_place("Beijing, China")


def test_a_title_beside_a_departments_aside_is_theroles() -> None:
    answer = _pdf(
        ((60, 40, 200, 70), "Ruihua Example", 30.0),
        ((43, 150, 193, 165), "Work Experience", 14.0),
        ((43, 173, 552, 185), "SeetaTech Inc., Beijing, China  08/2018 – 01/2019", 12.0),
        ((43, 190, 228, 201), "(Algorithmic Middleware Department)", 10.9),
        ((239, 190, 337, 201), "R&D Intern", 10.9),
        ((44, 206, 552, 230), "• Back-end development of the deep learning platform", 10.9),
    )
    assert roles(answer) == [("R&D Intern", "SeetaTech Inc.", "2018-08")]


def test_chinese_headings_posts_and_companies() -> None:
    assert heading_kind("工作经历") == "experience"
    assert heading_kind("教育经历") == "education"
    assert heading_kind("专业技能") == "skills"
    answer = _pdf(
        ((260, 42, 335, 67), "温锐华", 24.8),
        ((43, 154, 121, 169), "工作经历", 14.3),
        ((43, 177, 552, 190), "北京优刻得科技有限公司（UCloud Inc.）  2019/02 – 2020/04", 12.0),
        ((43, 258, 128, 270), "(计算产品研发部)", 10.9),
        ((139, 258, 215, 269), "后台研发工程师", 10.9),
        ((44, 274, 560, 285), "• 负责公有云业务内部跨机房跨可用镜像发布系统相关的后端研发工作", 10.9),
        ((58, 287, 306, 299), "维护，规范并优化了物理云镜像制作、装机适配流程，保证了业务稳定。", 10.9),
        ((43, 332, 552, 345), "广州呸喽呸喽科技有限公司(PeroPeroGames)  2021/01 – 至今", 12.0),
        ((95, 349, 183, 360), "游戏服务端工程师", 10.9),
    )
    assert roles(answer) == [
        ("后台研发工程师", "北京优刻得科技有限公司（UCloud Inc.）", "2019-02"),
        ("游戏服务端工程师", "广州呸喽呸喽科技有限公司(PeroPeroGames)", "2021-01"),
    ]


def test_a_title_glued_to_its_at_sign_but_not_a_products_name() -> None:
    assert _history._split_job(["数据工程师@ 上海领脉网络科技"])[:2] == ("数据工程师", "上海领脉网络科技")
    title, employer, _ = _history._split_job(["Cortana @Work Calendar Engineering Team"])
    assert "@Work" in f"{title} {employer}"


def test_a_header_the_exporter_drew_last_is_read_first() -> None:
    answer = _pdf(
        ((232, 162, 388, 177), "OBJETIVO PROFISSIONAL", 12.5),
        ((28, 184, 566, 223), "Contribuir para o crescimento da empresa.", 11.5),
        ((221, 234, 399, 249), "EXPERIÊNCIA PROFISSIONAL", 12.5),
        ((28, 255, 269, 269), "04/2022 – 01/2023  Brasil Shopping Ltda", 11.5),
        ((163, 268, 312, 282), "Consultor de Vendas Externas", 11.5),
        ((28, 376, 237, 390), "12/2016 – 04/2022  F.cardoso Ltda", 11.5),
        ((163, 389, 268, 402), "Vendedor", 11.5),
        ((149, 25, 353, 49), "Adriano Avelar da Silva", 20.0),
        ((165, 51, 316, 65), "adriano@example.com.br", 11.5),
    )
    lines = _layout.lines_of(answer)
    assert lines[0].text == "Adriano Avelar da Silva" and lines[0].section == "top"
    assert heading_kind("Objetivo Profissional") == "summary"
    found = extract(answer, as_of=AS_OF)
    assert found.values("name") == ["Adriano Avelar da Silva"]
    assert roles(answer) == [
        ("Consultor de Vendas Externas", "Brasil Shopping Ltda", "2022-04"),
        ("Vendedor", "F.cardoso Ltda", "2016-12"),
    ]


def test_two_numbers_joined_by_a_slash_are_both_read() -> None:
    line = _layout.Line("11 98765-4321/21 99876-5432", 0, section="contact")
    found, _ = phones([line], RegionEvidence(cv=(("BR", "cv.language:pt"),)))
    assert [f.value for f in found] == ["+5511987654321", "+5521998765432"]
    # a German area code written with a slash stays one number
    de, _ = phones([_layout.Line("030/1234567", 0, section="contact")], RegionEvidence(cv=(("DE", "x"),)))
    assert [f.value for f in de] == ["+49301234567"]


def test_how_long_a_post_lasted_is_no_part_of_its_title() -> None:
    answer = _pdf(
        ((60, 40, 200, 70), "Abdullah Example", 30.0),
        *_rows(60, ["Expérience professionnelle", "Ingénieur Test Automation (3 ans)  Août 2021 – Présent",
                    "6WIND, Paris, France"]),
    )  # fmt: skip
    assert roles(answer) == [("Ingénieur Test Automation", "6WIND", "2021-08")]


def test_a_name_set_over_two_lines_in_the_same_type() -> None:
    answer = _pdf(
        ((57, 52, 227, 79), "André Hickmann", 22.0),
        ((57, 82, 180, 109), "Kuschnereit", 22.0),
        ((57, 113, 187, 126), "Senior Fullstack Engineer", 11.0),
        ((392, 65, 538, 76), "andre@example.de", 8.5),
    )
    assert extract(answer, as_of=AS_OF).values("name") == ["André Hickmann Kuschnereit"]
    right_aligned = _pdf(
        ((332, 34, 586, 64), "ADRIAN CRISTOPHER", 23.4),
        ((505, 67, 586, 97), "LOCKS", 23.4),
        ((28, 307, 140, 325), "adrian@example.com", 14.2),
    )
    assert extract(right_aligned, as_of=AS_OF).values("name") == ["Adrian Cristopher Locks"]
    # a job title below in the same type is not the name's
    titled = _pdf(((57, 52, 227, 79), "Jane Example", 22.0), ((57, 82, 180, 109), "Engineer", 22.0))
    assert extract(titled, as_of=AS_OF).values("name") == ["Jane Example"]


def test_cjk_title_and_organisation_scores() -> None:
    assert _history._title_score("后台研发工程师") > 0
    assert _history._title_score("北京优刻得科技有限公司") < 0
    assert _rules.looks_like_name("温锐华")


def test_a_title_below_an_employer_and_team_on_the_dates_row() -> None:
    answer = _pdf(
        ((26, 33, 106, 51), "Jianxin Example", 15.4),
        ((26, 161, 129, 176), "Work Experience", 13.2),
        ((26, 179, 570, 191), "TikTok (ByteDance), Technical Infrastructure  Aug 2023 – Present", 11.0),
        ((26, 194, 300, 207), "Software Engineer  Singapore", 11.0),
        ((26, 210, 560, 222), "• Built the serverless platform's scheduler", 11.0),
        ((26, 621, 570, 634), "Alibaba Cloud, ClickHouse Database Team  Jul – Aug 2020", 11.0),
        ((26, 637, 400, 649), "Software Engineer Intern (Java)  Hangzhou, China", 11.0),
        ((26, 652, 560, 678), "• Integrated ClickHouse and Apache Flink", 11.0),
    )
    assert roles(answer) == [
        ("Software Engineer", "TikTok (ByteDance)", "2023-08"),
        ("Software Engineer Intern (Java)", "Alibaba Cloud", "2020-07"),
    ]


def test_a_title_right_above_the_next_dates_stays_with_them() -> None:
    answer = _pdf(
        ((26, 33, 106, 51), "Jane Example", 15.4),
        *_rows(26, ["Experience", "VP of Design", "CodeSee (exited to GitKraken)  Mar 2022 – Feb 2024",
                    "Head of Digital Experience", "Advanced MedTech  May 2019 – Feb 2021"]),
    )  # fmt: skip
    assert roles(answer) == [
        ("VP of Design", "CodeSee (exited to GitKraken)", "2022-03"),
        ("Head of Digital Experience", "Advanced MedTech", "2019-05"),
    ]


def test_a_kind_of_post_and_its_subject_whichever_scores_as_the_title() -> None:
    title, employer, _ = _history._split_job(
        ["Internship - iOS engineer (3 months), Care Labs, Montpellier, France, www.carelabs.co."]
    )
    assert (title, employer) == ("Internship - iOS engineer", "Care Labs")
    assert _history._title_headed("Software Engineer Intern (Rust)")
    assert not _history._title_headed("ClickHouse Database Team")
