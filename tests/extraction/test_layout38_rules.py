"""Change set layout-38 (stop 53): what the development half's scans showed - a row OCR gave
as pieces, a heading with its rule read after it, a page read twice (docs/extraction.md).
Each test but the guards' fails on layout-37."""

# ruff: noqa: RUF001 - CJK punctuation and the en dash are what these documents hold

from __future__ import annotations

import time
from collections.abc import Sequence

from ats.extraction import _layout
from ats.extraction.api import extract
from tests.extraction.answers import Row, roles, rows_answer
from tests.extraction.corpus import AS_OF


def _texts(rows: Sequence[Row]) -> list[str]:
    return [line.text for line in _layout.lines_of(rows_answer(rows, ocr=True))]


def test_a_date_range_ocr_gave_in_three_pieces_dates_its_role() -> None:
    # deedy-openfont-scan300: "May" | "2013 - Aug" | "2013", a word space or so apart
    rows = [
        ((72, 60, 220, 80), "Debarghya Das", 20.0),
        ((72, 100, 180, 114), "EXPERIENCE", 12.0),
        ((212, 277, 259, 287), "GOOGLE", 12.0),
        ((267, 277, 426, 287), "| SOFTWARE ENGINEERING INTERN", 11.5),
        ((212, 289, 225, 304), "May", 11.3),
        ((233, 289, 276, 304), "2013 - Aug", 11.5),
        ((285, 289, 300, 304), "2013", 10.6),
        ((311, 289, 400, 304), "| Mountain View, CA", 11.5),
        ((226, 310, 487, 322), "e Worked on the YouTube Captions team.", 10.9),
    ]
    assert "May 2013 - Aug 2013 | Mountain View, CA" in _texts(rows)
    assert ("SOFTWARE ENGINEERING INTERN", "GOOGLE", "2013-05") in roles(rows_answer(rows, ocr=True))


def test_a_row_of_contact_pieces_keeps_its_bars_between_numbers() -> None:
    # joined with their own separators: the two numbers stay two
    rows = [
        ((61, 60, 260, 80), "Niccolò Bianchi", 20.0),
        ((61, 112, 174, 122), "niccolo.bianchi@gmail.com", 9.1),
        ((179, 112, 259, 122), "| +39 373 640 5740", 9.6),
        ((263, 112, 325, 122), "| 02 9704 6165", 9.6),
    ]
    assert "niccolo.bianchi@gmail.com | +39 373 640 5740 | 02 9704 6165" in _texts(rows)
    # an address OCR cut at its "@" is one address again
    split = [
        ((63, 69, 260, 88), "LUCÍA GÓMEZ PEÑA", 23.1),
        ((61, 112, 143, 122), "lucia.gomez.pena@", 9.4),
        ((148, 112, 190, 122), "| yahoo.es", 9.3),
        ((194, 112, 250, 122), "| 667 793 586", 9.6),
    ]
    assert "lucia.gomez.pena@yahoo.es | 667 793 586" in _texts(split)
    assert extract(rows_answer(split, ocr=True), as_of=AS_OF).values("emails") == ["lucia.gomez.pena@yahoo.es"]
    # a row whose pieces a dash parts: two numbers, not one run; a range of days, no number
    dashed = [
        ((60, 60, 260, 80), "Michał Lewandowski", 20.0),
        ((60, 112, 150, 122), "michal.l83@onet.pl", 9.4),
        ((155, 112, 215, 122), "- 508 840 886", 9.4),
        ((220, 112, 280, 122), "- 12 814 48 18", 9.4),
        ((285, 112, 360, 122), "- Warszawa, Polska", 9.4),
        ((60, 300, 160, 312), "Experience", 12.0),
        ((431, 330, 550, 342), "01/09/2023 - 15/09/2025", 11.2),
    ]
    assert "michal.l83@onet.pl - 508 840 886 - 12 814 48 18 - Warszawa, Polska" in _texts(dashed)
    phones = extract(rows_answer(dashed, ocr=True), as_of=AS_OF).values("phones")
    assert set(phones) == {"+48508840886", "+48128144818"}, phones
    phones = extract(rows_answer(rows, ocr=True), as_of=AS_OF).values("phones")
    assert set(phones) == {"+393736405740", "+390297046165"}, phones


