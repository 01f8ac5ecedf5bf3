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


def test_skill_keeps_the_cvs_wording_and_the_taxonomy_entry_beside_it() -> None:
    found = _skills("Jane Doe\nSkills\nPostgres, k8s, Apache Maven\n")
    assert set(found) == {"Postgres", "k8s", "Apache Maven"}  # what the CV says, not taxonomy labels
    (pg,) = found["Postgres"]
    assert pg.text == "Postgres"
    assert pg.taxonomy_id == "esco:a8d07b5a-c1a1-42c6-9d53-db9c7a2ca996"  # ESCO's PostgreSQL
    assert pg.taxonomy_label == "PostgreSQL"
    assert (found["k8s"][0].taxonomy_id, found["k8s"][0].taxonomy_label) == ("ats:kubernetes", "Kubernetes")
    assert found["Apache Maven"][0].taxonomy_id.startswith("esco:")  # a row ESCO brought in
    assert pg.to_dict()["taxonomy_id"] == pg.taxonomy_id
    assert pg.to_dict()["taxonomy_label"] == "PostgreSQL"


def test_two_spellings_of_one_skill_are_one_value_in_the_skills_lists_wording() -> None:
    text = (
        "Jane Doe\nExperience\n2019 - 2021 Developer, Acme Software\n• Ran Kubernetes clusters\n"
        "Skills\nK8s, Postgres, PostgreSQL\n"
    )
    found = _skills(text)
    # The skills list's "K8s" wins over the experience line's "Kubernetes"; both lines are its sources.
    assert set(found) == {"K8s", "Postgres"}
    assert [s.rule for s in found["K8s"]] == ["skill.text", "skill.section"]
    assert [s.text for s in found["Postgres"]] == ["Postgres", "PostgreSQL"]


def test_wording_is_whitespace_normalised_and_keeps_its_case() -> None:
    found = _skills("Jane Doe\nSkills\nMACHINE   LEARNING, node.JS\n")
    assert set(found) == {"MACHINE LEARNING", "node.JS"}


def test_aliases_in_several_languages() -> None:
    text = (
        "Jean Dupont\nCompétences\napprentissage profond, gestion de projet, cybersécurité\n"
        "Kenntnisse\nmaschinelles Lernen, Datenanalyse\n"
    )
    found = _skills(text)
    assert {wording: sources[0].taxonomy_label for wording, sources in found.items()} == {
        "apprentissage profond": "Deep Learning",
        "gestion de projet": "Project Management",
        "cybersécurité": "Cybersecurity",
        "maschinelles Lernen": "Machine Learning",
        "Datenanalyse": "Data Analysis",
    }


def test_linguist_languages_count_in_a_skills_list_but_not_in_prose() -> None:
    skills = _skills("Jane Doe\nSkills\nZig, Nim, SystemVerilog, OCaml\n")
    assert {w: s[0].taxonomy_id for w, s in skills.items()} == {
        "Zig": "ats:zig", "Nim": "ats:nim", "SystemVerilog": "ats:systemverilog", "OCaml": "ats:ocaml"
    }  # fmt: skip
    prose = "Jane Doe\nExperience\n2019 - 2021 Developer, Acme Software\n• Ported the Nim tooling to Zig\n"
    assert _skills(prose) == {}
    # English words that name a language elsewhere are left out of the vocabulary (a list
    # keeps them as unlinked items, never linked to a language).
    words = _skills("Jane Doe\nSkills\nClean, Red, Self, Ring\n")
    assert {s[0].taxonomy_id for s in words.values()} == {None}


def test_an_esco_tool_that_is_also_a_word_counts_only_in_a_skills_section() -> None:
    text = "Jane Doe\nExperience\n2019 - 2021 Developer, Acme Software\n• Wrote less code, used Eclipse less\n"
    assert not {"LESS", "less", "Eclipse"} & set(_skills(text))
    assert "LESS" in _skills("Jane Doe\nSkills\nLESS, Sass\n")


def test_a_skill_in_the_skills_section_and_in_experience_is_one_value_with_both_sources() -> None:
    text = "Jane Doe\nSkills\nPython, Docker\nExperience\n2019 - 2021 Developer, Acme Software\n• Python services\n"
    sources = _skills(text)["Python"]
    assert [s.rule for s in sources] == ["skill.section", "skill.text"]


