"""How the candidate page words provenance, values and pair evidence (pure helpers)."""

from __future__ import annotations

from typing import Any

import pytest

from ats.web import pages


def test_where_names_page_and_box_or_docx_part_and_index() -> None:
    assert pages._where({"page": 2, "bbox": [10.2, 20.7, 200.0, 34.0]}) == "page 2 box 10, 21, 200, 34"
    assert pages._where({"page": 1, "bbox": None}) == "page 1"
    assert pages._where({"page": None, "part": "header", "index": 0}) == "header #0"
    assert pages._where({"page": None, "part": None, "index": 3}) == "body #3"
    assert pages._where({"rule": "recruiter.edit"}) == ""


def test_values_and_edit_text_round_trip_what_parse_edit_reads() -> None:
    links = [{"kind": "github", "url": "https://github.com/jane"}, {"kind": "website", "url": "https://j.example"}]
    assert pages._values_text(links) == ["github: https://github.com/jane", "website: https://j.example"]
    assert pages._edit_text(links) == "https://github.com/jane, https://j.example"
    assert pages._edit_text(7.0) == "7" and pages._values_text(7.5) == ["7.5"]
    assert pages._edit_text(None) == "" and pages._values_text(None) == []
    education = [{"degree": "MSc", "institution": "UCL", "year": None}]
    assert pages._values_text(education) == ["degree: MSc, institution: UCL"]
    assert pages._edit_text(education).startswith('[{"degree": "MSc"')


def test_evidence_in_words() -> None:
    pair = {
        "evidence": [
            {"signal": "name", "a": "Zofia Kowalska", "b": "Zofia Kowalski", "score": 92.9},
            {"signal": "location", "value": "krakow"},
            {"signal": "skills", "value": ["Python", "SQL", "Kubernetes"]},
        ]
    }
    assert pages._evidence(pair) == [
        "name: Zofia Kowalska / Zofia Kowalski (similarity 92.9)",
        "location: krakow",
        "skills: Python, SQL, Kubernetes",
    ]
    assert pages._evidence({"evidence": None}) == []


def test_work_history_edit_keeps_entries_as_objects() -> None:
    from ats.candidates import fields

    entry = {"employer": "Acme", "title": "Engineer", "location": None, "start": "2019-03", "end": "present"}
    assert fields.parse_edit("work_history", pages._edit_text([entry])) == [entry]
    with pytest.raises(ValueError, match="JSON list of objects"):
        fields.parse_edit("work_history", "Engineer at Acme")


def test_an_entrys_lines_on_one_page_are_one_source_lighting_up_their_box() -> None:
    # A role read from its employer's line, its title's and its dates' showed the same link
    # and "Show on page 2" three times (the newcomer's candidate page, stop 48).
    def src(page: int, bbox: str, text: str, rule: str, doc: int = 7) -> dict[str, Any]:
        # as the page builds it: the stored box, and source_box's formatted copy of it
        stored = [float(x) for x in bbox.split(",")]
        return {"attachment_id": doc, "bbox": stored, "show": {"page": page, "bbox": bbox}, "text": text, "rule": rule}

    merged = pages._one_box_per_page(
        [
            src(2, "40.00,22.00,96.00,36.00", "airSlate, Inc.  Kyiv, Ukraine", "work_history.entry"),
            src(2, "40.00,38.00,126.00,49.00", "DIRECTOR OF ENGINEERING", "work_history.entry"),
            src(2, "496.00,38.00,556.00,49.00", "Dec. 2021 - Present", "work_history.dates"),
            src(3, "40.00,10.00,90.00,20.00", "continued", "work_history.entry"),
            {"attachment_id": 7, "show": None, "text": "a DOCX part", "rule": "work_history.entry"},
        ]
    )
    assert [m["show"]["page"] if m["show"] else None for m in merged] == [2, 3, None]
    assert merged[0]["show"]["bbox"] == "40.00,22.00,556.00,49.00"
    assert merged[0]["text"] == "airSlate, Inc.  Kyiv, Ukraine / DIRECTOR OF ENGINEERING / Dec. 2021 - Present"
    assert merged[0]["rule"] == "work_history.entry, work_history.dates"