def test_pieces_are_not_joined_across_a_heading_a_broken_word_or_a_wide_gap() -> None:
    rows = [
        ((72, 100, 140, 123), "RTEA A k kk k", 23.3),
        ((150, 100, 230, 123), "Education", 23.3),  # a heading stands alone
        ((72, 140, 250, 156), "Proficiency in API integration for com-", 15.9),
        ((260, 140, 400, 156), "mar. 2020 - Data Scientist Consultant", 15.9),  # the next column
        ((72, 170, 150, 180), "Python", 10.0),
        ((170, 170, 230, 180), "Docker", 10.0),  # 20 points apart: two cells
    ]
    texts = _texts(rows)
    assert "Education" in texts
    assert "mar. 2020 - Data Scientist Consultant" in texts
    assert "Python" in texts and "Docker" in texts


def test_a_text_layer_keeps_its_lines_as_they_are() -> None:
    # only OCR'd pages are joined: a text layer's lines are the PDF's own
    rows = [((212, 277, 259, 287), "GOOGLE", 12.0), ((267, 277, 426, 287), "| SOFTWARE ENGINEERING INTERN", 11.5)]
    assert [line.text for line in _layout.lines_of(rows_answer(rows, ocr=False))] == [
        "GOOGLE",
        "SOFTWARE ENGINEERING INTERN",
    ]
    assert _texts(rows) == ["GOOGLE | SOFTWARE ENGINEERING INTERN"]


def test_a_heading_with_its_rule_read_after_it_opens_its_section() -> None:
    assert _layout.heading_kind("WORK EXPERIENCE ~~~M") == "experience"
    assert _layout.heading_kind("Honors & Awards — — — —") == _layout.heading_kind("Honors & Awards")
    assert _layout.heading_kind("Education ___") == "education"
    # one dash is a separator, not a rule
    assert _layout.heading_kind("Skills - Python") is None
    rows = [
        ((86, 60, 300, 80), "Jane Roe", 20.0),
        ((89, 290, 560, 302), "WORK EXPERIENCE ~~~M", 14.0),
        ((86, 308, 177, 320), "August 2002 — Present", 10.7),
        ((188, 308, 310, 320), "Independent consultant", 11.6),
        ((187, 325, 316, 332), "National Youth Council of Ireland", 7.7),
    ]
    assert [r[2] for r in roles(rows_answer(rows, ocr=True))] == ["2002-08"]


def test_a_page_read_twice_gives_each_role_once() -> None:
    # luisenmarroquin's scans: every line of the page came twice, in the same place
    page = [
        ((72, 60, 260, 80), "Luis Marroquín", 20.0),
        ((160, 360, 260, 372), "Experience", 12.0),
        ((160, 380, 403, 388), "Full stack developer and DevOps engineer at Softtek (06/2018 - 05/2021)", 7.6),
        ((160, 428, 420, 438), "Full stack developer and DevOps engineer at Arkus Nexus (05/2021 - present)", 9.2),
    ]
    again = [((x0 + 1, y0, x1, y1 + 1), text, size) for (x0, y0, x1, y1), text, size in page]
    found = roles(rows_answer(page + again, ocr=True))
    assert found == [
        ("Full stack developer and DevOps engineer", "Softtek", "2018-06"),
        ("Full stack developer and DevOps engineer", "Arkus Nexus", "2021-05"),
    ], found


def test_the_row_join_stays_linear_on_a_hostile_row() -> None:
    # as many two-letter pieces as a page may hold, a word space apart on one row: joined
    # lines are capped, and every piece is read once
    n = _layout.MAX_LINES
    rows = [((float(x * 12), 100.0, float(x * 12 + 8), 110.0), "xy", 10.0) for x in range(n)]
    t0 = time.process_time()
    lines = _layout.lines_of(rows_answer(rows, ocr=True))
    assert time.process_time() - t0 < 5.0
    assert len(lines) < n / 10
    assert all(len(line.text) <= _layout.MAX_WRAPPED for line in lines)
    assert sum(line.text.count("xy") for line in lines) == n


