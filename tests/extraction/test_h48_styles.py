"""Change set h48 (layout-22): a CV's house style tells a role's title from its employer;
a role's month range is no phone; an address's mailbox needs a letter or digit; dates
flush right of their own column, places with a country code, labelled lists, dates with
their days.

The parse answer carries each digital line's style runs (bold 1, italic 2; ats.parsing,
docs/extraction.md "Input"). Where most of a CV's roles whose title and employer were told
apart by their words set the two in different styles, each role whose header is two
stretches in those styles is read by them. Built answers here; the parser's side is
tests/parsing/test_styles.py. Every test but the guards fails on layout-21."""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

from typing import Any

import pytest

from ats.extraction import _layout
from ats.extraction._history import date_ranges, single_date, ym_text
from ats.extraction._rules import RegionEvidence, emails, phones
from ats.extraction.api import extract
from tests.extraction.corpus import AS_OF

BOLD, ITALIC = 1, 2


def _styled(*rows: list[tuple[str, int]]) -> dict[str, Any]:
    """A one-page PDF answer: one line per row, each row pieces of (text, style bits)."""
    blocks, y = [], 40
    for pieces in rows:
        text = "".join(t for t, _ in pieces)
        runs, end = [], 0
        for piece, style in pieces:
            end += len(piece)
            runs.append([end, style, 10.0])
        line = {"bbox": [60, y, 60 + 5.5 * len(text), y + 12], "text": text, "size": 10.0, "runs": runs}
        blocks.append({"page": 1, "bbox": line["bbox"], "text": text, "lines": [line]})
        y += 16
    return {"schema": 3, "kind": "pdf", "text": "\n".join(b["text"] for b in blocks), "blocks": blocks, "elements": []}


