"""Export to the immutable archive (real Azurite) and the `ats audit` CLI contract,
including a SIGKILL in the middle of an export and of a verification.

`ats audit verify`'s exit code and JSON are checked through a real process (0 and 1); the
processes killed mid-run are real. What follows a kill - the re-run that must find
nothing lost - and the human-readable report run in-process (run_ats_in_process): the
same command and output without a Python + Django start each."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ats.audit import api as audit_api
from ats.audit import chain, partitions
from ats.audit.models import AuditExport, AuditVerification
from tests.audit.conftest import as_dba, month_start
from tests.conftest import run_ats_in_process

pytestmark = pytest.mark.django_db(transaction=True)

REPO = Path(__file__).resolve().parents[2]
PERSONAL = {"email": "jane.doe@example.org", "phone": "+44 20 7946 0958", "name": "Jane Doe"}


def independent_check(data: bytes) -> dict[str, Any]:
    """Re-verify an export with nothing but hashlib and json (docs/compliance.md)."""
    lines = data.decode().splitlines()
    header = json.loads(lines[0])
    prev = header["prev_hash_in"]
    for raw in lines[1:]:
        row = json.loads(raw)
        content = [
            row["seq"],
            row["occurred_at"],
            row["actor"],
            row["action"],
            row["object_type"],
            row["object_id"],
            row["payload"],
            row["personal_hmac"],
            row["prev_hash"],
        ]
        canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert row["prev_hash"] == prev
        assert hashlib.sha256(canonical.encode()).hexdigest() == row["row_hash"]
        prev = row["row_hash"]
    assert prev == header["last_row_hash"] and header["rows"] == len(lines) - 1
    return header


def test_export_writes_the_closed_month_to_the_archive_without_personal_data(archive_on_azurite: Any) -> None:
    for i in range(3):
        audit_api.audit_event_record(
            actor="user:7",
            action="candidate.viewed",
            object_type="candidate",
            object_id=i,
            payload={"filename": "Jane_Doe_CV.pdf", "requisition_id": 5},
            personal=PERSONAL,
        )
    current = month_start(0).date()
    with pytest.raises(audit_api.ExportRefused, match="not closed"):
        audit_api.audit_export(month=current)  # this month is still open
    assert current not in {partitions.parse_month(r.month) for r in audit_api.audit_export()}
    later = partitions.bounds(current)[1] + datetime.timedelta(hours=1)  # ...until it ends
    (result,) = audit_api.audit_export(month=current, now=later)
    assert (result.rows, result.status, result.partition) == (3, "created", partitions.name_for(month_start(0).date()))
    data = archive_on_azurite.get(result.container, result.key)
    assert hashlib.sha256(data).hexdigest() == result.sha256 == AuditExport.objects.get(month=current).sha256
    # The digests taken out first: a phone's four digits turn up in a 64-digit hex hash by
    # chance (a clean-clone run found "0958" inside a prev_hash, stop 44).
    text = re.sub(r"\b[0-9a-f]{64}\b", "", data.decode().lower())
    for needle in ("jane", "doe", "example.org", "7946", "0958", "+44", "@"):
        assert needle not in text, needle
    header = independent_check(data)
    assert (header["first_seq"], header["last_seq"], header["prev_hash_in"]) == (1, 3, chain.GENESIS)
    # Idempotent: recorded once, the archive object is never rewritten.
    assert current not in {partitions.parse_month(r.month) for r in audit_api.audit_export(now=later)}
    (again,) = audit_api.audit_export(month=month_start(0).date(), now=later)
    assert again.status == "recorded" and again.sha256 == result.sha256


def test_export_refuses_an_open_month_and_a_broken_partition(archive_on_azurite: Any, seed_history: Any) -> None:
    with pytest.raises(audit_api.ExportRefused, match="not closed"):
        audit_api.audit_export(month=month_start(0).date())
    ids = seed_history([month_start(1)] * 2)
    as_dba("UPDATE audit_event SET actor = 'user:666' WHERE id = %s", [ids[0]])
    with pytest.raises(audit_api.ExportRefused, match="fails verification"):
        audit_api.audit_export(month=month_start(1).date())
    assert not AuditExport.objects.exists()


def test_partition_past_retention_is_dropped_only_after_its_export(archive_on_azurite: Any, seed_history: Any) -> None:
    seed_history([month_start(15)] * 2 + [month_start(14)] + [month_start(1)])
    audit_api.audit_export(month=month_start(15).date())  # 14 months ago stays unexported
    out = audit_api.audit_partitions_maintain()
    assert out["dropped"] == [partitions.name_for(month_start(15).date())]
    assert out["kept_unexported"] == [partitions.name_for(month_start(14).date())]
    # The chain still verifies: the oldest present month links to the dropped month's export.
    result = audit_api.audit_verify()
    assert result["ok"], result
    assert partitions.name_for(month_start(15).date()) not in [p["name"] for p in result["partitions"]]


def _env(stack_env: dict[str, str], azurite: Any, container: str, **extra: str) -> dict[str, str]:
    return {
        **stack_env,
        "ATS_STORAGE_KIND": "azure",
        "ATS_AZURE_BLOB_CONNECTION_STRING": azurite.connection_string,
        "ATS_AUDIT_ARCHIVE_CONTAINER": container,
        **extra,
    }


def _ats(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ats.cli", *args], env=env, cwd=REPO, text=True, capture_output=True, timeout=120
    )


def _kill_when_paused(env: dict[str, str], *args: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ats.cli", *args],
        env=env,
        cwd=REPO,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    line = b""
    said: list[bytes] = []  # what the process wrote before the pause: why, if it never got there
    while time.monotonic() < deadline and b"paused at" not in line:
        line = proc.stderr.readline()
        said.append(line)
        if not line and proc.poll() is not None:
            tail = b"".join(said)[-3000:].decode(errors="replace")
            raise AssertionError(f"exited before the pause point: rc={proc.returncode}\n{tail}")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL


def test_cli_verify_contract_and_exit_code(stack_env: dict[str, str], seed_history: Any) -> None:
    ids = seed_history([month_start(1)] * 2)
    audit_api.audit_event_record(actor="system:test", action="t", object_type="x", object_id=1)
    res = _ats(stack_env, "audit", "verify", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) == {"ok", "partitions", "first_broken"} and out["ok"] is True and out["first_broken"] is None
    assert all(set(p) == {"name", "ok", "rows"} for p in out["partitions"])
    as_dba("DELETE FROM audit_event WHERE id = %s", [ids[0]])
    res = _ats(stack_env, "audit", "verify", "--json")
    assert res.returncode == 1
    out = json.loads(res.stdout)
    assert out["ok"] is False
    assert out["first_broken"] == {
        "partition": partitions.name_for(month_start(1).date()),
        "event_id": ids[1],
        "reason": "seq 1 missing before this row (deleted)",
    }
    human = run_ats_in_process("audit", "verify")
    assert human.returncode == 1 and f"event {ids[1]}" in human.stdout


def test_sigkill_during_export_loses_nothing(
    stack_env: dict[str, str], azurite: Any, archive_on_azurite: Any, seed_history: Any
) -> None:
    from django.conf import settings

    container = settings.AUDIT_ARCHIVE_CONTAINER
    seed_history([month_start(1)] * 3, personal=PERSONAL)
    env = _env(stack_env, azurite, container, ATS_TEST_PAUSE_AT="export-after-put:60")
    _kill_when_paused(env, "audit", "export", "--month", f"{month_start(1):%Y-%m}")
    assert not AuditExport.objects.exists()  # killed after the upload, before the record
    # archive_on_azurite points this process at the same Azurite container.
    res = run_ats_in_process("audit", "export", "--month", f"{month_start(1):%Y-%m}", "--json")
    assert res.returncode == 0, res.stderr
    (exp,) = json.loads(res.stdout)["exports"]
    assert exp["status"] == "unchanged" and exp["rows"] == 3  # the same bytes were already archived
    row = AuditExport.objects.get()
    data = archive_on_azurite.get(row.container, row.key)
    assert hashlib.sha256(data).hexdigest() == row.sha256 == exp["sha256"]
    assert b"jane" not in data.lower()
    independent_check(data)


def test_sigkill_during_verification_loses_nothing(stack_env: dict[str, str], seed_history: Any) -> None:
    seed_history([month_start(1)] * 3)
    _kill_when_paused({**stack_env, "ATS_TEST_PAUSE_AT": "verify-row:60"}, "audit", "verify", "--json")
    assert not AuditVerification.objects.exists()
    res = run_ats_in_process("audit", "verify", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["ok"] is True
    assert AuditVerification.objects.get().ok is True


def test_a_consistent_rewrite_of_the_chain_is_caught_by_the_archive(archive_on_azurite: Any, seed_history: Any) -> None:
    """A DBA who alters a row AND recomputes every later hash and the head passes the
    link checks - but the closed month no longer matches its immutable export."""
    from ats.audit.models import AuditChainHead, AuditEvent

    ids = seed_history([month_start(1)] * 3)
    audit_api.audit_event_record(actor="system:test", action="t", object_type="x", object_id=1)
    audit_api.audit_export(month=month_start(1).date())
    assert audit_api.audit_verify()["ok"]

    prev = None
    for e in AuditEvent.objects.order_by("seq"):
        payload = {"n": 99, "attachment_id": 1} if e.pk == ids[1] else e.payload
        if e.pk == ids[1] or prev is not None:
            prev_hash = prev if prev is not None else e.prev_hash
            digest = chain.row_hash(
                seq=e.seq, occurred_at=e.occurred_at, actor=e.actor, action=e.action, object_type=e.object_type,
                object_id=e.object_id, payload=payload, personal_hmac=e.personal_hmac, prev_hash=prev_hash,
            )  # fmt: skip
            as_dba(
                "UPDATE audit_event SET payload = %s::jsonb, prev_hash = %s, row_hash = %s WHERE id = %s",
                [chain.canonical_json(payload), prev_hash, digest, e.pk],
            )
            prev = digest
    AuditChainHead.objects.filter(pk=1).update(last_hash=prev)  # the links alone are consistent again...
    result = audit_api.audit_verify()
    assert result["ok"] is False  # ...but the archive remembers
    assert result["first_broken"] == {
        "partition": partitions.name_for(month_start(1).date()),
        "event_id": ids[1],
        "reason": "row differs from the archived export of its month (rewritten after export)",
    }
    this_month = partitions.name_for(month_start(0).date())
    assert next(p for p in result["partitions"] if p["name"] == this_month)["ok"] is True


def test_export_never_overwrites_the_archive(archive_on_azurite: Any, seed_history: Any) -> None:
    from django.conf import settings

    from ats.audit.services import export_key

    seed_history([month_start(2)])
    part = partitions.Partition(partitions.name_for(month_start(2).date()), month_start(2).date())
    archive_on_azurite.put(settings.AUDIT_ARCHIVE_CONTAINER, export_key(part), b"an earlier, different export\n")
    with pytest.raises(audit_api.ExportRefused, match="already holds different bytes"):
        audit_api.audit_export(month=month_start(2).date())
    assert archive_on_azurite.get(settings.AUDIT_ARCHIVE_CONTAINER, export_key(part)).startswith(b"an earlier")
    assert not AuditExport.objects.exists()
