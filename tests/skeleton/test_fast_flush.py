"""The suite's `flush` (tests/testapp/management/commands/flush.py) ends where Django's
does: every table Django flushes empty but for the content types and permissions its
post_migrate writes back - whichever path it takes."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.commands import flush as django_flush
from django.db import connection

from tests.testapp.management.commands import flush as fast_flush
from tests.web import helpers

pytestmark = pytest.mark.django_db(transaction=True)


def _rows() -> dict[str, int]:
    tables = sorted(connection.introspection.django_table_names(only_existing=True, include_views=False))
    qn = connection.ops.quote_name
    with connection.cursor() as cur:
        cur.execute(" UNION ALL ".join(f"SELECT %s, count(*) FROM {qn(t)}" for t in tables), tables)
        return {t: n for t, n in cur.fetchall() if n}


def _flush() -> None:
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False, allow_cascade=False)


def _some_of_everything() -> None:
    # A user with a permission (auth + m2m), a document through intake (its audit events,
    # in the append-only partitioned log whose trigger refuses DELETE), a candidate.
    from django.contrib.auth.models import User

    user = User.objects.create_user("flush-probe", password="x")
    user.user_permissions.add(Permission.objects.first())
    helpers.candidate_from(helpers.parsed_ok("flush probe.pdf"))


def test_the_suite_runs_this_flush_not_djangos() -> None:
    from django.core.management import get_commands

    assert get_commands()["flush"] == "tests.testapp"
    assert issubclass(fast_flush.Command, django_flush.Command)


def test_fast_flush_leaves_what_djangos_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    _flush()  # whichever path: now the seed digest is known
    seeds = _rows()
    assert set(seeds) == {"django_content_type", "auth_permission"}
    _some_of_everything()
    written = _rows()
    wanted = {"auth_user", "auth_user_user_permissions", "intake_attachment", "candidates_candidate", "audit_event"}
    assert wanted <= set(written)
    real = []
    monkeypatch.setattr(django_flush.Command, "handle", lambda self, **kw: real.append(kw))
    _flush()
    assert real == []  # the fast path: Django's command was not needed
    assert _rows() == seeds


def test_changed_seed_rows_get_djangos_flush_and_post_migrate_back() -> None:
    _flush()
    seeds = _rows()
    Permission.objects.filter(codename="view_user").delete()
    _some_of_everything()
    _flush()
    assert _rows() == seeds
    assert Permission.objects.filter(codename="view_user").exists()
