"""The audit chain: partitions, append-only, tamper detection, concurrency, erasure."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from ats.audit import api as audit_api
from ats.audit import partitions
from ats.audit.data import RecordedEvent
from ats.audit.models import AuditEvent, AuditEventPersonal
from tests.audit.conftest import as_dba, month_start

pytestmark = pytest.mark.django_db(transaction=True)


def record(n: int, **kw: Any) -> list[int]:
    return [
        audit_api.audit_event_record(
            actor="system:test", action="test.event", object_type="attachment", object_id=i, payload={"i": i}, **kw
        ).id
        for i in range(n)
    ]


def partition_of(event_id: int) -> str:
    with connection.cursor() as cur:
        cur.execute("SELECT tableoid::regclass::text FROM audit_event WHERE id = %s", [event_id])
        return str(cur.fetchone()[0])


def test_rows_land_in_monthly_partitions_created_ahead() -> None:
    out = audit_api.audit_partitions_maintain()
    names = [p.name for p in partitions.existing()]
    current = partitions.month_of(month_start(0))
    for i in range(3):  # this month and two ahead
        assert partitions.name_for(partitions.add_months(current, i)) in names
    assert out["dropped"] == []
    (event_id,) = record(1)
    assert partition_of(event_id) == partitions.name_for(current)


def test_append_only_on_every_partition_including_new_ones(seed_history: Any) -> None:
    (old,) = seed_history([month_start(2)])  # a partition created after the trigger was defined
    (new,) = record(1)
    for event_id in (old, new):
        for sql in ("UPDATE audit_event SET action = 'x' WHERE id = %s", "DELETE FROM audit_event WHERE id = %s"):
            with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cur:
                cur.execute(sql, [event_id])
        # Directly on the partition too, not only through the parent.
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cur:
            cur.execute(f"DELETE FROM {partition_of(event_id)} WHERE id = %s", [event_id])
    assert AuditEvent.objects.filter(pk__in=[old, new]).count() == 2


def test_intact_chain_verifies_across_partitions(seed_history: Any) -> None:
    seed_history([month_start(2), month_start(2), month_start(1)])
    record(4)
    result = audit_api.audit_verify()
    assert result["ok"] is True and result["first_broken"] is None
    rows = {p["name"]: p["rows"] for p in result["partitions"]}
    assert rows[partitions.name_for(month_start(2).date())] == 2
    assert rows[partitions.name_for(month_start(1).date())] == 1
    assert rows[partitions.name_for(month_start(0).date())] == 4
    assert all(p["ok"] for p in result["partitions"])


@pytest.fixture
def chain_in_two_months(seed_history: Any) -> list[int]:
    """Three rows last month, four this month: ids in chain order."""
    return seed_history([month_start(1)] * 3) + record(4)


@pytest.mark.parametrize("position", [1, 4], ids=["last-month", "this-month"])
def test_altered_row_is_named(chain_in_two_months: list[int], position: int) -> None:
    target = chain_in_two_months[position]
    as_dba("UPDATE audit_event SET payload = '{\"i\": 99}'::jsonb WHERE id = %s", [target])
    result = audit_api.audit_verify()
    assert result["ok"] is False
    fb = result["first_broken"]
    assert (fb["partition"], fb["event_id"]) == (partition_of(target), target)
    assert "altered" in fb["reason"]
    assert [p["name"] for p in result["partitions"] if not p["ok"]] == [partition_of(target)]


@pytest.mark.parametrize("position", [1, 4], ids=["last-month", "this-month"])
def test_deleted_row_is_named_by_the_row_after_the_gap(chain_in_two_months: list[int], position: int) -> None:
    target, after = chain_in_two_months[position], chain_in_two_months[position + 1]
    where = partition_of(target)
    as_dba("DELETE FROM audit_event WHERE id = %s", [target])
    fb = audit_api.audit_verify()["first_broken"]
    assert (fb["partition"], fb["event_id"]) == (where, after)
    assert "missing" in fb["reason"] and "deleted" in fb["reason"]


def test_deleted_last_row_is_caught_by_the_head(chain_in_two_months: list[int]) -> None:
    last = chain_in_two_months[-1]
    where = partition_of(last)
    as_dba("DELETE FROM audit_event WHERE id = %s", [last])
    fb = audit_api.audit_verify()["first_broken"]
    assert (fb["partition"], fb["event_id"]) == (where, last)
    assert "trailing rows deleted" in fb["reason"]


@pytest.mark.parametrize("months_back", [1, 0], ids=["last-month", "this-month"])
def test_inserted_row_is_named(chain_in_two_months: list[int], months_back: int) -> None:
    # A forged row copying a real row's links, slipped in beside it.
    src = AuditEvent.objects.get(pk=chain_in_two_months[1 if months_back else 4])
    as_dba(
        "INSERT INTO audit_event (seq, occurred_at, actor, action, object_type, object_id, payload, prev_hash,"
        " row_hash) VALUES (%s, %s, 'user:1', 'candidate.deleted', 'candidate', '7', '{}', %s, %s)",
        [src.seq, src.occurred_at, src.prev_hash, src.row_hash],
    )
    forged = AuditEvent.objects.filter(action="candidate.deleted").get().pk
    fb = audit_api.audit_verify()["first_broken"]
    assert fb["partition"] == partition_of(forged)
    assert fb["event_id"] == forged
    assert "inserted" in fb["reason"]


def test_concurrent_writers_never_fork_the_chain_forced_interleaving() -> None:
    """Writer A holds its unfinished transaction while B writes: B waits on the head row
    and links to A's committed row instead of forking from the same tail."""
    a_wrote, release_a = threading.Event(), threading.Event()
    errors: list[BaseException] = []
    pids: dict[str, int] = {}

    def writer_a() -> None:
        try:
            with transaction.atomic():
                record(1)
                pids["a"] = connection.connection.info.backend_pid
                a_wrote.set()
                release_a.wait(20)
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)
        finally:
            connection.close()

    def writer_b() -> None:
        try:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_backend_pid()")
                pids["b"] = cur.fetchone()[0]
            record(1)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)
        finally:
            connection.close()

    ta = threading.Thread(target=writer_a)
    ta.start()
    assert a_wrote.wait(20)
    tb = threading.Thread(target=writer_b)
    tb.start()
    deadline = time.monotonic() + 10
    waiting = False
    while time.monotonic() < deadline and not waiting:
        with connection.cursor() as cur:
            cur.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pids.get("b", -1)])
            row = cur.fetchone()
        waiting = bool(row and row[0] == "Lock")
        time.sleep(0.05)
    assert waiting, "writer B should wait for A's head lock"
    assert tb.is_alive()
    release_a.set()
    ta.join(20)
    tb.join(20)
    assert not errors, errors
    rows = list(AuditEvent.objects.order_by("seq").values_list("seq", "prev_hash", "row_hash"))
    assert [r[0] for r in rows] == [1, 2]
    assert rows[1][1] == rows[0][2]  # B links to A
    assert audit_api.audit_verify()["ok"]


