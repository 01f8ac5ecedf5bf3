"""`ats candidate ...`: the contract's commands, keys and exits.

The commands run in the test process (tests/conftest.py run_ats_in_process): about twenty
calls, each a Python + Django start as a subprocess, made this module time out at 300 s on
a loaded machine. One call goes through the real process and must print the same JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ats.candidates import api as candidates_api
from tests.candidates.helpers import attachment_id, extraction
from tests.conftest import run_ats, run_ats_in_process

pytestmark = pytest.mark.django_db(transaction=True)

SHOW_KEYS = {
    "id",
    "name",
    "emails",
    "phones",
    "links",
    "location",
    "skills",
    "years_experience",
    "provenance",
    "duplicates",
    "documents",
    "extraction_version",
    "edited_fields",
    "proposed_changes",
}
PROVENANCE_KEYS = {"name", "emails", "phones", "links", "location", "skills", "years_experience"}


def new(**kw: Any) -> tuple[int, int]:
    att = attachment_id()
    c = candidates_api.candidate_apply_document(attachment_id=att, parse_attempt=1, extraction=extraction(**kw))
    assert c is not None
    return c.id, att


def ok(res: Any) -> Any:
    assert res.returncode == 0, res.stderr + res.stdout
    return json.loads(res.stdout)


@pytest.fixture
def ats_cli() -> Any:
    return run_ats_in_process


def test_show_json_contract(ats_cli: Any, stack_env: dict[str, str]) -> None:
    cid, att = new(
        name="Zoë Müller",
        emails=("zoe@example.org",),
        phones=("+442079460000",),
        links=("https://github.com/zoe",),
        location="Berlin",
        skills=("PostgreSQL",),
        years=6,
    )
    other, _ = new(name="Zoe Muller", emails=("zoe@example.org",))
    candidates_api.candidate_dedupe(candidate_id=other)
    d = ok(ats_cli("candidate", "show", str(cid), "--json"))
    assert set(d) >= SHOW_KEYS and set(d["provenance"]) >= PROVENANCE_KEYS
    assert d["id"] == cid and d["name"] == "Zoë Müller" and d["emails"] == ["zoe@example.org"]
    assert d["phones"] == ["+442079460000"] and d["links"] == [{"kind": "linkedin", "url": "https://github.com/zoe"}]
    assert d["location"] == "Berlin" and d["skills"] == ["PostgreSQL"] and d["years_experience"] == 6
    for field in PROVENANCE_KEYS:
        assert d["provenance"][field], field
        for p in d["provenance"][field]:
            assert {"attachment_id", "parse_attempt", "page", "text", "rule", "extractor_version"} <= set(p)
            assert p["attachment_id"] == att and ("bbox" in p or {"part", "index"} <= set(p))
    [dup] = d["duplicates"]
    assert set(dup) >= {"pair_id", "other_candidate_id", "kind", "score", "reason"}
    assert dup["other_candidate_id"] == other and dup["kind"] == "same_person"
    assert d["documents"] == [att] and d["extraction_version"] == 1
    assert d["edited_fields"] == [] and d["proposed_changes"] == []
    assert ok(run_ats(stack_env, "candidate", "show", str(cid), "--json")) == d  # the process says the same
    text = ats_cli("candidate", "show", str(cid))
    assert text.returncode == 0 and "rule name.top_block" in text.stdout
    missing = ats_cli("candidate", "show", "999999999", "--json")
    assert missing.returncode != 0 and "does not exist" in missing.stderr


def test_list_search_edit_merge_unmerge(ats_cli: Any) -> None:
    a, _ = new(name="Ada Lovelace", emails=("ada@engine.example",), skills=("Mathematics",))
    b, _ = new(name="Charles Babbage", emails=("cb@engine.example",), skills=("Kubernetes",))
    listed = ok(ats_cli("candidate", "list", "--json"))
    assert {r["id"] for r in listed} >= {a, b}
    assert [r["id"] for r in ok(ats_cli("candidate", "list", "--search", "lovel", "--json"))] == [a]
    assert [r["id"] for r in ok(ats_cli("candidate", "list", "--search", "kubern", "--json"))] == [b]
    assert [r["id"] for r in ok(ats_cli("candidate", "list", "--search", "cb@engine", "--json"))] == [b]
    assert ok(ats_cli("candidate", "list", "--search", "100%_", "--json")) == []

    res = ats_cli("candidate", "edit", str(a), "--field", "name", "--value", "Augusta Ada King")
    assert res.returncode == 0, res.stderr
    d = ok(ats_cli("candidate", "show", str(a), "--json"))
    assert d["name"] == "Augusta Ada King" and d["edited_fields"] == ["name"]
    assert d["provenance"]["name"][0]["edited_by"] == "cli:system"

    merged = ok(ats_cli("candidate", "merge", str(a), str(b), "--json"))
    assert set(merged) >= {"merge_id"}
    d = ok(ats_cli("candidate", "show", str(a), "--json"))
    assert len(d["documents"]) == 2 and sorted(d["skills"]) == ["Kubernetes", "Mathematics"]
    assert ok(ats_cli("candidate", "show", str(b), "--json"))["merged_into"] == a
    assert [r["id"] for r in ok(ats_cli("candidate", "list", "--search", "engine", "--json"))] == [a]
    again = ats_cli("candidate", "merge", str(a), str(b), "--json")
    assert again.returncode != 0 and f"merged into {a}" in again.stderr

    res = ats_cli("candidate", "unmerge", str(merged["merge_id"]))
    assert res.returncode == 0, res.stderr
    assert ok(ats_cli("candidate", "show", str(b), "--json"))["merged_into"] is None
    assert ok(ats_cli("candidate", "show", str(a), "--json"))["skills"] == ["Mathematics"]
    bad = ats_cli("candidate", "edit", str(a), "--field", "salary", "--value", "1")
    assert bad.returncode != 0 and "unknown field" in bad.stderr
