"""Hostile extraction input stays within a time budget: no super-linear rule.

The text comes from an attacker's document. The budget is CPU seconds of this process
(`time.process_time`), not wall time: on a loaded 2-core machine the wall clock of a
linear rule passed 5 s while its CPU time stayed under half a second, and a quadratic rule
on these inputs takes minutes of CPU either way.
"""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from typing import Any

import pytest

from ats.extraction.api import extract, extract_naive

BUDGET_S = 5.0
MB = 1024 * 1024


def _text(text: str) -> dict[str, Any]:
    return {"text": text}


def _blocks(text: str) -> dict[str, Any]:
    # The validator caps text at 200k characters per answer; blocks and lines share it.
    lines = text.split("\n")
    return {
        "schema": 2,
        "text": text,
        "blocks": [
            {
                "page": 1,
                "bbox": [0, i, 10, i + 1],
                "text": t,
                "lines": [{"bbox": [0, i, 10, i + 1], "text": t, "size": 9}],
            }
            for i, t in enumerate(lines[:2000])
        ],
    }


def _ocr_blocks(text: str) -> dict[str, Any]:
    # An OCR'd answer: e-mails in its contact lines also go through the OCR repairs.
    return {**_blocks(text), "ocr_used": True, "ocr_pages": 1}


def _elements(text: str) -> dict[str, Any]:
    return {
        "schema": 2,
        "text": text,
        "elements": [
            {"part": "body", "index": i, "text": t, "style": None} for i, t in enumerate(text.split("\n")[:2000])
        ],
    }


