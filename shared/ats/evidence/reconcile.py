"""Orphan-blob reconciliation (nightly, ADR 0004 §4): both directions, always reported.

- A blob with no row: intake writes bytes to quarantine *before* its transaction commits
  (never a row without bytes), so a rolled-back intake leaves a quarantine blob behind.
  Quarantine orphans older than the grace period are deleted, each one logged and
  audited; the grace period covers intakes still in flight. Orphans anywhere else
  (documents, the audit archive) are reported only: nothing else is deleted blindly.
- A row with no blob: reported (with the attachment id), never "fixed".

The listing is taken before the rows are read, so a blob whose row commits meanwhile is
seen as referenced; each deletion re-checks the row just before it, and each "missing"
blob is re-checked with a direct lookup (its bytes may have been written after the list).
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.conf import settings
from django.utils import timezone

from ats.audit import api as audit_api
from ats.evidence import adapters
from ats.evidence.models import BlobReconciliation
from ats.intake import api as intake_api
from ats.storage import api as storage_api

logger = logging.getLogger(__name__)

REPORT_CAP = 500  # entries per list kept in the recorded report


def grace_seconds() -> float:
    return float(getattr(settings, "BLOBS_ORPHAN_GRACE_S", 24 * 3600))


def blobs_reconcile(
    *, grace_s: float | None = None, dry_run: bool = False, now: datetime.datetime | None = None
) -> dict[str, Any]:
    grace = grace_seconds() if grace_s is None else grace_s
    store = adapters.blob_store()
    archive_container, exports = audit_api.audit_archive_references()
    containers = [storage_api.QUARANTINE_CONTAINER, storage_api.DOCUMENTS_CONTAINER, archive_container]
    # The listing comes before the rows (module docstring): a row committed meanwhile counts.
    listed, counts = _list_blobs(store, containers)
    now = now or timezone.now()
    rows = intake_api.blob_references()
    orphans, deleted = _orphans(store, listed, rows, exports, now=now, grace=grace, dry_run=dry_run)
    missing = _missing(store, listed, rows, exports)

    ok = not missing and all(o["action"] in {"deleted", "kept_in_grace", "would_delete"} for o in orphans)
    report = {
        "ok": ok,
        "grace_s": grace,
        "dry_run": dry_run,
        "blobs": counts,
        "rows": len(rows) + len(exports),
        "orphan_blobs": orphans,
        "missing_blobs": missing,
        "deleted": deleted,
    }
    if not dry_run:
        BlobReconciliation.objects.create(
            ok=ok,
            orphan_count=len(orphans),
            deleted_count=deleted,
            missing_count=len(missing),
            report={**report, "orphan_blobs": orphans[:REPORT_CAP], "missing_blobs": missing[:REPORT_CAP]},
        )
    if missing:
        logger.error("%d rows point at missing blobs: %s", len(missing), missing[:10])
    return report


def _list_blobs(
    store: Any, containers: list[str]
) -> tuple[dict[tuple[str, str], storage_api.BlobInfo], dict[str, int]]:
    """Every blob of the containers by (container, key), and how many each holds."""
    listed: dict[tuple[str, str], storage_api.BlobInfo] = {}
    counts: dict[str, int] = {}
    for container in containers:
        try:
            blobs = list(store.list_blobs(container))
        except storage_api.ContainerNotFound:
            blobs = []
        counts[container] = len(blobs)
        listed.update({(b.container, b.key): b for b in blobs})
    return listed, counts


def _orphans(
    store: Any,
    listed: dict[tuple[str, str], storage_api.BlobInfo],
    rows: dict[tuple[str, str], int],
    exports: set[tuple[str, str]],
    *,
    now: datetime.datetime,
    grace: float,
    dry_run: bool,
) -> tuple[list[dict[str, Any]], int]:
    """Blobs no row names, each with its action; quarantine ones past grace are deleted."""
    orphans: list[dict[str, Any]] = []
    deleted = 0
    for (container, key), info in sorted(listed.items()):
        if (container, key) in rows or (container, key) in exports:
            continue
        age = (now - info.last_modified).total_seconds()
        entry = {"container": container, "key": key, "size": info.size, "age_s": round(age)}
        if container != storage_api.QUARANTINE_CONTAINER:
            entry["action"] = "reported"
        elif age <= grace:
            entry["action"] = "kept_in_grace"
        elif dry_run:
            entry["action"] = "would_delete"
        elif intake_api.blob_referenced(container, key):
            continue  # its row committed after our snapshot
        else:
            _delete_orphan(store, container, key, info=info, age=age)
            deleted += 1
            entry["action"] = "deleted"
        orphans.append(entry)
    return orphans, deleted


def _delete_orphan(store: Any, container: str, key: str, *, info: storage_api.BlobInfo, age: float) -> None:
    store.delete(container, key)
    logger.warning("orphan quarantine blob deleted: %s/%s (%s bytes, %ss old)", container, key, info.size, age)
    audit_api.audit_event_record(
        actor="system:blobs.reconcile",
        action="blobs.orphan_deleted",
        object_type="blob",
        object_id=key[:64],
        payload={"container": container, "key": key, "size": info.size, "age_s": round(age)},
    )


def _missing(
    store: Any,
    listed: dict[tuple[str, str], storage_api.BlobInfo],
    rows: dict[tuple[str, str], int],
    exports: set[tuple[str, str]],
) -> list[dict[str, Any]]:
    """Rows (attachments, audit exports) whose blob is neither listed nor found directly."""
    missing: list[dict[str, Any]] = []
    for (container, key), attachment_id in sorted(rows.items()):
        if (container, key) not in listed and not store.exists(container, key):
            missing.append({"kind": "attachment", "id": attachment_id, "container": container, "key": key})
    for container, key in sorted(exports):
        if (container, key) not in listed and not store.exists(container, key):
            missing.append({"kind": "audit_export", "id": None, "container": container, "key": key})
    return missing