def _roles(answer: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    return [(v["title"], v["employer"]) for v in extract(answer, as_of=AS_OF).values("work_history")]


def _role(title: str, employer: str, dates: str, *, swapped: bool = False) -> list[tuple[str, int]]:
    if swapped:  # the employer written first, still in the employer's style
        return [(employer, ITALIC), (", ", 0), (title, BOLD), (f"  {dates}", 0)]
    return [(title, BOLD), (", ", 0), (employer, ITALIC), (f"  {dates}", 0)]


HEAD = ([("Ada Lovelace", BOLD)], [("Experience", BOLD)])


def test_a_role_read_against_the_house_style_is_swapped() -> None:
    # "Hooli XYZ, Growth": no title word either side, so the words take the first part for
    # the title; the CV's other roles set the title bold and the employer italic.
    answer = _styled(
        *HEAD,
        _role("Lead Data Engineer", "Northwind Analytics", "2019 – now"),
        _role("Software Engineer", "Globex GmbH", "2015 – 2019"),
        _role("Growth", "Hooli XYZ", "2013 – 2015", swapped=True),
    )
    assert _roles(answer) == [
        ("Lead Data Engineer", "Northwind Analytics"),
        ("Software Engineer", "Globex GmbH"),
        ("Growth", "Hooli XYZ"),
    ]


def test_guard_no_swap_without_a_house_style() -> None:
    # The same roles with every piece plain: the words decide, as before.
    plain = [[(t, 0) for t, _ in row] for row in (
        _role("Lead Data Engineer", "Northwind Analytics", "2019 – now"),
        _role("Software Engineer", "Globex GmbH", "2015 – 2019"),
        _role("Growth", "Hooli XYZ", "2013 – 2015", swapped=True),
    )]  # fmt: skip
    assert _roles(_styled(*HEAD, *plain))[2] == ("Hooli XYZ", "Growth")


def test_guard_one_role_is_no_house_style() -> None:
    # One styled role agreeing and one against it: no majority, nothing is swapped.
    answer = _styled(
        *HEAD,
        _role("Lead Data Engineer", "Northwind Analytics", "2019 – now"),
        _role("Growth", "Hooli XYZ", "2013 – 2015", swapped=True),
    )
    assert _roles(answer)[1] == ("Hooli XYZ", "Growth")


def test_runs_follow_the_lines_the_layout_joins() -> None:
    # A date column's cell joined with the text right of it keeps both lines' styles.
    left = {"bbox": [60, 100, 110, 112], "text": "2019 – now", "size": 10.0, "runs": [[10, 0, 10.0]]}
    right = {"bbox": [170, 100, 320, 112], "text": "Data Engineer, Globex", "size": 10.0,
             "runs": [[13, BOLD, 10.0], [15, 0, 10.0], [21, ITALIC, 10.0]]}  # fmt: skip
    blocks = [{"page": 1, "bbox": ln["bbox"], "text": ln["text"], "lines": [ln]} for ln in (left, right)]
    (line,) = _layout.lines_of({"blocks": blocks})
    assert line.text == "2019 – now  Data Engineer, Globex"
    at = line.text.index("Globex")
    assert _layout.style_of(line, at, at + len("Globex")) == ITALIC
    assert _layout.style_of(line, line.text.index("Data"), line.text.index(",")) == BOLD


def test_guard_runs_that_do_not_fit_the_text_are_dropped() -> None:
    bad = {"bbox": [60, 100, 200, 112], "text": "Data Engineer", "size": 10.0, "runs": [[40, BOLD, 10.0]]}
    (line,) = _layout.lines_of({"blocks": [{"page": 1, "bbox": bad["bbox"], "text": bad["text"], "lines": [bad]}]})
    assert line.runs is None and _layout.style_of(line, 0, 4) is None


def test_a_role_written_whole_in_its_style_is_read_whole() -> None:
    # "Dotmatics - OMIQ Team" is the employer as the CV sets it (one stretch in the
    # employers' style); the words alone split it at the dash.
    answer = _styled(
        *HEAD,
        [("2023 – 2023  ", 0), ("Software Engineering Lead", BOLD)],
        [("Dotmatics - OMIQ Team", ITALIC)],
        [("2018 – 2022  ", 0), ("Project Lead", BOLD)],
        [("Sylo - Backend Development Team", ITALIC)],
        [("2016 – 2018  ", 0), ("Software Researcher", BOLD)],
        [("University of Auckland", ITALIC)],
    )
    assert _roles(answer) == [
        ("Software Engineering Lead", "Dotmatics - OMIQ Team"),
        ("Project Lead", "Sylo - Backend Development Team"),
        ("Software Researcher", "University of Auckland"),
    ]


def test_guard_a_comma_team_stays_out_of_the_title() -> None:
    # A comma names the title and then its team (as before): the stretch is not taken whole.
    answer = _styled(
        *HEAD,
        _role("Software Engineer, Cloud Team", "Google LLC", "2020 – now"),
        _role("Data Engineer", "Globex GmbH", "2015 – 2019"),
    )
    assert _roles(answer)[0] == ("Software Engineer", "Google LLC")


# -- a role's month range is no phone ----------------------------------------------------------


def test_a_month_range_is_no_phone() -> None:
    # In a contact block (section "top"), where unlabelled national numbers are read.
    dates = _layout.Line("Trainer - Cyber security I  09/2019 - 02/2020", 0, section="top")
    assert [f.value for f in phones([dates], RegionEvidence(default="DE"))[0]] == []
    number = _layout.Line("Tel. 0151 59505484", 1, section="top")
    assert [f.value for f in phones([number], RegionEvidence(default="DE"))[0]] == ["+4915159505484"]


def test_an_address_whose_mailbox_is_only_symbols_is_none() -> None:
    # OCR'd icons before a web address or a department's domain: valid by RFC 5322, nobody's.
    for text in ("|@www.posquit0.com", "®@htifs.uni-regensburg.de"):
        assert [f.value for f in emails([_layout.Line(text, 0, section="top")])[0]] == []
    kept = emails([_layout.Line("j_doe@example.org 用户@例子.广告", 0, section="top")])[0]
    assert [f.value for f in kept] == ["j_doe@example.org", "用户@例子.广告"]


# -- places written with a country code; labelled lists ----------------------------------------


def test_a_city_and_its_country_code_is_a_place() -> None:
    assert _layout.is_place("Stuttgart DE") and _layout.is_place("Paris FR")
    answer = _styled(
        *HEAD,
        [("Solution Architect", BOLD), ("  2016 – 2019", 0)],
        [("Robert Bosch GmbH, Stuttgart DE", ITALIC)],
    )
    assert _roles(answer) == [("Solution Architect", "Robert Bosch GmbH")]


def test_guard_what_a_country_code_does_not_make_a_place() -> None:
    assert not _layout.is_place("Stuttgart XX")  # no such region
    assert not _layout.is_place("Data Engineer DE")  # no city
    assert not _layout.is_place("Acme GmbH DE")


def test_a_labelled_list_under_a_title_is_no_employer() -> None:
    answer = _styled(
        *HEAD,
        [("Desenvolvedor Software", 0), ("  11/2020 - 09/2021", 0)],
        [("Datainfo", 0)],
        [("Infraestrutura: Firebase, Google Cloud.", 0)],
        [("Desenvolvedor Web", 0), ("  02/2019 - 11/2020", 0)],
        [("Grupo Plan Marketing", 0)],
    )
    assert [employer for _, employer in _roles(answer)] == ["Datainfo", "Grupo Plan Marketing"]
    # ... but an employer written with a colon is one.
    named = _styled(*HEAD, [("Student Developer", 0), ("  2021 – 2022", 0)], [("Auburn University: Web Solutions", 0)])
    assert _roles(named) == [("Student Developer", "Auburn University: Web Solutions")]


# -- dates flush right in their own column -----------------------------------------------------


def _line(x0: float, y: float, x1: float, text: str) -> dict[str, Any]:
    box = [x0, y, x1, y + 10]
    return {"page": 1, "bbox": box, "text": text, "lines": [{"bbox": box, "text": text, "size": 10.0}]}


def test_dates_flush_right_in_their_column_date_the_line_left_of_them() -> None:
    # A two-column CV: the main column (x 42-285) sets a role's dates flush right of its
    # own margin, where its text lines end; the sidebar (x 300-) has a line on their row.
    text = "Full stack developer of a web application for interactive maps"
    blocks = [
        _line(42, 60, 150, "Ada Lovelace"),
        _line(42, 100, 150, "Work experience"),
        _line(42, 120, 88, "Developer"),
        _line(209, 120, 285, "06/2015 – today"),
        _line(67, 133, 147, "University of Geneva"),
        _line(67, 145, 285, text),
        _line(42, 170, 126, "Research assistant"),
        _line(203, 170, 285, "08/2013 – 12/2013"),
        _line(67, 183, 147, "University of Geneva"),
        _line(67, 195, 285, text + " and its data"),
        _line(67, 207, 285, text + " in the cloud"),
        # the sidebar, after the main column in reading order (a PDF's blocks)
        _line(300, 120, 450, "Bachelor of Arts in Geography"),
        _line(300, 170, 330, "HTML"),
    ]
    answer = {"schema": 3, "kind": "pdf", "text": "", "blocks": blocks, "elements": []}
    history = extract(answer, as_of=AS_OF).values("work_history")
    assert [(h["title"], h["employer"], h["start"]) for h in history] == [
        ("Developer", "University of Geneva", "2015-06"),
        ("Research assistant", "University of Geneva", "2013-08"),
    ]


# -- date forms ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Spacefill  (30 Septembre, 2019 - 31 Mars, 2023)", "2019-09", "2023-03"),  # a day, a comma
        ("XXII  (02 Mai, 2023 - ...)", "2023-05", "present"),  # an open end written "..."
        ("Sep 30, 2019 - Mar 31, 2023", "2019-09", "2023-03"),  # US dates
        ("1. März 2019 – heute", "2019-03", "present"),
    ],
)
def test_dates_with_their_days(text: str, start: str, end: str) -> None:
    (only,) = date_ranges(text)
    assert (ym_text(only.start), ym_text(only.end) if only.end else "present") == (start, end)


def test_guard_what_the_day_forms_do_not_read() -> None:
    # "Top 10, 2019 - 2020": no month before the number, so the years stay a range.
    (only,) = date_ranges("Top 10, 2019 - 2020")
    assert (ym_text(only.start), ym_text(only.end)) == ("2019", "2020")
    assert single_date("February 22, 2026") is None  # a page's date alone dates nothing
    assert single_date("Les 02 et 03 Octobre 2014") is not None  # a course's days do
