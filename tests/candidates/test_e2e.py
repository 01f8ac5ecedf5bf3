"""Through real processes: `ats ingest --wait --json` -> workers -> `ats candidate show`;
a byte-identical duplicate reports the original's candidate; a second CV of the same
person gets a duplicate pair; a re-parse after a recruiter edit keeps the edit and
records a proposed change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ats.intake import api as intake_api
from tests import corpus
from tests.jobs.helpers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _ingest(ats_cli: Any, *paths: Path) -> list[dict[str, Any]]:
    res = ats_cli("ingest", "--wait", "--json", "--timeout", "90", *map(str, paths), timeout=150)
    assert res.returncode == 0, res.stderr + res.stdout
    return [json.loads(line) for line in res.stdout.splitlines()]


def _show(ats_cli: Any, cid: int) -> dict[str, Any]:
    res = ats_cli("candidate", "show", str(cid), "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_ingest_show_duplicate_pair_and_reparse(stack: Any, ats_cli: Any, tmp_path: Path) -> None:
    first, again, second = tmp_path / "cv.pdf", tmp_path / "cv-again.pdf", tmp_path / "cv-2pages.pdf"
    first.write_bytes(corpus.text_pdf())
    again.write_bytes(corpus.text_pdf())
    second.write_bytes(corpus.text_pdf(pages=2))
    # Ingested together, either may be checked first: the first committed is the original.
    original, duplicate = sorted(_ingest(ats_cli, first, again), key=lambda r: r["state"] == "duplicate")
    assert original["state"] == "candidate_created" and duplicate["state"] == "duplicate", (original, duplicate)
    assert original["candidate_id"] and duplicate["candidate_id"] == original["candidate_id"]
    cid = original["candidate_id"]

    d = _show(ats_cli, cid)
    assert d["name"] == corpus.CANDIDATE_NAME and d["emails"] == [corpus.CANDIDATE_EMAIL]
    assert d["documents"] == [original["attachment_id"]] and d["extraction_version"] == 1
    for field in ("name", "emails"):
        [p] = d["provenance"][field]
        assert p["attachment_id"] == original["attachment_id"] and p["parse_attempt"] == 1 and p["rule"]

    [row] = _ingest(ats_cli, second)
    other = row["candidate_id"]
    if other == cid:
        # The automatic merge (below) already ran before `--wait` read the document: its
        # candidate is the merged-away side of that merge.
        [m] = [m for m in _show(ats_cli, cid)["merges"] if m["automatic"] and not m["undone"]]
        other = m["merged"]
    assert row["state"] == "candidate_created" and other and other != cid
    # The shared e-mail makes a same-person pair; it is merged automatically only when the
    # extractor places that e-mail in each CV's own contact block (the naive one does not).
    dup = wait_for(lambda: _show(ats_cli, cid)["duplicates"], 30, "the duplicate pair")
    assert [(x["other_candidate_id"], x["kind"]) for x in dup] == [(other, "same_person")]
    assert corpus.CANDIDATE_EMAIL in dup[0]["reason"] and dup[0]["status"] in ("open", "merged")

    # Merge (by hand, or the automatic one) and unmerge: intake's pointer follows both ways.
    def holder(att: int) -> int | None:
        return intake_api.Attachment.objects.get(pk=att).candidate_id

    merges = _show(ats_cli, cid)["merges"]
    if merges:
        merge_id = merges[0]["merge_id"]
    else:
        res = ats_cli("candidate", "merge", str(cid), str(other), "--json")
        assert res.returncode == 0, res.stderr
        merge_id = json.loads(res.stdout)["merge_id"]
    assert holder(row["attachment_id"]) == cid and len(_show(ats_cli, cid)["documents"]) == 2
    res = ats_cli("candidate", "unmerge", str(merge_id))
    assert res.returncode == 0, res.stderr
    assert holder(row["attachment_id"]) == other and holder(original["attachment_id"]) == cid
    assert _show(ats_cli, other)["documents"] == [row["attachment_id"]]

    res = ats_cli("candidate", "edit", str(cid), "--field", "name", "--value", "Jane Q. Doe")
    assert res.returncode == 0, res.stderr
    res = ats_cli("reparse", str(original["attachment_id"]))
    assert res.returncode == 0, res.stderr
    d = wait_for(
        lambda: (x := _show(ats_cli, cid))["extraction_version"] == 2 and x, 60, "the re-parse's extraction version"
    )
    assert d["name"] == "Jane Q. Doe" and d["edited_fields"] == ["name"]
    [change] = d["proposed_changes"]
    assert change["field"] == "name" and change["value"] == corpus.CANDIDATE_NAME
    assert change["provenance"][0]["parse_attempt"] == 2
    assert d["provenance"]["emails"][0]["parse_attempt"] == 2  # unedited fields follow the newest parse
    verify = ats_cli("intake-verify", "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["lost"] == 0
