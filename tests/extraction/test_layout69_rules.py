"""Change set layout-69 (stop 70), from the newcomer check: a link written after the place
on one contact line is no part of the place (docs/extraction.md, "Change set layout-69")."""

from __future__ import annotations

from ats.extraction._rules import _less_links
from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF


def test_a_link_after_the_place_is_no_part_of_the_location() -> None:
    # a CV written with PyMuPDF: its two contact lines came as one line of one block, and the
    # candidate page read "Cork, Ireland linkedin.com/in/jane-oneil-example" as the location
    rows: list[Row] = [
        ((60, 36, 179, 66), "Jane O'Neil", 22.0),
        ((60, 88, 340, 119), "jane.oneil@example.ie | +353 87 123 4567 | Cork, Ireland linkedin.com/in/jane", 10.5),
        ((60, 126, 135, 145), "Experience", 14.0),
    ]
    found = extract(styled_answer(rows), as_of=AS_OF)
    assert found.values("location") == ["Cork, Ireland"]
    assert found.values("links") == [{"kind": "linkedin", "url": "https://linkedin.com/in/jane"}]


def test_only_a_link_with_a_path_or_a_scheme_is_taken_out() -> None:
    assert _less_links("Zürich www.example.ch") == "Zürich"
    assert _less_links("Austin, TX, U.S.A.") == "Austin, TX, U.S.A."
    assert _less_links("Berlin / Germany") == "Berlin / Germany"
    assert _less_links("https://github.com/jane") == ""
