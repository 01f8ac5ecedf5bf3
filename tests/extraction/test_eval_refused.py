"""A document the parser refuses is measured as what the recruiter gets from it - no fields -
not dropped from the evaluation (a 26-page academic CV in held-out v6 is over the limit)."""

from __future__ import annotations

import pymupdf

from ats.extraction import eval as evaluation
from ats.parsing.api import DEFAULT_LIMITS


def _long_pdf() -> bytes:
    doc = pymupdf.open()
    for i in range(DEFAULT_LIMITS.max_pages + 1):
        doc.new_page().insert_text((72, 72), f"Ana Quintero - page {i + 1}\nana@example.org", fontsize=12)
    return bytes(doc.tobytes())


def test_a_refused_document_is_scored_as_empty_and_counted() -> None:
    data = _long_pdf()
    answer = evaluation.parse_answer("pdf", data)
    assert answer["refused"] == "too_many_pages" and answer["blocks"] == []
    entry = {"id": "long", "half": "heldout", "layout": "latex_x", "locale": "en_GB", "source": "real_document",
             "truth": {"name": "Ana Quintero", "emails": ["ana@example.org"]}}  # fmt: skip
    report = evaluation.run([(entry, "pdf", data)], halves=("heldout",), cache=False)
    held = report["extractor"]["heldout"]
    assert held["refused"] == 1 and held["cvs"] == 1
    assert held["fields"]["name"]["exact"] == 0.0 and held["fields"]["emails"]["recall"] == 0.0
    assert "1 refused by the parser" in evaluation.format_table(report)


def test_education_lines_are_matched_one_to_one_at_most_not_in_set_order() -> None:
    """A greedy pass matched "b" to the first line holding it and left "a b" unmatched, or not,
    by the sets' iteration order: the same answers scored differently between runs."""
    from ats.extraction.eval import _education_match

    assert _education_match({"a b c", "b x"}, {"a b", "b"}) == 2
    assert _education_match({"msc physics", "bsc physics"}, {"physics"}) == 1
