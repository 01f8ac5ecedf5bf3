"""After an erasure commits, the relations it changed are rewritten so that no data file
of the cluster keeps the erased person (issue 27 item 1, docs/compliance.md).

Why a rewrite (VACUUM FULL) and not a plain VACUUM: measured on PostgreSQL 15, a plain
VACUUM of a table whose row was deleted leaves the row's bytes in the heap page's free
space and in the B-tree page (a `grep` of the files still finds the e-mail after a
CHECKPOINT); VACUUM FULL writes new files for the table, its TOAST table and every
index, and the old files are unlinked at the next checkpoint. Its ANALYZE replaces the
planner statistics (`pg_statistic` samples column values into its histograms and most
common values); pg_statistic is then rewritten too, or its dead rows keep the samples.

What VACUUM cannot remove is a row version still visible to an older snapshot: the
compaction first waits (bounded) for transactions whose snapshot predates the erasure,
then cancels them (pg_cancel_backend), then terminates them (pg_terminate_backend), and
records whom it cancelled. A replication slot holding back the horizon cannot be
cancelled from here: it is reported. Sessions of other roles are visible (backend_xmin)
and can be signalled only with pg_read_all_stats and pg_signal_backend granted to the
application's role (docs/compliance.md); without them they are not waited for.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterable
from typing import Any

from django.db import DatabaseError, OperationalError, connection

from ats.config.env import ats_settings
from ats.jobs import api as jobs_api

logger = logging.getLogger(__name__)

BUDGET_S = 60.0  # the stated bound: compaction is done within 60 s of the commit
# How long older snapshots are waited for before they are cancelled, and the cancelled
# before they are terminated: settings.ATS COMPACTION_SNAPSHOT_WAIT_S (15 s) and
# COMPACTION_CANCEL_GRACE_S (5 s).
LOCK_TIMEOUT_MS = 5000  # a rewrite waits this long for its lock per try (readers queue behind it)


def touched_relations(tables: Iterable[str] = ()) -> tuple[list[str], str]:
    """Inside the erasure's transaction: the tables it updated or deleted rows of, plus
    `tables` (the ones the erasure's steps answer for, changed this time or not: a row
    blanked earlier, e.g. a parse result emptied once applied, leaves dead versions that
    hold the person), each a quoted, schema-qualified name; and the transaction id."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT format('%%I.%%I', schemaname, relname) FROM pg_stat_xact_user_tables"
            " WHERE n_tup_upd + n_tup_del + n_tup_hot_upd > 0"
            " UNION SELECT format('%%I.%%I', n.nspname, c.relname) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind = 'r' AND c.oid = ANY(SELECT to_regclass(t) FROM unnest(%s::text[]) t)"
            " ORDER BY 1",
            [sorted(set(tables))],
        )
        rels = [r[0] for r in cur.fetchall()]
        cur.execute("SELECT pg_current_xact_id()::text")
        row = cur.fetchone()
    return rels, str(row[0]) if row else "0"


@dataclasses.dataclass
class Batch:
    """Relations of several committed erasures, compacted together (the nightly purge)."""

    relations: set[str] = dataclasses.field(default_factory=set)
    xid: int = 0

    def add(self, relations: list[str], xid: str) -> None:
        self.relations.update(relations)
        self.xid = max(self.xid, int(xid))

    def run(self) -> dict[str, Any] | None:
        if not self.relations:
            return None
        out = compact(sorted(self.relations), xid=str(self.xid))
        self.relations, self.xid = set(), 0
        return out


