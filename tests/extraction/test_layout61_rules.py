"""Change set layout-61 (stop 66): a company's line over its roles names where they were.
Stop 65's newcomer CV set "Northwind Analytics (Cork, Ireland)  March 2019 - Present" over
two posts, and its candidate page showed neither post's place. Invented text in that
document's geometry; the first two tests fail on layout-60."""

# ruff: noqa: RUF001 - the en dashes are what these documents hold

from __future__ import annotations

from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF

_NAME: list[Row] = [((72, 60, 300, 80), "Dana Whitfield", 20.0), ((72, 86, 300, 98), "dana@example.org", 11.0)]


def _entries(rows: list[Row]) -> list[tuple[str | None, str | None, str | None, str]]:
    found = extract(styled_answer(rows), as_of=AS_OF).values("work_history")
    return [(e["title"], e["employer"], e["location"], e["start"]) for e in found]


def test_a_companys_place_in_brackets_is_each_of_its_roles_place() -> None:
    rows: list[Row] = [
        *_NAME,
        ((72, 154, 300, 168), "Experience", 14.0),
        ((72, 172, 540, 185), "Northwind Analytics (Cork, Ireland)  March 2019 – Present", 11.0),
        ((90, 188, 540, 200), "Lead Data Engineer  January 2022 – Present", 11.0),
        ((108, 202, 540, 214), "Led a team of four building the company's data platform", 11.0),
        ((90, 220, 540, 232), "Data Engineer  March 2019 – December 2021", 11.0),
        ((108, 234, 540, 246), "Built the nightly loads of the sales warehouse", 11.0),
    ]
    assert _entries(rows) == [
        ("Lead Data Engineer", "Northwind Analytics", "Cork, Ireland", "2022-01"),
        ("Data Engineer", "Northwind Analytics", "Cork, Ireland", "2019-03"),
    ]


def test_a_companys_place_after_a_comma_is_its_roles_place_unless_a_role_names_its_own() -> None:
    # h47's shape: the company line with its place after commas, one role with its own place
    rows: list[Row] = [
        *_NAME,
        ((72, 154, 300, 168), "Experience", 14.0),
        ((72, 172, 540, 185), "Lakeshore Automation LLC, Savage, Minnesota  Jun 2019 – Present", 11.0),
        ((90, 188, 540, 200), "Controls Engineer, Houston, TX, Jan 2022 – Present", 11.0),
        ((108, 202, 540, 214), "Commissioned packaging lines for three plants", 11.0),
        ((90, 220, 540, 232), "Controls Engineering Intern, Jun 2019 – Aug 2019", 11.0),
        ((108, 234, 540, 246), "Wrote PLC test routines", 11.0),
    ]
    assert _entries(rows) == [
        ("Controls Engineer", "Lakeshore Automation LLC", "Houston, TX", "2022-01"),
        ("Controls Engineering Intern", "Lakeshore Automation LLC", "Savage, Minnesota", "2019-06"),
    ]


def test_a_company_line_with_no_place_gives_its_roles_none() -> None:
    # guard: no place on the company's line, none invented for its roles
    rows: list[Row] = [
        *_NAME,
        ((72, 154, 300, 168), "Experience", 14.0),
        ((72, 172, 540, 185), "Northwind Analytics  March 2019 – Present", 11.0),
        ((90, 188, 540, 200), "Lead Data Engineer  January 2022 – Present", 11.0),
        ((108, 202, 540, 214), "Led a team of four building the company's data platform", 11.0),
        ((90, 220, 540, 232), "Data Engineer  March 2019 – December 2021", 11.0),
        ((108, 234, 540, 246), "Built the nightly loads of the sales warehouse", 11.0),
    ]
    assert _entries(rows) == [
        ("Lead Data Engineer", "Northwind Analytics", None, "2022-01"),
        ("Data Engineer", "Northwind Analytics", None, "2019-03"),
    ]
