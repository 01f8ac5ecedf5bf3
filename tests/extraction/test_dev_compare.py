"""scripts/dev_compare.py: two extractors side by side on the development half, per CV and
field - what a change set did before the held-out half is read once (issue 25)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from ats.extraction.api import EXTRACTOR_VERSION

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "dev_compare.py"
_spec = importlib.util.spec_from_file_location("dev_compare", SCRIPT)
assert _spec is not None and _spec.loader is not None
dev_compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev_compare)


def test_a_field_is_better_or_worse_by_how_far_it_is_from_right() -> None:
    before = {"a": {"name": [0, 1, 1], "skills": [3, 5, 4]}, "b": {"emails": [1, 1, 1], "years_experience": [0, 0, 0]}}
    after = {"a": {"name": [1, 1, 1], "skills": [3, 6, 4]}, "b": {"emails": [1, 1, 1], "years_experience": [0, 1, 0]}}
    assert dev_compare.changes(before, after) == [
        ("better", "a", "name", [0, 1, 1], [1, 1, 1]),
        ("worse", "a", "skills", [3, 5, 4], [3, 6, 4]),  # one value more that the label lacks
        ("worse", "b", "years_experience", [0, 0, 0], [0, 1, 0]),  # a figure where the label has none
    ]
    # same distance from right, other counts: changed, neither better nor worse
    assert dev_compare.changes({"c": {"skills": [2, 4, 3]}}, {"c": {"skills": [3, 4, 5]}})[0][0] == "changed"


def test_metrics_are_the_evals_exact_share_and_f1() -> None:
    t = {"a": {"name": [1, 1, 1], "skills": [2, 4, 2]}, "b": {"name": [0, 1, 1], "skills": [2, 2, 4]}}
    assert dev_compare.metric(t, ["a", "b"], "name", "exact") == 0.5
    assert dev_compare.metric(t, ["a", "b"], "skills", "f1") == 4 / 6  # P 4/6, R 4/6
    assert dev_compare.metric(t, ["a"], "work_history", "f1") is None


@pytest.mark.slow  # two extractor processes and a git archive: ~12 s
def test_this_tree_against_its_own_head_changes_nothing(tmp_path: Path) -> None:
    # the whole path: git archive of HEAD's shared/, two child processes, this tree's scoring
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--base", "HEAD", "--limit", "4", "--no-scans"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "4 development CVs: 0 field-CVs better, 0 worse, 0 changed" in done.stdout
    assert "| all | 4 |" in done.stdout
    # both sides ran an extractor, the ref's from its own archive: HEAD's is this tree's
    assert f"extractor before {EXTRACTOR_VERSION}, after {EXTRACTOR_VERSION}" in done.stdout


def test_only_keeps_the_cvs_whose_id_matches_and_parses_no_other(monkeypatch: pytest.MonkeyPatch) -> None:
    from ats.extraction import eval as ev

    rows = [
        ({"id": "wli-zh", "half": "development", "layout": "latex"}, "pdf", b"a"),
        ({"id": "wli-zh-scan150", "half": "development", "layout": "scan_150"}, "pdf", b"b"),
        ({"id": "jdoe-en", "half": "development", "layout": "latex"}, "pdf", b"c"),
    ]
    parsed: list[bytes] = []
    monkeypatch.setattr(ev, "load_corpus", lambda halves, **_: rows)
    monkeypatch.setattr(ev, "parse_answer", lambda kind, data, cache: parsed.append(data) or {"text": ""})
    got = dev_compare._answers(None, scans=True, only="-zh")
    assert [entry["id"] for entry, _ in got] == ["wli-zh", "wli-zh-scan150"]
    assert parsed == [b"a", b"b"]
    assert [entry["id"] for entry, _ in dev_compare._answers(None, scans=False, only="-zh")] == ["wli-zh"]
