"""Erasure through real processes (issue 16), on Azurite: a person's CV ingested for a
requisition by the real workers, exported, erased with `ats erase candidate`; then a
pg_dump of the whole test database and every blob of every container hold none of their e-mail, phone, name or
document bytes, `ats audit verify` passes, the export held every row the erasure removed,
the same CV sent again ends `erased_subject`, and unmerge / re-erase behave."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.scoring import api as scoring_api
from tests.conftest import run_ats
from tests.jobs.helpers import wait_for
from tests.retention import helpers

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ADMIN = iam_api.SystemActor("test:admin")


def _json(ats_cli: Any, *args: str) -> Any:
    res = ats_cli(*args)
    assert res.returncode == 0, res.stderr + res.stdout
    return json.loads(res.stdout)


@pytest.fixture
def azurite(tmp_path: Path) -> Iterator[Any]:
    from ats.devtools.api import AzuriteLocal

    with AzuriteLocal(location=tmp_path / "azurite", silent=True) as server:
        yield server


def test_erase_reaches_every_copy(start_worker: Any, azurite: Any, tmp_path: Path, stack_env: dict[str, str]) -> None:
    env = {**stack_env, "ATS_STORAGE_KIND": "azure", "ATS_AZURE_BLOB_CONNECTION_STRING": azurite.connection_string}
    start_worker("default", env=env)
    start_worker("untrusted", env=env)

    def ats_cli(*args: str, **kw: Any) -> Any:
        return run_ats(env, *args, **kw)

    # The commands under test run as processes; set-up and read-backs run in-process
    # (each `ats` start costs seconds on a loaded machine).
    def show(cid: int) -> dict[str, Any]:
        d = candidates_api.candidate_detail(cid, actor=ADMIN)
        assert d is not None
        return d

    p = helpers.person()
    cv = tmp_path / "cv.pdf"
    cv.write_bytes(p.pdf)
    version = scoring_api.requisition_create(title="Payments", must_have=["Python"], actor=ADMIN)
    row = helpers.ingest(ats_cli, cv, "--requisition", str(version.requisition_id))
    assert row["state"] == "candidate_created" and row["application_state"] == "scored", row
    cid, att = row["candidate_id"], row["attachment_id"]
    shown = show(cid)
    assert shown["name"] == p.name and shown["emails"] == [p.email], shown
    # The viewer's page images (derivatives, in Azurite's `derivatives` container) exist.
    from ats.intake import adapters
    from ats.intake.models import PageImageSet
    from ats.storage import api as storage_api

    wait_for(lambda: PageImageSet.objects.filter(attachment_id=att, state="ready").exists(), 60, "page images")
    azure = storage_api.store_from_config("azure", connection_string=azurite.connection_string)
    assert list(azure.list_blobs(adapters.DERIVATIVES, prefix=f"{att}/")), "page images stored in Azurite"
    # A recruiter's edit puts the name in the audit side table too.
    candidates_api.candidate_edit_field(candidate_id=cid, field="name", value=p.name + " Jr", actor=ADMIN)

    # Before: the probes do find the person (a probe that cannot find anything proves nothing).
    before = helpers.pg_dump(helpers.db_url(), tmp_path / "before.sql").read_bytes()
    # (The hand-off copy of the bytes is gone once parsed; the blob holds them.)
    assert {"email", "name", "phone_e164"} <= set(helpers.found_in(before, p))
    hits, _ = helpers.azure_blob_hits(azurite.connection_string, p)
    assert any("document_bytes" in f for f in hits.values()), "the CV's blob is found"

    export = _json(ats_cli, "export", "candidate", str(cid), "--out", str(tmp_path / "export"), "--json")
    subject = json.loads((tmp_path / "export" / "subject.json").read_text())
    assert export["candidate_id"] == cid and len(export["files"]) == 1
    assert (tmp_path / "export" / export["files"][0]).read_bytes() == p.pdf

    refused = ats_cli("erase", "candidate", str(cid), "--reason", "", "--json")
    assert refused.returncode != 0 and "reason" in refused.stderr
    out = _json(ats_cli, "erase", "candidate", str(cid), "--reason", "art. 17 request, ticket 4711", "--json")
    assert set(out) == {"candidate_id", "erasure_id", "steps"} and out["candidate_id"] == cid
    steps = {s["step"]: s for s in out["steps"]}
    assert {"tombstone", "scoring", "ai", "search", "candidates", "documents", "mail_ledger", "audit", "jobs"} <= set(
        steps
    )
    assert steps["tombstone"]["rows"] >= 2 and steps["documents"]["blobs"] >= 1

    # The export held every row the erasure removed or blanked, table by table.
    for s in out["steps"]:
        for table, n in (s.get("tables") or {}).items():
            if n and table in subject["tables"]:
                assert len(subject["tables"][table]) >= n, (table, n)
            elif n:
                assert table in ("procrastinate_jobs",), f"{table} erased but not exported"
    assert subject["tables"]["procrastinate_jobs"], "the jobs naming the subject are exported"

    # Idempotent: the same erasure, nothing left to change.
    again = _json(ats_cli, "erase", "candidate", str(cid), "--reason", "again", "--json")
    assert again["erasure_id"] == out["erasure_id"]
    assert all(s.get("rows", 0) == 0 for s in again["steps"] if s["step"] != "tombstone"), again["steps"]

    after = helpers.pg_dump(helpers.db_url(), tmp_path / "after.sql").read_bytes()
    assert helpers.found_in(after, p) == [], "the dump still holds the person"
    hits, listed_after = helpers.azure_blob_hits(azurite.connection_string, p)
    assert hits == {}, "a blob still holds the person"
    assert not list(azure.list_blobs(adapters.DERIVATIVES, prefix=f"{att}/")), "page images outlived the erasure"
    assert listed_after >= 1, "the erasure log (a blob) is listed too"
    verify = ats_cli("audit", "verify", "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["ok"], verify.stdout + verify.stderr

    shown = show(cid)
    assert shown["status"] == "erased" and not shown["name"] and not shown["emails"]
    assert intake_api.Attachment.objects.get(pk=att).state == "erased_subject"

    # The same person sends the same CV again: held back by the tombstone.
    row2 = helpers.ingest(ats_cli, cv)
    assert row2["state"] == "erased_subject" and not row2["candidate_id"], row2
    again_att = intake_api.Attachment.objects.get(pk=row2["attachment_id"])
    assert again_att.reason_code == "erased_subject" and f"erasure {out['erasure_id']}" in again_att.reason
    assert intake_api.lost_documents() == []

    # An admin re-admits the sender (they applied again and agreed): tombstone lifted,
    # the held-back document becomes a candidate; the erased one stays erased.
    readmit = _json(ats_cli, "erase", "readmit", str(row2["attachment_id"]), "--reason", "re-applied", "--json")
    assert readmit["erasure_id"] == out["erasure_id"] and readmit["tombstones_lifted"] >= 2
    new_cid = wait_for(
        lambda: intake_api.Attachment.objects.get(pk=row2["attachment_id"]).candidate_id,
        60,
        "the re-admitted candidate",
    )
    assert new_cid != cid and show(new_cid)["emails"] == [p.email]
    assert intake_api.Attachment.objects.get(pk=row2["attachment_id"]).state == "candidate_created"
