"""Skills linked to a versioned taxonomy (ESCO ids where ESCO has the skill)."""

from __future__ import annotations

import re
import time
from datetime import date

from ats.extraction import _lexicon
from ats.extraction.api import EXTRACTOR_VERSION, extract, skill_taxonomy_ids

AS_OF = date(2026, 12, 1)


def _skills(text: str) -> dict[str, list]:
    ex = extract({"text": text}, as_of=AS_OF)
    return {fv.value: list(fv.sources) for fv in ex.fields.get("skills", ())}


def test_skill_keeps_the_cvs_wording_in_its_source_and_the_taxonomy_id_beside_it() -> None:
    found = _skills("Jane Doe\nSkills\nPostgres, k8s, Apache Maven\n")
    assert set(found) == {"PostgreSQL", "Kubernetes", "Apache Maven"}
    (pg,) = found["PostgreSQL"]
    assert pg.text == "Postgres"  # what the CV says
    assert pg.taxonomy_id == "esco:a8d07b5a-c1a1-42c6-9d53-db9c7a2ca996"  # ESCO's PostgreSQL
    assert found["Kubernetes"][0].taxonomy_id == "ats:kubernetes"  # not in ESCO's tool list
    assert found["Apache Maven"][0].taxonomy_id.startswith("esco:")  # a row ESCO brought in
    assert pg.to_dict()["taxonomy_id"] == pg.taxonomy_id


def test_aliases_in_several_languages() -> None:
    text = (
        "Jean Dupont\nCompétences\napprentissage profond, gestion de projet, cybersécurité\n"
        "Kenntnisse\nmaschinelles Lernen, Datenanalyse\n"
    )
    assert set(_skills(text)) == {
        "Deep Learning",
        "Project Management",
        "Cybersecurity",
        "Machine Learning",
        "Data Analysis",
    }


def test_an_esco_tool_that_is_also_a_word_counts_only_in_a_skills_section() -> None:
    text = "Jane Doe\nExperience\n2019 - 2021 Developer, Acme Software\n• Wrote less code, used Eclipse less\n"
    assert "LESS" not in _skills(text)
    assert "LESS" in _skills("Jane Doe\nSkills\nLESS, Sass\n")


def test_a_skill_in_the_skills_section_and_in_experience_is_one_value_with_both_sources() -> None:
    text = "Jane Doe\nSkills\nPython, Docker\nExperience\n2019 - 2021 Developer, Acme Software\n• Python services\n"
    sources = _skills(text)["Python"]
    assert [s.rule for s in sources] == ["skill.section", "skill.text"]


def test_taxonomy_is_versioned_and_well_formed() -> None:
    version = _lexicon.taxonomy_version()
    assert EXTRACTOR_VERSION.endswith(f"+skills-{version}")
    ids = skill_taxonomy_ids()
    assert len(ids) > 250
    for name, taxonomy_id in ids.items():
        assert "(" not in name, name  # the CV's kind of name, never an ESCO label's qualifier
        assert re.fullmatch(r"esco:[0-9a-f-]{36}|ats:\S+", taxonomy_id), (name, taxonomy_id)
    assert sum(t.startswith("esco:") for t in ids.values()) > 100


def test_larger_vocabulary_stays_linear_on_100k_tokens() -> None:
    line = ", ".join(["Kubernetes", "machine", "learning", "Apache", "x" * 30] * 20_000)
    t0 = time.perf_counter()
    ex = extract({"text": "Skills\n" + line[:2000] + "\n" + ("Apache Maven " * 100_000)}, as_of=AS_OF)
    assert time.perf_counter() - t0 < 5.0
    assert "Kubernetes" in ex.values("skills")
