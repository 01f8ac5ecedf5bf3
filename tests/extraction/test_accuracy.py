"""The accuracy gate: the extractor on the evaluation corpus, beside the naive baseline.

Same run as `just eval-extraction`: every corpus CV is rendered, parsed by the real
parser (OCR included), validated as the trusted side does, then extracted. The held-out
half must meet the floors fixed with the corpus (ats.extraction.eval.FLOORS).
"""

from __future__ import annotations

from typing import Any

import pytest

from ats.extraction import eval as evaluation

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return evaluation.run()


def test_heldout_meets_every_floor(report: dict[str, Any]) -> None:
    heldout = report["extractor"]["heldout"]
    assert heldout["floor_failures"] == [], evaluation.format_table(report)
    assert report["passed"] is True


def test_every_digital_layout_is_read_right(report: dict[str, Any]) -> None:
    """Beyond the floors: on documents with a text layer nothing depends on OCR, so every
    held-out name and address is right (measured: 1.000 in every layout, docs/extraction.md)."""
    heldout = report["extractor"]["heldout"]
    assert heldout["provenance"] == 1.0
    for layout, summary in heldout["layouts"].items():
        if not layout.startswith("scan_"):
            assert summary["fields"]["name"]["exact"] == 1.0, layout
            assert summary["fields"]["emails"]["f1"] == 1.0, layout


def test_extractor_beats_the_naive_baseline(report: dict[str, Any]) -> None:
    for half in ("development", "heldout"):
        ours, naive = report["extractor"][half], report["naive"][half]
        assert ours["floor_metrics"]["name"] > naive["floor_metrics"]["name"]
        for name in ("emails", "phones", "skills", "years_experience"):
            assert ours["floor_metrics"][name] >= naive["floor_metrics"][name]


def test_every_layout_is_measured_in_both_halves(report: dict[str, Any]) -> None:
    for half in ("development", "heldout"):
        layouts = report["extractor"][half]["layouts"]
        assert {"single_column", "sidebar", "contact_line", "title_above", "docx_table", "docx_header",
                "scan_150", "scan_300"} <= set(layouts)  # fmt: skip


def test_a_failing_floor_fails_the_gate() -> None:
    # The gate can fail: the naive baseline, scored the same way, is far below the floors.
    failures = evaluation.check_floors([])
    assert any("name" in f for f in failures)
