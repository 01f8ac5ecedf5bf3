"""Through real processes: `ats ingest --wait --json` -> workers -> `ats candidate show`;
a byte-identical duplicate reports the original's candidate; a second CV of the same
person gets a duplicate pair; a re-parse after a recruiter edit keeps the edit and
records a proposed change.

`ingest --wait` and the first `candidate show` go through the real `ats` process; the
later shows (several in waiting loops), merges, edits and the re-parse request run the
same commands in the test process (run_ats_in_process), without a Python + Django start
each. tests/candidates/test_cli.py::test_show_json_contract requires the real process's
`candidate show --json` to equal the in-process one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ats.intake import api as intake_api
from tests import corpus
from tests.candidates.helpers import dedupe_jobs
from tests.conftest import run_ats_in_process
from tests.jobs.helpers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _ingest(ats_cli: Any, *paths: Path) -> list[dict[str, Any]]:
    res = ats_cli("ingest", "--wait", "--json", "--timeout", "90", *map(str, paths), timeout=150)
    assert res.returncode == 0, res.stderr + res.stdout
    return [json.loads(line) for line in res.stdout.splitlines()]


def _show(cid: int, ats: Any = run_ats_in_process) -> dict[str, Any]:
    res = ats("candidate", "show", str(cid), "--json")
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

    d = _show(cid, ats_cli)
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
        [m] = [m for m in _show(cid)["merges"] if m["automatic"] and not m["undone"]]
        other = m["merged"]
    assert row["state"] == "candidate_created" and other and other != cid
    # The shared phone makes a same-person pair. The fixture's "Jane Doe" at an example.com
    # address is a template's sample (issue 25): flagged, so the e-mail is no match key and
    # no ground for an automatic merge - the pair names only the phone.
    dup = wait_for(lambda: _show(cid)["duplicates"], 30, "the duplicate pair")
    assert [(x["other_candidate_id"], x["kind"]) for x in dup] == [(other, "same_person")]
    assert "+442079460958" in dup[0]["reason"] and corpus.CANDIDATE_EMAIL not in dup[0]["reason"]
    assert dup[0]["status"] == "open"

    # Merge (by hand, or the automatic one) and unmerge: intake's pointer follows both ways.
    def holder(att: int) -> int | None:
        return intake_api.Attachment.objects.get(pk=att).candidate_id

    merges = _show(cid)["merges"]
    if merges:
        merge_id = merges[0]["merge_id"]
    else:
        res = run_ats_in_process("candidate", "merge", str(cid), str(other), "--json")
        assert res.returncode == 0, res.stderr
        merge_id = json.loads(res.stdout)["merge_id"]
    assert holder(row["attachment_id"]) == cid and len(_show(cid)["documents"]) == 2
    res = run_ats_in_process("candidate", "unmerge", str(merge_id))
    assert res.returncode == 0, res.stderr
    assert holder(row["attachment_id"]) == other and holder(original["attachment_id"]) == cid
    assert _show(other)["documents"] == [row["attachment_id"]]

    res = run_ats_in_process("candidate", "edit", str(cid), "--field", "name", "--value", "Jane Q. Doe")
    assert res.returncode == 0, res.stderr
    res = run_ats_in_process("reparse", str(original["attachment_id"]))
    assert res.returncode == 0, res.stderr
    d = wait_for(lambda: (x := _show(cid))["extraction_version"] == 2 and x, 60, "the re-parse's extraction version")
    assert d["name"] == "Jane Q. Doe" and d["edited_fields"] == ["name"]
    [change] = d["proposed_changes"]
    assert change["field"] == "name" and change["value"] == corpus.CANDIDATE_NAME
    assert change["provenance"][0]["parse_attempt"] == 2
    assert d["provenance"]["emails"][0]["parse_attempt"] == 2  # unedited fields follow the newest parse
    verify = run_ats_in_process("intake-verify", "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["lost"] == 0


def _template_pdf(own_phone: str, name: str) -> bytes:
    """A CV template left half filled in: the person's own name and number, the template's
    sample e-mail and phone."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    lines = [name, "john.doe@example.com", "123-456-7890", own_phone, "Skills", "Python, SQL"]
    for i, line in enumerate(lines):
        page.insert_text((72, 72 + 22 * i), line, fontsize=18 if i == 0 else 11)
    return bytes(doc.tobytes())


def test_template_placeholders_never_merge_through_ingest(stack: Any, ats_cli: Any, tmp_path: Path) -> None:
    # Issue 25 item 2: two people who both left the template's sample e-mail and phone in
    # their CV stay two candidates, each value shown as read and the samples flagged.
    a, b = tmp_path / "template-a.pdf", tmp_path / "template-b.pdf"
    a.write_bytes(_template_pdf("+44 20 7946 0111", "Sam Taylor"))
    b.write_bytes(_template_pdf("+44 20 7946 0222", "Kim Lee"))
    rows = _ingest(ats_cli, a, b)
    assert [r["state"] for r in rows] == ["candidate_created", "candidate_created"], rows
    ids = {r["candidate_id"] for r in rows}
    assert len(ids) == 2
    # Each new candidate's dedupe job has run (not merely not yet run) before counting pairs.
    wait_for(lambda: all((jobs := dedupe_jobs(c)) and set(jobs) == {"succeeded"} for c in ids), 60, "the dedupe jobs")
    for cid in ids:
        d = _show(cid)
        assert d["name"] in {"Sam Taylor", "Kim Lee"} and d["emails"] == ["john.doe@example.com"]
        assert isinstance(d["phones"], list) and "+441234567890" in d["phones"]
        assert all(p["placeholder"] is True for p in d["provenance"]["emails"])
        assert d["duplicates"] == [] and d["merges"] == []
