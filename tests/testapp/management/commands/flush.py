"""`flush` for the suite: what Django's leaves, at a fraction of the cost.

Every transactional test ends with Django's `flush` (TransactionTestCase): a TRUNCATE of
all 68 tables, then post_migrate re-creating the content types and permissions it just
removed - 0.2-0.3 s a test (measured: TRUNCATE ~0.28 s, post_migrate ~0.09 s), most of
the fast loop's time. A test writes a handful of tables. This one truncates only the
tables that hold a row (one query asks all of them), CASCADE bringing along the empty
tables that reference them, and leaves the content types and permissions alone when they
are exactly what the last real flush's post_migrate made (checked by a digest of both
tables). Anything else - another database, sequences reset, a prompt, changed seed rows -
is Django's own command. The end state is the same: every table Django flushes is empty
but for the seed rows post_migrate writes. Test-only (tests.testapp); production never
loads it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.db import DEFAULT_DB_ALIAS, connections, transaction

# What post_migrate writes back after a flush (django.contrib.contenttypes and .auth).
_SEEDED = ("django_content_type", "auth_permission")
_seed_digest: list[str] = []


def _digest(cur: Any) -> str:
    cur.execute(
        "SELECT md5((SELECT coalesce(string_agg(t::text, ',' ORDER BY t.id), '') FROM django_content_type t)"
        " || '|' || (SELECT coalesce(string_agg(p::text, ',' ORDER BY p.id), '') FROM auth_permission p))"
    )
    return str(cur.fetchone()[0])


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        database = options.get("database", DEFAULT_DB_ALIAS)
        if database != DEFAULT_DB_ALIAS or options.get("interactive", True) or options.get("reset_sequences", True):
            super().handle(**options)
            return
        connection = connections[database]
        qn = connection.ops.quote_name
        tables = sorted(connection.introspection.django_table_names(only_existing=True, include_views=False))
        with connection.cursor() as cur:
            if not _seed_digest or _digest(cur) != _seed_digest[0]:
                # The first flush of the process, or a test changed the seed rows: the real
                # command, then remember what its post_migrate made.
                super().handle(**options)
                _seed_digest[:] = [_digest(cur)]
                return
            others = [t for t in tables if t not in _SEEDED]
            cur.execute(" UNION ALL ".join(f"(SELECT %s FROM {qn(t)} LIMIT 1)" for t in others), others)
            full = [row[0] for row in cur.fetchall()]
            if not full:
                return
            guarded = _delete_guarded(cur)
            with transaction.atomic(using=database):
                # DELETE costs a few rows; TRUNCATE makes new files for every table and
                # index (~4 ms each). Django's foreign keys are DEFERRABLE INITIALLY DEFERRED,
                # so the order does not matter: every referencing row is in a table with a
                # row, deleted here too, before the commit checks them. Tables whose
                # triggers refuse DELETE (the append-only audit log) are truncated.
                for table in full:
                    if table not in guarded:
                        cur.execute(f"DELETE FROM {qn(table)}")
                truncate = [t for t in full if t in guarded]
                if truncate:
                    cur.execute(f"TRUNCATE {', '.join(qn(t) for t in truncate)} CASCADE")


_guarded: list[frozenset[str]] = []


def _delete_guarded(cur: Any) -> frozenset[str]:
    """Tables (and their partitioned parents) with a trigger of their own that fires on
    DELETE; schema facts, read once per process."""
    if not _guarded:
        cur.execute(
            "SELECT DISTINCT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid"
            " WHERE NOT g.tgisinternal AND (g.tgtype & 8) <> 0"
            " UNION SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent"
            " JOIN pg_trigger g ON g.tgrelid = i.inhrelid WHERE NOT g.tgisinternal AND (g.tgtype & 8) <> 0"
        )
        _guarded.append(frozenset(row[0] for row in cur.fetchall()))
    return _guarded[0]
