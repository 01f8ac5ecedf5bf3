"""Through real processes: `ats requisition create` -> `ats ingest --wait --json --requisition`
-> workers -> `ats application show`; a byte-identical document for another requisition
applies the original's candidate; a document without a requisition stays in the talent
pool; `ats requisition update` rescored every application; `ats rescore --wait --json`.

Real processes for `ingest --wait` and `rescore --wait` (against the real workers), and once
each for `requisition create` and `application show` (their JSON on stdout is the
contract); the other follow-up commands run in-process (run_ats_in_process), without a
Python + Django start each."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests import corpus
from tests.conftest import run_ats_in_process

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _json(run: Any, *args: str) -> Any:
    """`ats ARGS`'s JSON through `run`: ats_cli (a real process) or run_ats_in_process."""
    res = run(*args)
    assert res.returncode == 0, res.stderr + res.stdout
    return json.loads(res.stdout)


def _ingest(ats_cli: Any, *args: str) -> list[dict[str, Any]]:
    res = ats_cli("ingest", "--wait", "--json", "--timeout", "90", *args, timeout=150)
    assert res.returncode == 0, res.stderr + res.stdout
    return [json.loads(line) for line in res.stdout.splitlines()]


def _check_explained(app: dict[str, Any]) -> None:
    assert app["state"] == "scored" and isinstance(app["score"], int) and 0 <= app["score"] <= 100
    assert sum(e["contribution"] for e in app["explanation"]) == app["score"]
    assert all(set(e) >= {"criterion", "contribution", "evidence"} for e in app["explanation"])
    assert len(app["fingerprint"]) == 64 and app["results"][-1]["fingerprint"] == app["fingerprint"]


def test_requisition_ingest_score_duplicate_and_rescore(stack: Any, ats_cli: Any, tmp_path: Path) -> None:
    backend = _json(
        ats_cli,
        *("requisition", "create", "--title", "Backend engineer", "--must-have", "Python,PostgreSQL"),
        *("--nice-to-have", "Kubernetes", "--min-years", "3", "--json"),
    )
    assert backend["version"] == 1 and backend["id"] and backend["requisition_version_id"]
    data = _json(run_ats_in_process, "requisition", "create", "--title", "Go dev", "--must-have", "Go,SQL", "--json")

    bad = run_ats_in_process("requisition", "create", "--title", "x", "--must-have", "Pythn", "--json")
    assert bad.returncode != 0 and "Python" in bad.stderr

    cv, again, pool = tmp_path / "cv.pdf", tmp_path / "cv-again.pdf", tmp_path / "pool.pdf"
    cv.write_bytes(corpus.text_pdf())
    again.write_bytes(corpus.text_pdf())
    pool.write_bytes(corpus.text_pdf(pages=2))

    [row] = _ingest(ats_cli, "--requisition", str(backend["id"]), str(cv))
    assert row["state"] == "candidate_created" and row["application_state"] == "scored", row
    app = _json(ats_cli, "application", "show", str(row["application_id"]), "--json")
    _check_explained(app)
    assert (app["candidate_id"], app["requisition_id"], app["requisition_version"]) == (
        row["candidate_id"],
        backend["id"],
        1,
    )
    # Python, PostgreSQL (prose), Kubernetes in the skills section; 2019-2024 = 5 years.
    statuses = {e["criterion"]: e["status"] for e in app["explanation"]}
    assert statuses["must-have: Python"] == "found" and statuses["nice-to-have: Kubernetes"] == "found"

    # The same bytes for the other requisition: the original's candidate applies there.
    [dup] = _ingest(ats_cli, "--requisition", str(data["id"]), str(again))
    assert dup["state"] == "duplicate" and dup["application_state"] == "scored", dup
    dup_app = _json(run_ats_in_process, "application", "show", str(dup["application_id"]), "--json")
    assert dup_app["candidate_id"] == row["candidate_id"] and dup_app["requisition_id"] == data["id"]
    _check_explained(dup_app)

    # No requisition: a candidate in the talent pool, no application.
    [talent] = _ingest(ats_cli, str(pool))
    assert talent["state"] == "candidate_created" and "application_id" not in talent

    listed = _json(run_ats_in_process, "application", "list", "--requisition", str(backend["id"]), "--json")
    assert [a["id"] for a in listed] == [row["application_id"]]

    # A new version: rescored with a summary (the update's own coordinator, or a new run).
    v2 = _json(run_ats_in_process, "requisition", "update", str(backend["id"]), "--min-years", "8", "--json")
    assert (v2["id"], v2["version"], v2["must_have"]) == (backend["id"], 2, ["Python", "PostgreSQL"])
    summary = _json(partial(ats_cli, timeout=150), "rescore", "--requisition", str(backend["id"]), "--wait", "--json")
    assert summary["state"] == "completed" and summary["requisition_version"] == 2, summary
    assert summary["total"] == 1 and summary["failed"] == 0 and summary["failures"] == []
    assert summary["scored"] + summary["unchanged"] == 1
    app = _json(run_ats_in_process, "application", "show", str(row["application_id"]), "--json")
    _check_explained(app)
    assert app["requisition_version"] == 2 and len(app["results"]) == 2
    assert app["results"][0]["created_at"] <= app["results"][1]["created_at"]

    # Nothing lost: no document or application without its job.
    res = run_ats_in_process("intake-verify", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert json.loads(res.stdout)["lost_applications"] == 0
