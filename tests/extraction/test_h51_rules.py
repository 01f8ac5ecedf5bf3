# ruff: noqa: RUF001 (CV text has typographic dashes)
"""Change set h51 (layout-25): development misses of layout-24 - an OCR'd sidebar CV whose
main column dates its roles at the right, a student's school under the experience heading,
a role's own "Key Achievements" and "Tech stack:" labels, arrows as bullets. Built answers
here; docs/extraction.md, "Change set h51 (layout-25)", says what each rule is for."""

from __future__ import annotations

from ats.extraction import _layout
from ats.extraction.api import extract
from tests.extraction.answers import Row, roles, rows_answer
from tests.extraction.corpus import AS_OF


def _sidebar_scan() -> list[Row]:
    """An OCR'd sidebar CV, row by row: the sidebar (x 60-230) beside a main column whose
    role headers (x 255-400) carry their dates at the right (x 498-573)."""
    sidebar = ["Über mich", "Engagierter Entwickler", "mit Erfahrung in der", "Entwicklung von Web-",
               "anwendungen.", "Persönliche Infos", "84508 Burgkirchen", "Germany", "015128064881",
               "Fähigkeiten", "JavaScript", "Node.js", "TypeScript"]  # fmt: skip
    main = [("Erfahrung", None), ("Familie Zordel", "05.2020 - 07.2022"), ("Hotelfachmann", None),
            ("Gerweck", "07.2018 - 02.2020"), ("Bäckereifachverkäufer", None),
            ("Stadtwerke Pforzheim", "04.2017 - 06.2018"), ("Callcenter Agent", None),
            ("Amazon", "10.2015 - 02.2016"), ("Verpackungshelfer", None), ("", None), ("", None),
            ("", None), ("", None)]  # fmt: skip
    rows: list[Row] = [((62, 50, 200, 76), "Oliver Example", 28.0)]
    for k, (side, (text, dates)) in enumerate(zip(sidebar, main, strict=True)):
        y = 250 + 16 * k
        rows.append(((61, y, 61 + 7 * len(side), y + 11), side, 10.0))
        if text:
            rows.append(((255, y, 255 + 7 * len(text), y + 11), text, 10.0))
        if dates:
            rows.append(((498, y, 573, y + 11), dates, 10.0))
    return rows


def test_an_ocr_sidebar_cv_whose_roles_are_dated_at_the_right_is_read_by_columns() -> None:
    answer = rows_answer(_sidebar_scan(), ocr=True)
    assert roles(answer) == [
        ("Hotelfachmann", "Familie Zordel", "2020-05"),
        ("Bäckereifachverkäufer", "Gerweck", "2018-07"),
        ("Callcenter Agent", "Stadtwerke Pforzheim", "2017-04"),
        ("Verpackungshelfer", "Amazon", "2015-10"),
    ]
    skills = extract(answer, as_of=AS_OF).values("skills")
    assert {"JavaScript", "Node.js", "TypeScript"} <= set(skills)


def test_a_student_at_a_school_is_studying_not_employed() -> None:
    rows = [
        ((60, 40, 200, 70), "Oliver Example", 30.0),
        ((255, 245, 325, 266), "Erfahrung", 16.0),
        ((255, 282, 575, 295), "Student  06.2023 - Heute", 10.0),
        ((255, 295, 403, 308), "Full Stack Web Developer Schule", 10.0),
        ((255, 328, 575, 341), "Familie Zordel  05.2020 - 07.2022", 10.0),
        ((255, 341, 324, 354), "Hotelfachmann", 10.0),
        ((255, 374, 575, 387), "Universität Hamburg  01.2019 - 03.2020", 10.0),
        ((255, 387, 354, 400), "Student assistant", 10.0),
    ]
    assert roles(rows_answer(rows, ocr=False)) == [
        ("Hotelfachmann", "Familie Zordel", "2020-05"),
        ("Student assistant", "Universität Hamburg", "2019-01"),
    ]


def test_a_roles_key_achievements_label_keeps_the_experience_section() -> None:
    rows = [
        ((14, 22, 141, 47), "John Example", 24.8),
        ((170, 98, 306, 115), "Work Experience", 17.2),
        ((170, 122, 303, 134), "Senior DevOps Engineer", 12.0),
        ((170, 136, 356, 145), "RateSetter/Metro Bank (2019 - Present)", 10.0),
        ((170, 276, 264, 286), "Key Achievements: -", 10.0),
        ((178, 300, 500, 310), "• Cut the release time to minutes", 9.0),
        ((170, 467, 358, 479), "Senior Software Engineer/DevOps", 12.0),
        ((170, 481, 270, 491), "Wonga (2012 - 2019)", 10.0),
        ((170, 520, 270, 540), "Education", 17.2),
    ]
    answer = rows_answer(rows, ocr=False)
    assert [r[2] for r in roles(answer)] == ["2019", "2012"]
    # a real section heading of that name, at the section headings' size, still opens one
    rows[4] = ((170, 276, 300, 292), "Key Achievements", 17.2)
    assert [ln.section for ln in _layout.lines_of(rows_answer(rows, ocr=False)) if ln.text.startswith("Wonga")] == [
        "other"
    ]


def test_a_roles_tech_stack_label_keeps_the_roles_after_it() -> None:
    lines = ["Róger Example", "Experience", "SOFTWARE DEVELOPER Aug-2021 – now", "RN Software",
             "Working as software developer in national and international projects.", "Tech stack:",
             "→ Frontend: Javascript, Typescript, Angular", "→ Backend: PHP, Laravel",
             "SOFTWARE DEVELOPER May-2022 – now", "Guidinn", "Working on a tourism product.", "Tech stack:",
             "→ Mobile: Dart, Flutter", "Skills", "Python, Docker"]  # fmt: skip
    answer = {"schema": 3, "kind": "docx", "text": "\n".join(lines), "blocks": [], "elements": []}
    found = extract(answer, as_of=AS_OF).fields["work_history"]
    assert [(v.value["employer"], v.value["start"]) for v in found] == [
        ("RN Software", "2021-08"),
        ("Guidinn", "2022-05"),
    ]
    assert "Python" in extract(answer, as_of=AS_OF).values("skills")
