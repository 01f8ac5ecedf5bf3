"""h50perf: intake's locked read of a document (`services._locked`) is written out; it
must hand back exactly what the ORM statement it replaced did - every field, the raw
intake joined and cached as select_related caches it - and lock the row as that did."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from ats.intake import api as intake_api
from ats.intake import services
from ats.intake.models import Attachment

pytestmark = pytest.mark.django_db(transaction=True)


def _values(obj: object) -> dict[str, object]:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}  # type: ignore[attr-defined]


def test_the_locked_read_is_the_orms_row_with_its_raw_intake() -> None:
    raw = intake_api.intake_receive(
        channel="cli",
        files=[intake_api.IncomingFile("cv.pdf", b"%PDF-1.7 locked read")],
        metadata={"requisition_id": 7, "note": "ünïcode"},
    )
    att_id = intake_api.raw_intake_attachments(raw.pk)[0].pk
    with transaction.atomic():
        orm = (
            Attachment.objects.select_for_update(no_key=True, of=("self",))
            .select_related("raw_intake")
            .filter(pk=att_id)
            .first()
        )
        plain = services._locked(att_id)
        joined = services._locked(att_id, with_intake=True)
    assert orm is not None and plain is not None and joined is not None
    assert _values(plain) == _values(orm) == _values(joined)
    assert not plain._state.adding and plain._state.db == "default"
    # Cached as select_related caches it: reading it sends nothing.
    with connection.execute_wrapper(lambda *a: pytest.fail("the raw intake was read again")):
        intake = joined.raw_intake
    assert _values(intake) == _values(orm.raw_intake)
    assert intake.metadata == {"requisition_id": 7, "note": "ünïcode"}
    assert services._locked(-1) is None and services._locked(-1, with_intake=True) is None


def test_the_locked_read_takes_the_no_key_update_lock() -> None:
    """FOR NO KEY UPDATE, as before: another session's FOR KEY SHARE (a foreign-key check)
    gets the row, its FOR SHARE does not; the joined raw intake is not locked."""
    import psycopg
    from procrastinate.contrib.django.utils import connector_params

    raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile("cv.pdf", b"%PDF-1.7 lock")])
    att_id = intake_api.raw_intake_attachments(raw.pk)[0].pk
    params = {k: v for k, v in connector_params().items() if k != "prepare_threshold"}
    with transaction.atomic(), psycopg.connect(autocommit=True, **params) as other:
        services._locked(att_id, with_intake=True)
        assert other.execute("SELECT 1 FROM intake_attachment WHERE id = %s FOR KEY SHARE NOWAIT", [att_id]).fetchone()
        with pytest.raises(psycopg.errors.LockNotAvailable):
            other.execute("SELECT 1 FROM intake_attachment WHERE id = %s FOR SHARE NOWAIT", [att_id])
        assert other.execute("SELECT 1 FROM intake_raw_intake WHERE id = %s FOR UPDATE NOWAIT", [raw.pk]).fetchone()


def test_a_state_save_writes_what_model_save_wrote() -> None:
    """h50perf: `services._save` (every state move) is written out too: the same columns,
    `updated_at` stamped, a foreign key given by name, and a row that is gone an error."""
    from django.db import DatabaseError

    raw = intake_api.intake_receive(
        channel="cli",
        files=[
            intake_api.IncomingFile("a.pdf", b"%PDF-1.7 save a"),
            intake_api.IncomingFile("b.pdf", b"%PDF-1.7 save b"),
        ],
    )
    first, second = (a.pk for a in intake_api.raw_intake_attachments(raw.pk))
    with transaction.atomic():
        att = services._locked(second)
        assert att is not None
        before = att.updated_at
        services._move(
            att, "scanning", "sha256", reason_code="x", reason="why", duplicate_of=Attachment.objects.get(pk=first)
        )
    again = Attachment.objects.get(pk=second)
    assert _values(again) == _values(att)
    assert again.state == "scanning" and (again.reason_code, again.reason) == ("x", "why")
    assert again.duplicate_of_id == first and again.updated_at > before
    Attachment.objects.filter(pk=second).update(duplicate_of=None)
    Attachment.objects.filter(pk=second).delete()
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        services._save(att)