def test_a_brazilian_or_asian_providers_domain_misread_by_ocr_is_repaired() -> None:
    # alocks-pt-scan150: "o0utlook.com.br" (a glyph read twice, then 0 for o); the provider
    # list knew no .com.br domain
    rows = [
        ((72, 60, 260, 80), "Adrian Locks", 20.0),
        ((72, 90, 300, 100), "adrianlocks2015@o0utlook.com.br", 9.0),
        ((72, 104, 300, 114), "wang.fang@l63.com", 9.0),
    ]
    emails = extract(rows_answer(rows, ocr=True), as_of=AS_OF).values("emails")
    assert set(emails) == {"adrianlocks2015@outlook.com.br", "wang.fang@163.com"}, emails


def test_year_first_month_ranges_are_no_phones_and_one_word_chinese_headings_open_sections() -> None:
    # dingpeng-zh: a sidebar template's 教育 / 项目 / 经历 and "2013/8 - 2016/7" rows; every
    # range read as a Beijing number before (nine phones where the CV has one)
    rows = [
        ((88, 39, 132, 62), "丁鹏", 18.0),
        ((68, 74, 132, 84), "18611105508", 9.0),
        ((151, 39, 183, 57), "教育", 14.0),
        ((151, 62, 351, 76), "清华大学| 工学硕士在读，软件工程专业", 10.0),
        ((151, 81, 250, 92), "2013/8 - 2016/7 | 北京", 10.0),
        ((151, 192, 183, 210), "项目", 14.0),
        ((151, 215, 298, 228), "CodingYoung | 公益编程课程", 10.0),
        ((151, 233, 252, 244), "2014/4 – 2015/6 | 北京", 10.0),
        ((151, 668, 183, 686), "经历", 14.0),
        ((151, 692, 371, 706), "北京白驹谷科技有限责任公司| 技术负责人", 10.0),
        ((151, 710, 250, 722), "2014/4 - 2015/4 | 北京", 10.0),
    ]
    answer = rows_answer(rows, ocr=False)
    found = extract(answer, as_of=AS_OF)
    assert found.values("phones") == ["+8618611105508"]
    assert [(r[1], r[2]) for r in roles(answer)] == [("北京白驹谷科技有限责任公司", "2014-04")]
    assert _layout.heading_kind("教育") == "education"
    assert _layout.heading_kind("项目") == "other"


def test_a_date_cell_with_how_long_it_lasted_dates_its_role() -> None:
    # agonzalezro-es: "2008 (1 mes)" in the date column beside "Profesor, PC Carrier, España."
    rows = [
        ((141, 60, 300, 80), "Álex González", 20.0),
        ((141, 100, 250, 114), "Experiencia", 14.3),
        ((88, 130, 130, 139), "2009–2010", 9.0),
        ((141, 128, 400, 139), "Fundador, mirblu S.L., España.", 10.0),
        ((78, 160, 130, 169), "2008 (1 mes)", 9.0),
        ((141, 158, 272, 169), "Profesor, PC Carrier, España.", 10.0),
        ((141, 173, 535, 182), "Profesor de un curso de la Xunta de Galicia sobre bases de datos relacionales.", 9.0),
        ((71, 202, 130, 211), "2004 (3 meses)", 9.0),
        ((141, 202, 398, 212), "Técnico en prácticas, Regox, España.", 10.0),
    ]
    assert _layout.date_cell("2017 (6mth)") and _layout.date_cell("2008 (1 mes)")
    assert not _layout.date_cell("2017 (Berlin)")
    found = roles(rows_answer(rows, ocr=False))
    assert ("Profesor", "PC Carrier", "2008") in found, found
    assert ("Técnico en prácticas", "Regox", "2004") in found, found
