"""Issue 26: one round trip per event (ats_audit_insert_v1) and a transaction's events
appended at its end (audit_events_at_end), with the chain exactly as before."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ats.audit import api as audit_api
from ats.audit import chain
from ats.audit.models import AuditEvent, AuditEventPersonal

pytestmark = pytest.mark.django_db(transaction=True)

# Whatever Python's json.dumps(ensure_ascii=False) escapes, and what it leaves alone.
AWKWARD = ['quote " back \\ slash', "tab\tnl\ncr\rbs\bff\f", "ctl \x01\x1f del \x7f", "é 漢字 😀 \u2028", "/"]


def _event(action: str, object_id: object = 1, **kw: object) -> object:
    return audit_api.audit_event_record(
        actor="system:test", action=action, object_type="attachment", object_id=object_id, **kw
    )


def test_the_sql_function_hashes_exactly_as_the_chain_defines() -> None:
    # _append re-computes chain.row_hash from the returned values and refuses a mismatch,
    # so every one of these would raise if the SQL form differed in one byte.
    for i, text in enumerate(AWKWARD):
        recorded = audit_api.audit_event_record(
            actor=f"user:{text}",
            action=text[:60],
            object_type="candidate",
            object_id=text[:60],
            payload={"note": text, "n": i, "f": 1.5, "nested": {"b": [text, None, True], "a": -3}},
            personal={"name": text},
        )
        assert recorded is not None
        assert recorded.row_hash == chain.row_hash(
            seq=recorded.seq,
            occurred_at=AuditEvent.objects.get(pk=recorded.id).occurred_at,
            actor=recorded.actor,
            action=recorded.action,
            object_type=recorded.object_type,
            object_id=recorded.object_id,
            payload=recorded.payload,
            personal_hmac=recorded.personal_hmac,
            prev_hash=recorded.prev_hash,
        )
        assert AuditEventPersonal.objects.get(event_id=recorded.id).details == {"name": text}
    assert audit_api.audit_verify()["ok"]


def test_an_event_is_one_round_trip_once_head_and_key_exist() -> None:
    _event("first")
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:  # in the caller's transaction
        _event("second", personal={"name": "Jane"})
    assert [q["sql"].split("(")[0] for q in ctx.captured_queries] == [
        "SELECT missing, event_id, seq, occurred_at, prev_hash, row_hash FROM ats_audit_insert_v1"
    ]


def test_events_wait_for_the_end_and_take_the_head_lock_there() -> None:
    _event("before")  # the head exists
    seen: dict[str, object] = {}
    with transaction.atomic(), audit_api.audit_events_at_end():
        assert _event("one") is None and _event("two") is None
        assert AuditEvent.objects.filter(action__in=["one", "two"]).count() == 0
        # Another writer is not held up by this open transaction: the head is not locked.
        t = threading.Thread(target=lambda: (seen.update(other=_event("other")), connection.close()))
        t.start()
        t.join(20)
        assert seen.get("other") is not None
    actions = list(AuditEvent.objects.order_by("seq").values_list("action", flat=True))
    assert actions == ["before", "other", "one", "two"]  # in recording order, at the end
    assert audit_api.audit_verify()["ok"]


def test_a_rolled_back_savepoint_takes_its_kept_events_with_it() -> None:
    with transaction.atomic(), audit_api.audit_events_at_end():
        _event("outer")
        try:
            with transaction.atomic(), audit_api.audit_events_at_end():
                _event("inner, rolled back")
                raise RuntimeError("the step fails")
        except RuntimeError:
            pass
        with transaction.atomic(), audit_api.audit_events_at_end():
            _event("inner, kept")
    assert list(AuditEvent.objects.order_by("seq").values_list("action", flat=True)) == ["outer", "inner, kept"]
    assert audit_api.audit_verify()["ok"]


def test_a_savepoint_marked_for_rollback_drops_its_kept_events() -> None:
    with transaction.atomic(), audit_api.audit_events_at_end():
        _event("outer")
        with transaction.atomic(), audit_api.audit_events_at_end():
            _event("inner, rolled back")
            transaction.set_rollback(True)
    assert list(AuditEvent.objects.values_list("action", flat=True)) == ["outer"]
    assert audit_api.audit_verify()["ok"]


def test_an_event_in_a_savepoint_opened_inside_the_block_is_written_at_once() -> None:
    # Nothing tells the block that such a savepoint rolled back: the event is appended
    # inside it (the old way), so the rollback takes it, as before.
    with transaction.atomic(), audit_api.audit_events_at_end():
        _event("kept")
        try:
            with transaction.atomic():
                assert _event("gone") is not None
                raise RuntimeError("caught")
        except RuntimeError:
            pass
    assert list(AuditEvent.objects.values_list("action", flat=True)) == ["kept"]
    assert audit_api.audit_verify()["ok"]


def test_a_failing_unit_of_work_writes_none_of_its_events() -> None:
    with pytest.raises(RuntimeError), transaction.atomic(), audit_api.audit_events_at_end():
        _event("lost")
        raise RuntimeError("boom")
    assert not AuditEvent.objects.exists()


def test_outside_a_transaction_is_refused() -> None:
    with pytest.raises(RuntimeError), audit_api.audit_events_at_end():
        pass
