"""Change set h52 (layout-26): "Informações Acadêmicas" and "Additional information" are
section headings (a Brazilian sidebar CV's schools were read as roles' text, its contact
lines as languages). docs/extraction.md, "Change set h52 (layout-26)"."""

from __future__ import annotations

from ats.extraction._layout import heading_kind
from ats.extraction.api import extract
from tests.extraction.corpus import AS_OF


def test_academic_information_and_additional_information_are_sections() -> None:
    assert heading_kind("Informações Acadêmicas") == "education"
    assert heading_kind("Academic information") == "education"
    assert heading_kind("Additional information") == "other"
    lines = ["Róger Example", "Experience", "DEVELOPER Feb-2017 - Feb-2019", "Result Informática",
             "Informações Acadêmicas", "Cesumar University", "BACHELOR'S IN SOFTWARE ENGINEERING 2023",
             "Additional information", "Website: https://example.com"]  # fmt: skip
    answer = {"schema": 3, "kind": "docx", "text": "\n".join(lines), "blocks": [], "elements": []}
    found = extract(answer, as_of=AS_OF)
    entries = [v.value for v in found.fields["education_entries"]]
    assert [(e["institution"], e["end"]) for e in entries] == [("Cesumar University", "2023")]
    assert [v.value["employer"] for v in found.fields["work_history"]] == ["Result Informática"]
