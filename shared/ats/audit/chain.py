"""The audit hash chain's canonical form - pure, so an auditor can re-implement it.

Every audit row is chained at write time (docs/compliance.md):

    row_hash = sha256( canonical_json([seq, occurred_at, actor, action, object_type,
                                       object_id, payload, personal_hmac, prev_hash]) )

`canonical_json` is JSON with sorted keys, no whitespace, UTF-8 (ensure_ascii off);
`occurred_at` is UTC ISO-8601 with microseconds (`2026-11-30T09:00:00.123456+00:00`);
`prev_hash` of the very first row is 64 zeros. Personal details never enter the chain:
only `personal_hmac` = HMAC-SHA256(key, canonical_json(details)) does, so erasing the
details later leaves every row_hash valid.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
from typing import Any

GENESIS = "0" * 64
EXPORT_FORMAT = "ats-audit-export/1"

# Payload keys that carry personal data by name. audit_event_record moves them into the
# erasable side table instead of the chained payload, so an existing caller that passes
# e.g. a file name (often "Firstname_Lastname_CV.pdf") cannot leak it into the chain or
# the exports. Callers should pass personal details as `personal=` explicitly.
PERSONAL_KEYS = frozenset(
    {
        "address",
        "display_name",
        "email",
        "filename",
        "first_name",
        "from",
        "full_name",
        "last_name",
        "name",
        "phone",
        "sender",
        "subject",
    }
)


# Payload keys that carry a content digest of a person's document. audit_event_record
# replaces each value by keyed_digest(subject key, value) (KEYED_PREFIX + hex), the key
# kept per object on the erasable side (audit_subject_key), deleted with the object.
DIGEST_KEYS = frozenset({"sha256", "source_sha256", "output_sha256"})
KEYED_PREFIX = "hmac-sha256:"


def keyed_digest(key: bytes, value: str) -> str:
    return KEYED_PREFIX + hmac.new(key, value.encode(), hashlib.sha256).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def normalise(value: Any) -> Any:
    """What the value reads back as from jsonb (tuples -> lists, keys -> str)."""
    return json.loads(canonical_json(value))


def timestamp(dt: datetime.datetime) -> str:
    if dt.tzinfo is None:
        raise ValueError("audit timestamps are timezone-aware")
    return dt.astimezone(datetime.UTC).isoformat(timespec="microseconds")


def row_hash(
    *,
    seq: int,
    occurred_at: datetime.datetime,
    actor: str,
    action: str,
    object_type: str,
    object_id: str,
    payload: Any,
    personal_hmac: str,
    prev_hash: str,
) -> str:
    content = [
        seq,
        timestamp(occurred_at),
        actor,
        action,
        object_type,
        object_id,
        payload,
        personal_hmac,
        prev_hash,
    ]
    return hashlib.sha256(canonical_json(content).encode()).hexdigest()


def personal_hmac(key: bytes, details: dict[str, Any] | None) -> str:
    """Keyed, so an erased e-mail address cannot be confirmed by hashing guesses."""
    if not details:
        return ""
    return hmac.new(key, canonical_json(details).encode(), hashlib.sha256).hexdigest()


def split_personal(payload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    kept: dict[str, Any] = {}
    personal: dict[str, Any] = {}
    for k, v in payload.items():
        (personal if str(k).lower() in PERSONAL_KEYS else kept)[k] = v
    return kept, personal
