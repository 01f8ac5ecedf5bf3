"""The accuracy gate: the extractor on the evaluation corpus, beside the naive baseline.

Same run as `just eval-extraction`, but the development half's scans of corpus v2's
documents are left out (evaluation.gate_corpus): every other corpus CV is parsed by the
real parser (OCR included; answers cached by document and parser-code hash), validated
as the trusted side does, then extracted. The held-out half (corpus v2, tests/extraction/heldout) must
meet the floors the suite enforces (ats.extraction.eval.RATCHET); the issue's targets
(TARGETS) are reported beside them, not enforced until the extractor meets them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from ats.extraction import eval as evaluation

# A cold answer cache (a parser change, a new machine) parses the gate's corpus
# (evaluation.gate_corpus: ~1,300 documents, ~130 of them scans) in parallel
# (evaluation.prefetch); the whole corpus with its ~800 development scans no longer fits a
# CI run. The test's budget is the CI run's, not a fraction of it. Cached runs take a
# minute or two.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(4800)]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return evaluation.run(evaluation.gate_corpus())


def test_heldout_meets_every_floor_the_suite_enforces(report: dict[str, Any]) -> None:
    # Only the failing floors, not the report's table: whoever runs the suite while tuning
    # reads no more of the held-out half than the gate's verdict (a printed table is a
    # reading - docs/extraction.md, change set h48). `just eval-extraction` prints it all.
    heldout = report["extractor"]["heldout"]
    assert heldout["floor_failures"] == []
    assert report["passed"] is True


def test_heldout_is_at_least_sixty_cvs_half_of_them_written_by_others(report: dict[str, Any]) -> None:
    heldout = report["extractor"]["heldout"]
    assert heldout["cvs"] >= 60
    assert 2 * heldout["real_cvs"] >= heldout["cvs"]
    # Held-out v6 has real documents and generated CVs; real contents are development only.
    assert {"real_document", "generated"} <= set(heldout["sources"])


def test_the_v1_corpus_is_still_read_right(report: dict[str, Any]) -> None:
    """The v1 corpus (now development) measured 1.000 on names and e-mails with layout-2:
    a change that loses them is a regression, whatever it gains elsewhere."""
    sources = report["extractor"]["development"]["sources"]
    for source in ("v1_generated", "v1_hand"):
        assert sources[source]["fields"]["name"]["exact"] == 1.0, source
        assert sources[source]["fields"]["emails"]["f1"] == 1.0, source
    assert report["extractor"]["heldout"]["provenance"] == 1.0


# Held-out v10's readings had the extractor's e-mail F1 under the naive reader's (0.933 vs
# 0.940, layout-23/24), a margin of 0.01 recorded then. Held-out v11's (layout-29 and
# layout-30, docs/extraction.md): 0.960 against the naive reader's 0.934 - the margin is
# gone, and it is never widened again. Held-out v12's (layout-32, layout-33 and layout-34):
# 0.929 against 0.858.
HELDOUT_NAIVE_MARGIN: dict[str, float] = {}


def test_extractor_beats_the_naive_baseline(report: dict[str, Any]) -> None:
    for half in ("development", "heldout"):
        ours, naive = report["extractor"][half], report["naive"][half]
        margin = HELDOUT_NAIVE_MARGIN if half == "heldout" else {}
        assert ours["floor_metrics"]["name"] > naive["floor_metrics"]["name"]
        for name in ("emails", "phones", "skills", "years_experience"):
            assert ours["floor_metrics"][name] >= naive["floor_metrics"][name] - margin.get(name, 0.0), (half, name)


def test_every_layout_language_and_field_is_reported(report: dict[str, Any]) -> None:
    for half in ("development", "heldout"):
        summary = report["extractor"][half]
        assert len(summary["languages"]) >= 6
        assert {"work_history", "education_entries"} <= set(summary["fields"])
    development = report["extractor"]["development"]
    assert {"single_column", "sidebar", "contact_line", "title_above", "docx_table", "docx_header",
            "scan_150", "scan_300"} <= set(development["layouts"])  # fmt: skip
    # Held-out groups never name one or two files (their misses would be read): every
    # group has at least MIN_HELDOUT_GROUP CVs, and together they hold every CV.
    heldout = report["extractor"]["heldout"]
    for key in ("layouts", "languages", "sources"):
        groups = heldout[key]
        assert all(g["cvs"] >= evaluation.MIN_HELDOUT_GROUP for g in groups.values()), (key, groups.keys())
        assert sum(g["cvs"] for g in groups.values()) == heldout["cvs"], key
    assert {"scan_150", "scan_300"} <= set(heldout["layouts"])
    # Keys scripts read before issue 25 are still there.
    assert {"floors", "scan_gap", "timing_s", "passed", "extractor", "naive"} <= set(report)
    assert {"fields", "floor_metrics", "provenance", "layouts", "errors", "floor_failures"} <= set(
        report["extractor"]["heldout"]
    )


def test_a_failing_floor_fails_the_gate() -> None:
    # The gate can fail: with no CVs, no floor is met.
    failures = evaluation.check_floors([], evaluation.TARGETS)
    assert any("name" in f for f in failures)


def test_a_small_pool_of_held_out_groups_takes_the_smallest_group_in() -> None:
    # Held-out v24's languages: the groups under 5 CVs pooled to 4, a row that names too few
    # files; the smallest group (the first by name among equals) joins the pool.
    label = dict(enumerate(["ja", "ko", "ko", "nl", *["de"] * 5, *["it"] * 5, *["en"] * 9]))
    pooled = evaluation._pooled(label)
    sizes = Counter(pooled.values())
    assert sizes == {evaluation.POOLED: 9, "it": 5, "en": 9}
    assert all(n >= evaluation.MIN_HELDOUT_GROUP for n in sizes.values())
