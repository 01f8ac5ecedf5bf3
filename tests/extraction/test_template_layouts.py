"""Work history, names and e-mails in the layouts of widely used CV templates (issue 25,
change set h25hist): the rows a PDF's text layer gives for "Employer  City" / "Title
dates" and its variants, icon glyphs, letter-spaced and small-caps names, an address a
line break split at a hyphen. The content is made up; the geometry is what the templates
set (flush-right dates and places, a calendar icon before the dates, two columns)."""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ats.extraction._history import date_ranges, ym_text
from ats.extraction.api import extract

AS_OF = date(2026, 11, 1)
CHAR_W = 5.0  # points per character of a 10 pt line
RIGHT = 540.0  # the text block's right edge


def _line(x: float, y: float, text: str, *, right: bool = False, size: float = 10.0) -> dict[str, Any]:
    x0 = RIGHT - CHAR_W * len(text) if right else x
    return {"bbox": [x0, y, x0 + CHAR_W * len(text), y + 1.2 * size], "text": text, "size": size}


def _right(y: float, text: str) -> dict[str, Any]:
    return _line(0, y, text, right=True)


def _pdf(*blocks: list[dict[str, Any]]) -> dict[str, Any]:
    out = []
    for lines in blocks:
        bbox = [
            min(ln["bbox"][0] for ln in lines),
            lines[0]["bbox"][1],
            max(ln["bbox"][2] for ln in lines),
            lines[-1]["bbox"][3],
        ]
        out.append({"page": 1, "bbox": bbox, "text": "\n".join(ln["text"] for ln in lines), "lines": lines})
    return {"schema": 2, "kind": "pdf", "text": "\n".join(b["text"] for b in out), "blocks": out, "elements": []}


HEAD = [
    _line(60, 30, "Ada Lovelace", size=20),
    _line(60, 60, "ada@lovelace.dev | +44 20 7946 0123"),
    _line(60, 100, "Experience", size=12),
]