def _older_snapshots(xid: str) -> list[dict[str, Any]]:
    """Other sessions of this database whose snapshot or transaction started before the
    erasure's transaction committed (they may still see its deleted rows)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT pid, usename, application_name, state, backend_xmin::text FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            # Autovacuum's own horizon does not hold back another VACUUM (PROC_IN_VACUUM).
            " AND backend_type = 'client backend'"
            " AND coalesce(backend_xmin, backend_xid) IS NOT NULL"
            " AND age(coalesce(backend_xmin, backend_xid)) >= age((%s::bigint %% 4294967296)::text::xid)",
            [xid],
        )
        cols = ["pid", "user", "application", "state", "xmin"]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _slots_holding(xid: str) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT slot_name FROM pg_replication_slots WHERE coalesce(xmin, catalog_xmin) IS NOT NULL"
            " AND age(coalesce(xmin, catalog_xmin)) >= age((%s::bigint %% 4294967296)::text::xid)",
            [xid],
        )
        return [r[0] for r in cur.fetchall()]


def _release_snapshots(xid: str, deadline: float) -> dict[str, Any]:
    conf = ats_settings()
    waited_until = min(deadline, time.monotonic() + conf["COMPACTION_SNAPSHOT_WAIT_S"])
    holders = _older_snapshots(xid)
    while holders and time.monotonic() < waited_until:
        time.sleep(0.2)
        holders = _older_snapshots(xid)
    cancelled: list[dict[str, Any]] = []
    terminated: list[dict[str, Any]] = []
    for action, bucket, grace in (
        ("pg_cancel_backend", cancelled, conf["COMPACTION_CANCEL_GRACE_S"]),
        ("pg_terminate_backend", terminated, 2.0),
    ):
        if not holders:
            break
        for h in holders:
            try:
                with connection.cursor() as cur:
                    cur.execute(f"SELECT {action}(%s)", [h["pid"]])
                    row = cur.fetchone()
                bucket.append({**h, "signalled": bool(row and row[0])})
            except DatabaseError as exc:  # another role's session without pg_signal_backend
                bucket.append({**h, "signalled": False, "error": str(exc).strip()})
        logger.warning("erasure compaction: %s on %s (snapshots older than the erasure)", action, holders)
        until = min(deadline, time.monotonic() + grace)
        holders = _older_snapshots(xid)
        while holders and time.monotonic() < until:
            time.sleep(0.2)
            holders = _older_snapshots(xid)
    return {
        "cancelled": cancelled,
        "terminated": terminated,
        "still_holding": holders,
        "replication_slots_holding": _slots_holding(xid),
    }


def _rewrite(conn: Any, rel: str, deadline: float) -> str | None:
    """VACUUM (FULL, ANALYZE) one table (+ TOAST + indexes); retried on lock timeouts
    until the deadline. None when done, else the last error. The SET, the VACUUM and the
    RESET share one backend: behind a transaction-mode pooler each would run on whichever
    server connection is free (the VACUUM unguarded, waiting for its lock with every reader
    queued behind it, and the timeout left on another client's backend), so `conn` is the
    session path (jobs_api.session_connection, opened once by compact())."""
    error = None
    while time.monotonic() < deadline:
        try:
            with conn.cursor() as cur:
                cur.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
                try:
                    cur.execute(f"VACUUM (FULL, ANALYZE) {rel}")
                finally:
                    cur.execute("RESET lock_timeout")
            return None
        except OperationalError as exc:  # lock timeout: someone holds the table; try again
            error = str(exc).strip()
            time.sleep(0.5)
    return error or "no time left in the compaction budget"


def _clear_stats_of_empty(conn: Any, relations: list[str], deadline: float, failed: dict[str, str]) -> list[str]:
    """ANALYZE of a table with no rows left keeps its old statistics (PostgreSQL skips the
    update when it samples nothing), so the erased person's values stay in pg_statistic.
    Only the superuser may delete those rows; the table's owner drops them by re-declaring
    each column's own type (ALTER COLUMN ... TYPE, same type: no rewrite, and the column's
    statistics are removed). Done only for tables now empty, where it costs nothing."""
    cleared = []
    for rel in relations:
        if time.monotonic() >= deadline:
            break
        try:
            # One backend for the SET lock_timeout and the ALTER it guards (see _rewrite).
            with conn.cursor() as cur:
                cur.execute(f"SELECT EXISTS (SELECT 1 FROM {rel})")
                row = cur.fetchone()
                if row is None or row[0]:
                    continue
                cur.execute(
                    "SELECT format('ALTER COLUMN %%I TYPE %%s', a.attname, format_type(a.atttypid, a.atttypmod))"
                    " || CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation"
                    "   THEN format(' COLLATE %%I.%%I', cn.nspname, co.collname) ELSE '' END"
                    " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
                    " LEFT JOIN pg_collation co ON co.oid = a.attcollation"
                    " LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace"
                    " WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped"
                    # pg_statistic itself is the superuser's; its view shows the owner's columns
                    " AND a.attname IN (SELECT st.attname FROM pg_stats st"
                    "   WHERE format('%%I.%%I', st.schemaname, st.tablename) = %s)",
                    [rel, rel],
                )
                alters = [r[0] for r in cur.fetchall()]
                if alters:
                    cur.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
                    try:
                        cur.execute(f"ALTER TABLE {rel} " + ", ".join(alters))
                    finally:
                        cur.execute("RESET lock_timeout")
                    cleared.append(rel)
        except Exception as exc:  # recorded; the step ends 'incomplete'
            failed[f"{rel} (statistics)"] = str(exc).strip()
    return cleared


def compact(relations: list[str], *, xid: str, budget_s: float = BUDGET_S) -> dict[str, Any]:
    """Rewrite `relations` and pg_statistic after the erasure (transaction `xid`) has
    committed. Must run outside any transaction (VACUUM cannot run in one)."""
    if connection.in_atomic_block:
        raise RuntimeError("compaction runs after the erasure commits, outside a transaction")
    started = time.monotonic()
    deadline = started + budget_s
    snapshots = _release_snapshots(xid, deadline)
    failed: dict[str, str] = {}
    # One session connection for every rewrite (the default one when nothing pools it).
    with jobs_api.session_connection() as conn:
        for rel in relations:
            err = _rewrite(conn, rel, deadline)
            if err:
                failed[rel] = err
        stats_cleared = _clear_stats_of_empty(conn, relations, deadline, failed)
        # The ANALYZEs above replaced the tables' statistics rows; their old versions (with
        # sampled values) are dead rows of pg_statistic until it is rewritten too. The
        # database owner may do this (PostgreSQL 15: owners may vacuum non-shared catalogs).
        stats_err = _rewrite(conn, "pg_catalog.pg_statistic", deadline)
    if stats_err:
        failed["pg_catalog.pg_statistic"] = stats_err
    seconds = round(time.monotonic() - started, 2)
    outcome = "done" if not failed and not snapshots["still_holding"] else "incomplete"
    if outcome != "done":
        logger.error("erasure compaction incomplete after %.1fs: %s", seconds, failed or snapshots)
    return {
        "step": "compaction",
        "outcome": outcome,
        "mode": "vacuum_full_analyze",
        "relations": relations,
        "failed": failed,
        "stats_cleared": stats_cleared,
        "seconds": seconds,
        "budget_s": budget_s,
        **snapshots,
    }