def test_taxonomy_is_versioned_and_well_formed() -> None:
    version = _lexicon.taxonomy_version()
    assert EXTRACTOR_VERSION.endswith(f"+skills-{version}")
    ids = skill_taxonomy_ids()
    assert len(ids) > 650
    for name, taxonomy_id in ids.items():
        assert "(" not in name, name  # the CV's kind of name, never an ESCO label's qualifier
        assert re.fullmatch(r"esco:[0-9a-f-]{36}|ats:\S+", taxonomy_id), (name, taxonomy_id)
    assert sum(t.startswith("esco:") for t in ids.values()) > 100


def test_larger_vocabulary_stays_linear_on_100k_tokens() -> None:
    line = ", ".join(["Kubernetes", "machine", "learning", "Apache", "x" * 30] * 20_000)
    t0 = time.process_time()  # CPU seconds: the wall clock moves with the load
    ex = extract({"text": "Skills\n" + line[:2000] + "\n" + ("Apache Maven " * 100_000)}, as_of=AS_OF)
    assert time.process_time() - t0 < 5.0
    assert "Kubernetes" in ex.values("skills")


def test_unlinked_items_of_a_skills_list_are_kept_without_a_taxonomy_id() -> None:
    text = (
        "Jane Doe\nSkills\nDistributed: Erasure coding, Consensus, Go\n• GnuCash\n• Inkscape\n\n"
        "Creating pieces of Art and visiting Modern Art galleries.\nDriving licence\nA, B\n"
    )
    found = _skills(text)
    # No category label, no prose, no "A", "B"; "Inkscape" may run on into the prose line after it.
    assert set(found) == {"Erasure coding", "Consensus", "Go", "GnuCash"}
    (item,) = found["Erasure coding"]
    assert (item.rule, item.taxonomy_id, item.taxonomy_label) == ("skill.list_item", None, None)
    assert found["Go"][0].taxonomy_id == "ats:go"
    # Outside a skills section a list is not read this way.
    assert _skills("Jane Doe\nInterests\nErasure coding, Consensus\n") == {}


def test_an_item_a_line_break_may_have_cut_is_left_out() -> None:
    found = _skills("Jane Doe\nSkills\nScheduling, Vendor\nnegotiation, Team training\n")
    assert "Scheduling" in found and "Team training" in found
    assert not {"Vendor", "negotiation", "Vendor negotiation"} & {w for w in found if not found[w][0].taxonomy_id}


def test_eval_compares_skills_as_taxonomy_concepts_or_by_wording() -> None:
    from ats.extraction import eval as evaluation

    tally = evaluation.compare(
        "skills", ["k8s", "Postgres", "Erasure coding"], ["Kubernetes", "PostgreSQL", "erasure coding"]
    )
    assert (tally.tp, tally.predicted, tally.truth) == (3, 3, 3)
    # A part of a label is no match, and neither is a different entry.
    tally = evaluation.compare("skills", ["Looker", "Java"], ["Looker Studio", "JavaScript"])
    assert tally.tp == 0


def test_unlinked_items_stay_bounded_on_a_hostile_list_line() -> None:
    line = ", ".join(f"item{i} thing" for i in range(200_000))  # ~3 MB of list items
    t0 = time.process_time()  # CPU seconds: the wall clock moves with the load
    ex = extract({"text": "Skills\n" + line + "\n"}, as_of=AS_OF)
    assert time.process_time() - t0 < 5.0
    assert len(ex.values("skills")) <= 40


def test_taxonomy_5_knows_the_tools_unseen_cvs_list() -> None:
    # development batch v16 (layout-39): tools its CVs' skills lists name that version 4 lacked
    found = _skills("Jane Doe\nSkills\nSupabase, Electron, Terragrunt, Neo4j, Okta, SVN, Amazon CloudWatch\n")
    ids = {value: sources[0].taxonomy_id for value, sources in found.items()}
    assert ids == {
        "Supabase": "ats:supabase",
        "Electron": "ats:electron",
        "Terragrunt": "ats:terragrunt",
        "Neo4j": "ats:neo4j",
        "Okta": "ats:okta",
        "SVN": "ats:subversion",
        "Amazon CloudWatch": "ats:cloudwatch",
    }
    # the ones that are also words count only in a skills section
    prose = (
        "Jane Doe\nExperience\n2019 - 2021 Developer, Acme Software\n• Used Slack and Notion; an electron microscope\n"
    )
    assert not {"Slack", "Notion", "electron"} & set(_skills(prose))
