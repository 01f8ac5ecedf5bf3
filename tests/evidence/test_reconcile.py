"""Orphan blobs both ways: reported always; only old quarantine orphans are deleted."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from ats.audit.models import AuditEvent, AuditExport
from ats.evidence import api as evidence_api
from ats.evidence.models import BlobReconciliation
from ats.intake import api as intake_api

pytestmark = pytest.mark.django_db(transaction=True)
DAY = 24 * 3600.0


@pytest.fixture
def own_store(settings: Any, tmp_path: Path) -> Iterator[Any]:
    """A blob store of this test's own (the session store holds other tests' leftovers)."""
    from ats.evidence import adapters as evidence_adapters
    from ats.intake import adapters as intake_adapters

    settings.ATS = {**settings.ATS, "STORAGE_KIND": "local", "STORAGE_LOCAL_ROOT": tmp_path / "blobs"}
    for cached in (intake_adapters.blob_store, evidence_adapters.blob_store):
        cached.cache_clear()
    store = intake_adapters.blob_store()
    store.ensure_container("audit-archive")
    yield store
    for cached in (intake_adapters.blob_store, evidence_adapters.blob_store):
        cached.cache_clear()


def receive(data: bytes) -> Any:
    raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile("cv.pdf", data)])
    return intake_api.Attachment.objects.get(raw_intake_id=raw.id)  # the row: the test reads its storage key


def test_both_directions_reported_and_only_old_quarantine_orphans_deleted(own_store: Any) -> None:
    kept = receive(b"%PDF-1.4 referenced")  # a row and its quarantine blob
    gone = receive(b"%PDF-1.4 bytes lost")
    own_store.delete(gone.storage_container, gone.storage_key)  # row without blob
    own_store.put("intake-quarantine", "2026/01/01/rolledback", b"rolled back intake")  # blob without row
    own_store.put("documents", "2026/01/01/stray", b"a document nobody references")
    own_store.put("audit-archive", "audit/2020/01/stray.jsonl", b"{}")
    AuditExport.objects.create(
        month=datetime.date(2020, 2, 1), partition="audit_event_y2020m02", container="audit-archive",
        key="audit/2020/02/audit_event_y2020m02.jsonl", sha256="0" * 64, size_bytes=2, rows=0,
        prev_hash_in="0" * 64, last_row_hash="0" * 64,
    )  # fmt: skip

    # Fresh: the quarantine orphan is inside the grace period -> kept.
    report = evidence_api.blobs_reconcile(grace_s=DAY)
    actions = {(o["container"], o["key"]): o["action"] for o in report["orphan_blobs"]}
    assert actions == {
        ("intake-quarantine", "2026/01/01/rolledback"): "kept_in_grace",
        ("documents", "2026/01/01/stray"): "reported",
        ("audit-archive", "audit/2020/01/stray.jsonl"): "reported",
    }
    assert {(m["kind"], m["id"]) for m in report["missing_blobs"]} == {("attachment", gone.pk), ("audit_export", None)}
    assert report["ok"] is False and report["deleted"] == 0
    assert own_store.exists("intake-quarantine", "2026/01/01/rolledback")

    # Two days on: the quarantine orphan is deleted (logged and audited), nothing else.
    later = timezone.now() + datetime.timedelta(days=2)
    report = evidence_api.blobs_reconcile(grace_s=DAY, now=later)
    assert report["deleted"] == 1
    assert not own_store.exists("intake-quarantine", "2026/01/01/rolledback")
    assert own_store.exists("documents", "2026/01/01/stray")
    assert own_store.exists("audit-archive", "audit/2020/01/stray.jsonl")
    assert own_store.exists(kept.storage_container, kept.storage_key)  # referenced: untouched
    event = AuditEvent.objects.get(action="blobs.orphan_deleted")
    assert event.payload["key"] == "2026/01/01/rolledback"
    assert BlobReconciliation.objects.count() == 2


def test_dry_run_deletes_nothing(own_store: Any) -> None:
    own_store.put("intake-quarantine", "2026/01/02/x", b"x")
    later = timezone.now() + datetime.timedelta(days=2)
    report = evidence_api.blobs_reconcile(grace_s=DAY, now=later, dry_run=True)
    assert [o["action"] for o in report["orphan_blobs"]] == ["would_delete"]
    assert own_store.exists("intake-quarantine", "2026/01/02/x") and not BlobReconciliation.objects.exists()


def test_cli_reconcile_json(ats_cli: Any, stack_env: dict[str, str]) -> None:
    receive(b"%PDF-1.4 cli")
    res = ats_cli("blobs", "reconcile", "--json", "--dry-run")
    report = json.loads(res.stdout)
    assert {"ok", "orphan_blobs", "missing_blobs", "deleted", "blobs", "rows"} <= set(report)
    assert res.returncode == (0 if report["ok"] else 1)
    assert report["missing_blobs"] == []  # the row just written has its blob
