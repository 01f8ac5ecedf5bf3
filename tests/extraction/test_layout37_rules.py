"""Change set layout-37 (stop 51): what the development half's scans in other scripts showed
once the parser read them in their own script (docs/extraction.md). Each test fails on
layout-36."""

# ruff: noqa: RUF001 - CJK list punctuation is what these tests are about

from __future__ import annotations

from ats.extraction.api import extract
from tests.extraction.answers import rows_answer
from tests.extraction.corpus import AS_OF


def _skills(rows: list[tuple[tuple[float, float, float, float], str, float]]) -> list[str]:
    found = extract(rows_answer(rows, ocr=True), as_of=AS_OF).fields.get("skills", ())
    return [str(v.value) for v in found]


def test_a_japanese_skills_list_splits_on_the_ideographic_comma() -> None:
    rows = [
        ((72, 60, 200, 80), "渡邊朝太", 20.0),
        ((72, 100, 200, 114), "スキル", 12.0),
        ((72, 120, 520, 132), "Java、Dart、JavaScript、SQL、C", 10.0),
        ((72, 136, 520, 148), "Django、FastAPI、Flutter、Firebase", 10.0),
    ]
    skills = _skills(rows)
    for skill in ("Java", "Dart", "JavaScript", "SQL", "Django", "FastAPI", "Flutter", "Firebase"):
        assert skill in skills, skills


def test_a_chinese_skills_list_splits_on_the_full_width_comma() -> None:
    rows = [
        ((72, 60, 200, 80), "王小明", 20.0),
        ((72, 100, 200, 114), "专业技能", 12.0),
        ((72, 120, 520, 132), "Python，Django，PostgreSQL；Kubernetes", 10.0),
    ]
    skills = _skills(rows)
    for skill in ("Python", "Django", "PostgreSQL", "Kubernetes"):
        assert skill in skills, skills
