"""Work history and education as structured entries; years of experience from them."""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

import time
from datetime import date

import pytest

from ats.extraction._history import date_ranges, ym_text
from ats.extraction.api import extract

AS_OF = date(2026, 12, 1)


def _run(text: str) -> dict[str, list]:
    ex = extract({"text": text}, as_of=AS_OF)
    return {name: list(fvs) for name, fvs in ex.fields.items()}


@pytest.mark.parametrize(
    ("line", "start", "end"),
    [
        ("Mar 2019 – Jun 2021", "2019-03", "2021-06"),
        ("03/2019 - 06/2021", "2019-03", "2021-06"),
        ("2019-03 to 2021-06", "2019-03", "2021-06"),
        ("März 2019 bis Juni 2021", "2019-03", "2021-06"),
        ("2019 – heute", "2019", "present"),
        ("since 2019", "2019", "present"),
        ("seit 04/2019", "2019-04", "present"),
        ("depuis 2019", "2019", "present"),
        ("2015 · 2018", "2015", "2018"),
        ("2015-2018", "2015", "2018"),
        ("janvier 2020 – aujourd'hui", "2020-01", "present"),
        ("Sep 2020 - now", "2020-09", "present"),
        ("2020 - current", "2020", "present"),
        ("enero 2018 - actual", "2018-01", "present"),
        ("01.09.2019 – 31.08.2021", "2019-09", "2021-08"),
    ],
)
def test_date_forms_and_languages(line: str, start: str, end: str) -> None:
    ranges = date_ranges(line)
    assert len(ranges) == 1, line
    assert (ym_text(ranges[0].start), ym_text(ranges[0].end)) == (start, end)


def test_a_lone_year_or_a_backwards_pair_is_no_range() -> None:
    assert date_ranges("Founded in 2019, 40 people") == []
    assert date_ranges("2021 - 2019") == []


CV = """Jane Doe
jane@example.org
Experience
Lead Data Engineer, Northwind Analytics
2019 – now
• Built the pipelines that feed every dashboard.
Mar 2015 - 06/2019  Software Engineer – Globex GmbH
• Shipped the billing service.
Initech Ltd · Berlin
Backend Developer
2012-03 to 2015-02
Education
MSc Computer Science, University of Manchester, 2010 - 2011
"""


def test_work_history_entries_in_three_layouts_with_provenance() -> None:
    fields = _run(CV)
    entries = [fv.value for fv in fields["work_history"]]
    assert entries == [
        {"employer": "Northwind Analytics", "title": "Lead Data Engineer", "location": None, "start": "2019",
         "end": "present"},
        {"employer": "Globex GmbH", "title": "Software Engineer", "location": None, "start": "2015-03",
         "end": "2019-06"},
        {"employer": "Initech Ltd", "title": "Backend Developer", "location": "Berlin", "start": "2012-03",
         "end": "2015-02"},
    ]  # fmt: skip
    first = fields["work_history"][0].sources
    assert [s.text for s in first] == ["Lead Data Engineer, Northwind Analytics", "2019 – now"]
    assert {s.rule for s in first} == {"work_history.entry"}
    assert all(s.part == "text" or s.index is not None for s in first)


def test_education_entries() -> None:
    fields = _run(CV)
    assert [fv.value for fv in fields["education_entries"]] == [
        {"institution": "University of Manchester", "degree": "MSc Computer Science", "start": "2010", "end": "2011"}
    ]
    # The existing `education` key keeps its type: a list of strings.
    assert all(isinstance(fv.value, str) for fv in fields["education"])


def test_years_from_entries_merge_overlaps_and_name_the_entries() -> None:
    text = """Experience
Senior Developer at Acme Software
Jan 2020 – Dec 2021
• Built things.
Consultant, Stark Digital
Jan 2021 – Dec 2022
• Overlapping side role.
"""
    fields = _run(text)
    (years,) = fields["years_experience"]
    assert years.value == 3.0  # 2020-01..2022-12 once, not 2 + 2 years
    assert [s.rule for s in years.sources] == ["years.work_history", "years.work_history"]
    assert years.sources[0].text == "Senior Developer · Acme Software · 2020-01 – 2021-12"
    assert [fv.value["employer"] for fv in fields["work_history"]] == ["Acme Software", "Stark Digital"]


def test_german_cv_with_bis_heute() -> None:
    text = """Berufserfahrung
Softwareentwickler bei Globex GmbH, München
März 2019 bis heute
• Verantwortlich für die Plattform.
"""
    (entry,) = [fv.value for fv in _run(text)["work_history"]]
    assert entry == {"employer": "Globex GmbH", "title": "Softwareentwickler", "location": "München",
                     "start": "2019-03", "end": "present"}  # fmt: skip


def test_hostile_lines_stay_linear() -> None:
    text = "Experience\n" + ("2019 – " * 400_000) + "\n" + "Engineer, Acme 2019 - 2020\n" * 50_000
    t0 = time.process_time()
    ex = extract({"text": text[:10_000_000]}, as_of=AS_OF)
    assert time.process_time() - t0 < 5.0  # CPU seconds: the wall clock moves with the load
    assert len(ex.values("work_history")) <= 40