def test_many_concurrent_writers_keep_one_linear_chain() -> None:
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        rnd = random.Random(k)
        try:
            for _ in range(10):
                with transaction.atomic():
                    record(1)
                    time.sleep(rnd.random() * 0.005)  # widen the window between write and commit
                    if rnd.random() < 0.2:
                        transaction.set_rollback(True)  # a writer that rolls back leaves no gap
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    rows = list(AuditEvent.objects.order_by("seq").values_list("seq", "prev_hash"))
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    assert len({r[1] for r in rows}) == len(rows)  # no two rows share a parent: no fork
    assert audit_api.audit_verify()["ok"]


def test_personal_details_stay_outside_the_chain_and_erasure_keeps_it_valid() -> None:
    event = audit_api.audit_event_record(
        actor="user:3",
        action="candidate.contacted",
        object_type="candidate",
        object_id=42,
        payload={"filename": "Jane_Doe_CV.pdf", "channel": "upload"},
        personal={"email": "jane.doe@example.org", "phone": "+44 20 7946 0958"},
    )
    stored = AuditEvent.objects.get(pk=event.id)
    assert stored.payload == {"channel": "upload"}
    assert "jane" not in json.dumps(stored.payload).lower() and len(stored.personal_hmac) == 64
    details = AuditEventPersonal.objects.get(event_id=event.id).details
    assert details["email"] == "jane.doe@example.org" and details["filename"] == "Jane_Doe_CV.pdf"
    assert audit_api.audit_verify()["ok"]
    assert audit_api.audit_personal_erase(object_type="candidate", object_id=42) == 1
    assert AuditEventPersonal.objects.get(event_id=event.id).details is None
    assert audit_api.audit_verify()["ok"]  # erasure does not break the chain


