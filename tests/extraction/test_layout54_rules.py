"""Change sets layout-54 and layout-55 (stop 62), from its newcomer check: a LinkedIn export's
schools read by type size, as its roles are since layout-51, and a page's footer kept out of
the education field (docs/extraction.md, "Change set layout-54").
Invented text in the export's geometry (tests/extraction/test_layout51_rules.py); each test
but the guard fails on the layout before it."""

from __future__ import annotations

from typing import Any

from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF
from tests.extraction.test_layout51_rules import _COLUMN, _HEAD, _export

_SCHOOLS: list[Row] = [
    ((224, 345, 312, 367), "Education", 15.8),
    ((224, 372, 400, 389), "University College Cork", 12.0),
    ((224, 389, 560, 404), "Bachelor of Science, Computer Science · (2015 - 2019)", 10.5),
    ((224, 414, 400, 431), "Contoso Institute of Technology", 12.0),
    ((224, 431, 560, 446), "Bachelor of Applied Science - BASc, Computer Software", 10.5),
    ((224, 446, 560, 461), "Engineering · (September 2009 - May 2014)", 10.5),
    ((384, 768, 430, 781), "Page 1 of 2", 9.0),
    ((224, 800, 400, 817), "Northwind Language School", 12.0),
    ((224, 817, 560, 832), "Certificate, German B1", 10.5),
]


def _schools(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    found = extract(answer, as_of=AS_OF).values("education_entries")
    return [(e["institution"], e["degree"], e["start"], e["end"]) for e in found]


def test_a_linkedin_exports_schools_are_read_by_type_size() -> None:
    # the newcomer check's export: "Computer Science" was read as the institution; aravi's
    # schools each with the next one's degree; enjeri's undated school lost
    assert _schools(_export(_SCHOOLS)) == [
        ("University College Cork", "Bachelor of Science, Computer Science", "2015", "2019"),
        (
            "Contoso Institute of Technology",
            "Bachelor of Applied Science - BASc, Computer Software Engineering",
            "2009-09",
            "2014-05",
        ),
        ("Northwind Language School", "Certificate, German B1", None, None),
    ]
    (first, *_) = extract(_export(_SCHOOLS), as_of=AS_OF).fields["education_entries"]
    assert [s.rule for s in first.sources] == ["education.linkedin", "education.linkedin"]


def test_a_section_whose_sizes_do_not_show_schools_is_read_as_any_cv() -> None:
    # guard: one size throughout (a scan's OCR): the general reader's entries, as before
    flat = [(bbox, text, 15.8 if text == "Education" else 10.5) for bbox, text, _ in _SCHOOLS]
    plain_column = [r for r in _COLUMN if "LinkedIn" not in r[1]]
    assert _schools(_export(flat)) == _schools(styled_answer([*plain_column, *_HEAD, *flat]))


def test_a_page_footer_is_no_line_of_the_education_field() -> None:
    # layout-55: the newcomer check's candidate showed "Page 1 of 1" as its last education line
    education = extract(_export(_SCHOOLS), as_of=AS_OF).values("education")
    assert education[0] == "University College Cork"
    assert not any("Page" in line for line in education)
