"""`ats evidence show`: a document through the real pipeline (workers, clamd, sandbox),
then tampering with its stored bytes, parse output or scan row is caught and named.

`evidence show` answers through a real process once per exit code (0: the chain holds, 1:
a tampered link); every other check runs the same command in-process
(run_ats_in_process), without a Python + Django start each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from ats.audit import api as audit_api
from ats.intake import api as intake_api
from tests import corpus
from tests.conftest import run_ats_in_process
from tests.scanning.samples import EICAR

pytestmark = pytest.mark.django_db(transaction=True)

CHAIN = ["audit_records", "source", "sha256", "sha256_row", "detected_type", "detected_type_row",
         "clamav_verdict", "signature_db", "sandbox_policy_hash", "parse_output"]  # fmt: skip


def show(ats_cli: Any, attachment_id: int) -> tuple[int, dict[str, Any]]:
    """`ats evidence show ID --json` through `ats_cli` (a real process, or in-process)."""
    res = ats_cli("evidence", "show", str(attachment_id), "--json")
    assert res.stdout, res.stderr
    return res.returncode, json.loads(res.stdout)


def failed(record: dict[str, Any]) -> list[str]:
    return [link["step"] for link in record["links"] if not link["ok"]]


def store() -> Any:
    from ats.intake import adapters

    return adapters.blob_store()


@pytest.mark.slow
def test_parsed_document_chain_and_tampering(stack: Any, ats_cli: Any, tmp_path: Path) -> None:
    pdf = tmp_path / "cv.pdf"
    pdf.write_bytes(corpus.text_pdf())
    res = ats_cli("ingest", "--wait", "--json", "--timeout", "90", str(pdf), timeout=150)
    assert res.returncode == 0, res.stderr + res.stdout
    [row] = [json.loads(line) for line in res.stdout.splitlines()]
    att_id = row["attachment_id"]
    assert row["state"] == "candidate_created", row

    rc, record = show(ats_cli, att_id)  # a real process
    assert rc == 0 and record["ok"] is True, record
    assert set(record) == {"attachment_id", "ok", "links"} and record["attachment_id"] == att_id
    assert [link["step"] for link in record["links"]] == CHAIN
    assert all(set(link) == {"step", "expected", "actual", "ok"} for link in record["links"])
    links = {link["step"]: link for link in record["links"]}
    assert links["clamav_verdict"]["actual"] == "clean"
    assert links["signature_db"]["actual"].startswith("ClamAV")  # engine/signature-DB version
    assert len(links["sandbox_policy_hash"]["actual"]) == 64 and links["detected_type"]["actual"] == "pdf"

    # 1. The parse output is edited in the database.
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE intake_parse_attempt SET text = text || ' (edited)' WHERE attachment_id = %s RETURNING id",
            [att_id],
        )
    rc, record = show(ats_cli, att_id)  # a real process
    assert rc == 1 and failed(record) == ["parse_output"]
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE intake_parse_attempt SET text = left(text, length(text) - 9) WHERE attachment_id = %s", [att_id]
        )
    assert show(run_ats_in_process, att_id)[0] == 0  # restored: ok again

    # 2. The stored document's bytes are replaced (a PDF still, so only the hash differs).
    att = intake_api.Attachment.objects.get(pk=att_id)
    original = store().get(att.storage_container, att.storage_key)
    store().put(att.storage_container, att.storage_key, original + b"\n%tampered", overwrite=True)
    try:
        rc, record = show(run_ats_in_process, att_id)
        assert rc == 1 and failed(record) == ["sha256"]
        bad = next(link for link in record["links"] if link["step"] == "sha256")
        # Digests are chained keyed per document (no raw fingerprint of a person's CV).
        keyed = audit_api.audit_keyed_digest(object_type="attachment", object_id=att_id, value=att.sha256)
        assert keyed and keyed.startswith("hmac-sha256:") and att.sha256 not in keyed
        assert bad["expected"] == keyed and bad["actual"] != keyed
    finally:
        store().put(att.storage_container, att.storage_key, original, overwrite=True)

    # 3. The sandbox policy hash row is rewritten.
    with connection.cursor() as cur:
        cur.execute("UPDATE intake_parse_attempt SET policy_hash = repeat('0', 64) WHERE attachment_id = %s", [att_id])
    rc, record = show(run_ats_in_process, att_id)
    assert rc == 1 and failed(record) == ["sandbox_policy_hash"]


def test_infected_document_chain_stops_at_the_scan() -> None:
    from ats.intake import services

    raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile("x.pdf", b"%PDF-1.4\n" + EICAR)])
    att = intake_api.raw_intake_attachments(raw.pk)[0]
    services.attachment_ingest(attachment_id=att.pk)
    with connection.cursor() as cur:  # the in-process run stands in for the worker's job
        cur.execute(
            "UPDATE procrastinate_jobs SET status = 'succeeded' WHERE task_name = 'intake.ingest_attachment'"
            " AND args->>'attachment_id' = %s",
            [str(att.pk)],
        )
    rc, record = show(run_ats_in_process, att.pk)
    assert rc == 0, record
    steps = [link["step"] for link in record["links"]]
    assert steps == CHAIN[:8]  # never parsed: no sandbox or parse links
    assert next(link for link in record["links"] if link["step"] == "clamav_verdict")["expected"] == "infected"
    # The verdict row is changed to look clean: caught.
    with connection.cursor() as cur:
        cur.execute("UPDATE intake_attachment SET virus_scan_status = 'clean' WHERE id = %s", [att.pk])
    rc, record = show(run_ats_in_process, att.pk)
    assert rc == 1 and failed(record) == ["clamav_verdict"]


def test_unknown_attachment_fails() -> None:
    rc, record = show(run_ats_in_process, 987654321)
    assert rc == 1 and record["ok"] is False and record["links"][0]["step"] == "attachment"