# (layout, answer, [(title, employer, location, start, end), ...])
LAYOUTS = [
    (
        "employer and place above title and dates, both rows flush right (Awesome-CV, sb2nov)",
        _pdf(
            HEAD,
            [
                _line(60, 120, "Northwind Analytics"),
                _right(120, "Berlin, Germany"),
                _line(60, 134, "Senior Data Engineer"),
                _right(134, "Jan. 2019 - Present"),
                _line(70, 148, "• Built the pipelines."),
                _line(60, 170, "Globex"),
                _right(170, "London, UK"),
                _line(60, 184, "Research Assistant"),
                _right(184, "Mar. 2016 - Dec. 2018"),
                _line(70, 198, "• Wrote papers."),
            ],
        ),
        [
            ("Senior Data Engineer", "Northwind Analytics", "Berlin, Germany", "2019-01", "present"),
            ("Research Assistant", "Globex", "London, UK", "2016-03", "2018-12"),
        ],
    ),
    (
        "title and dates above employer and place, TeX's -- left as typed",
        _pdf(
            HEAD,
            [
                _line(60, 120, "Senior Data Engineer"),
                _right(120, "June 2019 -- Present"),
                _line(60, 134, "Northwind Analytics"),
                _right(134, "Berlin, Germany"),
                _line(70, 148, "• Built the pipelines."),
                _line(60, 170, "Research Assistant"),
                _right(170, "Mar 2016 -- Dec 2018"),
                _line(60, 184, "Globex"),
                _right(184, "London, UK"),
                _line(70, 198, "• Wrote papers."),
            ],
        ),
        [
            ("Senior Data Engineer", "Northwind Analytics", "Berlin, Germany", "2019-06", "present"),
            ("Research Assistant", "Globex", "London, UK", "2016-03", "2018-12"),
        ],
    ),
    (
        "no job or company words: the part beside the place is the employer",
        _pdf(
            HEAD,
            [
                _line(60, 120, "Initech"),
                _right(120, "Austin, TX"),
                _line(60, 134, "Hacker in Residence"),
                _right(134, "2019 – 2021"),
                _line(70, 148, "• Did it."),
                _line(60, 170, "Umbrella"),
                _right(170, "Paris, France"),
                _line(60, 184, "Mascot"),
                _right(184, "2016 – 2018"),
                _line(70, 198, "• Did it."),
            ],
        ),
        [
            ("Hacker in Residence", "Initech", "Austin, TX", "2019", "2021"),
            ("Mascot", "Umbrella", "Paris, France", "2016", "2018"),
        ],
    ),
    (
        "employer | title, then dates | place (Deedy)",
        _pdf(
            HEAD,
            [
                _line(60, 120, "NORTHWIND | Data Engineer"),
                _line(60, 134, "May 2015 – Aug 2017 | Menlo Park, CA"),
                _line(60, 148, "Built the pipelines and more."),
                _line(60, 170, "GLOBEX | Research Intern"),
                _line(60, 184, "May 2014 – Aug 2014 | London, UK"),
                _line(60, 198, "Wrote papers."),
            ],
        ),
        [
            ("Data Engineer", "NORTHWIND", "Menlo Park, CA", "2015-05", "2017-08"),
            ("Research Intern", "GLOBEX", "London, UK", "2014-05", "2014-08"),
        ],
    ),
    (
        "title, employer, then icon-font calendar and map-pin glyphs (AltaCV)",
        _pdf(
            HEAD,
            [
                _line(60, 120, "Senior Data Engineer", size=12),
                _line(60, 136, "Northwind Analytics"),
                _line(60, 150, "\uf073 Jan 2019 – Ongoing \uf041 Berlin, Germany"),
                _line(70, 164, "• Built the pipelines."),
                _line(60, 186, "Mascot", size=12),
                _line(60, 202, "Umbrella Corporation"),
                _line(60, 216, "📅 2016 – 2018 📍 Paris"),
                _line(70, 230, "• Wrote papers."),
            ],
        ),
        [
            ("Senior Data Engineer", "Northwind Analytics", "Berlin, Germany", "2019-01", "present"),
            ("Mascot", "Umbrella Corporation", "Paris", "2016", "2018"),
        ],
    ),
    (
        "employer, title | place; dates level with the first bullet (rendercv)",
        _pdf(
            HEAD,
            [
                _line(60, 120, "Northwind Analytics, Senior Data Engineer"),
                _right(120, "Berlin, Germany"),
                _line(70, 134, "• Built the pipelines."),
                _right(134, "Sept 2021 – present"),
                _line(60, 170, "Globex, Research Intern"),
                _right(170, "London, UK"),
                _line(70, 184, "• Wrote papers."),
                _right(184, "June 2020 – Aug 2020"),
            ],
        ),
        [
            ("Senior Data Engineer", "Northwind Analytics", "Berlin, Germany", "2021-09", "present"),
            ("Research Intern", "Globex", "London, UK", "2020-06", "2020-08"),
        ],
    ),
    (
        "dates on a line of their own above title and employer",
        _pdf(
            HEAD,
            [
                _line(60, 120, "2019.03 – 至今"),
                _line(60, 134, "Senior Data Engineer"),
                _line(60, 148, "Northwind Analytics, Berlin"),
                _line(70, 162, "• Built the pipelines."),
                _line(60, 184, "2016/3 ~ 2018/12"),
                _line(60, 198, "Research Assistant"),
                _line(60, 212, "Globex, London"),
                _line(70, 226, "• Wrote papers."),
            ],
        ),
        [
            ("Senior Data Engineer", "Northwind Analytics", "Berlin", "2019-03", "present"),
            ("Research Assistant", "Globex", "London", "2016-03", "2018-12"),
        ],
    ),
    (
        "an entry's lines below its dates do not take the next entry's header",
        _pdf(
            HEAD,
            [
                _line(60, 120, "Lead Engineer at Initech"),
                _line(60, 134, "since 2020"),
                _line(60, 160, "Analyst, Bank of Somewhere"),
                _line(60, 174, "2012 to 2019"),
            ],
        ),
        [
            ("Lead Engineer", "Initech", None, "2020", "present"),
            ("Analyst", "Bank of Somewhere", None, "2012", "2019"),
        ],
    ),
]


@pytest.mark.parametrize(("layout", "answer", "expected"), LAYOUTS, ids=[row[0] for row in LAYOUTS])
def test_template_layouts_give_their_entries(layout: str, answer: dict[str, Any], expected: list[tuple]) -> None:
    history = [fv.value for fv in extract(answer, as_of=AS_OF).fields.get("work_history", [])]
    got = [(h["title"], h["employer"], h["location"], h["start"], h["end"]) for h in history]
    assert got == expected, layout


def test_years_of_experience_come_from_the_template_entries() -> None:
    fields = extract(LAYOUTS[0][1], as_of=AS_OF).fields
    # Jan 2019 - Nov 2026 ("Present", as of November) and Mar 2016 - Dec 2018, both ends inclusive.
    assert fields["years_experience"][0].value == round((95 + 34) / 12, 1)
    assert {s.rule for s in fields["years_experience"][0].sources} == {"years.work_history"}


