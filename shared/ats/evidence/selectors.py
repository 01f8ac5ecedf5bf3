"""`ats evidence show`: one verifiable record per document.

Expected values come from the attachment's audit events - chained, so nobody can change
them unnoticed (`ats audit verify`). Actual values are re-read now: the stored bytes
(hashed and type-detected again) and the intake rows. Each step of the chain

    source (message id / upload id) -> sha256 -> detected type -> ClamAV verdict and
    signature database version -> sandbox policy hash -> parse output hash

is one link `{step, expected, actual, ok}`; the record is ok only if every link is.
Steps a document never reached (an infected file is never parsed) have no link.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ats.audit import api as audit_api
from ats.evidence import adapters
from ats.intake import api as intake_api
from ats.scanning import api as scanning_api
from ats.storage import api as storage_api

SCAN_ACTIONS = ("intake.scanned", "intake.blocked_malware")
SCANNED_STATUSES = ("clean", "infected")


def _link(step: str, expected: Any, actual: Any) -> dict[str, Any]:
    return {"step": step, "expected": expected, "actual": actual, "ok": expected is not None and expected == actual}


def _last(events: list[audit_api.ChainedEvent], *actions: str, **match: Any) -> audit_api.ChainedEvent | None:
    found = None
    for e in events:
        if e.action in actions and all(e.payload.get(k) == v for k, v in match.items()):
            found = e
    return found


def evidence_show(*, attachment_id: int) -> dict[str, Any]:
    rows = intake_api.evidence_rows(attachment_id)
    if rows is None:
        links = [_link("attachment", "row exists", None)]
        return {"attachment_id": attachment_id, "ok": False, "links": links}
    att, attempt = rows.attachment, rows.parse_attempt
    events = audit_api.audit_events_for(object_type="attachment", object_id=attachment_id)
    links = [
        # The events the expected values come from must themselves be unaltered.
        _link("audit_records", f"{len(events)} intact", f"{sum(e.intact for e in events)} intact")
    ]
    if not events:
        links[0]["ok"] = False
    received = _last(events, "intake.received")
    links.append(
        _link(
            "source",
            received.payload.get("source_sha256") if received else None,
            _keyed(attachment_id, intake_api.source_sha256(rows.raw)),
        )
    )

    scanned = _last(events, *SCAN_ACTIONS)
    if scanned is not None or att.virus_scan_status in SCANNED_STATUSES:
        expect = scanned.payload if scanned else {}
        data, read_error = _read(att.storage_container, att.storage_key)
        actual_sha = hashlib.sha256(data).hexdigest() if data is not None else read_error
        actual_type = scanning_api.detect_file_type(data).kind.value if data is not None else read_error
        links += [
            _link(
                "sha256", expect.get("sha256"), _keyed(attachment_id, actual_sha) if data is not None else actual_sha
            ),
            _link("sha256_row", expect.get("sha256"), _keyed(attachment_id, att.sha256)),
            _link("detected_type", expect.get("detected_type"), actual_type),
            _link("detected_type_row", expect.get("detected_type"), att.detected_type),
            _link("clamav_verdict", expect.get("verdict"), att.virus_scan_status),
            _link("signature_db", expect.get("engine"), att.scan_engine),
        ]

    parsed = (
        _last(events, "intake.parsed", attempt_no=attempt.attempt_no) if attempt else _last(events, "intake.parsed")
    )
    if parsed is not None or attempt is not None:
        expect = parsed.payload if parsed else {}
        links += [
            _link("sandbox_policy_hash", expect.get("policy_hash"), attempt.policy_hash if attempt else None),
            _link(
                "parse_output",
                expect.get("output_sha256"),
                _keyed(
                    attachment_id,
                    intake_api.parse_output_sha256(
                        text=attempt.text, page_count=attempt.page_count, result=attempt.result
                    ),
                )
                if attempt
                else None,
            ),
        ]
        if "extraction_version" in expect:  # recorded once extraction writes it
            links.append(_link("extraction_version", expect["extraction_version"], None))
    return {"attachment_id": attachment_id, "ok": all(link["ok"] for link in links), "links": links}


def _keyed(attachment_id: int, digest: str) -> str | None:
    """Digests are chained keyed per document (ats.audit DIGEST_KEYS): compare keyed."""
    return audit_api.audit_keyed_digest(object_type="attachment", object_id=attachment_id, value=digest)


def _read(container: str, key: str) -> tuple[bytes | None, str]:
    if not container or not key:
        return None, "no stored bytes"
    try:
        return adapters.blob_store().get(container, key), ""
    except storage_api.BlobNotFound:
        return None, f"missing: {container}/{key}"
