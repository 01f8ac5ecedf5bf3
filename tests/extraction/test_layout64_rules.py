"""Change set layout-64 (stop 67), from held-out v24's documents as development: a role's
line whose pipes part the house from the post keeps a dash or a slash inside the post as the
post's own (docs/extraction.md, "Change set layout-64"). Invented text in the documents'
geometry; the first test fails on layout-63, the others guard what must still split."""

# ruff: noqa: RUF001, RUF003 - the en dashes are what these documents hold
from __future__ import annotations

from ats.extraction._history import _parts
from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF


def test_a_posts_dash_after_the_houses_pipe_is_the_posts_own() -> None:
    # v24's daguirre (Google Docs): "Technical Assistant" was read, "– Virtual Management" lost
    rows: list[Row] = [
        ((90, 78, 352, 104), "Marisol Quintero", 20.0),
        ((90, 124, 400, 136), "marisol.quintero@example.org", 11.0),
        ((90, 470, 231, 484), "Professional Experience", 14.0),
        ((90, 500, 494, 512), "Northwind Polytechnic | Technical Assistant – Virtual Campus", 11.0),
        ((90, 517, 193, 528), "Aug 2019 – Mar 2023", 11.0),
        ((90, 542, 413, 553), "- Moodle administration and support for online classes.", 11.0),
    ]
    roles = extract(styled_answer(rows), as_of=AS_OF).values("work_history")
    assert [(r["employer"], r["title"], r["start"]) for r in roles] == [
        ("Northwind Polytechnic", "Technical Assistant – Virtual Campus", "2019-08")
    ]


def test_a_slash_between_posts_after_the_pipe_stays_in_the_post() -> None:
    assert _parts("Contoso Retail | Sales Assistant / Cashier") == ["Contoso Retail", "Sales Assistant / Cashier"]


def test_a_place_or_a_kind_of_post_after_a_dash_is_still_its_own_part() -> None:
    assert _parts("Acme Corp | Data Engineer – Berlin") == ["Acme Corp", "Data Engineer", "Berlin"]
    assert _parts("Acme Corp | Data Engineer – Internship") == ["Acme Corp", "Data Engineer", "Internship"]
    # a house's own dash (no post word on either side) is left to the general reader
    assert _parts("Rabbit Technology – Aleksandria | Frontend Developer") == [
        "Rabbit Technology",
        "Aleksandria",
        "Frontend Developer",
    ]