@pytest.mark.parametrize(
    ("line", "start", "end"),
    [
        ("2019.03 - 2021.06", "2019-03", "2021-06"),
        ("2019/3 – 至今", "2019-03", "present"),
        ("June 2019 -- Present", "2019-06", "present"),
        ("2016 ~ 2018", "2016", "2018"),
        ("2021 – 현재", "2021", "present"),
    ],
)
def test_more_date_forms(line: str, start: str, end: str) -> None:
    ranges = date_ranges(line)
    assert [(ym_text(r.start), ym_text(r.end)) for r in ranges] == [(start, end)]


def _name_and_emails(*lines: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    fields = extract(_pdf(list(lines)), as_of=AS_OF).fields
    return [fv.value for fv in fields.get("name", [])], [fv.value for fv in fields.get("emails", [])]


CONTACT = [_line(60, 90, "\uf0e0 jane.doe@mail.de  \uf095 +49 30 1234567"), _line(60, 120, "Experience", size=12)]


@pytest.mark.parametrize(
    "name_line",
    [
        "J A N E   D O E",  # letter-spaced: a space between letters, a wider one between words
        "J a n e   D o e",
        "J ANE D OE",  # small caps: the capital and the smaller capitals as separate runs
        "Jane Doe   Senior Data Engineer",  # the headline's job title after a wide gap
    ],
)
def test_names_a_text_layer_spaced_out(name_line: str) -> None:
    names, _ = _name_and_emails(_line(60, 30, name_line, size=24), *CONTACT)
    assert names == ["Jane Doe"]


def test_initials_and_ordinary_names_are_not_joined() -> None:
    names, _ = _name_and_emails(_line(60, 30, "Mary Ann Smith", size=24), *CONTACT)
    assert names == ["Mary Ann Smith"]
    names, _ = _name_and_emails(_line(60, 30, "J. R. Hartley", size=24), *CONTACT)
    assert names == ["J. R. Hartley"]


def test_an_address_broken_after_a_hyphen_keeps_it() -> None:
    long_line = "Data engineer in Berlin, reachable at jane.doe@example-"
    _, emails = _name_and_emails(
        _line(60, 30, "Jane Doe", size=24), _line(60, 60, long_line), _line(60, 72, "company.com or by phone")
    )
    assert emails == ["jane.doe@example-company.com"]


def test_a_word_hyphenated_over_two_lines_still_loses_its_hyphen() -> None:
    answer = _pdf(
        [
            _line(60, 30, "Jane Doe", size=24),
            _line(60, 100, "Education", size=12),
            _line(60, 120, "Licence de mathématiques appliquées, Education Na-"),
            _line(60, 132, "tionale, 2004"),
        ]
    )
    entries = [fv.value for fv in extract(answer, as_of=AS_OF).fields["education_entries"]]
    assert "Education Nationale" in str(entries)


def test_a_slash_between_job_words_keeps_one_title() -> None:
    answer = _pdf(
        HEAD,
        [
            _line(60, 120, "Oct 2001 – Feb 2002  Researcher / Independent Consultant"),
            _line(60, 134, "Council of Europe, Budapest"),
            _line(60, 156, "2003 – 2005  Data Engineer / Northwind Analytics"),
        ],
    )
    history = [fv.value for fv in extract(answer, as_of=AS_OF).fields["work_history"]]
    assert [(h["title"], h["employer"]) for h in history] == [
        ("Researcher / Independent Consultant", "Council of Europe"),
        ("Data Engineer", "Northwind Analytics"),
    ]


def test_the_employer_below_a_title_line_when_the_line_above_ends_the_previous_entry() -> None:
    # Europass: "dates  Title", the employer right below it; the previous entry ends with
    # a "Business or sector" line, set well above - entries are spaced apart.
    answer = _pdf(
        HEAD,
        [
            _line(60, 120, "March 2002 – July 2002  Internship"),
            _line(150, 134, "European Commission"),
            _line(150, 160, "Business or sector  European institution"),
            _line(60, 190, "Oct 2001 – Feb 2002  Researcher / Independent Consultant"),
            _line(150, 204, "Council of Europe, Budapest (Hungary)"),
        ],
    )
    history = [fv.value for fv in extract(answer, as_of=AS_OF).fields["work_history"]]
    assert [(h["title"], h["employer"]) for h in history] == [
        ("Internship", "European Commission"),
        ("Researcher / Independent Consultant", "Council of Europe"),
    ]