HOSTILE: dict[str, Callable[[], str]] = {
    "10 MB line": lambda: "a" * (10 * MB),
    "10 MB line of digits and dots": lambda: "0." * (5 * MB),
    "10 MB of one word repeated": lambda: "Python " * (MB + MB // 2),
    "100k e-mail-like tokens": lambda: " ".join(f"user{i}@host{i}.example" for i in range(100_000)),
    "100k e-mail-like tokens, one per line": lambda: "\n".join(f"u{i}@h{i}.ex" for i in range(100_000)),
    "@ after a long local part": lambda: ("a" * 100_000 + "@") * 20,
    "chained at-signs": lambda: "a@" * (2 * MB),
    "dots after an at-sign": lambda: "x@" + "a." * MB,
    "phone-shaped digit soup": lambda: "+(0) 12-34 " * MB,
    "nested parentheses": lambda: "(" * MB + "1" + ")" * MB,
    "date-shaped run": lambda: "Jan 2019 – " * 200_000,
    "numeric dates": lambda: "01/2019-" * MB,
    "url-shaped run": lambda: "https://" + "a." * MB + "/" * MB,
    "many short lines": lambda: "Jane Doe\n" * 500_000,
    "heading soup": lambda: "Experience\nSkills\nÉducation\nReferences\n" * 100_000,
    "label soup": lambda: "Name: " * 500_000,
    "combining marks": lambda: "e" + "\u0301" * (2 * MB),
    "spaced at-signs": lambda: "a @ " * (2 * MB),
    "(at) soup": lambda: "x(at)y," * MB,
    "comma domains": lambda: "j@" + "g,c" * (2 * MB),
    "OCR-confusable domains": lambda: " ".join(f"u{i}@rnrn{i}.c0rn" for i in range(100_000)),
    "at-sign look-alikes before a provider": lambda: "aQgmail.com" * MB,
    # layout-42: whole ISO and US days, a week's hours in brackets, a LinkedIn export's
    # company over its time there, skill chips
    "day-shaped run": lambda: "2019-03-01 - 06/01/2023 – 09/15/2023 > " * 200_000,
    "workload brackets": lambda: "Engineer (Full-time, 40 hours/week) " * 200_000,
    "company over duration": lambda: "Acme\n5 years 4 months\nPython · Docker · Git\nPage 1 of 2\n" * 100_000,
    # layout-43: a place glued to "@", a street address, a post's kind after a dash, OCR's "Al"
    "glued at-places": lambda: "Trendyol @Istanbul @Berlin " * 200_000,
    "street-address shapes": lambda: ("a-" * 20 + "strasse 5, 8952 Schlieren, " + "12 Ab Cd Road ") * 100_000,
    "kinds after dashes": lambda: "Analyst - Part-time, Lab Group, University of X - Contract " * 100_000,
    "hyphen run before a street word": lambda: "a-" * (2 * MB) + "strasse",
    "OCR Al soup": lambda: "Al Al Research Al, Al  " * 200_000,
    # layout-44: a house's note of country and mode, its dashes kept whole
    "bracketed dash notes": lambda: "House (UK – remote - website). (" * 300_000,
    # layout-45: an underscore drawn as a rule, a space before a top-level domain's dot
    "name words before addresses": lambda: "Jane Doe\n" + "jane doe@example.com " * 200_000,
    "spaced top-level domains": lambda: "a@b .com " * 500_000,
    "towns and states after dashes": lambda: "2020 - 2021, Asa Norte, Brasília - DF, Santa Cruz do Sul – RS " * 100_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize(
    "shape", [_text, _blocks, _ocr_blocks, _elements], ids=["text", "blocks", "ocr_blocks", "elements"]
)
def test_hostile_input_within_budget(name: str, shape: Callable[[str], dict[str, Any]]) -> None:
    answer = shape(HOSTILE[name]())
    started = time.process_time()
    extraction = extract(answer, as_of=date(2026, 11, 1))
    elapsed = time.process_time() - started
    assert elapsed < BUDGET_S, f"{name}: {elapsed:.1f} CPU s"
    # Bounded output too: a flood of candidates does not become a flood of values.
    for values in extraction.fields.values():
        assert len(values) <= 5000
    extract_naive(answer)  # the baseline is bounded as well


def test_many_emails_are_bounded_but_found() -> None:
    text = "Jane Doe\n" + " ".join(f"user{i}@host{i}.example" for i in range(100_000))
    extraction = extract(_text(text), as_of=date(2026, 11, 1))
    emails = extraction.values("emails")
    assert emails and emails[0] == "user0@host0.example"
    assert len(emails) <= 500


def test_the_at_sign_look_alike_scan_is_linear() -> None:
    """A scan's contact line is read for an "@" OCR took for a look-alike ("samhiattQgmail.com",
    h54) only in an OCR'd answer's contact lines, which the shapes above do not reach with a
    long line - so the scan itself, on a run of look-alikes before a provider."""
    from ats.extraction import _rules

    started = time.process_time()
    found = list(_rules._at_misread("aQgmail.com" * MB))
    assert time.process_time() - started < BUDGET_S
    # Only the run's last one ends its domain; its local part is what precedes it (<= 64)
    assert len(found) == 1 and found[0][2].endswith("a@gmail.com") and len(found[0][2]) <= 64 + len("@gmail.com")


def _one_row(texts: list[str]) -> dict[str, Any]:
    """Every line on one row of one page, boxes nested inside the first's (layout-31's
    pieces of a whole line, and a date cell's row partners, all in one bucket)."""
    blocks = [
        {
            "page": 1,
            "bbox": [0, 10, 500, 20],
            "text": t,
            "lines": [{"bbox": [i % 400, 10, 500, 20], "text": t, "size": 9}],
        }
        for i, t in enumerate(texts)
    ]
    return {"schema": 3, "kind": "pdf", "text": "\n".join(texts), "blocks": blocks, "elements": [], "ocr_used": False}


@pytest.mark.parametrize(
    "texts",
    [
        ["ISIR, Sorbonne Université " * 300] + ["ISIR"] * 1999,  # a whole and its pieces
        ["2019"] * 1000 + ["INFRASTRUCTURE SUPERVISOR Aug-2015 – Aug-2016"] * 1000,  # date cells and dated lines
        ["Additional Experience  2008–2024", "Software Engineer, IBM, 2008–2010"] * 1000,  # group headings
        ["Acme Corp  Berlin, Germany", "CWS builds web applications.", "Engineer  Jan 2023 - Present"] * 666,
        ["Sept. 2018 to", "present", "Apr. 2018 to  Master Thesis", "Sept. 2018  Spain)"] * 500,
    ],
    ids=["pieces", "date cells", "group headings", "employer rows", "broken ranges"],
)
def test_layout31_rules_stay_linear_on_one_crowded_row(texts: list[str]) -> None:
    answer = _one_row(["Experience", *texts])
    started = time.process_time()
    extract(answer, as_of=date(2026, 11, 1))
    assert time.process_time() - started < BUDGET_S


def _page(rows: list[tuple[float, float, str]], *, ocr: bool) -> dict[str, Any]:
    """One page of lines at (x, y), each 10 pt high and 80 pt wide."""
    blocks = [
        {
            "page": 1,
            "bbox": [x, y, x + 80, y + 10],
            "text": t,
            "lines": [{"bbox": [x, y, x + 80, y + 10], "text": t, "size": 9}],
        }
        for x, y, t in rows
    ]
    text = "\n".join(t for _, _, t in rows)
    return {"schema": 3, "kind": "pdf", "text": text, "blocks": blocks, "elements": [], "ocr_used": ocr}


@pytest.mark.parametrize(
    ("rows", "ocr"),
    [
        # layout-41's join of a Chinese row's OCR pieces: 2,000 overlapping pieces of one row
        ([(i % 400, 10, "软件工程师") for i in range(2000)], True),
        # and its Canva rule: 2,000 headings in a row, up and down the page
        ([(20 + 250 * (i % 2), 700 - (i * 37) % 650, "Experience" if i % 2 else "Skills") for i in range(2000)], False),
    ],
    ids=["han row pieces", "headings apart"],
)
def test_layout41_rules_stay_linear(rows: list[tuple[float, float, str]], ocr: bool) -> None:
    answer = _page(rows, ocr=ocr)
    started = time.process_time()
    extract(answer, as_of=date(2026, 11, 1))
    assert time.process_time() - started < BUDGET_S
