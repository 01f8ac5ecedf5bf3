"""Audit fixtures: a real Azurite for the archive, and a helper that seeds chained history
in past months (the writer itself always stamps `clock_timestamp()`)."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection, transaction

from ats.audit import chain, partitions
from ats.audit.keys import hmac_key


@pytest.fixture(scope="session")
def azurite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from ats.devtools.api import AzuriteLocal

    with AzuriteLocal(location=tmp_path_factory.mktemp("azurite-audit"), silent=True) as server:
        yield server


@pytest.fixture
def archive_on_azurite(azurite: Any, settings: Any) -> Iterator[Any]:
    """Point the archive at Azurite (a fresh container per test)."""
    import uuid

    from ats.audit import adapters

    settings.ATS = {**settings.ATS, "STORAGE_KIND": "azure", "AZURE_BLOB_CONNECTION_STRING": azurite.connection_string}
    settings.AUDIT_ARCHIVE_CONTAINER = f"audit-archive-{uuid.uuid4().hex[:10]}"
    adapters.archive_store.cache_clear()
    yield adapters.archive_store()
    adapters.archive_store.cache_clear()


def month_start(months_back: int) -> datetime.datetime:
    m = partitions.add_months(partitions.month_of(datetime.datetime.now(datetime.UTC)), -months_back)
    return datetime.datetime(m.year, m.month, 1, tzinfo=datetime.UTC)


@pytest.fixture
def seed_history() -> Callable[..., list[int]]:
    """Append chained rows stamped in past months, as the writer would have, and move
    the head. Returns the new event ids."""

    def seed(stamps: list[datetime.datetime], personal: dict[str, Any] | None = None) -> list[int]:
        ids = []
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(
                "INSERT INTO audit_chain_head (id, last_seq, last_hash, updated_at) VALUES (1, 0, %s, now())"
                " ON CONFLICT (id) DO NOTHING",
                [chain.GENESIS],
            )
            cur.execute("SELECT last_seq, last_hash FROM audit_chain_head WHERE id = 1 FOR UPDATE")
            seq, prev = cur.fetchone()
            for i, at in enumerate(stamps):
                partitions.create(partitions.month_of(at))
                seq += 1
                payload = {"n": i, "attachment_id": 1000 + i}
                mac = chain.personal_hmac(hmac_key(), personal)
                digest = chain.row_hash(
                    seq=seq,
                    occurred_at=at,
                    actor="system:seed",
                    action="test.seeded",
                    object_type="attachment",
                    object_id=str(1000 + i),
                    payload=payload,
                    personal_hmac=mac,
                    prev_hash=prev,
                )
                cur.execute(
                    "INSERT INTO audit_event (seq, occurred_at, actor, action, object_type, object_id, payload,"
                    " personal_hmac, prev_hash, row_hash) VALUES (%s,%s,'system:seed','test.seeded','attachment',"
                    " %s, %s::jsonb, %s, %s, %s) RETURNING id",
                    [seq, at, str(1000 + i), chain.canonical_json(payload), mac, prev, digest],
                )
                event_id = cur.fetchone()[0]
                if personal:
                    cur.execute(
                        "INSERT INTO audit_event_personal (event_id, occurred_at, details) VALUES (%s, %s, %s)",
                        [event_id, at, chain.canonical_json(personal)],
                    )
                ids.append(event_id)
                prev = digest
            cur.execute(
                "UPDATE audit_chain_head SET last_seq = %s, last_hash = %s, last_event_id = %s WHERE id = 1",
                [seq, prev, ids[-1] if ids else None],
            )
        return ids

    return seed


def as_dba(sql: str, params: list[Any] | None = None) -> None:
    """What a DBA (the table owner) could do: switch the append-only trigger off around
    one statement. Transactional DDL: the trigger is back on at commit."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("ALTER TABLE audit_event DISABLE TRIGGER audit_event_no_update")
        cur.execute(sql, params or [])
        cur.execute("ALTER TABLE audit_event ENABLE TRIGGER audit_event_no_update")