def test_altered_personal_details_are_caught() -> None:
    event = audit_api.audit_event_record(
        actor="user:3", action="a", object_type="candidate", object_id=1, personal={"name": "Jane Doe"}
    )
    AuditEventPersonal.objects.filter(event_id=event.id).update(details={"name": "John Roe"})
    fb = audit_api.audit_verify()["first_broken"]
    assert fb["event_id"] == event.id and "HMAC" in fb["reason"]


def test_missing_partition_is_created_on_demand() -> None:
    current = partitions.month_of(month_start(0))
    name = partitions.name_for(current)
    with connection.cursor() as cur:
        cur.execute(f"ALTER TABLE audit_event DETACH PARTITION {name}")
        cur.execute(f"ALTER TABLE {name} RENAME TO {name}_detached_by_test")
    try:
        (event_id,) = record(1)
        assert partition_of(event_id) == name
        assert audit_api.audit_verify()["ok"]
    finally:
        with connection.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {name}_detached_by_test")


def test_head_is_created_once_then_only_locked() -> None:
    """Issue 26: an event costs no head INSERT once the head exists (a round trip each),
    while the first event of an empty chain still creates it; the chain verifies."""
    from django.test.utils import CaptureQueriesContext

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM audit_event")
        assert cur.fetchone()[0] == 0  # an empty chain: its head (if any) is the genesis
        cur.execute("DELETE FROM audit_chain_head")
    with CaptureQueriesContext(connection) as first:
        record(1)
    with CaptureQueriesContext(connection) as later:
        record(2)

    def head_inserts(ctx: CaptureQueriesContext) -> int:
        return sum(1 for q in ctx.captured_queries if q["sql"].startswith("INSERT INTO audit_chain_head"))

    assert head_inserts(first) == 1 and head_inserts(later) == 0
    assert audit_api.audit_verify()["ok"] is True


def test_subject_key_is_read_once_for_an_objects_later_events() -> None:
    """Issue 26: an object's later events read its digest key in one statement (no upsert);
    its first event creates the key, and every event of the object uses the same key."""
    from django.test.utils import CaptureQueriesContext

    def digest_event() -> RecordedEvent:
        return audit_api.audit_event_record(
            actor="system:test",
            action="test.digest",
            object_type="attachment",
            object_id="k1",
            payload={"sha256": "ab"},
        )

    def key_statements(ctx: CaptureQueriesContext) -> int:
        return sum(1 for q in ctx.captured_queries if "audit_subject_key" in q["sql"])

    with CaptureQueriesContext(connection) as first:
        a = digest_event()
    with CaptureQueriesContext(connection) as later:
        b = digest_event()
    assert key_statements(first) == 2 and key_statements(later) == 1
    assert a.payload["sha256"] == b.payload["sha256"] != "ab"  # keyed, by one key
    assert audit_api.audit_verify()["ok"] is True
